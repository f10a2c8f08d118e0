"""rankeval.spark on a real local[2] Spark and rankeval.dask on a real LocalCluster.

Every value equals the local one bit for bit (the cases are in tests/engine_cases.py).
"""

from __future__ import annotations

import datetime
import os
from decimal import Decimal
from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankeval.adapters.common
import rankeval.adapters.spark
import rankeval.dask
import rankeval.spark
from rankeval import ScoredPrecisionRecallEvaluation, SegmentedEvaluation
from tests import engine_cases
from tests.engine_cases import Engine
from tests.helpers import assert_report_matches, same_bits

_TYPES = {"f": "double", "b": "boolean", "i": "long", "O": "string", "T": "string"}


@pytest.fixture(scope="module", params=["spark", "dask"])
def engine(request: pytest.FixtureRequest) -> Engine:
    if request.param == "dask":
        request.getfixturevalue("dask_client")

        def dask_frame(rows: pd.DataFrame, partitions: int) -> Any:
            return dd.from_pandas(rows, npartitions=partitions, sort=False)

        return Engine(dask_frame, rankeval.dask, {"sample_size": 20, "seed": 3})
    return spark_engine(request.getfixturevalue("spark"))


def spark_engine(spark: Any) -> Engine:
    """The Spark engine of the tests: its tables are made from pandas rows."""

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


def _spark_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """A list that grows by one at each call of the Spark adapter's function ``name``
    (a step of its job plan, run on the driver); the function still runs."""
    calls: list[int] = []
    real = getattr(rankeval.adapters.spark, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(rankeval.adapters.spark, name, counted)
    return calls


@pytest.mark.parametrize(("limit", "checking_jobs"), [(100_000, 0), (600, 1)])
def test_spark_groups_in_one_job_or_by_buckets(spark: Any, limit: int, checking_jobs: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Spark ranks small groups whole in one job, checks included (no checking job); a
    group of more rows than a task ranks whole (the limit lowered here: the largest group
    has about 2,300 of 5,000 rows) sends the table to the bucket path after its checking
    job. The reports are a local evaluator's either way."""
    engine = spark_engine(spark)
    calls = _spark_calls(monkeypatch, "_scored_table")
    monkeypatch.setattr(rankeval.adapters.common, "CASES_PER_BUCKET", limit)
    engine_cases.check_groups(engine, ["de", "fr", "it", "nl", "pl"], "grouped", False, None)
    engine_cases.check_groups(engine, [0.0, -0.0, 2.5, 7.0], "grouped", False, None)
    assert len(calls) == 2 * checking_jobs


def test_skewed_partitions_and_misses(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # Spark would count these 800 distinct scores on the driver: rank them in buckets.
    monkeypatch.setattr(rankeval.adapters.common, "DRIVER_SCORES", -1)
    engine_cases.check_skewed(engine)


@pytest.mark.parametrize(("driver_scores", "samples"), [(100_000, 0), (10, 1)])
def test_spark_counts_few_distinct_scores_without_a_sample(
        spark: Any, driver_scores: int, samples: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """30 distinct scores: by the checking job's estimate they fit on the driver, so the JVM
    counts them at once and no sample is drawn. When they do not fit after all (the
    driver's limit lowered here to 10), the sample is drawn and tasks rank the counts. The
    report is a local evaluator's either way."""
    calls = _spark_calls(monkeypatch, "_bounds")
    monkeypatch.setattr(rankeval.adapters.common, "DRIVER_SCORES", driver_scores)
    engine_cases.check_scored(spark_engine(spark), 3, 4, 30, 0.3)
    assert len(calls) == samples


@pytest.mark.parametrize("distinct", [1, 30, 5_000, 40_000])
def test_spark_estimate_of_distinct_scores(spark: Any, distinct: int) -> None:
    """The checking job's estimate of the distinct scores (linear counting over a 256th of
    them) is within a factor of two from 5,000 up, small below, and infinite far past the
    driver's limit: it only ever chooses between two exact paths."""
    table = spark.range(300_000).selectExpr(
        f"cast(pmod(id * 7919, {distinct}) as double) / 7.0 as score", "id % 3 = 0 as label")
    found: list[float] = []
    rankeval.adapters.spark._scored_table(table, "score", "label", None, distinct=found)
    if distinct >= 5_000:
        assert distinct / 2 <= found[0] <= distinct * 2
    else:
        assert found[0] <= 2_000
    wide = spark.range(2_000_000).selectExpr("id / 3.0 as score", "id % 2 = 0 as label")
    found.clear()
    rankeval.adapters.spark._scored_table(wide, "score", "label", None, distinct=found)
    assert found[0] == float("inf")


def test_distinct_scores_by_linear_counting() -> None:
    estimate = rankeval.adapters.spark._distinct_scores
    assert estimate(None) == 0.0
    assert estimate(-1) == float("inf")  # all 64 bits (a signed long)
    assert estimate(0b1011) == pytest.approx(256 * 64 * np.log(64 / 61))


def test_insertion_with_an_order_column(engine: Engine) -> None:
    engine_cases.check_insertion(engine)


@pytest.mark.parametrize(("partitions", "buckets", "distinct", "column"),
                         [(1, 1, 50, "weight"), (3, 5, 400, "weight"), (7, 40, 5000, "weight"),
                          (4, 9, 3, "count")])
def test_weighted_values_equal_the_local_evaluator(engine: Engine, partitions: int,
                                                   buckets: int, distinct: int,
                                                   column: str) -> None:
    engine_cases.check_weighted(engine, partitions, buckets, distinct, column)


@pytest.mark.parametrize(("partitions", "buckets"), [(3, None), (5, 6)])
def test_weighted_groups_equal_local_evaluators(engine: Engine, partitions: int,
                                                buckets: int | None) -> None:
    engine_cases.check_weighted_groups(engine, partitions, buckets)


def test_weighted_refusals_name_the_problem(engine: Engine) -> None:
    engine_cases.check_weighted_refusals(engine)


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
    # The signature is written once: the keywords are ScoredTableOptions' fields (their one
    # set of defaults), typed by TableKeywords, beside the two that pick the result's type.
    parameters = inspect.signature(common.evaluate).parameters
    assert list(parameters) == ["df", "columns", "group_col", "weight_col", "options"]
    fields = {f.name: f.default for f in dataclasses.fields(ScoredTableOptions) if f.init}
    keywords = list(common.TableKeywords.__annotations__)
    assert keywords[-1] == "betas"  # the deprecated earlier name of beta, last
    assert [*keywords[:-1], "group_col", "weight_col"] == [
        name for name in fields if name not in ("group_col", "weight_col")
    ] + ["group_col", "weight_col"]
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


def test_evaluate_takes_its_columns_by_name() -> None:
    """The columns are keywords (truth and scores cannot be swapped by position); the old
    positional form warns, naming its removal release, and gives the same report; a column
    given twice, a third positional argument or an unknown keyword is refused by name."""
    table = pd.DataFrame({"s": [0.9, 0.8, 0.3, 0.1], "y": [1, 0, 1, 0]})
    frame = dd.from_pandas(table, npartitions=2)
    new = rankeval.dask.evaluate(frame, label_col="y", score_col="s")
    with pytest.warns(DeprecationWarning, match="keywords: label_col=, score_col=.*rankeval 1.0"):
        old = rankeval.dask.evaluate(frame, "s", "y")  # type: ignore[call-overload]
    local = ScoredPrecisionRecallEvaluation()
    local.add_cases(table["y"].to_numpy() == 1, table["s"].to_numpy())
    assert old.summary() == new.summary() == local.report().summary()
    with pytest.raises(TypeError, match="score_col by position and by keyword"):
        rankeval.dask.evaluate(frame, "s", score_col="s")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="at most two column names"):
        rankeval.dask.evaluate(frame, "s", "y", "z")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="unexpected keyword argument 'label'"):
        rankeval.dask.evaluate(frame, label="y")  # type: ignore[call-overload]


MIXED_KEYS: list[Any] = [1, True, 1.0, "1", Decimal("1.10"), Decimal("1.1"), "x", 2, 2.5]


@pytest.mark.parametrize("buckets", [None, 3])
@pytest.mark.parametrize("partitions", [1, 3, 7])
def test_dask_groups_of_mixed_type_keys_equal_local(dask_client: Any, buckets: int | None,
                                                    partitions: int) -> None:
    """Fixed: object keys that Python holds equal (1, True, 1.0; Decimal("1.10") and
    Decimal("1.1")) were split across tasks and the last task's part reported as the group
    (ROC area 0.0 where the local one is 0.625), or "the table changed" was blamed. Each
    group is now every row whose key equals it, as a dict (and SegmentedEvaluation) groups."""
    rows = engine_cases.scored_rows(21, 3000, 25, 0.4)
    rng = np.random.default_rng(4)
    keys = pd.Series([MIXED_KEYS[i] for i in rng.integers(0, len(MIXED_KEYS), 3000)],
                     dtype=object)
    rows["segment"] = keys
    assert _dask_groups_equal_local(rows, partitions, buckets, 60) == 6


def _dask_groups_equal_local(rows: pd.DataFrame, partitions: int, buckets: int | None,
                             curve_points: int) -> int:
    """Dask's report of each group of ``rows["segment"]`` (object keys, never converted to
    strings) equals a local evaluator of the rows whose key equals it; the groups' number."""
    with dask.config.set({"dataframe.convert-string": False}):
        table = dd.from_pandas(rows, npartitions=partitions, sort=False)
        reports = rankeval.dask.evaluate(table, group_col="segment", buckets=buckets,
                                         precision_at=engine_cases.RANKS,
                                         curve_points=curve_points, sample_size=50, seed=3)
    expected = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
    expected.add_cases(rows["segment"].tolist(), rows["label"].to_numpy(),
                       rows["score"].to_numpy())
    assert len(reports) == len(expected)
    for key in expected:
        assert_report_matches(reports[key], expected[key], engine_cases.RANKS, curve_points)
    return len(expected)


#: Group keys as users' tables hold them: Python-equal values of other types (1, True,
#: 1.0; Decimals of other exponents; 0.0 and -0.0) and text with NULs.
GROUP_KEYS = st.one_of(
    st.integers(-2, 2), st.booleans(), st.sampled_from([0.0, -0.0, 1.0, 2.5]),
    st.sampled_from([Decimal("1.10"), Decimal("1.1"), Decimal("1"), Decimal("-0"),
                     Decimal("0.00")]),
    st.sampled_from(["a", "a\x00", "1", "", "\x00", "é"]),
)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(GROUP_KEYS, min_size=1, max_size=8, unique_by=repr),
       n=st.integers(20, 300), partitions=st.integers(1, 5),
       buckets=st.none() | st.integers(1, 4), seed=st.integers(0, 2**16))
def test_dask_groups_of_drawn_keys_equal_local(dask_client: Any, keys: list[Any], n: int,
                                               partitions: int, buckets: int | None,
                                               seed: int) -> None:
    """Every group's report, for group keys drawn from every type a table may mix, equals a
    local evaluator of the rows whose key equals it (as SegmentedEvaluation groups them)."""
    rng = np.random.default_rng(seed)
    rows = pd.DataFrame({"score": np.round(rng.random(n), 1), "label": rng.random(n) < 0.4})
    column = pd.Series([keys[i] for i in rng.integers(0, len(keys), n)], dtype=object)
    rows["segment"] = column
    _dask_groups_equal_local(rows, partitions, buckets, 20)


def _spark_groups(spark: Any, rows: pd.DataFrame, kind: str, values: list[Any]) -> Any:
    records = [(float(s), bool(lab), values[int(g)]) for s, lab, g in
               zip(rows["score"], rows["label"], rows["g"], strict=True)]
    schema = f"score double, label boolean, segment {kind}"
    return spark.createDataFrame(spark.sparkContext.parallelize(records, 4), schema)


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
@pytest.mark.parametrize("buckets", [None, 3])
def test_spark_timestamp_binary_and_decimal_groups_equal_local(
        spark: Any, zone: str, buckets: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed: a timestamp group column failed whenever the driver's time zone was not UTC
    ("the table changed between the jobs"), and a binary one crashed (unhashable). Each
    group's report equals a local evaluator fed its rows, whatever the driver's zone."""
    import datetime
    import time

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        rows = engine_cases.scored_rows(8, 2000, 30, 0.4)
        rows["g"] = np.random.default_rng(2).integers(0, 3, 2000)
        utc = datetime.timezone.utc
        for kind, values in [
            ("timestamp", [datetime.datetime(2024, 3, 10, 6, 30, tzinfo=utc),
                           datetime.datetime(2024, 3, 10, 7, 30, tzinfo=utc),
                           datetime.datetime(1999, 12, 31, 23, 59, 59, 123456, tzinfo=utc)]),
            ("binary", [b"a", b"\x00\xff", b""]),
            ("decimal(10,2)", [Decimal("1.10"), Decimal("2.00"), Decimal("-3.25")]),
        ]:
            table = _spark_groups(spark, rows, kind, values)
            reports = rankeval.spark.evaluate(table, group_col="segment", buckets=buckets,
                                              precision_at=engine_cases.RANKS,
                                              curve_points=60, sample_size=50, seed=3)
            assert len(reports) == 3, kind
            # The reports come sorted by value; so do the groups' values here.
            order = sorted(range(3), key=lambda i: values[i])
            for key, i in zip(reports, order, strict=True):
                local = engine_cases.local_evaluator(rows[rows["g"] == i])
                assert_report_matches(reports[key], local, engine_cases.RANKS, 60)
            if kind == "binary":
                assert sorted(reports) == sorted(values)
            if kind == "decimal(10,2)":
                assert sorted(reports) == sorted(values)
    finally:
        monkeypatch.undo()
        time.tzset()


_UTC = datetime.timezone.utc
#: Every Spark type a group column may have, with the values a table may hold in it.
SPARK_GROUP_TYPES: dict[str, Any] = {
    "timestamp": st.datetimes(datetime.datetime(1900, 1, 1), datetime.datetime(2100, 1, 1),
                              timezones=st.just(_UTC)),
    "date": st.dates(datetime.date(1900, 1, 1), datetime.date(2100, 1, 1)),
    "binary": st.binary(max_size=4),
    "decimal(10,2)": st.decimals(-999, 999, places=2, allow_nan=False, allow_infinity=False),
    "string": st.text(max_size=3),
    "bigint": st.integers(-2**63, 2**63 - 1),
    "double": st.floats(allow_nan=False),
    "boolean": st.booleans(),
}


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(sorted(SPARK_GROUP_TYPES)),
       zone=st.sampled_from(["UTC", "America/New_York", "Asia/Kolkata"]),
       buckets=st.none() | st.integers(1, 3), seed=st.integers(0, 2**16))
def test_spark_groups_of_drawn_types_and_zones_equal_local(
        spark: Any, data: Any, kind: str, zone: str, buckets: int | None, seed: int) -> None:
    """A group column of a type drawn from every Spark type, its values drawn (equal ones
    included: 0.0 and -0.0), under a driver time zone drawn from three: each group's report
    equals a local evaluator of the rows whose value equals it, the groups in value order."""
    import time

    values = data.draw(st.lists(SPARK_GROUP_TYPES[kind], min_size=1, max_size=5),
                       label="values")
    previous = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        rng = np.random.default_rng(seed)
        n = 120
        rows = pd.DataFrame({"score": np.round(rng.random(n), 1),
                             "label": rng.random(n) < 0.4,
                             "g": rng.integers(0, len(values), n)})
        table = _spark_groups(spark, rows, kind, values)
        reports = rankeval.spark.evaluate(table, group_col="segment", buckets=buckets,
                                          precision_at=engine_cases.RANKS, curve_points=20,
                                          sample_size=50, seed=3)
        expected = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
        expected.add_cases([values[int(g)] for g in rows["g"]], rows["label"].to_numpy(),
                           rows["score"].to_numpy())
        assert len(reports) == len(expected), (kind, values)
        # Spark orders strings by their UTF-8 bytes: the code points' order, as Python does.
        for key, local in zip(reports, sorted(expected), strict=True):
            assert_report_matches(reports[key], expected[local], engine_cases.RANKS, 20)
    finally:
        if previous is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = previous
        time.tzset()


@pytest.mark.parametrize("module", [rankeval.adapters.spark, rankeval.adapters.dask],
                         ids=["spark", "dask"])
def test_each_engine_is_the_declared_interface(module: Any) -> None:
    """Both adapters provide every step of rankeval.adapters.common.Engine, with the
    protocol's parameters (kinds and annotations) in its order."""
    import inspect

    from rankeval.adapters.common import Engine

    assert isinstance(module, Engine)
    for name, member in vars(Engine).items():
        if name.startswith("_") or not callable(member):
            continue
        declared = list(inspect.signature(member).parameters.values())[1:]  # after self
        found = list(inspect.signature(getattr(module, name)).parameters.values())
        assert len(found) == len(declared), name
        for want, got in zip(declared, found, strict=True):
            keyword = want.kind is inspect.Parameter.KEYWORD_ONLY
            assert (got.kind is inspect.Parameter.KEYWORD_ONLY) == keyword, (name, got)
            if keyword:
                assert got.name == want.name, (name, got)
            assert str(got.annotation).replace("engines.", "") == str(want.annotation), \
                (name, got, want)
