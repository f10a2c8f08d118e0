"""Storage of scored cases: three tiers of sorted runs, merged lazily.

* **main**: NumPy arrays in rank order — ``keys`` (``-score``, ascending; float64, or
  float32 for ``score_dtype="float32"``), ``labels``, and ``cum``, the positives before
  each rank, as a :class:`PositiveCounts` (a quarter byte a case): 9.25 bytes a case
  (5.25 with float32 keys).
* **buffer**: the same for recent cases, kept at most about
  n/128 long and merged into *main* in one O(n) pass when it outgrows that.
* **pending**: a plain list of cases, each one complex number (see
  :data:`LABEL_PART`), that the adds append to in O(1), without any lock
  (``list.append`` is atomic); a fold, under the evaluator's lock, consumes a
  prefix of it (slicing and ``del`` of a slice are atomic too, so an append
  racing with a fold lands after the prefix and is kept). Folding sorts the
  prefix into the buffer (O(p log p + b)); the first read that needs it folds.
  An add that finds :data:`PENDING_LIMIT` cases waiting *stages* them: into
  two arrays (9 bytes a case), folded with the next fold, or at once when
  :meth:`CaseStore._stage_limit` cases are staged (a window folds larger
  batches: their evictions and merges cost less a case). ``add_cases`` batches are staged
  the same way in the unbounded store (:meth:`CaseStore.add_batch`): the batches between
  two reads are sorted together by the read's fold.

Ties: every tier keeps equal keys in insertion order and every case of a
later tier is newer than every case of an earlier one, so the rank order is
(key, tier, position) — LingPipe's stable sort. The grouped policy only looks
at whole blocks of equal keys.

The exact ROC pair count is updated at each fold from vectorised binary
searches, so reading counts, the ROC area, precision at a rank or the
reciprocal rank never needs a full merge: O(log n) after folding.
"""

from __future__ import annotations

import itertools
import math
import mmap
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np
from numpy.typing import NDArray

from rankeval.formulas import (
    TiePolicy,
    expected_precision_at,
    expected_reciprocal_rank,
    reciprocal_of_rank,
)
from rankeval.points import BoolArray, FloatArray, IntArray
from rankeval.scored.sorting import run_starts, sort_cases

if TYPE_CHECKING:
    from rankeval.scored.state_file import EvaluatorState

Side = Literal["left", "right"]

# A pending case is the complex number ``score - LABEL_PART[label]``: the
# score as real part with every bit kept (``x - 0.0`` is ``x``, ``-0.0``
# included; the fold negates it into the key) and the label as imaginary
# part. One Python object a case, made with one arithmetic operation, and
# NumPy turns a list of them into an array three times faster than tuples.
LABEL_PART = (complex(0.0, 0.0), complex(0.0, -1.0))

# Tier sizes; tests lower them to exercise the merge paths constantly.
MIN_BUFFER = 4096
PENDING_LIMIT = 4096
# Most cases a window stages between folds when nothing reads (see WindowStore).
STAGE_LIMIT = 65536
# The most cases add_batch stages before it folds (9 bytes each: 144 MiB), so that a fold's
# sort temporaries stay bounded however many batches arrive between reads.
BATCH_STAGE_LIMIT = 1 << 24
# Merges up to this many cases sort instead of placing by slots (see merge_columns).
_SMALL_MERGE = 8192
# Cases per block of the passes that would otherwise need per-case temporaries.
PAIR_BLOCK = 1 << 16
# Every change to the ranked cases of any store takes the next number: a cache
# keyed by it can never mistake one state for another (not even after a reset).
_VERSIONS = itertools.count(1)


# Arrays of at least this many elements get an anonymous memory mapping of their own (see empty).
MAPPED_CASES = 1 << 22


# Private anonymous memory where the system has it (as malloc's own large blocks): a shared
# mapping would count as shared memory, which the system reports as not freely available.
_PRIVATE: dict[str, int] = (
    {"flags": mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS} if hasattr(mmap, "MAP_ANONYMOUS") else {})


def empty(count: int, dtype: Any) -> NDArray[Any]:
    """An uninitialised array for ``count`` cases; a large one's memory leaves with it.

    glibc serves a block from its heap unless the block is larger than its mmap
    threshold, which climbs (up to 32 MiB) each time a mapped block is freed; a
    merge's freed arrays then stay resident, several bytes a case. Arrays for at
    least :data:`MAPPED_CASES` cases therefore take a mapping of their own
    (Python's ``mmap``), unmapped the moment the array goes. Smaller ones come
    from the heap: a fresh mapping costs a page fault a page when first written,
    which at a million cases would cost the stream a third of its rate, while the
    heap they reuse stays bounded (see :func:`release_heap`).
    """
    dtype = np.dtype(dtype)
    if count < MAPPED_CASES:
        return np.empty(count, dtype=dtype)
    return np.frombuffer(mmap.mmap(-1, count * dtype.itemsize, **_PRIVATE), dtype=dtype,
                         count=count)



_trim: Callable[[int], int] | None = None
_trim_known = False
_trim_due = False  # a merge made mapped arrays since the last release_heap


def release_heap(only_if_due: bool = False) -> None:
    """Hand the heap's free pages back to the system: glibc's ``malloc_trim(0)``.

    The evaluator calls it (``only_if_due``) once a change to a store large
    enough to map its arrays (:func:`empty`) is published: the heap then holds
    only small arrays, so this costs little (a fold's temporaries fault in again),
    and what the store left in the heap while it was small, and the change's own
    temporaries, go back. Elsewhere than glibc it does nothing.
    """
    global _trim, _trim_known, _trim_due
    if only_if_due and not _trim_due:
        return
    _trim_due = False
    if not _trim_known:
        import ctypes

        try:
            _trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
        except OSError:
            _trim = None
        _trim_known = True
    if _trim is not None:
        _trim(0)


# Positives before a rank, without a running count a case (see PositiveCounts).
_WORD = 8  # labels a 64-bit word (one byte each)
_SUPER = 4096  # labels a superblock: counts within one fit a uint16
_WORDS_PER_SUPER = _SUPER // _WORD
_BYTE_SUM = np.uint64(0x0101010101010101)  # a word times this: the sum of its bytes in the top one
_TOP_BYTE = np.uint64(56)


def _word_sums(words: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """How many of the eight one-byte labels of each word are true (0..8)."""
    out = words * _BYTE_SUM  # wraps: only the top byte is kept
    out >>= _TOP_BYTE
    return out


def _running_count(labels: BoolArray) -> IntArray:
    """``[0, cumsum(labels)]`` as int64. O(n)."""
    cum = np.zeros(labels.shape[0] + 1, dtype=np.int64)
    np.cumsum(labels, out=cum[1:])
    return cum


# Runs of fewer cases keep a plain running count (8 bytes a case, at most 2 MiB a run):
# the buffer, staged batches and windows fold and merge small runs constantly, and a plain
# count is built and read with one NumPy call. Tests lower it to 0 to exercise the compact form.
DENSE_CASES = 1 << 18


class PositiveCounts:
    """``cum[i]``, the positives among the first ``i`` labels, in a quarter byte a case.

    The labels stay the one-byte booleans they are; this keeps the count before
    every 4,096th label (int64) and, within those, before every 8th (uint16):
    0.25 bytes a case instead of a running int64 count's 8. ``cum[i]`` adds the
    two and the true labels among at most seven more, read as the bytes of one
    64-bit word. Complexity: O(1) a lookup, vectorised over arrays of ranks;
    O(n) to build, in blocks (no per-case temporary). Runs of fewer than
    :data:`DENSE_CASES` cases keep the plain running count instead (``_dense``).
    """

    __slots__ = ("_big", "_dense", "_labels", "_small", "_tail", "_words", "size", "total")

    def __init__(self, labels: BoolArray) -> None:
        n = int(labels.shape[0])
        self._labels = labels
        self.size = n
        if n < DENSE_CASES:
            dense = _running_count(labels)
            self._dense: IntArray | None = dense
            self.total = int(dense[-1])
            return
        self._dense = None
        full = n // _WORD
        # Little-endian words: the first label of a word is its lowest byte.
        self._words = labels[: full * _WORD].view("<u8") if full else np.zeros(0, "<u8")
        small = empty(full + 1, np.uint16)
        big = np.empty(full // _WORDS_PER_SUPER + 1, dtype=np.int64)
        carry = 0
        step = _WORDS_PER_SUPER * 16
        for start in range(0, full, step):
            sums = _word_sums(self._words[start : start + step]).astype(np.int64)
            block = np.cumsum(sums)
            block -= sums  # counts before each word, from this block's start
            block += carry
            carry = int(block[-1] + sums[-1])
            first = start // _WORDS_PER_SUPER
            starts = block[::_WORDS_PER_SUPER]
            big[first : first + starts.shape[0]] = starts
            block -= np.repeat(starts, _WORDS_PER_SUPER)[: block.shape[0]]
            small[start : start + block.shape[0]] = block
        # The rank after the last full word (n itself when n is a multiple of 8).
        if full % _WORDS_PER_SUPER == 0:
            big[full // _WORDS_PER_SUPER] = carry
        small[full] = carry - int(big[full // _WORDS_PER_SUPER])
        self._small, self._big = small, big
        tail = np.zeros(_WORD, dtype=np.int64)
        np.cumsum(labels[full * _WORD :], out=tail[1 : n - full * _WORD + 1])
        self._tail = tail  # positives among the first j labels after the full words
        self.total = carry + int(tail[n - full * _WORD])

    def __getitem__(self, index: int) -> int:
        """Positives among the first ``index`` labels (0 <= index <= size; -1: all)."""
        if self._dense is not None:
            return int(self._dense[index])
        if index < 0:
            index += self.size + 1
        word, rest = index >> 3, index & 7
        count = int(self._big[index >> 12]) + int(self._small[word])
        if rest:
            if word < self._words.shape[0]:
                bits = int(self._words[word]) & ((1 << (8 * rest)) - 1)
                count += (bits * 0x0101010101010101 & 0xFFFFFFFFFFFFFFFF) >> 56
            else:
                count += int(self._tail[rest])
        return count

    def take(self, index: IntArray) -> IntArray:
        """``cum[index]`` for an array of ranks (0 <= index <= size). Complexity: O(len)."""
        if self._dense is not None:
            return self._dense[index]  # a new array: callers may change it
        word = index >> 3
        out: IntArray = self._big[index >> 12]
        out += self._small[word]
        rest = (index & 7).astype(np.uint64)
        full = self._words.shape[0]
        if full:
            bits = self._words.take(word, mode="clip")
            rest <<= np.uint64(3)
            mask = np.left_shift(np.uint64(1), rest)
            mask -= np.uint64(1)
            bits &= mask
            counted = _word_sums(bits).view(np.int64)
            in_tail = word >= full
            if in_tail.any():
                counted[in_tail] = self._tail[index[in_tail] & 7]
            out += counted
        else:
            out += self._tail[index & 7]
        return out

    def select(self, m: int) -> int:
        """Position of the ``m``-th positive (1 <= m <= total): ``cum.searchsorted(m) - 1``.

        Complexity: O(log n + 4096).
        """
        if self._dense is not None:
            return int(self._dense.searchsorted(m, side="left")) - 1
        block = int(self._big.searchsorted(m, side="left")) - 1  # its superblock
        start = block * _SUPER
        within = np.cumsum(self._labels[start : start + _SUPER], dtype=np.int64)
        return start + int(within.searchsorted(m - int(self._big[block]), side="left"))

    def to_array(self) -> IntArray:
        """The whole running count ``[0, cumsum(labels)]`` (n + 1 int64). O(n)."""
        if self._dense is not None:
            return self._dense.copy()
        return _running_count(self._labels)

    def check(self) -> None:
        """Assert every count, scalar and vectorised, against a plain running count. O(n)."""
        cum = self.to_array()
        assert self.total == int(cum[-1])
        assert np.array_equal(self.take(np.arange(self.size + 1, dtype=np.int64)), cum)
        for i in {0, 1, 7, 8, 9, self.size // 2, self.size - 1, self.size}:
            if 0 <= i <= self.size:
                assert self[i] == int(cum[i])
        for m in range(1, min(self.total, 64) + 1):
            assert self.select(m) == int(cum.searchsorted(m, side="left")) - 1


def doubled_pairs(keys: FloatArray, labels: BoolArray, cum: PositiveCounts, ties: TiePolicy) -> int:
    """Twice the (positive above negative) pairs within one sorted run; ties count 1/2 if grouped.

    Complexity: O(n).
    """
    starts = None if ties == "insertion" else run_starts(keys)
    if starts is None or starts.all():
        # Summed over the cases, the positives above each one are summed over
        # the positives, the cases below each one: n - 1 - p for the one at
        # 0-based rank p. The positives' own share of that is P(P-1)/2, the
        # rest is the negatives', each counting the positives above it.
        total_pos = cum.total
        n = int(labels.shape[0])
        rank_sum = 0
        for start in range(0, n, PAIR_BLOCK):
            found = np.flatnonzero(labels[start : start + PAIR_BLOCK])
            rank_sum += int(found.sum(dtype=np.int64)) + start * int(found.shape[0])
        above = total_pos * (n - 1) - rank_sum
        return 2 * (above - total_pos * (total_pos - 1) // 2)
    # A block of equal keys between bounds a and b: its negatives lose to the
    # positives above it (cum[a]) twice and to its own (cum[b] - cum[a]) once.
    bounds = np.append(np.flatnonzero(starts), keys.shape[0])
    at_bounds = cum.take(bounds)
    pos_in = np.diff(at_bounds)
    neg_in = np.diff(bounds) - pos_in
    return int((neg_in * (at_bounds[:-1] + at_bounds[1:])).sum(dtype=np.int64))


def merge_columns(
    old_keys: FloatArray,
    keys: FloatArray,
    columns: tuple[tuple[NDArray[Any], NDArray[Any]], ...],
    slots: IntArray | None = None,
) -> list[NDArray[Any]]:
    """Merge sorted newer cases behind their equal-key elders, column by column.

    ``columns`` pairs each old column with the new cases' one (the keys are a
    column too if wanted); ``slots`` may give ``old_keys.searchsorted(keys,
    side="right")`` when it is already known (the array is then used up:
    it is overwritten in place). Complexity: O(n + m log n).
    """
    if slots is None:
        if old_keys.shape[0] + keys.shape[0] <= _SMALL_MERGE and keys.shape[0] > 1:
            # Few cases: a stable argsort (two presorted runs: one linear merge)
            # and a gather per column beat the dozen passes below.
            order = np.argsort(np.concatenate((old_keys, keys)), kind="stable")
            return [np.concatenate((old, new))[order] for old, new in columns]
        slots = old_keys.searchsorted(keys, side="right")
    if keys.shape[0] == 1:  # one add, then a read: two slices copied
        slot = int(slots[0])
        out = []
        for old, new in columns:
            inserted = empty(old.shape[0] + 1, new.dtype)
            inserted[:slot], inserted[slot], inserted[slot + 1 :] = old[:slot], new[0], old[slot:]
            out.append(inserted)
        return out
    # One slot mask serves every column (np.insert would build one per column:
    # another n-byte temporary for the allocator to keep).
    slots += np.arange(keys.shape[0])  # in place: a second n-sized int64 stays resident
    older = empty(old_keys.shape[0] + keys.shape[0], np.bool_)
    older.fill(True)
    older[slots] = False
    out = []
    for old, new in columns:
        merged = empty(older.shape[0], new.dtype)
        merged[slots] = new
        merged[older] = old
        out.append(merged)
    return out


def search_left_and_right(
    run_keys: FloatArray, keys: FloatArray, tied: bool
) -> tuple[IntArray, IntArray]:
    """``run_keys.searchsorted(keys)`` with side left and right, searching mostly once.

    A binary search costs a chain of comparisons (cache misses in a large
    run), while the element at a found position is already in cache: a key
    found once or not at all needs no second search. ``tied`` says ties are
    likely (the keys repeat among themselves), so most keys would be found
    and everything is searched twice straight away.
    """
    lt = run_keys.searchsorted(keys, side="left")
    last = run_keys.shape[0] - 1
    if last < 0:
        return lt, lt
    if tied:
        return lt, run_keys.searchsorted(keys, side="right")
    found = run_keys.take(lt, mode="clip") == keys
    if not found.any():  # continuous scores: the usual answer
        return lt, lt
    le = lt + found
    again = found & (lt < last)
    again[again] = run_keys[lt[again] + 1] == keys[again]  # found more than once
    count = int(np.count_nonzero(again))
    if count * 4 > keys.shape[0]:  # tie-heavy after all: search everything again
        return lt, run_keys.searchsorted(keys, side="right")
    if count:
        le[again] = run_keys.searchsorted(keys[again], side="right")
    return lt, le


def _own_places(keys: FloatArray, start: int, count: int) -> tuple[IntArray, IntArray]:
    """``keys.searchsorted(keys[start:start + count])``, left and right, for sorted ``keys``.

    Without ties, each key's own index and the next one; O(count).
    """
    block = keys[start : start + count]
    lo, hi = max(start - 1, 0), min(start + count + 1, keys.shape[0])
    if not (keys[lo + 1 : hi] == keys[lo : hi - 1]).any():
        left = np.arange(start, start + count, dtype=np.int64)
        return left, left + 1
    return keys.searchsorted(block, side="left"), keys.searchsorted(block, side="right")


# Cases a block when counts per score are expanded into cases (see expand_counts).
EXPAND_BLOCK = 1 << 20


def expand_counts(
    values: FloatArray, positives: IntArray, negatives: IntArray, block: int | None = None
) -> Iterator[tuple[BoolArray, FloatArray]]:
    """Cases counted per score as (labels, keys) blocks of at most ``block`` cases.

    Score i gives ``positives[i]`` positive cases, then ``negatives[i]`` negative ones, all
    with key ``-values[i]``; ``block`` is :data:`EXPAND_BLOCK` unless given. Complexity:
    O(k + c) for k scores and c cases.
    """
    if block is None:
        block = EXPAND_BLOCK
    counts = np.empty(2 * values.shape[0], dtype=np.int64)
    counts[0::2], counts[1::2] = positives, negatives
    keep = counts > 0
    keys = np.repeat(np.negative(values), 2)[keep]
    labels = np.zeros(counts.shape[0], dtype=np.bool_)
    labels[0::2] = True  # not np.tile: it runs a generator, which a fault would leave open
    labels, counts = labels[keep], counts[keep]
    ends = np.cumsum(counts, dtype=np.int64)
    start = 0
    while start < counts.shape[0]:
        before = int(ends[start - 1]) if start else 0  # cases of the entries before start
        end = int(ends.searchsorted(before + block, side="right"))
        if end > start:
            yield (np.repeat(labels[start:end], counts[start:end]),
                   np.repeat(keys[start:end], counts[start:end]))
        else:  # one entry holds more than a block: it goes a block at a time
            count, end = int(counts[start]), start + 1
            for at in range(0, count, block):
                size = min(block, count - at)
                yield np.full(size, labels[start]), np.full(size, keys[start])
        start = end


class _SearchKeys:
    """Sorted keys to look up in sorted runs; when most repeat, each distinct one is searched once.

    Tie-heavy scores (rounded probabilities, ratings) give a fold's thousand
    cases a hundred distinct keys or fewer: searching those and spreading the
    result over their repeats is several times cheaper than a binary search a case.
    """

    __slots__ = ("distinct", "group", "keys", "tied")

    def __init__(self, keys: FloatArray) -> None:
        self.keys = keys
        new = run_starts(keys)
        distinct = int(np.count_nonzero(new))
        self.tied = distinct < keys.shape[0]
        # The keys to search (each distinct one once when most repeat) and,
        # then, the number of each case's key among them.
        self.distinct = keys
        self.group: IntArray | None = None
        if 2 * distinct <= keys.shape[0]:
            self.distinct = keys[new]
            self.group = np.cumsum(new, dtype=np.int64)
            self.group -= 1

    def search(self, run_keys: FloatArray, side: Side) -> IntArray:
        """``run_keys.searchsorted(keys, side)``."""
        found = run_keys.searchsorted(self.distinct, side=side)
        return found if self.group is None else found[self.group]

    def search_left_and_right(self, run_keys: FloatArray) -> tuple[IntArray, IntArray]:
        """``run_keys.searchsorted(keys)`` with side left and right."""
        if self.group is None:
            return search_left_and_right(run_keys, self.keys, self.tied)
        return self.search(run_keys, "left"), self.search(run_keys, "right")


Tiers = tuple[tuple["_Run", int], ...]  # sorted runs, each counted with a sign (+1 or -1)


def doubled_cross_pairs(
    tiers: Tiers,
    keys: FloatArray,
    labels: BoolArray,
    ties: TiePolicy,
    older: bool,
    places: list[IntArray] | None = None,
) -> int:
    """Twice the (positive above negative) pairs between some cases and the cases of ``tiers``.

    ``keys``/``labels`` are the cases, sorted by key; ``older`` says whether
    they are older than every tier case (they rank first among equal keys
    under the insertion policy) or newer (they rank last). Under the grouped
    policy a tied pair counts one half. A tier counted with sign -1 takes its
    cases out of the others (the pair count is linear in the cases). One
    vectorised pass over blocks of :data:`PAIR_BLOCK` cases; complexity
    O(m log n).

    ``places``, if given, receives where the cases go in the first tier,
    block by block: ``searchsorted`` with side left if they are older, right
    if newer (nothing if that tier is empty: they all go to its start).
    """
    first = tiers[0][0] if tiers else None
    tiers = tuple((run, sign) for run, sign in tiers if run.size)
    if not tiers:
        return 0
    total = sum(sign * run.size for run, sign in tiers)
    total_pos = sum(sign * run.cum.total for run, sign in tiers)
    grouped = ties == "grouped"
    pairs = 0
    # Blocks keep the half-dozen int64 temporaries per case small: at a
    # million new cases they were ~40 MB that glibc then kept resident.
    for start in range(0, keys.shape[0], PAIR_BLOCK):
        block, pos = keys[start : start + PAIR_BLOCK], labels[start : start + PAIR_BLOCK]
        needles = _SearchKeys(block)
        # For each case, the tier cases (and positives) ranked above it. The
        # grouped policy counts them on both sides, left (key < its key) plus
        # right (key <= its key), so that a tied one counts one half of two;
        # the insertion policy needs one side, the one that ranks tied tier
        # cases where its order puts them: below an older case (left), above
        # a newer one (right).
        above = np.zeros(block.shape[0], dtype=np.int64)
        above_pos = above.copy()
        for run, sign in tiers:
            if run.keys is keys and needles.group is None:  # the cases themselves
                left, right = _own_places(keys, start, block.shape[0])
            elif grouped or run.keys is keys:
                left, right = needles.search_left_and_right(run.keys)
            else:
                left = right = needles.search(run.keys, "left" if older else "right")
            if places is not None and run is first:
                places.append(left if older else right)
            count_in = np.add if sign > 0 else np.subtract
            if grouped:
                count_in(above, left + right, out=above)
                count_in(above_pos, run.cum.take(left) + run.cum.take(right), out=above_pos)
            else:
                side = left if older else right
                count_in(above, side, out=above)
                count_in(above_pos, run.cum.take(side), out=above_pos)
        # A positive beats the tier negatives below it, a negative loses to the
        # tier positives above it: summed over the cases (both sides counted),
        # 2 (total - total_pos) per positive, less the cases above positives,
        # plus the positives above everyone.
        per_side = 1 if grouped else 2
        pairs += 2 * (total - total_pos) * int(np.count_nonzero(pos)) - per_side * (
            int(above.sum(where=pos)) - int(above_pos.sum())
        )
    return pairs


class _Run:
    """One sorted run of cases: keys ascending, ties in insertion order."""

    __slots__ = ("cum", "keys", "labels")

    def __init__(
        self, keys: FloatArray, labels: BoolArray, cum: PositiveCounts | None = None
    ) -> None:
        self.keys = keys
        self.labels = labels
        self.cum = PositiveCounts(labels) if cum is None else cum

    @classmethod
    def empty(cls, dtype: Any = np.float64) -> _Run:
        return cls(np.zeros(0, dtype=dtype), np.zeros(0, dtype=np.bool_))

    @property
    def size(self) -> int:
        return int(self.keys.shape[0])

    def merged(
        self, keys: FloatArray, labels: BoolArray, cum: PositiveCounts | None = None
    ) -> _Run:
        """A new run with sorted, newer cases inserted behind their equal-key elders.

        ``cum`` may give the positive counts of the newer cases.
        """
        if self.size == 0:
            return _Run(keys, labels, cum)
        merged_keys, merged_labels = merge_columns(
            self.keys, keys, ((self.keys, keys), (self.labels, labels))
        )
        return _Run(merged_keys, merged_labels)

_Store = TypeVar("_Store", bound="CaseStore")


class CaseStore:
    """Ranked cases with O(1) adds and O(log n) rank queries.

    Appending to :attr:`pending` is safe from any thread; everything else
    must be serialised by the caller (the evaluator's lock).

    All or nothing: a published store is never changed in a way a read could
    see. Every change (:meth:`fold`, :meth:`stage`, :meth:`add_batch`,
    :meth:`merge_tiers`) is made to a :meth:`successor`, which shares the
    sorted runs (never written in place) and the pending list; the caller
    publishes the successor once the change has succeeded, and drops it if
    anything failed, a ``MemoryError`` or an interrupt included. Cases taken
    from the pending list are only counted off (:attr:`taken`) until then: the
    caller deletes them from the list after publishing.
    """

    __slots__ = (
        "_buffer",
        "_main",
        "_staged",
        "_staged_count",
        "doubled_pairs",
        "key_dtype",
        "neg_added",
        "pending",
        "pos_added",
        "taken",
        "ties",
        "version",
    )

    # Whether total() can count pending cases without folding them.
    COUNTS_PENDING = True
    # Whether the store keeps its cases' arrival order (a window), or only their ranking.
    KEEPS_ARRIVAL = False
    # Whether counts of cases per score can be added (they have no arrival order).
    TAKES_COUNTS = True
    # Whether add_batch stages a batch until a read (see add_batch).
    STAGES_BATCHES = True

    def __init__(self, ties: TiePolicy, key_dtype: Any = np.float64) -> None:
        self.ties: TiePolicy = ties
        # float64, or float32 (score_dtype="float32": the caller has checked every key fits).
        self.key_dtype = np.dtype(key_dtype)
        self._main = _Run.empty(self.key_dtype)
        self._buffer = _Run.empty(self.key_dtype)
        self.pending: list[complex] = []
        # How many cases at the head of ``pending`` are already in this store.
        self.taken = 0
        # Earlier pending adds as (labels, keys) arrays, oldest first.
        self._staged: list[tuple[BoolArray, FloatArray]] = []
        self._staged_count = 0
        # A new number whenever the ranked cases change, so caches know when to go.
        self.version = next(_VERSIONS)
        # Cases folded into the sorted tiers; pending ones are counted by the fold.
        self.pos_added = 0
        self.neg_added = 0
        # Twice the number of (positive, negative) ranked pairs with the positive
        # above, a tied pair counting one half under the grouped policy. Covers
        # the main and buffer tiers; pending cases join it when folded.
        self.doubled_pairs = 0

    @property
    def size(self) -> int:
        """Number of cases in the sorted tiers (pending ones not included)."""
        return self.pos_added + self.neg_added

    def counts(self) -> tuple[int, int]:
        """(positive, negative) cases of a folded store. Complexity: O(1)."""
        return self.pos_added, self.neg_added

    def total(self) -> int:
        """Cases, pending ones included, without folding them. Complexity: O(1)."""
        return self.size + self._staged_count + len(self.pending) - self.taken

    def unfolded(self) -> bool:
        """Whether cases wait in the pending list or the staged arrays."""
        return len(self.pending) > self.taken or bool(self._staged)

    # ------------------------------------------------------------- mutation
    # Call these on a successor only (see the class docstring).
    def successor(self: _Store) -> _Store:
        """A store to change and publish in this one's place. O(staged batches).

        It shares the sorted runs and the pending list; changing it leaves this one as it was.
        """
        clone = object.__new__(type(self))  # no __init__: it would build empty runs
        clone.ties, clone.version, clone.key_dtype = self.ties, self.version, self.key_dtype
        clone._main, clone._buffer = self._main, self._buffer
        clone.pending, clone.taken = self.pending, self.taken
        clone._staged, clone._staged_count = list(self._staged), self._staged_count
        clone.pos_added, clone.neg_added = self.pos_added, self.neg_added
        clone.doubled_pairs = self.doubled_pairs
        return clone

    def add_batch(self, labels: BoolArray, keys: FloatArray) -> None:
        """Add many cases given in insertion order (the arrays are the store's from now on).

        The unbounded store stages a batch (behind any pending adds) until a read folds it
        or :data:`BATCH_STAGE_LIMIT` cases are staged: batches added between reads are then
        sorted together, once, instead of each merged into the sorted tier (O(n) a batch:
        quadratic over many batches). Staged cases take the 9 bytes a case they take once
        ranked. A window ranks each batch at once (it evicts as it enters).

        Complexity: O(1) staged, else O(n + m log m).
        """
        if not self.STAGES_BATCHES:
            self.fold()
            self._enter(labels, keys)
            return
        if not keys.shape[0]:
            return
        if len(self.pending) > self.taken:  # older than the batch: staged first
            self._push_staged(*self._take_pending())
        self._push_staged(labels, keys)
        if self._staged_count >= BATCH_STAGE_LIMIT:
            self.fold()

    def fold(self) -> bool:
        """Sort the pending adds into the tiers; True if there were any.

        Complexity: O(p log p + b + p log n).
        """
        if not self.unfolded():
            return False
        labels, keys = self._take_pending()
        if self._staged:
            batches = [*self._staged, (labels, keys)]
            labels = np.concatenate([labels for labels, _ in batches])
            keys = np.concatenate([keys for _, keys in batches])
            self._staged, self._staged_count = [], 0
        self._enter(labels, keys)
        return True

    def stage(self) -> None:
        """Move the pending adds into arrays, and fold if enough are staged. O(p)."""
        if self._staged_count + len(self.pending) - self.taken >= self._stage_limit():
            self.fold()
            return
        self._push_staged(*self._take_pending())

    def _push_staged(self, labels: BoolArray, keys: FloatArray) -> None:
        """Stage one batch of cases (behind those staged already); an empty one is none."""
        if keys.shape[0]:
            self._staged.append((labels, keys))
            self._staged_count += keys.shape[0]

    def _take_pending(self) -> tuple[BoolArray, FloatArray]:
        """The pending adds as (labels, keys) arrays, counted off the list (not deleted)."""
        pending = self.pending
        count = len(pending)  # appends made meanwhile sit after it and stay
        batch = np.array(pending[self.taken : count], dtype=np.complex128)  # see LABEL_PART
        self.taken = count
        return batch.imag != 0.0, np.negative(batch.real)

    def _stage_limit(self) -> int:
        # Folding into the buffer costs about as much a case at any batch
        # size, so the unbounded store folds what an add finds waiting.
        return PENDING_LIMIT

    def _enter(self, labels: BoolArray, keys: FloatArray) -> None:
        """Rank new cases (insertion order, all newer than every ranked case)."""
        added_pos = int(np.count_nonzero(labels))
        self._absorb(labels, keys)
        self.pos_added += added_pos
        self.neg_added += labels.shape[0] - added_pos

    def _absorb(self, labels: BoolArray, keys: FloatArray) -> None:
        """Count the new pairs and merge cases (insertion order, all newest) into the buffer."""
        self.version = next(_VERSIONS)
        if self._main.size >= MAPPED_CASES or keys.shape[0] >= MAPPED_CASES:
            global _trim_due
            _trim_due = True  # see release_heap
        keys, labels = sort_cases(keys, labels)
        if keys.dtype != self.key_dtype:  # sorted as float64, stored narrow (exact: checked)
            keys = keys.astype(self.key_dtype)
        run = _Run(keys, labels)
        self.doubled_pairs += (
            doubled_cross_pairs(self._tiers(), keys, labels, self.ties, older=False)
            + doubled_pairs(keys, labels, run.cum, self.ties)
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

    def merge_tiers(self) -> None:
        """Merge every tier into main, so that :meth:`ranking` can hand it out. O(n)."""
        self._merge_buffer()

    def merged(self) -> bool:
        """Whether :meth:`ranking` can be read and is complete (one tier, nothing pending)."""
        return not self.unfolded() and self.one_tier()

    def one_tier(self) -> bool:
        """Whether the sorted cases are all in the main tier (adds may be pending)."""
        return not (self._staged or self._buffer.size)

    def _merge_buffer(self) -> None:
        if self._buffer.size:
            self._main = self._main.merged(self._buffer.keys, self._buffer.labels)
            self._buffer = _Run.empty(self.key_dtype)

    def copy(self: _Store) -> _Store:
        """An independent store with the same cases. O(p): runs are never written in place."""
        clone = self.successor()
        clone.pending, clone.taken = self.pending[self.taken :], 0
        return clone

    # ------------------------------------------------- what differs by store
    # The evaluator asks these instead of testing the store's type.
    def extent(self) -> tuple[int | None, float | None]:
        """``(window, horizon)``: the cases kept, by count or by seconds (None: all)."""
        return None, None

    def replay(self) -> tuple[FloatArray, BoolArray]:
        """Keys and labels in an order that, added again, rebuilds this store (ties
        included): the ranking here (after :meth:`merge_tiers`), arrival order in a window."""
        return self.ranking()

    def to_state(self, pos_missed: int, neg_missed: int) -> EvaluatorState:
        """The saved state of an evaluator holding this store (after :meth:`merge_tiers`)."""
        from rankeval.scored.state_file import EvaluatorState

        keys, labels = self.ranking()
        return EvaluatorState(self.ties, keys.astype(np.float64, copy=False), labels, pos_missed,
                              neg_missed, None, None, keys.shape[0],
                              score_dtype=str(self.key_dtype.name))

    def restore(self, state: EvaluatorState) -> None:
        """Take the cases of a saved state into this new, empty store."""
        if state.keys.shape[0]:
            self.add_batch(state.labels, state.keys.copy())

    def timeline(self) -> tuple[NDArray[Any], ...]:
        """What besides the ranking decides the store's future: nothing here; a time window's
        cases' times."""
        return ()

    # ---------------------------------------------------------------- reads
    # Reads need a folded store (see unfolded()); the evaluator folds first.
    def ranking(self) -> tuple[FloatArray, BoolArray]:
        """Keys and labels in rank order (after :meth:`merge_tiers`).

        Cases that ``add_case`` appended after the fold, without the lock, wait for the next
        read: they are not in this ranking, and need not be (see the evaluator's threads).
        """
        assert self.one_tier()
        return self._main.keys, self._main.labels

    # The tiers as the pair kernel sees them, and the main tier seen through
    # five methods: the window store's main tier also holds evicted ("dead")
    # cases that these count out.
    def _tiers(self) -> Tiers:
        """The sorted tiers with their signs, for :func:`doubled_cross_pairs`."""
        return (self._main, 1), (self._buffer, 1)

    def _main_count(self, key: float, side: Side) -> tuple[int, int]:
        """(cases, positives) of the main tier before ``key`` (``searchsorted`` ``side``)."""
        i = int(self._main.keys.searchsorted(self._needle(key), side=side))
        return i, int(self._main.cum[i])

    def _main_size(self) -> int:
        return self._main.size

    def _main_key(self, i: int) -> float:
        """Key of the main tier's case ``i`` (0-based)."""
        return float(self._main.keys[i])

    def _main_hits(self, i: int) -> int:
        """Positives among the main tier's first ``i`` cases (0 <= i <= size)."""
        return int(self._main.cum[i])

    def _main_first_positive(self) -> int:
        """Index of the main tier's first positive (there must be one)."""
        return self._main.cum.select(1)

    def _needle(self, key: float) -> Any:
        """A key to search the tiers for: a float32 array searched for a Python float would
        first be converted whole to float64 (O(n)), so a float32 store searches a float32."""
        return key if self.key_dtype.itemsize == 8 else np.float32(key)

    def _count(self, key: float, side: Side) -> tuple[int, int]:
        """(cases, positives) before ``key`` (pending cases folded first by callers)."""
        i, i_pos = self._main_count(key, side)
        j = int(self._buffer.keys.searchsorted(self._needle(key), side=side))
        return i + j, i_pos + int(self._buffer.cum[j])

    def _split(self, k: int) -> tuple[int, int]:
        """How many of the top ``k`` come from main (i) and from the buffer (j).

        Binary search on j: take more from the buffer while the last main case
        taken ranks below the next buffered one (main wins ties: it is older).
        Complexity: O(log b) main-tier reads.
        """
        buffer_keys = self._buffer.keys
        lo, hi = max(0, k - self._main_size()), min(k, buffer_keys.shape[0])
        while lo < hi:
            j = (lo + hi) // 2
            i = k - j
            if i > 0 and self._main_key(i - 1) > buffer_keys[j]:
                lo = j + 1
            else:
                hi = j
        return k - lo, lo

    def precision_at(self, rank: int) -> float:
        """Precision at ``rank`` under the tie policy. Complexity: O(log n) after a fold."""
        k = min(rank, self.size)
        if rank == 0 or k == 0:
            return expected_precision_at(0, 0, 0, 0, rank)
        i, j = self._split(k)
        if self.ties == "insertion":
            hits = self._main_hits(i) + int(self._buffer.cum[j])
            return expected_precision_at(hits, 0, 0, k, rank)
        key = max(
            self._main_key(i - 1) if i else -math.inf,
            float(self._buffer.keys[j - 1]) if j else -math.inf,
        )
        lt_all, lt_pos = self._count(key, "left")
        le_all, le_pos = self._count(key, "right")
        return expected_precision_at(lt_pos, le_pos - lt_pos, le_all - lt_all, lt_all, rank)

    def reciprocal_rank(self) -> float:
        """1 / rank of the first positive (expected value for grouped ties). O(log n)."""
        if self.pos_added == 0:
            return 0.0
        firsts = []  # (key, tier, index) of each tier's first positive
        if self._main_hits(self._main_size()) > 0:
            index = self._main_first_positive()
            firsts.append((self._main_key(index), 0, index))
        if self._buffer.cum.total > 0:
            index = self._buffer.cum.select(1)
            firsts.append((float(self._buffer.keys[index]), 1, index))
        key, tier, index = min(firsts)
        if self.ties == "grouped":
            lt_all, lt_pos = self._count(key, "left")  # lt_pos is 0: key is the top positive's
            le_all, le_pos = self._count(key, "right")
            tied_pos = le_pos - lt_pos
            return expected_reciprocal_rank(lt_all, tied_pos, (le_all - lt_all) - tied_pos)
        if tier == 0:
            above = index + int(self._buffer.keys.searchsorted(self._needle(key), side="left"))
        else:
            above = self._main_count(key, "right")[0] + index
        return float(reciprocal_of_rank(above + 1))

    # ---------------------------------------------------------------- checks
    def _check(self) -> None:
        """Assert every invariant (tests call this after each mutation). O(n log n)."""
        for run in (self._main, self._buffer):
            keys = run.keys
            assert keys.shape == run.labels.shape
            assert run.cum.size == keys.shape[0]
            assert not np.isnan(keys).any()
            assert bool(np.all(keys[1:] >= keys[:-1]))
            run.cum.check()
        assert len(self.pending) - self.taken <= max(PENDING_LIMIT, 1)
        # staged batches wait for the next read's fold (add_batch); nothing else stays staged
        assert self._staged_count == sum(keys.shape[0] for _, keys in self._staged)
        assert all(keys.shape[0] for _, keys in self._staged)
        assert self.pos_added == self._main.cum.total + self._buffer.cum.total
        assert self.size == self._main.size + self._buffer.size
        merged = self._main.merged(self._buffer.keys, self._buffer.labels)
        total = doubled_pairs(merged.keys, merged.labels, merged.cum, self.ties)
        assert total == self.doubled_pairs
