"""ir_measures' names against ir_measures itself, on random runs and qrels.

Per-query values and aggregates must be identical (difference 0.0): ir_measures computes
these names with trec_eval (pytrec_eval), MS MARCO's script (``RR@k``) or its own code
(``Judged``), and rankeval reproduces each. ir_measures reports every query of the qrels
(0 for those the run lacks), and so do we; its means add the values in the run's query
order, and so do ours for its names.
"""

from __future__ import annotations

import math
import re
from typing import Any

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from rankeval import evaluate_run
from rankeval.ranking.ir_names import (
    _ALIASES,
    _TABLE,
    SUPPORTED,
    is_ir_name,
    param_values,
    parse_ir_name,
)
from tests.test_trec_oracle import run_and_qrels

# rankeval's own names and parameters (tests/test_ranking.py); ir_measures knows none of them.
OURS = {"R_cap"}
OUR_PARAMS = {"denominator", "ideal"}


def _cutoffs(head: str) -> list[str]:
    """The cutoff texts a name is tested with ("" for none)."""
    how = _TABLE[head][1]
    if how == "none":
        return [""]
    if how == "recall":
        return ["@0.0", "@0.5", "@1.0"]
    required = ["@1", "@3", "@10"]
    return required if how == "required" else ["", *required]


def _literal(value: object) -> str:
    return repr(value)


def all_ir_names() -> list[str]:
    """Every ir_measures name rankeval accepts, drawn from its table: each name and alias,
    bare and at each cutoff, and with each value of each parameter it takes."""
    names: list[str] = []
    spellings = {head: [head] for head in _TABLE if head not in OURS}
    for alias, head in _ALIASES.items():
        if head in spellings:
            spellings[head].append(alias)
    for head, written in spellings.items():
        params = sorted(_TABLE[head][2] - OUR_PARAMS)
        for spelling in written:
            names += [spelling + cut for cut in _cutoffs(head)]
        for param in params:
            for value in param_values(head, param):
                if head == "RR" and param == "judged_only":  # not with a cutoff (MS MARCO)
                    names.append(f"RR({param}={_literal(value)})")
                    continue
                names += [f"{head}({param}={_literal(value)}){cut}" for cut in _cutoffs(head)]
    # ir_measures' explicit spellings of the two names trec_eval shares.
    names += ["Rprec()", "infAP()"]
    return list(dict.fromkeys(n for n in names if is_ir_name(n)))


NAMES = all_ir_names()


def without_failures(measure: Any, qrels: dict[str, dict[str, int]],
                     run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """``run`` without the queries on which ir_measures' evaluation of ``measure`` fails (a
    division by zero), in the same order."""
    kept = {}
    for qid, documents in run.items():
        try:
            list(ir_measures.iter_calc([measure], qrels, {qid: documents}))
        except ZeroDivisionError:
            continue
        kept[qid] = documents
    return kept


def same(a: float, b: float) -> bool:
    """Equal, NaN (trec_eval's 0/0) equal to NaN."""
    return a == b or (math.isnan(a) and math.isnan(b))


def theirs_for(name: str) -> Any:
    """ir_measures' measure for one of our names (our own aliases, such as NumRelRetrieved,
    written with the name they stand for)."""
    head = re.split(r"[@(]", name, maxsplit=1)[0]
    if head not in ir_measures.measures.registry:
        name = _ALIASES[head] + name[len(head):]
    return ir_measures.parse_measure(name)


def test_every_supported_name_is_tested() -> None:
    tested = {parse_ir_name(n).name.split("@")[0].split("(")[0] for n in NAMES}
    assert {_ALIASES.get(h, h) for h in tested} == set(SUPPORTED) - OURS
    assert set(_ALIASES) <= tested


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels())
def test_against_ir_measures(
    data: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]
) -> None:
    run, qrels = data
    usable = {q: j for q, j in qrels.items() if j}
    # pytrec_eval crashes (a segmentation fault) when a run's first query has no judgments,
    # and ir_measures' Judged divides by zero for a query with an empty ranking: both are
    # left out; queries of the qrels that the run lacks stay (they score 0 on both sides).
    run = {q: docs for q, docs in run.items() if docs and q in usable}
    if not run:
        return
    measures = [theirs_for(n) for n in NAMES]
    # ir_measures runs NumRet and NumQ in whichever trec_eval invocation comes first, and
    # the order of its invocations varies from process to process: one with judged_only
    # gives NumRet 0 for unjudged documents. The counts get a call of their own.
    counts = [m for m in measures if str(m).startswith("Num")]
    # ir_measures' own providers: Accuracy divides by zero where no non-relevant document
    # is among the top k (its whole evaluation fails). rankeval scores such a query 0, as
    # ir_measures scores every query it has no value for: the oracle is ir_measures on the
    # run without those queries (their values are then its 0).
    own = [m for m in measures if m.NAME in ("Compat", "Accuracy")]
    others = [m for m in measures if m not in counts and m not in own]
    theirs: dict[str, dict[str, float]] = {}
    aggregate: dict[str, float] = {}
    # ir_measures fills the queries an own provider does not score with 0 only when another
    # provider shares the call (alone, it averages over the scored ones): nDCG@10 keeps the
    # rule of every other name (a name's value must not depend on its neighbours).
    groups = [(group, run) for group in (counts, others)]
    neighbour = ir_measures.parse_measure("nDCG@10")
    groups += [([m, neighbour], without_failures(m, usable, run)) for m in own]
    for group, their_run in groups:
        if not their_run:  # it fails on every query: each scores 0 (see above)
            for m in group[:1]:
                theirs[str(m)] = dict.fromkeys(usable, 0.0)
                aggregate[str(m)] = 0.0
            continue
        recorded = group if group[-1] is not neighbour else group[:1]  # not the neighbour's
        for metric in ir_measures.iter_calc(group, usable, their_run):
            if metric.measure in recorded:
                theirs.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
        aggregate.update((str(m), v) for m, v in
                         ir_measures.calc_aggregate(group, usable, their_run).items()
                         if m in recorded)
    ev = evaluate_run(usable, run, NAMES)
    assert set(ev.queries) == set(usable)  # ir_measures scores every qrels query
    for name, measure in zip(NAMES, measures, strict=True):
        key = str(measure)
        expected = aggregate[key]
        ours = ev.per_query(name)
        assert set(theirs[key]) == set(ev.queries), name
        for qid in ev.queries:
            assert same(ours[qid], theirs[key][qid]), (name, qid)
        assert same(ev[name], expected), (name, ev[name] - expected)


@pytest.mark.parametrize(("name", "problem"), [
    ("nDCG(dcg=exp-log2)@10", "dcg='exp-log2' is not supported"),
    ("nDCG(gains={0: 0, 1: 5})@10", "parameter 'gains' is not supported"),
    ("Judgd@10", "unknown measure 'Judgd'"),
    ("P()", "P needs a cutoff"),
    ("R", "R needs a cutoff"),
    ("P(rel=0)@5", "rel must be at least 1"),
    ("NumRel(rel=2)", "NumRel takes rel=1 only"),
    ("Rprec@5", "Rprec takes no cutoff"),
    ("RR(judged_only=True)@5", "RR with a cutoff does not take judged_only"),
    ("P(rel=1.5)@5", "rel must be an integer"),
])
def test_unsupported_names_are_clear_errors(name: str, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)) as info:
        evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name])
    if "unknown" in problem:
        assert "did you mean 'Judged'" in str(info.value)  # the closest names, not a list


def test_several_cutoffs_and_trec_names_in_one_call() -> None:
    """The seeds' conventions by name: P, recall and nDCG at several cutoffs, and trec_eval's."""
    qrels = {"q": {"a": 1, "b": 1, "c": 0}}
    run = {"q": {"a": 0.9, "c": 0.8, "b": 0.7, "d": 0.1}}
    ev = evaluate_run(qrels, run, ["P@1", "P@2", "R@1", "R@3", "map", "RR@1"], complete=True)
    # By hand: a (relevant), c, b (relevant), d; R = 2.
    assert (ev["P@1"], ev["P@2"], ev["R@1"], ev["R@3"]) == (1.0, 0.5, 0.5, 1.0)
    assert ev["map"] == (1 / 1 + 2 / 3) / 2
    assert ev["RR@1"] == 1.0
    assert ev.columns == ("map", "P@1", "P@2", "R@1", "R@3", "RR@1")


def test_mixing_with_trec_names_needs_complete() -> None:
    with pytest.raises(ValueError, match="pass complete=True"):
        evaluate_run({"q": {"a": 1}, "r": {"b": 1}}, {"q": {"a": 1.0}}, ["map", "AP"])
    ev = evaluate_run({"q": {"a": 1}, "r": {"b": 1}}, {"q": {"a": 1.0}}, ["map", "AP"],
                      complete=True)
    assert ev["map"] == ev["AP"] == 0.5  # q scores 1, r (not in the run) 0


QRELS_ONE_MISSING = {"a": {"d1": 1, "d2": 0}, "b": {"d3": 1}, "c": {"d4": 1}}
RUN_ONE_MISSING = {"a": {"d2": 2.0, "d1": 1.0}, "b": {"d3": 1.0}}


def test_bare_p_is_trec_evals() -> None:
    """trec_eval's P (nine cutoffs) is never shadowed by ir_measures' P@k
    (docs/semantics.md, ir_measures' names)."""
    ev = evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"b": 2.0, "a": 1.0}}, "P")
    assert ev.columns == tuple(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000))
    assert ev["P_5"] == 1 / 5  # by hand: one relevant document in the top 5


@pytest.mark.parametrize("name", ["Rprec", "infAP"])
def test_a_shared_name_means_the_same_beside_any_neighbour(name: str) -> None:
    """Rprec and infAP are trec_eval's names alone and beside ir_measures names:
    the run's queries, or with complete=True every qrels query, the missing c scoring 0;
    ir_measures' spellings RPrec / infAP() give ir_measures' rule. The run's queries' values
    come from trec_eval (pytrec_eval)."""
    import pytrec_eval

    per_query = pytrec_eval.RelevanceEvaluator(QRELS_ONE_MISSING, {name}).evaluate(
        RUN_ONE_MISSING)
    a, b = per_query["a"][name], per_query["b"][name]
    assert (a, b) != (0.0, 0.0)
    alone = evaluate_run(QRELS_ONE_MISSING, RUN_ONE_MISSING, name)
    assert alone[name] == (a + b) / 2
    with pytest.raises(ValueError, match="pass complete=True"):
        evaluate_run(QRELS_ONE_MISSING, RUN_ONE_MISSING, [name, "nDCG@10"])
    for neighbours in ([], ["nDCG@10"], ["map"]):
        ev = evaluate_run(QRELS_ONE_MISSING, RUN_ONE_MISSING, [name, *neighbours],
                          complete=True)
        assert ev[name] == (a + b + 0.0) / 3
    ir_spelling = "RPrec" if name == "Rprec" else "infAP()"
    theirs = ir_measures.calc_aggregate([ir_measures.parse_measure(name)], QRELS_ONE_MISSING,
                                        RUN_ONE_MISSING)
    for neighbours in ([], ["nDCG@10"]):
        ev = evaluate_run(QRELS_ONE_MISSING, RUN_ONE_MISSING, [ir_spelling, *neighbours])
        assert ev[ir_spelling] == next(iter(theirs.values()))


def test_numq_has_per_query_values_as_in_ir_measures() -> None:
    ev = evaluate_run(QRELS_ONE_MISSING, RUN_ONE_MISSING, ["NumQ", "P@1"])
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc(
        [ir_measures.NumQ], QRELS_ONE_MISSING, RUN_ONE_MISSING)}
    assert ev.per_query("NumQ") == theirs == {"a": 1.0, "b": 1.0, "c": 0.0}
    trec = evaluate_run(QRELS_ONE_MISSING, RUN_ONE_MISSING, ["num_q", "P.1"])
    with pytest.raises(KeyError, match="'num_q' is a summary value only"):
        trec.per_query("num_q")


def test_accuracy_and_compat_by_hand() -> None:
    """Accuracy: a, c relevant among a b c d: pairs (a,b) (a,d) (c,d) in order, (c,b) not:
    3/4. Compat(p=0.5): ranking [a, b], ideal [c (grade 2), a]; overlaps 0 then 1, weights
    1 and 0.5: (0.5 * 1/2) / 1.5 = 1/6, and the ideal with itself gives 1. Query r is in the
    qrels only: 0, and the mean is over both queries."""
    qrels = {"q": {"a": 1, "b": 0, "c": 1}, "r": {"z": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    ev = evaluate_run(qrels, run, ["Accuracy", "Accuracy@2"])
    assert ev.per_query("Accuracy") == {"q": 0.75, "r": 0.0}
    assert ev["Accuracy"] == 0.75 / 2
    # The top 2 are a (relevant) and b: one pair, in order.
    assert ev.per_query("Accuracy@2") == {"q": 1.0, "r": 0.0}
    compat = evaluate_run({"q": {"a": 1, "c": 2}, "r": {"z": 1}}, {"q": {"a": 1.0, "b": 0.5}},
                          ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"])
    assert compat.per_query("Compat(p=0.5)") == {"q": pytest.approx(1 / 6), "r": 0.0}
    assert compat.per_query("Compat(p=0.5,normalize=False)")["q"] == pytest.approx(1 / 6)


def _ranx_data(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Random qrels (grades 1-2, some queries unjudged) and a run with distinct scores (ranx
    and trec_eval break ties differently; distinct scores compare the definitions)."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(25):
        docs = [f"d{i}" for i in range(40)]
        judged = {str(d): int(rng.integers(1, 3))
                  for d in rng.choice(docs, int(rng.integers(1, 9)), replace=False)}
        qrels[f"q{q}"] = judged
        scores = rng.permutation(30) + rng.random(30) * 0.1
        run[f"q{q}"] = {str(d): float(s)
                        for d, s in zip(rng.choice(docs, 30, replace=False), scores, strict=True)}
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_ranx_names_are_ranx_values(seed: int) -> None:
    """Fixed: ranx's names (ndcg@10, mrr, precision@5, map@100, recall@10, ...) were refused.
    Every name of RANX_NAMES, bare and at several cutoffs, equals ranx's own value where ranx
    computes it (ranx itself is the oracle)."""
    import warnings

    from ranx import Qrels as RanxQrels
    from ranx import Run as RanxRun
    from ranx import evaluate as ranx_evaluate

    from rankeval.ranking.ir_names import is_ir_name
    from rankeval.ranking.registry import RANX_NAMES

    qrels, run = _ranx_data(seed)
    theirs_qrels, theirs_run = RanxQrels(qrels), RanxRun(run)
    checked = 0
    for head in RANX_NAMES:
        for suffix in ("", "@1", "@5", "@10", "@100"):
            name = head + suffix
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    expected = float(ranx_evaluate(theirs_qrels, theirs_run, name))
                except Exception:
                    continue
            if not is_ir_name(name):  # bare recall, ndcg, map: trec_eval's names mean theirs
                continue
            try:
                ours = evaluate_run(qrels, run, [name])[name]
            except ValueError as error:  # refused by name, never a wrong value
                refusal = str(error)
            else:
                assert ours == pytest.approx(expected, abs=1e-12), name
                checked += 1
                continue
            assert head in refusal or "cutoff" in refusal, (name, refusal)
    assert checked >= 20
    for name in ("ndcg@10", "mrr", "precision@5", "map@100", "recall@10"):  # the list
        assert name in evaluate_run(qrels, run, [name]).aggregates
