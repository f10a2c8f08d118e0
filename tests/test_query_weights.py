"""Weighted queries: every mean over queries weighted, the per-query values and the counts
unchanged. Expected values from NumPy's weighted average of the per-query values and from
repeating each query as many times as its integer weight."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from rankeval.ranking import Qrels, Run, catalogue, evaluate_run
from rankeval.ranking.evaluate import merge_evaluations
from rankeval.ranking.significance import compare


def _tables(seed: int, queries: int = 30) -> tuple[Qrels, Run]:
    rng = np.random.default_rng(seed)
    qid: list[str] = []
    doc: list[int] = []
    score: list[float] = []
    for q in range(queries):
        if q % 7 == 3:
            continue  # a qrels query the run lacks (evaluated with complete=True)
        docs = rng.choice(60, size=int(rng.integers(1, 25)), replace=False)
        qid += [f"q{q}"] * docs.shape[0]
        doc += docs.tolist()
        score += np.round(rng.random(docs.shape[0]), 1).tolist()  # ties
    run = Run.from_arrays(np.array(qid), np.array(doc), np.array(score))
    jq: list[str] = []
    jd: list[int] = []
    rel: list[int] = []
    for q in range(queries):
        docs = rng.choice(60, size=int(rng.integers(1, 15)), replace=False)
        jq += [f"q{q}"] * docs.shape[0]
        jd += docs.tolist()
        rel += rng.integers(0, 3, docs.shape[0]).tolist()
    return Qrels.from_arrays(np.array(jq), np.array(jd), np.array(rel)), run


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("profile", catalogue.PROFILES)
def test_every_mean_is_numpys_weighted_average(complete: bool, profile: Any) -> None:
    qrels, run = _tables(1)
    names = [n for n in catalogue.measure_names(profile) if n not in ("coverage", "novelty")]
    plain = evaluate_run(qrels, run, names, profile=profile, complete=complete)
    rng = np.random.default_rng(2)
    weights = {q: float(w) for q, w in zip(plain.queries, rng.random(len(plain.queries)) * 3,
                                             strict=True)}
    weights[plain.queries[0]] = 0.0  # a query that counts for nothing
    report = evaluate_run(qrels, run, names, profile=profile, complete=complete,
                          query_weights=weights)
    w = np.array([weights[q] for q in plain.queries])
    assert report.queries == plain.queries
    checked = 0
    for column in plain._layout:
        name, how = column.name, column.measure.aggregate
        if name not in plain.aggregates:
            continue
        if how == "sum":  # counts stay counts
            assert report.aggregates[name] == plain.aggregates[name], name
            continue
        assert np.array_equal(report.values[name], plain.values[name]), name
        values = plain.values[name]
        if how == "geometric":
            want = math.exp(np.average(np.log(np.maximum(values, 1e-5)), weights=w))
        else:
            want = float(np.average(values, weights=w))
        assert report.aggregates[name] == pytest.approx(want, rel=1e-12, abs=1e-15), name
        checked += 1
    assert checked >= 20


def test_integer_weights_are_repeated_queries() -> None:
    qrels, run = _tables(3)
    names = ["map", "P.5", "ndcg_cut.10", "recip_rank", "gm_map", "bpref", "Rprec"]
    plain = evaluate_run(qrels, run, names)
    weights = {q: i % 3 + 1 for i, q in enumerate(plain.queries)}

    def repeated(table: Any, column: str) -> Any:
        ids = np.array(table.query_ids)[table.query]
        reps = np.array([weights.get(q, 1) for q in ids])
        rows = np.repeat(np.arange(ids.shape[0]), reps)
        copy = np.concatenate([np.arange(r) for r in reps])
        names = np.char.add(np.char.add(ids[rows], "#"), copy.astype(str))
        values = getattr(table, column)[rows]
        maker = Run if column == "score" else Qrels
        return maker.from_arrays(names, table.docid[rows], values)

    copies = evaluate_run(repeated(qrels, "rel"), repeated(run, "score"), names)
    weighted = plain.weighted(weights)
    for name in plain.aggregates:
        if name == "num_q":
            continue
        assert weighted.aggregates[name] == pytest.approx(copies.aggregates[name], rel=1e-12), name


def test_weighted_parts_merge_to_the_weighted_whole() -> None:
    qrels, run = _tables(4)
    whole = evaluate_run(qrels, run, ["map", "gm_map", "P.10", "num_rel"])
    weights = {q: 0.5 + i for i, q in enumerate(whole.queries)}
    halves = [evaluate_run(qrels, Run.from_dict({q: d for q, d in run.to_dict().items()
                                                 if (int(q[1:]) < 15) == first}),
                           ["map", "gm_map", "P.10", "num_rel"]) for first in (True, False)]
    merged = merge_evaluations(h.weighted(weights) for h in halves)
    assert merged.aggregates == whole.weighted(weights).aggregates  # the same bits
    with pytest.raises(ValueError, match="all be weighted"):
        merge_evaluations([halves[0].weighted(weights), halves[1]])
    assert merge_evaluations(halves).aggregates == whole.aggregates


def test_all_weights_zero_give_nan_means() -> None:
    report = evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["map", "gm_map", "num_ret"],
                          query_weights={"q": 0})
    assert math.isnan(report["map"])
    assert math.isnan(report["gm_map"])
    assert report["num_ret"] == 1.0


@pytest.mark.parametrize(("weights", "error", "match"), [
    ({"q1": 1.0}, ValueError, "no weight for query 'q2'"),
    ({"q1": 1.0, "q2": -0.5}, ValueError, r"query_weights\['q2'\] must be finite and >= 0"),
    ({"q1": 1.0, "q2": math.nan}, ValueError, "must be finite"),
    ({"q1": 1.0, "q2": math.inf}, ValueError, "must be finite"),
    ({"q1": 1.0, "q2": True}, TypeError, "must be a real number, got bool"),
    ({"q1": 1.0, "q2": "2"}, TypeError, "must be a real number, got str"),
    ([("q1", 1.0)], TypeError, "must map query ids to weights, got list"),
])
def test_bad_weights_are_refused(weights: Any, error: type, match: str) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"b": 1.0}}
    with pytest.raises(error, match=match):
        evaluate_run(qrels, run, "map", query_weights=weights)


def test_weights_keyed_by_anything_whose_str_is_the_id() -> None:
    report = evaluate_run({1: {"a": 1}, 2: {"b": 1}}, {1: {"a": 1.0}, 2: {"a": 2.0, "b": 1.0}},
                          "recip_rank", query_weights={1: 3, 2: 1})
    assert report["recip_rank"] == (3 * 1.0 + 1 * 0.5) / 4


@pytest.mark.parametrize("test", ["t-test", "wilcoxon", "sign", "tukey"])
def test_compare_refuses_weights_where_its_test_counts_queries(test: str) -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    runs = {"x": {"q1": {"a": 1.0}, "q2": {"b": 1.0}}, "y": {"q1": {"a": 1.0}, "q2": {"b": 2.0}}}
    with pytest.raises(ValueError, match="query_weights take test='randomization' or"):
        compare(qrels, runs, "map", test=test, query_weights={"q1": 1, "q2": 2})
    with pytest.raises(ValueError, match="must be finite"):
        compare(qrels, runs, "map", test="bootstrap", query_weights={"q1": 1, "q2": -2})


def _weighted_comparison(test: str, seed: int = 4) -> tuple[Any, Any, Any, dict[str, float]]:
    qrels, run = _tables(seed, queries=10)
    _, other = _tables(seed + 1, queries=10)
    weights = {f"q{q}": float(w) for q, w in
               enumerate(np.random.default_rng(seed).random(10) * 3)}
    found = compare(qrels, {"a": run, "b": other}, ("map", "P_5"), test=test, permutations=4096,
                    seed=7, query_weights=weights, complete=True)
    a = evaluate_run(qrels, run, ("map", "P_5"), complete=True)
    b = evaluate_run(qrels, other, ("map", "P_5"), complete=True)
    return found, a, b, weights


def test_compare_weighted_randomization_is_every_swap() -> None:
    """2^n <= permutations: the exact test, against every swap of the weighted differences
    enumerated here; the difference and the means are the weighted means."""
    import itertools

    found, a, b, weights = _weighted_comparison("randomization")
    w = np.array([weights[q] for q in a.queries])
    for measure in ("map", "P_5"):
        diff = a.values[measure] - b.values[measure]
        observed = abs(float(np.dot(w, diff)))
        swaps = [abs(sum(sign * wd for sign, wd in zip(signs, w * diff, strict=True)))
                 for signs in itertools.product((1.0, -1.0), repeat=len(diff))]
        expected = sum(value >= observed - 1e-12 for value in swaps) / len(swaps)
        pair = next(t for t in found.tests if t.measure == measure)
        assert pair.p_value == expected
        assert pair.difference == pytest.approx(float(np.average(diff, weights=w)), abs=1e-12)
        for name, report in (("a", a), ("b", b)):
            assert found.means[name, measure] == pytest.approx(
                float(np.average(report.values[measure], weights=w)), abs=1e-12)


def test_compare_weighted_bootstrap_resamples_queries_with_their_weights() -> None:
    """The shift-method bootstrap replayed here: the same draws, each resample's weighted
    mean of the centred differences."""
    found, a, b, weights = _weighted_comparison("bootstrap")
    w = np.array([weights[q] for q in a.queries])
    diff = a.values["map"] - b.values["map"]
    mean = float(np.dot(w, diff) / w.sum())
    draws = np.random.default_rng(7).integers(0, diff.size, size=(4096, diff.size))
    resampled = ((w[draws] * (diff - mean)[draws]).sum(axis=1) / w[draws].sum(axis=1))
    expected = (int(np.count_nonzero(np.abs(resampled) >= abs(mean) - 1e-12)) + 1) / 4097
    pair = next(t for t in found.tests if t.measure == "map")
    assert pair.p_value == pytest.approx(expected, abs=1 / 4097)
    means = ((w[draws] * diff[draws]).sum(axis=1) / w[draws].sum(axis=1))
    low, high = np.quantile(means, [0.025, 0.975])
    assert (pair.low, pair.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    variance = np.dot(w, (diff - mean) ** 2) / (w.sum() - np.dot(w, w) / w.sum())
    assert pair.effect_size == pytest.approx(mean / math.sqrt(variance), rel=1e-12)


def test_compare_equal_weights_are_no_weights() -> None:
    *_, weights = _weighted_comparison("randomization")
    qrels, run = _tables(4, queries=10)
    _, other = _tables(5, queries=10)
    plain = compare(qrels, {"a": run, "b": other}, ("map", "P_5"), test="randomization",
                    permutations=4096, seed=7, complete=True)
    equal = compare(qrels, {"a": run, "b": other}, ("map", "P_5"), test="randomization",
                    permutations=4096, seed=7, complete=True,
                    query_weights=dict.fromkeys(weights, 2.0))
    for mine, theirs in zip(equal.tests, plain.tests, strict=True):
        assert mine.p_value == theirs.p_value
        assert mine.difference == pytest.approx(theirs.difference, abs=1e-15)
