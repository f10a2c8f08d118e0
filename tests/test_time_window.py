"""Windows of time: exact over the cases of the last ``horizon`` seconds, by an injected clock."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
import os
import pickle
import sys
import tempfile
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import PersistenceError, ScoredPrecisionRecallEvaluation
from rankeval.scored.state_file import load_state, save_state
from tests import strategies
from tests.conftest import close
from tests.helpers import Clock, assert_matches_reference, race, small_buffer
from tests.reference import Reference

operations = st.lists(st.one_of(
    st.tuples(st.just("tick"), st.sampled_from([0.0, 0.5, 1.0, 2.5, 7.0])),
    # The clock steps back (the wall clock can): new cases take the window's time.
    st.tuples(st.just("back"), st.sampled_from([0.5, 2.5, 7.0])),
    # A case with a timestamp this far from the latest time (refused if before it or before
    # the window's time; never rewritten).
    st.tuples(st.just("stamp"), st.booleans(), strategies.scores,
              st.sampled_from([-1.0, 0.0, 0.5, 3.0])),
    # Save, move the file's latest time this far ahead (re-checksummed: a forged file), load.
    st.tuples(st.just("forge"), st.sampled_from([0.25, 0.5, 2.0])),
    st.tuples(st.just("case"), st.booleans(), strategies.scores),
    st.tuples(st.just("cases"), strategies.cases),
    st.tuples(st.just("misses"), st.integers(0, 2)),
    st.tuples(st.just("reload")),
    # Merge a time window whose cases came up to ``lag`` seconds ago (1 s apart, oldest
    # first), so their times interleave with ours.
    st.tuples(st.just("merge"), strategies.cases, st.sampled_from([0.0, 1.0, 4.0]),
              st.integers(0, 1)),
), max_size=40)


@settings(max_examples=150, deadline=None)
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
    """Apply ``ops`` with an injected clock; after each, compare with the cases inside.

    ``reload`` saves the evaluator and loads it back in its place; ``merge`` merges in
    another time window, after which the reference is every case in time order (ours
    first among equal times), as a window that saw them all in that order.
    """
    with small_buffer(buffer), tempfile.TemporaryDirectory() as tmp:
        clock = Clock()
        ev = ScoredPrecisionRecallEvaluation(ties=ties, horizon=horizon,  # type: ignore[arg-type]
                                             clock=clock)
        added: list[tuple[bool, float, float]] = []  # (label, score, time)
        misses = 0
        window_time = latest = -math.inf  # the clock at the last read; the latest case time
        for step, op in enumerate(ops):
            arrival = max(clock.now, latest, window_time)  # a clock-stamped case's time
            if op[0] == "tick":
                clock.now += op[1]
            elif op[0] == "back":
                clock.now -= op[1]
            elif op[0] == "case":
                ev.add_case(op[1], op[2])
                added.append((op[1], op[2], arrival))
            elif op[0] == "cases":
                ev.add_cases([c for c, _ in op[1]], [s for _, s in op[1]])
                added += [(c, s, arrival) for c, s in op[1]]
            elif op[0] == "stamp":
                stamp = max(latest, clock.now) + op[3]
                if stamp < max(latest, window_time):
                    before = ev.num_cases()
                    with pytest.raises(ValueError, match="earlier than the one before it"):
                        ev.add_case(op[1], op[2], timestamp=stamp)
                    assert ev.num_cases() == before
                else:
                    ev.add_case(op[1], op[2], timestamp=stamp)
                    added.append((op[1], op[2], stamp))
            elif op[0] == "misses":
                ev.add_misses(op[1])
                misses += op[1]
            elif op[0] in ("reload", "forge"):
                path = os.path.join(tmp, "window.rankeval")
                ev.save(path)
                forged = None
                if op[0] == "forge":
                    state = load_state(path)
                    forged = max(state.last_time, state.now, clock.now) + op[1] * horizon
                    save_state(path, dataclasses.replace(state, last_time=forged))
                if max(window_time, latest, forged or -math.inf) - clock.now > horizon:
                    with pytest.raises(PersistenceError, match="kept by another clock"):
                        ScoredPrecisionRecallEvaluation.load(path, clock=clock)
                else:
                    loaded = ScoredPrecisionRecallEvaluation.load(path, clock=clock)
                    if forged is None:
                        assert loaded == ev
                    ev = loaded
                    latest = max(latest, forged or -math.inf)
            else:
                _, cases, lag, their_misses = op
                other = ScoredPrecisionRecallEvaluation(
                    ties=ties, horizon=horizon, clock=clock)  # type: ignore[arg-type]
                times = [clock.now - lag + min(i, lag) for i in range(len(cases))]
                other.add_cases([c for c, _ in cases], [s for _, s in cases], timestamps=times)
                other.add_misses(their_misses)
                ev.merge(other)
                added += [(c, s, t) for (c, s), t in zip(cases, times, strict=True)]
                added.sort(key=lambda case: case[2])  # stable: ours first among equal times
                misses += their_misses
            if added:
                latest = max(latest, max(t for _, _, t in added))
            window_time = max(window_time, clock.now)  # the reads below read the clock
            live = [(c, s) for c, s, t in added if t > window_time - horizon]
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
    ev.add_case(True, 0.5)
    for other, message in [
        (ScoredPrecisionRecallEvaluation(horizon=6.0), "horizon=6.0 into ties='grouped', "
                                                       "horizon=5.0"),
        (ScoredPrecisionRecallEvaluation(window=5), "window=5 into ties='grouped', horizon"),
        (ScoredPrecisionRecallEvaluation(), "window=None into"),
        (ScoredPrecisionRecallEvaluation(ties="insertion", horizon=5.0), "ties='insertion'"),
    ]:
        with pytest.raises(ValueError, match=message):
            ev.merge(other)
        with pytest.raises(ValueError, match="cannot merge"):
            other.merge(ev)
    assert ev.num_cases() == 1
    with pytest.raises(ValueError, match="not finite"):
        ev.add_case(True, 0.5, timestamp=float("inf"))
    broken = ScoredPrecisionRecallEvaluation(horizon=5.0, clock=lambda: float("nan"))
    with pytest.raises(ValueError, match="the clock returned nan"):
        broken.add_case(True, 0.5)
    with pytest.raises(ValueError, match="the clock returned nan"):
        broken.num_cases()


def test_load_takes_a_clock_for_a_time_window_only(tmp_path: Any) -> None:
    plain = ScoredPrecisionRecallEvaluation()
    plain.save(tmp_path / "plain")
    with pytest.raises(ValueError, match="clock applies to a time window"):
        ScoredPrecisionRecallEvaluation.load(tmp_path / "plain", clock=Clock())


def test_a_saved_window_goes_on_by_the_wall_clock() -> None:
    """Saved under the default clock (time.time), then loaded where an hour has passed:
    the cases older than the horizon leave at the first read; the rest stay exact."""
    import time

    ev = ScoredPrecisionRecallEvaluation(horizon=timedelta(minutes=30))
    now = time.time()
    ev.add_cases([True, False, True], [0.9, 0.8, 0.7], timestamps=[now - 3600, now - 60, now])
    assert ev.num_cases() == 2  # the first left at once
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "w")
        ev.save(path)
        later = ScoredPrecisionRecallEvaluation.load(path, clock=lambda: now + 1750)
        assert (later.num_cases(), later.precision_at(1)) == (1, 1.0)
        restored = ScoredPrecisionRecallEvaluation.load(path)  # the wall clock
        assert restored == ev


def test_merge_interleaves_by_time_and_misses_add_up() -> None:
    clock = Clock()
    a = ScoredPrecisionRecallEvaluation("insertion", horizon=10.0, clock=clock)
    b = ScoredPrecisionRecallEvaluation("insertion", horizon=10.0, clock=clock)
    a.add_cases([True, False], [0.5, 0.5], timestamps=[1.0, 3.0])
    b.add_cases([False, True], [0.5, 0.5], timestamps=[2.0, 3.0])
    b.add_misses(2)
    clock.now = 3.0
    a.merge(b)
    # Insertion order among the tie: times 1, 2, 3 (a's), 3 (b's).
    expected = ScoredPrecisionRecallEvaluation("insertion")
    expected.add_cases([True, False, False, True], [0.5] * 4)
    expected.add_misses(2)
    assert (a.precision_at(1), a.precision_at(2)) == (1.0, 0.5)
    assert a.average_precision() == expected.average_precision()
    clock.now = 12.5  # times 1 and 2 have left: [a's False, b's True]
    assert (a.num_cases(), a.precision_at(1)) == (4, 0.0)
    with pytest.raises(ValueError, match="earlier than the one before it"):
        a.add_case(True, 0.1, timestamp=2.5)  # the merge took b's latest time too


def test_eight_writers_lose_nothing() -> None:
    """Writers add from 8 threads while a reader reads and the clock moves forward."""
    import threading

    clock = Clock()
    ev = ScoredPrecisionRecallEvaluation(ties="grouped", horizon=1000.0, clock=clock)
    per_writer = 3000

    def writer(w: int) -> None:
        for i in range(per_writer):
            ev.add_case((i + w) % 3 == 0, float((i * 7 + w) % 13))

    def reader() -> None:
        ev.area_under_roc_curve()
        clock.now += 0.001  # far from the horizon: nothing leaves yet

    race([threading.Thread(target=writer, args=(w,)) for w in range(8)], reader)
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


def test_a_clock_that_steps_back_never_makes_a_case_older() -> None:
    """add_case stamps without the lock, so racing threads (or a wall clock set back) may
    append times out of order: each case takes the latest time before it, and leaves then."""
    clock = Clock()
    ev = ScoredPrecisionRecallEvaluation(horizon=10.0, clock=clock)
    clock.now = 20.0
    ev.add_case(True, 0.9)
    clock.now = 5.0  # set back
    ev.add_case(False, 0.8)  # time 20, not 5
    with pytest.raises(ValueError, match=r"timestamp 19\.0 \(case 0\) is earlier"):
        ev.add_case(True, 0.1, timestamp=19.0)
    ev.add_case(True, 0.7, timestamp=21.0)
    clock.now = 29.5
    assert ev.num_cases() == 3  # a time of 5 would have left at 15
    clock.now = 30.0
    assert (ev.num_cases(), ev.precision_at(1)) == (1, 1.0)
    ev._store._check()


@contextlib.contextmanager
def fast_switching() -> Iterator[None]:
    """Threads switch every microsecond (not every 5 ms), so that races show in one run."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def test_a_clock_that_steps_back_loses_no_case() -> None:
    """A clock stepping back (docs/semantics.md, "Windows of time"): horizon 10, a case at
    0, a read at 100, the clock back to 50, two cases added: they take the window's time
    (100) and are inside."""
    clock = Clock()
    ev = ScoredPrecisionRecallEvaluation(horizon=10.0, clock=clock)
    ev.add_case(True, 0.5)
    clock.now = 100.0
    assert ev.num_cases() == 0  # the case at 0 has left
    clock.now = 50.0
    ev.add_case(True, 0.7)
    ev.add_cases([False], [0.2])
    assert ev.num_cases() == 2
    clock.now = 105.0
    assert ev.num_cases() == 2  # at time 100, inside until 110
    clock.now = 110.0
    assert ev.num_cases() == 0


def test_a_timestamp_is_never_rewritten() -> None:
    """A timestamp earlier than a pending clock-stamped add's (or the window's time) is
    refused; it used to be accepted and raised at the fold."""
    clock = Clock()
    clock.now = 100.0
    ev = ScoredPrecisionRecallEvaluation(horizon=1000.0, clock=clock)
    ev.add_case(True, 0.5, timestamp=200.0)  # pending at 200
    ev.add_cases([False, True], [0.1, 0.2])  # stamped by the clock, 100: pending after it
    with pytest.raises(ValueError, match="earlier than the one before it"):
        ev.add_case(True, 0.9, timestamp=150.0)  # earlier than 200: refused, not raised
    assert ev.num_cases() == 3
    ev.add_case(True, 0.9, timestamp=250.0)
    assert ev.num_cases() == 4
    times = ev._folded().arrival_times()  # type: ignore[attr-defined]
    assert times.tolist() == [200.0, 200.0, 200.0, 250.0]


def test_merges_racing_lock_free_adds_keep_time_order() -> None:
    """Cases appended without the lock while a merge runs come after the merged ones, at
    the merged window's time (they were taken in first, at time -inf, and broke the order)."""
    clock = Clock()
    clock.now = 1000.0
    ev = ScoredPrecisionRecallEvaluation(ties="grouped", horizon=10_000.0, clock=clock)
    per_writer, writers_count, merges = 20_000, 3, 200

    def writer(seed: int) -> None:
        for i in range(per_writer):
            ev.add_case(i % 3 == 0, (seed * per_writer + i) / 1e4)

    merged = 0

    def merge_some() -> None:
        nonlocal merged
        if merged < merges:
            other = ScoredPrecisionRecallEvaluation(ties="grouped", horizon=10_000.0,
                                                    clock=clock)
            other.add_cases([True, False, False], [0.9, 0.1, 0.4],
                            timestamps=[990.0, 995.0, 999.0])
            ev.merge(other)
            merged += 1
            # What the race broke: time order in the window. (The full _check() holds at
            # rest only: writers keep appending to the pending list without the lock.)
            with ev._lock:
                store = ev._folded()
                times = store.arrival_times()  # type: ignore[attr-defined]
                assert bool(np.all(times[1:] >= times[:-1]))
                assert times.size == 0 or times[-1] <= store.latest  # type: ignore[attr-defined]

    with fast_switching():
        race([threading.Thread(target=writer, args=(w,)) for w in range(writers_count)],
             merge_some)
    ev._folded()._check()
    assert ev.num_cases() == writers_count * per_writer + 3 * merged
    # Every case is inside (all at most 10 s old): the window equals a fresh evaluator of
    # them all (grouped ties: the order among equal scores does not matter).
    fresh = ScoredPrecisionRecallEvaluation(ties="grouped")
    for seed in range(writers_count):
        fresh.add_cases([i % 3 == 0 for i in range(per_writer)],
                        [(seed * per_writer + i) / 1e4 for i in range(per_writer)])
    fresh.add_cases([True, False, False] * merged, [0.9, 0.1, 0.4] * merged)
    assert ev.summary() == fresh.summary()


def test_summary_reads_one_state() -> None:
    """Four writers add without the lock while summary() runs: every summary's counts agree
    (they used to count pending cases, then fold for the other values)."""
    ev = ScoredPrecisionRecallEvaluation()
    bad: list[dict[str, float]] = []

    def writer(seed: int) -> None:
        for i in range(20_000):
            ev.add_case((i + seed) % 2 == 0, i / 7.0)

    def watch() -> None:
        summary = ev.summary()
        if summary["cases"] != summary["positives"] + summary["negatives"]:
            bad.append(summary)

    with fast_switching():
        race([threading.Thread(target=writer, args=(w,)) for w in range(4)], watch)
    assert bad == []


def test_summary_reads_the_clock_once() -> None:
    """A time window's summary takes one time for every value (a wall clock moving while
    cases leave made every value of 6 summaries disagree)."""
    calls = 0

    def ticking() -> float:
        nonlocal calls
        calls += 1
        return float(calls)  # one second later at every call

    ev = ScoredPrecisionRecallEvaluation(horizon=50.0, clock=ticking)
    ev.add_cases([True, False] * 20, list(range(40)))
    before = calls
    summary = ev.summary(precision_at=(1, 5, 10))
    assert calls - before == 1
    fresh = ScoredPrecisionRecallEvaluation()
    fresh.add_cases([True, False] * 20, list(range(40)))  # all inside at that one time
    assert summary == fresh.summary(precision_at=(1, 5, 10))


@pytest.mark.parametrize("field", ["horizon", "now", "last_time"])
def test_a_state_file_with_a_huge_number_is_refused(tmp_path: Any, field: str) -> None:
    import hashlib
    import json

    from rankeval import container

    clock = Clock()
    ev = ScoredPrecisionRecallEvaluation(horizon=10.0, clock=clock)
    ev.add_case(True, 0.5)
    path = tmp_path / "w"
    ev.save(path)
    data = path.read_bytes()
    head = container._HEADER
    magic, version, meta_len = head.unpack_from(data)
    meta = json.loads(data[head.size:head.size + meta_len])
    text = json.dumps(meta).replace(f'"{field}": {json.dumps(meta[field])}',
                                    f'"{field}": {"9" * 400}').encode()
    body = head.pack(magic, version, len(text)) + text + data[head.size + meta_len:-32]
    path.write_bytes(body + hashlib.sha256(body).digest())
    with pytest.raises(PersistenceError, match=f"{field} must be finite"):
        ScoredPrecisionRecallEvaluation.load(path, clock=clock)
