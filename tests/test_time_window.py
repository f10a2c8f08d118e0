"""Windows of time: exact over the cases of the last ``horizon`` seconds, by an injected clock."""

from __future__ import annotations

import copy
import pickle
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import ScoredPrecisionRecallEvaluation
from tests import strategies
from tests.conftest import close
from tests.helpers import assert_matches_reference, small_buffer
from tests.reference import Reference


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


operations = st.lists(st.one_of(
    st.tuples(st.just("tick"), st.sampled_from([0.0, 0.5, 1.0, 2.5, 7.0])),
    st.tuples(st.just("case"), st.booleans(), strategies.scores),
    st.tuples(st.just("cases"), strategies.cases),
    st.tuples(st.just("misses"), st.integers(0, 2)),
), max_size=40)


@settings(max_examples=80, deadline=None)
@given(ops=operations, ties=strategies.ties, horizon=st.sampled_from([1.0, 3.0, 10.0]),
       buffer=st.sampled_from([2, 5, 1024]))
def test_equals_a_fresh_evaluator_of_the_cases_inside(ops: list[Any], ties: str,
                                                      horizon: float, buffer: int) -> None:
    check_stream(ops, ties, horizon, buffer)


def test_evictions_with_nothing_added_after_them() -> None:
    """Found by the property test: cases leave (the clock moves) while nothing is buffered,
    so the evicted ones sit in the sorted tier as dead cases that a full read must drop."""
    ops = [("cases", [(False, -2.0)] * 3), ("tick", 1.0), ("case", False, -2.0),
           ("tick", 0.5), ("tick", 1.0), ("tick", 7.0), ("case", False, -2.0), ("tick", 0.5),
           ("tick", 1.0)]
    check_stream(ops, "insertion", 10.0, 2, full_every=1)


def check_stream(ops: list[Any], ties: str, horizon: float, buffer: int,
                 full_every: int = 5) -> None:
    """Apply ``ops`` with an injected clock; after each, compare with the cases inside."""
    with small_buffer(buffer):
        clock = Clock()
        ev = ScoredPrecisionRecallEvaluation(ties=ties, horizon=horizon,  # type: ignore[arg-type]
                                             clock=clock)
        added: list[tuple[bool, float, float]] = []  # (label, score, time)
        misses = 0
        for step, op in enumerate(ops):
            if op[0] == "tick":
                clock.now += op[1]
            elif op[0] == "case":
                ev.add_case(op[1], op[2])
                added.append((op[1], op[2], clock.now))
            elif op[0] == "cases":
                ev.add_cases([c for c, _ in op[1]], [s for _, s in op[1]])
                added += [(c, s, clock.now) for c, s in op[1]]
            else:
                ev.add_misses(op[1])
                misses += op[1]
            live = [(c, s) for c, s, t in added if t > clock.now - horizon]
            ref = Reference(live, misses, 0, ties)
            assert ev.num_cases() == len(live) + misses
            assert close(ev.area_under_roc_curve(), ref.roc_auc_pairs(misses, 0))
            assert close(ev.reciprocal_rank(), ref.reciprocal_rank())
            for k in (1, 3, len(live) + 1):
                assert close(ev.precision_at(k), ref.precision_at(k))
            ev._store._check()
            if step % full_every == full_every - 1:
                assert_matches_reference(ev, live, misses, 0)
                for clone in (ev.snapshot(), copy.deepcopy(ev), pickle.loads(pickle.dumps(ev))):
                    assert clone == ev


def test_timestamps_replay_a_log_and_must_not_go_back() -> None:
    clock = Clock()
    ev = ScoredPrecisionRecallEvaluation(horizon=timedelta(seconds=60), clock=clock)
    ev.add_cases([True, False, True], [0.9, 0.5, 0.1], timestamps=[0.0, 30.0, 61.0])
    clock.now = 70.0  # the first case (time 0) is older than 60 s
    expected = ScoredPrecisionRecallEvaluation()
    expected.add_cases([False, True], [0.5, 0.1])
    assert ev.num_cases() == 2
    assert ev.area_under_roc_curve() == expected.area_under_roc_curve()
    with pytest.raises(ValueError, match="earlier than the one before it"):
        ev.add_case(True, 0.3, timestamp=50.0)
    assert ev.num_cases() == 2  # nothing added
    with pytest.raises(ValueError, match="earlier than the one before it"):
        ev.add_cases([True, True], [0.3, 0.2], timestamps=[80.0, 79.0])
    assert ev.num_cases() == 2


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="not both"):
        ScoredPrecisionRecallEvaluation(window=10, horizon=5.0)
    with pytest.raises(ValueError, match="positive, finite"):
        ScoredPrecisionRecallEvaluation(horizon=0)
    with pytest.raises(ValueError, match="give horizon too"):
        ScoredPrecisionRecallEvaluation(clock=lambda: 0.0)
    with pytest.raises(TypeError, match="timestamps apply to a time window"):
        ScoredPrecisionRecallEvaluation().add_case(True, 0.5, timestamp=1.0)
    ev = ScoredPrecisionRecallEvaluation(horizon=5.0, clock=Clock())
    assert (ev.window, ev.horizon) == (None, 5.0)
    with pytest.raises(TypeError, match="saving a time window is not supported yet"):
        ev.save("never-written.rankeval")
    with pytest.raises(TypeError, match="merging time windows is not supported yet"):
        ev.merge(ScoredPrecisionRecallEvaluation(horizon=5.0, clock=Clock()))


def test_eight_writers_lose_nothing() -> None:
    """Writers add from 8 threads while a reader reads and the clock moves forward."""
    import threading

    clock = Clock()
    ev = ScoredPrecisionRecallEvaluation(ties="grouped", horizon=1000.0, clock=clock)
    per_writer = 3000

    def writer(w: int) -> None:
        for i in range(per_writer):
            ev.add_case((i + w) % 3 == 0, float((i * 7 + w) % 13))

    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            ev.area_under_roc_curve()
            clock.now += 0.001  # far from the horizon: nothing leaves yet

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    watcher = threading.Thread(target=reader)
    watcher.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    watcher.join()
    expected = ScoredPrecisionRecallEvaluation(ties="grouped")
    for w in range(8):
        expected.add_cases([(i + w) % 3 == 0 for i in range(per_writer)],
                           [float((i * 7 + w) % 13) for i in range(per_writer)])
    assert ev.num_cases() == 8 * per_writer
    assert ev.area_under_roc_curve() == expected.area_under_roc_curve()
    assert ev.average_precision() == expected.average_precision()
    clock.now += 2000.0  # the horizon passes: every case leaves
    assert ev.num_cases() == 0
    ev._store._check()
