"""Exact evaluation of cases spread over many partitions: the core of the engine adapters.

:mod:`rankeval.spark` and :mod:`rankeval.dask` run these pure functions on their
workers and driver; the tests run them on plain NumPy arrays. Every value they
produce has the bits of a local :class:`~rankeval.scored.ScoredPrecisionRecallEvaluation`
fed the same cases, because the driver hands the same kernel, curve and formula
functions the same integers in the same order.

The algorithm, for ``n`` cases in any number of engine partitions:

1. **Bounds** (driver, from a sample): :func:`range_bounds` picks up to ``B - 1``
   keys (``key = -score``). A case goes to *bucket* ``searchsorted(bounds, key)``,
   so bucket ``b`` holds one closed range of keys: no block of tied scores is ever
   split (``-0.0`` and ``0.0`` compare equal, so they share a bucket).
2. **Totals** (workers, then driver): :func:`bucket_totals` counts positives and
   negatives per bucket; :class:`Layout` turns them into prefix offsets (the true
   and false positives ranked above each bucket) and the reference counts R and N.
3. **Parts** (workers, one call per bucket after the engine groups the cases by
   bucket): :func:`bucket_part` sorts the bucket with the kernel's own sort,
   builds its operating points with the kernel's own function and shifts them by
   the offsets, so each point carries its global counts. It returns a small part and
   the bucket's *compressed points*: each point where the true positives grow, the point
   before it, and the bucket's last point. Every ordered sum the evaluator makes
   (average precision, the trapezoid areas of both PR curves) has a zero term everywhere
   else, and its in-order sum skips zero terms, so sums over the compressed points have
   the same terms in the same order. The part holds:

   * the pair count of the ROC area (an integer: each negative's loss to the positives
     above its block, and to half of its own);
   * the maximum F over its points (a maximum is exact in any grouping);
   * precision at the requested ranks and the reciprocal rank, when the rank (or the
     first positive) falls in the bucket, from the same closed forms as the local store;
   * the points holding the ranks of a downsampled curve, and the number and highest
     precision of its recall steps (what the interpolated curve needs from later buckets);
   * the points the decision reads asked for may read
     (:func:`rankeval.scored.decisions.candidates`: the cut each rule or constraint would
     choose in the bucket, the cuts around a bound, the hull's vertices), with the exact
     doubled ROC areas at them for the partial areas.
4. **Report** (driver): :func:`assemble` builds a :class:`PartitionedReport` from the
   parts and then reads the compressed points one bucket at a time, in bucket order,
   continuing each in-order sum (:class:`rankeval.formulas.InOrderSum`). It keeps
   O(buckets + curve points), never O(n); an engine that fetches one bucket at a time
   holds at most one bucket's points.

A bucket may also arrive as counts per score (:func:`bucket_part_from_counts`, grouped
ties only): a score on several rows (partial counts from several tasks) adds up.

Only the ``"grouped"`` policy is defined on a table. ``"insertion"`` needs an order:
an ``order`` column ranks tied cases as a local evaluator fed the cases in that order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rankeval import formulas, intervals
from rankeval import points as contract
from rankeval.checks import check_beta, check_int, check_rank
from rankeval.formulas import TiePolicy
from rankeval.intervals import Interval
from rankeval.points import (
    BoolArray,
    FloatArray,
    IntArray,
    OperatingPoints,
    doubled_areas,
    recall_steps,
)
from rankeval.scored import curves, decisions
from rankeval.scored.decisions import Ask
from rankeval.scored.readers import summary_of
from rankeval.scored.sorting import run_starts, sort_cases
from rankeval.scored.uncertainty import ValueReads, interval_of

__all__ = [
    "BucketPart",
    "BucketPoints",
    "Layout",
    "PartitionedReport",
    "Request",
    "assemble",
    "bucket_ids",
    "bucket_part",
    "bucket_part_from_counts",
    "bucket_points",
    "bucket_totals",
    "evaluate_buckets",
    "range_bounds",
    "ranking_buckets",
    "ranking_report",
]


@dataclass(frozen=True)
class Request:
    """What a partitioned evaluation computes beyond the fixed values.

    ``precision_ranks``: the ranks k of precision at k; ``betas``: the β of the
    maximum F measures; ``curve_points``: the most rows of the downsampled
    uninterpolated curves (see :func:`rankeval.scored.curves.curve_ranks`);
    ``decisions``: the decision reads beyond the KS statistic (the best thresholds, the
    constrained points, partial areas, lift, the gains table, the hull; read names,
    ``(name, {argument: value})`` pairs or :func:`rankeval.scored.decisions.ask`'s).
    """

    precision_ranks: tuple[int, ...] = formulas.PRECISION_AT_RANKS
    betas: tuple[float, ...] = (1.0,)
    curve_points: int = 1000
    decisions: tuple[Ask, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "precision_ranks", tuple(check_rank(k) for k in
                                                          self.precision_ranks))
        object.__setattr__(self, "betas", tuple(check_beta(b) for b in self.betas))
        object.__setattr__(self, "decisions", decisions.asks_of(self.decisions))
        check_int(self.curve_points, "curve_points", minimum=2)


def range_bounds(sample_scores: FloatArray, buckets: int) -> FloatArray:
    """Up to ``buckets - 1`` increasing keys that split a sample's distinct keys evenly.

    >>> range_bounds(np.array([0.9, 0.1, 0.5, 0.5, 0.3]), 2).tolist()
    [-0.3]

    Complexity: O(s log s) for a sample of s scores.
    """
    check_int(buckets, "buckets", minimum=1)
    keys = np.unique(-np.asarray(sample_scores, dtype=np.float64) + 0.0)  # -0.0 is 0.0
    if buckets == 1 or keys.shape[0] < 2:
        return np.zeros(0, dtype=np.float64)
    picks = (np.arange(1, buckets, dtype=np.int64) * keys.shape[0]) // buckets
    # A bound equal to the largest key would leave the last bucket empty.
    return np.unique(keys[picks[picks < keys.shape[0] - 1]])


def bucket_ids(scores: FloatArray, bounds: FloatArray) -> IntArray:
    """The bucket of each score: how many bounds lie below its key. O(n log B)."""
    return np.searchsorted(bounds, -scores, side="left").astype(np.int64, copy=False)


def bucket_totals(buckets: IntArray, labels: BoolArray, count: int) -> IntArray:
    """``(count, 2)`` int64 array: negatives and positives in each bucket. O(n)."""
    return np.bincount(buckets * 2 + labels, minlength=2 * count).reshape(count, 2)


@dataclass(frozen=True)
class Layout:
    """Where every bucket sits in the global ranking: the driver's prefix sums of the totals.

    ``totals[b] = (negatives, positives)`` of bucket b; misses count in R and N only.
    """

    totals: IntArray
    ties: TiePolicy
    pos_missed: int = 0
    neg_missed: int = 0
    request: Request = field(default_factory=Request)

    @property
    def buckets(self) -> int:
        return int(self.totals.shape[0])

    @property
    def pos_added(self) -> int:
        return int(self.totals[:, 1].sum())

    @property
    def neg_added(self) -> int:
        return int(self.totals[:, 0].sum())

    @property
    def ranked(self) -> int:
        """Cases ranked (misses are not)."""
        return self.pos_added + self.neg_added

    @property
    def num_pos(self) -> int:
        """R: positives ranked and missed."""
        return self.pos_added + self.pos_missed

    @property
    def num_neg(self) -> int:
        """N: negatives ranked and missed."""
        return self.neg_added + self.neg_missed

    def above(self, bucket: int) -> tuple[int, int]:
        """``(fp, tp)``: negatives and positives ranked above every case of ``bucket``."""
        before = self.totals[:bucket].sum(axis=0)
        return int(before[0]), int(before[1])

    def first_positive_bucket(self) -> int:
        """The bucket holding the best-ranked positive (-1 if there is none)."""
        holding = np.flatnonzero(self.totals[:, 1])
        return int(holding[0]) if holding.shape[0] else -1

    def precision_ranks(self) -> tuple[int, ...]:
        """The requested ranks, and R for the R-precision."""
        return (*self.request.precision_ranks, self.num_pos)

    def curve_ranks(self) -> IntArray:
        return curves.curve_ranks(self.ranked, self.request.curve_points)


@dataclass(frozen=True)
class BucketPoints:
    """One bucket's compressed operating points, in global counts: the driver reads them one
    bucket at a time, in bucket order, so that it never holds more than one bucket's."""

    bucket: int
    tp: IntArray
    fp: IntArray
    scores: FloatArray


@dataclass(frozen=True)
class BucketPart:
    """One bucket's small share of the report, in global counts (see the module text).

    ``steps`` counts its points where the recall changes, ``max_precision`` is the highest
    precision among them (-inf for none): what the interpolated curve needs from later
    buckets.
    """

    bucket: int
    doubled_pairs: int
    steps: int
    max_precision: float
    max_f: tuple[float, ...]
    precision: dict[int, float]
    reciprocal_rank: float | None
    curve_tp: IntArray
    curve_fp: IntArray
    curve_scores: FloatArray
    placements: intervals.PlacementSums = field(default_factory=intervals.PlacementSums)
    #: The decision reads' candidate points (global counts) and the doubled ROC areas
    #: below and left of the curve at them, from the bucket's start; the bucket's whole
    #: doubled area left of the curve (below it: ``doubled_pairs``).
    chosen: BucketPoints | None = None
    chosen_below: NDArray[Any] = field(default_factory=lambda: np.zeros(0, np.int64))
    chosen_left: NDArray[Any] = field(default_factory=lambda: np.zeros(0, np.int64))
    doubled_left: int = 0


def _sorted_bucket(
    scores: FloatArray, labels: BoolArray, order: NDArray[Any] | None, ties: TiePolicy
) -> tuple[FloatArray, BoolArray]:
    keys = -scores
    if order is None:
        if ties != "grouped":
            raise ValueError('ties="insertion" needs an arrival order (an order column)')
        return sort_cases(keys, labels)
    by_order = np.lexsort((order, keys))
    keys, labels, order = keys[by_order], labels[by_order], order[by_order]
    ambiguous = (keys[1:] == keys[:-1]) & (order[1:] == order[:-1])
    if ambiguous.any():
        repeated = order[1:][ambiguous][0].item()
        raise ValueError(f"tied scores share the order value {repeated!r}: the order column "
                         "must rank every tied case")
    return keys, labels


@dataclass(frozen=True)
class _Blocks:
    """One bucket's operating points in global counts, with the cases of each point's block."""

    points: OperatingPoints
    pos: IntArray
    neg: IntArray


def _blocks(bucket: int, scores: FloatArray, pos: IntArray, neg: IntArray,
            layout: Layout) -> _Blocks:
    fp0, tp0 = layout.above(bucket)
    tp, fp = contract.confusion_at_thresholds(pos, neg, above=(tp0, fp0))
    return _Blocks(OperatingPoints(tp, fp, scores, layout.num_pos, layout.num_neg), pos, neg)


def _case_blocks(bucket: int, scores: FloatArray, labels: BoolArray, layout: Layout,
                 order: NDArray[Any] | None) -> _Blocks:
    """A bucket's cases, sorted: a block per case (insertion) or per distinct score (grouped).

    The scores at the points are those of :func:`~rankeval.points.operating_points`.
    """
    keys, labels = _sorted_bucket(scores, labels, order, layout.ties)
    return _ranked_blocks(bucket, keys, labels, layout)


def _ranked_blocks(bucket: int, keys: NDArray[Any], labels: BoolArray,
                   layout: Layout) -> _Blocks:
    """:func:`_case_blocks` of cases already in rank order (keys ascending, float32 or 64)."""
    if layout.ties == "insertion":
        ones = labels.astype(np.int64)
        return _blocks(bucket, np.negative(keys, dtype=np.float64), ones, 1 - ones, layout)
    starts = np.flatnonzero(run_starts(keys))
    if starts.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _blocks(bucket, np.zeros(0, dtype=np.float64), empty, empty, layout)
    pos = np.add.reduceat(labels, starts, dtype=np.int64)
    size = np.diff(np.append(starts, keys.shape[0]))
    scores = np.negative(keys[starts], dtype=np.float64)
    scores += 0.0  # a block of -0.0 and 0.0 keys scores +0.0 (see the kernel)
    return _blocks(bucket, scores, pos, size - pos, layout)


def _count_blocks(bucket: int, scores: FloatArray, pos: IntArray, neg: IntArray,
                  layout: Layout) -> _Blocks:
    """Rows of ``(score, positives, negatives)``, a score on any number of rows: its block."""
    if layout.ties != "grouped":
        raise ValueError('counts of cases per score have no arrival order: ties="grouped" only')
    kept = (pos + neg) > 0
    keys = -scores[kept]
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(run_starts(keys))
    if starts.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _blocks(bucket, keys, empty, empty, layout)
    return _blocks(bucket, -keys[starts] + 0.0,
                   np.add.reduceat(pos[kept][order].astype(np.int64), starts),
                   np.add.reduceat(neg[kept][order].astype(np.int64), starts), layout)


def bucket_points(bucket: int, scores: FloatArray, labels: BoolArray, layout: Layout,
                  order: NDArray[Any] | None = None) -> OperatingPoints:
    """The operating points of one bucket, in global counts: its rows of the full curves."""
    return _case_blocks(bucket, scores, labels, layout, order).points


def bucket_part(
    bucket: int,
    scores: FloatArray,
    labels: BoolArray,
    layout: Layout,
    order: NDArray[Any] | None = None,
) -> tuple[BucketPart, BucketPoints]:
    """Sort one bucket's cases and compute its share of the report (module text, step 3).

    ``order``, for ``ties="insertion"``, gives each case's arrival position.
    Complexity: O(m log m) for the bucket's m cases.
    """
    return _part(bucket, _case_blocks(bucket, scores, labels, layout, order), layout)


def bucket_part_from_counts(bucket: int, scores: FloatArray, positives: IntArray,
                            negatives: IntArray, layout: Layout
                            ) -> tuple[BucketPart, BucketPoints]:
    """:func:`bucket_part` of cases given as counts per score (grouped ties only).

    A score may appear on several rows (partial counts from several tasks): they add up.
    The part is the one of the cases themselves, bit for bit. Complexity: O(r log r).
    """
    return _part(bucket, _count_blocks(bucket, scores, positives, negatives, layout), layout)


def _part(bucket: int, blocks: _Blocks, layout: Layout) -> tuple[BucketPart, BucketPoints]:
    points, pos, neg = blocks.points, blocks.pos, blocks.neg
    tp, fp = points.tp, points.fp
    fp0, tp0 = layout.above(bucket)
    # Each negative loses to the positives above its block, and to half of its own (doubled).
    pairs = int(np.dot(neg, 2 * tp - pos)) if tp.shape[0] else 0
    # DeLong's sums, in global counts: exact integers, so the buckets' add up to the local ones.
    placements = intervals.placement_sums(pos, neg, tp - pos, layout.neg_added - fp,
                                          layout.neg_missed)

    # Compressed points: where tp grows (the first point compared with tp0),
    # the point before each, and the last.
    grows = np.empty(tp.shape[0], dtype=np.bool_)
    grows[:1] = tp[:1] != tp0
    np.not_equal(tp[1:], tp[:-1], out=grows[1:])
    keep = grows.copy()
    keep[:-1] |= grows[1:]
    keep[-1:] = True
    kept = np.flatnonzero(keep)

    # Maximum F over this bucket's rows of the uninterpolated PR curve (rows
    # with tp = 0 are not on it, unless R = 0).
    rows = curves.pr_curve(points)[1:-1]
    max_f = tuple(formulas.maximum_f_measure(rows, beta) for beta in layout.request.betas)

    ranked = tp + fp
    first = tp0 + fp0  # the global ranks held: (first, last]
    last = int(ranked[-1]) if ranked.shape[0] else first
    precision = {}
    for rank in layout.precision_ranks():
        k = min(rank, layout.ranked)
        if k and first < k <= last:
            i = int(ranked.searchsorted(k, side="left"))
            hits_above, above = int(tp[i] - pos[i]), int(ranked[i] - pos[i] - neg[i])
            if layout.ties == "insertion":
                precision[rank] = formulas.expected_precision_at(int(tp[i]), 0, 0, k, rank)
            else:
                precision[rank] = formulas.expected_precision_at(
                    hits_above, int(pos[i]), int(pos[i] + neg[i]), above, rank)
    reciprocal = None
    if bucket == layout.first_positive_bucket():
        i = int(np.argmax(pos > 0))
        above = int(ranked[i] - pos[i] - neg[i])
        if layout.ties == "insertion":
            reciprocal = float(formulas.reciprocal_of_rank(above + 1))
        else:
            reciprocal = formulas.expected_reciprocal_rank(above, int(pos[i]), int(neg[i]))

    wanted = layout.curve_ranks()
    held = curves.holding(points, wanted[(wanted > first) & (wanted <= last)])
    compressed = OperatingPoints(tp[kept], fp[kept], points.scores[kept], layout.num_pos,
                                 layout.num_neg)
    steps = recall_steps(compressed.recall, _recall_of(tp0, layout.num_pos))
    best = float(compressed.precision[steps].max()) if steps.shape[0] else -math.inf
    # The decision reads' candidates, with the exact doubled areas at them (from the bucket's
    # start, at the counts above it; the partial areas alone read the areas).
    chosen = decisions.candidates(points, layout.request.decisions, layout.ranked)
    chosen_below = chosen_left = np.zeros(chosen.shape[0], dtype=np.int64)
    doubled_left = 0
    if any(ask.kind == "range" for ask in layout.request.decisions):
        below, left = doubled_areas(tp, fp, (tp0, fp0),
                                    wide=2 * layout.num_pos * layout.num_neg >= 2**63)
        chosen_below, chosen_left = below[chosen], left[chosen]
        doubled_left = int(left[-1]) if left.shape[0] else 0
    part = BucketPart(bucket, pairs, int(steps.shape[0]), best, max_f, precision, reciprocal,
                      held.tp, held.fp, held.scores, placements,
                      BucketPoints(bucket, tp[chosen], fp[chosen], points.scores[chosen]),
                      chosen_below, chosen_left, doubled_left)
    return part, BucketPoints(bucket, compressed.tp, compressed.fp, compressed.scores)


def _recall_of(tp: int, num_pos: int) -> float:
    """The recall of ``tp`` true positives, with the bits of the points' recall column."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.divide(np.int64(tp), float(num_pos)))


# Compressed points handled at once by the report (the arrays derived from them stay small).
_SLICE = 1 << 16


class _Trapezoids:
    """The trapezoid area under a curve fed in blocks of rows, in order (same bits as
    :func:`rankeval.formulas.area_under_curve` of the whole curve)."""

    def __init__(self, first: tuple[float, float]) -> None:
        self.last = np.array([first], dtype=np.float64)
        self.sum = formulas.InOrderSum()

    def add(self, x: FloatArray, y: FloatArray) -> None:
        if x.shape[0]:
            rows = np.concatenate((self.last, np.column_stack((x, y))))
            self.sum.add(formulas.trapezoid_terms(rows[:, 0], rows[:, 1]))
            self.last = rows[-1:]


class _Rows:
    """The rows of a curve at chosen row indices, gathered from blocks fed in order."""

    def __init__(self, wanted: IntArray, width: int) -> None:
        self.wanted = wanted
        self.rows: list[FloatArray] = []
        self.seen = 0
        self.width = width

    def add(self, block: FloatArray) -> None:
        here = self.wanted[(self.wanted >= self.seen) & (self.wanted < self.seen + block.shape[0])]
        if here.shape[0]:
            self.rows.append(block[here - self.seen])
        self.seen += block.shape[0]

    def curve(self) -> FloatArray:
        out = (np.concatenate(self.rows) if self.rows
               else np.zeros((0, self.width), dtype=np.float64))
        out = np.asfortranarray(out)
        out.flags.writeable = False
        return out


def _candidates(layout: Layout, parts: list[BucketPart]) -> OperatingPoints:
    """The buckets' decision candidates joined in bucket order, as operating points whose
    doubled areas are the global ones (each bucket's from its start, plus the buckets'
    before it)."""
    tp, fp, scores, below, left = [], [], [], [], []
    below_before, left_before = 0, 0
    for part in parts:
        if part.chosen is not None:
            tp.append(part.chosen.tp)
            fp.append(part.chosen.fp)
            scores.append(part.chosen.scores)
            below.append(part.chosen_below + below_before)
            left.append(part.chosen_left + left_before)
        below_before += part.doubled_pairs
        left_before += part.doubled_left

    def joined(arrays: list[NDArray[Any]], dtype: type) -> NDArray[Any]:
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)

    points = OperatingPoints(joined(tp, np.int64), joined(fp, np.int64),
                             joined(scores, np.float64), layout.num_pos, layout.num_neg)
    vars(points)["doubled_areas"] = (joined(below, np.int64), joined(left, np.int64))
    return points


class PartitionedReport(decisions.DecisionReads):
    """The evaluator's read methods over a partitioned evaluation; read-only, small.

    Built from every bucket's :class:`BucketPart` and, one bucket at a time in bucket
    order, its :class:`BucketPoints`, which the report reads once and does not keep: it
    holds O(buckets + curve_points) whatever the number of cases. Each method has the
    name, arguments and bits of :class:`~rankeval.scored.ScoredPrecisionRecallEvaluation`'s;
    precision at k and maximum F are known for the ranks and β asked for, and the curves
    come downsampled: those of the local curve methods with ``max_points=curve_points``.

    With no positive at all (R = 0) every recall is NaN and each point would be a row of
    the interpolated curves; they then hold one row per bucket instead (the values read
    from them, NaN areas and the eleven-point precision, are still the local ones).

    The decision reads (:class:`~rankeval.scored.decisions.DecisionReads`) asked for in the
    request's ``decisions`` (and the KS statistic) read the buckets' candidate points, with
    the local evaluator's bits; the curves of every cut (DET, gains, lift, PR gain, the
    thresholds table) are not here.
    """

    def __init__(self, layout: Layout, parts: Iterable[BucketPart],
                 points: Iterable[BucketPoints]) -> None:
        ordered = sorted(parts, key=lambda part: part.bucket)
        buckets = [part.bucket for part in ordered]
        holding = np.flatnonzero(layout.totals.sum(axis=1)).tolist()
        if buckets != holding:
            raise ValueError(f"expected one part for each bucket holding cases {holding}, "
                             f"got parts for {buckets}")
        self._layout = layout
        self._cut_cache: decisions.Cuts | None = None
        request = layout.request

        def joined(name: str, dtype: type) -> np.ndarray:
            arrays = [getattr(part, name) for part in ordered]
            return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)

        self._curve_points = OperatingPoints(
            joined("curve_tp", np.int64), joined("curve_fp", np.int64),
            joined("curve_scores", np.float64), layout.num_pos, layout.num_neg,
        )
        self._doubled_pairs = sum(part.doubled_pairs for part in ordered)
        self._placements = sum((part.placements for part in ordered), intervals.PlacementSums())
        self._max_f = {}
        for i, beta in enumerate(request.betas):
            best = 0.0
            for part in ordered:
                value = part.max_f[i]
                best = math.nan if math.isnan(value) or math.isnan(best) else max(best, value)
            self._max_f[beta] = best
        self._precision: dict[int, float] = {}
        for rank in layout.precision_ranks():
            if min(rank, layout.ranked) == 0:
                self._precision[rank] = formulas.expected_precision_at(0, 0, 0, 0, rank)
        for part in ordered:
            self._precision.update(part.precision)
        self._candidates = _candidates(layout, ordered)
        reciprocals = [part.reciprocal_rank for part in ordered
                       if part.reciprocal_rank is not None]
        self._reciprocal_rank = reciprocals[0] if reciprocals else 0.0
        self._read_points(ordered, points)

    def _read_points(self, parts: list[BucketPart], points: Iterable[BucketPoints]) -> None:
        """AP, both PR areas, the eleven points and the interpolated curves, bucket by bucket.

        The same terms in the same order as the local evaluator's sums over all its points
        (the module text says why the compressed points suffice).
        """
        layout = self._layout
        num_pos, num_neg = layout.num_pos, layout.num_neg
        # The highest step precision of every later bucket: the interpolated precision.
        later = np.maximum.accumulate([part.max_precision for part in parts][::-1])[::-1]
        later = np.append(later[1:], -math.inf)
        steps = sum(part.steps for part in parts)
        last_tp = layout.pos_added
        tail = _recall_of(last_tp, num_pos) != 1.0
        points_wanted = layout.request.curve_points
        pr_rows = _Rows(curves.curve_ranks(1 + steps + int(tail), points_wanted) - 1, 2)
        score_rows = _Rows(curves.curve_ranks(1 + steps, points_wanted) - 1, 3)
        ap = formulas.InOrderSum()
        area = _Trapezoids((0.0, 1.0))
        interpolated_area = _Trapezoids((0.0, 1.0))
        top = np.array([[0.0, 1.0]])
        found, eleven = formulas.first_at_levels(top[:, 0], top[:, 1])
        pr_rows.add(top)
        score_rows.add(np.array([[0.0, 1.0, math.inf]]))
        previous_recall, previous_step_tp, count = 0.0, 0, 0
        for i, chunk in enumerate(points):
            count = i + 1
            if chunk.bucket != parts[i].bucket:
                raise ValueError(f"bucket points must come in bucket order: expected bucket "
                                 f"{parts[i].bucket}, got {chunk.bucket}")
            # In slices, so that the arrays derived from a bucket's points stay small; the
            # interpolated precision also takes the best step of the bucket's later slices.
            slices = [OperatingPoints(chunk.tp[a:a + _SLICE], chunk.fp[a:a + _SLICE],
                                      chunk.scores[a:a + _SLICE], num_pos, num_neg)
                      for a in range(0, chunk.tp.shape[0], _SLICE)]
            starts = [previous_recall] + [float(block.recall[-1]) for block in slices[:-1]]
            tops = [float(block.precision[recall_steps(block.recall, start)].max(initial=-math.inf))
                    for block, start in zip(slices, starts, strict=True)]
            # beyond[j]: the best step of slices j+1.. of this bucket and of later buckets.
            beyond = np.maximum.accumulate(np.append(later[i], tops[::-1]))[: len(tops)][::-1]
            for block, start, after in zip(slices, starts, beyond, strict=True):
                recall, precision = block.recall, block.precision
                on_curve = (block.tp > 0) if num_pos else np.ones(block.size, dtype=np.bool_)
                area.add(recall[on_curve], precision[on_curve])
                at = recall_steps(block.recall, start)
                ap.add(formulas.ap_terms(block.tp[at], block.fp[at], previous_step_tp))
                best = np.maximum(formulas.best_precision_from(precision[at]), after)
                step_recall = recall[at]
                interpolated_area.add(step_recall, best)
                more, values = formulas.first_at_levels(step_recall, best)
                eleven = np.where(found, eleven, values)
                found |= more
                pr_rows.add(np.column_stack((step_recall, best)))
                score_rows.add(np.column_stack((step_recall, best, block.scores[at])))
                previous_recall = float(recall[-1])
                if at.shape[0]:
                    previous_step_tp = int(block.tp[at[-1]])
        if count != len(parts):
            raise ValueError(f"expected the points of {len(parts)} buckets, got {count}")
        area.add(np.array([1.0]), np.array([0.0]))
        if tail:
            end = np.array([[1.0, 0.0]])
            interpolated_area.add(end[:, 0], end[:, 1])
            more, values = formulas.first_at_levels(end[:, 0], end[:, 1])
            eleven = np.where(found, eleven, values)
            found |= more
            pr_rows.add(end)
        with np.errstate(divide="ignore", invalid="ignore"):
            self._ap = float(np.divide(ap.total(), np.float64(num_pos)))
        self._pr_area = area.sum.total()
        self._interpolated_pr_area = interpolated_area.sum.total()
        eleven = np.where(found, eleven, 0.0)
        eleven.flags.writeable = False
        self._eleven = eleven
        self._interpolated_pr = pr_rows.curve()
        self._interpolated_scores = score_rows.curve()

    # ------------------------------------------------------------------ counts
    @property
    def ties(self) -> TiePolicy:
        return self._layout.ties

    def num_cases(self) -> int:
        """R + N: every case and miss."""
        return self._layout.num_pos + self._layout.num_neg

    def num_positive_ref(self) -> int:
        return self._layout.num_pos

    def num_negative_ref(self) -> int:
        return self._layout.num_neg

    # ------------------------------------------------------------------ values
    def area_under_roc_curve(self) -> float:
        """The exact ROC area (Mann-Whitney), from the integer pair count."""
        layout = self._layout
        return formulas.roc_auc_from_pairs(self._doubled_pairs, layout.pos_added,
                                           layout.pos_missed, layout.neg_added,
                                           layout.neg_missed)

    def average_precision(self) -> float:
        return self._ap

    def area_under_pr_curve(self, interpolate: bool = False) -> float:
        return self._interpolated_pr_area if interpolate else self._pr_area

    def eleven_point_interpolated_precision(self) -> FloatArray:
        return self._eleven

    def maximum_f_measure(self, beta: float = 1.0) -> float:
        value = check_beta(beta)
        if value not in self._max_f:
            raise ValueError(f"maximum F was computed for beta in {tuple(self._max_f)}, "
                             f"not {value!r}: ask for it with beta=")
        return self._max_f[value]

    def precision_at(self, rank: int) -> float:
        value = check_rank(rank)
        if value not in self._precision:
            raise ValueError(f"precision was computed at ranks "
                             f"{self._layout.request.precision_ranks}, not {value}: ask for it "
                             f"with precision_at=")
        return self._precision[value]

    # ------------------------------------------------------------------ decisions
    def _points(self) -> OperatingPoints:
        return self._candidates

    def _cuts(self) -> decisions.Cuts:
        if self._cut_cache is None:
            self._cut_cache = decisions.cuts(self._candidates)
        return self._cut_cache

    def _decision_points(self, read: str, **arguments: Any) -> OperatingPoints:
        """The candidates, once they are known to hold the read (the KS statistic always);
        a read not asked for is refused by name, as ``precision_at`` is."""
        if read != "ks_statistic":
            wanted = decisions.ask(read, **arguments)
            if not decisions.covers(self._layout.request.decisions, wanted):
                given = ", ".join(f"{k}={v!r}" for k, v in arguments.items() if v is not None)
                raise ValueError(f"{read}({given}) was not asked of this report: ask for it "
                                 f"with decisions=[({read!r}, {{...}})]")
        return self._candidates

    def _decision_cuts(self, read: str, **arguments: Any) -> decisions.Cuts:
        self._decision_points(read, **arguments)
        return self._cuts()

    def r_precision(self) -> float:
        return self._precision[self._layout.num_pos]

    def pr_breakeven_point(self) -> float:
        return self.r_precision()

    def reciprocal_rank(self) -> float:
        return self._reciprocal_rank

    def interval(self, measure: str = "roc_auc", level: float = 0.95,
                 method: str | None = None, *, k: int | None = None,
                 threshold: float | None = None) -> Interval:
        """The local evaluator's :meth:`~rankeval.ScoredPrecisionRecallEvaluation.interval`,
        bit for bit: DeLong's from the buckets' exact integer placement sums, the AP and
        proportion intervals from the values above (``k`` among the ranks asked for).

        The bootstrap and the threshold reads need the cases themselves, which the report does
        not hold: they are refused (``collect_evaluator`` brings a sample's cases).
        """
        return interval_of(_ReportSource(self), measure, level, method, k=k, threshold=threshold)

    # ------------------------------------------------------------------ curves
    def pr_curve(self, interpolate: bool = False) -> FloatArray:
        """The local ``pr_curve(interpolate, max_points=curve_points)``."""
        if interpolate:
            return self._interpolated_pr
        return curves.pr_curve(self._curve_points)

    def pr_score_curve(self, interpolate: bool = False) -> FloatArray:
        """The local ``pr_score_curve(interpolate, max_points=curve_points)``."""
        if interpolate:
            return self._interpolated_scores
        return curves.pr_score_curve(self._curve_points)

    def roc_curve(self) -> FloatArray:
        """The uninterpolated ROC curve, downsampled (``curve_points``)."""
        return curves.roc_curve(self._curve_points)

    def curve_gap(self) -> int:
        """The stated error of the downsampled uninterpolated curves, in cases: 0 when every
        point is kept, else the largest distance between two kept ranks, ``d``.

        Every omitted operating point lies fewer than ``d`` cases below the kept point
        before it, so it differs from that kept row by less than ``d / N`` in false
        positive rate, ``d / R`` in recall (the ROC y too), and ``d / r`` in precision at
        its rank ``r``; the curve through the kept rows passes within those distances of
        it. (The interpolated curves are rows of the full one, evenly spaced.)
        """
        ranks = self._layout.curve_ranks()
        if ranks.shape[0] == self._layout.ranked:
            return 0
        return int(np.diff(ranks).max())

    def summary(self, precision_at: tuple[int, ...] | None = None,
                beta: float = 1.0) -> dict[str, float]:
        """The keys and values of the evaluator's :meth:`summary`."""
        ranks = self._layout.request.precision_ranks if precision_at is None else precision_at
        return summary_of(self, ranks, beta)

    def read(self, name: str, argument: Any = None) -> Any:
        """The registered scored read ``name``, as the evaluator's :meth:`read`."""
        from rankeval.scored.reads import read_value

        return read_value(self, name, argument)

    def to_text(self, precision_at: tuple[int, ...] | None = None, beta: float = 1.0,
                digits: int = 4) -> str:
        """:meth:`summary` as text under a line naming the tie policy and the buckets."""
        from rankeval._text import summary_text

        layout = self._layout
        return summary_text(f"PartitionedReport (ties={layout.ties}, {layout.buckets} "
                            f"buckets)", self.summary(precision_at, beta), digits)

    def __repr__(self) -> str:
        layout = self._layout
        return (f"PartitionedReport(ties={layout.ties!r}, ranked={layout.ranked}, "
                f"buckets={layout.buckets})")


class _ReportSource(ValueReads):
    """A report as an :class:`~rankeval.scored.uncertainty.IntervalSource`."""

    def __init__(self, report: PartitionedReport) -> None:
        super().__init__(report)
        self.report = report

    def delong(self) -> intervals.DeLong:
        layout = self.report._layout
        return intervals.delong_from_sums(self.report._placements, layout.pos_added,
                                          layout.neg_added, layout.pos_missed, layout.neg_missed,
                                          self.report.area_under_roc_curve())

    def ranking(self) -> tuple[FloatArray, BoolArray, bool, int, int]:
        raise ValueError("the bootstrap resamples the cases, which a partitioned report does "
                         "not hold: use the delong, logit, binomial or proportion methods")

    def counts_above(self, threshold: float) -> tuple[int, int]:
        raise ValueError("precision and recall at a threshold need the cases, which a "
                         "partitioned report does not hold")


def assemble(layout: Layout, parts: Iterable[BucketPart],
             points: Iterable[BucketPoints]) -> PartitionedReport:
    """The report from every non-empty bucket's part (any order) and its points (in bucket
    order, read once: an iterator that fetches one bucket at a time keeps the driver small)."""
    return PartitionedReport(layout, parts, points)


# Cases a bucket of a ranking holds (see ranking_report): its derived arrays stay near 100 MB.
RANKING_BUCKET = 1 << 20


def ranking_buckets(keys: NDArray[Any], ties: TiePolicy,
                    bucket_cases: int = RANKING_BUCKET) -> IntArray:
    """Where the buckets of a ranking end: every ``bucket_cases`` cases, moved on to the end
    of a tie block under the grouped policy (a block is never split). O(n / bucket log n)."""
    n = int(keys.shape[0])
    ends = []
    at = 0
    while at < n:
        end = min(at + bucket_cases, n)
        if ties == "grouped" and end < n:
            end = int(keys.searchsorted(keys[end - 1], side="right"))
        ends.append(end)
        at = end
    return np.array(ends, dtype=np.int64)


def ranking_report(keys: NDArray[Any], labels: BoolArray, ties: TiePolicy,
                   pos_missed: int = 0, neg_missed: int = 0, request: Request | None = None,
                   bucket_cases: int = RANKING_BUCKET) -> PartitionedReport:
    """The report of cases already ranked (keys ascending, ties in rank order), in
    O(bucket_cases + curve points) memory beyond them, whatever their number.

    The ranking is cut into buckets of consecutive cases (:func:`ranking_buckets`) and
    read twice: once for the parts, once for the points, one bucket at a time; the values
    have the bits of the evaluator's own reads (the module text says why). This is how a
    local evaluator reports on more cases than its full curves would fit in memory.
    Complexity: O(n).
    """
    ends = ranking_buckets(keys, ties, bucket_cases)
    starts = np.concatenate((np.zeros(min(1, ends.shape[0]), dtype=np.int64), ends[:-1]))
    pos = (np.add.reduceat(labels, starts, dtype=np.int64) if ends.shape[0]
           else np.zeros(0, dtype=np.int64))
    totals = np.column_stack((ends - starts - pos, pos)).reshape(-1, 2)
    layout = Layout(totals, ties, pos_missed, neg_missed, request or Request())

    def parts() -> Iterable[tuple[BucketPart, BucketPoints]]:
        for bucket, (a, b) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
            yield _part(bucket, _ranked_blocks(bucket, keys[a:b], labels[a:b], layout), layout)

    return assemble(layout, [part for part, _ in parts()], (points for _, points in parts()))


def evaluate_buckets(
    scores: FloatArray,
    labels: BoolArray,
    bounds: FloatArray,
    ties: TiePolicy = "grouped",
    order: NDArray[Any] | None = None,
    request: Request | None = None,
    pos_missed: int = 0,
    neg_missed: int = 0,
    counts_from: int = 0,
) -> PartitionedReport:
    """All four steps on one machine: what an engine does, without the engine (tests, docs).

    ``counts_from`` > 0 gives each bucket as counts per score instead of cases, each score
    split over up to that many rows (as partial counts from several tasks arrive).
    """
    ids = bucket_ids(scores, bounds)
    count = bounds.shape[0] + 1
    layout = Layout(bucket_totals(ids, labels, count), ties, pos_missed, neg_missed,
                    request or Request())
    found = []
    for bucket in np.flatnonzero(layout.totals.sum(axis=1)).tolist():
        mine = ids == bucket
        if counts_from:
            task = np.arange(int(mine.sum())) % counts_from  # cases dealt to tasks in turn
            rows = [(s, t) for t in range(counts_from) for s in np.unique(scores[mine][task == t])]
            row_scores = np.array([s for s, _ in rows], dtype=np.float64)
            pos = np.array([int((labels[mine][task == t] & (scores[mine][task == t] == s)).sum())
                            for s, t in rows], dtype=np.int64)
            size = np.array([int((scores[mine][task == t] == s).sum()) for s, t in rows],
                            dtype=np.int64)
            found.append(bucket_part_from_counts(bucket, row_scores, pos, size - pos, layout))
        else:
            found.append(bucket_part(bucket, scores[mine], labels[mine], layout,
                                     None if order is None else order[mine]))
    return assemble(layout, [part for part, _ in found], (points for _, points in found))
