"""Sorting cases for the store: keys ascending, equal keys in input order, fast.

The store (:mod:`rankeval.scored.store`), the windows and the partitioned report sort cases
here; what a sorted ranking means (its operating points) is :mod:`rankeval.points`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["id_order", "run_starts", "small_stable_order", "sort_cases"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


def run_starts(sorted_keys: NDArray[Any]) -> BoolArray:
    """Where each run of equal keys begins in a sorted array (the first element always).

    >>> run_starts(np.array([-3.0, -3.0, -1.0, 0.0, -0.0])).tolist()
    [True, False, True, True, False]

    Complexity: O(n).
    """
    starts = np.empty(sorted_keys.shape[0], dtype=np.bool_)
    starts[:1] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=starts[1:])
    return starts


def _input_order_within_runs(order: IntArray, starts: BoolArray) -> IntArray:
    """An unstable argsort's ``order`` with each run of equal keys back in input order.

    ``starts`` is :func:`run_starts` of the sorted keys. Sorting ``run * n +
    index`` (int64, all distinct; ``n`` must stay below 2**31) keeps the runs
    where they are and orders each by index. ``order`` is used up.
    """
    run = np.cumsum(starts, dtype=np.int64)
    run *= order.shape[0]
    order += run
    order.sort()
    order -= run
    return order


def sort_cases(keys: FloatArray, labels: BoolArray) -> tuple[FloatArray, BoolArray]:
    """Keys ascending with their labels, equal keys in input order: a stable sort.

    The result is exactly ``keys[order], labels[order]`` for
    ``order = np.argsort(keys, kind="stable")``, bits of ``-0.0`` included, but
    several times faster: NumPy's stable argsort of floats is a scalar merge
    sort, while ``np.sort`` uses SIMD. Positives and negatives are sorted
    apart and then merged (a stable sort of two sorted runs is one linear
    merge). That is already the stable order unless a positive and a negative
    share a key; only then does input order decide, and :func:`_stable_order`
    takes over.

    >>> k, lab = sort_cases(np.array([2.0, -1.0, 2.0, 0.5]), np.array([False, True, True, False]))
    >>> k.tolist(), lab.tolist()
    ([-1.0, 0.5, 2.0, 2.0], [True, False, False, True])

    Complexity: O(n log n).
    """
    if keys.shape[0] <= _SMALL_SORT:  # a fold's batch: fewer NumPy calls win
        order = small_stable_order(keys)
        return keys[order], labels[order]
    if _has_ties(keys[:_TIE_SAMPLE]):
        # Ties in a small sample mean many ties in all: skip the merge attempt.
        return _stable_sort_with_ties(keys, labels)
    pos = np.compress(labels, keys)
    neg = np.compress(~labels, keys)
    pos.sort()
    neg.sort()
    both = np.concatenate((pos, neg))
    positives = pos.shape[0]
    del pos, neg  # lower the peak of temporaries (glibc keeps it resident)
    merge = np.argsort(both, kind="stable")
    sorted_keys = both[merge]
    del both
    sorted_labels = merge < positives
    del merge
    tied = sorted_keys[1:] == sorted_keys[:-1]
    if not tied.any():
        return sorted_keys, sorted_labels
    if (tied & (sorted_labels[1:] != sorted_labels[:-1])).any():
        return _stable_sort_with_ties(keys, labels)
    _restore_zeros(sorted_keys, keys)
    return sorted_keys, sorted_labels


_TIE_SAMPLE = 2048
_SMALL_SORT = 4096


def small_stable_order(keys: FloatArray) -> IntArray:
    """``np.argsort(keys, kind="stable")`` for a few thousand keys, about twice as fast.

    NumPy's unstable argsort is SIMD and about three times faster than its
    stable one; when equal keys turn up, :func:`_input_order_within_runs`
    puts each run of them back into input order.
    """
    if keys.shape[0] <= 16:  # a few adds between reads: one call is cheapest
        return np.argsort(keys, kind="stable")
    order = np.argsort(keys)
    starts = run_starts(keys[order])
    return order if starts.all() else _input_order_within_runs(order, starts)


def id_order(ids: IntArray) -> IntArray:
    """``np.argsort(ids, kind="stable")`` for non-negative integer ids (group or bucket
    numbers), several times faster.

    NumPy sorts 8- and 16-bit integers stably by radix sort in linear time, but wider ones
    by a scalar merge sort. Ids below 2**16 are sorted as ``uint16`` (or ``uint8``); ids
    below 2**32 by two such passes, the low half first (a least significant digit radix
    sort: each pass is stable, so the second keeps the first's order among equal high
    halves). Wider or negative ids take NumPy's stable argsort.

    >>> id_order(np.array([70000, 3, 70000, 3, 0])).tolist()
    [4, 1, 3, 0, 2]

    Complexity: O(n) below 2**32.
    """
    if ids.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    lo, hi = int(ids.min()), int(ids.max())
    if lo < 0 or hi >= 1 << 32:
        return np.argsort(ids, kind="stable")
    if hi < 1 << 16:
        return np.argsort(ids.astype(np.uint8 if hi < 1 << 8 else np.uint16), kind="stable")
    order = np.argsort(ids.astype(np.uint16), kind="stable")  # the low 16 bits
    high = (ids >> 16).astype(np.uint16)[order]
    return order[np.argsort(high, kind="stable")]


def _has_ties(keys: FloatArray) -> bool:
    ranked = np.sort(keys)
    return bool((ranked[1:] == ranked[:-1]).any())


def _restore_zeros(sorted_keys: FloatArray, keys: FloatArray) -> None:
    """Put the zeros of ``keys`` in input order into their tie block of ``sorted_keys``.

    SIMD sorts may swap or even duplicate ``-0.0`` and ``0.0`` (min and max
    cannot tell them apart); every other equal key has equal bits.
    """
    lo, hi = sorted_keys.searchsorted(0.0, side="left"), sorted_keys.searchsorted(0.0, side="right")
    if hi > lo:
        sorted_keys[lo:hi] = np.compress(keys == 0.0, keys)


def _stable_sort_with_ties(keys: FloatArray, labels: BoolArray) -> tuple[FloatArray, BoolArray]:
    """:func:`sort_cases` for keys where input order decides between tied cases.

    With at most 256 distinct keys (rounded scores, ratings) every case gets
    the number of its key as ``uint8`` from a small hash table, and NumPy
    argsorts those stably by radix sort in linear time. Otherwise an unstable
    argsort ranks the cases and sorting ``run * n + index`` as int64 (SIMD)
    puts each run of equal keys back into input order. Both are about twice
    as fast as the stable argsort of the keys.

    Complexity: O(n log n); O(n) with at most 256 distinct keys.
    """
    n = keys.shape[0]
    if n * (n + 1) >= 2**63:  # run * n + index would overflow
        order = np.argsort(keys, kind="stable")
        return keys[order], labels[order]
    sorted_keys = np.sort(keys)
    new_run = run_starts(sorted_keys)
    starts = np.flatnonzero(new_run)
    key_numbers = _small_key_numbers(sorted_keys[starts], keys) if starts.shape[0] <= 256 else None
    if key_numbers is not None:
        order = np.argsort(key_numbers, kind="stable")
    else:
        order = _input_order_within_runs(np.argsort(keys), new_run)
    _restore_zeros(sorted_keys, keys)
    return sorted_keys, labels[order]


# Odd 64-bit constants (splitmix64, xxHash, murmur3) for multiply-shift hashing.
_MULTIPLIERS = (
    0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
    0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x2545F4914F6CDD1D, 0x94D049BB133111EB,
)


def _small_key_numbers(distinct: FloatArray, keys: FloatArray) -> NDArray[np.uint8] | None:
    """Index of each key in ``distinct`` (sorted, at most 256 values), or None.

    Multiply-shift hashing of the key bits (``+ 0.0`` makes ``-0.0`` and
    ``0.0`` one value) into a table of about ``2 u²`` slots is free of
    collisions on the u distinct keys for at least half of all multipliers;
    the first constant that is gives an exact lookup table. If none is, the
    caller argsorts instead.

    Complexity: O(n + u²).
    """
    count = distinct.shape[0]
    bits = 2 * (count - 1).bit_length() + 1
    shift = np.uint64(64 - bits)
    distinct_bits = (distinct + 0.0).view(np.uint64)
    for constant in _MULTIPLIERS:
        multiplier = np.uint64(constant)
        slots = (distinct_bits * multiplier) >> shift
        if np.unique(slots).shape[0] == count:
            table = np.zeros(1 << bits, dtype=np.uint8)
            table[slots.view(np.int64)] = np.arange(count, dtype=np.uint8)
            hashed = (keys + 0.0).view(np.uint64)
            hashed *= multiplier  # wraps modulo 2**64, as multiply-shift wants
            hashed >>= shift
            return np.take(table, hashed.view(np.int64))
    return None
