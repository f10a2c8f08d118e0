"""The cases every engine adapter must pass (rankeval.spark, rankeval.dask), engine-free here.

Each test module gives an :class:`Engine`: how to make its table from pandas and which
adapter module to call. Expected values come from the local evaluator and the local
``evaluate_run`` fed the same rows: equal bit for bit, not approximately.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.ranking import Qrels, Run, evaluate_run
from tests.helpers import DECISIONS, assert_report_matches, same_bits

RANKS = (1, 5, 10, 100)


@dataclass
class Engine:
    """``frame(pandas_frame, partitions)`` makes the engine's table; ``module`` is the adapter.

    ``skew`` holds the engine's own arguments that make its buckets uneven.
    """

    frame: Callable[[pd.DataFrame, int], Any]
    module: Any
    skew: dict[str, Any] = field(default_factory=dict)


def scored_rows(seed: int, n: int, distinct: int, positive_rate: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, distinct, n) / 7.0
    scores[rng.random(n) < 0.03] = -0.0
    return pd.DataFrame({"score": scores, "label": rng.random(n) < positive_rate,
                         "arrival": rng.permutation(n)})


def local_evaluator(rows: pd.DataFrame, ties: str = "grouped", misses: int = 0,
                    negative_misses: int = 0) -> ScoredPrecisionRecallEvaluation:
    if ties == "insertion":
        rows = rows.sort_values("arrival", kind="stable")
    ev = ScoredPrecisionRecallEvaluation(ties=ties)
    ev.add_cases(rows["label"].to_numpy(), rows["score"].to_numpy(dtype=np.float64))
    ev.add_misses(misses)
    ev.add_negative_misses(negative_misses)
    return ev


# (partitions of the input table, buckets of the ranking step, distinct scores, positives)
PARTITIONINGS = [(1, 1, 50, 0.3), (2, 2, 400, 0.2), (7, 7, 3, 0.5), (64, 64, 5000, 0.02),
                 (3, 16, 1, 0.4)]


def check_scored(engine: Engine, partitions: int, buckets: int, distinct: int,
                 positive_rate: float) -> None:
    rows = scored_rows(partitions * 100 + distinct, 6000, distinct, positive_rate)
    report = engine.module.evaluate(engine.frame(rows, partitions), buckets=buckets,
                                    precision_at=RANKS, curve_points=100, decisions=DECISIONS)
    assert_report_matches(report, local_evaluator(rows), RANKS, 100)


def check_skewed(engine: Engine) -> None:
    # A few huge partitions and many tiny ones, and a sample too small to balance buckets.
    rows = scored_rows(4, 8000, 800, 0.25)
    rows = pd.concat([rows.iloc[:7000].sort_values("score"), rows.iloc[7000:]])
    report = engine.module.evaluate(engine.frame(rows, 9), buckets=12, precision_at=RANKS,
                                    misses=5, negative_misses=2, decisions=DECISIONS,
                                    **engine.skew)
    assert_report_matches(report, local_evaluator(rows, misses=5, negative_misses=2), RANKS,
                          1000)


def check_insertion(engine: Engine) -> None:
    rows = scored_rows(8, 4000, 20, 0.3)
    table = engine.frame(rows, 5)
    report = engine.module.evaluate(table, ties="insertion", order_col="arrival", buckets=6,
                                    precision_at=RANKS, decisions=DECISIONS)
    local = local_evaluator(rows, "insertion")
    assert_report_matches(report, local, RANKS, 1000)
    assert engine.module.collect_evaluator(table, ties="insertion", order_col="arrival") == local


def check_collect(engine: Engine) -> None:
    rows = scored_rows(9, 3000, 30, 0.3)
    collected = engine.module.collect_evaluator(engine.frame(rows, 4))
    assert collected == local_evaluator(rows)
    assert collected.ties == "grouped"


def grouped_rows(seed: int, n: int, groups: list[Any]) -> pd.DataFrame:
    """Scored rows in groups of very different sizes and score ranges, one group with a
    single class and one with a single row."""
    rng = np.random.default_rng(seed)
    rows = scored_rows(seed, n, 40, 0.3)
    weights = np.arange(1, len(groups) + 1, dtype=np.float64) ** 2
    index = rng.choice(len(groups), size=n, p=weights / weights.sum())
    rows["segment"] = np.array(groups)[index]  # int64 or str
    shifted = index == 1  # one group's scores sit above everyone else's
    rows.loc[shifted, "score"] += 10.0
    rows.loc[index == 2, "label"] = True  # no negatives
    rows.loc[rows.index[0], "segment"] = "lonely" if isinstance(groups[0], str) else -1
    return rows


def check_groups(engine: Engine, groups: list[Any], ties: str, stream: bool,
                 buckets: int | None) -> None:
    """Every group's report equals a local evaluator fed that group's rows, bit for bit."""
    rows = grouped_rows(len(groups) + int(stream), 5000, groups)
    extra: dict[str, Any] = {"ties": ties}
    if ties == "insertion":
        extra["order_col"] = "arrival"
    reports = engine.module.evaluate(engine.frame(rows, 4), group_col="segment",
                                     buckets=buckets, precision_at=RANKS, curve_points=60,
                                     decisions=DECISIONS, **extra)
    present = sorted(rows["segment"].unique().tolist())
    assert list(reports) == present
    for key in present:
        local = local_evaluator(rows[rows["segment"] == key], ties)
        assert_report_matches(reports[key], local, RANKS, 60)
    frame = reports.summary_frame()
    assert frame["segment"].tolist() == present
    assert frame["cases"].tolist() == [float((rows["segment"] == k).sum()) for k in present]


def check_refusals(engine: Engine) -> None:
    module = engine.module
    good = scored_rows(10, 50, 5, 0.5)
    table = engine.frame(good, 2)
    with pytest.raises(ValueError, match="pass order_col="):
        module.evaluate(table, ties="insertion")
    with pytest.raises(ValueError, match="score_col='p': no such column"):
        module.evaluate(table, score_col="p")
    nan = good.assign(score=good["score"].where(good.index != 7, np.nan))
    with pytest.raises(ValueError, match="score column 'score' holds 1 missing values"):
        module.evaluate(engine.frame(nan, 2))
    labels = good.assign(label=np.where(good.index == 3, 2, good["label"].astype(int)))
    with pytest.raises(ValueError, match="label column 'label' must hold booleans or 0/1"):
        module.evaluate(engine.frame(labels, 2))
    with pytest.raises(ValueError, match="the table has no rows"):
        module.evaluate(engine.frame(good.iloc[:0], 1))
    with pytest.raises(TypeError, match="score column 'label' must be numeric"):
        module.evaluate(table, score_col="label", label_col="score")
    grouped = good.assign(segment=np.where(good.index == 4, None, "a"))
    with pytest.raises(ValueError, match="group column 'segment' holds 1 missing values"):
        module.evaluate(engine.frame(grouped, 2), group_col="segment")
    # By groups, the same refusals (Spark's tasks check their rows: the same counts).
    segments = good.assign(segment=np.where(good.index % 3 == 0, "a", "b"))
    for bad, problem in ((segments.assign(score=nan["score"]),
                          "score column 'score' holds 1 missing values"),
                         (segments.assign(label=labels["label"]),
                          "label column 'label' must hold booleans or 0/1, found 1 other"),
                         (segments.assign(label=np.where(good.index == 5, np.nan,
                                                         good["label"].astype(float))),
                          "label column 'label' holds 1 missing values"),
                         (segments.assign(segment=np.where(good.index % 2, 1.5, np.nan)),
                          "group column 'segment' holds 25 missing values"),
                         (segments.iloc[:0], "the table has no rows")):
        with pytest.raises(ValueError, match=problem):
            module.evaluate(engine.frame(bad, 2), group_col="segment")
    with pytest.raises(ValueError, match="order column 'arrival' holds 1 missing values"):
        module.evaluate(engine.frame(segments.assign(arrival=np.where(
            good.index == 9, np.nan, good["arrival"].astype(float))), 2), group_col="segment",
            ties="insertion", order_col="arrival")
    with pytest.raises(ValueError, match="group_col='nope': no such column"):
        module.evaluate(table, group_col="nope")
    with pytest.raises(ValueError, match="misses and negative_misses belong to one evaluator"):
        module.evaluate(table, group_col="score", misses=1)


# Ids that a careless check would read as numbers, NaN or infinite: ids all the same.
_ODD_IDS = {0: "NaN", 1: "nan", 2: "Infinity", 3: "-inf", 4: "1e5"}


def _query(q: int) -> str:
    return _ODD_IDS.get(q, f"q{q}")


def _doc(d: int) -> str:
    return _ODD_IDS.get(d, f"d{d}")


def run_tables(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    qrels = [(_query(q), _doc(d), int(rng.integers(0, 4))) for q in range(120)
             for d in rng.choice(80, 15, replace=False) if q % 9 != 4]
    run = [(_query(q), _doc(d), float(rng.integers(0, 8))) for q in rng.permutation(130)[:110]
           for d in rng.choice(80, 30, replace=False)]
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


RUN_CASES = [
    (["map", "ndcg_cut.10", "P.10", "recip_rank", "gm_map", "num_rel", "num_rel_ret", "num_q",
      "relstring"], {}),
    (["map", "iprec_at_recall", "num_rel", "num_q"], {"complete": True, "relevance_level": 2}),
    (["nDCG@10", "AP", "RR@5", "P@10", "NumQ"], {}),
]


def check_run(engine: Engine, measures: list[str], options: dict[str, Any], batches: int
              ) -> None:
    qrels, run = run_tables(batches)
    result = engine.module.evaluate_run(engine.frame(qrels, 3), engine.frame(run, 4), measures,
                                        buckets=batches, runid="sys", **options)
    local = evaluate_run(
        Qrels.from_arrays(qrels["query_id"].to_numpy(), qrels["doc_id"].to_numpy(),
                          qrels["relevance"].to_numpy()),
        Run.from_arrays(run["query_id"].to_numpy(), run["doc_id"].to_numpy(),
                        run["score"].to_numpy(), runid="sys"),
        measures, **options)
    assert result.queries == local.queries
    assert result.columns == local.columns
    assert result.texts == local.texts
    assert result.to_text(per_query=True) == local.to_text(per_query=True)
    for name in local.values:
        assert same_bits(result.values[name], local.values[name]), name
    for name in local.aggregates:
        assert same_bits(result.aggregates[name], local.aggregates[name]), name
    # weighted queries: the driver weighs the merged report as the local one is weighed
    weights = {q: float(i % 4) + 0.25 for i, q in enumerate(local.queries)}
    weighted = engine.module.evaluate_run(engine.frame(qrels, 3), engine.frame(run, 4),
                                          measures, buckets=batches, runid="sys",
                                          query_weights=weights, **options)
    mine = local.weighted(weights)
    for name in local.aggregates:
        assert same_bits(weighted.aggregates[name], mine.aggregates[name]), name


def check_run_refusals(engine: Engine) -> None:
    qrels, run = run_tables(1)
    with pytest.raises(ValueError, match="unknown measure 'mapp'"):
        engine.module.evaluate_run(engine.frame(qrels, 1), engine.frame(run, 1), ["mapp"])
    with pytest.raises(ValueError, match="rel_col='rel': no such column"):
        engine.module.evaluate_run(engine.frame(qrels, 1), engine.frame(run, 1), "map",
                                   rel_col="rel")


def weighted_rows(seed: int, n: int, distinct: int) -> pd.DataFrame:
    """Rows with tied scores, float weights (a tenth of them 0) and an integer weight column."""
    rng = np.random.default_rng(seed)
    rows = scored_rows(seed, n, distinct, 0.3)
    weights = rng.random(n) * 5.0
    weights[rng.random(n) < 0.1] = 0.0
    return rows.assign(weight=weights, count=rng.integers(0, 4, n))


def weighted_local(rows: pd.DataFrame, column: str, misses: int = 0,
                   negative_misses: int = 0) -> ScoredPrecisionRecallEvaluation:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(rows["label"].to_numpy(), rows["score"].to_numpy(dtype=np.float64),
                 weights=rows[column].to_numpy(dtype=np.float64))
    ev.add_misses(misses)
    ev.add_negative_misses(negative_misses)
    return ev


def check_weighted(engine: Engine, partitions: int, buckets: int, distinct: int,
                   column: str) -> None:
    """Every weighted read equals the local weighted evaluator's, bit for bit: the values,
    the curves (downsampled alike), every decision read with every argument."""
    rows = weighted_rows(partitions * 10 + distinct, 3 * 4096 + 500, distinct)
    report = engine.module.evaluate(engine.frame(rows, partitions), buckets=buckets,
                                    weight_col=column, misses=3, negative_misses=1,
                                    curve_points=100, **engine.skew)
    ev = weighted_local(rows, column, 3, 1)
    mine, local = report.summary(), ev.summary(())
    assert mine.keys() == local.keys()
    assert all(same_bits(mine[key], local[key]) for key in mine), (mine, local)
    for interpolate in (False, True):
        assert same_bits(report.pr_curve(interpolate), ev.pr_curve(interpolate, max_points=100))
    assert same_bits(report.roc_curve(), ev.roc_curve(max_points=100))
    assert same_bits(report.num_positive_ref(), ev.num_positive_ref())
    from tests.helpers import assert_decisions_match

    assert_decisions_match(report, ev, DECISIONS)
    if partitions == 3:  # the rows with their weights, in a local evaluator
        collected = engine.module.collect_evaluator(engine.frame(rows, partitions),
                                                    weight_col=column)
        collected.add_misses(3)
        collected.add_negative_misses(1)
        assert collected.weighted
        assert all(same_bits(value, local[key])
                   for key, value in collected.summary(()).items())


def check_weighted_refusals(engine: Engine) -> None:
    base = pd.DataFrame({"score": [0.9, 0.4, 0.2], "label": [True, False, True],
                         "weight": [1.0, 2.0, 0.5]})
    table = engine.frame(base, 1)
    for bad, problem in ((-1.0, "negative or infinite"), (np.inf, "negative or infinite"),
                         (np.nan, "missing values")):
        frame = engine.frame(base.assign(weight=[1.0, bad, 0.5]), 1)
        with pytest.raises(ValueError, match=f"weight column 'weight' holds {problem}"):
            engine.module.evaluate(frame, weight_col="weight")
    with pytest.raises(TypeError, match="weight column 'name' must be numeric"):
        engine.module.evaluate(engine.frame(base.assign(name=["a", "b", "c"]), 1),
                               weight_col="name")
    with pytest.raises(ValueError, match="weight_col='nope': no such column"):
        engine.module.evaluate(table, weight_col="nope")
    with pytest.raises(ValueError, match='weight_col= needs ties="grouped"'):
        engine.module.evaluate(table, weight_col="weight", ties="insertion", order_col="score")
    # Every weight 0: nothing counts, as in the local evaluator.
    report = engine.module.evaluate(engine.frame(base.assign(weight=0.0), 1), weight_col="weight",
                                    misses=1)
    ev = weighted_local(base.assign(weight=0.0), "weight", 1)
    assert report.summary() == pytest.approx(ev.summary(()), nan_ok=True)


def check_weighted_groups(engine: Engine, partitions: int, buckets: int | None) -> None:
    """One weighted report a group, each the local weighted evaluator's of the group's rows
    (a group whose every weight is 0 included)."""
    rows = weighted_rows(partitions + 40, 2 * 4096 + 300, 700)
    rng = np.random.default_rng(partitions)
    rows = rows.assign(segment=rng.choice(["a", "b", "c", "d"], rows.shape[0]))
    rows.loc[rows["segment"] == "d", "weight"] = 0.0
    options = {} if buckets is None else {"buckets": buckets}
    reports = engine.module.evaluate(engine.frame(rows, partitions), weight_col="weight",
                                     group_col="segment", curve_points=60, **options)
    assert sorted(reports) == ["a", "b", "c", "d"]
    for segment, report in reports.items():
        ev = weighted_local(rows[rows["segment"] == segment], "weight")
        mine, local = report.summary(), ev.summary(())
        assert mine.keys() == local.keys()
        assert all(same_bits(mine[key], local[key]) for key in mine), (segment, mine, local)
        assert same_bits(report.roc_curve(), ev.roc_curve(max_points=60))
        assert same_bits(report.ks_statistic().value, ev.ks_statistic().value)
    frame = reports.summary_frame()
    assert list(frame["segment"]) == ["a", "b", "c", "d"]
