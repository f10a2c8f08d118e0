"""A sliding window over the most recent W cases, on the same three-tier store.

Adds append to the pending list exactly as in :class:`~rankeval._store.CaseStore`.
A fold first evicts the cases that the pending adds push out of the window —
the oldest ones, read from a ring buffer that remembers arrival order — then
absorbs the pending adds. Evicted cases are found in the sorted tiers by key
alone (every tier keeps equal keys in arrival order, so the first matches in
tier order are the evicted ones), removed in one vectorised pass, and their
pairs are subtracted from the exact ROC pair count. Reads stay O(log W) after
a fold; a fold costs O(p log W + W).
"""

from __future__ import annotations

import numpy as np

from rankeval import _store
from rankeval._ranking import BoolArray, FloatArray, IntArray, TiePolicy
from rankeval._store import CaseStore, _Run, pair_count2


def _rank_within_equal(sorted_keys: FloatArray) -> IntArray:
    """For each element of a sorted array, how many equal elements precede it."""
    first = sorted_keys.searchsorted(sorted_keys, side="left")
    return np.arange(sorted_keys.shape[0], dtype=np.int64) - first


def _pairs2_with_newer(run: _Run, keys: FloatArray, labels: BoolArray, ties: TiePolicy) -> int:
    """Twice the pairs between older cases (``keys``, ``labels``) and a run of newer ones.

    Older cases rank first among equal keys under the insertion policy; under
    the grouped policy a tied pair counts one half.
    """
    if run.size == 0 or keys.shape[0] == 0:
        return 0
    total_pos = int(run.cum[-1])
    lt = run.keys.searchsorted(keys, side="left")
    lt_pos = run.cum[lt]
    neg_ge = (run.size - lt) - (total_pos - lt_pos)
    if ties == "insertion":
        return 2 * int(neg_ge[labels].sum() + lt_pos[~labels].sum())
    le = run.keys.searchsorted(keys, side="right")
    le_pos = run.cum[le]
    neg_eq = (le - lt) - (le_pos - lt_pos)
    pos_eq = le_pos - lt_pos
    neg_gt = neg_ge - neg_eq
    return int((2 * neg_gt + neg_eq)[labels].sum() + (2 * lt_pos + pos_eq)[~labels].sum())


def _deletions(runs: tuple[_Run, ...], keys: FloatArray) -> list[IntArray]:
    """Positions, per run, of the evicted cases with these (sorted) keys.

    Every tier keeps equal keys in arrival order and evicted cases are the
    oldest, so the j-th evicted case with key k is the j-th case with that key
    in tier order: main first, then the buffer.
    """
    rank = _rank_within_equal(keys)
    out = []
    for run in runs:
        lo = run.keys.searchsorted(keys, side="left")
        available = run.keys.searchsorted(keys, side="right") - lo
        here = rank < available
        out.append(lo[here] + rank[here])
        keys, rank = keys[~here], (rank - available)[~here]
    assert keys.shape[0] == 0, "evicted cases missing from the store"
    return out


class WindowStore(CaseStore):
    """A :class:`CaseStore` that keeps only the ``window`` most recent cases."""

    __slots__ = ("_ring_keys", "_ring_labels", "_ring_size", "_ring_start", "added", "window")

    def __init__(self, ties: TiePolicy, window: int) -> None:
        super().__init__(ties)
        self.window = window
        self._ring_keys: FloatArray = np.zeros(window, dtype=np.float64)
        self._ring_labels: BoolArray = np.zeros(window, dtype=np.bool_)
        self._ring_start = 0  # slot of the oldest case in the window
        self._ring_size = 0
        self.added = 0  # cases ever added; the next case's age

    def total(self) -> int:
        """Cases in the window (evictions are settled by a fold). Complexity: O(p log W)."""
        self.fold()
        return self.size

    def _enter(self, labels: BoolArray, keys: FloatArray) -> None:
        """Evict what the new cases push out of the window, then rank them."""
        count = keys.shape[0]
        self.added += count
        if count >= self.window:
            self._clear_tiers()
            labels, keys = labels[-self.window :], keys[-self.window :]
            count = self.window
        self._evict(self._ring_size + count - self.window)
        self._absorb(labels, keys)
        added_pos = int(np.count_nonzero(labels))
        self.pos_added += added_pos
        self.neg_added += count - added_pos
        self._ring_push(labels, keys)

    def _clear_tiers(self) -> None:
        self._main = _Run.empty()
        self._buffer = _Run.empty()
        self.pair_count2 = 0
        self.pos_added = self.neg_added = 0
        self._ring_start = self._ring_size = 0

    # ------------------------------------------------------------- the ring
    def _ring_slots(self, start: int, count: int) -> IntArray:
        return (start + np.arange(count, dtype=np.int64)) % self.window

    def _ring_push(self, labels: BoolArray, keys: FloatArray) -> None:
        slots = self._ring_slots(self._ring_start + self._ring_size, keys.shape[0])
        self._ring_keys[slots] = keys
        self._ring_labels[slots] = labels
        self._ring_size += keys.shape[0]

    def arrival_order(self) -> tuple[FloatArray, BoolArray]:
        """Keys and labels of the window's cases, oldest first (after a fold)."""
        self.fold()
        slots = self._ring_slots(self._ring_start, self._ring_size)
        return self._ring_keys[slots], self._ring_labels[slots]

    # ------------------------------------------------------------- eviction
    def _evict(self, count: int) -> None:
        """Remove the ``count`` oldest cases and their pairs. Complexity: O(W + c log W)."""
        if count <= 0:
            return
        self.version += 1
        slots = self._ring_slots(self._ring_start, count)
        self._ring_start = int((self._ring_start + count) % self.window)
        self._ring_size -= count
        order = np.argsort(self._ring_keys[slots], kind="stable")
        keys, labels = self._ring_keys[slots][order], self._ring_labels[slots][order]
        runs = (self._main, self._buffer)
        self._main, self._buffer = (
            _Run(np.delete(run.keys, where), np.delete(run.labels, where)) if where.size else run
            for run, where in zip(runs, _deletions(runs, keys), strict=True)
        )
        # The evicted cases are older than every case left, so they rank first
        # among equal keys.
        remaining = _pairs2_with_newer(self._main, keys, labels, self.ties) + _pairs2_with_newer(
            self._buffer, keys, labels, self.ties
        )
        within = pair_count2(keys, labels, _Run(keys, labels).cum, self.ties)
        self.pair_count2 -= remaining + within
        evicted_pos = int(np.count_nonzero(labels))
        self.pos_added -= evicted_pos
        self.neg_added -= count - evicted_pos

    def copy(self) -> WindowStore:
        """An independent store with the same window. O(W)."""
        clone = WindowStore(self.ties, self.window)
        clone._main, clone._buffer = self._main, self._buffer
        clone.pending = list(self.pending)
        clone.pos_added, clone.neg_added = self.pos_added, self.neg_added
        clone.pair_count2 = self.pair_count2
        clone.version = self.version
        clone._ring_keys, clone._ring_labels = self._ring_keys.copy(), self._ring_labels.copy()
        clone._ring_start, clone._ring_size, clone.added = (
            self._ring_start, self._ring_size, self.added
        )
        return clone

    def _check(self) -> None:
        """Assert every invariant: sorted tiers, the ring = the tiers, exact counts. O(W log W)."""
        for run in (self._main, self._buffer):
            assert bool(np.all(run.keys[1:] >= run.keys[:-1]))
            assert np.array_equal(np.diff(run.cum), run.labels.astype(np.int64))
        assert len(self.pending) < max(_store.PENDING_LIMIT, 1)
        assert self._ring_size == self._main.size + self._buffer.size == self.size <= self.window
        assert self.pos_added == int(self._main.cum[-1] + self._buffer.cum[-1])
        slots = self._ring_slots(self._ring_start, self._ring_size)
        ring = sorted(
            zip(self._ring_keys[slots].tolist(), self._ring_labels[slots].tolist(), strict=True)
        )
        tiers = sorted(
            zip(
                np.concatenate((self._main.keys, self._buffer.keys)).tolist(),
                np.concatenate((self._main.labels, self._buffer.labels)).tolist(),
                strict=True,
            )
        )
        assert ring == tiers
        merged = self._main.merged(self._buffer.keys, self._buffer.labels)
        if self.ties == "insertion":  # equal keys must rank in arrival order
            order = np.argsort(self._ring_keys[slots], kind="stable")
            assert np.array_equal(self._ring_labels[slots][order], merged.labels)
        assert pair_count2(merged.keys, merged.labels, merged.cum, self.ties) == self.pair_count2
