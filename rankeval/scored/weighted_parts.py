"""Weighted cases spread over many partitions, with the bits of a local weighted evaluator.

A local evaluator adds the weights of its ranking (the canonical order: key, label, weight)
in one order fixed by the positions alone (:func:`rankeval.points.weight_sums`): inside each
block of :data:`~rankeval.points.SUM_BLOCK` positions from the block's first, then the
blocks' totals one after another. An engine cuts the ranking into buckets of keys
(:mod:`rankeval.scored.partitioned`, step 1); a bucket holding the positions ``[offset,
offset + m)`` computes the same additions in three steps:

1. **Shares** (workers): :func:`sum_share` sorts nothing (the bucket's cases come in the
   canonical order) and reports the totals of the blocks it holds whole, and the weights of
   the (at most two) blocks it holds in part.
2. **Starts** (driver): :func:`sum_starts` finishes each shared block by adding its parts'
   weights in bucket order, adds the blocks' totals one after another, and gives every
   bucket the totals before each of its blocks and, when its first block began in an earlier
   bucket, the sum of that block so far.
3. **Points** (workers): :func:`bucket_points` continues the sums with those and keeps the
   operating points of the bucket's tie blocks (a tie block is never split: it is one key).

The driver joins the buckets' points (:func:`assemble`) into one
:class:`WeightedReport`: the local evaluator's weighted reads of those points, bit for bit.
Its memory is the points' (24 bytes a distinct score), as a local weighted evaluator's at a
read; the shares hold O(buckets + cases / SUM_BLOCK) numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from rankeval import formulas
from rankeval.checks import check_beta, check_flag
from rankeval.formulas import TiePolicy
from rankeval.points import (
    SUM_BLOCK,
    BoolArray,
    FloatArray,
    OperatingPoints,
    block_running_sums,
    block_sums,
    tie_block_ends,
)
from rankeval.scored import curves, decisions
from rankeval.scored.readers import RankingReader, summary_of
from rankeval.scored.weighted import unweighted_read

__all__ = ["SumShare", "SumStart", "WeightedReport", "assemble", "bucket_points",
           "evaluate_buckets", "sorted_bucket", "sum_share", "sum_starts", "weighted_roc_auc"]


@dataclass(frozen=True)
class SumShare:
    """What one bucket tells the driver of its weights' sums (step 1): the positions it holds,
    the totals (positives' row 0, negatives' row 1) of the blocks ``complete_first`` on that
    it holds whole, and the weights of each block it holds in part."""

    bucket: int
    offset: int
    cases: int
    complete_first: int
    complete: FloatArray
    portions: tuple[tuple[int, FloatArray], ...]


@dataclass(frozen=True)
class SumStart:
    """What the driver tells one bucket (step 2): the blocks' totals before each block it
    touches (rows: positives, negatives), and the sums of its first block before its first
    position (0.0 when that block starts in it)."""

    before: FloatArray
    entry: tuple[float, float]


def sorted_bucket(scores: FloatArray, labels: BoolArray, weights: FloatArray
                  ) -> tuple[FloatArray, BoolArray, FloatArray]:
    """A bucket's cases of positive weight as ``(keys, labels, weights)`` in the canonical
    order (the weighted store's). Complexity: O(m log m)."""
    from rankeval.scored.weighted import canonical_order

    kept = weights > 0.0
    keys, labels, weights = -scores[kept] + 0.0, labels[kept], weights[kept]
    order = canonical_order(keys, labels, weights)
    return keys[order], labels[order], weights[order]


def _series(labels: BoolArray, weights: FloatArray) -> FloatArray:
    """``(2, n)``: the positives' weights (0 for a negative) and the negatives'."""
    positive = np.where(labels, weights, 0.0)
    return np.stack((positive, np.subtract(weights, positive)))


def sum_share(bucket: int, labels: BoolArray, weights: FloatArray, offset: int) -> SumShare:
    """Step 1 for a bucket whose cases (canonical order, weights > 0) hold the positions
    ``offset`` on. Complexity: O(m)."""
    series = _series(labels, weights)
    end = offset + series.shape[1]
    first = -(-offset // SUM_BLOCK)  # the first block starting in the bucket
    last = end // SUM_BLOCK  # blocks [first, last) lie whole in it
    whole = max(last - first, 0)
    complete = np.zeros((2, whole))
    if whole:
        start = first * SUM_BLOCK - offset
        for row in range(2):
            rows, _ = block_sums(series[row, start : start + whole * SUM_BLOCK])
            complete[row] = rows[:, -1]
    portions = []
    if series.shape[1]:
        for block in sorted({offset // SUM_BLOCK, (end - 1) // SUM_BLOCK}):
            if first <= block < last:
                continue
            low = max(block * SUM_BLOCK, offset) - offset
            high = min((block + 1) * SUM_BLOCK, end) - offset
            portions.append((block, series[:, low:high]))
    return SumShare(bucket, offset, int(series.shape[1]), first, complete, tuple(portions))


def sum_starts(shares: Iterable[SumShare]) -> dict[int, SumStart]:
    """Step 2 (driver): every bucket's :class:`SumStart`, from all the buckets' shares.
    Complexity: O(buckets + cases / SUM_BLOCK + the shared blocks' weights)."""
    ordered = sorted(shares, key=lambda share: share.offset)
    cases = sum(share.cases for share in ordered)
    blocks = -(-cases // SUM_BLOCK)
    totals = np.zeros((2, blocks))
    parts: dict[int, list[tuple[int, FloatArray]]] = {}
    for share in ordered:
        count = share.complete.shape[1]
        totals[:, share.complete_first : share.complete_first + count] = share.complete
        for block, values in share.portions:
            parts.setdefault(block, []).append((share.bucket, values))
    entries: dict[int, tuple[float, float]] = {}
    for block, pieces in parts.items():
        sums = np.cumsum(np.concatenate([values for _, values in pieces], axis=1), axis=1)
        totals[:, block] = sums[:, -1]
        used = 0
        for bucket, values in pieces:
            if used:  # the block began in an earlier bucket
                entries[bucket] = (float(sums[0, used - 1]), float(sums[1, used - 1]))
            used += values.shape[1]
    before = np.zeros((2, blocks))
    np.cumsum(totals[:, :-1], axis=1, out=before[:, 1:])
    starts = {}
    for share in ordered:
        low = share.offset // SUM_BLOCK
        high = -(-(share.offset + share.cases) // SUM_BLOCK)
        starts[share.bucket] = SumStart(before[:, low:high].copy(),
                                        entries.get(share.bucket, (0.0, 0.0)))
    return starts


def bucket_points(keys: FloatArray, labels: BoolArray, weights: FloatArray, offset: int,
                  start: SumStart) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Step 3: ``(tp, fp, scores)`` at the bucket's tie blocks, the sums of weights with the
    local bits (keys, labels, weights in the canonical order). Complexity: O(m)."""
    if not keys.shape[0]:
        empty = np.zeros(0)
        return empty, empty, empty
    series = _series(labels, weights)
    ends = tie_block_ends(keys)
    tp, fp = (block_running_sums(series[row], offset, start.entry[row], start.before[row])[ends]
              for row in range(2))
    return tp, fp, np.negative(keys[ends], dtype=np.float64) + 0.0


def weighted_roc_auc(points: OperatingPoints, pos_added: float, pos_missed: int,
                     neg_added: float, neg_missed: int) -> float:
    """The ROC area of weighted points: the pair count in weights (the doubled area below the
    curve) over ``2 R N``, as the evaluator's pair count (exact for integer weights: the
    repeated cases' bits). The evaluator and :class:`WeightedReport` both read it here."""
    doubled = points.doubled_areas[0]
    return formulas.roc_auc_from_pairs(float(doubled[-1]) if doubled.shape[0] else 0.0,
                                       pos_added, pos_missed, neg_added, neg_missed)


def assemble(pieces: Iterable[tuple[int, tuple[FloatArray, FloatArray, FloatArray]]],
             pos_missed: int = 0, neg_missed: int = 0,
             curve_points: int = 1000) -> WeightedReport:
    """The report from every bucket's points (``(bucket, points)``, in any order)."""
    ordered = [points for _, points in sorted(pieces, key=lambda piece: piece[0])]
    tp, fp, scores = (np.concatenate([points[i] for points in ordered]) if ordered
                      else np.zeros(0) for i in range(3))
    pos_added = float(tp[-1]) if tp.shape[0] else 0.0
    neg_added = float(fp[-1]) if fp.shape[0] else 0.0
    points = OperatingPoints(tp, fp, scores, pos_added + pos_missed, neg_added + neg_missed)
    return WeightedReport(points, pos_added, neg_added, pos_missed, neg_missed, curve_points)


class WeightedReport(decisions.DecisionReads):
    """The weighted reads of a table of weighted cases evaluated by an engine: those of a local
    weighted :class:`~rankeval.ScoredPrecisionRecallEvaluation` fed the same rows (the same
    functions of the same points, bit for bit), read-only.

    It holds the operating points (24 bytes a distinct score), so every decision read is
    here, not only those asked for; the curves come downsampled to ``curve_points`` points
    (the local curve methods' ``max_points``). The reads by rank have no weighted meaning and
    raise; the intervals and the calibration reads need the cases, which it does not hold.
    """

    weighted = True

    def __init__(self, points: OperatingPoints, pos_added: float, neg_added: float,
                 pos_missed: int, neg_missed: int, curve_points: int = 1000) -> None:
        self._all = points
        self._pos_added, self._neg_added = pos_added, neg_added
        self._pos_missed, self._neg_missed = pos_missed, neg_missed
        self._curve_points = curve_points
        self._cut_cache: decisions.Cuts | None = None

    @property
    def ties(self) -> TiePolicy:
        return "grouped"

    # ------------------------------------------------------------------ counts
    def num_cases(self) -> float:
        """The sum of every case's weight (a miss weighs 1)."""
        return self.num_positive_ref() + self.num_negative_ref()

    def num_positive_ref(self) -> float:
        return self._pos_added + self._pos_missed

    def num_negative_ref(self) -> float:
        return self._neg_added + self._neg_missed

    # ------------------------------------------------------------------ values
    def area_under_roc_curve(self) -> float:
        return weighted_roc_auc(self._all, self._pos_added, self._pos_missed, self._neg_added,
                                self._neg_missed)

    def average_precision(self) -> float:
        return self._all.average_precision

    def area_under_pr_curve(self, interpolate: bool = False) -> float:
        return formulas.area_under_curve(curves.pr_curve(self._all,
                                                         check_flag(interpolate, "interpolate")))

    def eleven_point_interpolated_precision(self) -> FloatArray:
        return formulas.eleven_point_interpolated_precision(curves.pr_curve(self._all, True))

    def maximum_f_measure(self, beta: float = 1.0) -> float:
        return formulas.maximum_f_measure(curves.pr_curve(self._all), check_beta(beta))

    def precision_at(self, rank: int) -> float:
        unweighted_read("precision_at")

    def r_precision(self) -> float:
        unweighted_read("r_precision")

    def pr_breakeven_point(self) -> float:
        unweighted_read("pr_breakeven_point")

    def reciprocal_rank(self) -> float:
        unweighted_read("reciprocal_rank")

    # ------------------------------------------------------------------ decisions
    def _points(self) -> OperatingPoints:
        return self._all

    def _cuts(self) -> decisions.Cuts:
        if self._cut_cache is None:
            self._cut_cache = decisions.cuts(self._all)
        return self._cut_cache

    def _decision_points(self, read: str, **arguments: Any) -> OperatingPoints:
        return self._all

    def _decision_cuts(self, read: str, **arguments: Any) -> decisions.Cuts:
        return self._cuts()

    # ------------------------------------------------------------------ curves
    def pr_curve(self, interpolate: bool = False) -> FloatArray:
        flag = check_flag(interpolate, "interpolate")
        if flag:
            return curves.rows_at(curves.pr_curve(self._all, True), self._curve_points)
        return curves.pr_curve(curves.downsampled(self._all, self._curve_points))

    def pr_score_curve(self, interpolate: bool = False) -> FloatArray:
        flag = check_flag(interpolate, "interpolate")
        if flag:
            return curves.rows_at(curves.pr_score_curve(self._all, True), self._curve_points)
        return curves.pr_score_curve(curves.downsampled(self._all, self._curve_points))

    def roc_curve(self) -> FloatArray:
        return curves.roc_curve(curves.downsampled(self._all, self._curve_points))

    def summary(self, precision_at: tuple[int, ...] = (), beta: float = 1.0) -> dict[str, float]:
        """The keys and values of a weighted evaluator's ``summary()`` (no reads by rank)."""
        # cast: its counts are sums of weights (floats), as a weighted evaluator's are
        return summary_of(cast(RankingReader, self), precision_at, beta)

    def read(self, name: str, argument: Any = None) -> Any:
        """The registered scored read ``name``, as the evaluator's ``read``."""
        from rankeval.scored.reads import read_value

        return read_value(self, name, argument)

    def interval(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("a weighted table's intervals resample its cases, which the report "
                         "does not hold: collect_evaluator(weight_col=) brings them to a local "
                         "evaluator, whose interval() is the weighted bootstrap")

    def to_text(self, beta: float = 1.0, digits: int = 4) -> str:
        """:meth:`summary` as text under a line naming the policy and the weights."""
        from rankeval._text import summary_text

        return summary_text("WeightedReport (ties=grouped, weighted cases)",
                            self.summary((), beta), digits)

    def __repr__(self) -> str:
        return (f"WeightedReport(ties='grouped', sum_of_weights={self.num_cases()!r}, "
                f"points={self._all.tp.shape[0]})")


def evaluate_buckets(scores: FloatArray, labels: BoolArray, weights: FloatArray,
                     bounds: FloatArray, pos_missed: int = 0, neg_missed: int = 0,
                     curve_points: int = 1000) -> WeightedReport:
    """The three steps on arrays in memory, one bucket at a time (``bounds`` as
    :func:`rankeval.scored.partitioned.range_bounds`'): what an engine runs, in one process.
    Complexity: O(n log n)."""
    from rankeval.scored.partitioned import bucket_ids

    ids = bucket_ids(scores, bounds)
    buckets = []
    offset = 0
    for bucket in range(bounds.shape[0] + 1):
        held = ids == bucket
        keys, held_labels, held_weights = sorted_bucket(scores[held], labels[held],
                                                        weights[held])
        buckets.append((bucket, keys, held_labels, held_weights, offset))
        offset += keys.shape[0]
    starts = sum_starts(sum_share(bucket, held_labels, held_weights, start)
                        for bucket, _, held_labels, held_weights, start in buckets)
    return assemble(((bucket, bucket_points(keys, held_labels, held_weights, start,
                                            starts[bucket]))
                     for bucket, keys, held_labels, held_weights, start in buckets),
                    pos_missed, neg_missed, curve_points)
