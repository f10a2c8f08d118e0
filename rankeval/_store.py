"""Storage of scored cases: three tiers of sorted runs, merged lazily.

* **main**: NumPy arrays in rank order — ``keys`` (``-score``, ascending),
  ``labels``, ``cum`` (running count of positives, with a leading 0): 17
  bytes a case.
* **buffer**: the same three arrays for recent cases, kept at most about
  n/128 long and merged into *main* in one O(n) pass when it outgrows that.
* **pending**: a plain list of ``(label, key)`` tuples the adds append to in
  O(1), without any lock (``list.append`` is atomic); a fold, under the
  evaluator's lock, consumes a prefix of it (slicing and ``del`` of a slice are
  atomic too, so an append racing with a fold lands after the prefix and is
  kept). Folding sorts the prefix into the buffer (O(p log p + b)); the first
  read that needs it folds, and so does an add that finds
  :data:`PENDING_LIMIT` cases waiting.

Ties: every tier keeps equal keys in insertion order and every case of a
later tier is newer than every case of an earlier one, so the rank order is
(key, tier, position) — LingPipe's stable sort. The grouped policy only looks
at whole blocks of equal keys.

The exact ROC pair count is updated at each fold from vectorised binary
searches, so reading counts, the ROC area, precision at a rank or the
reciprocal rank never needs a full merge: O(log n) after folding.
"""

from __future__ import annotations

import math

import numpy as np

from rankeval._ranking import (
    BoolArray,
    FloatArray,
    IntArray,
    TiePolicy,
    sort_cases,
    tie_block_ends,
)
from rankeval.metrics import expected_precision_at, expected_reciprocal_rank

# Tier sizes; tests lower them to exercise the merge paths constantly.
MIN_BUFFER = 4096
PENDING_LIMIT = 4096
# Cases per block of the passes that would otherwise need per-case temporaries.
PAIR_BLOCK = 1 << 16


def _cumulative(labels: BoolArray) -> IntArray:
    """``[0, cumsum(labels)]`` as int64. Complexity: O(n), O(1) extra memory."""
    cum = np.empty(labels.shape[0] + 1, dtype=np.int64)
    cum[0] = 0
    # In blocks: np.cumsum of bools into int64 first casts the whole input to
    # a hidden int64 copy (8 bytes a case, which glibc then keeps resident).
    carry = 0
    for start in range(0, labels.shape[0], PAIR_BLOCK):
        block = cum[start + 1 : start + 1 + PAIR_BLOCK]
        np.cumsum(labels[start : start + PAIR_BLOCK], out=block)
        if carry:
            block += carry
        carry = int(block[-1])
    return cum


def pair_count2(keys: FloatArray, labels: BoolArray, cum: IntArray, ties: TiePolicy) -> int:
    """Twice the (positive above negative) pairs within one sorted run; ties count 1/2 if grouped.

    Complexity: O(n).
    """
    if ties == "insertion" or not (keys[1:] == keys[:-1]).any():
        # The k-th positive has k - 1 positives above it, so the positives'
        # share of sum(cum[:-1]) is P(P-1)/2; the rest is the negatives', each
        # counting the positives above it.
        total_pos = int(cum[-1])
        above = int(cum[:-1].sum(dtype=np.int64))
        return 2 * (above - total_pos * (total_pos - 1) // 2)
    ends = tie_block_ends(keys)
    starts = np.concatenate(([0], ends[:-1] + 1))
    pos_before = cum[starts]
    pos_in = cum[ends + 1] - pos_before
    neg_in = (ends + 1 - starts) - pos_in
    return int((neg_in * (2 * pos_before + pos_in)).sum(dtype=np.int64))


class _Run:
    """One sorted run of cases: keys ascending, ties in insertion order."""

    __slots__ = ("cum", "keys", "labels")

    def __init__(self, keys: FloatArray, labels: BoolArray, cum: IntArray | None = None) -> None:
        self.keys = keys
        self.labels = labels
        self.cum = _cumulative(labels) if cum is None else cum

    @classmethod
    def empty(cls) -> _Run:
        return cls(np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.bool_))

    @property
    def size(self) -> int:
        return int(self.keys.shape[0])

    def merged(self, keys: FloatArray, labels: BoolArray, cum: IntArray | None = None) -> _Run:
        """A new run with sorted, newer cases inserted behind their equal-key elders.

        ``cum`` may give the running positive count of the newer cases.
        """
        if self.size == 0:
            return _Run(keys, labels, cum)
        # Each newer case goes behind its equal-key elders and the newer cases
        # before it. One slot mask serves both arrays (np.insert would build
        # one per array: another n-byte temporary for the allocator to keep).
        slots = self.keys.searchsorted(keys, side="right")
        if keys.shape[0] == 1:  # one add, then a read: np.insert copies two slices
            return _Run(np.insert(self.keys, slots, keys), np.insert(self.labels, slots, labels))
        slots += np.arange(keys.shape[0])
        older = np.ones(self.size + keys.shape[0], dtype=np.bool_)
        older[slots] = False
        merged_keys = np.empty(older.shape[0], dtype=np.float64)
        merged_keys[slots] = keys
        merged_keys[older] = self.keys
        merged_labels = np.empty(older.shape[0], dtype=np.bool_)
        merged_labels[slots] = labels
        merged_labels[older] = self.labels
        return _Run(merged_keys, merged_labels)

    def older_pairs2(self, keys: FloatArray, labels: BoolArray, ties: TiePolicy) -> int:
        """Twice the pairs between newer cases (any order) and this run's cases.

        Complexity: O(m log n), in blocks of :data:`PAIR_BLOCK` newer cases.
        """
        if self.size == 0:
            return 0
        # Blocks keep the half-dozen int64 temporaries per case small: at a
        # million new cases they were ~40 MB that glibc then kept resident.
        return sum(
            self._older_pairs2(keys[i : i + PAIR_BLOCK], labels[i : i + PAIR_BLOCK], ties)
            for i in range(0, keys.shape[0], PAIR_BLOCK)
        )

    def _older_pairs2(self, keys: FloatArray, labels: BoolArray, ties: TiePolicy) -> int:
        cum, total_pos = self.cum, int(self.cum[-1])
        le = self.keys.searchsorted(keys, side="right")
        le_pos = cum[le]
        # A new positive beats the older negatives strictly below it; a new
        # negative loses to the older positives at or above it (insertion) ...
        neg_gt = (self.size - le) - (total_pos - le_pos)
        if ties == "insertion":
            return 2 * int(neg_gt[labels].sum() + le_pos[~labels].sum())
        # ... or ties count one half (grouped).
        lt = self.keys.searchsorted(keys, side="left")
        lt_pos = cum[lt]
        neg_eq = (le - lt) - (le_pos - lt_pos)
        pos_eq = le_pos - lt_pos
        return int((2 * neg_gt + neg_eq)[labels].sum() + (2 * lt_pos + pos_eq)[~labels].sum())


class CaseStore:
    """Ranked cases with O(1) adds and O(log n) rank queries.

    Appending to :attr:`pending` is safe from any thread; everything else
    must be serialised by the caller (the evaluator's lock).
    """

    __slots__ = ("_buffer", "_main", "neg_added", "pair_count2", "pending", "pos_added", "ties",
                 "version")

    def __init__(self, ties: TiePolicy) -> None:
        self.ties: TiePolicy = ties
        self._main = _Run.empty()
        self._buffer = _Run.empty()
        self.pending: list[tuple[bool, float]] = []
        # Bumped whenever the ranked cases change, so caches know when to go.
        self.version = 0
        # Cases folded into the sorted tiers; pending ones are counted by the fold.
        self.pos_added = 0
        self.neg_added = 0
        # Twice the number of (positive, negative) ranked pairs with the positive
        # above, a tied pair counting one half under the grouped policy. Covers
        # the main and buffer tiers; pending cases join it when folded.
        self.pair_count2 = 0

    @property
    def size(self) -> int:
        """Number of cases in the sorted tiers (pending ones not included)."""
        return self.pos_added + self.neg_added

    def counts(self) -> tuple[int, int]:
        """(positive, negative) cases, pending ones included. Complexity: O(p log n)."""
        self.fold()
        return self.pos_added, self.neg_added

    def total(self) -> int:
        """Cases, pending ones included, without folding them. Complexity: O(1)."""
        return self.size + len(self.pending)

    # ------------------------------------------------------------- mutation
    def add(self, correct: bool, key: float) -> None:
        """Add one case (the evaluator appends to :attr:`pending` itself). O(1) amortised."""
        self.pending.append((correct, key))
        if len(self.pending) >= PENDING_LIMIT:
            self.fold()

    def add_batch(self, labels: BoolArray, keys: FloatArray) -> None:
        """Add many cases given in insertion order. Complexity: O(n + m log m)."""
        self.fold()
        self._enter(labels, keys)

    def fold(self) -> bool:
        """Sort the pending adds into the tiers; True if there were any.

        Complexity: O(p log p + b + p log n).
        """
        pending = self.pending
        count = len(pending)
        if not count:
            return False
        batch = np.array(pending[:count], dtype=np.float64)  # rows (label, key), exact
        del pending[:count]  # appends made meanwhile sit after the prefix and stay
        self._enter(batch[:, 0] != 0.0, batch[:, 1].copy())
        return True

    def _enter(self, labels: BoolArray, keys: FloatArray) -> None:
        """Rank new cases (insertion order, all newer than every ranked case)."""
        added_pos = int(np.count_nonzero(labels))
        self._absorb(labels, keys)
        self.pos_added += added_pos
        self.neg_added += labels.shape[0] - added_pos

    def _absorb(self, labels: BoolArray, keys: FloatArray) -> None:
        """Count the new pairs and merge cases (insertion order, all newest) into the buffer."""
        self.version += 1
        keys, labels = sort_cases(keys, labels)
        run = _Run(keys, labels)
        self.pair_count2 += (
            self._main.older_pairs2(keys, labels, self.ties)
            + self._buffer.older_pairs2(keys, labels, self.ties)
            + pair_count2(keys, labels, run.cum, self.ties)
        )
        if self._buffer.size == 0 and keys.shape[0] > self._buffer_limit():
            cum = run.cum if self._main.size == 0 else None
            del run  # its running count is rebuilt for the merged run
            self._main = self._main.merged(keys, labels, cum)
            return
        self._buffer = self._buffer.merged(keys, labels) if self._buffer.size else run
        if self._buffer.size > self._buffer_limit():
            self._merge_buffer()

    def _buffer_limit(self) -> int:
        # Merging costs O(n); a buffer of n/128 keeps its share of an add small
        # while every read over the buffer stays cheap.
        return max(MIN_BUFFER, self._main.size >> 7)

    def _merge_buffer(self) -> None:
        if self._buffer.size:
            self._main = self._main.merged(self._buffer.keys, self._buffer.labels)
            self._buffer = _Run.empty()

    def copy(self) -> CaseStore:
        """An independent store with the same cases. O(p): runs are never written in place."""
        clone = CaseStore(self.ties)
        clone._main, clone._buffer = self._main, self._buffer
        clone.pending = list(self.pending)
        clone.pos_added, clone.neg_added = self.pos_added, self.neg_added
        clone.pair_count2 = self.pair_count2
        clone.version = self.version
        return clone

    # ---------------------------------------------------------------- reads
    def ranking(self) -> tuple[FloatArray, BoolArray, IntArray]:
        """Keys, labels and running positive counts in rank order (merges every tier)."""
        self.fold()
        self._merge_buffer()
        return self._main.keys, self._main.labels, self._main.cum

    def _count_le(self, key: float) -> tuple[int, int]:
        """(cases, positives) with key <= ``key`` (pending cases folded first by callers)."""
        main, buffer = self._main, self._buffer
        i = int(main.keys.searchsorted(key, side="right"))
        j = int(buffer.keys.searchsorted(key, side="right"))
        return i + j, int(main.cum[i]) + int(buffer.cum[j])

    def _count_lt(self, key: float) -> tuple[int, int]:
        """(cases, positives) with key < ``key``."""
        main, buffer = self._main, self._buffer
        i = int(main.keys.searchsorted(key, side="left"))
        j = int(buffer.keys.searchsorted(key, side="left"))
        return i + j, int(main.cum[i]) + int(buffer.cum[j])

    def _split(self, k: int) -> tuple[int, int]:
        """How many of the top ``k`` come from main (i) and from the buffer (j).

        Binary search on j: take more from the buffer while the last main case
        taken ranks below the next buffered one (main wins ties: it is older).
        Complexity: O(log b).
        """
        main_keys, buffer_keys = self._main.keys, self._buffer.keys
        lo, hi = max(0, k - main_keys.shape[0]), min(k, buffer_keys.shape[0])
        while lo < hi:
            j = (lo + hi) // 2
            i = k - j
            if i > 0 and main_keys[i - 1] > buffer_keys[j]:
                lo = j + 1
            else:
                hi = j
        return k - lo, lo

    def precision_at(self, rank: int) -> float:
        """Precision at ``rank`` under the tie policy. Complexity: O(log n) after a fold."""
        self.fold()
        k = min(rank, self.size)
        if rank == 0 or k == 0:
            return expected_precision_at(0, 0, 0, 0, rank)
        i, j = self._split(k)
        if self.ties == "insertion":
            hits = int(self._main.cum[i]) + int(self._buffer.cum[j])
            return expected_precision_at(hits, 0, 0, k, rank)
        key = max(
            float(self._main.keys[i - 1]) if i else -math.inf,
            float(self._buffer.keys[j - 1]) if j else -math.inf,
        )
        lt_all, lt_pos = self._count_lt(key)
        le_all, le_pos = self._count_le(key)
        return expected_precision_at(lt_pos, le_pos - lt_pos, le_all - lt_all, lt_all, rank)

    def reciprocal_rank(self) -> float:
        """1 / rank of the first positive (expected value for grouped ties). O(log n)."""
        self.fold()
        if self.pos_added == 0:
            return 0.0
        firsts = []  # (key, tier, index) of each tier's first positive
        for tier, run in enumerate((self._main, self._buffer)):
            if run.cum[-1] > 0:
                index = int(run.cum.searchsorted(1, side="left")) - 1
                firsts.append((float(run.keys[index]), tier, index))
        key, tier, index = min(firsts)
        if self.ties == "grouped":
            lt_all, lt_pos = self._count_lt(key)  # lt_pos is 0: key is the top positive's
            le_all, le_pos = self._count_le(key)
            tied_pos = le_pos - lt_pos
            return expected_reciprocal_rank(lt_all, tied_pos, (le_all - lt_all) - tied_pos)
        if tier == 0:
            above = index + int(self._buffer.keys.searchsorted(key, side="left"))
        else:
            above = int(self._main.keys.searchsorted(key, side="right")) + index
        return 1.0 / (above + 1)

    def folded_pair_count2(self) -> int:
        """``pair_count2`` including every pending case. Complexity: O(p log n)."""
        self.fold()
        return self.pair_count2

    # ---------------------------------------------------------------- checks
    def _check(self) -> None:
        """Assert every invariant (tests call this after each mutation). O(n log n)."""
        for run in (self._main, self._buffer):
            keys = run.keys
            assert keys.shape == run.labels.shape
            assert run.cum.shape == (keys.shape[0] + 1,)
            assert not np.isnan(keys).any()
            assert bool(np.all(keys[1:] >= keys[:-1]))
            assert run.cum[0] == 0
            assert np.array_equal(np.diff(run.cum), run.labels.astype(np.int64))
        assert len(self.pending) < max(PENDING_LIMIT, 1)
        assert self.pos_added == int(self._main.cum[-1] + self._buffer.cum[-1])
        assert self.size == self._main.size + self._buffer.size
        merged = self._main.merged(self._buffer.keys, self._buffer.labels)
        assert pair_count2(merged.keys, merged.labels, merged.cum, self.ties) == self.pair_count2
