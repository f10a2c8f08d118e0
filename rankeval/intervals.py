"""Every number with its uncertainty: confidence intervals and tests, exact where the method is.

* :class:`Interval` — a value with its confidence interval, level, method and standard error.
* :func:`delong` — DeLong, DeLong & Clarke-Pearson (1988)'s variance of the ROC area, from
  each case's *placement* (Sun & Xu 2014: the share of the other class it outranks, ties one
  half), computed from a ranking in one pass; the numbers of R's pROC ``ci.auc``.
* :func:`proportion_interval` — Wilson, Agresti-Coull, Clopper-Pearson (``"beta"``), Jeffreys
  and the normal approximation, by statsmodels' ``proportion_confint`` names and formulas.

Quantiles of the normal distribution come from the standard library
(:class:`statistics.NormalDist`); Clopper-Pearson and Jeffreys need the beta distribution's,
from scipy (``pip install rankeval[stats]``).

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
    "blocks",
    "check_level",
    "delong",
    "delong_interval",
    "normal_quantile",
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
                          "pip install 'rankeval[stats]'") from None
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


def blocks(keys: NDArray[Any], labels: NDArray[np.bool_], grouped: bool
           ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The blocks of a sorted ranking whose cases share one placement: runs of equal keys
    (``grouped``; the tie blocks of :func:`rankeval.points.tie_block_ends`) or single cases.
    Returns each block's first row, positives and negatives.

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
    pos_in = np.add.reduceat(labels.astype(np.int64), starts)
    return starts, pos_in, np.diff(np.append(starts, n)) - pos_in


def delong(keys: FloatArray, labels: NDArray[np.bool_], grouped: bool, pos_missed: int = 0,
           neg_missed: int = 0, auc: float | None = None) -> DeLong:
    """DeLong's variance parts of a ranking (keys ascending: the best case first).

    Each positive's placement is the share of negatives ranked below it (tied ones one half
    when ``grouped``, else ties are in the order given), each negative's the share of
    positives ranked above it; misses are ranked last (see the module text). ``auc``, when
    given, is used as the placements' mean (the evaluator's exact area); the sums of squares
    are accumulated in rank order, a block of equal keys at a time.

    >>> d = delong(np.array([-0.9, -0.8, -0.7, -0.6]), np.array([True, False, True, False]),
    ...            grouped=True)
    >>> d.auc, d.s10, d.s01
    (0.75, 0.125, 0.125)

    Complexity: O(n) for n ranked cases, O(blocks) extra memory.
    """
    _, pos_in, neg_in = blocks(keys, labels, grouped)
    ranked_pos, ranked_neg = int(pos_in.sum()), int(neg_in.sum())
    m, k = ranked_pos + int(pos_missed), ranked_neg + int(neg_missed)
    if m == 0 or k == 0:
        return DeLong(math.nan, math.nan, math.nan, m, k)
    pos_above = np.cumsum(pos_in) - pos_in  # positives in the blocks above
    neg_below = ranked_neg - np.cumsum(neg_in)  # ranked negatives in the blocks below
    # Placements per block, with the block's cases as weights; then the misses' block.
    v10 = (neg_below + 0.5 * neg_in + neg_missed) / k
    v01 = (pos_above + 0.5 * pos_in) / m
    v10_miss = 0.5 * neg_missed / k
    v01_miss = (ranked_pos + 0.5 * pos_missed) / m
    theta = (float(np.dot(pos_in, v10)) + pos_missed * v10_miss) / m if auc is None else auc
    ss10 = float(np.dot(pos_in, (v10 - theta) ** 2)) + pos_missed * (v10_miss - theta) ** 2
    ss01 = float(np.dot(neg_in, (v01 - theta) ** 2)) + neg_missed * (v01_miss - theta) ** 2
    s10 = ss10 / (m - 1) if m > 1 else math.nan
    s01 = ss01 / (k - 1) if k > 1 else math.nan
    return DeLong(theta, s10, s01, m, k)


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
