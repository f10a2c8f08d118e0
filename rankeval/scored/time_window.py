"""A window of time: the cases of the last ``horizon`` seconds, on the count window's store.

Each case carries a time (the evaluator's clock when it was added, or a timestamp given
with it): a pending add is the pair ``(case, time)``. ``add_case`` appends it without a lock,
as for the other stores, so two threads may append their clock's times out of order (and a
wall clock may step back); the fold raises each time to :attr:`latest`, the latest before
it, and to :attr:`now`, the window's time, so that times never go back in arrival order and
a clock that steps back never makes a new case arrive already expired. The arrival ring of
:class:`~rankeval.scored.window.WindowStore` keeps the times beside the cases, in the same
slots, so the cases to evict at time ``now`` are the ring's oldest ones with a time at or
before ``now - horizon``: a binary search over the ring, then the count window's own
eviction. A fold evicts after taking in the pending adds, and a read folds whenever
something is pending or due to leave, so every value is exact over the cases inside the
window at the time of the read.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from rankeval.formulas import TiePolicy
from rankeval.points import BoolArray, FloatArray
from rankeval.scored.window import WindowStore, _replayed

if TYPE_CHECKING:
    from rankeval.scored.state_file import EvaluatorState

_Timed = TypeVar("_Timed", bound="TimeWindowStore")

# A count bound no time window reaches.
_UNBOUNDED = 1 << 62


class TimeWindowStore(WindowStore):
    """A :class:`WindowStore` that keeps the cases of the last :attr:`horizon` seconds."""

    __slots__ = ("_incoming_times", "_ring_times", "horizon", "latest", "now")

    def __init__(self, ties: TiePolicy, horizon: float) -> None:
        super().__init__(ties, _UNBOUNDED)
        self.horizon = horizon
        self.now = -math.inf  # the time of the last fold
        self.latest = -math.inf  # the latest time taken in (evicted cases' included)
        self._ring_times: FloatArray = np.zeros(0, dtype=np.float64)
        self._incoming_times: FloatArray = np.zeros(0, dtype=np.float64)

    # ------------------------------------------------- what differs by store
    def extent(self) -> tuple[int | None, float | None]:
        return None, self.horizon

    def to_state(self, pos_missed: int, neg_missed: int) -> EvaluatorState:
        from rankeval.scored.state_file import EvaluatorState

        keys, labels = self.arrival_order()
        times = self.arrival_times()
        ages = np.arange(self.added - keys.shape[0], self.added, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        return EvaluatorState(self.ties, keys[order], labels[order], pos_missed, neg_missed,
                              None, ages[order], self.added, horizon=self.horizon,
                              times=times[order], now=self.now, last_time=self.latest)

    def restore(self, state: EvaluatorState) -> None:
        keys, labels, times = _replayed(state)
        assert times is not None
        self.now = state.now
        self.add_timed(labels, keys, times)
        self.latest = state.last_time
        self.added = state.next_age

    def timeline(self) -> tuple[NDArray[Any], ...]:
        """Each case's time, with its key and label, sorted: a time window's future depends
        on them."""
        keys, labels = self.arrival_order()
        times = self.arrival_times()
        order = np.lexsort((labels, keys, times))
        return times[order], keys[order], labels[order]

    def timed_cases(self) -> tuple[FloatArray, BoolArray, FloatArray, float, float]:
        """Copies of the cases in arrival order, their times, and the window's two times
        (``now``, ``latest``): what :meth:`merged_by_time` takes of another window."""
        keys, labels = self.arrival_order()
        return keys, labels, self.arrival_times(), self.now, self.latest

    def merged_by_time(self, other: tuple[FloatArray, BoolArray, FloatArray, float, float]
                       ) -> TimeWindowStore:
        """A new store holding this window's cases and ``other``'s (its
        :meth:`timed_cases`) in time order, this one's first among equal times, with the
        later of the two windows' times (this store folded)."""
        their_keys, their_labels, their_times, their_now, their_latest = other
        keys, labels = self.arrival_order()
        times = np.concatenate([self.arrival_times(), their_times])
        order = np.argsort(times, kind="stable")  # ours first among equal times
        keys = np.concatenate([keys, their_keys])[order]
        labels = np.concatenate([labels, their_labels])[order]
        merged = TimeWindowStore(self.ties, self.horizon)
        merged.pending, merged.taken = self.pending, self.taken  # add_case's list stays
        merged.now = max(self.now, their_now)
        merged.latest = max(self.latest, their_latest)
        # The merged cases first: adds racing in since our fold came after them, and take
        # the latest time of both windows (the fold raises theirs to it).
        merged.add_timed(labels, keys, times[order], pending_first=False)
        return merged

    # ------------------------------------------------------------ the clock
    def _expired(self, now: float) -> int:
        """How many of the oldest cases have a time at or before ``now - horizon``. O(log W)."""
        cutoff = now - self.horizon
        capacity = self._capacity()  # the times share the cases' slots
        lo, hi = 0, self._ring_size
        while lo < hi:  # times are non-decreasing in arrival order
            mid = (lo + hi) // 2
            if self._ring_times[(self._ring_start + mid) % capacity] <= cutoff:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def due(self, now: float) -> bool:
        """Whether a fold at ``now`` would change anything (adds pending, cases to leave)."""
        return len(self.pending) > self.taken or self._expired(now) > 0

    def unfolded(self) -> bool:
        return self.due(self.now)

    # ------------------------------------------------------------- mutation
    def fold(self, now: float | None = None) -> bool:
        """Take in the pending adds (their times raised to the window's time so far), then
        move the window's time to ``now`` if later and evict what is older than the horizon
        at :attr:`now`."""
        changed = False
        if len(self.pending) > self.taken:
            labels, keys = self._take_pending()
            self._enter(labels, keys)
            changed = True
        if now is not None:
            self.now = max(self.now, now)
        expired = self._expired(self.now)
        if expired:
            self._evict(expired)
            changed = True
        return changed

    def add_timed(self, labels: BoolArray, keys: FloatArray, times: FloatArray,
                  pending_first: bool = True) -> None:
        """Add cases in arrival order with their times (non-decreasing, none before the
        newest held), then evict what is older than the horizon at :attr:`now`.

        ``pending_first``: take in the pending adds before these (else after them: a merge's
        cases, which are older than any add racing with it)."""
        if pending_first:
            self.fold()
        if keys.shape[0]:
            self._incoming_times = times
            self.latest = max(self.latest, float(times[-1]))
            self._enter(labels, keys)
        self.fold()

    def arrival_times(self) -> FloatArray:
        """The times of :meth:`arrival_order`'s cases, oldest first (of a folded store)."""
        return self._ring_times[self._ring_slots(self._ring_start, self._ring_size)]

    def stage(self) -> None:
        """No staging: the times stay with their cases in the pending lists."""
        self.fold()

    def _take_pending(self) -> tuple[BoolArray, FloatArray]:
        """The pending ``(case, time)`` pairs as arrays, counted off (see the store's)."""
        pending = self.pending
        count = len(pending)
        pairs: list[tuple[complex, float]] = pending[self.taken : count]  # type: ignore[assignment]
        batch = np.array([case for case, _ in pairs], dtype=np.complex128)
        times = np.array([max(self.latest, self.now), *(t for _, t in pairs)],
                         dtype=np.float64)
        # Racing adds (and a clock that steps back) may give a time below one before it, or
        # below the window's time: raise each to the latest so far (and to now), so that
        # times never go back in arrival order and a case never arrives already expired.
        np.maximum.accumulate(times, out=times)
        self._incoming_times = times[1:]
        self.latest = float(times[-1])
        self.taken = count
        return batch.imag != 0.0, np.negative(batch.real)

    def _ring_push(self, labels: BoolArray, keys: FloatArray, in_place: bool) -> None:
        """The count window's push, and the new cases' times into the same slots."""
        old_keys, old_start, old_size = self._ring_keys, self._ring_start, self._ring_size
        capacity = self._capacity()
        super()._ring_push(labels, keys, in_place)
        if self._ring_keys is not old_keys:  # a new ring: the times move with their cases
            times = np.zeros(self._ring_keys.shape[0], dtype=np.float64)
            old = (old_start + np.arange(old_size, dtype=np.int64)) % capacity
            times[:old_size] = self._ring_times[old]
            self._ring_times = times
        count = keys.shape[0]
        slots = self._ring_slots(self._ring_start + self._ring_size - count, count)
        self._ring_times[slots] = self._incoming_times

    # ---------------------------------------------------------------- copies
    def successor(self: _Timed) -> _Timed:
        clone = super().successor()
        clone.horizon, clone.now, clone.latest = self.horizon, self.now, self.latest
        clone._ring_times = self._ring_times
        clone._incoming_times = self._incoming_times
        return clone

    def copy(self: _Timed) -> _Timed:
        clone = super().copy()
        clone._ring_times = self._ring_times.copy()
        return clone

    def _check(self) -> None:
        super()._check()
        slots = self._ring_slots(self._ring_start, self._ring_size)
        times = self._ring_times[slots]
        assert self._ring_times.shape == self._ring_keys.shape
        assert bool(np.all(times[1:] >= times[:-1]))
        assert not times.size or times[0] > self.now - self.horizon
        assert not times.size or times[-1] <= self.latest
