"""Intervals on the scored evaluator's readouts: ``ev.interval(measure, level, method)``.

:class:`IntervalReads` is a mixin of :class:`~rankeval.ScoredPrecisionRecallEvaluation`: it
reads the evaluator's ranking once, under its lock, and hands it to the pure functions of
:mod:`rankeval.intervals` (DeLong, the proportion intervals) or to :func:`bootstrap` here.

The bootstrap never copies the evaluator: a resample of the cases (positives and negatives
drawn apart, as pROC's stratified bootstrap does) is a vector of counts over the ranked
cases, whose order a resample cannot change, so each resample's value is one weighted pass
over the same ranking. Memory is O(cases), whatever the number of resamples. A case drawn
several times ties with its copies (they share its score).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from rankeval import formulas, intervals, points
from rankeval.checks import check_choice, check_int, check_rank, check_threshold
from rankeval.intervals import Interval
from rankeval.scored.reads import READS, interval_methods

__all__ = ["BOOTSTRAP_MEASURES", "INTERVAL_METHODS", "MAX_RESAMPLES", "IntervalReads",
           "IntervalSource", "Resample", "ValueReads", "bootstrap", "draws", "interval_of",
           "percentile_interval", "resampled_blocks", "weighted_value"]

#: The most resamples the bootstrap takes.
MAX_RESAMPLES = 1_000_000

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: Each measure's interval methods; the first is the default (from the registry of reads).
INTERVAL_METHODS: dict[str, tuple[str, ...]] = interval_methods()
#: The measures :func:`bootstrap` resamples.
BOOTSTRAP_MEASURES = tuple(m for m, methods in INTERVAL_METHODS.items() if "bootstrap" in methods)


class IntervalSource(Protocol):
    """What :func:`interval_of` reads: the evaluator's values, and the ranking's parts."""

    def area_under_roc_curve(self) -> float: ...
    def average_precision(self) -> float: ...
    def precision_at(self, rank: int) -> float: ...
    def r_precision(self) -> float: ...
    def reciprocal_rank(self) -> float: ...
    def num_positive_ref(self) -> int: ...
    @property
    def reader(self) -> Any:
        """The reader the values come from (its registered reads)."""
    def delong(self) -> intervals.DeLong: ...
    def ranking(self) -> tuple[FloatArray, BoolArray, bool, int, int]:
        """The ranked keys and labels, whether ties group, and the positive and negative
        misses (what the bootstrap resamples)."""
    def counts_above(self, threshold: float) -> tuple[int, int]:
        """The positives and the cases scoring at least ``threshold``."""
    def weights(self) -> FloatArray | None:
        """The ranked cases' weights (None: each weighs 1)."""


class _Evaluator(Protocol):
    """What the intervals read of an evaluator."""

    _lock: threading.RLock
    _pos_missed: int
    _neg_missed: int

    @property
    def ties(self) -> str: ...
    def _merged(self) -> Any: ...
    def area_under_roc_curve(self, interpolate: bool = False) -> float: ...
    def average_precision(self) -> float: ...
    def precision_at(self, rank: int) -> float: ...
    def r_precision(self) -> float: ...
    def reciprocal_rank(self) -> float: ...
    def num_positive_ref(self) -> int: ...
    def _points(self) -> points.OperatingPoints: ...


class ValueReads:
    """The value reads of an :class:`IntervalSource`, taken from a reader (an evaluator or a
    partitioned report); a source adds ``delong``, ``ranking`` and ``counts_above``."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader
        self.area_under_roc_curve: Callable[[], float] = reader.area_under_roc_curve
        self.average_precision: Callable[[], float] = reader.average_precision
        self.precision_at: Callable[[int], float] = reader.precision_at
        self.r_precision: Callable[[], float] = reader.r_precision
        self.reciprocal_rank: Callable[[], float] = reader.reciprocal_rank
        self.num_positive_ref: Callable[[], int] = reader.num_positive_ref

    def weights(self) -> FloatArray | None:
        """The ranked cases' weights, aligned with :meth:`ranking`; None: each weighs 1."""
        return None


class _StoreSource(ValueReads):
    """An evaluator's store as an :class:`IntervalSource` (read under the evaluator's lock)."""

    def __init__(self, ev: _Evaluator) -> None:
        super().__init__(ev)
        self.ev = ev

    def ranking(self) -> tuple[FloatArray, BoolArray, bool, int, int]:
        keys, labels = self.ev._merged().ranking()
        return keys, labels, self.ev.ties == "grouped", self.ev._pos_missed, self.ev._neg_missed

    def weights(self) -> FloatArray | None:
        store = self.ev._merged()
        return store.weighted_ranking()[2] if hasattr(store, "weighted_ranking") else None

    def delong(self) -> intervals.DeLong:
        store = self.ev._merged()
        if hasattr(store, "weighted_ranking"):  # integer weights: each block's counts
            keys, labels, weights = store.weighted_ranking()
            _, positive, negative = intervals.blocks(keys, labels, True, weights)
            return intervals.delong_of_blocks(
                positive.astype(np.int64), negative.astype(np.int64), self.ev._pos_missed,
                self.ev._neg_missed, self.ev.area_under_roc_curve())
        keys, labels, grouped, pos_missed, neg_missed = self.ranking()
        return intervals.delong(keys, labels, grouped, pos_missed, neg_missed,
                                self.ev.area_under_roc_curve())

    def counts_above(self, threshold: float) -> tuple[int, int]:
        store = self.ev._merged()
        if hasattr(store, "weighted_ranking"):  # integer weights: the counts they stand for
            keys, labels, weights = store.weighted_ranking()
            above = int(np.searchsorted(keys, -threshold, side="right"))
            held = weights[:above]
            return int(held[labels[:above]].sum()), int(held.sum())
        keys, labels = store.ranking()
        above = int(np.searchsorted(keys, -threshold, side="right"))
        return int(np.count_nonzero(labels[:above])), above


class IntervalReads:
    """``interval()``: every scalar readout with its confidence interval."""

    def interval(self: _Evaluator, measure: str = "roc_auc", level: float = 0.95,
                 method: str | None = None, *, k: int | None = None,
                 threshold: float | None = None, resamples: int = 2000,
                 seed: int = 0, **options: Any) -> Interval:
        """The value of ``measure`` with its ``level`` confidence interval.

        ====================  ==================================================================
        measure               methods (the first is the default)
        ====================  ==================================================================
        ``roc_auc``           ``"delong"`` (DeLong 1988 with Sun & Xu's placements; pROC's
                              ``ci.auc``), ``"bootstrap"``
        ``average_precision`` ``"logit"``, ``"binomial"`` (Boyd, Eng & Page 2013, n = R),
                              ``"bootstrap"``
        ``precision_at``      with ``k=``: ``"wilson"``, ``"agresti_coull"``, ``"beta"``
                              (Clopper-Pearson), ``"jeffreys"``, ``"normal"``, ``"bootstrap"``
        ``r_precision``       the same, over the top R cases
        ``precision``,        at ``threshold=`` (cases scoring at least it): the proportion
        ``recall``            methods, over the cases above it (precision) or over R (recall)
        ``reciprocal_rank``   ``"bootstrap"``
        ``ks``                ``"bootstrap"``
        decision reads        ``"bootstrap"``, with the read's options:
                              ``interval("sensitivity_at", specificity=0.9)``,
                              ``interval("partial_roc_auc", fpr=(0, 0.1))`` (the achievable
                              point's value for the constrained reads)
        ====================  ==================================================================

        The bootstrap resamples positives and negatives apart (``resamples`` times, from
        ``seed``) and reports the percentile interval and the resamples' standard deviation,
        in O(cases) memory (see the module text). Grouped ties make a proportion's count
        an expectation (a fractional count); the formulas take it as it is.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False, True], [0.9, 0.8, 0.7, 0.4, 0.3])
        >>> i = ev.interval("roc_auc")  # placements 1, 1/2, 0 and 1/3, 2/3: variance 1/9
        >>> i.value, i.method, round(i.std_error, 12)
        (0.5, 'delong', 0.333333333333)

        Raises
        ------
        ValueError
            An unknown measure or method, a level outside (0, 1), ``k`` or ``threshold``
            missing where needed.

        Complexity: O(n) (DeLong, the AP intervals), O(log n) (proportions), O(B·n) for B
        resamples.
        """
        with self._lock:
            return interval_of(_StoreSource(self), measure, level, method, k=k,
                               threshold=threshold, resamples=resamples, seed=seed,
                               **options)


    def roc_band(self: _Evaluator, level: float = 0.95, fpr: Any = None, *,
                 resamples: int = 2000, seed: int = 0) -> FloatArray:
        """A confidence band of the ROC curve: sensitivity intervals at fixed false-positive
        rates (pROC's ``ci.se`` at specificities ``1 - fpr``), rows ``[fpr, sensitivity,
        low, high]``.

        ``fpr``: the rates (default 0, 0.01, ..., 1). The sensitivity at each is pROC's
        interpolated one (:meth:`~rankeval.ScoredPrecisionRecallEvaluation.sensitivity_at`
        with ``method="interpolated"``); its bounds are the percentile interval of the same
        read over the stratified bootstrap's resamples (``resamples`` from ``seed``, one pass
        over the ranking each, O(cases) memory), undefined resamples left out.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False, True], [0.9, 0.8, 0.7, 0.4, 0.3])
        >>> band = ev.roc_band(fpr=[0.0, 0.5], resamples=200)
        >>> band[:, :2].tolist()  # at FPR 1/2 the sensitivity is 2/3 (two of three above)
        [[0.0, 0.3333333333333333], [0.5, 0.6666666666666666]]

        Raises
        ------
        ValueError
            A rate outside [0, 1] or NaN, no rate, a level outside (0, 1).

        Complexity: O(B·(n + g log m)) for B resamples, n cases, g rates, m cuts.
        """
        from rankeval.scored.decisions import sensitivity_at_specificities

        level = intervals.check_level(level)
        grid = np.linspace(0.0, 1.0, 101) if fpr is None else np.asarray(fpr, dtype=np.float64)
        if grid.ndim != 1 or grid.shape[0] == 0:
            raise ValueError("fpr must be a non-empty list of false-positive rates")
        outside = ~((grid >= 0.0) & (grid <= 1.0))  # NaN is outside too
        if outside.any():
            raise ValueError(f"fpr must lie in [0, 1]; got {float(grid[outside][0])!r}")
        resamples = check_int(resamples, "resamples", minimum=2, maximum=MAX_RESAMPLES)
        seed = check_int(seed, "seed", minimum=0)
        specificities = 1.0 - grid
        with self._lock:
            source = _StoreSource(self)
            value = sensitivity_at_specificities(self._points(), specificities)
            keys, labels, grouped, pos_missed, neg_missed = source.ranking()
            values = np.empty((resamples, grid.shape[0]))
            for b, resample in enumerate(resampled_blocks(keys, labels, grouped, pos_missed,
                                                          neg_missed, resamples, seed,
                                                          source.weights())):
                values[b] = sensitivity_at_specificities(resample.points(), specificities)
        band = np.empty((grid.shape[0], 4))
        band[:, 0], band[:, 1] = grid, value
        for j in range(grid.shape[0]):
            found = percentile_interval(float(value[j]), values[:, j], level)
            band[j, 2], band[j, 3] = found.low, found.high
        band.flags.writeable = False
        return band


def interval_of(source: IntervalSource, measure: str = "roc_auc", level: float = 0.95,
                method: str | None = None, *, k: int | None = None,
                threshold: float | None = None, resamples: int = 2000,
                seed: int = 0, **options: Any) -> Interval:
    """:meth:`IntervalReads.interval` of any :class:`IntervalSource`: the evaluator's store or a
    partitioned report (:class:`rankeval.scored.partitioned.PartitionedReport`)."""
    measure = check_choice(measure, "measure", tuple(INTERVAL_METHODS))
    allowed = INTERVAL_METHODS[measure]
    weights = source.weights()
    # Integer weights asked an analytic method are frequencies: the repeated cases' interval.
    # The default stays the bootstrap: a weight often stands for cases never observed
    # (down-sampling), which a frequency would count as seen, narrowing the interval.
    counted = weights is None or frequencies(weights)
    if method is None and weights is not None and "bootstrap" in allowed:
        method = "bootstrap"  # the one method that resamples any weighted cases
    chosen = allowed[0] if method is None else check_choice(method, "method", allowed)
    if not counted and chosen != "bootstrap":
        raise ValueError(f"the {chosen} interval counts cases, so it applies to integer weights "
                         "(read as how many times each case was seen) but not to these: "
                         "method='bootstrap' resamples cases with their weights")
    level = intervals.check_level(level)
    read = READS[measure]
    if read.of_points is not None:  # a decision read: its value, then its resamples
        if k is not None or threshold is not None:
            raise ValueError(f"k= and threshold= do not apply to {measure}; it takes "
                             f"{', '.join(o + '=' for o in read.options) or 'no option'}")
        value = float(read.read(source.reader, **options))
        resamples = check_int(resamples, "resamples", minimum=2, maximum=MAX_RESAMPLES)
        seed = check_int(seed, "seed", minimum=0)
        keys, labels, grouped, pos_missed, neg_missed = source.ranking()
        return bootstrap(keys, labels, grouped, pos_missed, neg_missed, measure, value, level,
                         resamples=resamples, seed=seed, options=options, weights=weights)
    if options:
        raise ValueError(f"{measure} takes no {', '.join(sorted(options))}")
    if measure == "gini":  # 2 * area - 1: the area's interval, transformed
        area = interval_of(source, "roc_auc", level, chosen, resamples=resamples, seed=seed)
        return Interval(2.0 * area.value - 1.0, 2.0 * area.low - 1.0, 2.0 * area.high - 1.0,
                        level, chosen, 2.0 * area.std_error)
    if measure == "precision_at":
        if k is None:
            raise ValueError("precision_at needs k= (the rank)")
        k = check_rank(k)
    elif k is not None:
        raise ValueError(f"k= applies to precision_at, not to {measure}")
    if measure in ("precision", "recall"):
        if threshold is None:
            raise ValueError(f"{measure} needs threshold= (the lowest score counted)")
        threshold = check_threshold(threshold)
    elif threshold is not None:
        raise ValueError(f"threshold= applies to precision and recall, not to {measure}")
    if chosen == "bootstrap":
        resamples = check_int(resamples, "resamples", minimum=2, maximum=MAX_RESAMPLES)
        seed = check_int(seed, "seed", minimum=0)
        keys, labels, grouped, pos_missed, neg_missed = source.ranking()
        return bootstrap(keys, labels, grouped, pos_missed, neg_missed, measure,
                         _value(source, measure, k), level, k=k, resamples=resamples, seed=seed,
                         weights=weights)
    if measure == "roc_auc":
        found = intervals.delong_interval(source.delong(), level)
        if found.low != found.low:  # no interval: the value is the reader's, as everywhere
            return Interval(source.area_under_roc_curve(), math.nan, math.nan, level, chosen,
                            math.nan)
        return found
    if measure == "average_precision":
        return _ap_interval(source.average_precision(), source.num_positive_ref(), level, chosen)
    if measure == "precision_at":
        assert k is not None
        return _proportion(source.precision_at(k), k, level, chosen)
    if measure == "r_precision":
        return _proportion(source.r_precision(), source.num_positive_ref(), level, chosen)
    assert threshold is not None
    tp, above = source.counts_above(threshold)
    if measure == "precision":
        return _counted(tp, above, level, chosen)
    return _counted(tp, source.num_positive_ref(), level, chosen)


def frequencies(weights: FloatArray) -> bool:
    """Whether weights are frequencies: integers, whose total a float64 holds exactly."""
    return bool((np.floor(weights) == weights).all()) and float(weights.sum()) < 2.0**53


def _value(ev: IntervalSource, measure: str, k: int | None) -> float:
    reads: dict[str, Callable[[], float]] = {
        "roc_auc": ev.area_under_roc_curve, "average_precision": ev.average_precision,
        "r_precision": ev.r_precision, "reciprocal_rank": ev.reciprocal_rank,
        "precision_at": lambda: ev.precision_at(k or 0),
    }
    return reads[measure]()


def _counted(successes: int, trials: int, level: float, method: str) -> Interval:
    value = successes / trials if trials else math.nan
    low, high = intervals.proportion_interval(successes, trials, level, method)
    se = math.sqrt(value * (1 - value) / trials) if trials else math.nan
    return Interval(value, low, high, level, method, se)


def _proportion(value: float, trials: int, level: float, method: str) -> Interval:
    """A proportion read as ``value`` of ``trials`` (its count may be an expectation)."""
    if trials == 0:
        return Interval(value, math.nan, math.nan, level, method, math.nan)
    low, high = intervals.proportion_interval(value * trials, trials, level, method)
    return Interval(value, low, high, level, method, math.sqrt(value * (1 - value) / trials))


def _ap_interval(ap: float, positives: int, level: float, method: str) -> Interval:
    """Boyd, Eng & Page (ECML 2013): binomial ``θ ± z·sqrt(θ(1-θ)/n)`` (clipped to [0, 1])
    and logit ``expit(logit θ ± z / sqrt(n·θ(1-θ)))``, n = R."""
    if positives == 0 or ap != ap:
        return Interval(ap, math.nan, math.nan, level, method, math.nan)
    z = intervals.normal_quantile(1.0 - (1.0 - level) / 2.0)
    se = math.sqrt(ap * (1.0 - ap) / positives)
    if method == "binomial":
        return Interval(ap, max(ap - z * se, 0.0), min(ap + z * se, 1.0), level, method, se)
    if ap <= 0.0 or ap >= 1.0:  # the logit is infinite: the interval is the point
        return Interval(ap, ap, ap, level, method, se)
    eta = math.log(ap / (1.0 - ap))
    tau = 1.0 / math.sqrt(positives * ap * (1.0 - ap))
    low, high = eta - z * tau, eta + z * tau
    return Interval(ap, 1.0 / (1.0 + math.exp(-low)), 1.0 / (1.0 + math.exp(-high)), level,
                    method, se)


# ---------------------------------------------------------------------------------------------
# the bootstrap: weights over a fixed ranking


def bootstrap(keys: FloatArray, labels: BoolArray, grouped: bool, pos_missed: int,
              neg_missed: int, measure: str, value: float, level: float = 0.95, *,
              k: int | None = None, resamples: int = 2000, seed: int = 0,
              options: dict[str, Any] | None = None,
              weights: FloatArray | None = None) -> Interval:
    """The stratified percentile bootstrap interval of ``measure`` over a ranking.

    Each resample draws R positives among the R and N negatives among the N with
    replacement (misses included), counts how many times each case was drawn, then reads
    ``measure`` from the weighted ranking: tie blocks (``grouped``) or single cases keep
    their places, their weights change. The interval is the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles of the resamples' values (linear interpolation, R's default
    type 7), the standard error their standard deviation. A decision read (one with
    ``of_points`` in the registry) reads each resample's operating points with its
    ``options``; a resample where no threshold meets its constraint counts as undefined.
    ``weights`` (weighted cases, grouped ties): each drawn case carries its weight, drawn as
    often as the resample draws it (a miss weighs 1), so a resample's counts are sums of
    weights.

    >>> keys = -np.array([0.9, 0.8, 0.7, 0.4, 0.3])
    >>> labels = np.array([True, False, True, False, True])
    >>> i = bootstrap(keys, labels, True, 0, 0, "roc_auc", 2 / 3, resamples=200, seed=1)
    >>> 0.0 <= i.low <= 2 / 3 <= i.high <= 1.0
    True

    Complexity: O(B·n) time for B resamples over n ranked cases, whatever the misses; O(n)
    memory.
    """
    measure = check_choice(measure, "measure", BOOTSTRAP_MEASURES)
    ranked_positives = int(np.count_nonzero(labels))
    positives = ranked_positives + pos_missed
    negatives = int(labels.shape[0]) - ranked_positives + neg_missed
    if positives == 0 or (measure == "roc_auc" and negatives == 0):
        return Interval(value, math.nan, math.nan, level, "bootstrap", math.nan)
    of_points = READS[measure].of_points
    values = np.empty(resamples, dtype=np.float64)
    for b, resample in enumerate(resampled_blocks(keys, labels, grouped, pos_missed,
                                                  neg_missed, resamples, seed, weights)):
        if of_points is not None:
            values[b] = _decision_value(of_points, resample, options or {})
        else:
            values[b] = weighted_value(measure, resample.pos, resample.neg,
                                       resample.pos_missed, resample.neg_missed, k)
    return percentile_interval(value, values, level)


@dataclass(frozen=True)
class Resample:
    """One resample of a ranking: how many drawn cases each block holds (positives and
    negatives; their sums of weights, floats, for weighted cases), the blocks' scores, and
    how many draws fell on the misses."""

    pos: NDArray[Any]
    neg: NDArray[Any]
    scores: FloatArray
    pos_missed: int
    neg_missed: int

    def points(self) -> points.OperatingPoints:
        """The resample's operating points (a block no draw fell in changes no count)."""
        tp, fp = points.confusion_at_thresholds(self.pos, self.neg)
        ranked_pos, ranked_neg = (tp[-1].item(), fp[-1].item()) if tp.shape[0] else (0, 0)
        return points.OperatingPoints(tp, fp, self.scores, ranked_pos + self.pos_missed,
                                      ranked_neg + self.neg_missed)


def resampled_blocks(keys: FloatArray, labels: BoolArray, grouped: bool, pos_missed: int,
                     neg_missed: int, resamples: int, seed: int,
                     weights: FloatArray | None = None) -> Iterator[Resample]:
    """The stratified resamples of a ranking, one after the other (see :func:`bootstrap`):
    R draws among the R positives (misses included), then N among the N negatives, as
    weights over the fixed blocks (tie blocks when ``grouped``, else single cases). With
    ``weights``, R and N count the cases, and a drawn case adds its weight each time.

    The arrays of a resample are reused by the next: read each before asking for another.
    Memory O(n), whatever the number of resamples.
    """
    n = int(keys.shape[0])
    starts = intervals.blocks(keys, labels, grouped)[0]
    scores = -keys[starts]
    positives = np.flatnonzero(labels)
    negatives = np.flatnonzero(~labels)
    rng = np.random.default_rng(seed)
    draw_pos = _tied_draws(positives.shape[0], pos_missed)
    draw_neg = _tied_draws(negatives.shape[0], neg_missed)
    pos_w = np.zeros(n, dtype=np.int64 if weights is None else np.float64)
    neg_w = np.zeros_like(pos_w)
    pos_weight = None if weights is None else weights[positives]
    neg_weight = None if weights is None else weights[negatives]
    single = starts.shape[0] == n
    for _ in range(resamples):
        # m draws among the m positives (misses included), then r among the r negatives:
        # how many times each ranked case is drawn, and how many draws fell on the misses.
        drawn_pos, pos_drawn_missed = draw_pos(rng)
        drawn_neg, neg_drawn_missed = draw_neg(rng)
        if pos_weight is None or neg_weight is None:
            pos_w[positives] = drawn_pos
            neg_w[negatives] = drawn_neg
        else:
            pos_w[positives] = drawn_pos * pos_weight
            neg_w[negatives] = drawn_neg * neg_weight
        if single:  # every block one case: the weights are the blocks' counts
            yield Resample(pos_w, neg_w, scores, pos_drawn_missed, neg_drawn_missed)
        else:
            yield Resample(np.add.reduceat(pos_w, starts), np.add.reduceat(neg_w, starts),
                           scores, pos_drawn_missed, neg_drawn_missed)


def _decision_value(of_points: Callable[[Any, Any], float], resample: Resample,
                    options: dict[str, Any]) -> float:
    """A decision read of a resample: its blocks' weights as operating points."""
    try:
        return float(of_points(resample.points(), options))
    except ValueError:  # no threshold of this resample meets the constraint
        return math.nan


def percentile_interval(value: float, resampled: FloatArray, level: float) -> Interval:
    """The bootstrap's answer from its resamples' values: ``value`` (the evaluator's own)
    with the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the finite resampled
    values (linear interpolation, R's type 7) and their standard deviation; NaN bounds with
    fewer than two finite values, or when ``value`` itself is undefined (NaN).

    >>> percentile_interval(0.5, np.array([0.2, 0.4, 0.6, 0.8]), 0.5).low
    0.35000000000000003
    """
    finite = resampled[np.isfinite(resampled)]
    if finite.shape[0] < 2 or value != value:
        return Interval(value, math.nan, math.nan, level, "bootstrap", math.nan)
    low, high = np.quantile(finite, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return Interval(value, float(low), float(high), level, "bootstrap",
                    float(np.std(finite, ddof=1)))


def _tied_draws(ranked: int, missed: int
                ) -> Callable[[np.random.Generator], tuple[IntArray, int]]:
    """A resample's draws of one class: ``ranked + missed`` draws with replacement among its
    ``ranked`` ranked cases and ``missed`` misses; how many times each ranked case is drawn,
    and how many draws fell on the misses.

    The misses are one tie (they have no score), so only their total matters: it is drawn
    as a binomial count, and the rest spread over the ranked cases, which is the same
    multinomial distribution in O(ranked) a resample, whatever the misses (10^7 misses cost
    nothing). With no miss the draws are those of ``rng.integers`` over the cases, as ever.
    """
    total = ranked + missed

    def drawn(rng: np.random.Generator) -> tuple[IntArray, int]:
        if missed == 0:
            return draws(rng, total), 0
        on_misses = int(rng.binomial(total, missed / total))
        counted = np.bincount(rng.integers(0, ranked, size=total - on_misses),
                              minlength=ranked) if ranked else np.zeros(0, dtype=np.int64)
        return counted, on_misses

    return drawn


def draws(rng: np.random.Generator, count: int) -> IntArray:
    """How many times each of ``count`` items is drawn in ``count`` draws with replacement."""
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    return np.bincount(rng.integers(0, count, size=count), minlength=count)


def weighted_value(measure: str, pos: NDArray[Any], neg: NDArray[Any], pos_missed: int,
                   neg_missed: int, k: int | None) -> float:
    """``measure`` of a ranking whose blocks hold ``pos`` positives and ``neg`` negatives
    (counts, or sums of weights), the grouped policy's value (a block's cases tie), misses
    ranked last."""
    m = pos.sum().item() + pos_missed
    if measure == "roc_auc":
        ranked_neg = neg.sum().item()
        total_neg = ranked_neg + neg_missed
        if m == 0 or total_neg == 0:
            return math.nan
        below = ranked_neg - np.cumsum(neg)
        pairs = float(np.dot(pos, below + 0.5 * neg)) + float(pos.sum()) * neg_missed
        pairs += 0.5 * pos_missed * neg_missed
        return float(pairs / (m * total_neg))
    # A block no resampled case fell in changes no count: it adds no AP term (the terms are
    # at the blocks holding positives) and is never the block at a cutoff.
    tp, fp = points.confusion_at_thresholds(pos, neg)
    if measure == "average_precision":
        hit = np.flatnonzero(pos)
        return float(formulas.average_precision(tp[hit], fp[hit], m)) if m else math.nan
    ranked = tp + fp
    if measure == "reciprocal_rank":
        first = int(np.argmax(pos > 0)) if pos.any() else -1
        if first < 0:
            return 0.0
        above = int(ranked[first] - pos[first] - neg[first])
        return formulas.expected_reciprocal_rank(above, int(pos[first]), int(neg[first]))
    rank = m if measure == "r_precision" else int(k or 0)
    if rank == 0:
        return 1.0
    total = int(ranked[-1]) if ranked.shape[0] else 0
    if rank > total:  # past the ranking: the remaining places hold no positive
        return float(tp[-1]) / rank if tp.shape[0] else 0.0
    i = int(np.searchsorted(ranked, rank, side="left"))
    hits_above, above = int(tp[i] - pos[i]), int(ranked[i] - pos[i] - neg[i])
    return formulas.expected_precision_at(hits_above, int(pos[i]), int(pos[i] + neg[i]), above,
                                          rank)
