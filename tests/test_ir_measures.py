"""ir_measures' names against ir_measures itself, on random runs and qrels.

Per-query values and aggregates must be identical (difference 0.0): ir_measures computes
these names with trec_eval (pytrec_eval), MS MARCO's script (``RR@k``) or its own code
(``Judged``), and rankeval reproduces each. ir_measures reports every query of the qrels
(0 for those the run lacks), and so do we; its means add the values in the run's query
order, and so do ours for its names.
"""

from __future__ import annotations

import re

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings

from rankeval import evaluate_run
from rankeval.ranking.ir_names import SUPPORTED, parse_ir_name
from tests.test_trec_oracle import run_and_qrels

NAMES = [
    "P@1", "P@5", "P(rel=2)@3", "P(judged_only=True)@5", "R@3", "R@10", "AP", "AP@3",
    "AP(rel=2)", "AP(judged_only=True)", "RR", "RR(rel=2)", "RR@1", "RR@3", "RR(rel=2)@5",
    "Rprec", "Rprec(rel=2)", "nDCG", "nDCG@3", "nDCG@10", "nDCG(judged_only=True)@5",
    "Bpref", "Bpref(rel=2)", "Success@1", "Success(rel=2)@5", "NumRet", "NumRet(rel=1)",
    "NumRet(rel=2)", "NumRel", "NumQ", "SetP", "SetP(rel=2)", "SetP(relative=True)",
    "SetR", "SetF", "SetF(beta=0.5)", "SetAP", "IPrec@0.0", "IPrec@0.5", "IPrec@1.0",
    "infAP", "NumRelRet", "SetRelP", "Judged@1", "Judged@5", "Judged",
]


def test_every_supported_name_is_tested() -> None:
    tested = {parse_ir_name(n).name.split("@")[0].split("(")[0] for n in NAMES}
    assert tested == set(SUPPORTED) - {"R_cap"}  # rankeval's own; tests/test_ranking.py


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
    measures = [ir_measures.parse_measure(n) for n in NAMES]
    # ir_measures runs NumRet and NumQ in whichever trec_eval invocation comes first, and
    # the order of its invocations varies from process to process: one with judged_only
    # gives NumRet 0 for unjudged documents. The counts get a call of their own.
    counts = [m for m in measures if str(m).startswith("Num")]
    others = [m for m in measures if m not in counts]
    theirs: dict[str, dict[str, float]] = {}
    aggregate: dict[str, float] = {}
    for group in (counts, others):
        for metric in ir_measures.iter_calc(group, usable, run):
            theirs.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
        aggregate.update(
            (str(m), v) for m, v in ir_measures.calc_aggregate(group, usable, run).items())
    ev = evaluate_run(usable, run, NAMES)
    assert set(ev.queries) == set(usable)  # ir_measures scores every qrels query
    for name, measure in zip(NAMES, measures, strict=True):
        key = str(measure)
        expected = aggregate[key]
        if name == "NumQ":
            assert ev[name] == expected
            continue
        ours = ev.per_query(name)
        assert set(theirs[key]) == set(ev.queries), name
        for qid in ev.queries:
            assert ours[qid] == theirs[key][qid], (name, qid)
        assert ev[name] == expected, (name, ev[name] - expected)


@pytest.mark.parametrize(("name", "problem"), [
    ("nDCG(dcg=exp-log2)@10", "dcg='exp-log2' is not supported"),
    ("nDCG(gains={0: 0, 1: 5})@10", "parameter 'gains' is not supported"),
    ("Judgd@10", "unknown measure 'Judgd'"),
    ("P", "P needs a cutoff"),
    ("Rprec@5", "Rprec takes no cutoff"),
    ("RR(judged_only=True)@5", "RR with a cutoff does not take judged_only"),
    ("P(rel=1.5)@5", "rel must be an integer"),
])
def test_unsupported_names_are_clear_errors(name: str, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)) as info:
        evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name])
    if "unknown" in problem:
        assert "nDCG" in str(info.value)  # the message lists what is supported


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
