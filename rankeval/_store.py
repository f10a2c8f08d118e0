"""Storage of scored cases: sorted NumPy arrays plus a small sorted buffer.

Bulk storage is three NumPy arrays in rank order (``keys = -score`` ascending,
``labels``, and ``cum_pos``, the running count of positives): 17 bytes a case.
Recent single adds go to a :class:`sortedcontainers.SortedList` buffer of
``(key, seq, label)`` tuples; when it outgrows a fraction of the arrays it is
merged into them in one O(n) pass, so adding costs O(log n) amortised.

Ties: the arrays keep equal keys in insertion order, and every buffered case is
newer than every case in the arrays, so the rank order is (key, arrays before
buffer, buffer sequence number) — exactly LingPipe's stable sort. The grouped
policy only ever looks at whole blocks of equal keys.

Everything a streaming reader wants after each add — counts, the exact ROC pair
count, precision at a rank, reciprocal rank — is answered from binary searches
over both parts in O(log n), without merging. Full curves merge first.
"""

from __future__ import annotations

import math

import numpy as np
from sortedcontainers import SortedList

from rankeval._ranking import BoolArray, FloatArray, IntArray, TiePolicy, tie_block_ends
from rankeval.metrics import expected_precision_at, expected_reciprocal_rank

_BEFORE = -1  # a sequence number below every buffered case's
_AFTER = math.inf  # ... and one above

Entry = tuple[float, int, bool]

# Smallest buffer before a merge; tests lower it to exercise merges often.
MIN_BUFFER = 1024


class CaseStore:
    """Ranked cases with O(log n) adds and rank queries; not thread-safe by itself."""

    __slots__ = (
        "_buf",
        "_buf_pos",
        "_cum_pos",
        "_keys",
        "_labels",
        "_seq",
        "neg_added",
        "pair_count2",
        "pos_added",
        "ties",
    )

    def __init__(self, ties: TiePolicy) -> None:
        self.ties: TiePolicy = ties
        self._keys: FloatArray = np.zeros(0, dtype=np.float64)
        self._labels: BoolArray = np.zeros(0, dtype=np.bool_)
        self._cum_pos: IntArray = np.zeros(1, dtype=np.int64)
        self._buf: SortedList = SortedList()
        self._buf_pos: SortedList = SortedList()
        self._seq = 0
        self.pos_added = 0
        self.neg_added = 0
        # Twice the number of (positive, negative) ranked pairs with the positive
        # above; a tied pair counts one half under the grouped policy.
        self.pair_count2 = 0

    # ----------------------------------------------------------------- sizes
    @property
    def size(self) -> int:
        """Number of ranked cases."""
        return self.pos_added + self.neg_added

    @property
    def buffered(self) -> int:
        """Cases not yet merged into the arrays."""
        return len(self._buf)

    def _buffer_limit(self) -> int:
        # Merging costs O(n); a buffer of n/128 keeps its amortised share of an
        # add constant, while every buffer operation stays O(log n).
        return max(MIN_BUFFER, self._keys.shape[0] >> 7)

    # -------------------------------------------------------------- counting
    def _count_le(self, key: float) -> tuple[int, int]:
        """(cases, positives) with key <= ``key``."""
        i = int(np.searchsorted(self._keys, key, side="right"))
        bound = (key, _AFTER)
        return (
            i + self._buf.bisect_left(bound),
            int(self._cum_pos[i]) + self._buf_pos.bisect_left(bound),
        )

    def _count_lt(self, key: float) -> tuple[int, int]:
        """(cases, positives) with key < ``key``."""
        i = int(np.searchsorted(self._keys, key, side="left"))
        bound = (key, _BEFORE)
        return (
            i + self._buf.bisect_left(bound),
            int(self._cum_pos[i]) + self._buf_pos.bisect_left(bound),
        )

    def _pair_delta2(self, correct: bool, key: float) -> int:
        """Change of ``pair_count2`` when a case joins behind its equal-key elders."""
        le_all, le_pos = self._count_le(key)
        if self.ties == "insertion":
            if correct:  # beats every negative strictly below it
                return 2 * ((self.size - le_all) - (self.pos_added - le_pos))
            return 2 * le_pos  # loses to every positive at or above it
        lt_all, lt_pos = self._count_lt(key)
        if correct:
            neg_gt = (self.size - le_all) - (self.pos_added - le_pos)
            return 2 * neg_gt + (le_all - le_pos) - (lt_all - lt_pos)
        return 2 * lt_pos + (le_pos - lt_pos)

    # ------------------------------------------------------------- mutation
    def add(self, correct: bool, key: float) -> None:
        """Add one case. Complexity: O(log n) amortised."""
        self.pair_count2 += self._pair_delta2(correct, key)
        entry: Entry = (key, self._seq, correct)
        self._seq += 1
        self._buf.add(entry)
        if correct:
            self._buf_pos.add(entry)
            self.pos_added += 1
        else:
            self.neg_added += 1
        if len(self._buf) > self._buffer_limit():
            self.flush()

    def add_sorted_batch(self, labels: BoolArray, keys: FloatArray) -> None:
        """Add many cases given in insertion order. Complexity: O((n + m) + m log m)."""
        self.flush()
        order = np.argsort(keys, kind="stable")
        self._insert_sorted(keys[order], labels[order])
        added_pos = int(np.count_nonzero(labels))
        self.pos_added += added_pos
        self.neg_added += labels.shape[0] - added_pos
        self.pair_count2 = self._pair_count2_from_arrays()

    def flush(self) -> None:
        """Merge the buffer into the arrays. Complexity: O(n + b)."""
        count = len(self._buf)
        if not count:
            return
        keys = np.fromiter((e[0] for e in self._buf), dtype=np.float64, count=count)
        labels = np.fromiter((e[2] for e in self._buf), dtype=np.bool_, count=count)
        self._insert_sorted(keys, labels)
        self._buf.clear()
        self._buf_pos.clear()

    def _insert_sorted(self, keys: FloatArray, labels: BoolArray) -> None:
        """Merge cases sorted by key (ties in insertion order), all newer than the arrays."""
        if self._keys.shape[0] == 0:
            self._keys, self._labels = keys.copy(), labels.copy()
        else:
            where = np.searchsorted(self._keys, keys, side="right")
            self._keys = np.insert(self._keys, where, keys)
            self._labels = np.insert(self._labels, where, labels)
        cum_pos = np.empty(self._labels.shape[0] + 1, dtype=np.int64)
        cum_pos[0] = 0
        np.cumsum(self._labels, out=cum_pos[1:])
        self._cum_pos = cum_pos

    def _pair_count2_from_arrays(self) -> int:
        """Recount ``pair_count2`` over the arrays (buffer empty). Complexity: O(n)."""
        labels, cum_pos = self._labels, self._cum_pos
        if self.ties == "insertion":
            return 2 * int(cum_pos[:-1][~labels].sum(dtype=np.int64))
        ends = tie_block_ends(self._keys)
        starts = np.concatenate(([0], ends[:-1] + 1))
        pos_before = cum_pos[starts]
        pos_in = cum_pos[ends + 1] - pos_before
        neg_in = (ends + 1 - starts) - pos_in
        return int((neg_in * (2 * pos_before + pos_in)).sum(dtype=np.int64))

    # ---------------------------------------------------------------- reads
    def ranking(self) -> tuple[FloatArray, BoolArray, IntArray]:
        """Keys, labels and ``cum_pos`` in rank order (merges the buffer first)."""
        self.flush()
        return self._keys, self._labels, self._cum_pos

    def _split(self, k: int) -> tuple[int, int]:
        """How many of the top ``k`` come from the arrays (i) and the buffer (j).

        Binary search on j: take more from the buffer while the last array case
        taken ranks below the next buffered one (arrays win ties).
        Complexity: O(log b · log b).
        """
        keys, buf = self._keys, self._buf
        lo, hi = max(0, k - keys.shape[0]), min(k, len(buf))
        while lo < hi:
            j = (lo + hi) // 2
            i = k - j
            if i > 0 and keys[i - 1] > buf[j][0]:
                lo = j + 1
            else:
                hi = j
        return k - lo, lo

    def _kth_key(self, k: int) -> float:
        """Key of the k-th ranked case, 1 <= k <= size."""
        i, j = self._split(k)
        candidates = []
        if i:
            candidates.append(float(self._keys[i - 1]))
        if j:
            candidates.append(self._buf[j - 1][0])
        return max(candidates)

    def precision_at(self, rank: int) -> float:
        """Precision at ``rank`` under the tie policy. Complexity: O(log² n)."""
        k = min(rank, self.size)
        if rank == 0 or k == 0:
            return expected_precision_at(0, 0, 0, 0, rank)
        if self.ties == "insertion":
            i, j = self._split(k)
            buf_hits = (
                self._buf_pos.bisect_left(self._buf[j]) if j < len(self._buf) else len(self._buf_pos)
            )
            return expected_precision_at(int(self._cum_pos[i]) + buf_hits, 0, 0, k, rank)
        key = self._kth_key(k)
        lt_all, lt_pos = self._count_lt(key)
        le_all, le_pos = self._count_le(key)
        return expected_precision_at(lt_pos, le_pos - lt_pos, le_all - lt_all, lt_all, rank)

    def reciprocal_rank(self) -> float:
        """1 / rank of the first positive (expected value for grouped ties). O(log n)."""
        if self.pos_added == 0:
            return 0.0
        keys, buf, buf_pos = self._keys, self._buf, self._buf_pos
        in_arrays = int(self._cum_pos[-1]) > 0
        a = int(np.searchsorted(self._cum_pos, 1, side="left")) - 1 if in_arrays else -1
        first_key = float(keys[a]) if in_arrays else math.inf
        if buf_pos:
            first_key = min(first_key, buf_pos[0][0])
        if self.ties == "grouped":
            lt_all, lt_pos = self._count_lt(first_key)  # lt_pos is 0: first_key is the top
            le_all, le_pos = self._count_le(first_key)
            tied_pos = le_pos - lt_pos
            return expected_reciprocal_rank(lt_all, tied_pos, (le_all - lt_all) - tied_pos)
        if in_arrays and float(keys[a]) == first_key:
            rank = a + 1 + buf.bisect_left((first_key, _BEFORE))
        else:
            head: Entry = buf_pos[0]
            rank = int(np.searchsorted(keys, head[0], side="right")) + buf.bisect_left(head) + 1
        return 1.0 / rank

    # ---------------------------------------------------------------- checks
    def _check(self) -> None:
        """Assert every invariant (tests call this after each mutation). O(n log n)."""
        keys, labels, cum_pos = self._keys, self._labels, self._cum_pos
        assert keys.shape == labels.shape and cum_pos.shape == (keys.shape[0] + 1,)
        assert not np.isnan(keys).any() and bool(np.all(keys[1:] >= keys[:-1]))
        assert cum_pos[0] == 0 and np.array_equal(np.diff(cum_pos), labels.astype(np.int64))
        buffered = list(self._buf)
        assert buffered == sorted(buffered)
        assert list(self._buf_pos) == [e for e in buffered if e[2]]
        assert all(e[1] < self._seq for e in buffered)
        assert self.pos_added == int(cum_pos[-1]) + len(self._buf_pos)
        assert self.size == keys.shape[0] + len(buffered)
        clone = CaseStore(self.ties)
        clone._keys, clone._labels, clone._cum_pos = keys, labels, cum_pos
        if buffered:
            clone._insert_sorted(
                np.array([e[0] for e in buffered], dtype=np.float64),
                np.array([e[2] for e in buffered], dtype=np.bool_),
            )
        assert clone._pair_count2_from_arrays() == self.pair_count2
