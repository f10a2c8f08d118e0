"""rankeval.dask on a real LocalCluster: every value equals the local one bit for bit."""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest

import rankeval.dask
from tests import engine_cases
from tests.engine_cases import Engine


@pytest.fixture(scope="module")
def engine(dask_client: Any) -> Engine:
    def frame(rows: pd.DataFrame, partitions: int) -> Any:
        return dd.from_pandas(rows, npartitions=partitions, sort=False)

    return Engine(frame, rankeval.dask, {"sample_size": 20, "seed": 3})


@pytest.mark.parametrize(("partitions", "buckets", "distinct", "positive_rate"),
                         engine_cases.PARTITIONINGS)
def test_scored_values_equal_the_local_evaluator(engine: Engine, partitions: int, buckets: int,
                                                 distinct: int, positive_rate: float) -> None:
    engine_cases.check_scored(engine, partitions, buckets, distinct, positive_rate)


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
