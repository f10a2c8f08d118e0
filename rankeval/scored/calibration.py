"""Calibrated probabilities: Brier score and Murphy's decomposition, log loss, calibration
error and the reliability curve, exact from the stored cases with bins chosen at read time.

:class:`CalibrationReads` is a mixin of :class:`~rankeval.ScoredPrecisionRecallEvaluation`.
Its reads take the ranked cases' scores as probabilities of the positive class: a score
outside [0, 1] is refused for them (with the measure's name), while the ranking measures keep
accepting any real score. Misses have no score and take no part in them.

Conventions, each its oracle's:

* ``brier_score`` — the mean of ``(p - y)²`` (scikit-learn's ``brier_score_loss``).
* ``brier_decomposition`` — Murphy (1973): ``reliability - resolution + uncertainty``, over
  the distinct scores (then it equals the Brier score) or over ``bins``.
* ``log_loss`` — scikit-learn's: probabilities clipped to ``[ε, 1 - ε]`` (ε of float64).
* ``reliability_curve`` — scikit-learn's ``calibration_curve``: ``"uniform"`` bins of equal
  width or ``"quantile"`` bins of equal mass; a score on an inner edge belongs to the bin
  below it; empty bins are left out.
* ``calibration_error`` — torchmetrics' ``BinaryCalibrationError``: equal-width bins (a score
  on an edge belongs to the bin above it, a score of 1 to a bin of its own), ``norm``
  ``"l1"`` (the expected calibration error), ``"l2"`` or ``"max"`` (the maximum calibration
  error); ``strategy="quantile"`` takes the reliability curve's equal-mass bins instead.

Every read runs over the cases grouped by tie block: a score's positives and its negatives,
each counted (or, for weighted cases, weighed: the sum of their weights), times the score's
term. Weighted cases thus take scikit-learn's
``sample_weight`` meaning, and integer weights give the repeated cases' bits (the same terms
and counts). The quantile bins' edges are NumPy's percentiles (scikit-learn's
``calibration_curve``) of the scores each repeated as often as its weight says, computed on the
cumulative weights without repeating anything (:func:`frequency_percentiles`): for integer
weights, the repeated cases' edges, bit for bit.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from rankeval.checks import check_choice, check_int

__all__ = ["MAX_BINS", "BrierDecomposition", "CalibrationReads", "ReliabilityCurve",
           "calibration_error_of", "check_probabilities", "frequency_percentiles",
           "grouped_mean"]

#: The most bins a calibration read takes (more would only describe single cases).
MAX_BINS = 1_000_000

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class BrierDecomposition:
    """Murphy's decomposition: ``brier ≈ reliability - resolution + uncertainty`` (equal
    when the bins are the distinct scores)."""

    reliability: float
    resolution: float
    uncertainty: float
    brier: float


@dataclass(frozen=True)
class ReliabilityCurve:
    """One row per non-empty bin: the share of positives, the mean score, the cases."""

    fraction_positive: FloatArray
    mean_predicted: FloatArray
    counts: NDArray[Any]  # int64; float64 sums of weights for weighted cases


class _Cases(Protocol):
    _lock: threading.RLock

    def _merged(self) -> Any: ...


class CalibrationReads:
    """Calibration of the scores as probabilities (see the module text)."""

    def brier_score(self: _Cases) -> float:
        """The mean squared difference between score and outcome; NaN with no case.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True], [0.9, 0.2, 0.6])
        >>> round(ev.brier_score(), 12)  # (0.01 + 0.04 + 0.16) / 3
        0.07

        Complexity: O(n).
        """
        blocks = _blocks(self, "brier_score")
        return blocks.brier() if blocks.scores.shape[0] else math.nan

    def brier_decomposition(self: _Cases, bins: int | None = None,
                            strategy: str = "uniform") -> BrierDecomposition:
        """Reliability, resolution and uncertainty of the Brier score (Murphy 1973), over the
        distinct scores (``bins=None``: exact) or ``bins`` bins of the reliability curve.

        Complexity: O(n log n).
        """
        blocks = _blocks(self, "brier_decomposition")
        if blocks.scores.shape[0] == 0:
            return BrierDecomposition(math.nan, math.nan, math.nan, math.nan)
        # bins=None: each block is a distinct score
        ids = (np.arange(blocks.scores.shape[0], dtype=np.int64) if bins is None
               else blocks.bins(bins, strategy))
        counts, observed, forecast = blocks.binned(ids)
        n = blocks.total()
        base = float(np.sum(blocks.positive)) / n
        reliability = float(np.sum(counts * (forecast - observed) ** 2)) / n
        resolution = float(np.sum(counts * (observed - base) ** 2)) / n
        return BrierDecomposition(reliability, resolution, base * (1.0 - base), blocks.brier())

    def log_loss(self: _Cases) -> float:
        """scikit-learn's ``log_loss`` of the outcomes and the scores (clipped to
        ``[ε, 1 - ε]``); NaN with no case.

        Complexity: O(n).
        """
        blocks = _blocks(self, "log_loss")
        if blocks.scores.shape[0] == 0:
            return math.nan
        eps = float(np.finfo(np.float64).eps)
        p = blocks.scores
        losses = blocks.positive * -np.log(np.clip(p, eps, 1 - eps))
        losses += blocks.negative * -np.log(np.clip(1.0 - p, eps, 1 - eps))
        return float(np.sum(losses)) / blocks.total()

    def reliability_curve(self: _Cases, bins: int = 10,
                          strategy: str = "uniform") -> ReliabilityCurve:
        """scikit-learn's ``calibration_curve`` rows (and each bin's cases).

        Complexity: O(n log n).
        """
        blocks = _blocks(self, "reliability_curve")
        counts, fraction, mean = blocks.binned(blocks.bins(bins, strategy))
        weighted = getattr(self, "weighted", False)
        return ReliabilityCurve(fraction, mean, counts if weighted else counts.astype(np.int64))

    def calibration_error(self: _Cases, bins: int = 15, strategy: str = "uniform",
                          norm: str = "l1") -> float:
        """The calibration error of torchmetrics' ``BinaryCalibrationError``: ``"l1"`` the
        expected (ECE), ``"l2"`` its root-mean-square form, ``"max"`` the maximum (MCE).

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, True], [0.9, 0.3, 0.7, 0.2])
        >>> round(ev.calibration_error(bins=2), 12)  # |1/2 - 1/4|·2/4 + |1 - 0.8|·2/4
        0.225

        Complexity: O(n log n).
        """
        blocks = _blocks(self, "calibration_error")
        counts = np.column_stack((blocks.positive, blocks.negative)).ravel()
        return calibration_error_of(np.tile(np.array([1.0, 0.0]), blocks.scores.shape[0]),
                                    np.repeat(blocks.scores, 2), bins, strategy, norm, counts)


@dataclass(frozen=True)
class _Blocks:
    """The held cases by tie block, in the ranking's order: each block's score and how many
    positives and negatives it holds (or the sums of their weights). Every calibration read is
    a function of these: so integer weights, which give the repeated cases' blocks, give
    their bits."""

    scores: FloatArray
    positive: FloatArray
    negative: FloatArray

    def total(self) -> float:
        return float(np.sum(self.positive + self.negative))

    def brier(self) -> float:
        p = self.scores
        squares = self.positive * (1.0 - p) ** 2
        squares += self.negative * p**2
        return float(np.sum(squares)) / self.total()

    def bins(self, bins: int, strategy: str) -> NDArray[np.int64]:
        return _sklearn_bins(self.scores, check_int(bins, "bins", minimum=1, maximum=MAX_BINS),
                             check_choice(strategy, "strategy", ("uniform", "quantile")),
                             self.positive + self.negative)

    def binned(self, ids: NDArray[np.int64]) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Each non-empty bin's cases (or weight), share of positives and mean score."""
        width = max(int(ids.max(initial=0)) + 1, 1)
        cases = self.positive + self.negative
        counts = np.bincount(ids, weights=cases, minlength=width).astype(np.float64,
                                                                          copy=False)
        used = counts > 0
        positives = np.bincount(ids, weights=self.positive, minlength=width)[used]
        scores = np.bincount(ids, weights=self.scores * cases, minlength=width)[used]
        return counts[used], positives / counts[used], scores / counts[used]


def calibration_error_of(y: FloatArray, p: FloatArray, bins: int = 15,
                         strategy: str = "uniform", norm: str = "l1",
                         weights: FloatArray | None = None) -> float:
    """torchmetrics' calibration error of outcomes ``y`` (0/1, the truth first) and
    confidences ``p``: shared
    by the binary evaluator and the classifier's top-label read. ``weights``: each case's
    weight, or count (the bins' shares, accuracies and confidences are then weighted
    means, and the quantile edges those of each case repeated as often as its weight).

    Complexity: O(n log n).
    """
    count = check_int(bins, "bins", minimum=1, maximum=MAX_BINS)
    strategy = check_choice(strategy, "strategy", ("uniform", "quantile"))
    norm = check_choice(norm, "norm", ("l1", "l2", "max"))
    if p.shape[0] == 0:
        return math.nan
    # Equal (confidence, outcome) pairs as one term with their count (or sum of weights):
    # integer weights then give the repeated cases' bits.
    order = np.lexsort((y, p))
    ps, ys = p[order], y[order]
    starts = np.flatnonzero(np.r_[True, (ps[1:] != ps[:-1]) | (ys[1:] != ys[:-1])])
    sums = np.add.reduceat(np.ones(p.shape[0]) if weights is None else weights[order],
                           starts)
    kept = sums > 0.0  # a pair only zero weights hold is no term
    if strategy == "quantile":  # the edges from every case (its weight), before the grouping
        inner = frequency_percentiles(p, weights, np.linspace(0, 1, count + 1) * 100)[1:-1]
    p, y, weights = ps[starts][kept], ys[starts][kept], sums[kept]
    if p.shape[0] == 0:
        return math.nan
    if strategy == "uniform":
        edges = _torch_linspace(count)
        ids = np.searchsorted(edges, p, side="right") - 1
        width = count + 1
    else:
        ids = np.searchsorted(inner, p).astype(np.int64)
        width = count
    total = np.bincount(ids, weights=weights, minlength=width).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.nan_to_num(np.bincount(ids, weights=y * weights, minlength=width) / total)
        confidence = np.nan_to_num(np.bincount(ids, weights=p * weights, minlength=width) / total)
    gap = np.abs(accuracy - confidence)
    share = total / total.sum()
    if norm == "l1":
        return float(np.sum(gap * share))
    if norm == "max":
        return float(np.max(gap))
    squared = float(np.sum(gap**2 * share))
    return math.sqrt(squared) if squared > 0 else 0.0


def _blocks(ev: _Cases, measure: str) -> _Blocks:
    """The evaluator's held cases as :class:`_Blocks`; scores checked as probabilities.
    Complexity: O(n)."""
    from rankeval.intervals import blocks

    with ev._lock:
        store = ev._merged()
        if hasattr(store, "weighted_ranking"):
            keys, labels, weights = store.weighted_ranking()
        else:
            (keys, labels), weights = store.ranking(), None
    held = check_probabilities(np.negative(keys, dtype=np.float64), measure)
    if held.shape[0] == 0:
        empty = np.zeros(0)
        return _Blocks(empty, empty, empty)
    starts, positive, negative = blocks(keys, labels, True, weights)
    return _Blocks(held[starts] + 0.0, positive.astype(np.float64, copy=False),
                   negative.astype(np.float64, copy=False))


def grouped_mean(terms: FloatArray, weights: FloatArray | None = None) -> float:
    """The mean of per-case ``terms`` (weighted by ``weights``), over their distinct values,
    each counted (or weighed: the sum of its cases' weights) once: so integer weights give
    the bits of the repeated cases. NaN for no term. Complexity: O(n log n).

    >>> grouped_mean(np.array([0.1, 0.3, 0.1]), np.array([2.0, 1.0, 1.0])) == grouped_mean(
    ...     np.array([0.1, 0.1, 0.3, 0.1]))
    True
    """
    if terms.shape[0] == 0:
        return math.nan
    values, inverse = np.unique(terms, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=weights,
                         minlength=values.shape[0]).astype(np.float64)
    held = counts > 0.0  # a value only zero weights hold is no term (as a case not repeated)
    return float(np.average(values[held], weights=counts[held])) if held.any() else math.nan


def check_probabilities(scores: NDArray[Any], measure: str) -> NDArray[Any]:
    """``scores`` when every one lies in [0, 1]; else a ``ValueError`` naming ``measure`` and
    the first score outside (the calibration reads of every evaluator check here).

    Complexity: O(n).
    """
    if scores.size and (scores.min() < 0.0 or scores.max() > 1.0):
        bad = scores[(scores < 0.0) | (scores > 1.0)][0]
        raise ValueError(f"{measure} reads the scores as probabilities, and {bad!r} is "
                         "outside [0, 1]")
    return scores


def _torch_linspace(bins: int) -> FloatArray:
    """``torch.linspace(0, 1, bins + 1)`` to the bit, as torchmetrics makes its bin edges:
    ``step·i`` in the lower half, ``1 - step·(bins - i)`` rounded once (a fused multiply-add)
    in the upper half. (NumPy's ``linspace`` differs in the last bit at some edges, which
    moves a score lying on one from a bin to the next.)

    >>> _torch_linspace(4).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    from fractions import Fraction

    step = 1.0 / bins
    half = (bins + 1) // 2
    return np.array([step * i if i < half else float(1 - Fraction(step) * (bins - i))
                     for i in range(bins + 1)], dtype=np.float64)


def frequency_percentiles(values: FloatArray, weights: FloatArray | None,
                          percents: FloatArray) -> FloatArray:
    """``np.percentile(values, percents)`` (its default, linear method) of the values each
    repeated as often as its weight, computed on the cumulative weights with NumPy's own
    arithmetic (the virtual index ``(n - 1) q``, its floor and the interpolation ``a + (b - a)
    g``, or ``b - (b - a)(1 - g)`` from g = 0.5 on) without repeating anything: integer weights
    give the repeated values' edges bit for bit; other weights the same rule on the weight
    scale. ``weights`` None: ``np.percentile`` itself.

    >>> v, w = np.array([0.3, 0.1, 0.7]), np.array([2.0, 1.0, 3.0])
    >>> q = np.array([0.0, 25.0, 50.0, 90.0, 100.0])
    >>> (frequency_percentiles(v, w, q) == np.percentile(np.repeat(v, [2, 1, 3]), q)).all()
    np.True_

    Complexity: O(n log n).
    """
    if weights is None:
        return np.asarray(np.percentile(values, percents), dtype=np.float64)
    held = weights > 0.0  # a value of weight 0 is not repeated at all
    values, weights = values[held], weights[held]
    order = np.argsort(values, kind="stable")
    ordered, cumulative = values[order], np.cumsum(weights[order])
    total = float(cumulative[-1])
    n: float = int(total) if total.is_integer() else total  # as NumPy's count
    virtual = (n - 1) * np.true_divide(percents, 100)
    previous = np.floor(virtual)
    last = ordered.shape[0] - 1

    def at(position: FloatArray) -> FloatArray:
        """The value at each position of the repeated, sorted values."""
        found = np.searchsorted(cumulative, position, side="right")
        picked: FloatArray = ordered[np.minimum(found, last)]
        return picked

    below, above = at(previous), at(previous + 1)
    high, low = virtual >= n - 1, virtual < 0
    below[high] = above[high] = ordered[-1]
    below[low] = above[low] = ordered[0]
    start = previous.copy()  # NumPy's index there: the last (-1) or the first (0)
    start[high], start[low] = -1.0, 0.0
    gamma = virtual - start
    difference = above - below
    result = below + difference * gamma
    upper = gamma >= 0.5
    result[upper] = (above - difference * (1 - gamma))[upper]
    return result


def _sklearn_bins(p: FloatArray, bins: int, strategy: str, weights: FloatArray | None = None
                  ) -> NDArray[np.int64]:
    """Each score's bin, as scikit-learn's ``calibration_curve`` assigns them (none for no
    score: the quantiles of nothing are undefined); the quantile edges are those of the scores
    each repeated as often as its weight (:func:`frequency_percentiles`)."""
    if p.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if strategy == "quantile":
        edges = frequency_percentiles(p, weights, np.linspace(0, 1, bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, bins + 1)
    return np.searchsorted(edges[1:-1], p).astype(np.int64)
