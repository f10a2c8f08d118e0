"""SegmentedEvaluation: each segment's evaluator equals a fresh one fed that segment's cases
in order; the summary table is every segment's summary; merging is per segment."""

from __future__ import annotations

import numpy as np
import pytest

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.scored.segments import SegmentedEvaluation


def _factory() -> ScoredPrecisionRecallEvaluation:
    return ScoredPrecisionRecallEvaluation(ties="insertion")


def _data(seed: int, n: int = 500) -> tuple[list[object], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    keys: list[object] = [("de", "v1"), ("fr", "v1"), 7, "us"]
    segments = [keys[i] for i in rng.integers(0, 4, n)]
    return segments, rng.random(n) < 0.4, np.round(rng.random(n), 2)


@pytest.mark.parametrize("seed", range(5))
def test_each_segment_is_a_fresh_evaluator_of_its_cases(seed: int) -> None:
    segments, labels, scores = _data(seed)
    seg = SegmentedEvaluation(_factory)
    seg.add_case(segments[0], bool(labels[0]), float(scores[0]))
    seg.add_cases(segments[1:], labels[1:], scores[1:])
    assert list(seg) == list(dict.fromkeys(segments))  # order of first sight
    for key in seg:
        mine = [i for i, s in enumerate(segments) if s == key]
        fresh = _factory()
        fresh.add_cases(labels[mine], scores[mine])  # the same order (insertion ties)
        assert seg[key] == fresh


def test_summary_frame_and_merge() -> None:
    segments, labels, scores = _data(1)
    a, b = SegmentedEvaluation(_factory), SegmentedEvaluation(_factory)
    a.add_cases(segments[:250], labels[:250], scores[:250])
    b.add_cases(segments[250:], labels[250:], scores[250:])
    whole = SegmentedEvaluation(_factory)
    whole.add_cases(segments, labels, scores)
    a.merge(b)
    for key in whole:
        assert a[key] == whole[key]
    frame = whole.summary_frame()
    assert list(frame["segment"]) == list(whole)
    for row, key in enumerate(whole):
        expected = whole[key].summary()
        for name, value in expected.items():
            assert frame[name][row] == pytest.approx(value, nan_ok=True)


def test_refusals() -> None:
    seg = SegmentedEvaluation(_factory)
    with pytest.raises(TypeError, match="hashable"):
        seg.add_case(["not", "hashable"], True, 0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="2 segments for 3 cases"):
        seg.add_cases(["a", "b"], [True, False, True], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="NaN"):
        seg.add_cases(["a", "b"], [True, False], [0.1, float("nan")])
    assert len(seg) == 0  # nothing was added, no segment was made
    with pytest.raises(KeyError):
        seg["a"]
    with pytest.raises(TypeError, match="callable"):
        SegmentedEvaluation(42)  # type: ignore[arg-type]


def test_save_and_load_round_trip(tmp_path: object) -> None:
    from pathlib import Path

    from rankeval import PersistenceError

    folder = Path(str(tmp_path)) / "segments"
    segments, labels, scores = _data(3)
    seg = SegmentedEvaluation(_factory)
    seg.add_cases(segments, labels, scores)
    seg.add_case(2.5, True, 0.5)
    seg.add_case(None, False, 0.25)
    seg.save(folder)
    back = SegmentedEvaluation.load(folder, _factory)
    assert list(back) == list(seg)  # keys of every kind, their types kept
    for key in seg:
        assert back[key] == seg[key]
    back.add_case("new", True, 0.5)  # the factory makes segments first seen after loading
    assert back["new"].num_cases() == 1
    odd = SegmentedEvaluation(_factory)
    odd.add_case(frozenset({1}), True, 0.5)
    with pytest.raises(TypeError, match="saved segment key"):
        odd.save(Path(str(tmp_path)) / "odd")
    (folder / "segments.json").write_text('{"format": "something else"}')
    with pytest.raises(PersistenceError, match="malformed index"):
        SegmentedEvaluation.load(folder, _factory)


@pytest.mark.parametrize("kind", ["int", "str", "bool", "object"])
def test_every_key_array_groups_as_the_cases_one_by_one(kind: str) -> None:
    """NumPy-grouped keys (integers, text, booleans) and keys of any other kind give each
    segment its cases in the order given, segments in order of first sight."""
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 7, 400)
    keys: object = {"int": raw, "str": raw.astype(str), "bool": raw > 3,
                    "object": [(int(k), "x") for k in raw]}[kind]
    labels, scores = rng.random(400) < 0.4, rng.integers(0, 5, 400) / 4
    seg = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="insertion"))
    seg.add_cases(keys, labels, scores)
    one = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="insertion"))
    listed = keys.tolist() if isinstance(keys, np.ndarray) else keys
    for key, label, score in zip(listed, labels.tolist(), scores.tolist(), strict=True):
        one.add_case(key, label, score)
    assert list(seg) == list(one)
    assert all(seg[key] == one[key] for key in one)
    with pytest.raises(ValueError, match="3 segments for 400 cases"):
        seg.add_cases(np.array([1, 2, 3]), labels, scores)


def test_a_nan_segment_is_refused_and_nothing_is_added() -> None:
    seg = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
    with pytest.raises(ValueError, match="segment 2 is NaN"):
        seg.add_cases([1.0, 2.0, float("nan")], [True, False, True], [0.3, 0.2, 0.1])
    assert len(seg) == 0
    with pytest.raises(ValueError, match="must equal itself"):
        seg.add_case(float("nan"), True, 0.5)
    assert len(seg) == 0


def test_segments_of_another_evaluator_class_load_back(tmp_path: object) -> None:
    """A directory of SketchEvaluation segments is read back by that class, not by the
    binary evaluator's load (which refused the sketch's files)."""
    from pathlib import Path

    from rankeval import SketchEvaluation

    segments, labels, scores = _data(4)
    seg = SegmentedEvaluation(lambda: SketchEvaluation(exact_until=10))
    seg.add_cases(segments, labels, scores)
    folder = Path(str(tmp_path)) / "sketches"
    seg.save(folder)
    back = SegmentedEvaluation.load(folder, lambda: SketchEvaluation(exact_until=10))
    assert list(back) == list(seg)
    for key in seg:
        assert isinstance(back[key], SketchEvaluation)
        assert back[key].to_bytes() == seg[key].to_bytes()
