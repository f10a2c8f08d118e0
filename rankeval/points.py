"""The one operating-points contract: a ranking becomes cumulative true/false positives.

Every reader builds its operating points here: the single-ranking evaluator
(:mod:`rankeval.scored.evaluation`), the many-query batches
(:class:`rankeval.ranking.trec_sort.QueryBatch`) and the partitioned report of the engines
(:mod:`rankeval.scored.partitioned`) all call :func:`confusion_at_thresholds`, as
scikit-learn's curve functions all start from one ``confusion_matrix_at_thresholds``; every
curve and summary value is then a pure function of the :class:`OperatingPoints`.

A ranking is held best first: for one ranking as *keys* (``-score``, ascending) and boolean
*labels*, with ties already in the order the tie policy wants (insertion order for
``"insertion"``; any order for ``"grouped"``, which only looks at whole tie blocks). An
operating point is a threshold between two blocks of the ranking: after every case
(``"insertion"``, trec_eval's ranks) or after every block of equal scores (``"grouped"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from rankeval import formulas
from rankeval.formulas import TiePolicy

__all__ = [
    "OperatingPoints",
    "confusion_at_thresholds",
    "doubled_areas",
    "operating_points",
    "recall_steps",
    "tie_block_ends",
    "weight_sums",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
#: Counts along the operating points: int64, or float64 sums of case weights.
CountArray = NDArray[Any]
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
    tp, fp : ndarray of int64 (float64: weighted)
        True and false positives among the cases ranked at or above the point; for weighted
        cases, the sums of their weights.
    scores : ndarray of float64
        The score at the point.
    num_pos : int (float: weighted)
        ``R``: positive reference cases, misses included.
    num_neg : int (float: weighted)
        ``N``: negative reference cases, negative misses included.
    """

    tp: CountArray
    fp: CountArray
    scores: FloatArray
    num_pos: Any
    num_neg: Any

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
        np.add(self.tp, self.fp, out=precision, dtype=self.tp.dtype)
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
        np.subtract(self.num_neg, self.fp, out=x, dtype=self.fp.dtype)  # TN, in int64 as before
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(x, float(self.num_neg), out=x)
            np.subtract(1.0, x, out=x)
            np.divide(self.tp, float(self.num_pos), out=y)
        return _frozen(table)

    @cached_property
    def doubled_areas(self) -> tuple[NDArray[Any], NDArray[Any]]:
        """Twice the ROC area below the curve (``sum dfp (tp + tp_before)``) and left of it
        (``sum dtp (fp + fp_before)``) from ``[0, 0]`` to each point, in counts: exact
        integers (the areas in rates are these over ``2 R N``), so sums of them are the same
        in any grouping. See :func:`doubled_areas`. Complexity: O(m), once."""
        return doubled_areas(self.tp, self.fp, wide=self.tp.dtype == np.int64
                             and 2 * self.num_pos * self.num_neg >= 2**63)

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
        return _frozen(recall_steps(self.recall))

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


def confusion_at_thresholds(
    positives: NDArray[Any],
    negatives: NDArray[Any] | None = None,
    *,
    ends: IntArray | None = None,
    above: tuple[int, int] = (0, 0),
) -> tuple[CountArray, CountArray]:
    """True and false positives at or above each threshold of a ranking (best first).

    Parameters
    ----------
    positives : ndarray of bool, int or float, shape (..., n)
        Along the last axis, the ranking's rows: a case's label (bool), or the number of
        positives in a row that stands for several cases (float64: their sum of weights).
    negatives : ndarray of int or float, optional
        The negatives of each row, when a row stands for several cases; None when each row is
        one case (its negatives are ``1 - positives``).
    ends : ndarray of int64, optional
        The last row of each threshold's block (one ranking, 1-D): ties grouped. None: a
        threshold after every row.
    above : (tp, fp)
        Positives and negatives ranked above the first row (a partition of a longer ranking).

    Returns
    -------
    tp, fp : ndarray of int64 (float64 for weights)
        Cumulative counts at each threshold, shaped as ``positives`` (or ``(len(ends),)``).

    >>> tp, fp = confusion_at_thresholds(np.array([True, False, True]))
    >>> tp.tolist(), fp.tolist()
    ([1, 1, 2], [0, 1, 1])
    >>> tp, fp = confusion_at_thresholds(np.array([[0, 1], [1, 1]], dtype=bool))
    >>> tp.tolist(), fp.tolist()
    ([[0, 1], [1, 2]], [[1, 1], [0, 0]])
    >>> tp, fp = confusion_at_thresholds(np.array([2, 0]), np.array([1, 3]), above=(5, 7))
    >>> tp.tolist(), fp.tolist()
    ([7, 7], [8, 11])

    Complexity: O(n).
    """
    tp0, fp0 = above
    # Counts in int64; sums of weights (a float64 row of weighted cases) in float64.
    dtype = formulas.count_dtype(positives)
    tp: CountArray = np.cumsum(positives, axis=-1, dtype=dtype)
    if negatives is not None:
        fp = np.cumsum(negatives, axis=-1, dtype=dtype)
    elif ends is not None:
        tp = tp[ends]
        fp = (ends + 1) - tp
    else:
        # Each row one case: the rank less the positives (the padding of a batch of rankings
        # counts as negatives, as trec_eval's P does).
        fp = np.arange(1, tp.shape[-1] + 1, dtype=np.int64)
        fp = fp - tp
    if tp0:
        tp += tp0
    if fp0:
        fp += fp0
    return tp, fp


def doubled_areas(tp: IntArray, fp: IntArray, above: tuple[int, int] = (0, 0),
                  wide: bool = False) -> tuple[NDArray[Any], NDArray[Any]]:
    """The cumulative doubled ROC areas below and left of the curve at each point, from the
    point ``above`` (``(tp, fp)`` before the first; the areas start at 0 there): int64, or
    Python ints (``wide``) when ``2 R N`` reaches 2^63.

    >>> below, left = doubled_areas(np.array([1, 1, 2]), np.array([0, 1, 2]))
    >>> below.tolist(), left.tolist()  # R = N = 2: the ROC area is 5 / (2 R N) = 5/8
    ([0, 2, 5], [0, 0, 3])
    """
    dtype: Any = object if wide else formulas.count_dtype(tp)
    tp_, fp_ = tp.astype(dtype, copy=False), fp.astype(dtype, copy=False)
    tp_before = np.concatenate((np.array([above[0]], dtype=dtype), tp_[:-1]))
    fp_before = np.concatenate((np.array([above[1]], dtype=dtype), fp_[:-1]))
    below = np.subtract(fp_, fp_before)
    below *= tp_ + tp_before
    np.cumsum(below, out=below)
    left = np.subtract(tp_, tp_before)
    left *= fp_ + fp_before
    np.cumsum(left, out=left)
    return _frozen(below), _frozen(left)


def recall_steps(recall: FloatArray, previous: float = 0.0) -> IntArray:
    """Points whose recall differs from the previous point's (``previous`` before the first:
    0.0 at the top of the ranking, the last recall of the partition above otherwise).

    These start the runs of equal recall that LingPipe's interpolation keeps; NaN recalls
    (R = 0) never equal anything, so each is a step.

    >>> recall_steps(np.array([0.0, 0.5, 0.5, 1.0])).tolist()
    [1, 3]

    Complexity: O(m).
    """
    changed = np.empty(recall.shape[0], dtype=np.bool_)
    np.not_equal(recall[:1], previous, out=changed[:1])
    np.not_equal(recall[1:], recall[:-1], out=changed[1:])
    return np.flatnonzero(changed)


#: Positions of the canonical order one block of a running sum of weights adds from its first
#: (:func:`block_sums`): the order of the additions depends on the global positions alone.
SUM_BLOCK = 4096


def block_sums(values: FloatArray, offset: int = 0, entry: float = 0.0
               ) -> tuple[NDArray[np.float64], int]:
    """The running sums of ``values`` (the positions ``offset`` on of a ranking) inside each
    block of :data:`SUM_BLOCK` positions, from the block's first position: rows of the
    blocks touched, summed along each row in order (``np.cumsum``); ``entry`` is the sum of
    the block's positions before ``offset`` (0.0 at a block's start). Returns the rows and
    the column of ``values[0]`` in the first row; padding adds zeros (which change no sum).

    >>> rows, first = block_sums(np.array([1.0, 2.0]), offset=SUM_BLOCK - 1, entry=0.5)
    >>> rows.shape, first, float(rows[0, -1]), float(rows[1, 0])
    ((2, 4096), 4095, 1.5, 2.0)
    """
    first = offset % SUM_BLOCK
    count = first + values.shape[0]
    rows = -(-count // SUM_BLOCK)
    grid = np.zeros(rows * SUM_BLOCK)
    if first:
        grid[first - 1] = entry
    grid[first:count] = values
    grid = grid.reshape(rows, SUM_BLOCK)
    np.cumsum(grid, axis=1, out=grid)
    return grid, first


def block_running_sums(values: FloatArray, offset: int = 0, entry: float = 0.0,
                       before: FloatArray | None = None) -> FloatArray:
    """The running sums of a ranking's weights at the positions ``offset`` on, in the one
    order :func:`weight_sums` defines: a position's sum is ``before[block] + within``, the
    blocks' totals before its block (added one block after another) plus the sum inside its
    block (:func:`block_sums`). ``before`` holds that total for each block the values touch;
    None: the values are a whole ranking (``offset`` 0), which gives its own.
    Complexity: O(n).
    """
    grid, first = block_sums(values, offset, entry)
    if before is None:
        before = np.zeros(grid.shape[0])
        np.cumsum(grid[:-1, -1], out=before[1:])
    grid += before[:, None]
    return grid.ravel()[first : first + values.shape[0]]


def weight_sums(labels: BoolArray, weights: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The running sums of the positives' and of the negatives' weights along a ranking.

    Each is added in one order fixed by the positions alone (:func:`block_running_sums`):
    inside each block of :data:`SUM_BLOCK` positions from its first, and the blocks' totals
    one after another. So a ranking gives the same bits however its cases are split between
    partitions (an engine's buckets compute the blocks they hold and the driver the totals),
    in any arrival order (the weighted store keeps one canonical order); integer weights give
    the exact counts.

    >>> positive, negative = weight_sums(np.array([True, False, True]), np.array([2.0, 0.5, 1.0]))
    >>> positive.tolist(), negative.tolist()
    ([2.0, 2.0, 3.0], [0.0, 0.5, 0.5])

    Complexity: O(n).
    """
    positive = np.where(labels, weights, 0.0)
    negative = np.subtract(weights, positive)  # exact: one of the two is 0
    return block_running_sums(positive), block_running_sums(negative)


def operating_points(
    keys: FloatArray,
    labels: BoolArray,
    num_pos: float,
    num_neg: float,
    ties: TiePolicy,
    weights: FloatArray | None = None,
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
    weights : ndarray of float64, optional
        Each case's weight (grouped ties only): ``tp`` and ``fp`` are then float64 sums of
        weights (:func:`weight_sums`) and ``num_pos``, ``num_neg`` the weighted totals.

    >>> pts = operating_points(np.array([-2.0, -1.0, -1.0]), np.array([True, False, True]),
    ...                        2, 1, "grouped")
    >>> pts.tp.tolist(), pts.fp.tolist(), pts.scores.tolist()
    ([1, 2], [0, 1], [2.0, 1.0])

    Complexity: O(n).
    """
    n = keys.shape[0]
    if weights is not None:
        assert ties == "grouped"
        ends = tie_block_ends(keys)
        positive, negative = weight_sums(labels, weights)
        return OperatingPoints(positive[ends], negative[ends],
                               np.negative(keys[ends], dtype=np.float64) + 0.0,
                               num_pos, num_neg)
    # Without ties, every block is one case and both policies agree.
    if ties == "grouped" and n and (keys[1:] == keys[:-1]).any():
        ends = tie_block_ends(keys)
        tp, fp = confusion_at_thresholds(labels, ends=ends)
        scores = np.negative(keys[ends], dtype=np.float64)  # float32 keys too
    else:
        tp, fp = confusion_at_thresholds(labels)
        scores = np.negative(keys, dtype=np.float64)
    if ties == "grouped":
        # A block may hold -0.0 and 0.0; which one comes last depends on arrival order,
        # which the grouped policy ignores: its zero scores are all 0.0.
        scores += 0.0
    return OperatingPoints(tp, fp, scores, int(num_pos), int(num_neg))
