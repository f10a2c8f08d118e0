"""Intervals on the scored evaluator: DeLong against an O(n²) implementation written here from
the 1988 paper, the proportion intervals against statsmodels, the AP intervals by hand, the
bootstrap against resamples materialised and evaluated afresh."""

from __future__ import annotations

import math
import random
import re
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.intervals import (
    PROPORTION_METHODS,
    Interval,
    delong,
    normal_quantile,
    proportion_interval,
)
from rankeval.scored import uncertainty
from tests.helpers import materialised_draws, read_options


def slow_delong(labels: list[bool], scores: list[float], arrival_ties: bool,
                pos_missed: int = 0, neg_missed: int = 0) -> tuple[float, float, float]:
    """DeLong, DeLong & Clarke-Pearson (1988), from the kernel ψ over every (positive,
    negative) pair: ψ = 1 if the positive ranks above, 1/2 on a tie, 0 below. With
    ``arrival_ties`` equal scores rank in arrival order (no tie). Misses rank last, tied with
    each other. Returns (AUC, S10, S01)."""
    cases = [(s, i, lab) for i, (lab, s) in enumerate(zip(labels, scores, strict=True))]
    cases += [(-math.inf, len(cases) + j, True) for j in range(pos_missed)]
    cases += [(-math.inf, len(cases) + pos_missed + j, False) for j in range(neg_missed)]
    pos = [c for c in cases if c[2]]
    neg = [c for c in cases if not c[2]]

    def psi(p: tuple[float, int, bool], q: tuple[float, int, bool]) -> float:
        if p[0] == q[0] and (p[0] == -math.inf or not arrival_ties):
            return 0.5
        if p[0] != q[0]:
            return 1.0 if p[0] > q[0] else 0.0
        return 1.0 if p[1] < q[1] else 0.0  # arrival order: the earlier ranks above

    v10 = [sum(psi(p, q) for q in neg) / len(neg) for p in pos]
    v01 = [sum(psi(p, q) for p in pos) / len(pos) for q in neg]
    auc = sum(v10) / len(pos)
    s10 = sum((v - auc) ** 2 for v in v10) / (len(pos) - 1)
    s01 = sum((v - auc) ** 2 for v in v01) / (len(neg) - 1)
    return auc, s10, s01


def _random_cases(rng: random.Random, n: int, tied: bool) -> tuple[list[bool], list[float]]:
    labels = [rng.random() < 0.4 for _ in range(n)]
    labels[0], labels[1] = True, False  # both classes, at least twice with a miss or two
    labels[2], labels[3] = True, False
    scores = [float(rng.randint(0, 5)) if tied else rng.random() for _ in range(n)]
    return labels, scores


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("ties", ["grouped", "insertion"])
def test_delong_equals_the_paper_on_every_pair(seed: int, ties: str) -> None:
    rng = random.Random(seed)
    labels, scores = _random_cases(rng, rng.randint(4, 60), tied=seed % 2 == 0)
    pos_missed, neg_missed = rng.choice((0, 0, 1, 3)), rng.choice((0, 0, 2))
    ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
    ev.add_cases(labels, scores)
    ev.add_misses(pos_missed)
    ev.add_negative_misses(neg_missed)
    auc, s10, s01 = slow_delong(labels, scores, ties == "insertion", pos_missed, neg_missed)
    keys, ranked = ev._merged().ranking()
    parts = delong(keys, ranked, ties == "grouped", pos_missed, neg_missed)
    assert parts.auc == pytest.approx(auc, abs=1e-12)
    assert ev.area_under_roc_curve() == pytest.approx(auc, abs=1e-12)
    assert parts.s10 == pytest.approx(s10, abs=1e-12)
    assert parts.s01 == pytest.approx(s01, abs=1e-12)
    i = ev.interval("roc_auc", level=0.9)
    m, n = parts.positives, parts.negatives
    se = math.sqrt(s10 / m + s01 / n)
    z = normal_quantile(0.95)
    assert i.std_error == pytest.approx(se, abs=1e-12)
    assert i.low == pytest.approx(max(0.0, auc - z * se), abs=1e-12)
    assert i.high == pytest.approx(min(1.0, auc + z * se), abs=1e-12)
    assert (i.value, i.level, i.method) == (ev.area_under_roc_curve(), 0.9, "delong")


def test_delong_edge_cases() -> None:
    one = ScoredPrecisionRecallEvaluation()
    one.add_cases([True, False, False], [0.9, 0.5, 0.1])
    i = one.interval("roc_auc")
    assert i.value == 1.0
    assert math.isnan(i.low)  # one positive: pROC's NA
    assert math.isnan(i.high)
    tied = ScoredPrecisionRecallEvaluation(ties="grouped")
    tied.add_cases([True, False] * 5, [0.5] * 10)
    assert tuple(tied.interval("roc_auc")) == (0.5, 0.5)  # every placement 1/2: no spread
    perfect = ScoredPrecisionRecallEvaluation()
    perfect.add_cases([True, True, False, False], [0.9, 0.8, 0.2, 0.1])
    assert tuple(perfect.interval("roc_auc")) == (1.0, 1.0)  # never outside [0, 1]
    worst = ScoredPrecisionRecallEvaluation()
    worst.add_cases([False, True, False, True], [0.9, 0.2, 0.8, 0.1])
    assert worst.interval("roc_auc").low == 0.0 <= worst.interval("roc_auc").high
    for level in (0, 1, 1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="level must be strictly between 0 and 1"):
            perfect.interval("roc_auc", level=level)


def test_delong_with_a_hundred_million_misses() -> None:
    """Misses are counts: 10^8 of each, no array of that size and no overflow."""
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True, False], [0.9, 0.8, 0.3, 0.1])
    ev.add_misses(10**8)
    ev.add_negative_misses(10**8)
    i = ev.interval("roc_auc")
    # Nearly every pair is (positive miss, negative miss): the area tends to 1/2, and with
    # 10^8 cases a class the standard error is tiny but positive.
    assert i.value == pytest.approx(0.5, abs=1e-7)
    assert 0.0 < i.std_error < 1e-4
    assert i.low < i.value < i.high


@pytest.mark.parametrize("method", PROPORTION_METHODS)
def test_proportions_equal_statsmodels(method: str) -> None:
    theirs = "beta" if method == "clopper_pearson" else method
    for trials in (1, 2, 7, 50, 1000):
        for successes in sorted({0, 1, trials // 3, trials // 2, trials - 1, trials}):
            for level in (0.8, 0.95, 0.99):
                low, high = proportion_interval(successes, trials, level, method)
                want = proportion_confint(successes, trials, alpha=1 - level, method=theirs)
                assert low == pytest.approx(want[0], abs=1e-12), (successes, trials, level)
                assert high == pytest.approx(want[1], abs=1e-12), (successes, trials, level)


def test_precision_at_and_r_precision_are_proportions() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True, True, False, False], [6, 5, 4, 3, 2, 1])
    ev.add_misses(1)
    i = ev.interval("precision_at", k=4, method="wilson")
    assert i.value == 0.75
    assert (i.low, i.high) == pytest.approx(proportion_confint(3, 4, method="wilson"), abs=1e-12)
    r = ev.interval("r_precision", method="beta", level=0.9)  # R = 4: 3 of the top 4
    assert (r.low, r.high) == pytest.approx(proportion_confint(3, 4, 0.1, "beta"), abs=1e-12)
    p = ev.interval("precision", threshold=3.5)  # scores 6, 5, 4: two of three
    assert p.value == 2 / 3
    assert (p.low, p.high) == pytest.approx(proportion_confint(2, 3, method="wilson"),
                                            abs=1e-12)
    rec = ev.interval("recall", threshold=3.5, method="agresti_coull")  # 2 of R = 4
    assert rec.value == 0.5
    assert (rec.low, rec.high) == pytest.approx(
        proportion_confint(2, 4, method="agresti_coull"), abs=1e-12)
    with pytest.raises(ValueError, match="precision_at needs k="):
        ev.interval("precision_at")
    with pytest.raises(ValueError, match="needs threshold="):
        ev.interval("recall")
    with pytest.raises(ValueError, match="method must be one of"):
        ev.interval("roc_auc", method="wilson")


def test_average_precision_intervals_by_hand() -> None:
    """Boyd, Eng & Page (2013), n = R = 4: binomial θ ± z·sqrt(θ(1-θ)/n); logit
    expit(logit θ ± z/sqrt(nθ(1-θ)))."""
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True, True, False, False], [6, 5, 4, 3, 2, 1])
    ev.add_misses(1)
    ap = (1 + 2 / 3 + 3 / 4) / 4
    assert ev.average_precision() == pytest.approx(ap, abs=1e-15)
    z = 1.959963984540054
    binomial = ev.interval("average_precision", method="binomial")
    half = z * math.sqrt(ap * (1 - ap) / 4)
    assert (binomial.low, binomial.high) == pytest.approx((ap - half, min(ap + half, 1.0)),
                                                          abs=1e-12)  # clipped to [0, 1]
    logit = ev.interval("average_precision")
    eta, tau = math.log(ap / (1 - ap)), 1 / math.sqrt(4 * ap * (1 - ap))
    expit = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    assert logit.method == "logit"
    assert (logit.low, logit.high) == pytest.approx((expit(eta - z * tau), expit(eta + z * tau)),
                                                    abs=1e-12)


def _materialised(labels: np.ndarray, scores: np.ndarray, pos_missed: int, neg_missed: int,
                  measure: str, resamples: int, seed: int, k: int | None) -> list[float]:
    """The bootstrap's resamples built case by case (the same draws: R among the positives,
    then N among the negatives, each resample; where a class has misses, first how many of
    its draws fall on them, a binomial count, then the rest among its ranked cases) and read
    by a fresh evaluator."""

    def draw(ranked: int, missed: int) -> np.ndarray:
        return materialised_draws(rng, ranked, missed)

    rng = np.random.default_rng(seed)
    order = np.lexsort((np.arange(labels.shape[0]), -scores))  # rank order, arrival in ties
    labels, scores = labels[order], scores[order]
    pos, neg = np.flatnonzero(labels), np.flatnonzero(~labels)
    out = []
    for _ in range(resamples):
        drawn_pos = draw(pos.shape[0], pos_missed)
        drawn_neg = draw(neg.shape[0], neg_missed)
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        for i in drawn_pos.tolist():
            if i < pos.shape[0]:
                ev.add_case(True, float(scores[pos[i]]))
        for j in drawn_neg.tolist():
            if j < neg.shape[0]:
                ev.add_case(False, float(scores[neg[j]]))
        ev.add_misses(int(np.count_nonzero(drawn_pos >= pos.shape[0])))
        ev.add_negative_misses(int(np.count_nonzero(drawn_neg >= neg.shape[0])))
        try:  # every registered read, with its options; none met: undefined
            out.append(float(ev.read(measure, k, **read_options(measure))))
        except ValueError:
            out.append(math.nan)
    return out


@pytest.mark.parametrize("measure", uncertainty.BOOTSTRAP_MEASURES)
def test_the_bootstrap_reads_each_resample_exactly(measure: str) -> None:
    rng = np.random.default_rng(5)
    labels = rng.random(40) < 0.4
    labels[:2] = (True, False)
    scores = np.round(rng.random(40), 1)  # ties
    k = 7 if measure == "precision_at" else None
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev.add_cases(labels, scores)
    ev.add_misses(2)
    ev.add_negative_misses(1)
    options = read_options(measure)
    got = ev.interval(measure, level=0.9, method="bootstrap", k=k, resamples=60, seed=11,
                      **options)
    values = np.array(_materialised(labels, scores, 2, 1, measure, 60, 11, k))
    values = values[np.isfinite(values)]
    assert got.std_error == pytest.approx(float(np.std(values, ddof=1)), abs=1e-12)
    assert (got.low, got.high) == pytest.approx(tuple(np.quantile(values, [0.05, 0.95])),
                                                abs=1e-12)
    again = ev.interval(measure, level=0.9, method="bootstrap", k=k, resamples=60, seed=11,
                        **options)
    assert again == got  # seeded


def test_the_bootstrap_brackets_the_delong_interval_roughly() -> None:
    rng = np.random.default_rng(0)
    labels = rng.random(2000) < 0.3
    scores = rng.normal(labels.astype(float), 1.0)
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(labels, scores)
    exact = ev.interval("roc_auc")
    boot = ev.interval("roc_auc", method="bootstrap", resamples=400, seed=3)
    assert boot.std_error == pytest.approx(exact.std_error, rel=0.2)
    assert boot.low == pytest.approx(exact.low, abs=0.02)
    assert boot.high == pytest.approx(exact.high, abs=0.02)


def test_interval_is_a_value_type() -> None:
    i = Interval(0.5, 0.25, 0.75, 0.9, "wilson", 0.1)
    low, high = i
    assert (low, high) == (0.25, 0.75)
    assert 0.3 in i
    assert 0.8 not in i
    with pytest.raises(AttributeError):
        i.low = 0.0  # type: ignore[misc]


@pytest.mark.parametrize("ties", ["grouped", "insertion"])
def test_windows_give_the_intervals_of_the_cases_they_hold(ties: str) -> None:
    """A count window's and a time window's intervals are those of a fresh evaluator of the
    cases inside."""
    rng = np.random.default_rng(9)
    labels = rng.random(300) < 0.4
    scores = np.round(rng.random(300), 2)
    window = ScoredPrecisionRecallEvaluation(ties=ties, window=100)  # type: ignore[arg-type]
    now = [0.0]
    timed = ScoredPrecisionRecallEvaluation(ties=ties, horizon=100.0,  # type: ignore[arg-type]
                                            clock=lambda: now[0])
    for i, (label, score) in enumerate(zip(labels.tolist(), scores.tolist(), strict=True)):
        now[0] = float(i)  # case i arrives at second i; at 299 the last 100 are inside
        window.add_case(label, score)
        timed.add_case(label, score)
    fresh = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
    fresh.add_cases(labels[-100:], scores[-100:])
    for ev in (window, timed):
        assert ev.num_cases() == 100
        for measure, extra in (("roc_auc", {}), ("average_precision", {}),
                               ("precision_at", {"k": 10}), ("r_precision", {})):
            assert ev.interval(measure, **extra) == fresh.interval(measure, **extra)
        assert ev.interval("roc_auc", method="bootstrap", resamples=50, seed=2) == \
            fresh.interval("roc_auc", method="bootstrap", resamples=50, seed=2)


def test_exact_dot_is_python_integer_arithmetic() -> None:
    """The chunked int64 sums of DeLong's placement sums equal Python's exact integers, for
    weights up to 2^40 and values up to 2^62 (single products far past int64)."""
    from rankeval.intervals import exact_dot

    rng = np.random.default_rng(11)
    for _ in range(500):
        n = int(rng.integers(1, 60))
        top = int(rng.choice([10, 2**20, 2**31, 2**40, 2**62]))
        weights = rng.integers(0, min(top, 2**40), size=n)
        values = rng.integers(0, top, size=n)
        want = sum(int(w) * int(v) for w, v in zip(weights, values, strict=True))
        assert exact_dot(weights, values) == want
    assert exact_dot(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == 0


def _every_interval_call() -> list[tuple[str, str]]:
    return [(m, method) for m, methods in uncertainty.INTERVAL_METHODS.items()
            for method in methods]


def _interval_arguments(measure: str, k: int) -> dict[str, Any]:
    """What interval(measure) needs beyond the measure: a rank, a threshold, the options."""
    extra: dict[str, Any] = ({"k": k} if measure == "precision_at" else
                             {"threshold": 0.5} if measure in ("precision", "recall") else {})
    return {**extra, **read_options(measure)}


@pytest.mark.parametrize(("measure", "method"), _every_interval_call())
def test_an_undefined_interval_keeps_the_evaluators_value(measure: str, method: str) -> None:
    """Fixed: an empty evaluator's ROC interval had value NaN under DeLong, 0.5 under the
    bootstrap, while the evaluator says 0.5. One rule: the value is the evaluator's read."""
    extra = _interval_arguments(measure, 3)
    for cases in ([], [(True, 0.9)], [(False, 0.1)]):
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        for correct, score in cases:
            ev.add_case(correct, score)
        if measure in ("precision", "recall"):  # interval() only: no read to compare
            ev.interval(measure, method=method, resamples=20, **extra)
            continue
        try:
            value = float(ev.read(measure, extra.get("k"), **read_options(measure)))
        except ValueError as refused:  # a decision read needing both classes: so does this
            with pytest.raises(ValueError, match=re.escape(str(refused))):
                ev.interval(measure, method=method, resamples=20, **extra)
            continue
        got = ev.interval(measure, method=method, resamples=20, **extra)
        assert got.value == value or (math.isnan(got.value) and math.isnan(value)), (
            measure, method, cases, got)


def test_a_nan_threshold_and_a_level_too_close_to_one_are_refused() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True], [0.9, 0.5, 0.1])
    before = ev.summary()
    for measure in ("precision", "recall"):
        with pytest.raises(ValueError, match="threshold must not be NaN"):
            ev.interval(measure, threshold=float("nan"))
    for measure, method in _every_interval_call():
        extra = _interval_arguments(measure, 2)
        with pytest.raises(ValueError, match="too close to 1"):
            ev.interval(measure, level=0.9999999999999999, method=method, **extra)
        widest = ev.interval(measure, level=0.9999999999999998, method=method, resamples=20,
                             **extra)
        assert widest.level == 0.9999999999999998
    assert ev.summary() == before


def test_the_bootstrap_draws_the_misses_as_one_count() -> None:
    """Fixed: 3 cases and 10^7 misses took 11 minutes (a draw a miss each resample). The
    misses' count is drawn as a binomial: the resamples of 10^7 misses cost what 3 cases
    cost, and equal a materialised bootstrap's on a small case (above)."""
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev.add_cases([True, False, True], [0.9, 0.5, 0.1])
    ev.add_misses(10**7)
    ev.add_negative_misses(10**7)
    got = ev.interval("average_precision", method="bootstrap", resamples=200)
    # Two of 10^7 + 2 positives are ranked: every resample's AP is about 2·ranked/(10^7+2).
    assert 0.0 <= got.low <= got.value <= got.high < 1e-5
