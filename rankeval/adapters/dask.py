"""Exact evaluation of Dask DataFrames: the local evaluator's numbers, to the last bit.

Extra ``dask`` (``pip install 'rankeval-exact[dask]'``). Runs on whatever scheduler is active:
threads by default, or a ``distributed`` cluster once a ``Client`` exists.

* :func:`evaluate`: a scored table (a score and a label per row) to a
  :class:`~rankeval.scored.partitioned.PartitionedReport`, whose values equal those of a
  local ``ScoredPrecisionRecallEvaluation(ties="grouped")`` fed the same rows. The driver
  holds O(buckets + curve points) and one bucket's points at a time, never O(rows).
* :func:`collect_evaluator`: the rows in a real, local ``ScoredPrecisionRecallEvaluation``
  (for tables that fit in memory: it can be saved and merged with a live one).
* :func:`evaluate_run`: qrels and run tables to the :class:`~rankeval.RunReport` of the
  local :func:`rankeval.evaluate_run`, query batches evaluated in parallel.

The algorithm is :mod:`rankeval.scored.partitioned`'s; this module only moves columns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

try:
    from dask.base import compute, persist
    from dask.delayed import delayed
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        f"rankeval.dask needs Dask ({missing.name} is missing): pip install 'rankeval-exact[dask]'",
        name=missing.name) from None

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
    assemble,
    bucket_ids,
    range_bounds,
)
from rankeval.scored.segments import SegmentReports
from rankeval.scored.weighted_parts import SumStart, WeightedReport

__all__ = ["collect_evaluator", "evaluate", "evaluate_run"]

_BUCKET = "__rankeval_bucket"
_GROUP = "__rankeval_group"


#: The engines' one ``evaluate``, ``evaluate_run`` and ``collect_evaluator`` (each takes a
#: Spark or a Dask DataFrame and hands it to this module's or the other's ``*_table``).
evaluate = engines.evaluate
evaluate_run = engines.evaluate_run
collect_evaluator = engines.collect_evaluator

def _scored_columns(df: Any, score_col: str, label_col: str, order_col: str | None,
                    group_col: str | None = None, groups: list[Any] | None = None,
                    weight_col: str | None = None) -> tuple[Any, int]:
    """The needed columns, checked (names, types, no missing value, labels 0/1, weights
    finite and non-negative, not empty), and the number of rows. With ``groups`` (a list to
    fill), the same pass also counts each group's rows and positives: ``(group, rows,
    positives)`` are appended."""
    engines.check_columns(df.columns, {"score_col": score_col, "label_col": label_col,
                                       "order_col": order_col, "group_col": group_col,
                                       "weight_col": weight_col})
    columns = [score_col, label_col] + [c for c in (order_col, group_col, weight_col) if c]
    table = df[columns]
    for column, name in ((score_col, "score"), (weight_col, "weight")):
        if column and table.dtypes[column].kind not in "fiu":
            raise TypeError(f"{name} column {column!r} must be numeric, got dtype "
                            f"{table.dtypes[column]}")
    label_kind = table.dtypes[label_col].kind
    if label_kind not in "biuf":
        raise TypeError(f"label column {label_col!r} must hold booleans or 0/1, got dtype "
                        f"{table.dtypes[label_col]}")
    # One pass for every data check (before any evaluation job).
    checks = {"rows": table[score_col].size,
              "score": table[score_col].isna().sum(),
              "label": table[label_col].isna().sum()}
    if label_kind != "b":
        checks["bad_label"] = (~table[label_col].isin([0, 1])).sum()
    if order_col:
        checks["order"] = table[order_col].isna().sum()
    if group_col:
        checks["group"] = table[group_col].isna().sum()
    if weight_col:
        weight = table[weight_col]
        checks["weight"] = weight.isna().sum()
        checks["bad_weight"] = ((weight < 0) | (weight == np.inf)).sum()
    if groups is not None:
        checks["sizes"] = table.groupby(group_col)[label_col].agg(["count", "sum"])
    found = dict(zip(checks, compute(*checks.values()), strict=True))
    engines.check_found(found, score_col, label_col, order_col, group_col)
    if weight_col:
        engines.check_weights_found(found, weight_col)
    if groups is not None:
        sizes = found["sizes"]
        groups.extend(zip(sizes.index.tolist(), sizes["count"].tolist(), sizes["sum"].tolist(),
                          strict=True))
    return table, int(found["rows"])


def _sample_bounds(table: Any, rows: int, o: engines.ScoredTableOptions) -> np.ndarray:
    """The bucket bounds, from about ``o.sample_size`` of the checked table's scores."""
    count = engines.bucket_count(o.buckets, rows, table.npartitions)
    fraction = min(1.0, o.sample_size / rows)
    sample = table[o.score_col].sample(frac=fraction, random_state=o.seed).compute()
    return range_bounds(sample.to_numpy(dtype=np.float64), count)


def _arrays(frame: Any, score_col: str, label_col: str) -> tuple[np.ndarray, np.ndarray]:
    return (frame[score_col].to_numpy(dtype=np.float64),
            engines.labels_of(frame[label_col].to_numpy(), label_col))


def _totals(frame: Any, score_col: str, label_col: str, bounds: np.ndarray) -> np.ndarray:
    scores, labels = _arrays(frame, score_col, label_col)
    return engines.scored_totals(scores, labels, bounds)


def _with_bucket(frame: Any, score_col: str, bounds: np.ndarray) -> Any:
    return frame.assign(**{_BUCKET: bucket_ids(frame[score_col].to_numpy(dtype=np.float64),
                                               bounds)})


def _parts(frame: Any, score_col: str, label_col: str, order_col: str | None,
           layout: Layout) -> list[tuple[BucketPart, BucketPoints]]:
    scores, labels = _arrays(frame, score_col, label_col)
    order = frame[order_col].to_numpy() if order_col else None
    return engines.scored_parts(frame[_BUCKET].to_numpy(dtype=np.int64), scores, labels,
                                layout, order)


def evaluate_table(df: Any, o: engines.ScoredTableOptions) -> PartitionedReport:
    """Evaluate a Dask DataFrame of scored cases exactly; see the module text.

    :func:`rankeval.dask.evaluate` (the engines' one ``evaluate``) checks the arguments into
    ``o`` and calls this for a Dask DataFrame. ``buckets`` defaults to twice the partitions,
    and at least one per 1,000,000 rows (the driver reads one bucket's points at a time).

    Raises what :func:`rankeval.adapters.common.evaluate` documents.
    """
    score_col, label_col, order_col = o.score_col, o.label_col, o.order_col
    table, rows = _scored_columns(df, score_col, label_col, order_col)
    bounds = _sample_bounds(table, rows, o)
    per_task = compute(*[delayed(_totals)(chunk, score_col, label_col, bounds)
                              for chunk in table.to_delayed()])
    layout = Layout(np.sum(per_task, axis=0), o.ties, o.misses, o.negative_misses, o.request)
    bucketed = table.map_partitions(_with_bucket, score_col, bounds)
    grouped = bucketed.shuffle(on=_BUCKET, npartitions=bounds.shape[0] + 1)
    tasks = [delayed(_parts)(chunk, score_col, label_col, order_col, layout)
             for chunk in grouped.to_delayed()]
    if engines.points_fit(engines.points_bound(layout)):
        return engines.assemble_pairs(layout, [pair for chunk in compute(*tasks)
                                               for pair in chunk])
    found = persist(*tasks)
    # The small parts now; each bucket's points later, one bucket at a time, in order.
    small = compute(*[delayed(_small)(chunk) for chunk in found])
    where = {part.bucket: i for i, chunk in enumerate(small) for part in chunk}

    def points() -> Iterator[BucketPoints]:
        for bucket in sorted(where):
            yield compute(delayed(_points_of)(found[where[bucket]], bucket))[0]

    return assemble(layout, [part for chunk in small for part in chunk], points())


def _weighted_arrays(frame: Any, o: engines.ScoredTableOptions
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A partition's scores, labels, weights and group indices (0 without groups)."""
    assert o.weight_col is not None
    scores, labels = _arrays(frame, o.score_col, o.label_col)
    index = (frame[_GROUP].to_numpy(dtype=np.int64) if o.group_col
             else np.zeros(scores.shape[0], dtype=np.int64))
    return scores, labels, frame[o.weight_col].to_numpy(dtype=np.float64), index


def _weighted_counts(frame: Any, o: engines.ScoredTableOptions, bounds: np.ndarray,
                     groups: int) -> np.ndarray:
    scores, _, weights, index = _weighted_arrays(frame, o)
    return engines.weighted_counts(index, scores, weights, bounds, groups)


def _weighted_step(frame: Any, o: engines.ScoredTableOptions, offsets: np.ndarray,
                   buckets: int, starts: dict[int, SumStart] | None) -> list[Any]:
    """Step 1 (``starts`` None) or 3 of :mod:`rankeval.scored.weighted_parts` for the
    (group, bucket)s one partition holds."""
    scores, labels, weights, index = _weighted_arrays(frame, o)
    ids = index * buckets + frame[_BUCKET].to_numpy(dtype=np.int64)
    if starts is None:
        return engines.weighted_shares(ids, scores, labels, weights, offsets)
    return engines.weighted_points(ids, scores, labels, weights, offsets, starts)


def evaluate_weighted(df: Any, o: engines.ScoredTableOptions
                      ) -> WeightedReport | SegmentReports:
    """Evaluate a Dask DataFrame of weighted cases (``o.weight_col``) exactly, one report a
    group with ``o.group_col``: the three steps of :mod:`rankeval.scored.weighted_parts`
    after the checks (which count the groups), the bounds (shared by the groups) and the
    count of each (group, bucket)'s cases; a shuffle puts each (group, bucket) in one
    partition, kept in memory for steps 1 and 3.

    Raises what :func:`rankeval.adapters.common.evaluate` documents.
    """
    assert o.weight_col is not None
    counted: list[Any] = []
    table, rows = _scored_columns(df, o.score_col, o.label_col, None, o.group_col,
                                  counted if o.group_col else None, weight_col=o.weight_col)
    groups = engines.group_order(g for g, _, _ in counted) if o.group_col else [None]
    kept = table[table[o.weight_col] > 0]
    bounds = _sample_bounds(kept, rows, o)
    buckets = int(bounds.shape[0]) + 1
    if o.group_col:
        kept = kept.map_partitions(_with_group, o.group_col, groups)
    counts = np.sum(compute(*[delayed(_weighted_counts)(chunk, o, bounds, len(groups))
                              for chunk in kept.to_delayed()]), axis=0)
    offsets = engines.weighted_offsets(counts)
    bucketed = kept.map_partitions(_with_bucket, o.score_col, bounds)
    on = [_GROUP, _BUCKET] if o.group_col else _BUCKET
    (shuffled,) = persist(bucketed.shuffle(on=on, npartitions=buckets))
    chunks = shuffled.to_delayed()
    shares = compute(*[delayed(_weighted_step)(chunk, o, offsets, buckets, None)
                       for chunk in chunks])
    starts = engines.weighted_starts((share for chunk in shares for share in chunk), buckets)
    found = compute(*[delayed(_weighted_step)(chunk, o, offsets, buckets, starts)
                      for chunk in chunks])
    reports = engines.weighted_reports((pair for chunk in found for pair in chunk), buckets,
                                       len(groups), o)
    if o.group_col:
        return SegmentReports(dict(zip(groups, reports, strict=True)))
    return reports[0]


def evaluate_groups(df: Any, o: engines.ScoredTableOptions) -> SegmentReports:
    """:func:`evaluate_table` with ``o.group_col``: every group's report (see
    :func:`rankeval.adapters.common.evaluate`).

    When ``buckets`` is not given and every group has at most 1,000,000 rows, the table is
    shuffled by group and each task ranks whole groups into finished reports. Otherwise tasks
    count each partition's cases per (group, bucket); the driver adds them into each
    group's layout; the table is shuffled on (group, bucket) and each task ranks the
    (group, bucket)s it holds. The driver collects the points when every group's fit, else
    reads them one (group, bucket) at a time, in order.
    """
    group_col = o.group_col
    assert group_col is not None
    counted: list[Any] = []
    table, rows = _scored_columns(df, o.score_col, o.label_col, o.order_col, group_col,
                                  counted if o.buckets is None else None)
    if counted and max(int(n) for _, n, _ in counted) <= engines.CASES_PER_BUCKET:
        # Every group one bucket: tasks rank whole groups and return finished reports.
        groups, layouts = engines.group_layouts(
            ((g, 0, int(n) - int(p), int(p)) for g, n, p in counted), 1, o)
        shuffled = table.map_partitions(_with_group, group_col, groups).shuffle(
            on=_GROUP, npartitions=table.npartitions)
        found = compute(*[delayed(_whole_groups)(chunk, o, layouts)
                          for chunk in shuffled.to_delayed()])
        return SegmentReports(engines.whole_group_reports(groups, found))
    bounds = _sample_bounds(table, rows, o)
    buckets = int(bounds.shape[0]) + 1
    per_task = compute(*[delayed(_group_totals)(chunk, o, bounds)
                         for chunk in table.to_delayed()])
    groups, layouts = engines.group_layouts((row for rows_ in per_task for row in rows_),
                                            buckets, o)
    bucketed = table.map_partitions(_with_bucket, o.score_col, bounds).map_partitions(
        _with_group, group_col, groups)
    shuffled = bucketed.shuffle(on=[_GROUP, _BUCKET], npartitions=buckets)
    tasks = [delayed(_group_parts)(chunk, o, layouts) for chunk in shuffled.to_delayed()]
    if engines.points_fit(engines.groups_points_bound(layouts)):
        return engines.assemble_group_triples(groups, layouts, [
            triple for chunk in compute(*tasks) for triple in chunk])
    found = persist(*tasks)
    small = compute(*[delayed(_group_small)(chunk) for chunk in found])
    where = {(g, part.bucket): i for i, chunk in enumerate(small) for g, part in chunk}

    def points() -> Iterator[tuple[int, BucketPoints]]:
        for key in sorted(where):
            yield key[0], compute(delayed(_group_points_of)(found[where[key]], key))[0]

    return engines.assemble_groups(groups, layouts, [pair for chunk in small for pair in chunk],
                                   points())


def _group_totals(frame: Any, o: engines.ScoredTableOptions, bounds: np.ndarray
                  ) -> list[tuple[Any, int, int, int]]:
    """``(group, bucket, negatives, positives)`` of one partition's cases."""
    import pandas as pd

    scores, labels = _arrays(frame, o.score_col, o.label_col)
    codes, uniques = pd.factorize(frame[o.group_col], sort=False)
    values = list(uniques.tolist())  # Python values, not NumPy scalars
    buckets = bounds.shape[0] + 1
    counts = np.bincount((codes * buckets + bucket_ids(scores, bounds)) * 2 + labels,
                         minlength=2 * buckets * len(values)).reshape(-1, buckets, 2)
    held = np.argwhere(counts.sum(axis=2))
    return [(values[g], int(b), int(counts[g, b, 0]), int(counts[g, b, 1])) for g, b in held]


def _with_group(frame: Any, group_col: str, groups: list[Any]) -> Any:
    """The partition with each row's group index (into the sorted ``groups``) in ``_GROUP``.

    The shuffles move rows by this index, never by the group values: Dask hashes object
    values by their text and type, so values Python holds equal (``1``, ``True`` and ``1.0``;
    ``Decimal("1.10")`` and ``Decimal("1.1")``), which the checking job counted as one group,
    could go to different tasks, each with part of the group. A value no group holds is -1,
    which the tasks refuse. The group values themselves are dropped."""
    import pandas as pd

    index = pd.Index(groups, dtype=object).get_indexer(
        frame[group_col].astype(object)).astype(np.int64)
    # The values stay behind: the shuffle moves Arrow tables, which cannot hold a column of
    # mixed types, and the tasks need the index alone.
    return frame.drop(columns=[group_col]).assign(**{_GROUP: index})


def _group_columns(frame: Any, o: engines.ScoredTableOptions
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """A task's group indices (into the sorted groups), scores, labels and orders."""
    scores, labels = _arrays(frame, o.score_col, o.label_col)
    order = frame[o.order_col].to_numpy() if o.order_col else None
    return frame[_GROUP].to_numpy(dtype=np.int64), scores, labels, order


def _group_parts(frame: Any, o: engines.ScoredTableOptions,
                 layouts: list[Layout]) -> list[tuple[int, BucketPart, BucketPoints]]:
    index, scores, labels, order = _group_columns(frame, o)
    return engines.group_parts(index, frame[_BUCKET].to_numpy(dtype=np.int64), scores, labels,
                               layouts, order)


def _whole_groups(frame: Any, o: engines.ScoredTableOptions,
                  layouts: list[Layout]) -> list[tuple[int, PartitionedReport]]:
    index, scores, labels, order = _group_columns(frame, o)
    return engines.group_reports(index, scores, labels, layouts, order)


def _group_small(found: list[tuple[int, BucketPart, BucketPoints]]
                 ) -> list[tuple[int, BucketPart]]:
    return [(g, part) for g, part, _ in found]


def _group_points_of(found: list[tuple[int, BucketPart, BucketPoints]],
                     key: tuple[int, int]) -> BucketPoints:
    return next(points for g, part, points in found if (g, part.bucket) == key)


def _small(found: list[tuple[BucketPart, BucketPoints]]) -> list[BucketPart]:
    return [part for part, _ in found]


def _points_of(found: list[tuple[BucketPart, BucketPoints]], bucket: int) -> BucketPoints:
    return next(points for part, points in found if part.bucket == bucket)


def collect_table(df: Any, score_col: str, label_col: str, policy: TiePolicy,
                  order_col: str | None, weight_col: str | None
                  ) -> ScoredPrecisionRecallEvaluation:
    """Every row in a local evaluator (rows in ``order_col`` order for ``ties="insertion"``;
    with ``weight_col``, each with its weight).

    Its memory is the evaluator's (about 24 bytes a row): for tables up to ~10^8 rows.
    """
    table = _scored_columns(df, score_col, label_col, order_col,
                            weight_col=weight_col)[0].compute()
    if order_col:
        table = table.sort_values(order_col, kind="stable")
    scores, labels = _arrays(table, score_col, label_col)
    ev = ScoredPrecisionRecallEvaluation(ties=policy)
    if weight_col:
        ev.add_cases(labels, scores, weights=table[weight_col].to_numpy(dtype=np.float64))
    else:
        ev.add_cases(labels, scores)
    return ev


def _run_columns(df: Any, wanted: dict[str, str]) -> Any:
    engines.check_columns(df.columns, wanted)
    table = df[list(wanted.values())]
    engines.check_missing(wanted, compute(*[table[c].isna().sum() for c in wanted.values()]))
    return table


def _batch(qrels: Any, run: Any, names: tuple[str, ...], measures: Any, runid: str,
           options: dict[str, Any]) -> RunReport | None:
    query, doc, rel, score = names

    def columns(frame: Any, value: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (frame[query].to_numpy(dtype=str), frame[doc].to_numpy(dtype=str),
                frame[value].to_numpy())

    return engines.run_batch(columns(qrels, rel), columns(run, score), measures, runid,
                             options)


def evaluate_run_table(qrels_df: Any, run_df: Any, measures: str | Sequence[str], *,
                       query_col: str, doc_col: str, score_col: str, rel_col: str, runid: str,
                       batches: int | None, options: dict[str, Any]) -> RunReport:
    """:func:`rankeval.evaluate_run` over Dask DataFrames: qrels first, the same measures.

    Rows are grouped by query into ``batches`` (default: the run's partitions) and each
    batch is evaluated by the local function in one task; the driver merges the per-query
    values (:func:`rankeval.ranking.evaluate.merge_evaluations`). ``options`` are
    :func:`rankeval.evaluate_run`'s. ir_measures names average in the run's order, the
    order in which the run table first lists each query.
    """
    qrels = _run_columns(qrels_df, {"query_col": query_col, "doc_col": doc_col,
                                    "rel_col": rel_col})
    run = _run_columns(run_df, {"query_col": query_col, "doc_col": doc_col,
                                "score_col": score_col})
    count = engines.bucket_count(batches, 0, (run.npartitions + 1) // 2, "batches")
    # The same query must meet its judgments: both sides hash the query id as a string.
    qrels = qrels.assign(**{query_col: qrels[query_col].astype(str)})
    run = run.assign(**{query_col: run[query_col].astype(str)})
    specs = [measures] if isinstance(measures, str) else list(measures)
    order = None
    if any(is_ir_name(spec) for spec in specs):
        chunks = compute(*[delayed(lambda f: f[query_col].unique().tolist())(chunk)
                                for chunk in run.to_delayed()])
        order = engines.first_seen(chunks)
    names = (query_col, doc_col, rel_col, score_col)
    qrels_groups = qrels.shuffle(on=query_col, npartitions=count).to_delayed()
    run_groups = run.shuffle(on=query_col, npartitions=count).to_delayed()
    parts = compute(*[delayed(_batch)(q, r, names, measures, runid, options)
                           for q, r in zip(qrels_groups, run_groups, strict=True)])
    return merge_evaluations([part for part in parts if part is not None], order)
