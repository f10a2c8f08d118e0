"""Every number with its uncertainty: confidence intervals and tests, exact where the method is.

* :class:`Interval` — a value with its confidence interval, level, method and standard error.
* :func:`delong` — DeLong, DeLong & Clarke-Pearson (1988)'s variance of the ROC area, from
  each case's *placement* (Sun & Xu 2014: the share of the other class it outranks, ties one
  half), computed from a ranking in one pass; the numbers of R's pROC ``ci.auc``.
* :func:`proportion_interval` — Wilson, Agresti-Coull, Clopper-Pearson (``"beta"``), Jeffreys
  and the normal approximation, by statsmodels' ``proportion_confint`` names and formulas.

Quantiles of the normal distribution come from the standard library
(:class:`statistics.NormalDist`); Clopper-Pearson and Jeffreys need the beta distribution's,
from scipy (``pip install rankeval-exact[stats]``).

Conventions, as pROC's: the interval of the ROC area is ``θ ± z·SE`` clipped to [0, 1]; with
fewer than two positives or two negatives the variance is undefined (the placements of one
case have no spread to estimate) and the bounds are NaN. Misses count as ranked last, as for
the area itself: a positive miss outranks no ranked negative and ties every negative miss.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from rankeval import points
from rankeval.checks import check_choice, check_real

__all__ = [
    "PROPORTION_METHODS",
    "DeLong",
    "Interval",
    "PlacementSums",
    "blocks",
    "check_level",
    "delong",
    "delong_from_sums",
    "delong_interval",
    "delong_of_blocks",
    "exact_dot",
    "normal_quantile",
    "placement_sums",
    "proportion_interval",
]

FloatArray = NDArray[np.float64]
ProportionMethod = Literal["wilson", "agresti_coull", "beta", "clopper_pearson", "jeffreys",
                           "normal"]
#: The proportion intervals, by statsmodels' names (``"clopper_pearson"`` is ``"beta"``).
PROPORTION_METHODS: tuple[ProportionMethod, ...] = (
    "wilson", "agresti_coull", "beta", "clopper_pearson", "jeffreys", "normal")


@dataclass(frozen=True)
class Interval:
    """A value and its confidence interval.

    Attributes
    ----------
    value : float
        The estimate (the exact value the evaluator reports).
    low, high : float
        The interval's bounds; NaN where the method gives none (see its text).
    level : float
        The confidence level, in (0, 1).
    method : str
        How the bounds were computed (``"delong"``, ``"wilson"``, ``"bootstrap"``, ...).
    std_error : float
        The estimate's standard error where the method has one, else NaN.

    >>> Interval(0.75, 0.6, 0.9, 0.95, "delong", 0.0765)
    Interval(value=0.75, low=0.6, high=0.9, level=0.95, method='delong', std_error=0.0765)
    """

    value: float
    low: float
    high: float
    level: float
    method: str
    std_error: float = math.nan

    def to_text(self, digits: int = 4) -> str:
        """One line: the value, the interval, the level and the method.

        >>> Interval(0.75, 0.6, 0.9, 0.95, "delong", 0.0765).to_text()
        '0.7500 [0.6000, 0.9000] (95% delong, standard error 0.0765)'
        """
        from rankeval._text import number

        return (f"{number(self.value, digits)} [{number(self.low, digits)}, "
                f"{number(self.high, digits)}] ({self.level * 100:.10g}% {self.method}, "
                f"standard error {number(self.std_error, digits)})")

    def __iter__(self) -> Iterator[float]:
        """``low, high = interval`` (the bounds only).

        >>> low, high = Interval(0.5, 0.25, 0.75, 0.9, "wilson")
        >>> low, high
        (0.25, 0.75)
        """
        return iter((self.low, self.high))

    def __contains__(self, value: object) -> bool:
        """Whether ``value`` lies within the bounds (inclusive).

        >>> 0.7 in Interval(0.75, 0.6, 0.9, 0.95, "delong")
        True
        """
        number = check_real(value, "value")
        return self.low <= number <= self.high


def check_level(level: object) -> float:
    """A confidence level: a number strictly between 0 and 1.

    >>> check_level(0.9)
    0.9
    >>> check_level(1)
    Traceback (most recent call last):
    ...
    ValueError: level must be strictly between 0 and 1, got 1
    """
    value = check_real(level, "level")
    if not 0.0 < value < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    if 1.0 - (1.0 - value) / 2.0 >= 1.0:  # its two-sided normal quantile would be infinite
        raise ValueError(f"level {level!r} is too close to 1 for a double: the largest level "
                         "is 0.9999999999999998")
    return value


def normal_quantile(p: float) -> float:
    """The standard normal distribution's ``p`` quantile (``scipy.stats.norm.ppf``).

    >>> round(normal_quantile(0.975), 10)
    1.9599639845
    """
    return NormalDist().inv_cdf(p)


def normal_cdf(x: float) -> float:
    """The standard normal distribution function (``scipy.stats.norm.cdf``).

    >>> normal_cdf(0.0)
    0.5
    """
    return NormalDist().cdf(x)


# ---------------------------------------------------------------------------------------------
# proportions


def proportion_interval(successes: float, trials: int, level: float = 0.95,
                        method: str = "wilson") -> tuple[float, float]:
    """The ``level`` confidence interval of a binomial proportion ``successes / trials``.

    The formulas and clipping of statsmodels' ``proportion_confint`` (two-sided): Wilson,
    Agresti-Coull and the normal approximation are clipped to [0, 1]; Clopper-Pearson
    (``"beta"``, or ``"clopper_pearson"``) has 0 at no success and 1 at all; Jeffreys is the
    Beta(x + ½, n - x + ½) posterior's equal-tailed interval. With no trial the proportion is
    undefined: NaN bounds. ``successes`` may be fractional (an expected count under grouped
    ties).

    >>> [round(b, 6) for b in proportion_interval(8, 10, 0.95, "wilson")]
    [0.490162, 0.943318]

    Complexity: O(1).
    """
    method = check_choice(method, "method", PROPORTION_METHODS)
    level = check_level(level)
    if trials == 0:
        return math.nan, math.nan
    alpha = (1.0 - level) / 2.0
    q = successes / trials
    if method in ("beta", "clopper_pearson", "jeffreys"):
        beta = _scipy_stats().beta
        if method == "jeffreys":
            a, b = successes + 0.5, trials - successes + 0.5
            return float(beta.ppf(alpha, a, b)), float(beta.isf(alpha, a, b))
        low = 0.0 if successes == 0 else float(beta.ppf(alpha, successes,
                                                         trials - successes + 1))
        high = 1.0 if successes == trials else float(beta.isf(alpha, successes + 1,
                                                               trials - successes))
        return low, high
    crit = NormalDist().inv_cdf(1.0 - alpha)
    if method == "normal":
        dist = crit * math.sqrt(q * (1.0 - q) / trials)
        low, high = q - dist, q + dist
    elif method == "agresti_coull":
        trials_c = trials + crit**2
        q_c = (successes + crit**2 / 2.0) / trials_c
        dist = crit * math.sqrt(q_c * (1.0 - q_c) / trials_c)
        low, high = q_c - dist, q_c + dist
    else:  # wilson
        crit2 = crit**2
        denom = 1 + crit2 / trials
        center = (q + crit2 / (2 * trials)) / denom
        dist = crit * math.sqrt(q * (1.0 - q) / trials + crit2 / (4.0 * trials**2)) / denom
        low, high = center - dist, center + dist
    return min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0)


def _scipy_stats() -> Any:
    try:
        from scipy import stats
    except ImportError:
        raise ImportError("this interval needs scipy's beta distribution: "
                          "pip install 'rankeval-exact[stats]'") from None
    return stats


# ---------------------------------------------------------------------------------------------
# DeLong


@dataclass(frozen=True)
class DeLong:
    """The parts of DeLong's variance of one ROC area.

    ``auc`` is the placements' mean, ``s10`` and ``s01`` the sample variances (divisor m - 1
    and n - 1) of the positives' and the negatives' placements, ``positives`` and
    ``negatives`` m and n. :attr:`variance` is ``s10 / m + s01 / n``.
    """

    auc: float
    s10: float
    s01: float
    positives: int
    negatives: int

    @property
    def variance(self) -> float:
        """``s10 / m + s01 / n``; NaN with fewer than two cases of either class."""
        if self.positives < 2 or self.negatives < 2:
            return math.nan
        return self.s10 / self.positives + self.s01 / self.negatives


def blocks(keys: NDArray[Any], labels: NDArray[np.bool_], grouped: bool,
           weights: NDArray[np.float64] | None = None
           ) -> tuple[NDArray[np.int64], NDArray[Any], NDArray[Any]]:
    """The blocks of a sorted ranking whose cases share one placement: runs of equal keys
    (``grouped``; the tie blocks of :func:`rankeval.points.tie_block_ends`) or single cases.
    Returns each block's first row, positives and negatives (int64 counts; with ``weights``,
    float64 sums of the cases' weights).

    >>> [a.tolist() for a in blocks(np.array([1.0, 1.0, 2.0]), np.array([True, False, True]),
    ...                             True)]
    [[0, 2], [1, 1], [1, 0]]

    Complexity: O(n).
    """
    n = int(keys.shape[0])
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    if grouped:
        ends = points.tie_block_ends(keys)
        starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    else:
        starts = np.arange(n, dtype=np.int64)
    if weights is not None:
        return (starts, np.add.reduceat(np.where(labels, weights, 0.0), starts),
                np.add.reduceat(np.where(labels, 0.0, weights), starts))
    pos_in = np.add.reduceat(labels.astype(np.int64), starts)
    return starts, pos_in, np.diff(np.append(starts, n)) - pos_in


@dataclass(frozen=True)
class PlacementSums:
    """Exact integer sums over the cases of a ranking, from which DeLong's variance follows.

    A positive's *doubled placement* is twice the negatives ranked below it plus the tied
    ones (an integer); a negative's, twice the positives ranked above it plus the tied ones.
    ``pos_sum`` and ``pos_squares`` are the sums of the positives' doubled placements and of
    their squares, ``neg_sum`` and ``neg_squares`` the negatives'. The sums are Python
    integers, so that the sums of parts of a ranking (the buckets of a partitioned
    evaluation) add up to the whole ranking's, bit for bit, in any order.
    """

    pos_sum: int = 0
    pos_squares: int = 0
    neg_sum: int = 0
    neg_squares: int = 0

    def __add__(self, other: PlacementSums) -> PlacementSums:
        return PlacementSums(self.pos_sum + other.pos_sum, self.pos_squares + other.pos_squares,
                             self.neg_sum + other.neg_sum, self.neg_squares + other.neg_squares)


def exact_dot(weights: NDArray[np.int64], values: NDArray[np.int64]) -> int:
    """``sum(weights * values)`` of non-negative int64 arrays, exactly, as a Python integer.

    In int64 chunks small enough that no partial sum can overflow (a single weight too large
    for any chunk is multiplied in Python integers). The weights are counts of cases: their
    total fits in int64. O(n).

    >>> exact_dot(np.array([3, 2**40]), np.array([2**40, 2**40]))
    1208925819617927709589504
    """
    if weights.shape[0] == 0:
        return 0
    top = int(values.max())
    if top == 0:
        return 0
    per = (1 << 61) // top  # a chunk of weights summing below 2 * per sums below 2**62
    total = 0
    big = weights > per if per else weights > 0
    if big.any():
        large: list[int] = weights[big].tolist()
        factors: list[int] = values[big].tolist()
        total += sum(w * v for w, v in zip(large, factors, strict=True))
        weights = np.where(big, 0, weights)
        if not per:
            return total
    chunk = np.cumsum(weights) // per
    starts = np.flatnonzero(np.diff(chunk, prepend=-1))
    partial: list[int] = np.add.reduceat(weights * values, starts).tolist()
    return total + sum(partial)


def placement_sums(pos_in: NDArray[np.int64], neg_in: NDArray[np.int64],
                   pos_above: NDArray[np.int64], neg_below: NDArray[np.int64],
                   neg_missed: int) -> PlacementSums:
    """The :class:`PlacementSums` of ranked blocks, each with ``pos_in`` positives and
    ``neg_in`` negatives that tie, ``pos_above`` positives ranked above it and ``neg_below``
    ranked negatives below it; the ``neg_missed`` negative misses rank below every block.
    The misses' own placements are added by :func:`delong_from_sums`. O(blocks).
    """
    d = 2 * (neg_below + neg_missed) + neg_in
    e = 2 * pos_above + pos_in
    return PlacementSums(exact_dot(pos_in, d), exact_dot(pos_in, d * d),
                         exact_dot(neg_in, e), exact_dot(neg_in, e * e))


def delong_from_sums(sums: PlacementSums, ranked_pos: int, ranked_neg: int, pos_missed: int = 0,
                     neg_missed: int = 0, auc: float | None = None) -> DeLong:
    """:class:`DeLong` of a ranking from its blocks' :func:`placement_sums`, with the misses'.

    The sample variances are ``(m·Σd² - (Σd)²) / (4k²·m·(m - 1))`` (and the same for the
    negatives): exact integers, one rounding. ``auc`` (the evaluator's area) is reported as
    the mean; without it the mean is ``Σd / (2km)``.
    """
    m, k = ranked_pos + pos_missed, ranked_neg + neg_missed
    if m == 0 or k == 0:
        return DeLong(math.nan, math.nan, math.nan, m, k)
    # A positive miss ties the negative misses; a negative miss lies below every ranked positive.
    d_miss, e_miss = neg_missed, 2 * ranked_pos + pos_missed
    pos_sum = sums.pos_sum + pos_missed * d_miss
    pos_squares = sums.pos_squares + pos_missed * d_miss * d_miss
    neg_sum = sums.neg_sum + neg_missed * e_miss
    neg_squares = sums.neg_squares + neg_missed * e_miss * e_miss
    theta = pos_sum / (2 * k * m) if auc is None else auc
    s10 = (m * pos_squares - pos_sum * pos_sum) / (4 * k * k * m * (m - 1)) if m > 1 else math.nan
    s01 = (k * neg_squares - neg_sum * neg_sum) / (4 * m * m * k * (k - 1)) if k > 1 else math.nan
    return DeLong(theta, s10, s01, m, k)


def delong(keys: FloatArray, labels: NDArray[np.bool_], grouped: bool, pos_missed: int = 0,
           neg_missed: int = 0, auc: float | None = None) -> DeLong:
    """DeLong's variance parts of a ranking (keys ascending: the best case first).

    Each positive's placement is the share of negatives ranked below it (tied ones one half
    when ``grouped``, else ties are in the order given), each negative's the share of
    positives ranked above it; misses are ranked last (see the module text). ``auc``, when
    given, is reported as the placements' mean (the evaluator's exact area). The variances
    come from exact integer sums (:func:`delong_from_sums`).

    >>> d = delong(np.array([-0.9, -0.8, -0.7, -0.6]), np.array([True, False, True, False]),
    ...            grouped=True)
    >>> d.auc, d.s10, d.s01
    (0.75, 0.125, 0.125)

    Complexity: O(n) for n ranked cases, O(blocks) extra memory.
    """
    _, pos_in, neg_in = blocks(keys, labels, grouped)
    return delong_of_blocks(pos_in, neg_in, pos_missed, neg_missed, auc)


def delong_of_blocks(pos_in: NDArray[np.int64], neg_in: NDArray[np.int64], pos_missed: int = 0,
                     neg_missed: int = 0, auc: float | None = None) -> DeLong:
    """:func:`delong` of ranked blocks of ``pos_in`` positives and ``neg_in`` negatives each
    (best block first): cases given by their counts, such as integer weights. O(blocks)."""
    ranked_pos, ranked_neg = int(pos_in.sum()), int(neg_in.sum())
    pos_above = np.cumsum(pos_in) - pos_in  # positives in the blocks above
    neg_below = ranked_neg - np.cumsum(neg_in)  # ranked negatives in the blocks below
    sums = placement_sums(pos_in, neg_in, pos_above, neg_below, int(neg_missed))
    return delong_from_sums(sums, ranked_pos, ranked_neg, int(pos_missed), int(neg_missed), auc)


def delong_interval(parts: DeLong, level: float = 0.95) -> Interval:
    """pROC's ``ci.auc(method="delong")``: ``θ ± z·sqrt(variance)``, clipped to [0, 1].

    >>> i = delong_interval(DeLong(0.75, 0.125, 0.125, 2, 2))
    >>> round(i.low, 6), i.high, round(i.std_error, 6)
    (0.057048, 1.0, 0.353553)
    """
    level = check_level(level)
    se = math.sqrt(parts.variance) if parts.variance == parts.variance else math.nan
    if se != se:
        return Interval(parts.auc, math.nan, math.nan, level, "delong", math.nan)
    z = normal_quantile(1.0 - (1.0 - level) / 2.0)
    low = min(max(parts.auc - z * se, 0.0), 1.0)
    high = min(max(parts.auc + z * se, 0.0), 1.0)
    return Interval(parts.auc, low, high, level, "delong", se)
