"""From a curve to a decision: operating points, best thresholds, constrained points, the KS
statistic and partial ROC areas, each a pure function of a ranking's
:class:`~rankeval.points.OperatingPoints`.

Threshold convention: a case is predicted positive iff ``score >= threshold``; misses (cases
the system never scored) are false negatives and negative misses true negatives at every
threshold. The decisions a ranking allows are its **cuts**: one per distinct score, plus
"predict nothing" (threshold ``+inf``; left out when a case scores ``+inf``, since no
threshold then reproduces it). A threshold returned is a score of the ranking, so
``ev.confusion_at(point.threshold)`` gives back the point's counts.

Every function here reads only the cumulative counts ``tp``, ``fp`` and the scores of the
points, so the evaluator, its windows, each category of the multi-category evaluator and
each bootstrap resample (:mod:`rankeval.scored.uncertainty`) share it: one implementation of
each read. Ties among equally good cuts are broken by the better other coordinate (where the
read names one), then by the **highest threshold** (the fewest cases predicted positive).

>>> from rankeval.points import operating_points
>>> import numpy as np
>>> p = operating_points(-np.array([0.9, 0.8, 0.7, 0.4]), np.array([True, False, True, False]),
...                      2, 2, "grouped")
>>> best_threshold(p, "youden").threshold, ks_statistic(p).value  # J = 1/2 at 0.9 and 0.7
(0.9, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from rankeval import formulas
from rankeval.checks import check_beta, check_choice, check_int, check_real, check_threshold
from rankeval.confusion import CostMatrix, PrecisionRecallEvaluation, _as_cost_matrix
from rankeval.points import OperatingPoints

__all__ = [
    "ASKABLE",
    "GAINS_COLUMNS",
    "METHODS",
    "RULES",
    "STANDARDIZE",
    "THRESHOLD_COLUMNS",
    "Ask",
    "Cuts",
    "DecisionReads",
    "OperatingPoint",
    "area_under_pr_gain_curve",
    "area_under_roc_convex_hull",
    "ask",
    "asks_of",
    "best_difference",
    "best_threshold",
    "candidates",
    "check_range",
    "confusion_at",
    "constrained",
    "cost_curve",
    "covers",
    "cuts",
    "davis_goadrich_area",
    "decision_curve",
    "det_curve",
    "gains_curve",
    "gains_table",
    "interpolated",
    "ks_statistic",
    "lift_at",
    "lift_curve",
    "min_expected_cost",
    "net_benefit",
    "partial_roc_auc",
    "pr_gain_curve",
    "roc_convex_hull",
    "sensitivity_at_specificities",
    "thresholds_table",
    "undefined_ks",
    "upper_hull",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
Rule = Literal["youden", "closest_topleft", "f_beta", "cost"]
#: ``best_threshold``'s rules.
RULES: tuple[Rule, ...] = ("youden", "closest_topleft", "f_beta", "cost")
#: ``partial_roc_auc``'s standardisations (None: the raw area).
STANDARDIZE = ("mcclish", "normalized")
Costs = CostMatrix | Mapping[str, float] | Sequence[Sequence[float]] | tuple[float, float]


@dataclass(frozen=True)
class OperatingPoint:
    """One decision: a threshold, the counts it gives and the value that chose it.

    Attributes
    ----------
    threshold : float
        Cases scoring at least this are predicted positive (``+inf``: none is).
    tp, fp, tn, fn : int or float
        The confusion matrix at the threshold (misses among ``fn`` and ``tn``): counts, or
        sums of weights (floats) for weighted cases.
    rule : str
        What chose the point: a rule of ``best_threshold``, a constrained read
        (``"sensitivity_at"``, ...), ``"ks"``.
    value : float
        The rule's value at the point (Youden's J, the F-measure, the mean cost, the
        constrained read's value, the KS statistic).

    >>> point = OperatingPoint(0.5, tp=3, fp=1, tn=4, fn=2, rule="youden", value=0.4)
    >>> point.sensitivity, point.specificity, point.precision
    (0.6, 0.8, 0.75)
    """

    threshold: float
    tp: int | float
    fp: int | float
    tn: int | float
    fn: int | float
    rule: str
    value: float

    @property
    def sensitivity(self) -> float:
        """``tp / (tp + fn)`` (recall); NaN without positives."""
        return self.confusion().recall()

    @property
    def specificity(self) -> float:
        """``tn / (tn + fp)``; NaN without negatives."""
        return self.confusion().specificity()

    @property
    def precision(self) -> float:
        """``tp / (tp + fp)``; NaN when nothing is predicted positive."""
        return self.confusion().precision()

    def confusion(self) -> PrecisionRecallEvaluation:
        """The point's confusion matrix, with every count and rate."""
        return _confusion(self.tp, self.fn, self.fp, self.tn)

    def to_text(self, digits: int = 4) -> str:
        """The threshold, the counts, the three rates and the rule's value."""
        from rankeval._text import summary_text

        return summary_text(f"OperatingPoint (rule {self.rule})", [
            ("threshold", self.threshold), ("tp", self.tp), ("fp", self.fp), ("tn", self.tn),
            ("fn", self.fn), ("sensitivity", self.sensitivity),
            ("specificity", self.specificity), ("precision", self.precision),
            (self.rule, self.value)], digits)


@dataclass(frozen=True)
class Cuts:
    """The cuts of a ranking: thresholds descending, the cumulative counts at each.

    ``tp[i]`` and ``fp[i]`` are the positives and negatives scoring at least
    ``thresholds[i]``; ``num_pos`` and ``num_neg`` are R and N, misses included. ``none``:
    whether "predict nothing" (threshold ``+inf``, no count) is a cut too, before the
    arrays' first (it is unless a case scores ``+inf``); the arrays are the points' own
    when ties are grouped, so the hot reads (the best threshold, KS, one threshold's counts)
    weigh it apart rather than copy them; :meth:`full` puts it in.
    """

    thresholds: FloatArray
    tp: IntArray
    fp: IntArray
    num_pos: int
    num_neg: int
    none: bool = False

    def point(self, i: int, rule: str, value: float) -> OperatingPoint:
        """The cut ``i`` (-1: "predict nothing") as an :class:`OperatingPoint`."""
        if i < 0:
            return OperatingPoint(math.inf, tp=0, fp=0, tn=self.num_neg, fn=self.num_pos,
                                  rule=rule, value=float(value))
        tp, fp = _scalar(self.tp[i]), _scalar(self.fp[i])
        return OperatingPoint(float(self.thresholds[i]), tp=tp, fp=fp, tn=self.num_neg - fp,
                              fn=self.num_pos - tp, rule=rule, value=float(value))

    def full(self) -> Cuts:
        """Every cut in the arrays, "predict nothing" first where it is one (copies)."""
        if not self.none:
            return self
        return Cuts(np.concatenate(([math.inf], self.thresholds)),
                    np.concatenate((np.zeros(1, dtype=np.int64), self.tp)),
                    np.concatenate((np.zeros(1, dtype=np.int64), self.fp)),
                    self.num_pos, self.num_neg)

    def curve(self) -> Cuts:
        """:meth:`full` and, where misses keep the last cut short of every case, the curve's
        end ``(R, N)`` (every case positive, misses too: no threshold gives it, threshold
        ``-inf``), as ``roc_curve()`` ends at ``[1, 1]``: what the interpolated reads and
        the ROC band interpolate along, as pROC does along its curve."""
        c = self.full()
        if c.tp.shape[0] and c.tp[-1] == c.num_pos and c.fp[-1] == c.num_neg:
            return c
        return Cuts(np.append(c.thresholds, -math.inf), np.append(c.tp, c.num_pos),
                    np.append(c.fp, c.num_neg), c.num_pos, c.num_neg)

    def best(self, values: NDArray[Any], nothing: Any, maximise: bool) -> int:
        """The index of the best of ``values`` (one per cut in the arrays; the first of
        equals), or -1 when "predict nothing", worth ``nothing``, is at least as good."""
        if values.shape[0] == 0:
            return -1
        i = int(np.argmax(values) if maximise else np.argmin(values))
        if self.none and (nothing >= values[i] if maximise else nothing <= values[i]):
            return -1
        return i


def cuts(points: OperatingPoints | Cuts) -> Cuts:
    """The cuts of ``points``: the last point of each run of equal scores (every point when
    ties are grouped: the arrays are then the points' own), and whether "predict nothing"
    at ``+inf`` is one.

    Complexity: O(m) for m points; no copy when ties are grouped.
    """
    if isinstance(points, Cuts):
        return points
    scores = points.scores
    ends = _run_ends(scores)
    if ends is not None:  # insertion ties: the last point of each run of equal scores
        thresholds, tp, fp = scores[ends], points.tp[ends], points.fp[ends]
    else:  # one point per score already (grouped): no gather
        thresholds, tp, fp = scores, points.tp, points.fp
    none = not thresholds.shape[0] or bool(thresholds[0] < math.inf)
    return Cuts(thresholds, tp, fp, points.num_pos, points.num_neg, none)


def _run_ends(scores: FloatArray) -> IntArray | None:
    """The last point of each run of equal scores, or None when every point ends its own
    (no two neighbours tie: the grouped policy's points)."""
    tied = scores[1:] == scores[:-1]
    return np.flatnonzero(np.append(~tied, True)) if tied.any() else None


def confusion_at(points: OperatingPoints | Cuts, threshold: float) -> PrecisionRecallEvaluation:
    """The confusion matrix of predicting positive every case scoring at least ``threshold``.

    Complexity: O(log m) after :func:`cuts`' O(m).
    """
    c = cuts(points)
    tp, fp = _counts_at(c, np.array([check_threshold(threshold)]))
    tp0, fp0 = _scalar(tp[0]), _scalar(fp[0])
    return _confusion(tp0, c.num_pos - tp0, fp0, c.num_neg - fp0)


def _scalar(count: Any) -> Any:
    """A count read from an array as a Python number: an int, or a float for a sum of
    weights (``int()`` would truncate it)."""
    return count.item() if isinstance(count, np.generic) else count


def _shown(count: Any) -> str:
    """A count or a sum of weights as text: a whole number without a decimal point."""
    value = _scalar(count)
    return str(int(value)) if float(value).is_integer() else repr(value)


def _confusion(tp: Any, fn: Any, fp: Any, tn: Any) -> PrecisionRecallEvaluation:
    """The confusion matrix of counts, or of sums of weights when any is a float."""
    if any(isinstance(cell, float) for cell in (tp, fn, fp, tn)):
        return PrecisionRecallEvaluation.of_weights(tp=tp, fn=fn, fp=fp, tn=tn)
    return PrecisionRecallEvaluation(tp=tp, fn=fn, fp=fp, tn=tn)


def _counts_at(c: Cuts, thresholds: FloatArray) -> tuple[IntArray, IntArray]:
    """The positives and negatives scoring at least each threshold: the counts of the last
    cut at or above it, none above the first."""
    at = _last_at_or_above(c.thresholds, thresholds)
    if not c.tp.shape[0]:
        return np.zeros(thresholds.shape[0], np.int64), np.zeros(thresholds.shape[0], np.int64)
    last = np.maximum(at, 0)
    return np.where(at >= 0, c.tp[last], 0), np.where(at >= 0, c.fp[last], 0)


def _last_at_or_above(descending: FloatArray, thresholds: FloatArray) -> IntArray:
    """The index of the last of the ``descending`` thresholds at or above each threshold
    (-1: none is)."""
    found: IntArray = np.searchsorted(descending[::-1], thresholds, side="left")
    last: IntArray = (descending.shape[0] - 1 - found).astype(np.int64)
    return last


# ---------------------------------------------------------------------------------------------
# best thresholds


def best_threshold(points: OperatingPoints | Cuts, rule: str = "youden", *, beta: float = 1.0,
                   costs: Costs | None = None, prevalence: float | None = None
                   ) -> OperatingPoint:
    """The cut that is best by ``rule``.

    ====================  ======================================================================
    rule                  the cut that
    ====================  ======================================================================
    ``"youden"``          maximises Youden's J = sensitivity + specificity - 1 (pROC's
                          ``coords("best")``); value J
    ``"closest_topleft"`` minimises (1 - sensitivity)^2 + (1 - specificity)^2 (pROC's
                          ``best.method="closest.topleft"``); value that squared distance
    ``"f_beta"``          maximises the F-measure with ``beta``; value F
    ``"cost"``            minimises the expected cost per case under ``costs`` (a
                          :class:`~rankeval.CostMatrix`, a mapping or rows as
                          ``PrecisionRecallEvaluation.cost`` takes, or ``(fp_cost,
                          fn_cost)``), at the data's prevalence or at ``prevalence``
                          (positives reweighted to it); value that cost
    ====================  ======================================================================

    Youden's J and the KS statistic are compared exactly (as integers ``tp N - fp R``,
    :func:`best_difference`); the other rules in floating point. Ties go to the highest
    threshold.

    Raises
    ------
    ValueError
        An unknown rule; no positive or no negative where the rule needs them; ``costs``
        missing for ``"cost"`` or given to another rule; a prevalence outside (0, 1).
    """
    rule = _rule(rule, costs, prevalence)
    c = cuts(points)
    i, value = _best_index(c, rule, beta, costs, prevalence)
    point = c.point(i, rule, value)
    return replace(point, value=point.confusion().youden_index()) if rule == "youden" else point


def _rule(rule: str, costs: Costs | None, prevalence: float | None) -> str:
    """``best_threshold``'s rule, checked with the arguments only some rules take."""
    rule = check_choice(rule, "rule", RULES)
    if rule != "cost" and (costs is not None or prevalence is not None):
        raise ValueError(f"costs= and prevalence= apply to rule 'cost', not to {rule!r}")
    if rule == "cost" and costs is None:
        raise ValueError("rule 'cost' needs costs= (a CostMatrix, or (fp_cost, fn_cost))")
    return rule


def _best_index(c: Cuts, rule: str, beta: float, costs: Costs | None,
                prevalence: float | None) -> tuple[int, float]:
    """The best cut by a checked ``rule`` (-1: "predict nothing"; the first of equals) and
    the rule's value there (Youden's J is left to the point)."""
    r, n = c.num_pos, c.num_neg
    if rule == "youden":
        _need(r, n, rule)
        return best_difference(c, absolute=False)[0], 0.0
    if rule == "closest_topleft":
        _need(r, n, rule)
        distance = np.square((r - c.tp) / r) + np.square(c.fp / n)
        i = c.best(distance, 1.0, False)
        return i, float(distance[i]) if i >= 0 else 1.0
    if rule == "f_beta":
        checked = check_beta(beta)
        if r == 0:
            raise ValueError("rule 'f_beta' needs at least one positive case")
        f = formulas.f_measure_of_count_arrays(checked, c.tp, r - c.tp, c.fp)
        i = c.best(f, 0.0, True)
        return i, float(f[i]) if i >= 0 else 0.0
    assert costs is not None
    matrix = _costs(costs)
    if prevalence is None:
        if r + n == 0:
            raise ValueError("rule 'cost' needs at least one case")
        cost = (c.tp * matrix.tp + (r - c.tp) * matrix.fn + c.fp * matrix.fp
                + (n - c.fp) * matrix.tn) / (r + n)
        nothing = (r * matrix.fn + n * matrix.tn) / (r + n)
    else:
        pi = _prevalence(prevalence)
        _need(r, n, rule)
        tpr, fpr = c.tp / r, c.fp / n
        cost = (pi * (tpr * matrix.tp + (1 - tpr) * matrix.fn)
                + (1 - pi) * (fpr * matrix.fp + (1 - fpr) * matrix.tn))
        nothing = pi * (0.0 * matrix.tp + 1.0 * matrix.fn) + (1 - pi) * (
            0.0 * matrix.fp + 1.0 * matrix.tn)
    i = c.best(cost, nothing, False)
    return i, float(cost[i]) if i >= 0 else float(nothing)


def _costs(costs: Costs) -> CostMatrix:
    if isinstance(costs, tuple) and len(costs) == 2 and not isinstance(costs[0], Sequence):
        return CostMatrix(tp=0, fn=costs[1], fp=costs[0], tn=0)
    return _as_cost_matrix(costs)


def _need(r: int, n: int, what: str) -> None:
    if r == 0 or n == 0:
        raise ValueError(f"{what} needs positive and negative cases; "
                         f"there are {r} positives and {n} negatives")


#: Cuts read per slice by :func:`best_difference`: its buffers stay this small.
_SLICE = 1 << 20


def best_difference(c: Cuts, absolute: bool) -> tuple[int, Any]:
    """The cut with the largest ``tp N - fp R`` (``(TPR - FPR) R N``; its absolute value when
    ``absolute``) and that value, the first of equals, "predict nothing" (worth 0) first
    when it is a cut: ``(-1, 0)`` for it.

    Exact: int64 while R N < 2^62 (a billion cases), Python ints beyond. Read in slices
    through two reused buffers, so it allocates O(1) memory however many cuts there are.
    Sums of weights (float64 counts) are compared in float64, each product rounded once: the
    same values, so the same cut, as the counts while the weights are integers (below 2^53).
    """
    r, n = c.num_pos, c.num_neg
    best_i, best_v = (-1, 0) if c.none else (-1, None)
    size = c.tp.shape[0]
    weighted = c.tp.dtype == np.float64
    wide = not weighted and r * n >= 2**62
    buffer = np.empty(min(size, _SLICE),
                      dtype=object if wide else np.float64 if weighted else np.int64)
    other = np.empty_like(buffer)
    for start in range(0, size, _SLICE):
        tp, fp = c.tp[start:start + _SLICE], c.fp[start:start + _SLICE]
        d, e = buffer[:tp.shape[0]], other[:tp.shape[0]]
        if wide:
            d[:] = tp.astype(object) * n - fp.astype(object) * r
        else:
            np.multiply(tp, n, out=d)
            np.multiply(fp, r, out=e)
            np.subtract(d, e, out=d)
        if absolute:
            np.abs(d, out=d)
        j = int(np.argmax(d))
        if best_v is None or d[j] > best_v:
            best_i, best_v = start + j, _scalar(d[j])
    return best_i, best_v or 0


def ks_statistic(points: OperatingPoints | Cuts) -> OperatingPoint:
    """The Kolmogorov-Smirnov statistic: the largest ``|TPR - FPR|`` over the cuts, which is
    the two-sample statistic of the positives' and the negatives' scores (scipy's
    ``ks_2samp``; misses count as scoring below every case), and the cut where it is reached.

    Undefined without positives or negatives: value and threshold NaN, nothing predicted
    positive.
    """
    c = cuts(points)
    r, n = c.num_pos, c.num_neg
    if r == 0 or n == 0:
        return undefined_ks(r, n)
    i, difference = best_difference(c, absolute=True)
    return c.point(i, "ks", difference / (r * n))


def undefined_ks(num_pos: int, num_neg: int) -> OperatingPoint:
    """The KS read without positives or without negatives: no cut, value NaN."""
    return OperatingPoint(math.nan, tp=0, fp=0, tn=num_neg, fn=num_pos, rule="ks",
                          value=math.nan)


# ---------------------------------------------------------------------------------------------
# constrained points

Constraint = Literal["sensitivity_at", "specificity_at", "precision_at_recall",
                     "recall_at_precision"]
_GIVEN = {"sensitivity_at": "specificity", "specificity_at": "sensitivity",
          "precision_at_recall": "recall", "recall_at_precision": "precision"}


def constrained(points: OperatingPoints | Cuts, read: Constraint, bound: float,
                method: str = "achievable") -> OperatingPoint | float:
    """A constrained point: ``read`` is one of

    * ``"sensitivity_at"`` — the sensitivity where specificity >= ``bound``;
    * ``"specificity_at"`` — the specificity where sensitivity >= ``bound``;
    * ``"precision_at_recall"`` — the precision where recall >= ``bound``;
    * ``"recall_at_precision"`` — the recall where precision >= ``bound``.

    ``method="achievable"``: the best real cut meeting the constraint (torchmetrics'
    ``BinarySensitivityAtSpecificity`` and its kin), ties to the better constrained
    coordinate then the highest threshold; an :class:`OperatingPoint`. The constraint is
    compared with the rate as one rounded quotient (``(N - fp) / N >= bound``).
    ``method="interpolated"``: pROC's ``coords(x=bound, input=...)`` along the curve (the cuts
    and, with misses, its end where every case is positive, as ``roc_curve()`` ends at
    ``[1, 1]``) — where a point meets the bound exactly the best such point's value, else
    the linear interpolation between the two points around it; a float. Precision is not
    monotone along the cuts, so ``recall_at_precision`` has no interpolated value.

    Raises
    ------
    ValueError
        ``bound`` outside [0, 1] or NaN; an unknown method; no cut meets the constraint
        (achievable) or the bound is outside the cuts' range (interpolated); no positive
        or no negative case.
    """
    given = _GIVEN[read]
    bound = _bound(read, bound)
    method = check_choice(method, "method", METHODS)
    c = cuts(points).full() if method == "achievable" else cuts(points).curve()
    value, other = _coordinates(c, read)
    if method == "interpolated":
        if read == "recall_at_precision":
            raise ValueError("recall_at_precision has no interpolated value: precision is not "
                             "monotone along the cuts; use method='achievable'")
        if read == "precision_at_recall":  # precision is undefined at "predict nothing"
            keep = (c.tp + c.fp) > 0
            value, other = value[keep], other[keep]
        return _interpolated(other, value, bound, given, decreasing=given == "specificity")
    i = _achievable(c, read, value, other, bound)
    if i < 0:
        raise ValueError(f"no threshold gives {given} >= {bound!r}")
    return c.point(i, read, value[i])


#: The methods of the constrained reads.
METHODS = ("achievable", "interpolated")


def _bound(read: str, bound: object) -> float:
    """A constrained read's bound, checked: a rate in [0, 1] named as the read takes it."""
    given = _GIVEN[read]
    value = check_real(bound, given)
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise ValueError(f"{given} must be in [0, 1]; got {bound!r}")
    return value


def _coordinates(c: Cuts, read: str) -> tuple[FloatArray, FloatArray]:
    """A constrained read's value and constrained coordinate at each cut (the classes it
    needs checked)."""
    r, n = c.num_pos, c.num_neg
    if read in ("sensitivity_at", "specificity_at"):
        _need(r, n, read)
    elif r == 0:
        raise ValueError(f"{read} needs at least one positive case")
    sens = c.tp / r
    with np.errstate(invalid="ignore", divide="ignore"):
        spec = (n - c.fp) / n
        prec = c.tp / (c.tp + c.fp)
    return {"sensitivity_at": (sens, spec), "specificity_at": (spec, sens),
            "precision_at_recall": (prec, sens), "recall_at_precision": (sens, prec)}[read]


def _achievable(c: Cuts, read: str, value: FloatArray, other: FloatArray,
                bound: float) -> int:
    """The best cut meeting the constraint: the best value, then the better constrained
    coordinate, then the first cut; -1 when none meets it."""
    meets = other >= bound
    if read in ("precision_at_recall", "recall_at_precision"):
        meets &= (c.tp + c.fp) > 0
    if not meets.any():
        return -1
    candidates = np.flatnonzero(meets)
    best = value[candidates]
    top = candidates[best == best.max()]
    return int(top[np.argmax(other[top])])


def _interpolated(given: FloatArray, value: FloatArray, bound: float, name: str,
                  decreasing: bool) -> float:
    """:func:`interpolated` at one bound; a bound outside the cuts' range is an error."""
    if given.shape[0] == 0 or not given.min() <= bound <= given.max():
        low = float(given.min()) if given.shape[0] else math.nan
        high = float(given.max()) if given.shape[0] else math.nan
        raise ValueError(f"{name} {bound!r} is outside the cuts' range [{low!r}, {high!r}]")
    return float(interpolated(given, value, np.array([bound]), decreasing)[0])


def interpolated(given: FloatArray, value: FloatArray, bounds: FloatArray,
                 decreasing: bool) -> FloatArray:
    """pROC's ``coords`` interpolation at each of ``bounds``: ``given`` is monotone along the
    cuts (non-increasing when ``decreasing``, as specificity is; else non-decreasing); an
    exact match takes the match with the best ``value`` (pROC's last or first by the
    coordinate's direction), otherwise the line between the two cuts around the bound.
    NaN outside the cuts' range. Complexity: O(b log m) for b bounds over m cuts.
    """
    m = given.shape[0]
    out = np.full(bounds.shape[0], math.nan)
    if m == 0:
        return out
    j = _past(given, bounds, decreasing)
    if decreasing:
        exact = (j > 0) & (given[np.maximum(j - 1, 0)] == bounds)
        hit = j - 1
    else:
        exact = (j < m) & (given[np.minimum(j, m - 1)] == bounds)
        hit = j
    out[exact] = value[hit[exact]]
    inside = ~exact & (j > 0) & (j < m)
    right, left = j[inside], j[inside] - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        proportion = (bounds[inside] - given[right]) / (given[left] - given[right])
    out[inside] = value[right] + proportion * (value[left] - value[right])
    return out


def _past(given: FloatArray, bounds: FloatArray, decreasing: bool) -> IntArray:
    """Where each bound falls along a monotone coordinate: the first cut below it
    (``decreasing``: the cut before is the last at or above it), else the first cut at or
    above it. The two cuts around it are ``j - 1`` and ``j``."""
    if decreasing:
        found: IntArray = np.searchsorted(given[::-1], bounds, side="left")
        below: IntArray = (given.shape[0] - found).astype(np.int64)
        return below
    at: IntArray = np.searchsorted(given, bounds, side="left")
    return at.astype(np.int64)


def sensitivity_at_specificities(points: OperatingPoints | Cuts,
                                 specificities: FloatArray) -> FloatArray:
    """pROC's interpolated sensitivity at each specificity (``coords(x=...,
    input="specificity")``, what ``ci.se`` resamples) along the ROC curve (``roc_curve()``'s
    points, to ``[1, 1]``): the ROC band's values. NaN without positives or negatives."""
    c = cuts(points).curve()
    r, n = c.num_pos, c.num_neg
    if r == 0 or n == 0:
        return np.full(specificities.shape[0], math.nan)
    return interpolated((n - c.fp) / n, c.tp / r, specificities, decreasing=True)


# ---------------------------------------------------------------------------------------------
# partial areas


def check_range(span: object, name: str) -> tuple[float, float]:
    """A range ``(low, high)`` with ``0 <= low < high <= 1``."""
    if not isinstance(span, (tuple, list)) or len(span) != 2:
        raise TypeError(f"{name} must be a pair (low, high); got {span!r}")
    low, high = (check_real(v, name) for v in span)
    if not (0.0 <= low <= 1.0 and 0.0 <= high <= 1.0):
        raise ValueError(f"{name}={tuple(span)!r} must lie in [0, 1]")
    if low > high:
        raise ValueError(f"{name}={tuple(span)!r} is reversed: give (low, high)")
    if low == high:
        raise ValueError(f"{name}={tuple(span)!r} is empty")
    return low, high


def partial_roc_auc(points: OperatingPoints, fpr: object = None, tpr: object = None,
                    standardize: str | None = None) -> float:
    """The ROC area over a range of false-positive rates (``fpr=(a, b)``, pROC's focus
    "specificity": the area under the curve between x = a and x = b) or of true-positive
    rates (``tpr=(a, b)``, focus "sensitivity": the area right of the curve between y = a
    and y = b), exact at the range's ends: the curve is that of the points (``roc_curve()``:
    tie blocks diagonal when grouped), linear between them.

    ``standardize``: None (the raw area, pROC's), ``"mcclish"`` (McClish 1989 over the range
    given: ``(1 + (A - min) / (max - min)) / 2`` with ``min`` the diagonal's area in the range
    and ``max`` its width; scikit-learn's ``roc_auc_score(max_fpr=b)`` is ``fpr=(0, b)``; a
    curve below the diagonal gives a value below 1/2, as scikit-learn's does, where pROC
    gives NA) or ``"normalized"`` (the area over the range's width).

    NaN without positives or negatives.
    """
    _, low, high, standardize = _partial_range(fpr, tpr, standardize)
    if points.num_pos == 0 or points.num_neg == 0:
        return math.nan
    table = points.roc_table
    x, y = table[:, 0], table[:, 1]
    r, n = points.num_pos, points.num_neg
    tp, fp = (_scalar(points.tp[-1]), _scalar(points.fp[-1])) if points.size else (0, 0)
    below, left = points.doubled_areas
    if fpr is not None:
        end = (_scalar(below[-1]) if points.size else 0) + (n - fp) * (r + tp)
        area = (_area_to(x, y, below, end, high, 2 * r * n)
                - _area_to(x, y, below, end, low, 2 * r * n))
        diagonal = (high * high - low * low) / 2.0
    else:  # the area right of the curve: the strip's width less the area left of it
        end = (_scalar(left[-1]) if points.size else 0) + (r - tp) * (n + fp)
        area = (high - low) - (_area_to(y, x, left, end, high, 2 * r * n)
                               - _area_to(y, x, left, end, low, 2 * r * n))
        diagonal = ((1.0 - high) + (1.0 - low)) * (high - low) / 2.0
    width = high - low
    if standardize == "mcclish":
        return (1.0 + (area - diagonal) / (width - diagonal)) / 2.0
    if standardize == "normalized":
        return area / width
    return area


def _partial_range(fpr: object, tpr: object, standardize: str | None
                   ) -> tuple[str, float, float, str | None]:
    """A partial area's arguments, checked: the focus (``"fpr"`` or ``"tpr"``), the range's
    ends and the standardisation."""
    if (fpr is None) == (tpr is None):
        raise ValueError("give exactly one of fpr=(low, high) and tpr=(low, high)")
    focus = "fpr" if fpr is not None else "tpr"
    low, high = check_range(fpr if fpr is not None else tpr, focus)
    if standardize is not None:
        standardize = check_choice(standardize, "standardize", STANDARDIZE)
    return focus, low, high, standardize


def _area_to(x: FloatArray, y: FloatArray, doubled: NDArray[Any], end: int, t: float,
             scale: int) -> float:
    """``∫_0^t y dx`` along the polygon through the vertices ``(x, y)`` (both non-decreasing,
    from ``[0, 0]`` through the points to ``[1, 1]``): the exact doubled area in counts up to
    the last vertex at or left of t (``doubled`` at each point, ``end`` at ``[1, 1]``) over
    ``scale = 2 R N``, one rounding, then the trapezoid to t. A partitioned report holds the
    same counts at the vertices around t, so it reads the same bits."""
    i = int(np.searchsorted(x, t, side="right")) - 1  # the last vertex at or left of t
    counts = 0 if i == 0 else end if i == x.shape[0] - 1 else doubled[i - 1]
    area = (int(counts) if isinstance(counts, (int, np.integer)) else float(counts)) / scale
    if x[i] == t or i + 1 >= x.shape[0]:
        return area
    at = y[i] + (t - x[i]) / (x[i + 1] - x[i]) * (y[i + 1] - y[i])
    return area + float((t - x[i]) * (y[i] + at) / 2.0)


# ---------------------------------------------------------------------------------------------
# curves for decisions: DET, gains and lift, the ROC convex hull


def _frozen(array: FloatArray) -> FloatArray:
    array.flags.writeable = False
    return array


def det_curve(points: OperatingPoints | Cuts) -> FloatArray:
    """The detection error tradeoff: rows ``[fpr, fnr, threshold]``, scikit-learn's
    ``det_curve`` (thresholds ascending; from the last cut with no false positive to the first
    cut holding every ranked positive). Empty without positives or negatives."""
    c = cuts(points).full()
    r, n = c.num_pos, c.num_neg
    if r == 0 or n == 0:
        return _frozen(np.zeros((0, 3)))
    first = int(np.searchsorted(c.fp, c.fp[0], side="right")) - 1
    last = int(np.searchsorted(c.tp, c.tp[-1])) + 1
    rows = np.column_stack((c.fp[first:last] / n, (r - c.tp[first:last]) / r,
                            c.thresholds[first:last]))[::-1]
    return _frozen(np.ascontiguousarray(rows))


def gains_curve(points: OperatingPoints | Cuts) -> FloatArray:
    """The cumulative gains: rows ``[depth, gain, threshold]``, one per cut from "predict
    nothing" ``[0, 0, inf]``: depth the share of all cases (misses included) scoring at least
    the threshold, gain the share of the positives among them (``tp / R``)."""
    c = cuts(points).full()
    total = c.num_pos + c.num_neg
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = np.column_stack(((c.tp + c.fp) / total, c.tp / c.num_pos, c.thresholds))
    return _frozen(rows)


def lift_curve(points: OperatingPoints | Cuts) -> FloatArray:
    """The lift: rows ``[depth, lift, threshold]``, one per cut that predicts a case positive:
    lift = gain / depth = the precision over the positive rate ``R / (R + N)``, one rounded
    quotient ``tp (R + N) / (R (tp + fp))``."""
    c = cuts(points).full()
    total = c.num_pos + c.num_neg
    taken = c.tp + c.fp
    keep = taken > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = np.column_stack((taken[keep] / total,
                                (c.tp[keep] * total) / (c.num_pos * taken[keep]),
                                c.thresholds[keep]))
    return _frozen(rows)


def lift_at(points: OperatingPoints, fraction: float) -> float:
    """The lift of the top ``fraction`` of all cases: the positives among them over those a
    random pick of as many would hold. Within a tie block (grouped) the positives are
    its expected share, linear in the cases taken; with insertion ties, each case in turn.

    Raises ValueError for a fraction outside (0, 1] or beyond the ranked cases (the
    misses have no place in the ranking).
    """
    fraction = _fraction(fraction)
    r, total = points.num_pos, points.num_pos + points.num_neg
    if r == 0:
        return math.nan
    taken = np.concatenate(([0], points.tp + points.fp))
    hits = np.concatenate(([0], points.tp))
    wanted = fraction * total
    if wanted > taken[-1]:
        raise ValueError(f"fraction {fraction!r} reaches past the ranked cases "
                         f"({_shown(taken[-1])} of {_shown(total)}; the misses have no "
                         "rank)")
    positives = float(np.interp(wanted, taken, hits))
    return float(positives / r / fraction)


def _fraction(fraction: object) -> float:
    value = check_real(fraction, "fraction")
    if not 0.0 < value <= 1.0:  # NaN fails too
        raise ValueError(f"fraction must be in (0, 1]; got {fraction!r}")
    return value


#: The columns of :func:`thresholds_table`.
THRESHOLD_COLUMNS = ("threshold", "tp", "fp", "tn", "fn", "tpr", "fpr", "precision")


def thresholds_table(points: OperatingPoints | Cuts) -> NDArray[Any]:
    """Every cut as a row of a NumPy structured array (``pandas.DataFrame(table)`` takes it):
    ``threshold`` (descending, ``+inf`` first: nothing predicted positive), the four counts,
    ``tpr`` (recall), ``fpr`` and ``precision`` (NaN where nothing is predicted positive);
    scikit-learn's ``roc_curve(drop_intermediate=False)`` and ``precision_recall_curve`` read
    at the same thresholds. The curves with a threshold column, for logging or plotting.
    """
    c = cuts(points).full()
    r, n = c.num_pos, c.num_neg
    table = np.zeros(c.tp.shape[0], dtype=[(name, np.float64 if name in (
        "threshold", "tpr", "fpr", "precision") else c.tp.dtype) for name in THRESHOLD_COLUMNS])
    table["threshold"], table["tp"], table["fp"] = c.thresholds, c.tp, c.fp
    table["tn"], table["fn"] = n - c.fp, r - c.tp
    with np.errstate(invalid="ignore", divide="ignore"):
        table["tpr"] = c.tp / r
        table["fpr"] = c.fp / n
        table["precision"] = c.tp / (c.tp + c.fp)
    table.flags.writeable = False
    return table


#: The columns of :func:`gains_table` (H2O's gains/lift table).
GAINS_COLUMNS = ("group", "threshold", "cases", "positives", "response_rate",
                 "cumulative_capture", "lift", "cumulative_lift", "ks")


def gains_table(points: OperatingPoints | Cuts, bins: int = 10) -> NDArray[Any]:
    """H2O's gains/lift table as a NumPy structured array (``pandas.DataFrame(table)``
    takes it): the ranked cases in ``bins`` groups of about equal size by score, best
    first: the case of rank i is in group ``ceil(i bins / n)``, so group k ends at the first
    cut holding at least ``floor(k n / bins)`` ranked cases; a tie block is never split (a
    group may be larger, and groups whose end is the previous group's are merged: fewer
    rows). Per group: ``threshold`` (its lowest
    score), ``cases``, ``positives``, ``response_rate`` (positives / cases),
    ``cumulative_capture`` (tp / R), ``lift`` (response rate over R / (R + N)),
    ``cumulative_lift`` and ``ks`` (|TPR - FPR| at its end). R and N include the misses.
    """
    bins = check_int(bins, "bins", minimum=1)
    c = cuts(points)  # "predict nothing" ends no group: the cuts as they are, no copy
    r, n = c.num_pos, c.num_neg
    taken = c.tp + c.fp
    ranked = _scalar(taken[-1]) if taken.shape[0] else 0
    # floor(k n / bins): in integers, or for sums of weights in floats (the same integers
    # while the weights are)
    wanted = (np.arange(1, bins + 1, dtype=np.int64) * ranked // bins if c.tp.dtype == np.int64
              else np.floor(np.arange(1, bins + 1) * ranked / bins))
    ends = np.unique(np.searchsorted(taken, wanted[wanted > 0], side="left"))
    table = np.zeros(ends.shape[0], dtype=[(name, np.int64 if name == "group" else c.tp.dtype
                                            if name in ("cases", "positives") else np.float64)
                                           for name in GAINS_COLUMNS])
    tp, fp = c.tp[ends], c.fp[ends]
    previous_tp = np.concatenate(([0], tp[:-1]))
    previous_taken = np.concatenate(([0], (tp + fp)[:-1]))
    total = r + n
    with np.errstate(invalid="ignore", divide="ignore"):
        table["group"] = np.arange(1, ends.shape[0] + 1)
        table["threshold"] = c.thresholds[ends]
        table["cases"] = tp + fp - previous_taken
        table["positives"] = tp - previous_tp
        table["response_rate"] = table["positives"] / table["cases"]
        table["cumulative_capture"] = tp / r
        table["lift"] = (table["positives"] * total) / (table["cases"] * r)
        table["cumulative_lift"] = (tp * total) / ((tp + fp) * r)
        table["ks"] = np.abs(tp * n - fp * r) / (r * n)
    table.flags.writeable = False
    return table


def roc_convex_hull(points: OperatingPoints) -> FloatArray:
    """The ROC convex hull (ROCR's, Provost & Fawcett 2001): rows ``[fpr, tpr]``, the
    vertices of the upper envelope of the ROC points (``roc_curve()``'s, from ``[0, 0]`` to
    ``[1, 1]``), left to right; every point on or below it is reachable by randomising
    between two thresholds. Empty without positives or negatives."""
    if points.num_pos == 0 or points.num_neg == 0:
        return _frozen(np.zeros((0, 2)))
    fp = np.concatenate(([0], points.fp, [points.num_neg]))
    tp = np.concatenate(([0], points.tp, [points.num_pos]))
    return _frozen(np.ascontiguousarray(points.roc_table[upper_hull(fp, tp)]))


def upper_hull(fp: IntArray, tp: IntArray) -> IntArray:
    """The indices of the vertices of the upper convex hull of the points ``(fp, tp)``
    (sorted by fp, then tp, as a ranking's are), left to right, by Andrew's monotone chain
    with exact integer turns: the hull of the counts, whatever the rates' rounding, so the
    hull of any subset holding its vertices is the same (a partitioned report's). A point
    on a hull edge is not a vertex.

    >>> upper_hull(np.array([0, 0, 1, 2, 2]), np.array([0, 1, 1, 1, 2])).tolist()
    [0, 1, 4]

    Complexity: O(m) array work, then O(c) Python steps over the c corners (points reached
    by a vertical move and left by a horizontal one: only those can be vertices).
    """
    m = fp.shape[0]
    corner = np.ones(m, dtype=np.bool_)
    corner[:-1] &= fp[1:] > fp[:-1]  # the next point straight above: this one is below it
    corner[1:] &= tp[1:] > tp[:-1]  # the previous point level to the left: on an edge
    corner[[0, -1]] = True
    at = np.flatnonzero(corner)
    hull: list[int] = []
    xs, ys = fp[at].tolist(), tp[at].tolist()
    for k, (x, y) in enumerate(zip(xs, ys, strict=True)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]  # drop b when it is on or below the segment a-(x, y)
            if (xs[b] - xs[a]) * (y - ys[a]) - (ys[b] - ys[a]) * (x - xs[a]) < 0:
                break
            hull.pop()
        hull.append(k)
    return at[np.array(hull, dtype=np.int64)]


def area_under_roc_convex_hull(points: OperatingPoints) -> float:
    """The trapezoid area under :func:`roc_convex_hull`; NaN without both classes."""
    hull = roc_convex_hull(points)
    if hull.shape[0] == 0:
        return math.nan
    return formulas.area_under_curve(hull)


# ---------------------------------------------------------------------------------------------
# precision-recall gain (Flach & Kull 2015) and the Davis-Goadrich PR area


def pr_gain_curve(points: OperatingPoints | Cuts) -> FloatArray:
    """Flach & Kull's precision-recall-gain curve: rows ``[recall_gain, precision_gain]``
    from recall gain 0 on. With pi = R / (R + N): ``precision_gain = 1 - pi / (1 - pi) * FP
    / TP``, ``recall_gain = 1 - pi / (1 - pi) * FN / TP``, at each cut with a true positive;
    where no cut has recall gain 0 the curve starts at the point between the two cuts around
    it (counts interpolated linearly, their ``create_prg_curve``). Empty without positives
    or negatives, or when no threshold reaches recall pi (misses can keep it below).
    """
    c = cuts(points).full()
    r, n = c.num_pos, c.num_neg
    if r == 0 or n == 0 or not (c.tp > 0).any():
        return _frozen(np.zeros((0, 2)))
    odds = r / n
    with np.errstate(invalid="ignore", divide="ignore"):
        recall_gain = np.where(c.tp > 0, 1.0 - odds * (r - c.tp) / c.tp, -math.inf)
        precision_gain = 1.0 - odds * c.fp / c.tp
    reached = recall_gain >= 0.0
    if not reached.any():  # misses keep recall below pi at every threshold: no curve
        return _frozen(np.zeros((0, 2)))
    j = int(np.argmax(reached))
    rows = np.column_stack((recall_gain[j:], precision_gain[j:]))
    if recall_gain[j] > 0.0 and j > 0:  # the crossing of recall gain 0, in counts
        d_tp, d_fp = c.tp[j] - c.tp[j - 1], c.fp[j] - c.fp[j - 1]
        alpha = (r * r / (r + n) - c.tp[j - 1]) / d_tp if d_tp > 0 else 0.5
        tp, fp = c.tp[j - 1] + alpha * d_tp, c.fp[j - 1] + alpha * d_fp
        rows = np.vstack(([0.0, 1.0 - odds * fp / tp], rows))
    return _frozen(rows)


def area_under_pr_gain_curve(points: OperatingPoints | Cuts) -> float:
    """The trapezoid area under :func:`pr_gain_curve` (Flach & Kull's AUPRG; precision gains
    below 0 count negative); NaN where the curve is empty."""
    curve = pr_gain_curve(points)
    if curve.shape[0] == 0:
        return math.nan
    return formulas.area_under_curve(curve)


def davis_goadrich_area(points: OperatingPoints | Cuts) -> float:
    """The area under the PR curve interpolated as Davis & Goadrich (2006) do: between two
    cuts each intermediate true positive comes with its share of the false positives
    (``fp = fp_A + x (fp_B - fp_A) / (tp_B - tp_A)``), every cut a point, the curve starting
    at recall 0 with the first point's precision; trapezoids through those points. Misses
    end the curve short of recall 1. NaN without positives or a true positive.

    Complexity: O(m + R) (a point per true positive).
    """
    c = cuts(points).full()
    r = c.num_pos
    if r == 0 or not (c.tp > 0).any():
        return math.nan
    d_tp, d_fp = np.diff(c.tp), np.diff(c.fp)
    per = np.maximum(d_tp, 1)  # a cut adding only false positives is one point: itself
    segment = np.repeat(np.arange(d_tp.shape[0]), per)
    x = np.arange(segment.shape[0]) - np.repeat(np.cumsum(per) - per, per) + 1
    steps = d_tp[segment]
    moving = steps > 0
    tp = c.tp[segment] + np.where(moving, x, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        fp = np.where(moving, c.fp[segment] + x * (d_fp[segment] / np.maximum(steps, 1)),
                      c.fp[segment + 1])
        precision = tp / (tp + fp)
    recall = tp / r
    keep = tp > 0  # before the first true positive precision is undefined: no point
    recall, precision = recall[keep], precision[keep]
    return formulas.area_under_curve(np.column_stack((np.concatenate(([0.0], recall)),
                                                      np.concatenate(([precision[0]],
                                                                      precision)))))


# ---------------------------------------------------------------------------------------------
# costs and net benefit


def net_benefit(points: OperatingPoints | Cuts, thresholds: Any,
                prevalence: float | None = None) -> FloatArray:
    """Vickers & Elkin's net benefit at each threshold probability ``pt`` (a case is treated
    iff its score >= pt): ``TP/n - FP/n * pt / (1 - pt)``, n every case (misses included);
    with ``prevalence`` (a case-control sample) ``TPR * p - FPR * (1 - p) * pt / (1 - pt)``,
    as dcurves computes it.

    Raises ValueError for a threshold outside [0, 1) (at 1 a false positive costs
    infinitely much), NaN, or no threshold.
    """
    pt = _probabilities(thresholds)
    c = cuts(points)
    r, n = c.num_pos, c.num_neg
    tp, fp = _counts_at(c, pt)
    weight = pt / (1.0 - pt)
    if prevalence is None:
        if r + n == 0:
            return np.full(pt.shape[0], math.nan)
        return np.asarray(tp / (r + n) - fp / (r + n) * weight, dtype=np.float64)
    p = _prevalence(prevalence)
    _need(r, n, "net benefit at a given prevalence")
    return np.asarray(tp / r * p - fp / n * (1.0 - p) * weight, dtype=np.float64)


def decision_curve(points: OperatingPoints | Cuts, thresholds: Any,
                   prevalence: float | None = None) -> FloatArray:
    """The decision curve: rows ``[threshold, net benefit, treat all, treat none]`` (the last
    0): the model's :func:`net_benefit` beside treating every case (``p - (1 - p) pt /
    (1 - pt)``, p the prevalence) and treating none, dcurves' three curves."""
    pt = _probabilities(thresholds)
    c = cuts(points)
    r, n = c.num_pos, c.num_neg
    if prevalence is None:
        everyone = (r - n * pt / (1.0 - pt)) / (r + n) if r + n else np.full(pt.shape, math.nan)
    else:
        p = _prevalence(prevalence)
        everyone = p - (1.0 - p) * pt / (1.0 - pt)
    rows = np.column_stack((pt, net_benefit(c, pt, prevalence), everyone,
                            np.zeros(pt.shape[0])))
    return _frozen(rows)


def _probabilities(thresholds: Any) -> FloatArray:
    pt = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
    if pt.ndim != 1 or pt.shape[0] == 0:
        raise ValueError("thresholds must be a non-empty list of probabilities")
    outside = ~((pt >= 0.0) & (pt < 1.0))  # NaN is outside too
    if outside.any():
        raise ValueError(f"thresholds must lie in [0, 1) (at 1 a false positive costs "
                         f"infinitely much); got {float(pt[outside][0])!r}")
    return pt


def _prevalence(prevalence: object) -> float:
    p = check_real(prevalence, "prevalence")
    if not 0.0 < p < 1.0:
        raise ValueError(f"prevalence must be in (0, 1); got {prevalence!r}")
    return p


def cost_curve(points: OperatingPoints) -> FloatArray:
    """Drummond & Holte's cost curve (2006), the lower envelope: rows ``[pc, cost]`` where
    ``pc`` is the probability-cost value ``p c(-|+) / (p c(-|+) + (1 - p) c(+|-))`` and
    ``cost`` the least normalised expected cost ``FNR pc + FPR (1 - pc)`` over the
    thresholds (and the trivial classifiers) at it: the vertices of the envelope, ``pc``
    from 0 to 1. Each ROC point is a line in this space; the envelope's lines are those of
    the ROC convex hull. Empty without positives or negatives.
    """
    hull = roc_convex_hull(points)
    if hull.shape[0] == 0:
        return _frozen(np.zeros((0, 2)))
    a = hull[:, 0]  # each hull point's line: cost = FPR + (FNR - FPR) pc
    b = (1.0 - hull[:, 1]) - a
    # along the hull the slopes fall, so each line takes over where it crosses the one
    # before (the hull has no collinear points: every crossing is a vertex, in order)
    with np.errstate(invalid="ignore", divide="ignore"):
        cross = (a[1:] - a[:-1]) / (b[:-1] - b[1:])
    inside = np.flatnonzero((cross > 0.0) & (cross < 1.0))
    xs = np.concatenate(([0.0], cross[inside], [1.0]))
    ys = np.concatenate(([a.min()], a[inside] + b[inside] * cross[inside], [(a + b).min()]))
    return _frozen(np.column_stack((xs, ys)))


def min_expected_cost(points: OperatingPoints | Cuts, costs: Costs,
                      prevalence: float | None = None) -> OperatingPoint:
    """The threshold of least expected cost per case: ``best_threshold(rule="cost")``."""
    return best_threshold(points, "cost", costs=costs, prevalence=prevalence)


# ---------------------------------------------------------------------------------------------
# a partitioned report: the cuts each asked read may use

#: The decision reads a partitioned report gives when asked for them (:func:`ask`); the KS
#: statistic it always gives. The others (the DET, gains, lift and PR-gain curves, the
#: thresholds table) need every cut, which a report does not hold.
ASKABLE = ("confusion_at", "best_threshold", "min_expected_cost", "sensitivity_at",
           "specificity_at", "precision_at_recall", "recall_at_precision", "partial_roc_auc",
           "lift_at", "gains_table", "roc_convex_hull", "area_under_roc_convex_hull",
           "cost_curve", "net_benefit", "decision_curve")


@dataclass(frozen=True)
class Ask:
    """A decision read asked of a partitioned report, as what chooses the cuts it reads:
    ``kind`` and the checked arguments that matter to them (:func:`ask` makes it).

    >>> ask("partial_roc_auc", fpr=(0, 0.1), standardize="mcclish")
    Ask(kind='range', key=('fpr', 0.0, 0.1))
    """

    kind: str
    key: tuple[Any, ...]


Asks = Sequence["Ask | str | tuple[str, Mapping[str, Any]]"]


def ask(read: str, /, *positional: Any, **arguments: Any) -> Ask:
    """The :class:`Ask` for the decision read ``read`` called with these arguments (the
    method's own, checked as the method checks them: a bad one fails here, before any job
    runs). Reads that differ only in what does not move the cuts (a partial area's
    standardisation, net benefit's prevalence) make the same ask; every threshold of
    ``confusion_at``, ``net_benefit`` and ``decision_curve`` is one ask.

    >>> ask("best_threshold", rule="f_beta", beta=2)
    Ask(kind='best', key=('f_beta', 2.0, None, None))
    >>> ask("net_benefit", thresholds=[0.1, 0.2]) == ask("decision_curve", [0.2, 0.1])
    True

    Raises
    ------
    ValueError
        A read not in :data:`ASKABLE`, or an argument the read refuses.
    TypeError
        An argument the read does not take.
    """
    import inspect

    if read not in ASKABLE:
        raise ValueError(f"{read!r} is not a decision read a partitioned report gives (the "
                         f"curves of every cut need the cases); it gives {', '.join(ASKABLE)}")
    try:
        bound = inspect.signature(getattr(DecisionReads, read)).bind(None, *positional,
                                                                      **arguments)
    except TypeError as error:
        raise TypeError(f"{read}: {error}") from None
    bound.apply_defaults()
    a = bound.arguments
    if read == "confusion_at":
        return Ask("thresholds", (check_threshold(a["threshold"]),))
    if read in ("net_benefit", "decision_curve"):
        if a["prevalence"] is not None:
            _prevalence(a["prevalence"])
        return Ask("thresholds", tuple(sorted(set(_probabilities(a["thresholds"]).tolist()))))
    if read in ("best_threshold", "min_expected_cost"):
        rule = _rule(a.get("rule", "cost"), a["costs"], a["prevalence"])
        return Ask("best", (rule, check_beta(a.get("beta", 1.0)) if rule == "f_beta" else None,
                            None if a["costs"] is None else _costs(a["costs"]),
                            None if a["prevalence"] is None else _prevalence(a["prevalence"])))
    if read in _GIVEN:
        return Ask("constrained", (read, _bound(read, a[_GIVEN[read]]),
                                   check_choice(a["method"], "method", METHODS)))
    if read == "partial_roc_auc":
        return Ask("range", _partial_range(a["fpr"], a["tpr"], a["standardize"])[:3])
    if read == "lift_at":
        return Ask("lift", (_fraction(a["fraction"]),))
    if read == "gains_table":
        return Ask("gains", (check_int(a["bins"], "bins", minimum=1),))
    return Ask("hull", ())


def asks_of(items: Asks) -> tuple[Ask, ...]:
    """Asks from what a user passes as ``decisions=``: :class:`Ask` objects, read names
    (their default arguments), or ``(read, {argument: value})`` pairs."""
    if isinstance(items, (str, Ask)) or not isinstance(items, Sequence):
        raise TypeError(f"decisions must be a list of reads; got {items!r}")
    out = []
    for item in items:
        if isinstance(item, Ask):
            out.append(item)
        elif isinstance(item, str):
            out.append(ask(item))
        elif (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
              and isinstance(item[1], Mapping)):
            out.append(ask(item[0], **item[1]))
        else:
            raise TypeError(f"a decision read is a name, a (name, {{argument: value}}) pair or "
                            f"an Ask; got {item!r}")
    return tuple(dict.fromkeys(out))


def covers(asks: Sequence[Ask], wanted: Ask) -> bool:
    """Whether the cuts of ``asks`` hold those ``wanted`` reads (a threshold read: each of
    its thresholds was asked for)."""
    if wanted.kind == "thresholds":
        have = {t for a in asks if a.kind == "thresholds" for t in a.key}
        return set(wanted.key) <= have
    return wanted in asks


def candidates(points: OperatingPoints, asks: Sequence[Ask], ranked: int) -> IntArray:
    """The points of one partition of a ranking (its operating points in global counts;
    ``ranked`` cases in the whole ranking) that the ``asks`` and the KS statistic may read.

    Every read here is the choice of a cut by a value that depends on its counts alone
    (the first of equals), the cuts around a bound along a monotone coordinate, or the
    vertices of the hull; so the same read over the partitions' candidates, joined in
    order, gives the bits it gives over every point. Each partition keeps its first and
    last points and, for each chosen point, the end of its run of equal scores (a cut).
    A partition's last point may not be a cut (insertion ties can carry a run of equal
    scores into the next), so the cut choices look at the cuts before it, and keep it.
    """
    m = points.size
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    scores, tp, fp = points.scores, points.tp, points.fp
    found = _run_ends(scores)
    if found is not None:  # insertion ties: the cuts end the runs of equal scores
        ends = found
        inner = ends[:-1]
        c = Cuts(scores[inner], tp[inner], fp[inner], points.num_pos, points.num_neg)
    else:  # every point a cut: views, no gather
        ends = inner = np.arange(m, dtype=np.int64)
        c = Cuts(scores[:-1], tp[:-1], fp[:-1], points.num_pos, points.num_neg)
    at_cuts: list[Any] = []
    at_points: list[Any] = [0, m - 1]
    if points.num_pos and points.num_neg:
        at_cuts.append(best_difference(c, absolute=True)[0])
    for a in asks:
        try:
            on_cuts, on_points = _chosen(a, c, points, ranked)
        except ValueError:  # the read over the report's candidates raises it again
            continue
        at_cuts.extend(np.atleast_1d(on_cuts).tolist())
        at_points.extend(np.atleast_1d(on_points).tolist())
    cut = np.array(at_cuts, dtype=np.int64)
    point = np.array(at_points, dtype=np.int64)
    chosen = np.unique(np.concatenate((inner[cut[(cut >= 0) & (cut < inner.shape[0])]],
                                       point[(point >= 0) & (point < m)])))
    return np.union1d(chosen, ends[np.searchsorted(ends, chosen)])


def _chosen(a: Ask, c: Cuts, points: OperatingPoints, ranked: int) -> tuple[Any, Any]:
    """An ask's indices among the cuts ``c`` and among the points (either may be out of
    range: none)."""
    none: list[int] = []
    if a.kind == "thresholds":
        return _last_at_or_above(c.thresholds, np.array(a.key)), none
    if a.kind == "best":
        return _best_index(c, *a.key)[0], none
    if a.kind == "constrained":
        read, bound, method = a.key
        value, other = _coordinates(c, read)
        if method == "achievable":
            return _achievable(c, read, value, other, bound), none
        j = int(_past(other, np.array([bound]), read == "sensitivity_at")[0])
        return [j - 1, j], none
    if a.kind == "range":
        focus, low, high = a.key
        coordinate = points.roc_table[1:-1, 0 if focus == "fpr" else 1]
        i = np.searchsorted(coordinate, np.array([low, high]), side="right") - 1
        return none, np.concatenate((i, i + 1))
    if a.kind == "lift":
        wanted = a.key[0] * (points.num_pos + points.num_neg)
        j = int(np.searchsorted(points.tp + points.fp, wanted, side="left"))
        return none, [j - 1, j]
    if a.kind == "gains":
        wanted = np.arange(1, a.key[0] + 1, dtype=np.int64) * ranked // a.key[0]
        return np.searchsorted(c.tp + c.fp, wanted[wanted > 0], side="left"), none
    return none, upper_hull(points.fp, points.tp)


# ---------------------------------------------------------------------------------------------
# the readers' methods


class DecisionReads:
    """The decision reads of a reader that has operating points: the evaluator (so its
    windows, and each category of the multi-category evaluator). A reader provides
    ``_points()`` (its :class:`~rankeval.points.OperatingPoints`, under its lock) and
    ``_cuts()`` (:func:`cuts` of them, cached)."""

    def _points(self) -> OperatingPoints:
        raise NotImplementedError

    def _cuts(self) -> Cuts:
        raise NotImplementedError

    def _decision_points(self, read: str, **arguments: Any) -> OperatingPoints:
        """The points the decision read ``read`` (called with ``arguments``) reads: the
        reader's own; a partitioned report's candidates, once it checks they hold the read."""
        return self._points()

    def _decision_cuts(self, read: str, **arguments: Any) -> Cuts:
        """:meth:`_decision_points`' cuts."""
        return self._cuts()

    def confusion_at(self, threshold: float) -> PrecisionRecallEvaluation:
        """The confusion matrix of predicting positive every case scoring at least
        ``threshold`` (misses are false negatives, negative misses true negatives), with
        every count and rate (:class:`~rankeval.PrecisionRecallEvaluation`).

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.4])
        >>> ev.confusion_at(0.75)
        PrecisionRecallEvaluation(tp=1, fn=1, fp=1, tn=1)

        Raises
        ------
        ValueError
            A NaN threshold. Complexity: O(log m) after the cached cuts.
        """
        return confusion_at(self._decision_cuts("confusion_at", threshold=threshold), threshold)

    def best_threshold(self, rule: str = "youden", *, beta: float = 1.0,
                       costs: Costs | None = None, prevalence: float | None = None
                       ) -> OperatingPoint:
        """The best threshold by ``rule`` (``"youden"``, ``"closest_topleft"``, ``"f_beta"``
        with ``beta=``, ``"cost"`` with ``costs=`` and optional ``prevalence=``), as an
        :class:`OperatingPoint`; ties go to the highest threshold. The rules are those of
        :func:`rankeval.scored.decisions.best_threshold`.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.4])
        >>> point = ev.best_threshold("youden")  # J = 1/2 at 0.9 and at 0.7: the higher
        >>> point.threshold, point.tp, point.fp, point.value
        (0.9, 1, 0, 0.5)

        Complexity: O(m) over the m distinct scores, after the cached sort.
        """
        c = self._decision_cuts("best_threshold", rule=rule, beta=beta, costs=costs,
                                prevalence=prevalence)
        return best_threshold(c, rule, beta=beta, costs=costs, prevalence=prevalence)

    def sensitivity_at(self, specificity: float, method: str = "achievable"
                       ) -> OperatingPoint | float:
        """The sensitivity where specificity is at least ``specificity``: the best real
        threshold (``method="achievable"``, an :class:`OperatingPoint`) or pROC's linear
        interpolation (``"interpolated"``, a float). See
        :func:`rankeval.scored.decisions.constrained`."""
        c = self._decision_cuts("sensitivity_at", specificity=specificity, method=method)
        return constrained(c, "sensitivity_at", specificity, method)

    def specificity_at(self, sensitivity: float, method: str = "achievable"
                       ) -> OperatingPoint | float:
        """The specificity where sensitivity is at least ``sensitivity`` (as
        :meth:`sensitivity_at`)."""
        c = self._decision_cuts("specificity_at", sensitivity=sensitivity, method=method)
        return constrained(c, "specificity_at", sensitivity, method)

    def precision_at_recall(self, recall: float, method: str = "achievable"
                            ) -> OperatingPoint | float:
        """The precision where recall is at least ``recall`` (as :meth:`sensitivity_at`)."""
        c = self._decision_cuts("precision_at_recall", recall=recall, method=method)
        return constrained(c, "precision_at_recall", recall, method)

    def recall_at_precision(self, precision: float, method: str = "achievable"
                            ) -> OperatingPoint | float:
        """The recall where precision is at least ``precision``: the best real threshold
        only (precision is not monotone, so nothing interpolates)."""
        c = self._decision_cuts("recall_at_precision", precision=precision, method=method)
        return constrained(c, "recall_at_precision", precision, method)

    def ks_statistic(self) -> OperatingPoint:
        """The Kolmogorov-Smirnov statistic of the positives' and the negatives' scores
        (``value``) and the threshold where the two distributions are furthest apart.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.4])
        >>> ev.ks_statistic().value
        0.5

        Complexity: O(m) after the cached sort.
        """
        return ks_statistic(self._decision_cuts("ks_statistic"))

    def partial_roc_auc(self, fpr: tuple[float, float] | None = None,
                        tpr: tuple[float, float] | None = None,
                        standardize: str | None = None) -> float:
        """The ROC area over ``fpr=(a, b)`` or ``tpr=(a, b)``, raw or standardised
        (``"mcclish"``, ``"normalized"``); see
        :func:`rankeval.scored.decisions.partial_roc_auc`.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.4])
        >>> ev.partial_roc_auc(fpr=(0.0, 0.5))  # the curve is at 1/2 until x = 1/2
        0.25

        Complexity: O(m) after the cached sort.
        """
        points = self._decision_points("partial_roc_auc", fpr=fpr, tpr=tpr, standardize=standardize)
        return partial_roc_auc(points, fpr, tpr, standardize)

    def det_curve(self) -> FloatArray:
        """Rows ``[fpr, fnr, threshold]``: scikit-learn's ``det_curve``
        (:func:`rankeval.scored.decisions.det_curve`). Complexity: O(m), after the sort."""
        return det_curve(self._decision_cuts("det_curve"))

    def gains_curve(self) -> FloatArray:
        """Rows ``[depth, gain, threshold]``, one per cut
        (:func:`rankeval.scored.decisions.gains_curve`)."""
        return gains_curve(self._decision_cuts("gains_curve"))

    def lift_curve(self) -> FloatArray:
        """Rows ``[depth, lift, threshold]``, one per cut predicting a case positive
        (:func:`rankeval.scored.decisions.lift_curve`)."""
        return lift_curve(self._decision_cuts("lift_curve"))

    def lift_at(self, fraction: float) -> float:
        """The lift of the top ``fraction`` of the cases
        (:func:`rankeval.scored.decisions.lift_at`).

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.4])
        >>> ev.lift_at(0.25)  # the top case is positive: 1 / (2/4)
        2.0
        """
        return lift_at(self._decision_points("lift_at", fraction=fraction), fraction)

    def gains_table(self, bins: int = 10) -> NDArray[Any]:
        """H2O's gains/lift table, a structured array
        (:func:`rankeval.scored.decisions.gains_table`)."""
        return gains_table(self._decision_cuts("gains_table", bins=bins), bins)

    def roc_convex_hull(self) -> FloatArray:
        """The vertices of the ROC convex hull, rows ``[fpr, tpr]``
        (:func:`rankeval.scored.decisions.roc_convex_hull`)."""
        return roc_convex_hull(self._decision_points("roc_convex_hull"))

    def area_under_roc_convex_hull(self) -> float:
        """The area under :meth:`roc_convex_hull`."""
        return area_under_roc_convex_hull(self._decision_points("area_under_roc_convex_hull"))

    def net_benefit(self, thresholds: Any, prevalence: float | None = None) -> FloatArray:
        """Vickers & Elkin's net benefit at each threshold probability
        (:func:`rankeval.scored.decisions.net_benefit`; dcurves' values).

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True, False], [0.9, 0.8, 0.7, 0.4])
        >>> ev.net_benefit([0.75]).tolist()  # 1 true and 1 false positive of 4: 1/4 - 1/4 * 3
        [-0.5]
        """
        c = self._decision_cuts("net_benefit", thresholds=thresholds, prevalence=prevalence)
        return net_benefit(c, thresholds, prevalence)

    def decision_curve(self, thresholds: Any, prevalence: float | None = None) -> FloatArray:
        """Rows ``[threshold, net benefit, treat all, treat none]``
        (:func:`rankeval.scored.decisions.decision_curve`)."""
        c = self._decision_cuts("decision_curve", thresholds=thresholds, prevalence=prevalence)
        return decision_curve(c, thresholds, prevalence)

    def cost_curve(self) -> FloatArray:
        """Drummond & Holte's cost curve, the lower envelope's vertices ``[pc, cost]``
        (:func:`rankeval.scored.decisions.cost_curve`)."""
        return cost_curve(self._decision_points("cost_curve"))

    def min_expected_cost(self, costs: Costs, prevalence: float | None = None
                          ) -> OperatingPoint:
        """The threshold of least expected cost per case (``best_threshold("cost")``)."""
        c = self._decision_cuts("min_expected_cost", costs=costs, prevalence=prevalence)
        return min_expected_cost(c, costs, prevalence)

    def pr_gain_curve(self) -> FloatArray:
        """Flach & Kull's precision-recall-gain curve, rows ``[recall_gain, precision_gain]``
        (:func:`rankeval.scored.decisions.pr_gain_curve`)."""
        return pr_gain_curve(self._decision_cuts("pr_gain_curve"))

    def area_under_pr_gain_curve(self) -> float:
        """The area under :meth:`pr_gain_curve` (AUPRG)."""
        return area_under_pr_gain_curve(self._decision_cuts("area_under_pr_gain_curve"))

    def thresholds_table(self) -> NDArray[Any]:
        """Every threshold with its counts and rates, a structured array
        (:func:`rankeval.scored.decisions.thresholds_table`).

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True], [0.9, 0.5, 0.5])
        >>> table = ev.thresholds_table()
        >>> table["threshold"].tolist(), table["tp"].tolist(), table["fp"].tolist()
        ([inf, 0.9, 0.5], [0, 1, 2], [0, 0, 1])
        """
        return thresholds_table(self._decision_cuts("thresholds_table"))
