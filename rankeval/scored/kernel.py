"""The ranking kernel: a sorted ranking becomes cumulative true/false positive counts.

Every curve and summary value in rankeval is a pure function of the
:class:`OperatingPoints` built here, for the single-query evaluator and the
multi-query one alike. Nothing else in the package decides what an operating
point is.

A ranking is held as *keys* (``-score``, ascending, so the best case comes
first) and boolean *labels*, with ties already in the order the tie policy
wants (insertion order for ``"insertion"``; any order for ``"grouped"``, which
only looks at whole tie blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from rankeval import formulas
from rankeval.formulas import TiePolicy

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
_Scalar = TypeVar("_Scalar", bound=np.generic)


@dataclass(frozen=True)
class OperatingPoints:
    """Cumulative counts after each operating point of a ranking.

    With ``ties="insertion"`` every ranked case is an operating point; with
    ``ties="grouped"`` every block of equal scores is one (its last row).
    Along the points ``tp`` and ``fp`` never decrease and ``tp + fp`` grows by
    at least one case per point; the derived arrays below rely on that.

    The per-point values of ``docs/semantics.md#operating-points`` are computed on first use, once,
    straight into the two uninterpolated curves that hold them
    (:attr:`score_table`, :attr:`roc_table`); :attr:`recall`,
    :attr:`precision` and :attr:`one_minus_specificity` are views of their
    columns. Like the counts, all of them are read-only.

    Attributes
    ----------
    tp, fp : ndarray of int64
        True and false positives among the cases ranked at or above the point.
    scores : ndarray of float64
        The score at the point.
    num_pos : int
        ``R``: positive reference cases, misses included.
    num_neg : int
        ``N``: negative reference cases, negative misses included.
    """

    tp: IntArray
    fp: IntArray
    scores: FloatArray
    num_pos: int
    num_neg: int

    @property
    def size(self) -> int:
        """Number of operating points."""
        return int(self.tp.shape[0])

    @cached_property
    def score_table(self) -> FloatArray:
        """Rows ``[recall, precision, score]``, one per point (column-major).

        Recall is ``tp / R`` (NaN when R = 0), precision ``tp / (tp + fp)``
        (never 0/0): LingPipe's uninterpolated score curve. Complexity: O(m), once.
        """
        table = np.empty((self.size, 3), dtype=np.float64, order="F")
        recall, precision = table[:, 0], table[:, 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(self.tp, float(self.num_pos), out=recall)
        # The int64 sum, then tp / sum in double: the bits of tp / (tp + fp)
        # without a temporary array.
        np.add(self.tp, self.fp, out=precision, dtype=np.int64)
        np.divide(self.tp, precision, out=precision)
        table[:, 2] = self.scores
        return _frozen(table)

    @cached_property
    def roc_table(self) -> FloatArray:
        """Rows ``[1 - specificity, sensitivity]``: ``[0, 0]``, one per point, ``[1, 1]``.

        x is computed as ``1 - TN/N`` with ``TN = N - fp`` (LingPipe; NaN when
        N = 0), y as ``tp / R`` (NaN when R = 0). Column-major.
        Complexity: O(m), once.
        """
        table = np.empty((self.size + 2, 2), dtype=np.float64, order="F")
        table[0] = (0.0, 0.0)
        table[-1] = (1.0, 1.0)
        x, y = table[1:-1, 0], table[1:-1, 1]
        np.subtract(self.num_neg, self.fp, out=x, dtype=np.int64)  # TN, in int64 as before
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(x, float(self.num_neg), out=x)
            np.subtract(1.0, x, out=x)
            np.divide(self.tp, float(self.num_pos), out=y)
        return _frozen(table)

    @property
    def recall(self) -> FloatArray:
        """``tp / R`` at each point; NaN when R = 0. A view of :attr:`score_table`."""
        return self.score_table[:, 0]

    @property
    def precision(self) -> FloatArray:
        """``tp / (tp + fp)`` at each point. A view of :attr:`score_table`."""
        return self.score_table[:, 1]

    @property
    def one_minus_specificity(self) -> FloatArray:
        """The ROC x at each point. A view of :attr:`roc_table`."""
        return self.roc_table[1:-1, 0]

    @cached_property
    def recall_steps(self) -> IntArray:
        """Points whose recall differs from the previous point's (0.0 before the first).

        These start the runs of equal recall that LingPipe's interpolation
        keeps; NaN recalls (R = 0) never equal anything, so each is a step.
        Complexity: O(m), once.
        """
        recall = self.recall
        changed = np.empty(recall.shape[0], dtype=np.bool_)
        np.not_equal(recall[:1], 0.0, out=changed[:1])
        np.not_equal(recall[1:], recall[:-1], out=changed[1:])
        return _frozen(np.flatnonzero(changed))

    @cached_property
    def interpolated_precision(self) -> FloatArray:
        """At each of :attr:`recall_steps`, the highest precision at that point or any later one.

        Inside a run of equal recall ``tp`` is fixed while ``tp + fp`` grows,
        so the run's first point has its highest precision: the maximum over
        the steps alone equals the maximum over all points, bit for bit.
        Complexity: O(m), once.
        """
        best = formulas.best_precision_from(self.precision[self.recall_steps])
        return _frozen(np.ascontiguousarray(best))

    @cached_property
    def average_precision(self) -> float:
        """:func:`rankeval.formulas.average_precision` of these points, the same bits, faster.

        Only the points where recall (so tp) changes add a nonzero term, so the formula runs
        over :attr:`recall_steps` alone.

        >>> labels = np.array([0, 1, 0, 1, 1, 0, 0, 0, 1, 0], dtype=bool)
        >>> operating_points(np.arange(10.0), labels, 5, 6, "insertion").average_precision
        0.40888888888888886

        Undefined when R = 0 (NaN). Complexity: O(m) once per points, then O(s) for s steps.
        """
        steps = self.recall_steps
        return float(formulas.average_precision(self.tp[steps], self.fp[steps], self.num_pos))


def _frozen(array: NDArray[_Scalar]) -> NDArray[_Scalar]:
    array.flags.writeable = False
    return array


def tie_block_ends(keys: FloatArray) -> IntArray:
    """Index of the last row of every block of equal keys in a sorted array.

    ``-0.0`` and ``0.0`` tie, as do equal infinities.

    >>> tie_block_ends(np.array([-3.0, -3.0, -1.0, 0.0, -0.0]))
    array([1, 2, 4])

    Complexity: O(n).
    """
    n = keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.flatnonzero(keys[1:] != keys[:-1])
    return np.append(ends, n - 1).astype(np.int64, copy=False)


def run_starts(sorted_keys: FloatArray) -> BoolArray:
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


def operating_points(
    keys: FloatArray,
    labels: BoolArray,
    num_pos: int,
    num_neg: int,
    ties: TiePolicy,
) -> OperatingPoints:
    """Build the operating points of a sorted ranking.

    Parameters
    ----------
    keys : ndarray of float64
        ``-score`` of each ranked case, ascending (best first).
    labels : ndarray of bool
        Whether each ranked case is a positive, aligned with ``keys``.
    num_pos, num_neg : int
        Reference counts including misses.
    ties : {"insertion", "grouped"}
        ``"insertion"``: one point per case. ``"grouped"``: one per tie block.

    >>> pts = operating_points(np.array([-2.0, -1.0, -1.0]), np.array([True, False, True]),
    ...                        2, 1, "grouped")
    >>> pts.tp.tolist(), pts.fp.tolist(), pts.scores.tolist()
    ([1, 2], [0, 1], [2.0, 1.0])

    Complexity: O(n).
    """
    n = keys.shape[0]
    tp = np.cumsum(labels, dtype=np.int64)
    # Without ties, every block is one case and both policies agree.
    if ties == "grouped" and n and (keys[1:] == keys[:-1]).any():
        ends = tie_block_ends(keys)
        tp = tp[ends]
        fp = (ends + 1) - tp
        scores = np.negative(keys[ends], dtype=np.float64)  # float32 keys too
    else:
        fp = np.arange(1, n + 1, dtype=np.int64)
        fp -= tp
        scores = np.negative(keys, dtype=np.float64)
    if ties == "grouped":
        # A block may hold -0.0 and 0.0; which one comes last depends on arrival order,
        # which the grouped policy ignores: its zero scores are all 0.0.
        scores += 0.0
    return OperatingPoints(tp, fp, scores, int(num_pos), int(num_neg))
