"""Precision-recall, score and ROC curves: pure functions of the operating points.

Each function returns a read-only ``float64`` array. The rules (limit
points, skipped rows, the two interpolation rules) are LingPipe 4.1.0's, as
written down in ``docs/semantics.md#curves``; they apply unchanged
to the per-block operating points of the ``"grouped"`` tie policy.

Running example of the spec (10 cases and one miss), used by the doctests:

>>> from rankeval.points import operating_points
>>> scores = np.array([-1.21, -1.27, -1.39, -1.47, -1.6, -1.65, -1.79, -1.8, -2.01, -3.7])
>>> labels = np.array([0, 1, 0, 1, 1, 0, 0, 0, 1, 0], dtype=bool)
>>> pts = operating_points(-scores, labels, num_pos=5, num_neg=6, ties="insertion")
>>> pr_curve(pts, interpolate=True).round(4).tolist()
[[0.0, 1.0], [0.2, 0.6], [0.4, 0.6], [0.6, 0.6], [0.8, 0.4444], [1.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

from rankeval.points import FloatArray, IntArray, OperatingPoints

__all__ = ["curve_ranks", "downsampled", "holding", "pr_curve", "pr_score_curve", "roc_curve",
           "rows_at"]


def _frozen(array: FloatArray) -> FloatArray:
    array.flags.writeable = False
    return array


def _columns(rows: int, width: int) -> FloatArray:
    # Column-major, so each column is one contiguous block: filling a column
    # and the area, F-measure and eleven-point passes over one run at memory
    # speed. The values and the (rows, width) shape are what callers see.
    return np.empty((rows, width), dtype=np.float64, order="F")


def _take(values: FloatArray, indices: IntArray, out: FloatArray) -> None:
    # mode="clip" writes straight into ``out``; the default mode buffers the
    # whole result first so that a bad index cannot leave ``out`` half done.
    # The indices here come from np.flatnonzero and are always in range.
    np.take(values, indices, out=out, mode="clip")


def pr_curve(points: OperatingPoints, interpolate: bool = False) -> FloatArray:
    """Precision-recall curve as rows ``[recall, precision]``.

    Uninterpolated: the limit point ``[0, 1]``, one row per operating point
    except those with recall = precision = 0 (cases ranked above the first
    positive), then the limit point ``[1, 0]``. Interpolated: LingPipe's rule,
    precision = maximum precision at equal or higher recall, keeping the first
    row of each run of equal recall (so ``[1, 0]`` is absent when the ranking
    reaches recall 1).

    Undefined when R = 0: recalls are NaN and every point is kept.

    Complexity: O(m) for m operating points.
    """
    if interpolate:
        return _interpolated_pr(points)
    # Recall and precision are 0 exactly while tp is 0, which (tp never
    # decreasing) is a prefix of the points; with R = 0 recall is NaN and
    # nothing is skipped.
    first = int(np.searchsorted(points.tp, 0, side="right")) if points.num_pos else 0
    rows = _columns(points.size - first + 2, 2)
    rows[0] = (0.0, 1.0)
    rows[1:-1, 0] = points.recall[first:]
    rows[1:-1, 1] = points.precision[first:]
    rows[-1] = (1.0, 0.0)
    return _frozen(rows)


def _interpolated_pr(points: OperatingPoints) -> FloatArray:
    """LingPipe's INTERP rule (``docs/semantics.md#curves``) applied to the uninterpolated PR curve.

    (a) Each precision becomes the maximum precision at that row or any later
    one, floored at 0 (precision is never negative, so the floor changes
    nothing). (b) Output ``[0, 1]`` followed by the first row of each later
    run of equal recall: the points of :attr:`OperatingPoints.recall_steps`
    (the skipped points have recall 0 and would join the first row's run),
    then the limit point ``[1, 0]`` unless the last point already has recall
    1.0 (its run absorbs it).
    """
    steps = points.recall_steps
    k = steps.shape[0]
    tail = points.size == 0 or points.recall[-1] != 1.0
    rows = _columns(k + 1 + int(tail), 2)
    rows[0] = (0.0, 1.0)
    _take(points.recall, steps, rows[1 : k + 1, 0])
    rows[1 : k + 1, 1] = points.interpolated_precision
    if tail:
        rows[-1] = (1.0, 0.0)
    return _frozen(rows)


def pr_score_curve(points: OperatingPoints, interpolate: bool = False) -> FloatArray:
    """Precision-recall curve with scores, rows ``[recall, precision, score]``.

    Uninterpolated: one row per operating point, no limit points, nothing
    skipped. Interpolated: the INTERP rule of :func:`pr_curve`, starting with
    the row ``[0, 1, +inf]`` (the threshold above every score: nothing
    returned; LingPipe's row here has only two elements), then the first row
    of each later run of equal recall with its interpolated precision.

    Complexity: O(m).
    """
    if not interpolate:
        return points.score_table
    steps = points.recall_steps
    rows = _columns(steps.shape[0] + 1, 3)
    rows[0] = (0.0, 1.0, np.inf)
    _take(points.recall, steps, rows[1:, 0])
    rows[1:, 1] = points.interpolated_precision
    _take(points.scores, steps, rows[1:, 2])
    return _frozen(rows)


def roc_curve(points: OperatingPoints, interpolate: bool = False) -> FloatArray:
    """ROC curve as rows ``[1 - specificity, sensitivity]``.

    Uninterpolated: ``[0, 0]``, one row per operating point, then ``[1, 1]``;
    x is computed as ``1 - TN/N`` (LingPipe), y as ``TP/R``. Negative misses
    rank below every case; positive misses only show in the final ``[1, 1]``.
    Interpolated: keep a row iff the next row has a different x (the last row
    always), i.e. the highest point of each vertical run.

    Undefined when N = 0 (x is NaN) or R = 0 (y is NaN).

    Complexity: O(m).
    """
    table = points.roc_table
    if not interpolate:
        return table
    x, y = table[:, 0], table[:, 1]
    keep = np.empty(x.shape[0], dtype=np.bool_)
    np.not_equal(x[:-1], x[1:], out=keep[:-1])  # NaN differs from everything
    keep[-1] = True
    kept = np.flatnonzero(keep)
    rows = _columns(kept.shape[0], 2)
    _take(x, kept, rows[:, 0])
    _take(y, kept, rows[:, 1])
    return _frozen(rows)


def curve_ranks(cases: int, max_points: int) -> IntArray:
    """The ranks a downsampled curve keeps: every rank if ``cases <= max_points``, else
    ``max_points`` ranks spaced evenly from 1 to ``cases`` (both kept), in exact integers.

    >>> curve_ranks(10, 4).tolist(), curve_ranks(3, 4).tolist()
    ([1, 4, 7, 10], [1, 2, 3])
    """
    if cases <= max_points:
        return np.arange(1, cases + 1, dtype=np.int64)
    # 1 + i (n - 1) // (k - 1) without overflow: (n - 1) = q (k - 1) + r.
    q, r = divmod(cases - 1, max_points - 1)
    i = np.arange(max_points, dtype=np.int64)
    return 1 + i * q + (i * r) // (max_points - 1)


def downsampled(points: OperatingPoints, max_points: int) -> OperatingPoints:
    """The operating points holding the :func:`curve_ranks` of the ranked cases, once each.

    A curve of these points keeps its first and last rows; because both coordinates of the
    PR recall and of the ROC curve never decrease along the points, every dropped row lies
    inside the box spanned by the two kept rows around it.

    Complexity: O(max_points log m).
    """
    cases = int(points.tp[-1] + points.fp[-1]) if points.size else 0
    return holding(points, curve_ranks(cases, max_points))


def rows_at(curve: FloatArray, max_points: int) -> FloatArray:
    """An interpolated curve downsampled: its rows at :func:`curve_ranks` of its length
    (first and last rows kept), for curves whose rows are not operating points."""
    out = np.asfortranarray(curve[curve_ranks(curve.shape[0], max_points) - 1])
    return _frozen(out)


def holding(points: OperatingPoints, ranks: IntArray) -> OperatingPoints:
    """The points holding each of the sorted 1-based case ``ranks``, once each. O(k log m)."""
    held = np.unique(np.searchsorted(points.tp + points.fp, ranks, side="left"))
    return OperatingPoints(points.tp[held], points.fp[held], points.scores[held],
                           points.num_pos, points.num_neg)


def __getattr__(name: str) -> object:
    """``summary_of`` moved to :mod:`rankeval.scored.readers` (typed by its Protocol)."""
    if name == "summary_of":
        from rankeval.scored.readers import summary_of

        return summary_of
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
