"""Faults in the middle of a call: every mutation is all or nothing.

:func:`fail_at` makes the ``n``-th call inside an operation raise, through
``sys.setprofile``: before any Python or C function is called (a
``MemoryError`` from an allocation, or an interrupt at a function's start)
and right after a C function returns (where CPython delivers a
``KeyboardInterrupt`` from a signal handler). Enumerating ``n`` = 1, 2, ...
until the operation completes hits every such point of the operation, in
the evaluator, the store, NumPy and the standard library alike. After each
failure the evaluator must equal a twin that never saw the call, pass the
store's invariant checks, and then accept the same call and equal the twin
again.

The lock's own methods are left alone: a ``with`` block releases the lock
whatever happens inside it.
"""

from __future__ import annotations

import gc
import pickle
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest

import rankeval.scored.window
from rankeval import ScoredPrecisionRecallEvaluation
from tests.conftest import same
from tests.helpers import Clock, small_buffer

Evaluation = ScoredPrecisionRecallEvaluation
Operation = Callable[[Evaluation], object]


def fail_at(operation: Callable[[], object], n: int, error: type[BaseException]) -> int:
    """Run ``operation`` with its ``n``-th call failing with ``error``.

    Returns 0 if the failure happened (the injected error, or an error raised
    while handling it, came out), else the number of calls the operation made;
    fails the test if something caught the injected error and went on.
    """
    count = 0
    harness = sys._getframe()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if frame is harness or event not in ("call", "c_call", "c_return"):
            return
        if event != "call" and getattr(arg, "__qualname__", "").startswith("RLock."):
            return
        count += 1
        if count == n:
            sys.setprofile(None)
            raise error(f"injected at call {n}")

    # No garbage collection meanwhile: its callbacks (hypothesis installs one)
    # would be profiled too, and the count would depend on when it ran.
    collecting = gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    try:
        operation()
    except BaseException as raised:
        # The injected error, or one raised while handling it (load turns a
        # MemoryError into a PersistenceError naming the file).
        cause: BaseException | None = raised
        while cause is not None and str(cause) != f"injected at call {n}":
            cause = cause.__context__
        if cause is None:
            raise
        return 0
    finally:
        sys.setprofile(None)
        if collecting:
            gc.enable()
    assert count < n or n == 0, f"the error injected at call {n} was swallowed"
    return count


def state(ev: Evaluation) -> dict[str, Any]:
    """What a user can read, cheap reads and full curves alike."""
    return {
        "counts": (ev.num_cases(), ev.num_positive_ref(), ev.num_negative_ref()),
        "auc": (ev.area_under_roc_curve(), ev.area_under_roc_curve(True)),
        "ap": ev.average_precision(),
        "p_at": [ev.precision_at(k) for k in (1, 3, 10, 40)],
        "rr": (ev.reciprocal_rank(), ev.r_precision()),
        "pr": ev.pr_curve().tolist(),
        "repr": repr(ev),
    }


def history(ties: str, window: int | None) -> Evaluation:
    """An evaluator with sorted, buffered, staged and pending cases and some misses."""
    ev = Evaluation(ties=ties, window=window)  # type: ignore[arg-type]
    ev.add_cases([i % 3 == 0 for i in range(60)], [float(i % 11) for i in range(60)])
    ev.average_precision()  # one sorted tier
    ev.add_cases([True, False, False], [2.5, 4.0, 2.5])
    for i in range(7):  # the small buffer stages some of these
        ev.add_case(i % 2 == 1, float(i % 4) + 0.25)
    ev.add_misses(2)
    ev.add_negative_misses(1)
    return ev


def donor(ev: Evaluation) -> Evaluation:
    """Another evaluator with the settings of ``ev``, for merges."""
    other = Evaluation(ties=ev.ties, window=ev.window, horizon=ev.horizon, clock=ev._clock)
    # A time window's donor has times among and after the history's (see timed_history).
    times = None if ev.horizon is None else [2.0, 3.0, 5.5, 6.0]
    other.add_cases([True, False, True, False], [3.0, 9.0, 0.5, 2.5], timestamps=times)
    other.add_misses(1)
    return other


def add_counts(ev: Evaluation) -> None:
    """Counts per score where they apply (grouped, no window); elsewhere the same cases."""
    if ev.ties == "grouped" and ev.window is None and ev.horizon is None:
        ev.add_counts(positives=[2, 0, 1], negatives=[1, 3, 0], scores=[0.5, 3.5, 2.5])
    else:
        ev.add_cases([True, True, False, False, False, False, True],
                     [0.5, 0.5, 0.5, 3.5, 3.5, 3.5, 2.5])


OPERATIONS: dict[str, Operation] = {
    "add_counts": add_counts,
    "add_cases": lambda ev: ev.add_cases([True, False, True, True], [0.5, 3.5, 7.0, 2.5]),
    "add_cases_evicting": lambda ev: ev.add_cases(
        [i % 2 == 0 for i in range(40)], [float(i % 5) for i in range(40)]
    ),
    "add_case_staging": lambda ev: ev.add_case(True, 1.5),  # the history left it to stage
    "fold_by_read": lambda ev: ev.area_under_roc_curve(),
    "full_read": lambda ev: ev.pr_curve(True),
    "precision_at": lambda ev: ev.precision_at(5),
    "add_misses": lambda ev: ev.add_misses(3),
    "reset": lambda ev: ev.reset(),
    "merge": lambda ev: ev.merge(donor(ev)),
    "plus": lambda ev: ev + donor(ev),
    "merge_self_snapshot": lambda ev: ev.merge(ev.snapshot()),
    "repr": repr,
    "equality": lambda ev: ev == ev.snapshot(),
    "pickle": lambda ev: pickle.dumps(ev),
}


@contextmanager
def small_tiers() -> Iterator[None]:
    """Tiers small enough that these few cases stage, merge, rebuild and evict."""
    with small_buffer(8), pytest.MonkeyPatch.context() as patch:
        patch.setattr(rankeval.scored.window, "_MIN_ORDERED_BATCH", 2)
        yield


def sweep(ties: str, window: int | None, operation: Operation,
          error_at: Callable[[int], type[BaseException]],
          history: Callable[[str, int | None], Evaluation] = history) -> None:
    """Fail ``operation`` at each of its calls in turn, with ``error_at(n)``; check each time."""
    with small_tiers():
        before = state(history(ties, window))
        operation(history(ties, window))  # warm caches (pickle's, NumPy's) up first
        twin = history(ties, window)  # unread, as each evaluator below
        calls = fail_at(lambda: operation(twin), 0, MemoryError)
        after = state(twin)
        assert calls > 5
        for n in range(1, calls + 1):
            error = error_at(n)
            ev = history(ties, window)
            assert fail_at(lambda ev=ev: operation(ev), n, error) == 0  # type: ignore[misc]
            got = state(ev)
            # Only an interrupt after the very last call (a completed append)
            # may find the change made: it was made before the signal came.
            assert same(got, before) or (n == calls and same(got, after)), (n, error)
            ev._store._check()
            operation(ev)  # and it keeps working
            assert same(state(ev), after) or n == calls, n
            ev._store._check()


@pytest.mark.parametrize("name", sorted(OPERATIONS))
@pytest.mark.parametrize("window", [None, 25, 70])
@pytest.mark.parametrize("ties", ["insertion", "grouped"])
def test_every_failure_point_leaves_the_evaluator_as_it_was(
    name: str, window: int | None, ties: str
) -> None:
    sweep(ties, window, OPERATIONS[name], lambda n: MemoryError if n % 2 else KeyboardInterrupt)


def timed_history(ties: str, window: int | None) -> Evaluation:
    """:func:`history` in a time window of 5 s, with its first 60 cases due to leave."""
    clock = Clock()  # the test sets it: the same times for the twin and every evaluator
    ev = Evaluation(ties=ties, horizon=5.0, clock=clock)  # type: ignore[arg-type]
    ev.add_cases([i % 3 == 0 for i in range(60)], [float(i % 11) for i in range(60)])
    ev.average_precision()  # one sorted tier
    clock.now = 3.0
    ev.add_cases([True, False, False], [2.5, 4.0, 2.5])
    for i in range(7):
        ev.add_case(i % 2 == 1, float(i % 4) + 0.25)
    ev.add_misses(2)
    clock.now = 6.0  # the next fold lets the first 60 go
    return ev


@pytest.mark.parametrize("name", sorted(OPERATIONS))
@pytest.mark.parametrize("ties", ["insertion", "grouped"])
def test_every_failure_point_of_a_time_window(name: str, ties: str) -> None:
    """The same sweep over a time window, whose next fold also evicts by the clock."""
    sweep(ties, None, OPERATIONS[name], lambda n: MemoryError if n % 2 else KeyboardInterrupt,
          timed_history)


@pytest.mark.parametrize("error", [MemoryError, KeyboardInterrupt])
@pytest.mark.parametrize("name", ["add_cases", "add_cases_evicting", "merge", "fold_by_read"])
def test_each_error_at_every_point(name: str, error: type[BaseException]) -> None:
    """The sweep above alternates the two errors; here each one meets every point."""
    sweep("grouped", 25, OPERATIONS[name], lambda n: error)


# A failure right after open() returns, before ``with`` holds the file, leaves
# the file to the garbage collector (Python's with statement cannot help it).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_failed_load_leaves_nothing_behind(tmp_path: Path) -> None:
    """load builds its evaluator aside: a fault anywhere raises and returns nothing."""
    path = tmp_path / "ev.rankeval"
    history("insertion", 25).save(path)
    expected = state(Evaluation.load(path))
    loaded: list[Evaluation] = []
    calls = fail_at(lambda: loaded.append(Evaluation.load(path)), 0, MemoryError)
    assert same(state(loaded[0]), expected)
    for n in range(1, calls):  # the last call is the append of the result
        loaded.clear()
        assert fail_at(lambda: loaded.append(Evaluation.load(path)), n, MemoryError) == 0
        assert loaded == []


def test_repr_and_other_entry_points_race_no_case() -> None:
    """A writer, a reader and a 'logger' calling repr, str, ==, pickle and snapshots.

    Any entry point that sorted pending cases in without the lock would lose
    some: the count would say one thing and the ranking another.
    """
    ev = Evaluation()
    cases = 60_000
    rng = np.random.default_rng(7)
    labels = (rng.random(cases) < 0.4).tolist()
    scores = rng.random(cases).tolist()
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        for label, score in zip(labels, scores, strict=True):
            ev.add_case(label, score)

    def reader() -> None:
        while not stop.is_set():
            ev.area_under_roc_curve()
            ev.precision_at(10)

    def logger() -> None:
        calls: list[Callable[[], object]] = [
            lambda: repr(ev), lambda: str(ev), lambda: ev == ev, lambda: pickle.dumps(ev),
            ev.snapshot, ev.num_cases,
        ]
        i = 0
        while not stop.is_set():
            try:
                calls[i % len(calls)]()
            except BaseException as error:  # handed to the main thread
                errors.append(error)
                return
            i += 1

    threads = [threading.Thread(target=f) for f in (reader, logger)]
    for thread in threads:
        thread.start()
    writer()
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []
    fresh = Evaluation()
    fresh.add_cases(labels, scores)
    assert ev.num_cases() == cases
    assert ev.pr_curve().shape == fresh.pr_curve().shape
    assert ev == fresh
    assert ev.area_under_roc_curve() == fresh.area_under_roc_curve()


class TestCaps:
    """R and N stay within 2**63 - 1 whichever way counts arrive; a refused call changes nothing."""

    BIG = 2**63 - 2

    def big(self) -> Evaluation:
        ev = Evaluation()
        ev.add_cases([True, False], [1.0, 0.5])
        ev.add_misses(self.BIG - 1)  # R = 2**63 - 2
        return ev

    def test_merge_and_plus_refuse_a_total_past_the_cap(self) -> None:
        ev, other = self.big(), self.big()
        before = state(ev)
        with pytest.raises(ValueError, match="numPositiveRef would reach"):
            ev.merge(other)
        with pytest.raises(ValueError, match="numPositiveRef would reach"):
            ev + other  # the addition is the call under test
        assert same(state(ev), before)
        assert ev.roc_curve().shape == (4, 2)  # no OverflowError anywhere
        assert str(ev)

    def test_load_refuses_a_file_past_the_cap(self, tmp_path: Path) -> None:
        from rankeval import PersistenceError
        from rankeval.scored.state_file import EvaluatorState, save_state

        path = tmp_path / "huge.rankeval"
        save_state(path, EvaluatorState("grouped", np.array([-1.0]), np.array([True]),
                                        10**5000, 0, None, None, 1))
        with pytest.raises(PersistenceError, match="numPositiveRef would reach more than"):
            Evaluation.load(path)
        save_state(path, EvaluatorState("grouped", np.array([-1.0]), np.array([False]),
                                        0, 2**63 - 1, None, None, 1))
        with pytest.raises(PersistenceError, match=r"huge.rankeval: numNegativeRef would reach"):
            Evaluation.load(path)
