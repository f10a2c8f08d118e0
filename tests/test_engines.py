"""rankeval.spark on a real local[2] Spark and rankeval.dask on a real LocalCluster.

Every value equals the local one bit for bit (the cases are in tests/engine_cases.py).
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest

import rankeval.adapters.common
import rankeval.adapters.spark
import rankeval.dask
import rankeval.spark
from tests import engine_cases
from tests.engine_cases import Engine
from tests.helpers import same_bits

_TYPES = {"f": "double", "b": "boolean", "i": "long", "O": "string", "T": "string"}


@pytest.fixture(scope="module", params=["spark", "dask"])
def engine(request: pytest.FixtureRequest) -> Engine:
    if request.param == "dask":
        request.getfixturevalue("dask_client")

        def dask_frame(rows: pd.DataFrame, partitions: int) -> Any:
            return dd.from_pandas(rows, npartitions=partitions, sort=False)

        return Engine(dask_frame, rankeval.dask, {"sample_size": 20, "seed": 3})
    spark = request.getfixturevalue("spark")

    def spark_frame(rows: pd.DataFrame, partitions: int) -> Any:
        # parallelize keeps the rows' order: partition i holds the i-th slice.
        schema = ", ".join(f"`{name}` {_TYPES[dtype.kind]}" for name, dtype in rows.dtypes.items())
        values = rows.astype(object)
        for name, dtype in rows.dtypes.items():  # a missing string is null, not "NaN"
            if dtype.kind in "OT":
                values[name] = values[name].where(rows[name].notna(), None)
        records = [tuple(row) for row in values.itertuples(index=False)]
        data = spark.sparkContext.parallelize(records, numSlices=partitions)
        return spark.createDataFrame(data, schema, verifySchema=False)

    return Engine(spark_frame, rankeval.spark, {"sample_size": 20, "seed": 3})


@pytest.mark.parametrize(("partitions", "buckets", "distinct", "positive_rate"),
                         engine_cases.PARTITIONINGS)
def test_scored_values_equal_the_local_evaluator(engine: Engine, partitions: int, buckets: int,
                                                 distinct: int, positive_rate: float) -> None:
    engine_cases.check_scored(engine, partitions, buckets, distinct, positive_rate)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("distinct", [30, 5000])
def test_ranked_in_tasks(engine: Engine, distinct: int, stream: bool,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    # Spark ranks few distinct scores on the driver; here the tasks rank them (as counts
    # per score, or as cases), and with ``stream`` the driver reads them bucket by bucket,
    # as when the points would not fit.
    monkeypatch.setattr(rankeval.adapters.common, "DRIVER_SCORES", -1)
    if stream:
        monkeypatch.setattr(rankeval.adapters.common, "DRIVER_POINTS", 0)
    engine_cases.check_scored(engine, 5, 6, distinct, 0.3)


@pytest.mark.parametrize(("groups", "ties", "stream", "buckets"), [
    (["de", "fr", "it", "nl", "pl"], "grouped", False, 5),
    (["de", "fr", "it", "nl", "pl"], "grouped", False, None),
    ([3, 1, 2, 7], "grouped", True, 5),
    (["x", "y", "z"], "insertion", False, 5),
    (["x", "y", "z"], "insertion", False, None),
    ([0.0, -0.0, 2.5, 7.0], "grouped", False, None),  # -0.0 and 0.0: one group
    ([0.0, -0.0, 2.5, 7.0], "grouped", False, 5),
])
def test_every_group_equals_a_local_evaluator(engine: Engine, groups: list[Any], ties: str,
                                              stream: bool, buckets: int | None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Buckets given: the groups share bucket bounds (with ``stream``, the driver reads the
    points one (group, bucket) at a time); by default, small groups are a bucket each."""
    if stream:
        monkeypatch.setattr(rankeval.adapters.common, "DRIVER_POINTS", 0)
    engine_cases.check_groups(engine, groups, ties, stream, buckets)


def test_skewed_partitions_and_misses(engine: Engine) -> None:
    engine_cases.check_skewed(engine)


def test_insertion_with_an_order_column(engine: Engine) -> None:
    engine_cases.check_insertion(engine)


def test_collect_evaluator(engine: Engine) -> None:
    engine_cases.check_collect(engine)


def test_refusals_name_the_problem(engine: Engine) -> None:
    engine_cases.check_refusals(engine)


@pytest.mark.parametrize(("measures", "options"), engine_cases.RUN_CASES)
@pytest.mark.parametrize("batches", [1, 7])
def test_evaluate_run_equals_the_local_function(engine: Engine, measures: list[str],
                                                options: dict[str, Any], batches: int) -> None:
    engine_cases.check_run(engine, measures, options, batches)


def test_evaluate_run_refusals(engine: Engine) -> None:
    engine_cases.check_run_refusals(engine)


def test_spark_curve_frame_holds_the_full_curves(engine: Engine) -> None:
    if engine.module is not rankeval.spark:
        return  # a Spark DataFrame of the curves: Spark only
    rows = engine_cases.scored_rows(12, 3000, 40, 0.3)
    frame = rankeval.spark.curve_frame(engine.frame(rows, 3), buckets=5, misses=2)
    got = rankeval.adapters.spark._collect(frame.orderBy("bucket", "point"))
    local = engine_cases.local_evaluator(rows, misses=2)
    want_pr, want_roc = local.pr_score_curve(), local.roc_curve()[1:-1]
    assert same_bits([[r["recall"], r["precision"], r["score"]] for r in got], want_pr)
    assert same_bits([[r["fpr"], r["tpr"]] for r in got], want_roc)


def test_the_engines_share_one_evaluate() -> None:
    """``rankeval.spark.evaluate`` and ``rankeval.dask.evaluate`` are one function, whose
    arguments and defaults are :class:`rankeval.adapters.common.ScoredTableOptions`' (the
    engines once copied a 13-parameter signature and disagreed on ``sample_size``: 20,000
    and 100,000); the DataFrame's library picks the engine."""
    import dataclasses
    import inspect

    from rankeval.adapters import common
    from rankeval.adapters.common import ScoredTableOptions

    assert rankeval.spark.evaluate is rankeval.dask.evaluate is common.evaluate
    assert rankeval.spark.evaluate_run is rankeval.dask.evaluate_run is common.evaluate_run
    assert (rankeval.spark.collect_evaluator is rankeval.dask.collect_evaluator
            is common.collect_evaluator)
    parameters = inspect.signature(common.evaluate).parameters
    assert list(parameters)[-1] == "betas"  # the deprecated earlier name of beta, last
    fields = {f.name: f.default for f in dataclasses.fields(ScoredTableOptions) if f.init}
    assert list(parameters)[1:-1] == list(fields)
    for name, default in fields.items():
        assert parameters[name].default == default, name
    curve = inspect.signature(rankeval.spark.curve_frame).parameters
    for name in list(curve)[1:]:
        assert curve[name].default == fields[name], name
    with pytest.raises(ValueError, match="sample_size must be an integer >= 1"):
        ScoredTableOptions(sample_size=0)
    table = pd.DataFrame({"score": [0.5], "label": [1]})
    with pytest.raises(TypeError, match="evaluate takes a Spark or a Dask DataFrame, got pandas"):
        common.evaluate(table)
    with pytest.raises(TypeError, match="collect_evaluator takes a Spark or a Dask DataFrame"):
        common.collect_evaluator(table)
