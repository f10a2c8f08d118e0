"""Comparing runs: the tests against scipy and ranx, the corrections by hand, the tables."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import ranx
import scipy.stats
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rankeval import compare, evaluate_run
from rankeval.cli import main
from rankeval.ranking.significance import TESTS, _adjust

QUERIES = [f"q{i}" for i in range(25)]


Qrels = dict[str, dict[str, int]]
Runs = dict[str, dict[str, dict[str, float]]]


def make_runs(seed: int) -> tuple[Qrels, Runs]:
    """Qrels and three systems of different skill; continuous scores (no ties)."""
    rng = np.random.default_rng(seed)
    qrels = {q: {f"d{d}": int(rng.random() < 0.3) for d in range(15)} for q in QUERIES}
    for q in QUERIES:
        qrels[q]["d0"] = 1  # every query has a relevant document
    runs = {}
    for name, skill in (("weak", 0.0), ("mid", 0.4), ("strong", 1.0)):
        runs[name] = {q: {d: float(rng.random() + skill * rel) for d, rel in qrels[q].items()}
                      for q in QUERIES}
    return qrels, runs


class TestAgainstScipy:
    def test_t_test_p_values_and_intervals_are_scipys(self) -> None:
        qrels, runs = make_runs(1)
        result = compare(qrels, runs, ["map", "P.5"], correction="none", alpha=0.1)
        for t in result.tests:
            column = t.measure
            x = evaluate_run(qrels, runs[t.first], column.replace("_", ".", 1)
                             if column == "P_5" else column).values[column]
            y = evaluate_run(qrels, runs[t.second], column.replace("_", ".", 1)
                             if column == "P_5" else column).values[column]
            expected = scipy.stats.ttest_rel(x, y)
            assert t.p_value == expected.pvalue
            low, high = expected.confidence_interval(confidence_level=0.9)
            assert (t.low, t.high) == (low, high)
            assert t.difference == np.mean(x - y)
            assert t.effect_size == np.mean(x - y) / np.std(x - y, ddof=1)
            assert t.adjusted_p == t.p_value
            assert t.significant == (t.p_value <= 0.1)

    def test_randomization_is_exact_for_few_queries(self) -> None:
        """3 queries, differences 1/2 each: 2 of the 8 sign patterns are as extreme."""
        qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
        good = {q: {d: 2.0, "x": 1.0} for q, j in qrels.items() for d in j}
        bad = {q: {d: 1.0, "x": 2.0} for q, j in qrels.items() for d in j}
        result = compare(qrels, {"good": good, "bad": bad}, "recip_rank", test="randomization")
        assert result.tests[0].p_value == 2 / 8
        assert math.isnan(compare(qrels, {"good": good, "bad": bad}, "recip_rank"
                                  ).tests[0].p_value)  # the t-test of constant differences

    def test_bootstrap_against_a_slow_loop(self) -> None:
        """The same resamples, each summed in exact rational arithmetic; p = (k + 1) / (B + 1)."""
        qrels, runs = make_runs(2)
        result = compare(qrels, {k: runs[k] for k in ("weak", "mid")}, "map",
                         test="bootstrap", permutations=500, seed=3, correction="none")
        x = evaluate_run(qrels, runs["weak"], "map").values["map"]
        y = evaluate_run(qrels, runs["mid"], "map").values["map"]
        diff = x - y
        exact = [Fraction(float(d)) for d in diff]  # continuous: the floats are the values
        assert result.tests[0].p_value == exact_bootstrap_p(exact, 500, 3)
        assert result.tests[0].low < diff.mean() < result.tests[0].high


def exact_bootstrap_p(values: list[Fraction], resamples: int, seed: int) -> float:
    """The shift bootstrap's p-value with the differences ``values`` exact fractions and every
    resample summed exactly (the same draws as rankeval's)."""
    mean = sum(values, Fraction(0)) / len(values)
    observed = abs(sum(values, Fraction(0)))
    n = len(values)
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    extreme = sum(abs(sum((values[i] - mean for i in row), Fraction(0))) >= observed
                  for row in draws.tolist())
    return (extreme + 1) / (resamples + 1)


class TestAtLeastAsExtremeInExactArithmetic:
    """Per-query values that tie give sums equal in exact arithmetic but not as floats; they
    count as at least as extreme (rounding used to lower p)."""

    def test_a_zero_mean_difference_has_p_one(self) -> None:
        from rankeval.ranking.significance import randomization_p

        # P@10-like values, the same six tenths in another order: the exact mean difference
        # is 0, so every swap pattern is at least as extreme (p = 1); as floats the observed
        # sum is 1.1e-16 and 6 of the 64 patterns used to fall short of it (p = 0.906).
        x = np.array([0.5, 0.5, 0.8, 1.0, 0.0, 0.1])
        y = np.array([0.1, 0.0, 1.0, 0.5, 0.5, 0.8])
        diff = x - y
        assert diff.sum() != 0.0
        assert randomization_p(diff, 10_000, np.random.default_rng(0)) == 1.0

    def test_the_bootstrap_counts_ties_as_extreme(self) -> None:
        from rankeval.ranking.significance import bootstrap_p

        a, b = [6, 9, 8, 8, 5], [4, 8, 7, 6, 6]  # P@10 in tenths
        diff = np.array(a) / 10 - np.array(b) / 10
        exact = [Fraction(x - y, 10) for x, y in zip(a, b, strict=True)]
        for seed in range(5):
            got = bootstrap_p(diff, 2000, np.random.default_rng(seed))
            assert got == exact_bootstrap_p(exact, 2000, seed)
            # Counting the same resamples after rounding finds fewer of them as extreme.
            draws = np.random.default_rng(seed).integers(0, 5, size=(2000, 5))
            centred = diff - diff.mean()
            rounded = np.count_nonzero(np.abs(centred[draws].sum(axis=1)) >= abs(diff.sum()))
            assert (rounded + 1) / 2001 < got

    @pytest.mark.parametrize("seed", range(6))
    def test_randomization_monte_carlo_against_scipy(self, seed: int) -> None:
        """Continuous values (no ties): within 4 standard errors of scipy's estimate."""
        from rankeval.ranking.significance import randomization_p

        rng = np.random.default_rng(seed)
        x, y = rng.random(30), rng.random(30) + 0.05
        b = 20_000
        ours = randomization_p(x - y, b, np.random.default_rng(seed))
        theirs = scipy.stats.permutation_test(
            (x, y), lambda a, c, axis: np.mean(a - c, axis=axis), permutation_type="samples",
            vectorized=True, n_resamples=b, random_state=seed + 100).pvalue
        assert abs(ours - theirs) <= 4 * math.sqrt(2 * theirs * (1 - theirs) / b) + 2 / b

    def test_exact_enumeration_by_hand(self) -> None:
        from rankeval.ranking.significance import randomization_p

        # |sum| of the 8 patterns of (1, 2, 3): 6, 4, 2, 0, 0, 2, 4, 6: two reach 6.
        assert randomization_p(np.array([1.0, 2.0, 3.0]), 8, np.random.default_rng(0)) == 2 / 8


# ranx compiles its code with numba on first use, which warns about ranx's own casts.
@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaWarning")
class TestAgainstRanx:
    """ranx.compare on the same runs: t-test p-values alike, randomization within its error."""

    MEASURES: ClassVar[dict[str, str]] = {"map": "map", "ndcg_cut_10": "ndcg@10",
                                          "P_5": "precision@5"}

    def ranx_report(self, qrels: Qrels, runs: Runs, test: str, n: int) -> ranx.meta.Report:
        return ranx.compare(
            ranx.Qrels(qrels), [ranx.Run(r, name=k) for k, r in runs.items()],
            list(self.MEASURES.values()), stat_test=test, n_permutations=n, max_p=0.05,
        )

    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_t_test(self, seed: int) -> None:
        qrels, runs = make_runs(seed)
        ours = compare(qrels, runs, ["map", "ndcg_cut.10", "P.5"], correction="none")
        theirs = self.ranx_report(qrels, runs, "student", 1000)
        for t in ours.tests:
            name = self.MEASURES[t.measure]
            assert ours.means[t.first, t.measure] == pytest.approx(
                theirs.results[t.first][name], rel=1e-12)
            p = theirs.comparisons[frozenset([t.first, t.second])][name]["p_value"]
            assert t.p_value == pytest.approx(float(p), rel=1e-9, abs=1e-15)
            assert t.significant == bool(p <= 0.05)

    def test_randomization(self) -> None:
        qrels, runs = make_runs(4)
        n = 4000
        ours = compare(qrels, runs, ["map", "P.5"], test="randomization", permutations=n,
                       correction="none", seed=11)
        theirs = self.ranx_report(qrels, runs, "fisher", n)
        for t in ours.tests:
            p = float(theirs.comparisons[frozenset([t.first, t.second])][
                self.MEASURES[t.measure]]["p_value"])
            # Two independent Monte-Carlo estimates (scipy counts the observed one too).
            error = 5 * math.sqrt(max(p * (1 - p), 1 / n) / n) + 2 / n
            assert abs(t.p_value - p) <= error, (t, p)
            if abs(p - 0.05) > error:
                assert t.significant == (p <= 0.05)


def test_benjamini_hochberg_is_statsmodels_fdr_bh() -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for _ in range(50):
        p = list(rng.random(rng.integers(1, 12)) ** 2)
        assert _adjust(p, "bh") == pytest.approx(list(multipletests(p, method="fdr_bh")[1]),
                                                 abs=1e-15)
        assert _adjust(p, "holm") == pytest.approx(list(multipletests(p, method="holm")[1]),
                                                   abs=1e-15)


def test_wilcoxon_and_sign_tests_are_scipys() -> None:
    qrels, runs = make_runs(3)
    x = evaluate_run(qrels, runs["weak"], "P.5").values["P_5"]
    y = evaluate_run(qrels, runs["mid"], "P.5").values["P_5"]
    pair = {"weak": runs["weak"], "mid": runs["mid"]}
    wilcoxon = compare(qrels, pair, "P.5", test="wilcoxon", correction="none").tests[0]
    d = x - y
    assert wilcoxon.p_value == scipy.stats.wilcoxon(d[d != 0]).pvalue
    sign = compare(qrels, pair, "P.5", test="sign", correction="none").tests[0]
    assert sign.p_value == scipy.stats.binomtest(int((d > 0).sum()),
                                                 int((d != 0).sum())).pvalue


def test_holm_and_bonferroni_by_hand() -> None:
    # Holm: sorted 0.01, 0.03, 0.04 times 3, 2, 1 -> 0.03, 0.06, 0.04 -> monotone 0.06.
    assert _adjust([0.01, 0.04, 0.03], "holm") == [0.03, 0.06, 0.06]
    assert _adjust([0.01, 0.04, 0.03], "bonferroni") == [0.03, 0.12, 0.09]
    assert _adjust([0.5, 0.9], "holm") == [1.0, 1.0]
    adjusted = _adjust([0.2, math.nan, 0.01], "holm")  # NaN: not one of the family
    assert adjusted[0] == 0.2
    assert math.isnan(adjusted[1])
    assert adjusted[2] == 0.02


def test_tables_mark_the_systems_beaten() -> None:
    qrels, runs = make_runs(1)
    result = compare(qrels, runs, ["map"])
    strong_beats = result.better_than("strong", "map")
    assert strong_beats == ["weak", "mid"]  # clearly better on 25 queries
    text = result.to_text()
    assert "strong" in text
    assert "ᵃᵇ" in text.splitlines()[4]
    assert "| c | strong |" in result.to_markdown()
    assert r"^{ab}$" in result.to_latex()
    frame = result.to_dataframe()
    assert list(frame["first"]) == ["weak", "weak", "mid"]


def test_errors() -> None:
    qrels, runs = make_runs(1)
    with pytest.raises(ValueError, match="at least two runs"):
        compare(qrels, {"one": runs["weak"]}, "map")
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        compare(qrels, runs, "map", alpha=1.5)
    with pytest.raises(ValueError, match="test must be one of"):
        compare(qrels, runs, "map", test="mann-whitney")  # type: ignore[arg-type]
    partial = {q: r for q, r in runs["mid"].items() if q != "q0"}
    with pytest.raises(ValueError, match="other queries"):
        compare(qrels, {"all": runs["weak"], "partial": partial}, "map")


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, runs = make_runs(1)
    (tmp_path / "qrels").write_text("".join(
        f"{q} 0 {d} {r}\n" for q, j in qrels.items() for d, r in j.items()))
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s!r} {name}\n"
                                for q, docs in run.items() for d, s in docs.items()))
        paths.append(str(path))
    assert main(["compare", str(tmp_path / "qrels"), *paths, "-m", "map", "-m", "nDCG@10",
                 "--format", "markdown", "--complete"]) == 0
    out = capsys.readouterr().out
    assert "| # | system | map | nDCG@10 |" in out
    assert main(["compare", str(tmp_path / "qrels"), paths[0], "-m", "nope"]) == 2
    assert capsys.readouterr().err.startswith("rankeval: error: -m nope: unknown measure")


def test_tukey_hsd_with_queries_as_blocks() -> None:
    """Tukey's HSD of a systems x queries design (Carterette 2012), from the sums of squares
    written out here, with scipy's studentized range distribution."""
    qrels, runs = make_runs(5)
    result = compare(qrels, runs, "map", test="tukey", alpha=0.1)
    table = np.vstack([evaluate_run(qrels, runs[s], "map").values["map"] for s in runs])
    k, n = table.shape
    grand = table.mean()
    total = ((table - grand) ** 2).sum()
    between_systems = n * ((table.mean(axis=1) - grand) ** 2).sum()
    between_queries = k * ((table.mean(axis=0) - grand) ** 2).sum()
    mse = (total - between_systems - between_queries) / ((k - 1) * (n - 1))
    names = list(runs)
    crit = scipy.stats.studentized_range.ppf(0.9, k, (k - 1) * (n - 1))
    for t in result.tests:
        i, j = names.index(t.first), names.index(t.second)
        d = table[i].mean() - table[j].mean()
        q = abs(d) / math.sqrt(mse / n)
        assert t.difference == pytest.approx(d, abs=1e-15)
        assert t.p_value == pytest.approx(
            scipy.stats.studentized_range.sf(q, k, (k - 1) * (n - 1)), abs=1e-12)
        assert t.adjusted_p == t.p_value  # already family-wise
        assert (t.low, t.high) == pytest.approx((d - crit * math.sqrt(mse / n),
                                                 d + crit * math.sqrt(mse / n)), abs=1e-12)
    assert "holm" not in result.to_text()


def test_each_systems_mean_has_a_bootstrap_interval() -> None:
    qrels, runs = make_runs(6)
    result = compare(qrels, runs, "P.5", permutations=300, seed=4, alpha=0.1)
    for system in runs:
        values = evaluate_run(qrels, runs[system], "P.5").values["P_5"]
        draws = np.random.default_rng(4).integers(0, values.size, size=(300, values.size))
        means = values[draws].mean(axis=1)
        interval = result.mean_intervals[system, "P_5"]
        assert interval.value == result.means[system, "P_5"]
        assert (interval.low, interval.high) == pytest.approx(
            tuple(np.quantile(means, [0.05, 0.95])), abs=1e-15)
        assert interval.level == pytest.approx(0.9)


def _constant_difference(queries: int, systems: int = 2) -> tuple[Qrels, Runs]:
    """Each system's reciprocal rank is the same on every query (1, 1/2, 1/3, ...): every
    pair's difference is one constant, with zero spread."""
    qrels = {f"q{i}": {"rel": 1} for i in range(queries)}
    runs = {f"s{k}": {q: {**{f"x{j}": 10.0 - j for j in range(k)}, "rel": 1.0}
                      for q in qrels} for k in range(systems)}
    return qrels, runs


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize("queries", [1, 2, 5])
def test_a_zero_spread_is_undefined_where_the_test_weighs_the_spread(test: str,
                                                                     queries: int) -> None:
    """Fixed: the bootstrap called one query (or two sharing a difference) significant at
    p = 1/(B + 1), and Tukey's HSD gave p = 0. Every test of the registry is drawn."""
    qrels, runs = _constant_difference(queries, systems=3 if test == "tukey" else 2)
    result = compare(qrels, runs, "recip_rank", test=test)  # type: ignore[arg-type]
    for pair in result.tests:
        assert pair.difference != 0
        if test in ("t-test", "bootstrap", "tukey"):
            assert math.isnan(pair.p_value), (test, pair)
            assert not pair.significant
        elif test == "randomization":  # exact: 2 of the 2^n sign patterns are as extreme
            assert pair.p_value == min(1.0, 2 / 2**queries)
        elif test == "sign":
            assert pair.p_value == scipy.stats.binomtest(queries, queries, 0.5).pvalue
        else:
            diffs = np.full(queries, pair.difference)
            assert pair.p_value == scipy.stats.wilcoxon(diffs).pvalue


@pytest.mark.parametrize("test", TESTS)
def test_identical_systems_have_p_one_under_every_test(test: str) -> None:
    qrels, runs = _constant_difference(4, systems=1)
    runs = {"a": runs["s0"], "b": runs["s0"], "c": runs["s0"]}
    result = compare(qrels, runs, "recip_rank", test=test)  # type: ignore[arg-type]
    assert [pair.p_value for pair in result.tests] == [1.0] * len(result.tests)


@settings(max_examples=40, deadline=None)
@given(queries=st.integers(1, 6), ranks=st.lists(st.integers(1, 4), min_size=2, max_size=4),
       test=st.sampled_from(TESTS), data=st.data())
@example(queries=1, ranks=[1, 2], test="bootstrap", data=None)  # was p = 1/(B + 1)
@example(queries=3, ranks=[1, 2, 3], test="tukey", data=None)  # was p = 0
@example(queries=3, ranks=[1, 3], test="t-test", data=None)  # np.std's residue: p ~ 0
@example(queries=1, ranks=[1, 1, 2], test="tukey", data=None)  # identical pair: was NaN
def test_zero_spread_families_from_every_test(queries: int, ranks: list[int], test: str,
                                             data: Any) -> None:
    """Each system ranks the one relevant document at its own fixed rank on every query (a
    family whose every difference has zero spread; some systems may be identical), under a
    test drawn from the registry: a test that weighs the spread answers NaN for a nonzero
    difference, and every test answers p = 1 for identical systems."""
    if test == "tukey" and len(ranks) < 3:
        ranks = [*ranks, ranks[0] + 1]
    if data is not None and data.draw(st.booleans(), label="shuffle the systems"):
        ranks = data.draw(st.permutations(ranks))
    qrels = {f"q{i}": {"rel": 1} for i in range(queries)}
    runs = {f"s{k}": {q: {**{f"x{j}": 10.0 - j for j in range(rank - 1)}, "rel": 1.0}
                      for q in qrels} for k, rank in enumerate(ranks)}
    result = compare(qrels, runs, "recip_rank", test=test)  # type: ignore[arg-type]
    for pair in result.tests:
        if pair.difference == 0:
            assert pair.p_value == 1.0, (test, pair)
        elif test in ("t-test", "bootstrap", "tukey"):
            assert math.isnan(pair.p_value), (test, pair)
            assert not pair.significant
        else:
            assert 0.0 < pair.p_value <= 1.0, (test, pair)
