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
