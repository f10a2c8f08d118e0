"""Every accumulator supports the same operations — merge, to_bytes/from_bytes, save/load,
pickling — and each gives back what went in: the binary evaluator (unbounded, a count
window, a time window, float32 scores), the multi-category evaluator (one category a case,
and multi-label), the paired evaluation, the sketch and the segmented evaluation. Each
accumulator is checked against one fed every case directly; the surfaces come from one
table here, each row one accumulator, every operation run on every row."""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rankeval import (
    PairedEvaluation,
    ScoredClassifierEvaluation,
    ScoredPrecisionRecallEvaluation,
    SegmentedEvaluation,
    SketchEvaluation,
)
from tests.helpers import Clock

CLOCK = Clock(100.0)
RNG = np.random.default_rng(7)
LABELS = RNG.random(60) < 0.4
SCORES = np.round(RNG.random(60), 1)  # ties
CATEGORIES = RNG.integers(0, 3, 60)
MATRIX = np.round(RNG.random((60, 3)), 1)


@dataclass(frozen=True)
class Kind:
    """One accumulator: how to make one, feed it cases ``lo:hi``, read all it says."""

    name: str
    make: Callable[[], Any]
    feed: Callable[[Any, int, int], None]
    read: Callable[[Any], Any]
    load_options: dict[str, Any] = field(default_factory=dict)


def _binary_feed(ev: Any, lo: int, hi: int) -> None:
    ev.add_cases(LABELS[lo:hi], SCORES[lo:hi])


def _float32_feed(ev: Any, lo: int, hi: int) -> None:
    ev.add_cases(LABELS[lo:hi], SCORES[lo:hi].astype(np.float32))


def _timed_feed(ev: Any, lo: int, hi: int) -> None:
    ev.add_cases(LABELS[lo:hi], SCORES[lo:hi], timestamps=np.arange(lo, hi, dtype=float) + 50)


def _binary_read(ev: Any) -> Any:
    return (ev.summary((1, 5), 1.0), ev.pr_curve().tolist(), repr(ev))


def _classifier_feed(ev: Any, lo: int, hi: int) -> None:
    if ev.multi_label:
        ev.add_cases(MATRIX[lo:hi] > 0.5, MATRIX[lo:hi])
    else:
        ev.add_cases(CATEGORIES[lo:hi], MATRIX[lo:hi])


def _classifier_read(ev: Any) -> Any:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return (ev.summary(), ev.average_precision(None), repr(ev))


def _paired_feed(ev: Any, lo: int, hi: int) -> None:
    ev.add_cases(LABELS[lo:hi], SCORES[lo:hi], MATRIX[lo:hi, 0])


def _paired_read(ev: Any) -> Any:
    return (ev.a.summary(), ev.b.summary(), ev.roc_test())


def _sketch_read(ev: Any) -> Any:
    return ev.summary()


def _segmented_feed(ev: Any, lo: int, hi: int) -> None:
    keys = [("a", 1, "1", 2.5)[int(c)] if c < 3 else None for c in CATEGORIES[lo:hi]]
    ev.add_cases(keys, LABELS[lo:hi], SCORES[lo:hi])


def _segmented_read(ev: Any) -> Any:
    return sorted(((repr(key), value.summary()) for key, value in ev.items()))


KINDS = [
    Kind("binary", ScoredPrecisionRecallEvaluation, _binary_feed, _binary_read),
    Kind("binary-insertion", functools.partial(ScoredPrecisionRecallEvaluation, "insertion"),
         _binary_feed, _binary_read),
    Kind("count-window", functools.partial(ScoredPrecisionRecallEvaluation, window=1000),
         _binary_feed, _binary_read),
    Kind("time-window", functools.partial(ScoredPrecisionRecallEvaluation, horizon=1000.0,
                                          clock=CLOCK),
         _timed_feed, _binary_read, {"clock": CLOCK}),
    Kind("float32", functools.partial(ScoredPrecisionRecallEvaluation,
                                      score_dtype="float32"), _float32_feed, _binary_read),
    Kind("classifier", functools.partial(ScoredClassifierEvaluation, ["x", "y", "z"]),
         _classifier_feed, _classifier_read),
    Kind("multi-label", functools.partial(ScoredClassifierEvaluation, ["x", "y", "z"],
                                          multi_label=True),
         _classifier_feed, _classifier_read),
    Kind("paired", PairedEvaluation, _paired_feed, _paired_read),
    Kind("sketch", functools.partial(SketchEvaluation, exact_until=20), _binary_feed,
         _sketch_read),
    Kind("segmented", functools.partial(SegmentedEvaluation, ScoredPrecisionRecallEvaluation),
         _segmented_feed, _segmented_read),
]


def _fed(kind: Kind, lo: int = 0, hi: int = 60) -> Any:
    ev = kind.make()
    kind.feed(ev, lo, hi)
    return ev


def _from_bytes(kind: Kind, data: bytes) -> Any:
    cls = type(kind.make())
    if cls is SegmentedEvaluation:
        return cls.from_bytes(data, ScoredPrecisionRecallEvaluation)
    return cls.from_bytes(data, **kind.load_options)


def _load(kind: Kind, path: Path) -> Any:
    cls = type(kind.make())
    if cls is SegmentedEvaluation:
        return cls.load(path, ScoredPrecisionRecallEvaluation)
    return cls.load(path, **kind.load_options)


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_each_is_the_declared_accumulator(kind: Kind) -> None:
    from rankeval.scored.accumulation import Accumulation, Part

    made = kind.make()
    assert isinstance(made, Accumulation)
    # Its state declared once: each part an attribute it holds, as new as the part's empty
    # value (reset() gives them back: test_reset_forgets_every_case_and_keeps_the_settings).
    assert made._STATE
    for name, part in made._STATE.items():
        assert isinstance(part, Part)
        empty = part.empty(made)
        assert type(getattr(made, name)) is type(empty), name
    for name in ("from_bytes", "load"):
        assert callable(getattr(type(made), name))


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_merge_equals_one_fed_every_case(kind: Kind) -> None:
    whole = _fed(kind)
    first, second = _fed(kind, 0, 25), _fed(kind, 25, 60)
    first.merge(second)
    assert kind.read(first) == kind.read(whole)


def _shown(kind: Kind, ev: Any) -> str:
    """What an accumulator reads, as text (NaN equal to NaN), or the error it raises."""
    try:
        return repr(kind.read(ev))
    except ValueError as error:  # DeLong's test of no case
        return f"error: {error}"


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_reset_forgets_every_case_and_keeps_the_settings(kind: Kind) -> None:
    ev = _fed(kind)
    lock = getattr(ev, "_lock", None)
    ev.reset()
    assert getattr(ev, "_lock", None) is lock  # a thread waiting on it still guards it
    kind.feed(ev, 10, 60)  # (reading first would move a time window's time on)
    assert kind.read(ev) == kind.read(_fed(kind, 10, 60))
    emptied = _fed(kind)
    emptied.reset()
    assert _shown(kind, emptied) == _shown(kind, kind.make())


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_bytes_round_trip(kind: Kind) -> None:
    ev = _fed(kind)
    data = ev.to_bytes()
    assert isinstance(data, bytes)
    assert kind.read(_from_bytes(kind, data)) == kind.read(ev)


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_save_load_round_trip(kind: Kind, tmp_path: Path) -> None:
    ev = _fed(kind)
    ev.save(tmp_path / "state")
    assert kind.read(_load(kind, tmp_path / "state")) == kind.read(ev)


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_pickle_round_trip(kind: Kind) -> None:
    ev = _fed(kind)
    assert kind.read(pickle.loads(pickle.dumps(ev))) == kind.read(ev)


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
def test_damaged_bytes_are_refused_naming_the_source(kind: Kind) -> None:
    from rankeval import PersistenceError

    data = bytearray(_fed(kind).to_bytes())
    data[len(data) // 2] ^= 0xFF
    cls = type(kind.make())
    if cls is SegmentedEvaluation:
        read = functools.partial(cls.from_bytes, bytes(data), ScoredPrecisionRecallEvaluation,
                                 "checkpoint-7")
    else:
        read = functools.partial(cls.from_bytes, bytes(data), "checkpoint-7",
                                 **kind.load_options)
    with pytest.raises(PersistenceError, match="checkpoint-7"):
        read()


@pytest.mark.parametrize("kind", [k for k in KINDS if k.name in ("binary", "classifier",
                                                                "paired", "sketch", "segmented")],
                         ids=["binary", "classifier", "paired", "sketch", "segmented"])
def test_merges_both_ways_at_once_never_wait_for_each_other(kind: Kind) -> None:
    """``a.merge(b)`` beside ``b.merge(a)`` in another thread, thousands of times with the
    interpreter switching threads every microsecond: the base reads the other's parts under
    its lock alone, then takes its own, so neither waits for the other. (Taking the other's
    lock inside one's own deadlocks here within seconds.)"""
    import sys
    import threading

    a, b = kind.make(), kind.make()  # empty: merging them keeps them small

    def merges(mine: Any, theirs: Any) -> None:
        for _ in range(5_000):
            mine.merge(theirs)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=merges, args=pair, daemon=True)
                   for pair in ((a, b), (b, a))]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
    finally:
        sys.setswitchinterval(interval)
    assert not any(worker.is_alive() for worker in workers), "the two merges wait for each other"
