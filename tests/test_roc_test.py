"""DeLong's tests of two ROC areas against the 1988 paper written out over every pair here,
with scipy's normal and t distributions; PairedEvaluation streaming equal to the arrays."""

from __future__ import annotations

import math
import os
import pickle
import random
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from rankeval import PairedEvaluation, PersistenceError, ScoredPrecisionRecallEvaluation, roc_test


def _psi(x: float, y: float) -> float:
    return 1.0 if x > y else 0.5 if x == y else 0.0


def slow_components(labels: list[bool], scores: list[float]) -> tuple[float, list[float],
                                                                       list[float]]:
    """AUC and the placements V10 (per positive) and V01 (per negative), in case order."""
    pos = [s for lab, s in zip(labels, scores, strict=True) if lab]
    neg = [s for lab, s in zip(labels, scores, strict=True) if not lab]
    v10 = [sum(_psi(x, y) for y in neg) / len(neg) for x in pos]
    v01 = [sum(_psi(x, y) for x in pos) / len(pos) for y in neg]
    return sum(v10) / len(pos), v10, v01


def slow_paired(labels: list[bool], a: list[float], b: list[float]) -> tuple[float, float]:
    """(difference, its standard deviation) by DeLong et al. (1988), section 3."""
    ta, a10, a01 = slow_components(labels, a)
    tb, b10, b01 = slow_components(labels, b)
    m, n = len(a10), len(a01)

    def cov(u: list[float], tu: float, v: list[float], tv: float, k: int) -> float:
        return sum((x - tu) * (y - tv) for x, y in zip(u, v, strict=True)) / (k - 1)

    var = (cov(a10, ta, a10, ta, m) + cov(b10, tb, b10, tb, m) - 2 * cov(a10, ta, b10, tb, m)) / m
    var += (cov(a01, ta, a01, ta, n) + cov(b01, tb, b01, tb, n)
            - 2 * cov(a01, ta, b01, tb, n)) / n
    return ta - tb, math.sqrt(var)


def _data(rng: random.Random, n: int) -> tuple[list[bool], list[float], list[float]]:
    labels = [rng.random() < 0.45 for _ in range(n)]
    labels[:4] = [True, True, False, False]
    a = [rng.gauss(1.0 if lab else 0.0, 1.0) for lab in labels]
    b = [round(rng.gauss(0.6 if lab else 0.0, 1.0), 1) for lab in labels]  # ties
    return labels, a, b


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_delong_equals_the_paper(seed: int, alternative: str) -> None:
    rng = random.Random(seed)
    labels, a, b = _data(rng, rng.randint(6, 80))
    d, sigma = slow_paired(labels, a, b)
    got = roc_test(labels, a, b, level=0.9, alternative=alternative)
    z = d / sigma
    assert got.difference == pytest.approx(d, abs=1e-12)
    assert got.statistic == pytest.approx(z, abs=1e-9)
    want = {"two-sided": 2 * stats.norm.sf(abs(z)), "greater": stats.norm.sf(z),
            "less": stats.norm.cdf(z)}[alternative]
    assert got.p_value == pytest.approx(want, abs=1e-12)
    crit = stats.norm.ppf(0.95)
    assert (got.low, got.high) == pytest.approx((d - crit * sigma, d + crit * sigma), abs=1e-12)
    assert got.method == "delong_paired"
    streamed = PairedEvaluation()
    for label, x, y in zip(labels[:5], a[:5], b[:5], strict=True):
        streamed.add_case(label, x, y)
    streamed.add_cases(labels[5:], a[5:], b[5:])
    again = streamed.roc_test(level=0.9, alternative=alternative)
    assert again.statistic == pytest.approx(got.statistic, abs=1e-12)
    assert again.p_value == pytest.approx(got.p_value, abs=1e-12)
    assert streamed.a.area_under_roc_curve() == pytest.approx(slow_components(labels, a)[0],
                                                              abs=1e-12)


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_unpaired_delong_is_procs_welch_t(seed: int, alternative: str) -> None:
    rng = random.Random(seed)
    labels_a, a, _ = _data(rng, rng.randint(6, 60))
    labels_b, _, b = _data(rng, rng.randint(6, 60))
    parts = []
    for labels, scores in ((labels_a, a), (labels_b, b)):
        auc, v10, v01 = slow_components(labels, scores)
        m, n = len(v10), len(v01)
        s = (sum((v - auc) ** 2 for v in v10) / (m - 1) / m
             + sum((v - auc) ** 2 for v in v01) / (n - 1) / n)
        parts.append((auc, s, m + n))
    (ta, sa, na), (tb, sb, nb) = parts
    t = (ta - tb) / math.sqrt(sa + sb)
    df = (sa + sb) ** 2 / (sa**2 / (na - 1) + sb**2 / (nb - 1))
    ev_a = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev_a.add_cases(labels_a, a)
    ev_b = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev_b.add_cases(labels_b, b)
    got = roc_test(ev_a, ev_b, alternative=alternative)
    assert got.statistic == pytest.approx(t, abs=1e-9)
    assert got.df == pytest.approx(df, rel=1e-12)
    want = {"two-sided": 2 * stats.t.sf(abs(t), df), "greater": stats.t.sf(t, df),
            "less": stats.t.cdf(t, df)}[alternative]
    assert got.p_value == pytest.approx(want, abs=1e-12)
    crit = stats.t.ppf(0.975, df)
    spread = math.sqrt(sa + sb)
    assert (got.low, got.high) == pytest.approx((ta - tb - crit * spread,
                                                 ta - tb + crit * spread), abs=1e-12)


def test_identical_classifiers_differ_by_nothing() -> None:
    labels = [True, False, True, False, True, False]
    scores = [0.9, 0.1, 0.8, 0.7, 0.3, 0.2]
    same = roc_test(labels, scores, scores)
    assert (same.statistic, same.p_value, same.difference) == (0.0, 1.0, 0.0)
    assert (same.low, same.high) == (0.0, 0.0)


def test_refusals_and_all_or_nothing() -> None:
    with pytest.raises(ValueError, match="at least two positives and two negatives"):
        roc_test([True, False, False], [0.9, 0.5, 0.1], [0.4, 0.5, 0.6])
    with pytest.raises(ValueError, match="alternative must be one of"):
        roc_test([True, True, False, False], [1, 2, 3, 4], [1, 2, 3, 4], alternative="up")
    with pytest.raises(TypeError, match="two ScoredPrecisionRecallEvaluation"):
        roc_test(ScoredPrecisionRecallEvaluation(), [1, 2])
    paired = PairedEvaluation()
    paired.add_cases([True, False], [0.9, 0.1], [0.8, 0.2])
    with pytest.raises(ValueError, match="NaN"):
        paired.add_cases([True, False], [0.5, 0.4], [0.3, float("nan")])
    assert paired.num_cases() == 2
    assert paired.a.num_cases() == paired.b.num_cases() == 2


def _paired(seed: int, n: int = 60) -> PairedEvaluation:
    rng = np.random.default_rng(seed)
    paired = PairedEvaluation()
    paired.add_cases(rng.random(n) < 0.4, rng.random(n).round(1), rng.random(n).round(2))
    return paired


def test_the_readers_cannot_be_written_and_desynchronise_nothing() -> None:
    """Fixed: paired.a.add_case(...) changed a's area but not the pairs roc_test reads."""
    paired = _paired(1)
    before = paired.roc_test()
    with pytest.raises(TypeError):
        paired.a.add_case(True, 0.5)
    with pytest.raises(AttributeError):
        paired.a = ScoredPrecisionRecallEvaluation()  # type: ignore[misc]
    assert paired.roc_test() == before
    assert paired.a.num_cases() == paired.num_cases() == 60


def test_merge_bytes_files_and_pickle_round_trip(tmp_path: Path) -> None:
    whole, first, second = _paired(2, 90), _paired(2, 90), PairedEvaluation()
    labels, a, b = first._arrays()
    first, second = PairedEvaluation(), PairedEvaluation()
    first.add_cases(labels[:40], a[:40], b[:40])
    second.add_cases(labels[40:], a[40:], b[40:])
    first.merge(second)
    assert first == whole
    assert first.roc_test() == whole.roc_test()
    assert PairedEvaluation.from_bytes(whole.to_bytes()) == whole
    whole.save(tmp_path / "paired.rankeval")
    loaded = PairedEvaluation.load(tmp_path / "paired.rankeval")
    assert loaded == whole
    assert loaded.roc_test() == whole.roc_test()
    again = pickle.loads(pickle.dumps(whole))
    assert again == whole
    assert again.roc_test() == whole.roc_test()
    with pytest.raises(TypeError, match="can only merge a PairedEvaluation"):
        whole.merge(ScoredPrecisionRecallEvaluation())  # type: ignore[arg-type]


def test_a_damaged_paired_file_is_refused_by_name(tmp_path: Path) -> None:
    data = bytearray(_paired(3).to_bytes())
    for cut in (0, 10, len(data) // 2, len(data) - 1):
        with pytest.raises(PersistenceError, match="paired"):
            PairedEvaluation.from_bytes(bytes(data[:cut]), "paired.rankeval")
    data[40] ^= 1
    with pytest.raises(PersistenceError, match="checksum"):
        PairedEvaluation.from_bytes(bytes(data))
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(PersistenceError, match="not a regular file"):
        PairedEvaluation.load(tmp_path / "fifo")


def test_the_old_spelling_of_two_sided_warns_and_gives_the_same_test() -> None:
    """scipy's "two-sided" is the spelling; "two_sided" warns, names its removal release, and
    gives the same test."""
    from rankeval import roc_test

    labels, a, b = [1, 1, 0, 0, 1, 0], [0.9, 0.8, 0.3, 0.4, 0.6, 0.1], [0.7, 0.2, 0.6, 0.1, 0.8,
                                                                          0.5]
    with pytest.warns(DeprecationWarning, match="removed in rankeval 1.0"):
        old = roc_test(labels, a, b, alternative="two_sided")
    assert old == roc_test(labels, a, b)
    assert old.alternative == "two-sided"


def test_the_difference_comes_as_the_one_interval_type() -> None:
    """A test's difference and its bounds read as an Interval (the type every value with
    bounds has), its standard error |difference / statistic|; so does compare()'s pair."""
    from rankeval import Interval, compare, roc_test

    t = roc_test([1, 1, 0, 0, 1, 0], [0.9, 0.8, 0.3, 0.4, 0.6, 0.1],
                 [0.7, 0.2, 0.6, 0.1, 0.8, 0.5], level=0.9)
    i = t.interval
    assert isinstance(i, Interval)
    assert (i.value, i.low, i.high, i.level, i.method) == (t.difference, t.low, t.high, 0.9,
                                                           "delong_paired")
    assert i.std_error == pytest.approx(abs(t.difference / t.statistic))
    qrels = {f"q{k}": {"a": 1, "b": 0} for k in range(5)}
    runs = {"x": {q: {"a": 1.0, "b": 0.5 + k / 10} for k, q in enumerate(qrels)},
            "y": {q: {"a": 0.1 * k, "b": 0.5} for k, q in enumerate(qrels)}}
    pair = compare(qrels, runs, "recip_rank", test="t-test", alpha=0.1).tests[0]
    assert pair.interval == Interval(pair.difference, pair.low, pair.high, 0.9, "t-test")


# ---------------------------------------------------------------------------------------------
# the paired bootstrap test of partial areas (pROC's roc.test(method="bootstrap"))


def _slow_partial_test(labels: np.ndarray, a: np.ndarray, b: np.ndarray, span: tuple[float, float],
                       resamples: int, seed: int) -> tuple[float, float]:
    """Each resample materialised case by case (positives drawn first, then negatives, with
    replacement) into two fresh evaluators; pROC's statistic D = d / sd(differences)."""
    from rankeval import ScoredPrecisionRecallEvaluation

    rng = np.random.default_rng(seed)
    positives, negatives = np.flatnonzero(labels), np.flatnonzero(~labels)
    differences = []
    for _ in range(resamples):
        drawn_pos = positives[rng.integers(0, len(positives), size=len(positives))]
        drawn_neg = negatives[rng.integers(0, len(negatives), size=len(negatives))]
        cases = np.concatenate((drawn_pos, drawn_neg))
        areas = []
        for scores in (a, b):
            ev = ScoredPrecisionRecallEvaluation()
            for i in cases.tolist():
                ev.add_case(bool(labels[i]), float(scores[i]))
            areas.append(ev.partial_roc_auc(fpr=span))
        differences.append(areas[0] - areas[1])
    whole = []
    for scores in (a, b):
        ev = ScoredPrecisionRecallEvaluation()
        ev.add_cases(labels, scores)
        whole.append(ev.partial_roc_auc(fpr=span))
    d = whole[0] - whole[1]
    return d, d / float(np.std(differences, ddof=1))


@pytest.mark.parametrize("seed", range(3))
def test_partial_roc_test_is_the_materialised_bootstrap(seed: int) -> None:
    from statistics import NormalDist

    from rankeval import PairedEvaluation

    rng = np.random.default_rng(seed)
    labels = rng.random(60) < 0.4
    labels[:4] = [True, True, False, False]
    a = np.round(labels + rng.normal(0, 1.0, 60), 1)
    b = np.round(labels + rng.normal(0, 1.6, 60), 1)
    paired = PairedEvaluation()
    paired.add_cases(labels, a, b)
    test = paired.partial_roc_test(fpr=(0.0, 0.3), resamples=50, seed=seed)
    d, z = _slow_partial_test(labels, a, b, (0.0, 0.3), 50, seed)
    assert test.method == "bootstrap_paired"
    assert test.difference == pytest.approx(d, abs=1e-12)
    assert test.statistic == pytest.approx(z, rel=1e-9)
    assert test.p_value == pytest.approx(2 * NormalDist().cdf(-abs(z)), rel=1e-9)
    greater = paired.partial_roc_test(fpr=(0.0, 0.3), resamples=50, seed=seed,
                                      alternative="greater")
    assert greater.p_value == pytest.approx(NormalDist().cdf(-z), rel=1e-9)


def test_partial_roc_test_refuses_what_partial_areas_refuse() -> None:
    from rankeval import PairedEvaluation

    paired = PairedEvaluation()
    paired.add_cases([True, False, True, False], [0.9, 0.1, 0.8, 0.3], [0.5, 0.4, 0.3, 0.2])
    with pytest.raises(ValueError, match="reversed"):
        paired.partial_roc_test(fpr=(0.3, 0.1))
    with pytest.raises(ValueError, match="alternative"):
        paired.partial_roc_test(fpr=(0, 0.3), alternative="two_tailed")
    small = PairedEvaluation()
    small.add_cases([True, False, False], [0.9, 0.1, 0.3], [0.5, 0.4, 0.3])
    with pytest.raises(ValueError, match="at least two positives"):
        small.partial_roc_test(fpr=(0, 0.3))
