"""A sliding window over the most recent W cases, on the same three-tier store.

Adds append to the pending list exactly as in :class:`~rankeval.scored.store.CaseStore`.
A fold first evicts the cases that the pending adds push out of the window —
the oldest ones, read from a ring buffer that remembers arrival order — then
absorbs the pending adds, and their pairs leave the exact ROC pair count.

Evicted cases stay in the main tier as *dead* cases, listed in a fourth
sorted run that every main-tier read subtracts: counts before a key are
differences of two binary searches, and the i-th live case is found through
the dead cases' positions (each dead case is the oldest of its key in main —
every tier keeps equal keys in arrival order and the oldest cases go first —
so its position follows from its key alone). Removing them is an O(W) pass,
done only when the buffer merges into main or the dead outnumber the buffer
limit; a fold costs O(p log W + b) and reads stay O(log W).

Changes are made to a successor (see :class:`~rankeval.scored.store.CaseStore`)
that shares the ring with the published store: the ring keeps room for a fold
beyond the window (:meth:`WindowStore._slack`), so new cases are written only
into slots the published store does not use, and a fold larger than that
writes a new ring. The batch records are copied, never changed in place.

The ring also remembers, batch by batch, the stable sort order of the cases
that entered in one fold and the pairs among them: W adds later the batch
leaves whole, and its eviction gathers instead of sorting. While nothing
reads, adds are staged in arrays and folded up to W/4 at a time
(:meth:`WindowStore._stage_limit`), which makes a case cheaper to evict and
absorb.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from numpy.typing import NDArray

from rankeval.formulas import TiePolicy
from rankeval.points import BoolArray, FloatArray, IntArray
from rankeval.scored import store
from rankeval.scored.sorting import _SMALL_SORT, run_starts, small_stable_order, sort_cases
from rankeval.scored.store import (
    CaseStore,
    Side,
    Tiers,
    _Run,
    doubled_cross_pairs,
    doubled_pairs,
    merge_columns,
)

if TYPE_CHECKING:
    from rankeval.scored.state_file import EvaluatorState

_NO_PLACES: IntArray = np.zeros(0, dtype=np.int64)
# Batches smaller than this keep no sort order (their evictions sort again).
_MIN_ORDERED_BATCH = 32


class _FoldedBatch:
    """Cases that entered the window in one fold, as the ring remembers them.

    ``order`` is their stable sort order (offsets from the batch's oldest
    case), so that evicting the batch needs no sort; ``inner_pairs`` is twice the
    pairs among them. Either is None when unknown (a large batch, tiny
    batches run together, a batch partly evicted). Never changed once made:
    a published store and its successor share the records.
    """

    __slots__ = ("count", "inner_pairs", "order")

    def __init__(
        self, count: int, order: NDArray[np.uint16] | None, inner_pairs: int | None
    ) -> None:
        self.count = count
        self.order = order
        self.inner_pairs = inner_pairs


def _rank_within_equal(sorted_keys: FloatArray) -> IntArray:
    """For each element of a sorted array, how many equal elements precede it. O(n)."""
    count = sorted_keys.shape[0]
    new = run_starts(sorted_keys)
    if new.all():  # no ties
        return np.zeros(count, dtype=np.int64)
    block = np.cumsum(new, dtype=np.int64)
    block -= 1
    return np.arange(count, dtype=np.int64) - np.flatnonzero(new)[block]


def _deletions(run: _Run, keys: FloatArray) -> IntArray:
    """Positions in ``run`` of the evicted cases with these (sorted) keys.

    The run keeps equal keys in arrival order and evicted cases are the
    oldest, so the j-th evicted case with key k is the j-th case with that key.
    """
    return run.keys.searchsorted(keys, side="left") + _rank_within_equal(keys)


def _joined(blocks: list[IntArray], count: int) -> IntArray:
    """The places :func:`doubled_cross_pairs` found, block by block, as one array (0 if none)."""
    if not blocks:
        return np.zeros(count, dtype=np.int64)
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks)


def _merged_with_places(
    run: _Run, places: IntArray, newer: _Run, newer_places: IntArray
) -> tuple[_Run, IntArray]:
    """``run`` with a sorted run of newer cases merged in, and their places in main alike."""
    if not run.size:
        return newer, newer_places
    keys, labels, merged_places = merge_columns(
        run.keys,
        newer.keys,
        ((run.keys, newer.keys), (run.labels, newer.labels), (places, newer_places)),
    )
    return _Run(keys, labels), merged_places


def _without(run: _Run, where: IntArray) -> tuple[FloatArray, BoolArray]:
    keep = np.ones(run.size, dtype=np.bool_)
    keep[where] = False
    return run.keys[keep], run.labels[keep]


_Window = TypeVar("_Window", bound="WindowStore")


class WindowStore(CaseStore):
    """A :class:`CaseStore` that keeps only the ``window`` most recent cases."""

    __slots__ = ("_batches", "_buffer_slots", "_dead", "_dead_gaps", "_dead_lt", "_dead_where",
                 "_ring_keys", "_ring_labels", "_ring_size", "_ring_start", "added", "window")

    def __init__(self, ties: TiePolicy, window: int) -> None:
        super().__init__(ties)
        self.window = window
        # Arrival order, in a ring that grows (doubling) up to the window: memory
        # follows the cases held, not the window asked for.
        self._ring_keys: FloatArray = np.zeros(0, dtype=np.float64)
        self._ring_labels: BoolArray = np.zeros(0, dtype=np.bool_)
        self._ring_start = 0  # slot of the oldest case in the window
        self._ring_size = 0
        # The ring's cases, batch by batch, oldest first.
        self._batches: deque[_FoldedBatch] = deque()
        self.added = 0  # cases ever added; the next case's age
        # Where each buffered case goes in main: searchsorted(side="right").
        self._buffer_slots: IntArray = _NO_PLACES
        # Evicted cases still in the main tier, and where their key starts there.
        self._dead = _Run.empty()
        self._dead_lt: IntArray = _NO_PLACES
        self._dead_where: IntArray | None = None  # their positions in main, when needed
        self._dead_gaps: IntArray | None = None  # live main cases before each

    def _stage_limit(self) -> int:
        # Evicting and absorbing cost less a case in larger batches (fewer
        # O(W) rebuilds, fewer NumPy calls): while nothing reads, stage up to
        # W/4 cases (9 bytes each), within [PENDING_LIMIT, STAGE_LIMIT].
        return min(max(self.window // 4, store.PENDING_LIMIT), store.STAGE_LIMIT)

    COUNTS_PENDING = False  # the evictions a fold makes are known only by folding
    STAGES_BATCHES = False  # a batch evicts as it enters
    KEEPS_ARRIVAL = True
    TAKES_COUNTS = False  # a window lets its oldest cases go; counts have no arrival order

    def extent(self) -> tuple[int | None, float | None]:
        return self.window, None

    def replay(self) -> tuple[FloatArray, BoolArray]:
        return self.arrival_order()

    def to_state(self, pos_missed: int, neg_missed: int) -> EvaluatorState:
        from rankeval.scored.state_file import EvaluatorState

        keys, labels, ages = self._saved_cases()
        return EvaluatorState(self.ties, keys, labels, pos_missed, neg_missed, self.window,
                              ages, self.added)

    def _saved_cases(self) -> tuple[FloatArray, BoolArray, IntArray]:
        """The cases in rank order with their ages (the state file's layout)."""
        keys, labels = self.arrival_order()
        ages = np.arange(self.added - keys.shape[0], self.added, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        return keys[order], labels[order], ages[order]

    def restore(self, state: EvaluatorState) -> None:
        keys, labels, _ = _replayed(state)
        if keys.shape[0]:
            self.add_batch(labels, keys)
        self.added = state.next_age

    def total(self) -> int:
        """Cases in the window of a folded store. Complexity: O(1)."""
        return self.size

    def _slack(self) -> int:
        """Ring slots beyond the window: room for a fold's new cases (see the module doc)."""
        return self._stage_limit()

    def _enter(self, labels: BoolArray, keys: FloatArray) -> None:
        """Evict what the new cases push out of the window, then rank them."""
        count = keys.shape[0]
        # The published store's cases occupy the ring from the oldest one on;
        # the new ones go behind them, in a new ring if they would not fit.
        in_place = self._ring_size + min(count, self.window) <= self._ring_keys.shape[0]
        self.added += count
        if count >= self.window:
            self._clear_tiers()
            labels, keys = labels[-self.window :], keys[-self.window :]
            count = self.window
        self._evict(self._ring_size + count - self.window)
        super()._enter(labels, keys)
        self._ring_push(labels, keys, in_place)

    def _clear_tiers(self) -> None:
        self._main = _Run.empty()
        self._set_buffer(_Run.empty(), _NO_PLACES)
        self._set_dead(_Run.empty(), _NO_PLACES)
        self.doubled_pairs = 0
        self.pos_added = self.neg_added = 0
        # The ring empties behind the published store's cases, not over them.
        self._ring_start = (self._ring_start + self._ring_size) % self._capacity()
        self._ring_size = 0
        self._batches = deque()

    # ------------------------------------------------------------- the ring
    def _capacity(self) -> int:
        """Slots in the ring (1 for an empty ring, so that slots modulo it stay defined)."""
        return max(int(self._ring_keys.shape[0]), 1)

    def _ring_slots(self, start: int, count: int) -> IntArray:
        return (start + np.arange(count, dtype=np.int64)) % self._capacity()

    def _ring_push(self, labels: BoolArray, keys: FloatArray, in_place: bool) -> None:
        """Write the new cases behind the ring's; ``in_place`` if no published slot is hit."""
        needed = self._ring_size + keys.shape[0]
        if not in_place or needed > self._ring_keys.shape[0]:
            # Memory follows the cases held, up to the window and room for a fold.
            limit = self.window + self._slack()
            capacity = min(limit, max(needed, 2 * self._ring_keys.shape[0], 1024))
            old = self._ring_slots(self._ring_start, self._ring_size)
            ring_keys = np.zeros(capacity, dtype=np.float64)
            ring_labels = np.zeros(capacity, dtype=np.bool_)
            ring_keys[: old.shape[0]] = self._ring_keys[old]
            ring_labels[: old.shape[0]] = self._ring_labels[old]
            self._ring_keys, self._ring_labels, self._ring_start = ring_keys, ring_labels, 0
        slots = self._ring_slots(self._ring_start + self._ring_size, keys.shape[0])
        self._ring_keys[slots] = keys
        self._ring_labels[slots] = labels
        self._ring_size += keys.shape[0]

    def arrival_order(self) -> tuple[FloatArray, BoolArray]:
        """Keys and labels of the window's cases, oldest first (of a folded store)."""
        slots = self._ring_slots(self._ring_start, self._ring_size)
        return self._ring_keys[slots], self._ring_labels[slots]

    # ------------------------------------------------------ adds and evictions
    def _absorb(self, labels: BoolArray, keys: FloatArray) -> None:
        """Count the new cases' pairs and buffer them with their places in main."""
        self.version = next(store._VERSIONS)
        count = keys.shape[0]
        order = None
        if count <= _SMALL_SORT:
            order = small_stable_order(keys)
            keys, labels = keys[order], labels[order]
        else:
            keys, labels = sort_cases(keys, labels)
        run = _Run(keys, labels)
        blocks: list[IntArray] = []
        pairs = doubled_cross_pairs(
            self._tiers(), keys, labels, self.ties, older=False, places=blocks
        )
        places = _joined(blocks, count)
        within = doubled_pairs(keys, labels, run.cum, self.ties)
        self.doubled_pairs += pairs + within
        self._remember(count, order, within)
        self._set_buffer(*_merged_with_places(self._buffer, self._buffer_slots, run, places))
        self._rebuild_if_full()

    def _remember(self, count: int, order: IntArray | None, inner_pairs: int) -> None:
        """Note a batch entering the ring (its cases are pushed right after)."""
        batches = self._batches
        if order is not None and count >= _MIN_ORDERED_BATCH:
            batches.append(_FoldedBatch(count, order.astype(np.uint16), inner_pairs))
        elif batches and batches[-1].order is None and batches[-1].count < _SMALL_SORT:
            # Tiny batches run together, unordered (a new record: records are shared).
            batches[-1] = _FoldedBatch(batches[-1].count + count, None, None)
        else:
            batches.append(_FoldedBatch(count, None, None))

    def _evicted_sorted(
        self, ring_keys: FloatArray, ring_labels: BoolArray
    ) -> tuple[FloatArray, BoolArray, int | None]:
        """The oldest cases (given in arrival order) sorted, and twice their pairs if known.

        Their batches leave the ring's records. A whole batch, or the older
        part of one not much larger, comes sorted from its recorded order; else
        the cases are sorted again.
        """
        count = ring_keys.shape[0]
        batches = self._batches
        first = batches[0]
        if first.order is not None and count <= first.count <= 4 * count:
            if first.count == count:
                batches.popleft()
                return ring_keys[first.order], ring_labels[first.order], first.inner_pairs
            older = first.order < count
            order = first.order[older]
            rest = first.order[~older] - np.uint16(count)
            batches[0] = _FoldedBatch(first.count - count, rest, None)
            return ring_keys[order], ring_labels[order], None
        left = count
        while left:
            first = batches[0]
            if first.count > left:
                batches[0] = _FoldedBatch(first.count - left, None, None)
                break
            left -= first.count
            batches.popleft()
        keys, labels = sort_cases(ring_keys, ring_labels)
        return keys, labels, None

    def _evict(self, count: int) -> None:
        """Retire the ``count`` oldest cases and their pairs. Complexity: O(c log W + b)."""
        if count <= 0:
            return
        self.version = next(store._VERSIONS)
        slots = self._ring_slots(self._ring_start, count)
        self._ring_start = int((self._ring_start + count) % self._ring_keys.shape[0])
        self._ring_size -= count
        ring_keys, ring_labels = self._ring_keys[slots], self._ring_labels[slots]
        keys, labels, within = self._evicted_sorted(ring_keys, ring_labels)
        evicted = _Run(keys, labels)
        # Pairs among the evicted, and with every case left: all newer than
        # them, so they rank first among equal keys. The pair count is linear
        # in the cases, so the cases left are all tiers less the evicted ones.
        blocks: list[IntArray] = []
        tiers = (*self._tiers(), (evicted, -1))
        lost = doubled_cross_pairs(tiers, keys, labels, self.ties, older=True, places=blocks)
        places = _joined(blocks, count)
        if within is None:
            within = doubled_pairs(keys, labels, evicted.cum, self.ties)
        self.doubled_pairs -= lost + within
        evicted_pos = int(evicted.cum[-1])
        self.pos_added -= evicted_pos
        self.neg_added -= count - evicted_pos
        live_main = self._main_size()
        if count < live_main:  # all from main, where they stay as dead cases
            self._set_dead(*_merged_with_places(self._dead, self._dead_lt, evicted, places))
            self._rebuild_if_full()
            return
        # The whole main tier goes, then the oldest of the (newer) buffer.
        self._main = _Run.empty()
        self._set_dead(_Run.empty(), _NO_PLACES)
        gone_keys, _ = sort_cases(ring_keys[live_main:], ring_labels[live_main:])
        left = _without(self._buffer, _deletions(self._buffer, gone_keys))
        self._set_buffer(_Run(*left), np.zeros(left[0].shape[0], dtype=np.int64))

    # ---------------------------------------------------- dead cases in main
    def _set_buffer(self, buffer: _Run, slots: IntArray) -> None:
        self._buffer, self._buffer_slots = buffer, slots

    def _set_dead(self, dead: _Run, lt: IntArray) -> None:
        self._dead, self._dead_lt = dead, lt
        self._dead_where = self._dead_gaps = None

    def _where_dead(self) -> IntArray:
        """Positions of the dead cases in the main tier, ascending. O(d log d), cached."""
        if self._dead_where is None:
            # Each is the oldest of its key left in main, behind the older dead ones.
            self._dead_where = self._dead_lt + _rank_within_equal(self._dead.keys)
        return self._dead_where

    def _dead_before(self, i: int) -> int:
        """Dead cases in front of the main tier's live case ``i``. O(log d)."""
        if self._dead_gaps is None:
            self._dead_gaps = self._where_dead() - np.arange(self._dead.size)
        return int(self._dead_gaps.searchsorted(i, side="right"))

    def _rebuild_if_full(self) -> None:
        if max(self._buffer.size, self._dead.size) > self._buffer_limit():
            self._rebuild()

    def _rebuild(self) -> None:
        """One pass: drop the dead cases from main and merge the buffer in. O(W)."""
        if not (self._dead.size or self._buffer.size):
            return
        where = self._where_dead()
        keys, labels = (
            _without(self._main, where) if where.size else (self._main.keys, self._main.labels)
        )
        if self._buffer.size:
            # A buffered case's place moves up by the dead cases in front of it.
            buffer = self._buffer
            slots = self._buffer_slots - where.searchsorted(self._buffer_slots, side="left")
            keys, labels = merge_columns(
                keys, buffer.keys, ((keys, buffer.keys), (labels, buffer.labels)), slots
            )
        self._main = _Run(keys, labels)
        self._set_buffer(_Run.empty(), _NO_PLACES)
        self._set_dead(_Run.empty(), _NO_PLACES)

    def _merge_buffer(self) -> None:
        self._rebuild()

    def one_tier(self) -> bool:
        # Evicted cases still in main must go too (a time window evicts without adding).
        return super().one_tier() and not self._dead.size

    def _tiers(self) -> Tiers:
        return (self._main, 1), (self._dead, -1), (self._buffer, 1)

    def _main_count(self, key: float, side: Side) -> tuple[int, int]:
        cases, positives = super()._main_count(key, side)
        if self._dead.size:
            t = int(self._dead.keys.searchsorted(key, side=side))
            cases, positives = cases - t, positives - int(self._dead.cum[t])
        return cases, positives

    def _main_size(self) -> int:
        return self._main.size - self._dead.size

    def _main_key(self, i: int) -> float:
        return super()._main_key(i + self._dead_before(i) if self._dead.size else i)

    def _main_hits(self, i: int) -> int:
        if not self._dead.size:
            return super()._main_hits(i)
        j = self._dead_before(i)
        return super()._main_hits(i + j) - int(self._dead.cum[j])

    def _main_first_positive(self) -> int:
        if not self._dead.size:
            return super()._main_first_positive()
        # The m-th positive of main (0-based) is live unless it is dead: the
        # first live one is the first m missing from the dead positives' ranks.
        where = self._where_dead()
        ranks = self._main.cum.take(where[self._dead.labels])  # ascending, distinct
        missing = np.flatnonzero(ranks != np.arange(ranks.shape[0]))
        m = int(missing[0]) if missing.size else ranks.shape[0]
        position = self._main.cum.select(m + 1)
        return position - int(where.searchsorted(position, side="left"))

    # ---------------------------------------------------------------- copies
    def successor(self: _Window) -> _Window:
        """A store to change in this one's place: the ring is shared (see the module doc).

        Complexity: O(batches in the ring).
        """
        clone = super().successor()
        clone.window, clone._buffer_slots = self.window, self._buffer_slots
        clone._dead, clone._dead_lt = self._dead, self._dead_lt
        clone._dead_where, clone._dead_gaps = self._dead_where, self._dead_gaps
        clone._ring_keys, clone._ring_labels = self._ring_keys, self._ring_labels
        clone._ring_start, clone._ring_size, clone.added = (
            self._ring_start, self._ring_size, self.added
        )
        clone._batches = deque(self._batches)
        return clone

    def copy(self: _Window) -> _Window:
        """An independent store with the same window. O(W)."""
        clone = super().copy()
        clone._ring_keys, clone._ring_labels = self._ring_keys.copy(), self._ring_labels.copy()
        return clone

    def _check(self) -> None:
        """Assert every invariant: sorted tiers, the ring = the live cases, exact counts.

        O(W log W).
        """
        for run in (self._main, self._buffer, self._dead):
            assert bool(np.all(run.keys[1:] >= run.keys[:-1]))
            run.cum.check()
        assert len(self.pending) - self.taken <= max(store.PENDING_LIMIT, 1)
        assert self._staged_count == len(self._staged) == 0  # checks run after a fold
        assert self._dead.size < self._main.size or self._main.size == 0
        main_keys = self._main.keys
        assert np.array_equal(self._dead_lt, main_keys.searchsorted(self._dead.keys, "left"))
        assert np.array_equal(
            self._buffer_slots, main_keys.searchsorted(self._buffer.keys, "right")
        )
        where = self._where_dead()  # each dead case is the oldest of its key in main
        assert bool(np.all(where[1:] > where[:-1]))
        assert np.array_equal(self._main.keys[where], self._dead.keys)
        assert np.array_equal(self._main.labels[where], self._dead.labels)
        live = _Run(*_without(self._main, where))
        assert self._ring_size == live.size + self._buffer.size == self.size <= self.window
        assert self.pos_added == live.cum.total + self._buffer.cum.total
        for i in range(0, live.size, max(1, live.size // 7)):  # the live-case view
            assert self._main_key(i) == live.keys[i]
            assert self._main_hits(i) == live.cum[i]
        assert self._main_hits(live.size) == live.cum[-1]
        if live.cum.total:
            assert self._main_first_positive() == live.cum.select(1)
        slots = self._ring_slots(self._ring_start, self._ring_size)
        assert sum(batch.count for batch in self._batches) == self._ring_size
        start = 0
        for batch in self._batches:  # recorded sort orders and pair counts
            keys, labels = self._ring_keys[slots], self._ring_labels[slots]
            keys, labels = keys[start : start + batch.count], labels[start : start + batch.count]
            start += batch.count
            if batch.order is not None:
                assert np.array_equal(batch.order, np.argsort(keys, kind="stable"))
                keys, labels = keys[batch.order], labels[batch.order]
                if batch.inner_pairs is not None:
                    cum = _Run(keys, labels).cum
                    assert batch.inner_pairs == doubled_pairs(keys, labels, cum, self.ties)
        ring = sorted(
            zip(self._ring_keys[slots].tolist(), self._ring_labels[slots].tolist(), strict=True)
        )
        tiers = sorted(
            zip(
                np.concatenate((live.keys, self._buffer.keys)).tolist(),
                np.concatenate((live.labels, self._buffer.labels)).tolist(),
                strict=True,
            )
        )
        assert ring == tiers
        merged = live.merged(self._buffer.keys, self._buffer.labels)
        # Equal keys rank in arrival order under both policies (eviction relies on it).
        order = np.argsort(self._ring_keys[slots], kind="stable")
        assert np.array_equal(self._ring_labels[slots][order], merged.labels)
        total = doubled_pairs(merged.keys, merged.labels, merged.cum, self.ties)
        assert total == self.doubled_pairs


def _replayed(state: EvaluatorState) -> tuple[FloatArray, BoolArray, FloatArray | None]:
    """A saved window's cases (and times) in arrival order, to be added again."""
    assert state.ages is not None
    order = np.argsort(state.ages, kind="stable")
    times = None if state.times is None else state.times[order]
    return state.keys[order], state.labels[order], times
