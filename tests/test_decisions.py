"""The decision reads (thresholds, constrained points, KS, partial areas) against oracles:
scikit-learn, scipy, torchmetrics, pROC's algorithm (a slow port of its R code below) and a
brute-force enumeration of every threshold written here, never our own output.

The data have heavy ties (scores on a coarse grid) and misses of both kinds; every rule,
method, standardisation and tie policy is drawn from the module's own tuples.
"""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import torch
from scipy.stats import ks_2samp
from sklearn.metrics import roc_auc_score, roc_curve
from torchmetrics.classification import (
    BinaryPrecisionAtFixedRecall,
    BinaryRecallAtFixedPrecision,
    BinarySensitivityAtSpecificity,
    BinarySpecificityAtSensitivity,
)

from rankeval import CostMatrix, PrecisionRecallEvaluation, ScoredPrecisionRecallEvaluation
from rankeval.formulas import TIE_POLICIES
from rankeval.scored import decisions
from rankeval.scored.decisions import RULES, STANDARDIZE, OperatingPoint
from tests.helpers import materialised_draws

SEEDS = range(8)


def drawn(seed: int, misses: bool = True) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Labels, scores on a grid of 11 values in [0, 1] (heavy ties), and misses."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 120))
    labels = rng.random(n) < rng.uniform(0.2, 0.7)
    labels[:2] = [True, False]
    scores = np.clip(np.round(rng.normal(0.35 + 0.3 * labels, 0.25), 1), 0.0, 1.0)
    pos_missed = int(rng.integers(0, 4)) if misses else 0
    neg_missed = int(rng.integers(0, 4)) if misses else 0
    return labels, scores, pos_missed, neg_missed


def evaluator(labels: np.ndarray, scores: np.ndarray, pos_missed: int = 0, neg_missed: int = 0,
              ties: str = "grouped") -> ScoredPrecisionRecallEvaluation:
    ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
    order = np.random.default_rng(len(labels)).permutation(len(labels))  # arrival order
    ev.add_cases(labels[order], scores[order])
    ev.add_misses(pos_missed)
    ev.add_negative_misses(neg_missed)
    return ev


def brute_cuts(labels: np.ndarray, scores: np.ndarray, pos_missed: int, neg_missed: int
               ) -> tuple[list[tuple[float, int, int]], int, int]:
    """Every threshold (each distinct score, and +inf), highest first, with the counts of
    the cases scoring at least it, by direct comparison."""
    r = int(labels.sum()) + pos_missed
    n = int((~labels).sum()) + neg_missed
    thresholds = sorted({float(s) for s in scores} | {math.inf}, reverse=True)
    rows = [(t, int(np.sum(labels & (scores >= t))), int(np.sum(~labels & (scores >= t))))
            for t in thresholds]
    return rows, r, n


def brute_best(rows: list[tuple[float, int, int]], key: Any) -> tuple[float, int, int]:
    """The row maximising ``key`` (exact Fractions), the highest threshold on ties."""
    best = max(key(tp, fp) for _, tp, fp in rows)
    return next(row for row in rows if key(row[1], row[2]) == best)


# ---------------------------------------------------------------------------------------------
# confusion at a threshold


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_confusion_at_every_threshold_counts_directly(seed: int, ties: str) -> None:
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm, ties)
    rows, r, n = brute_cuts(labels, scores, pm, nm)
    probes = [t for t, _, _ in rows] + [-math.inf, 0.05, 0.55, 2.0]
    for t in probes:
        tp = int(np.sum(labels & (scores >= t)))
        fp = int(np.sum(~labels & (scores >= t)))
        assert ev.confusion_at(t) == PrecisionRecallEvaluation(tp=tp, fn=r - tp, fp=fp,
                                                               tn=n - fp)


def test_confusion_at_refuses_nan_and_strings() -> None:
    ev = evaluator(*drawn(0)[:2])
    with pytest.raises(ValueError, match="threshold must not be NaN"):
        ev.confusion_at(math.nan)
    with pytest.raises(TypeError, match="threshold"):
        ev.confusion_at("0.5")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# best thresholds


def rule_key(rule: str, r: int, n: int, beta: float, costs: CostMatrix,
             prevalence: float | None) -> Any:
    """The rule's objective as exact Fractions (larger is better)."""
    b2 = Fraction(beta) ** 2
    if rule == "youden":
        return lambda tp, fp: Fraction(tp, r) - Fraction(fp, n)
    if rule == "closest_topleft":
        return lambda tp, fp: -(Fraction(r - tp, r) ** 2 + Fraction(fp, n) ** 2)
    if rule == "f_beta":
        return lambda tp, fp: (1 + b2) * tp / ((1 + b2) * tp + b2 * (r - tp) + fp) if tp else 0
    c = {k: Fraction(getattr(costs, k)) for k in ("tp", "fn", "fp", "tn")}
    if prevalence is None:
        return lambda tp, fp: -(tp * c["tp"] + (r - tp) * c["fn"] + fp * c["fp"]
                                + (n - fp) * c["tn"]) / (r + n)
    pi = Fraction(prevalence)
    return lambda tp, fp: -(pi * (Fraction(tp, r) * c["tp"] + Fraction(r - tp, r) * c["fn"])
                            + (1 - pi) * (Fraction(fp, n) * c["fp"]
                                          + Fraction(n - fp, n) * c["tn"]))


@pytest.mark.parametrize(("rule", "prevalence"),
                         [(rule, None) for rule in RULES] + [("cost", 0.1)])
@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_best_threshold_is_the_brute_force_best(seed: int, ties: str, rule: str,
                                                prevalence: float | None) -> None:
    """Every rule's cut equals the exhaustive search over every threshold (exact
    Fractions), the highest threshold among equals; its counts are confusion_at's."""
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm, ties)
    rows, r, n = brute_cuts(labels, scores, pm, nm)
    beta = 2.0
    costs = CostMatrix(tp=-1, fn=7, fp=2, tn=0)
    options: dict[str, Any] = {"beta": beta} if rule == "f_beta" else {}
    if rule == "cost":
        options = {"costs": costs, "prevalence": prevalence}
    point = ev.best_threshold(rule, **options)
    key = rule_key(rule, r, n, beta, costs, prevalence)
    threshold, tp, fp = brute_best(rows, key)
    assert (point.threshold, point.tp, point.fp, point.tn, point.fn) == (
        threshold, tp, fp, n - fp, r - tp)
    sign = -1 if rule in ("closest_topleft", "cost") else 1  # minimised: the key is negated
    assert point.value == pytest.approx(sign * float(key(tp, fp)), rel=1e-12, abs=1e-12)
    assert point.rule == rule
    assert ev.confusion_at(point.threshold) == point.confusion()


def test_cost_pairs_are_fp_then_fn_costs() -> None:
    labels, scores, pm, nm = drawn(3)
    ev = evaluator(labels, scores, pm, nm)
    assert ev.best_threshold("cost", costs=(1.0, 5.0)) == ev.best_threshold(
        "cost", costs=CostMatrix(tp=0, fn=5.0, fp=1.0, tn=0))


@pytest.mark.parametrize("seed", SEEDS)
def test_youden_equals_the_roc_curve_recipe(seed: int) -> None:
    """The peer recipe: scikit-learn's roc_curve and argmax(tpr - fpr)."""
    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores)
    fpr, tpr, thresholds = roc_curve(labels, scores, drop_intermediate=False)
    j = tpr - fpr
    point = ev.best_threshold("youden")
    assert point.value == pytest.approx(j.max(), abs=1e-12)
    best = thresholds[np.flatnonzero(np.isclose(j, j.max(), rtol=0, atol=1e-12))]
    assert point.threshold == best.max()


def test_best_threshold_refusals_name_the_argument() -> None:
    ev = evaluator(*drawn(1)[:2])
    before = ev.summary()
    with pytest.raises(ValueError, match="rule"):
        ev.best_threshold("youdens")
    with pytest.raises(ValueError, match="needs costs="):
        ev.best_threshold("cost")
    with pytest.raises(ValueError, match="apply to rule 'cost'"):
        ev.best_threshold("youden", costs=(1, 1))
    with pytest.raises(ValueError, match="prevalence must be in"):
        ev.best_threshold("cost", costs=(1, 1), prevalence=1.5)
    with pytest.raises(ValueError, match="beta"):
        ev.best_threshold("f_beta", beta=-1.0)
    only_positives = ScoredPrecisionRecallEvaluation()
    only_positives.add_cases([True, True], [0.2, 0.3])
    with pytest.raises(ValueError, match="needs positive and negative"):
        only_positives.best_threshold("youden")
    assert ev.summary() == before


# ---------------------------------------------------------------------------------------------
# KS


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_ks_is_scipys_two_sample_statistic(seed: int, ties: str) -> None:
    """Misses score below every case: scipy sees them as -inf."""
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm, ties)
    pos = np.concatenate((scores[labels], np.full(pm, -np.inf)))
    neg = np.concatenate((scores[~labels], np.full(nm, -np.inf)))
    point = ev.ks_statistic()
    assert point.value == pytest.approx(ks_2samp(pos, neg).statistic, abs=1e-12)
    rows, r, n = brute_cuts(labels, scores, pm, nm)
    threshold, _, _ = brute_best(rows, lambda tp, fp: abs(Fraction(tp, r) - Fraction(fp, n)))
    assert point.threshold == threshold
    assert ev.read("ks") == point.value == ev.summary()["ks"]


def test_ks_undefined_without_both_classes() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, True], [0.5, 0.4])
    assert math.isnan(ev.ks_statistic().value)


# ---------------------------------------------------------------------------------------------
# constrained points: achievable against torchmetrics (thresholds=None)

TORCHMETRICS = {
    "sensitivity_at": (BinarySensitivityAtSpecificity, "min_specificity"),
    "specificity_at": (BinarySpecificityAtSensitivity, "min_sensitivity"),
    "precision_at_recall": (BinaryPrecisionAtFixedRecall, "min_recall"),
    "recall_at_precision": (BinaryRecallAtFixedPrecision, "min_precision"),
}
BOUNDS = (0.05, 0.3, 0.62, 0.83, 0.97)


@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize("read", list(TORCHMETRICS))
@pytest.mark.parametrize("seed", SEEDS)
def test_achievable_points_equal_torchmetrics(seed: int, read: str, bound: float) -> None:
    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores)
    metric_class, argument = TORCHMETRICS[read]
    metric = metric_class(**{argument: bound}, thresholds=None)
    value, _threshold = metric(torch.tensor(scores, dtype=torch.float64),
                              torch.tensor(labels.astype(np.int64)))
    if read in ("precision_at_recall", "recall_at_precision") and float(value) == 0.0:
        # torchmetrics' 0 with no threshold: nothing meets the bound, which we refuse
        with pytest.raises(ValueError, match="no threshold gives"):
            getattr(ev, read)(bound)
        return
    ours = getattr(ev, read)(bound)
    assert isinstance(ours, OperatingPoint)
    assert ours.value == pytest.approx(float(value), abs=1e-6)  # torchmetrics is float32
    if read == "sensitivity_at":
        assert ours.specificity >= bound
        assert ours.sensitivity == ours.value
    if read == "recall_at_precision":
        assert ours.precision >= bound


def test_no_threshold_meets_a_precision_nobody_reaches() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([False, True, False], [0.9, 0.5, 0.4])
    ev.add_misses(2)
    with pytest.raises(ValueError, match=r"no threshold gives precision >= 0\.9"):
        ev.recall_at_precision(0.9)
    with pytest.raises(ValueError, match=r"no threshold gives recall >= 0\.5"):
        ev.precision_at_recall(0.5)  # 1 of 3 positives ranked: recall never passes 1/3
    for bad in (1.5, -0.1, math.nan):
        with pytest.raises(ValueError, match="must be in"):
            ev.sensitivity_at(bad)
    with pytest.raises(ValueError, match="method"):
        ev.sensitivity_at(0.5, method="linear")
    with pytest.raises(ValueError, match="not monotone"):
        ev.recall_at_precision(0.5, method="interpolated")


# ---------------------------------------------------------------------------------------------
# pROC's algorithms, ported slowly from its R sources (roc, coords, auc)


def proc_roc(labels: np.ndarray, scores: np.ndarray) -> tuple[list[float], list[float]]:
    """pROC's roc(): thresholds between the distinct scores (ascending) with -Inf and +Inf,
    sensitivity and specificity at each ("case" scores higher, direction "<")."""
    distinct = sorted(set(scores.tolist()))
    thresholds = ([-math.inf] + [(a + b) / 2 for a, b in itertools.pairwise(distinct)]
                  + [math.inf])
    pos, neg = scores[labels], scores[~labels]
    se = [float(np.mean(pos > t)) for t in thresholds]
    sp = [float(np.mean(neg <= t)) for t in thresholds]
    return se, sp


def proc_coords(input_values: list[float], output: list[float], value: float,
                decreasing: bool) -> float:
    """pROC's coords(x=value, input=...) for a monotone input: the R loop, 0-based."""
    idx = [i for i, v in enumerate(input_values) if v == value]
    if idx:
        return output[idx[-1] if decreasing else idx[0]]
    if decreasing:
        nxt = next(i for i, v in enumerate(input_values) if v < value)
    else:
        nxt = next(i for i, v in enumerate(input_values) if v > value)
    proportion = (value - input_values[nxt]) / (input_values[nxt - 1] - input_values[nxt])
    return output[nxt] + proportion * (output[nxt - 1] - output[nxt])


def proc_partial_auc(se: list[float], sp: list[float], hi: float, lo: float,
                     focus: str) -> float:
    """pROC's auc(partial.auc=c(hi, lo), partial.auc.focus=focus), the R code line by line."""
    if focus == "sensitivity":
        x, y = se[::-1], sp[::-1]
    else:
        x, y = sp, se
    inc = [i for i, v in enumerate(x) if lo <= v <= hi]
    xi, yi = [x[i] for i in inc], [y[i] for i in inc]
    auc = sum((b - a) * (c + d) / 2 for a, b, c, d in zip(xi, xi[1:], yi, yi[1:], strict=False))
    if not inc:
        idx_hi = next(i for i, v in enumerate(x) if not v < hi)
        idx_lo = idx_hi - 1
        p_hi = (x[idx_hi] - hi) / (x[idx_hi] - x[idx_lo])
        p_lo = (lo - x[idx_lo]) / (x[idx_hi] - x[idx_lo])
        y_hi = y[idx_hi] + p_hi * (y[idx_lo] - y[idx_hi])
        y_lo = y[idx_lo] - p_lo * (y[idx_lo] - y[idx_hi])
        return (y_hi + y_lo) / 2 * (hi - lo)
    if hi not in xi:
        idx_out = next(i for i, v in enumerate(x) if not v < hi)
        idx_in = idx_out - 1
        proportion = (hi - x[idx_out]) / (x[idx_in] - x[idx_out])
        y_int = y[idx_out] + proportion * (y[idx_in] - y[idx_out])
        auc += (hi - x[idx_in]) * (y[idx_in] + y_int) / 2
    if lo not in xi:
        idx_out = next(i for i, v in enumerate(x) if v > lo) - 1
        idx_in = idx_out + 1
        proportion = (x[idx_in] - lo) / (x[idx_in] - x[idx_out])
        y_int = y[idx_in] + proportion * (y[idx_out] - y[idx_in])
        auc += (x[idx_in] - lo) * (y[idx_in] + y_int) / 2
    return auc


def with_misses_last(labels: np.ndarray, scores: np.ndarray, pm: int, nm: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The cases and the misses, tied below every case (roc_curve()'s last segment)."""
    return (np.concatenate((labels, np.ones(pm, bool), np.zeros(nm, bool))),
            np.concatenate((scores, np.full(pm + nm, scores.min() - 1))))


@pytest.mark.parametrize("misses", [False, True])
@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_interpolated_points_are_procs_coords(seed: int, bound: float, misses: bool) -> None:
    labels, scores, pm, nm = drawn(seed, misses=misses)
    ev = evaluator(labels, scores, pm, nm)
    se, sp = proc_roc(*with_misses_last(labels, scores, pm, nm))
    # input specificity increases along pROC's thresholds; sensitivity decreases
    assert ev.sensitivity_at(bound, method="interpolated") == pytest.approx(
        proc_coords(sp, se, bound, decreasing=False), abs=1e-12)
    assert ev.specificity_at(bound, method="interpolated") == pytest.approx(
        proc_coords(se, sp, bound, decreasing=True), abs=1e-12)


SPANS = ((0.0, 0.1), (0.0, 0.3), (0.1, 0.45), (0.33, 0.35), (0.5, 1.0), (0.0, 1.0))


@pytest.mark.parametrize("span", SPANS)
@pytest.mark.parametrize("seed", SEEDS)
def test_partial_areas_are_procs(seed: int, span: tuple[float, float]) -> None:
    """Both foci, raw and McClish-corrected (pROC's min and max), grouped ties as pROC's."""
    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores)
    se, sp = proc_roc(labels, scores)
    a, b = span
    # focus specificity over specificities (1 - b, 1 - a); focus sensitivity over (a, b)
    raw_fpr = proc_partial_auc(se, sp, 1 - a, 1 - b, "specificity")
    raw_tpr = proc_partial_auc(se, sp, b, a, "sensitivity")
    assert ev.partial_roc_auc(fpr=span) == pytest.approx(raw_fpr, abs=1e-12)
    assert ev.partial_roc_auc(tpr=span) == pytest.approx(raw_tpr, abs=1e-12)
    for focus, raw, limits in (("fpr", raw_fpr, (1 - a, 1 - b)), ("tpr", raw_tpr, (b, a))):
        low = sum(1 - v for v in limits) * abs(limits[0] - limits[1]) / 2  # pROC's min
        high = abs(limits[0] - limits[1])  # pROC's max
        assert ev.partial_roc_auc(**{focus: span}, standardize="mcclish") == pytest.approx(
            (1 + (raw - low) / (high - low)) / 2, abs=1e-12)
        assert ev.partial_roc_auc(**{focus: span}, standardize="normalized") == pytest.approx(
            raw / (b - a), abs=1e-12)


@pytest.mark.parametrize("max_fpr", [0.05, 0.1, 0.3, 0.77, 1.0])
@pytest.mark.parametrize("seed", SEEDS)
def test_mcclish_from_zero_is_sklearns_max_fpr(seed: int, max_fpr: float) -> None:
    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores)
    want = roc_auc_score(labels, scores, max_fpr=max_fpr)
    if max_fpr == 1.0:  # scikit-learn gives the plain area there; McClish over (0, 1) is it too
        assert ev.partial_roc_auc(fpr=(0.0, 1.0), standardize="mcclish") == pytest.approx(want)
    assert ev.partial_roc_auc(fpr=(0.0, max_fpr), standardize="mcclish") == pytest.approx(
        want, abs=1e-12)


@pytest.mark.parametrize("standardize", [None, *STANDARDIZE])
@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_partial_areas_add_up_to_the_whole(seed: int, ties: str,
                                           standardize: str | None) -> None:
    """With misses and either tie policy: the pieces of a range add up, and the whole range
    is the ROC area of the same curve (the trapezoids of roc_curve())."""
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm, ties)
    x, y = ev.roc_curve()[:, 0], ev.roc_curve()[:, 1]
    whole = float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))
    for focus in ("fpr", "tpr"):
        parts = [ev.partial_roc_auc(**{focus: s}) for s in ((0, 0.2), (0.2, 0.65), (0.65, 1))]
        assert sum(parts) == pytest.approx(whole, abs=1e-12)
        value = ev.partial_roc_auc(**{focus: (0.0, 1.0)}, standardize=standardize)
        assert value == pytest.approx(whole, abs=1e-12)  # every standardisation is the identity


def test_partial_area_refusals_name_the_argument() -> None:
    ev = evaluator(*drawn(2)[:2])
    with pytest.raises(ValueError, match="exactly one of"):
        ev.partial_roc_auc()
    with pytest.raises(ValueError, match="exactly one of"):
        ev.partial_roc_auc(fpr=(0, 0.1), tpr=(0, 0.1))
    with pytest.raises(ValueError, match=r"fpr=\(0\.2, 0\.1\) is reversed"):
        ev.partial_roc_auc(fpr=(0.2, 0.1))
    with pytest.raises(ValueError, match="is empty"):
        ev.partial_roc_auc(tpr=(0.2, 0.2))
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        ev.partial_roc_auc(fpr=(0.0, 1.5))
    with pytest.raises(TypeError, match="must be a pair"):
        ev.partial_roc_auc(fpr=0.1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="standardize"):
        ev.partial_roc_auc(fpr=(0, 0.1), standardize="mcclish89")


def test_module_functions_take_the_points() -> None:
    """The evaluator's methods are the module's functions of its points (one
    implementation): the same answers from the points of a fresh grouped ranking."""
    labels, scores, pm, nm = drawn(5)
    ev = evaluator(labels, scores, pm, nm)
    points = ev._points()
    assert decisions.ks_statistic(points) == ev.ks_statistic()
    assert decisions.best_threshold(points, "f_beta") == ev.best_threshold("f_beta")


# ---------------------------------------------------------------------------------------------
# curves for decisions


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_det_curve_is_sklearns(seed: int, ties: str) -> None:
    from sklearn.metrics import det_curve

    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores, ties=ties)
    fpr, fnr, thresholds = det_curve(labels, scores)
    got = ev.det_curve()
    np.testing.assert_allclose(got[:, 0], fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(got[:, 1], fnr, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(got[:, 2], thresholds)


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_gains_and_lift_curves_count_directly(seed: int, ties: str) -> None:
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm, ties)
    rows, r, n = brute_cuts(labels, scores, pm, nm)
    want = np.array([[(tp + fp) / (r + n), tp / r, t] for t, tp, fp in rows])
    np.testing.assert_allclose(ev.gains_curve(), want, rtol=1e-15, atol=0)
    lifted = np.array([[(tp + fp) / (r + n), (tp / (tp + fp)) / (r / (r + n)), t]
                       for t, tp, fp in rows if tp + fp])
    np.testing.assert_allclose(ev.lift_curve(), lifted, rtol=1e-12, atol=0)


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.25, 0.5, 0.8])
@pytest.mark.parametrize("seed", SEEDS)
def test_lift_at_takes_a_tie_blocks_expected_share(seed: int, fraction: float) -> None:
    """Grouped: the top q cases hold every block above and, of the block the cut falls in,
    its share of positives pro rata (the mean over the block's orders)."""
    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores)
    total, r = len(labels), int(labels.sum())
    wanted = Fraction(fraction) * total
    positives = Fraction(0)
    taken = 0
    for score in sorted(set(scores.tolist()), reverse=True):
        block = scores == score
        size, hits = int(block.sum()), int((labels & block).sum())
        if taken + size >= wanted:
            positives += Fraction(hits, size) * (wanted - taken)
            break
        positives += hits
        taken += size
    want = positives / r / Fraction(fraction)
    assert ev.lift_at(fraction) == pytest.approx(float(want), rel=1e-12)


def test_lift_at_refuses_fractions_outside_the_ranking() -> None:
    ev = evaluator(*drawn(4)[:2])
    for bad in (0.0, 1.5, math.nan, -0.2):
        with pytest.raises(ValueError, match="fraction must be in"):
            ev.lift_at(bad)
    ev.add_misses(1000)
    with pytest.raises(ValueError, match="reaches past the ranked cases"):
        ev.lift_at(0.9)


@pytest.mark.parametrize("bins", [1, 3, 10, 20])
@pytest.mark.parametrize("seed", SEEDS)
def test_gains_table_is_a_pandas_decile_table_without_ties(seed: int, bins: int) -> None:
    """Distinct scores: the groups are pandas' equal-count groups by rank, and each column
    its groupby sum, ratio or cumulative sum."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    labels = rng.random(200) < 0.3
    scores = rng.permutation(200) / 200.0  # distinct
    ev = evaluator(labels, scores)
    frame = pd.DataFrame({"label": labels, "score": scores}).sort_values(
        "score", ascending=False)
    frame["group"] = np.ceil(np.arange(1, 201) * bins / 200).astype(int)  # ceil(k n / bins)
    groups = frame.groupby("group").agg(cases=("label", "size"), positives=("label", "sum"),
                                        threshold=("score", "min"))
    r, total = labels.sum(), 200
    got = pd.DataFrame(ev.gains_table(bins))
    np.testing.assert_array_equal(got["cases"], groups["cases"])
    np.testing.assert_array_equal(got["positives"], groups["positives"])
    np.testing.assert_array_equal(got["threshold"], groups["threshold"])
    capture = groups["positives"].cumsum() / r
    np.testing.assert_allclose(got["cumulative_capture"], capture, rtol=1e-12)
    np.testing.assert_allclose(got["lift"], groups["positives"] / groups["cases"]
                               / (r / total), rtol=1e-12)
    np.testing.assert_allclose(got["cumulative_lift"], capture / (groups["cases"].cumsum()
                                                                  / total), rtol=1e-12)
    fpr = (groups["cases"] - groups["positives"]).cumsum() / (total - r)
    np.testing.assert_allclose(got["ks"], np.abs(capture - fpr), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
def test_gains_table_never_splits_a_tie_block(seed: int) -> None:
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm)
    table = ev.gains_table(10)
    assert table["cases"].sum() == len(labels)
    assert table["positives"].sum() == labels.sum()
    for row in table:  # each group's counts are reproduced by its threshold
        confusion = ev.confusion_at(row["threshold"])
        assert confusion.positive_response == table["cases"][: row["group"]].sum()


def brute_envelope(x: np.ndarray, y: np.ndarray, at: float) -> float:
    """The upper concave envelope of the points at ``at``: the best mixture of two points."""
    best = -math.inf
    for i in range(len(x)):
        for j in range(len(x)):
            if x[i] <= at <= x[j]:
                if x[i] == x[j]:
                    best = max(best, y[i], y[j])
                else:
                    t = (at - x[i]) / (x[j] - x[i])
                    best = max(best, y[i] + t * (y[j] - y[i]))
    return best


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(4))
def test_convex_hull_is_the_brute_force_envelope(seed: int, ties: str) -> None:
    labels, scores, pm, nm = drawn(seed)
    keep = slice(0, 40)  # O(n^3) below
    ev = evaluator(labels[keep], scores[keep], pm, nm, ties)
    roc = ev.roc_curve()
    hull = ev.roc_convex_hull()
    xs = np.unique(roc[:, 0])
    envelope = np.array([brute_envelope(roc[:, 0], roc[:, 1], x) for x in xs])
    np.testing.assert_allclose(np.interp(xs, hull[:, 0], hull[:, 1]), envelope, atol=1e-12)
    area = float(np.sum(np.diff(xs) * (envelope[1:] + envelope[:-1]) / 2))
    assert ev.area_under_roc_convex_hull() == pytest.approx(area, abs=1e-12)
    assert ev.area_under_roc_convex_hull() >= ev.partial_roc_auc(fpr=(0, 1)) - 1e-12
    # the hull's vertices are ROC points, and it turns right at each
    assert {tuple(p) for p in hull.tolist()} <= {tuple(p) for p in roc.tolist()}


@pytest.mark.parametrize("method", ["delong", "bootstrap"])
def test_gini_interval_is_the_areas_transformed(method: str) -> None:
    labels, scores, pm, nm = drawn(6)
    ev = evaluator(labels, scores, pm, nm)
    area = ev.interval("roc_auc", method=method, resamples=50)
    gini = ev.interval("gini", method=method, resamples=50)
    assert gini.value == ev.read("gini") == 2 * ev.area_under_roc_curve() - 1
    assert (gini.low, gini.high, gini.std_error) == (2 * area.low - 1, 2 * area.high - 1,
                                                     2 * area.std_error)


@pytest.mark.parametrize("absolute", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_best_difference_in_slices_and_in_python_ints(seed: int, absolute: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Read in slices of 3 cuts, and with R N past int64 (Python ints): the same cut and
    value as the exhaustive search in Python ints, "predict nothing" first."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 30))
    tp = np.cumsum(rng.integers(0, 3, m))
    fp = np.cumsum(rng.integers(0, 3, m))
    for r, n in ((int(tp[-1]) + 5, int(fp[-1]) + 5), (2**40 + 3, 2**41 + 1)):
        c = decisions.Cuts(np.linspace(1, 0, m), tp, fp, r, n, none=True)
        values = [0] + [int(a) * n - int(b) * r for a, b in zip(tp, fp, strict=True)]
        values = [abs(v) for v in values] if absolute else values
        want = values.index(max(values)) - 1  # -1: "predict nothing"
        monkeypatch.setattr(decisions, "_SLICE", 3)
        assert decisions.best_difference(c, absolute) == (want, max(values))


# ---------------------------------------------------------------------------------------------
# the ROC band: pROC's ci.se, against a bootstrap materialised case by case


def materialised_band(labels: np.ndarray, scores: np.ndarray, pm: int, nm: int,
                      specificities: list[float], resamples: int, seed: int) -> np.ndarray:
    """The same stratified draws as the evaluator's bootstrap (R among the positives, then N
    among the negatives, misses first drawn as a binomial count), each resample built case
    by case and read with pROC's coords (its roc thresholds, its interpolation)."""
    rng = np.random.default_rng(seed)

    def draw(ranked: int, missed: int) -> np.ndarray:
        return materialised_draws(rng, ranked, missed)

    order = np.lexsort((np.arange(labels.shape[0]), -scores))
    labels, scores = labels[order], scores[order]
    pos, neg = np.flatnonzero(labels), np.flatnonzero(~labels)
    out = np.empty((resamples, len(specificities)))
    for b in range(resamples):
        drawn_pos, drawn_neg = draw(len(pos), pm), draw(len(neg), nm)
        # the misses tie below every case
        low = scores.min() - 1
        s_pos = [scores[pos[i]] if i < len(pos) else low for i in drawn_pos]
        s_neg = [scores[neg[j]] if j < len(neg) else low for j in drawn_neg]
        lab = np.array([True] * len(s_pos) + [False] * len(s_neg))
        sc = np.array(s_pos + s_neg)
        se, sp = proc_roc(lab, sc)
        for g, s in enumerate(specificities):
            try:
                out[b, g] = proc_coords(sp, se, s, decreasing=False)
            except StopIteration:  # outside the resample's range
                out[b, g] = math.nan
    return out


@pytest.mark.parametrize("misses", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_roc_band_is_procs_ci_se(seed: int, misses: bool) -> None:
    labels, scores, pm, nm = drawn(seed, misses=misses)
    labels, scores = labels[:60], scores[:60]
    ev = evaluator(labels, scores, pm, nm)
    grid = [0.0, 0.05, 0.1, 0.25, 0.5, 0.9, 1.0]
    band = ev.roc_band(0.9, fpr=grid, resamples=40, seed=seed)
    specificities = [1.0 - x for x in grid]
    np.testing.assert_array_equal(band[:, 0], grid)
    se, sp = proc_roc(*with_misses_last(labels, scores, pm, nm))
    assert band[:, 1] == pytest.approx([proc_coords(sp, se, s, decreasing=False)
                                        for s in specificities], abs=1e-12)
    values = materialised_band(labels, scores, pm, nm, specificities, 40, seed)
    for g in range(len(grid)):
        finite = values[:, g][np.isfinite(values[:, g])]
        assert (band[g, 2], band[g, 3]) == pytest.approx(
            tuple(np.quantile(finite, [0.05, 0.95])), abs=1e-12)


def test_roc_band_refuses_bad_rates_and_changes_nothing() -> None:
    ev = evaluator(*drawn(1)[:2])
    before = ev.summary()
    for bad, message in (([0.1, 1.5], "must lie in"), ([math.nan], "must lie in"),
                         ([], "non-empty"), ([[0.1]], "non-empty")):
        with pytest.raises(ValueError, match=message):
            ev.roc_band(fpr=bad)
    with pytest.raises(ValueError, match="level"):
        ev.roc_band(1.0)
    assert ev.summary() == before


# ---------------------------------------------------------------------------------------------
# net benefit (dcurves) and cost curves (brute force)

PROBABILITIES = [0.0, 0.01, 0.05, 0.1, 0.2, 0.35, 0.5, 0.73, 0.99]


@pytest.mark.parametrize("prevalence", [None, 0.3])
@pytest.mark.parametrize("seed", SEEDS)
def test_net_benefit_and_decision_curve_are_dcurves(seed: int,
                                                    prevalence: float | None) -> None:
    """dcurves' dca() on the same cases (scores strictly inside (0, 1), which dcurves
    nudges at the ends); the treat-all and treat-none rows too."""
    import pandas as pd
    from dcurves import dca

    labels, scores, _, _ = drawn(seed, misses=False)
    scores = np.clip(scores, 0.05, 0.95)
    ev = evaluator(labels, scores)
    frame = pd.DataFrame({"outcome": labels.astype(int), "model": scores})
    want = dca(data=frame, outcome="outcome", modelnames=["model"],
               thresholds=PROBABILITIES, prevalence=prevalence)
    curve = ev.decision_curve(PROBABILITIES, prevalence=prevalence)
    for column, model in ((1, "model"), (2, "all"), (3, "none")):
        rows = want[want["model"] == model].sort_values("threshold")
        np.testing.assert_allclose(curve[:, column], rows["net_benefit"], rtol=1e-12,
                                   atol=1e-15)
    np.testing.assert_array_equal(ev.net_benefit(PROBABILITIES, prevalence), curve[:, 1])


def test_net_benefit_counts_misses_and_refuses_bad_thresholds() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True], [0.9, 0.6, 0.2])
    ev.add_misses(1)  # never treated: a false negative everywhere
    # at 0.5: TP 1, FP 1 of n = 4: 1/4 - 1/4 * (0.5 / 0.5)
    assert ev.net_benefit([0.5]).tolist() == [0.0]
    for bad in ([1.0], [-0.1], [math.nan], []):
        with pytest.raises(ValueError, match="thresholds must"):
            ev.net_benefit(bad)
    with pytest.raises(ValueError, match="prevalence must be in"):
        ev.decision_curve([0.1], prevalence=0.0)


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_cost_curve_is_the_brute_force_lower_envelope(seed: int, ties: str) -> None:
    """At every probability-cost value, the least normalised expected cost over every
    threshold's line and the two trivial classifiers' (cost = pc, cost = 1 - pc)."""
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm, ties)
    roc = ev.roc_curve()
    curve = ev.cost_curve()
    assert curve[0, 0] == 0.0
    assert curve[-1, 0] == 1.0
    assert np.all(np.diff(curve[:, 0]) > 0)
    grid = np.linspace(0, 1, 201)
    lines = [(x, 1 - y) for x, y in roc.tolist()] + [(0.0, 1.0), (1.0, 0.0)]
    envelope = np.array([min(fnr * pc + fpr * (1 - pc) for fpr, fnr in lines) for pc in grid])
    np.testing.assert_allclose(np.interp(grid, curve[:, 0], curve[:, 1]), envelope,
                               atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_min_expected_cost_is_the_best_cost_threshold(seed: int) -> None:
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm)
    costs = CostMatrix(tp=0, fn=5, fp=1, tn=0)
    assert ev.min_expected_cost(costs) == ev.best_threshold("cost", costs=costs)
    rows, r, n = brute_cuts(labels, scores, pm, nm)
    assert ev.min_expected_cost(costs).value == pytest.approx(
        min((5 * (r - tp) + fp) / (r + n) for _, tp, fp in rows), rel=1e-12)


# ---------------------------------------------------------------------------------------------
# precision-recall gain (pyprg, Flach & Kull's own code) and the Davis-Goadrich area


@pytest.fixture
def pyprg(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Flach & Kull's reference implementation; it calls np.alen, gone from NumPy 2, on
    sequences and scalars: given back for the test's duration."""
    monkeypatch.setattr(np, "alen", lambda a: len(a) if hasattr(a, "__len__") else 1,
                        raising=False)
    from prg import prg

    return prg


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_pr_gain_curve_and_area_are_flach_and_kulls(seed: int, ties: str, pyprg: Any) -> None:
    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores, ties=ties)
    want = pyprg.create_prg_curve(labels.astype(int), scores)
    assert ev.area_under_pr_gain_curve() == pytest.approx(pyprg.calc_auprg(want), abs=1e-12)
    ours = ev.pr_gain_curve()
    theirs = {(round(x, 12), round(y, 12)) for x, y in zip(
        want["recall_gain"], want["precision_gain"], strict=True) if x >= 0}
    # every point of ours is one of theirs (they add points where precision gain crosses 0,
    # on the same lines, which changes no area)
    assert {(round(x, 12), round(y, 12)) for x, y in ours.tolist()} <= theirs
    assert ours[0, 0] == pytest.approx(0.0, abs=1e-12)
    assert ours[-1, 0] == 1.0


def slow_davis_goadrich(labels: np.ndarray, scores: np.ndarray, pm: int) -> float:
    """Davis & Goadrich's interpolation written from the paper, one point at a time."""
    r = int(labels.sum()) + pm
    points = [(0, 0)]
    for t in sorted(set(scores.tolist()), reverse=True):
        points.append((int(np.sum(labels & (scores >= t))), int(np.sum(~labels & (scores >= t)))))
    curve: list[tuple[float, float]] = []
    for (tp_a, fp_a), (tp_b, fp_b) in itertools.pairwise(points):
        if tp_b == tp_a:
            if tp_b:
                curve.append((tp_b / r, tp_b / (tp_b + fp_b)))
            continue
        skew = Fraction(fp_b - fp_a, tp_b - tp_a)
        for x in range(1, tp_b - tp_a + 1):
            tp, fp = tp_a + x, fp_a + skew * x
            curve.append((tp / r, float(tp / (tp + fp))))
    curve.insert(0, (0.0, curve[0][1]))
    return sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in itertools.pairwise(curve))


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_davis_goadrich_area_is_the_papers_interpolation(seed: int, ties: str) -> None:
    labels, scores, pm, nm = drawn(seed)
    ev = evaluator(labels, scores, pm, nm, ties)
    assert ev.area_under_pr_curve(method="davis_goadrich") == pytest.approx(
        slow_davis_goadrich(labels, scores, pm), abs=1e-12)
    with pytest.raises(ValueError, match="interpolate=True does not apply"):
        ev.area_under_pr_curve(True, method="davis_goadrich")
    with pytest.raises(ValueError, match="method"):
        ev.area_under_pr_curve(method="goadrich")


def test_pr_gain_is_undefined_when_misses_keep_recall_below_the_base_rate() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, False], [0.9, 0.5, 0.1])
    ev.add_misses(5)  # recall at most 1/6, below pi = 6/8
    assert ev.pr_gain_curve().shape == (0, 2)
    assert math.isnan(ev.area_under_pr_gain_curve())


# ---------------------------------------------------------------------------------------------
# everywhere: every decision read of a window, a time window and a category is that of a
# fresh evaluator of the same cases

#: The arguments of each public decision read (a test below holds the table to the class).
CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "confusion_at": ((0.45,), {}), "best_threshold": ((), {}),
    "sensitivity_at": ((0.5,), {}), "specificity_at": ((0.5,), {}),
    "precision_at_recall": ((0.3,), {}), "recall_at_precision": ((0.3,), {}),
    "ks_statistic": ((), {}), "partial_roc_auc": ((), {"fpr": (0.0, 0.3)}),
    "det_curve": ((), {}), "gains_curve": ((), {}), "lift_curve": ((), {}),
    "lift_at": ((0.25,), {}), "gains_table": ((), {}), "roc_convex_hull": ((), {}),
    "area_under_roc_convex_hull": ((), {}), "net_benefit": (([0.1, 0.5],), {}),
    "decision_curve": (([0.1, 0.5],), {}), "cost_curve": ((), {}),
    "min_expected_cost": (((1.0, 5.0),), {}), "pr_gain_curve": ((), {}),
    "area_under_pr_gain_curve": ((), {}), "thresholds_table": ((), {}),
}


def test_the_table_of_calls_covers_every_decision_read() -> None:
    public = {name for name in vars(decisions.DecisionReads) if not name.startswith("_")}
    assert public == set(CALLS)


def same_reads(ev: ScoredPrecisionRecallEvaluation, fresh: ScoredPrecisionRecallEvaluation
               ) -> None:
    for name, (args, kwargs) in CALLS.items():
        try:
            want = getattr(fresh, name)(*args, **kwargs)
        except ValueError as refused:  # the window refuses it the same way
            with pytest.raises(ValueError, match=re.escape(str(refused))):
                getattr(ev, name)(*args, **kwargs)
            continue
        got = getattr(ev, name)(*args, **kwargs)
        if isinstance(got, np.ndarray) and got.dtype.names:  # a table: NaN equal, by column
            for column in got.dtype.names:
                np.testing.assert_array_equal(got[column], want[column], err_msg=name)
        elif isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            assert got == want or (got != got and want != want), name


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", range(4))
def test_a_count_window_reads_as_a_fresh_evaluator_of_its_cases(seed: int, ties: str) -> None:
    labels, scores, _, _ = drawn(seed)
    window = ScoredPrecisionRecallEvaluation(ties=ties, window=25)  # type: ignore[arg-type]
    for label, score in zip(labels.tolist(), scores.tolist(), strict=True):
        window.add_case(label, score)
    fresh = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
    fresh.add_cases(labels[-25:], scores[-25:])
    same_reads(window, fresh)


@pytest.mark.parametrize("seed", range(4))
def test_a_time_window_reads_as_a_fresh_evaluator_of_its_cases(seed: int) -> None:
    from tests.helpers import Clock

    labels, scores, _, _ = drawn(seed)
    clock = Clock()
    window = ScoredPrecisionRecallEvaluation(horizon=10.0, clock=clock)
    for label, score in zip(labels.tolist(), scores.tolist(), strict=True):
        clock.now += 1.0
        window.add_case(label, score)
    inside = slice(len(labels) - 10, None)  # the cases of the last 10 seconds
    fresh = ScoredPrecisionRecallEvaluation()
    fresh.add_cases(labels[inside], scores[inside])
    same_reads(window, fresh)


@pytest.mark.parametrize("seed", range(3))
def test_a_category_reads_as_a_fresh_one_vs_rest_evaluator(seed: int) -> None:
    from rankeval import ScoredClassifierEvaluation

    rng = np.random.default_rng(seed)
    truth = rng.choice(["a", "b", "c"], 80)
    probabilities = np.round(rng.dirichlet([1, 1, 1], 80), 2)
    ev = ScoredClassifierEvaluation(["a", "b", "c"])
    ev.add_cases(truth, probabilities)
    for j, name in enumerate("abc"):
        fresh = ScoredPrecisionRecallEvaluation()
        fresh.add_cases(truth == name, probabilities[:, j])
        same_reads(ev.category(name), fresh)


def test_gains_table_of_no_ranked_case_is_empty() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    assert ev.gains_table(3).shape == (0,)
    ev.add_misses(2)
    assert ev.gains_table(3).shape == (0,)
    assert ev.gains_table(3).dtype.names == decisions.GAINS_COLUMNS


@pytest.mark.parametrize("ties", TIE_POLICIES)
@pytest.mark.parametrize("seed", SEEDS)
def test_thresholds_table_is_sklearns_curves_at_every_threshold(seed: int, ties: str) -> None:
    from sklearn.metrics import precision_recall_curve

    labels, scores, _, _ = drawn(seed, misses=False)
    ev = evaluator(labels, scores, ties=ties)
    table = ev.thresholds_table()
    fpr, tpr, thresholds = roc_curve(labels, scores, drop_intermediate=False)
    np.testing.assert_array_equal(table["threshold"], thresholds)
    np.testing.assert_allclose(table["fpr"], fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(table["tpr"], tpr, rtol=0, atol=1e-15)
    precision, _, cuts = precision_recall_curve(labels, scores)
    by_threshold = dict(zip(cuts.tolist(), precision[:-1].tolist(), strict=True))
    for row in table[1:]:
        assert row["precision"] == pytest.approx(by_threshold[row["threshold"]], abs=1e-15)
    assert (table["tp"] + table["fn"] == labels.sum()).all()
    assert (table["fp"] + table["tn"] == (~labels).sum()).all()
