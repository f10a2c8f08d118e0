"""Precision-recall, score and ROC curves: pure functions of the operating points.

Each function returns a new read-only ``float64`` array. The rules (limit
points, skipped rows, the two interpolation rules) are LingPipe 4.1.0's, as
written down in ``spec/scored-evaluation.md`` Part B §4; they apply unchanged
to the per-block operating points of the ``"grouped"`` tie policy.

Running example of the spec (10 cases and one miss), used by the doctests:

>>> from rankeval._ranking import operating_points
>>> scores = np.array([-1.21, -1.27, -1.39, -1.47, -1.6, -1.65, -1.79, -1.8, -2.01, -3.7])
>>> labels = np.array([0, 1, 0, 1, 1, 0, 0, 0, 1, 0], dtype=bool)
>>> pts = operating_points(-scores, labels, num_pos=5, num_neg=6, ties="insertion")
>>> pr_curve(pts, interpolate=True).round(4).tolist()
[[0.0, 1.0], [0.2, 0.6], [0.4, 0.6], [0.6, 0.6], [0.8, 0.4444], [1.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

from rankeval._ranking import FloatArray, OperatingPoints

__all__ = ["pr_curve", "pr_score_curve", "roc_curve"]


def _frozen(array: FloatArray) -> FloatArray:
    array.flags.writeable = False
    return array


def recall_precision(points: OperatingPoints) -> tuple[FloatArray, FloatArray]:
    """Recall ``tp / R`` (NaN when R = 0) and precision ``tp / (tp + fp)`` per point."""
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = points.tp / float(points.num_pos)
    precision = points.tp / (points.tp + points.fp)
    return recall.astype(np.float64, copy=False), precision.astype(np.float64, copy=False)


def _interpolate_pr(rows: FloatArray, first_row: FloatArray) -> FloatArray:
    """LingPipe's INTERP rule on rows whose columns are (recall, precision, ...).

    (a) Each precision becomes the maximum precision at that row or any later
    one, floored at 0. (b) Output ``first_row`` followed by the first row of
    each later run of equal recall; rows with recall 0 join the first row's
    run, and NaN recalls never equal anything, so each NaN row is kept.
    """
    if rows.shape[0] == 0:
        return first_row[None, :].copy()
    precision = np.maximum.accumulate(rows[::-1, 1])[::-1]
    np.maximum(precision, 0.0, out=precision)
    recall = rows[:, 0]
    previous = np.concatenate(([first_row[0]], recall[:-1]))
    keep = recall != previous
    out = np.empty((int(np.count_nonzero(keep)) + 1, rows.shape[1]), dtype=np.float64)
    out[0] = first_row
    out[1:] = rows[keep]
    out[1:, 1] = precision[keep]
    return out


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
    recall, precision = recall_precision(points)
    keep = ~((recall == 0.0) & (precision == 0.0))
    rows = np.empty((int(np.count_nonzero(keep)) + 2, 2), dtype=np.float64)
    rows[0] = (0.0, 1.0)
    rows[1:-1, 0] = recall[keep]
    rows[1:-1, 1] = precision[keep]
    rows[-1] = (1.0, 0.0)
    if interpolate:
        rows = _interpolate_pr(rows, rows[0].copy())
    return _frozen(rows)


def pr_score_curve(points: OperatingPoints, interpolate: bool = False) -> FloatArray:
    """Precision-recall curve with scores, rows ``[recall, precision, score]``.

    Uninterpolated: one row per operating point, no limit points, nothing
    skipped. Interpolated: the INTERP rule of :func:`pr_curve`, starting with
    the row ``[0, 1, +inf]`` (the threshold above every score: nothing
    returned; LingPipe's row here has only two elements).

    Complexity: O(m).
    """
    recall, precision = recall_precision(points)
    rows = np.column_stack((recall, precision, points.scores)).astype(np.float64, copy=False)
    if interpolate:
        rows = _interpolate_pr(rows, np.array([0.0, 1.0, np.inf]))
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
    n_neg = float(points.num_neg)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = 1.0 - (points.num_neg - points.fp) / n_neg
        y = points.tp / float(points.num_pos)
    rows = np.empty((points.size + 2, 2), dtype=np.float64)
    rows[0] = (0.0, 0.0)
    rows[1:-1, 0] = x
    rows[1:-1, 1] = y
    rows[-1] = (1.0, 1.0)
    if interpolate:
        keep = np.append(rows[:-1, 0] != rows[1:, 0], True)
        rows = rows[keep]
    return _frozen(rows)
