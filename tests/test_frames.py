"""Tables in and out: pandas, polars and Arrow give what the plain dicts give."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from rankeval import Qrels, Run, ScoredPrecisionRecallEvaluation, compare, evaluate_run

QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}}
RUN = {"q1": {"a": 0.5, "b": 0.9, "c": 0.1, "x": 0.3}, "q2": {"d": 0.2, "e": 0.8}}
BACKENDS = ["pandas", "polars", "pyarrow"]


def table(backend: str, data: dict[str, list[Any]]) -> Any:
    if backend == "pandas":
        return pd.DataFrame(data)
    if backend == "polars":
        return pl.DataFrame(data)
    return pa.table(data)


def long_form(nested: dict[str, dict[str, Any]], names: tuple[str, str, str]
              ) -> dict[str, list[Any]]:
    rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
    return {name: [r[i] for r in rows] for i, name in enumerate(names)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_tables_in_give_the_dicts_values(backend: str) -> None:
    expected = evaluate_run(QRELS, RUN, ["map", "P.2", "ndcg"])
    qrels = table(backend, long_form(QRELS, ("query_id", "doc_id", "relevance")))
    run = table(backend, long_form(RUN, ("query_id", "doc_id", "score")))
    got = evaluate_run(qrels, run, ["map", "P.2", "ndcg"])
    assert got.to_dict() == expected.to_dict()
    assert dict(got.aggregates) == dict(expected.aggregates)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pyterrier_names_and_overrides(backend: str) -> None:
    expected = evaluate_run(QRELS, RUN, "map")["map"]
    qrels = table(backend, long_form(QRELS, ("qid", "docno", "label")))
    run = table(backend, long_form(RUN, ("qid", "docno", "score")))
    assert evaluate_run(qrels, run, "map")["map"] == expected
    renamed = table(backend, long_form(RUN, ("topic", "document", "sim")))
    own = Run.from_frame(renamed, query_col="topic", doc_col="document", score_col="sim")
    assert evaluate_run(Qrels.from_frame(qrels), own, "map")["map"] == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_results_out_as_tables(backend: str) -> None:
    ev = evaluate_run(QRELS, RUN, ["map", "P.2", "nDCG@10"], complete=True)
    frame = ev.to_frame(backend)
    rows = pd.DataFrame(frame.to_pandas() if backend != "pandas" else frame)
    assert list(rows.columns) == ["query_id", "map", "P_2", "nDCG@10"]
    assert list(rows["query_id"]) == list(ev.queries)
    for name in ("map", "P_2", "nDCG@10"):
        assert list(rows[name]) == ev.values[name].tolist()
    runs = {"x": RUN, "y": {q: {d: -s for d, s in docs.items()} for q, docs in RUN.items()}}
    tests = compare(QRELS, runs, "map", test="randomization").to_frame(backend)
    assert len(tests) == 1


def test_errors_name_the_columns_and_the_swap() -> None:
    qrels = pd.DataFrame(long_form(QRELS, ("query_id", "doc_id", "relevance")))
    run = pd.DataFrame(long_form(RUN, ("query_id", "doc_id", "score")))
    with pytest.raises(TypeError, match="looks like a run: the qrels come first"):
        evaluate_run(run, qrels, "map")
    with pytest.raises(ValueError, match=r"no doc column 'doc_id' or 'docno'; its columns are "
                                         r"\['query_id', 'document', 'score'\]"):
        Run.from_frame(run.rename(columns={"doc_id": "document"}))


@pytest.mark.parametrize("backend", BACKENDS)
def test_scored_cases_from_table_columns(backend: str) -> None:
    rng = np.random.default_rng(5)
    labels, scores = rng.random(200) < 0.3, np.round(rng.random(200), 2)
    frame = table(backend, {"label": labels.tolist(), "score": scores.tolist()})
    from_table = ScoredPrecisionRecallEvaluation(ties="grouped")
    from_table.add_cases(frame["label"], frame["score"])
    plain = ScoredPrecisionRecallEvaluation(ties="grouped")
    plain.add_cases(labels, scores)
    assert from_table == plain
    assert from_table.average_precision() == plain.average_precision()


@pytest.mark.parametrize("backend", BACKENDS)
def test_round_trips(backend: str) -> None:
    run, qrels = Run.from_dict(RUN), Qrels.from_dict(QRELS)
    assert Run.from_frame(run.to_frame(backend)).to_dict() == RUN
    assert Qrels.from_frame(qrels.to_frame(backend)).to_dict() == QRELS
