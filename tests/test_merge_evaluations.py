"""Evaluations of disjoint query batches merge into the evaluation of all queries, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from rankeval.ranking import Qrels, Run, evaluate_run
from rankeval.ranking.evaluate import evaluate_part, merge_evaluations
from tests.helpers import same_bits


def _collection(seed: int, queries: int = 40) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        qid = f"q{q}"
        docs = [f"d{d}" for d in rng.choice(60, size=25, replace=False)]
        if q % 7 != 3:  # some queries have no judgment at all
            qrels[qid] = {d: int(rng.integers(0, 4)) for d in docs[:15]}
        if q % 5 != 1:  # and some no results (they count under complete=True)
            run[qid] = {d: float(rng.integers(0, 6)) for d in docs[5:]}
    return qrels, run


def _split(mapping: dict, groups: list[list[str]]) -> list[dict]:
    return [{q: mapping[q] for q in group if q in mapping} for group in groups]


def _columns(mapping: dict) -> tuple[list, list, list]:
    rows = [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


CASES = [
    (["map", "P.5,10", "ndcg_cut.10", "recip_rank", "num_rel", "num_rel_ret", "num_q",
      "gm_map", "relstring"], {}),
    (["map", "num_rel", "gm_map", "iprec_at_recall", "num_q"], {"complete": True}),
    (["map", "ndcg"], {"profile": "10.0", "complete": True}),
    (["nDCG@10", "AP", "RR", "P@5", "R@100", "NumRel", "NumQ"], {}),
]


@pytest.mark.parametrize(("measures", "options"), CASES)
@pytest.mark.parametrize("batches", [1, 3, 11, 30])
def test_merged_batches_equal_one_call(measures: list[str], options: dict, batches: int) -> None:
    qrels, run = _collection(batches)
    everything = sorted(set(qrels) | set(run))
    rng = np.random.default_rng(batches)
    label = rng.integers(0, batches, len(everything))
    groups = [[q for q, g in zip(everything, label, strict=True) if g == b]
              for b in range(batches)]
    parts = []
    for q_part, r_part in zip(_split(qrels, groups), _split(run, groups), strict=True):
        # A batch may hold judgments only, or results only (as an engine's partition may).
        qrels_part = Qrels.from_arrays(*_columns(q_part))
        run_part = Run.from_arrays(*_columns(r_part))
        parts.append(evaluate_part(qrels_part, run_part, measures, **options))
    whole = evaluate_run(Qrels.from_dict(qrels), Run.from_dict(run), measures, **options)
    merged = merge_evaluations(parts, run_queries=list(run))
    assert merged.queries == whole.queries
    assert merged.columns == whole.columns
    assert merged.num_queries == whole.num_queries
    assert np.array_equal(merged.retrieved, whole.retrieved)
    assert merged.texts == whole.texts
    for name in whole.values:
        assert same_bits(merged.values[name], whole.values[name]), name
    for name in whole.aggregates:
        assert same_bits(merged.aggregates[name], whole.aggregates[name]), name
    assert merged.to_text(per_query=True) == whole.to_text(per_query=True)


def test_merging_refuses_overlaps_and_mixed_measures() -> None:
    qrels, run = _collection(5)
    one = evaluate_run(qrels, run, "map")
    with pytest.raises(ValueError, match="disjoint queries"):
        merge_evaluations([one, one])
    with pytest.raises(ValueError, match="same measures"):
        merge_evaluations([one, evaluate_run(qrels, run, "P.5")])
    with pytest.raises(ValueError, match="no evaluation"):
        merge_evaluations([])
    # A batch without a shared query is fine; no shared query anywhere is the usual error.
    lonely = evaluate_part({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, "map")
    with pytest.raises(ValueError, match="no queries with both results and relevance"):
        merge_evaluations([lonely])
