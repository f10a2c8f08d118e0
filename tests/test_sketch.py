"""The bounded-memory sketch mode: every value's interval holds the exact value.

The exact value is a grouped :class:`ScoredPrecisionRecallEvaluation` of the same cases with
their scores rounded to float32 (what the sketches hold), computed independently here.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import PersistenceError, ScoredPrecisionRecallEvaluation, container
from rankeval.scored import sketch as sketch_module
from rankeval.scored.sketch import Estimate, SketchEvaluation

KINDS = ("all tied", "two spikes", "heavy tails", "0.1 % positives", "continuous")


def stream(kind: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    rate = 0.001 if kind == "0.1 % positives" else 0.2
    labels = rng.random(n) < rate
    if kind == "all tied":
        scores = np.full(n, 0.5)
    elif kind == "two spikes":
        scores = rng.choice([0.25, 0.75], n, p=[0.9, 0.1])
        scores[labels & (rng.random(n) < 0.5)] = 0.75
    elif kind == "heavy tails":
        scores = rng.standard_cauchy(n) + labels * 2.0
    elif kind == "0.1 % positives":
        scores = rng.standard_cauchy(n) + labels * rng.normal(3.0, 1.0, n)
    else:
        scores = rng.normal(size=n) + labels
    return labels, scores


def exact(labels: np.ndarray, scores: np.ndarray, misses: int = 0,
          negative_misses: int = 0) -> ScoredPrecisionRecallEvaluation:
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev.add_cases(labels, scores.astype(np.float32).astype(np.float64))
    ev.add_misses(misses)
    ev.add_negative_misses(negative_misses)
    return ev


def assert_within(estimate: Estimate, value: float) -> None:
    if np.isnan(value):
        assert np.isnan(estimate.value)
        return
    assert estimate.low <= value <= estimate.high, (estimate, value)
    assert estimate.low <= estimate.value <= estimate.high


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(2000, 30000), seed=st.integers(0, 2**32 - 1),
       k=st.sampled_from([8, 12, 50]), exact_until=st.sampled_from([0, 100, 1000]),
       chunk=st.integers(500, 10000), misses=st.integers(0, 5),
       one_by_one=st.integers(0, 300))
def test_every_interval_holds_the_exact_value(kind: str, n: int, seed: int, k: int,
                                              exact_until: int, chunk: int, misses: int,
                                              one_by_one: int) -> None:
    labels, scores = stream(kind, n, seed)
    ev = SketchEvaluation(sketch_size=k, exact_until=exact_until)
    for correct, score in zip(labels[:one_by_one].tolist(), scores[:one_by_one].tolist(),
                              strict=True):
        ev.add_case(correct, score)
    for at in range(one_by_one, n, chunk):
        ev.add_cases(labels[at:at + chunk], scores[at:at + chunk])
    ev.add_misses(misses)
    ev.add_negative_misses(misses)
    want = exact(labels, scores, misses, misses)
    got = ev.summary()
    assert_within(got["roc_auc"], want.area_under_roc_curve())
    assert_within(got["average_precision"], want.average_precision())
    assert (ev.num_positive_ref(), ev.num_negative_ref()) == (want.num_positive_ref(),
                                                              want.num_negative_ref())
    assert not ev.exact


def test_exact_until_the_budget_then_bounded_memory() -> None:
    labels, scores = stream("continuous", 50_000, 1)
    ev = SketchEvaluation(sketch_size=12, exact_until=1000)
    ev.add_cases(labels[:1000], scores[:1000])
    assert ev.exact
    want = exact(labels[:1000], scores[:1000])
    auc = ev.area_under_roc_curve()
    assert auc == (want.area_under_roc_curve(),) * 3
    assert auc.error == 0.0
    ev.add_case(bool(labels[1000]), float(scores[1000]))
    ev.add_cases(labels[1001:], scores[1001:])
    assert not ev.exact
    assert ev.memory_bytes() < 20_000  # two sketches of k = 12: a few KiB, not 50,000 cases
    assert 0 < ev.average_precision().error < 0.2


def test_merges_across_processes() -> None:
    labels, scores = stream("heavy tails", 40_000, 2)
    parts = [SketchEvaluation(sketch_size=12, exact_until=5000) for _ in range(3)]
    for i, part in enumerate(parts):
        part.add_cases(labels[i::3], scores[i::3])
    small = SketchEvaluation(sketch_size=12, exact_until=5000)  # still exact: its cases merge in
    small.add_cases([True, False], [3.0, -1.0])
    merged = pickle.loads(pickle.dumps(parts[0]))
    merged.merge(parts[1])
    merged.merge(parts[2])
    merged.merge(small)
    want = exact(np.append(labels, [True, False]), np.append(scores, [3.0, -1.0]))
    assert merged.num_cases() == 40_002
    assert_within(merged.area_under_roc_curve(), want.area_under_roc_curve())
    assert_within(merged.average_precision(), want.average_precision())
    with pytest.raises(ValueError, match="cannot merge sketch_size=8 into sketch_size=12"):
        merged.merge(SketchEvaluation(sketch_size=8))


@pytest.mark.parametrize("exact_until", [0, 10**6])
def test_saves_and_loads(tmp_path: Path, exact_until: int) -> None:
    labels, scores = stream("two spikes", 20_000, 3)
    ev = SketchEvaluation(sketch_size=8, exact_until=exact_until)
    ev.add_cases(labels, scores)
    ev.add_misses(2)
    path = tmp_path / "sketch"
    ev.save(path)
    again = SketchEvaluation.load(path)
    assert again.summary() == ev.summary()
    assert repr(again) == repr(ev)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(PersistenceError, match="checksum mismatch"):
        SketchEvaluation.load(path)
    path.write_bytes(b"not a sketch")
    with pytest.raises(PersistenceError, match="not a rankeval sketch file"):
        SketchEvaluation.load(path)


def state(ev: SketchEvaluation) -> Any:
    return ev.to_bytes(), repr(ev)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda ev: ev.add_case(True, float("nan")), ValueError, "NaN"),
    (lambda ev: ev.add_cases([True, False], [0.5]), ValueError, "same length"),
    (lambda ev: ev.add_cases([True, 2], [0.5, 0.1]), ValueError, r"correct\[1\]"),
    (lambda ev: ev.add_misses(-1), ValueError, "non-negative"),
    (lambda ev: ev.merge(ScoredPrecisionRecallEvaluation()), TypeError, "SketchEvaluation"),
])
def test_bad_input_changes_nothing(call: Any, error: type[Exception], message: str) -> None:
    ev = SketchEvaluation(sketch_size=8, exact_until=10)
    labels, scores = stream("continuous", 3000, 4)
    ev.add_cases(labels, scores)
    before = state(ev)
    with pytest.raises(error, match=message):
        call(ev)
    assert state(ev) == before


def test_a_failure_while_updating_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    ev = SketchEvaluation(sketch_size=8, exact_until=10)
    labels, scores = stream("continuous", 3000, 5)
    ev.add_cases(labels, scores)
    before = state(ev)

    def failing(*args: Any) -> Any:
        raise MemoryError("injected")

    monkeypatch.setattr(SketchEvaluation, "_updated", staticmethod(failing))
    with pytest.raises(MemoryError):
        ev.add_cases(labels, scores)
    monkeypatch.undo()
    assert state(ev) == before


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sketch_size": 5}, "sketch_size must be an integer >= 8"),
    ({"sketch_size": 10**4}, "sketch_size must be an even number"), ({"sketch_size": 4}, ">= 8"),
    ({"exact_until": -1}, ">= 0"),
    # DataSketches' binding keeps k in one byte: 256 would run as 4, 1024 as 4, 300 as 44.
    ({"sketch_size": 256}, "from 8 to 254"), ({"sketch_size": 1024}, "from 8 to 254"),
    ({"sketch_size": 300}, "from 8 to 254"),
    ({"sketch_size": 50, "k": 50}, "not both"),
])
def test_settings(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SketchEvaluation(**kwargs)


def test_k_is_now_sketch_size() -> None:
    """``k`` names a rank everywhere else; ``SketchEvaluation(k=)`` warns, naming the
    release that removes it, and makes the same sketch."""
    with pytest.warns(DeprecationWarning, match=r"k=\) is now sketch_size=.*rankeval 1\.0"):
        old = SketchEvaluation(k=12, exact_until=0)
    assert repr(old) == repr(SketchEvaluation(sketch_size=12, exact_until=0))
    assert "sketch_size=12" in repr(old)


def test_the_bounds_module_states_its_confidence() -> None:
    assert sketch_module.STD_DEVS == 3


def test_scores_are_float32_from_the_first_case() -> None:
    """0.1 and the next double above it are one float32: tied while exact, as sketched."""
    ev = SketchEvaluation(exact_until=100)
    ev.add_case(True, 0.1)
    ev.add_case(False, float(np.nextafter(0.1, 1.0)))
    assert ev.exact
    assert ev.area_under_roc_curve() == (0.5, 0.5, 0.5)
    ev.add_cases([True], [1e300])  # beyond float32: +inf, the top
    assert ev.average_precision().value == (1.0 + 2 / 3) / 2


@pytest.mark.parametrize("label", [True, False])
def test_one_class_only(label: bool) -> None:
    """An empty sketch for the other class (iterating one crashes datasketches 5.2)."""
    ev = SketchEvaluation(sketch_size=8, exact_until=0)
    ev.add_cases([label] * 1000, np.linspace(0.0, 1.0, 1000))
    want = exact(np.array([label] * 1000), np.linspace(0.0, 1.0, 1000))
    got = ev.summary()
    for name, value in (("roc_auc", want.area_under_roc_curve()),
                        ("average_precision", want.average_precision())):
        if np.isnan(value):
            assert np.isnan(got[name].value)
        else:
            assert_within(got[name], value)


def test_a_failing_fold_in_add_case_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The add that finds the pending list full folds it first: if that fails, neither the
    waiting cases nor the new one are lost or counted twice."""
    ev = SketchEvaluation(sketch_size=8, exact_until=0)
    for i in range(sketch_module._PENDING):
        ev.add_case(i % 3 == 0, i / 1000)
    before = ev.num_cases()

    def failing(*args: Any) -> Any:
        raise MemoryError("injected")

    monkeypatch.setattr(SketchEvaluation, "_updated", staticmethod(failing))
    with pytest.raises(MemoryError):
        ev.add_case(True, 5.0)
    assert ev.num_cases() == before
    monkeypatch.undo()
    ev.add_case(True, 5.0)
    assert ev.num_cases() == before + 1
    assert ev.summary()["average_precision"].value > 0


@settings(max_examples=80, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(2000, 60000), seed=st.integers(0, 2**32 - 1),
       k=st.sampled_from([8, 12, 50, 200]), strict=st.booleans())
def test_the_widened_rank_bounds_hold_at_every_retained_score(
        kind: str, n: int, seed: int, k: int, strict: bool) -> None:
    """The ingredient of every bound: the cases at or above (above) each retained score lie
    within the interval, counted here directly from the scores."""
    import datasketches

    _, scores = stream(kind, n, seed)
    scores = scores.astype(np.float32)
    sketch = datasketches.req_floats_sketch(k, True)
    for at in range(0, n, 5000):
        sketch.update(scores[at:at + 5000])
    items, weights = sketch_module._weighted(sketch)
    low, high, epsilon = sketch_module._tail_bounds(sketch, items, weights, items[::-1], strict)
    ordered = np.sort(scores.astype(np.float64))
    below = np.searchsorted(ordered, items[::-1], side="right" if strict else "left")
    true = n - below
    assert np.all(low <= true)
    assert np.all(true <= high)
    assert 0 <= epsilon < 1


def test_the_largest_k_is_the_sketches_k() -> None:
    ev = SketchEvaluation(sketch_size=254, exact_until=0)
    labels, scores = stream("continuous", 5000, 6)
    ev.add_cases(labels, scores)
    assert ev._sketches is not None
    assert [sketch.k for sketch in ev._sketches] == [254, 254]


def _rewritten(data: bytes, **changes: Any) -> bytes:
    """``data`` with metadata fields replaced (raw JSON text for values) and a valid
    checksum: what a crafted file looks like."""
    import hashlib
    import json

    _, version, meta_len = container._HEADER.unpack_from(data)
    meta = json.loads(data[container._HEADER.size:container._HEADER.size + meta_len])
    rest = data[container._HEADER.size + meta_len:-32]
    text = json.dumps(meta, sort_keys=True)
    for key, raw in changes.items():
        text = text.replace(f'"{key}": {json.dumps(meta[key])}', f'"{key}": {raw}')
    body = (container._HEADER.pack(sketch_module._MAGIC, version, len(text.encode()))
            + text.encode() + rest)
    return body + hashlib.sha256(body).digest()


@pytest.mark.parametrize(("exact_until", "changes", "message"), [
    (0, {"pos_missed": '"1180591620717411303424"'}, "not a count from 0 to 2\\*\\*63 - 1"),
    (0, {"pos_missed": "1.5"}, "not a count"),
    (0, {"positives": "Infinity"}, "Infinity in the metadata"),
    (0, {"neg_missed": '"-3"'}, "not a count"),
    (0, {"k": "52"}, "has k=8, the file says 52"),
    (0, {"k": "8.0"}, "not an integer"),
    (0, {"k": "true"}, "not an integer"),
    (0, {"phase": '"folded"'}, "unknown phase"),
    (10**6, {"exact_until": "10"}, "more than exact_until"),
    (0, {"blobs": "[1, 2, 3]"}, "the sections do not fill the file"),
    (0, {"exact_until": "1" + "0" * 400}, None),  # a huge budget is a valid setting
])
def test_crafted_metadata_is_refused(exact_until: int, changes: dict[str, str],
                                     message: str | None) -> None:
    ev = SketchEvaluation(sketch_size=8, exact_until=exact_until)
    labels, scores = stream("continuous", 3000, 7)
    ev.add_cases(labels, scores)
    ev.add_misses(2)
    data = _rewritten(ev.to_bytes(), **changes)
    if message is None:
        assert SketchEvaluation.from_bytes(data).summary() == ev.summary()
        return
    with pytest.raises(PersistenceError, match=message):
        SketchEvaluation.from_bytes(data)


def test_a_deeply_nested_metadata_is_refused() -> None:
    import hashlib

    text = b"[" * 100_000 + b"]" * 100_000
    body = container._HEADER.pack(sketch_module._MAGIC, 1, len(text)) + text
    with pytest.raises(PersistenceError, match="invalid sketch metadata"):
        SketchEvaluation.from_bytes(body + hashlib.sha256(body).digest())


def test_exact_phase_labels_must_be_bits() -> None:
    import hashlib

    ev = SketchEvaluation(sketch_size=8, exact_until=100)
    ev.add_cases([True, False], [0.5, 0.25])
    data = bytearray(ev.to_bytes()[:-32])
    data[-1] = 2  # the last label byte
    body = bytes(data)
    with pytest.raises(PersistenceError, match="neither 0 nor 1"):
        SketchEvaluation.from_bytes(body + hashlib.sha256(body).digest())


def test_load_refuses_fifos_and_devices_without_reading(tmp_path: Path) -> None:
    import os
    import stat

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(PersistenceError, match="not a regular file"):
        SketchEvaluation.load(fifo)  # would block forever if it opened for reading
    zero = tmp_path / "zero"
    os.mknod(zero, 0o666 | stat.S_IFCHR, os.stat("/dev/zero").st_rdev)
    with pytest.raises(PersistenceError, match="not a regular file"):
        SketchEvaluation.load(zero)  # would read until memory runs out


def test_a_missing_extra_fails_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "datasketches", None)
    with pytest.raises(ImportError, match=r"pip install 'rankeval-exact\[sketch\]'"):
        SketchEvaluation()
