"""rankeval's trec_eval measures against the stored pytrec_eval run and pytrec_eval live."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval.ranking import Qrels, Run, evaluate_run

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def oracle() -> dict[str, Any]:
    with (DATA / "trec_oracle_1.json").open() as handle:
        data: dict[str, Any] = json.load(handle)
    return data


class TestStoredOracle:
    """trec_oracle_1.json: 50 queries x 100 documents scored by pytrec_eval-terrier 0.5.11."""

    def test_per_query_values_are_identical(self, oracle: dict[str, Any]) -> None:
        """Every per-query value equals pytrec_eval's to the last bit (difference 0.0)."""
        ev = evaluate_run(oracle["qrels"], oracle["run"], oracle["measures"])
        assert set(ev.queries) == set(oracle["per_query"])
        for qid, values in oracle["per_query"].items():
            for measure, expected in values.items():
                assert ev.per_query(measure)[qid] == expected, (qid, measure)

    def test_aggregates_are_the_means_of_the_per_query_values(self, oracle: dict[str, Any]) -> None:
        """The oracle's aggregates are numpy means of those values; ours sum like trec_eval."""
        ev = evaluate_run(oracle["qrels"], oracle["run"], oracle["measures"])
        order = list(oracle["per_query"])
        position = {q: i for i, q in enumerate(ev.queries)}
        for measure, expected in oracle["aggregate"].items():
            ours = ev.values[measure][[position[q] for q in order]]
            if measure.startswith("num_"):
                assert ev[measure] == expected == float(ours.sum())
                continue
            # Same per-query values, combined the oracle's way: bit-identical.
            assert float(np.mean(ours)) == expected, measure
            # trec_eval adds the queries one by one in query-id order, then divides.
            total = 0.0
            for value in ev.values[measure]:
                total += float(value)
            assert ev[measure] == total / len(ev.queries)
            assert ev[measure] == pytest.approx(expected, rel=0, abs=1e-15)

    def test_trec_eval_10_differences(self, oracle: dict[str, Any]) -> None:
        """Profile trec_eval10 reproduces the oracle's recorded trec_eval 10.0 values."""
        ev = evaluate_run(oracle["qrels"], oracle["run"], oracle["measures"],
                          profile="trec_eval10")
        changed = oracle["trec_eval_10_differences"]["per_query"]
        for qid, values in oracle["per_query"].items():
            expected = {**values, **changed.get(qid, {})}
            for measure, value in expected.items():
                assert ev.per_query(measure)[qid] == value, (qid, measure)


# ---------------------------------------------------------------------------------------------
# live differential test against pytrec_eval-terrier

pytrec_eval = pytest.importorskip("pytrec_eval")

# Document ids chosen to exercise strcmp order: digits of different lengths, case, bytes
# above 0x7f (UTF-8), punctuation.
DOC_IDS = ["9", "10", "100", "d", "D", "d1", "D1", "a-b", "a_b", "é", "z", "ß", "文", "x.y",
           "doc10", "doc9", "DOC"]
QUERY_IDS = ["1", "2", "10", "q", "Q"]
# Small grids force ties; the 1 + 2**-30 entry ties 1.0 only in float32.
SCORES = [0.0, 0.5, 1.0, 1.0 + 2.0**-30, 2.0, -1.0, 3.25]
SKIP_PER_QUERY = {"runid", "relstring", "num_q", "gm_map", "gm_bpref"}


@st.composite
def run_and_qrels(draw: st.DrawFn) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for qid in queries:
        retrieved = draw(st.lists(st.sampled_from(DOC_IDS), max_size=12, unique=True))
        run[qid] = {d: draw(st.sampled_from(SCORES)) for d in retrieved}
        judged = draw(st.lists(st.sampled_from(DOC_IDS), max_size=10, unique=True))
        qrels[qid] = {d: draw(st.sampled_from([-1, 0, 0, 1, 1, 2, 3])) for d in judged}
        if qrels[qid] and max(qrels[qid].values()) < 0:
            # pytrec_eval (trec_eval's C) crashes on a query judged only negatively.
            qrels[qid][draw(st.sampled_from(DOC_IDS))] = 0
    if not run[queries[0]]:
        # ... and on a run whose first query retrieves nothing.
        run[queries[0]] = {"d": 1.0}
    # A qrels-only query and a run-only query.
    if draw(st.booleans()):
        qrels["only_qrels"] = {"d": 1}
    if draw(st.booleans()):
        run["only_run"] = {"d": 1.0}
    return run, qrels


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels(), level=st.sampled_from([1, 2]))
def test_differential_against_pytrec_eval(
    data: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]], level: int
) -> None:
    """Random runs with ties, unretrieved relevant docs, empty queries, odd ids: values equal."""
    run, qrels = data
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}, relevance_level=level
                                              ).evaluate(run)
    usable_qrels = {q: j for q, j in qrels.items() if j}
    if not any(q in usable_qrels for q in run):
        with pytest.raises(ValueError, match="no queries"):
            evaluate_run(qrels, run, "all_trec", relevance_level=level)
        return
    ev = evaluate_run(qrels, run, "all_trec", relevance_level=level)
    assert set(ev.queries) == set(expected)
    for qid, values in expected.items():
        empty = not run[qid]
        for name, value in values.items():
            if name in SKIP_PER_QUERY:
                continue
            if empty and math.isnan(value):
                # trec_eval divides 0 by 0 (iprec_at_recall at levels needing no relevant
                # document, 11pt_avg); so does rankeval, or gives 0 with trec_quirks=False.
                assert name.startswith(("iprec_at_recall", "11pt_avg"))
                assert math.isnan(ev.per_query(name)[qid])
                sane = evaluate_run(qrels, run, name, relevance_level=level, trec_quirks=False)
                assert sane.per_query(name)[qid] == 0.0
                continue
            assert ev.per_query(name)[qid] == value, (qid, name)
        for name in ("gm_map", "gm_bpref"):
            base = ev.per_query(name)[qid]
            assert math.log(max(base, 1e-5)) == values[name]


def test_differential_on_the_stored_run_with_every_measure(oracle: dict[str, Any]) -> None:
    """The oracle's 50 x 100 run: all_trec from pytrec_eval equals rankeval's, every value."""
    expected = pytrec_eval.RelevanceEvaluator(oracle["qrels"], {"all_trec"}).evaluate(
        oracle["run"]
    )
    ev = evaluate_run(Qrels.from_dict(oracle["qrels"]), Run.from_dict(oracle["run"]), "all_trec")
    for qid, values in expected.items():
        for name, value in values.items():
            if name not in SKIP_PER_QUERY:
                assert ev.per_query(name)[qid] == value, (qid, name)


# Ids of very unequal lengths: the files' readers keep them as Python bytes instead of
# padding every id to the longest (one 100 KB id among a million would ask for 100 GB).
LONG_DOC_IDS = ["L" * 5000, "L" * 5000 + "a", "L" * 4999 + "b", "M" * 3000, "L" * 70]
LONG_QUERY_ID = "q" * 4000


def _write_trec(path: Path, run: dict[str, dict[str, float]] | None,
                qrels: dict[str, dict[str, int]] | None) -> None:
    with path.open("w", encoding="utf-8") as out:
        if run is not None:
            for qid, docs in run.items():
                for rank, (doc, score) in enumerate(docs.items()):
                    out.write(f"{qid} Q0 {doc} {rank} {score!r} r\n")
        if qrels is not None:
            for qid, judged in qrels.items():
                for doc, rel in judged.items():
                    out.write(f"{qid} 0 {doc} {rel}\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=run_and_qrels(), long_docs=st.lists(st.sampled_from(LONG_DOC_IDS), min_size=1,
                                                max_size=5, unique=True),
       scores=st.lists(st.sampled_from(SCORES), min_size=5, max_size=5))
def test_files_with_very_long_ids_against_pytrec_eval(
    data: tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]],
    long_docs: list[str], scores: list[float], tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Read from files, long ids and all, every value equals pytrec_eval's (ties included)."""
    from rankeval.ranking import trec_files

    run, qrels = data
    first = next(iter(run))
    long_docs = list(dict.fromkeys(["M" * 3000, *long_docs]))  # one long enough, always
    for doc, score in zip(long_docs, scores, strict=False):  # long ids tie short ones
        run[first][doc] = score
        qrels.setdefault(first, {})[doc] = 1
    for k in range(100):  # enough short ids that padding to the longest would be wasteful
        run[first][f"f{k}"] = SCORES[k % len(SCORES)]
    run[LONG_QUERY_ID] = {long_docs[0]: 1.0, "d": 1.0}
    qrels[LONG_QUERY_ID] = {long_docs[0]: 1, "z": 1}
    folder = tmp_path_factory.mktemp("long")
    _write_trec(folder / "run", run, None)
    _write_trec(folder / "qrels", None, qrels)
    assert trec_files.read_run(folder / "run").docid.dtype.kind == "O"  # the path under test
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)
    ev = evaluate_run(Qrels.from_file(folder / "qrels"), Run.from_file(folder / "run"),
                      "all_trec")
    # pytrec_eval also reports a query whose run or judgments are an empty dict; a file
    # cannot hold one.
    assert set(ev.queries) == {q for q in expected if qrels.get(q) and run.get(q)}
    for qid in ev.queries:
        for name, value in expected[qid].items():
            if name in SKIP_PER_QUERY or (not run[qid] and math.isnan(value)):
                continue
            assert ev.per_query(name)[qid] == value, (qid, name)
