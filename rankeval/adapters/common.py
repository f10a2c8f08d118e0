"""What :mod:`rankeval.spark` and :mod:`rankeval.dask` share: checks, and the work of one task.

An engine adapter only moves columns: it checks the table here before any job runs, sends
each task's NumPy columns to :func:`scored_totals`, :func:`scored_parts` or
:func:`run_batch`, and gives the driver's results to
:func:`rankeval.scored.partitioned.assemble` or
:func:`rankeval.ranking.evaluate.merge_evaluations`. The formulas are the local ones.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Protocol,
    TypedDict,
    cast,
    overload,
    runtime_checkable,
)

import numpy as np
from numpy.typing import NDArray

from rankeval._deprecation import deprecated
from rankeval.checks import betas_of, check_choice, check_int
from rankeval.formulas import PRECISION_AT_RANKS, TIE_POLICIES, TiePolicy
from rankeval.points import BoolArray, FloatArray, IntArray
from rankeval.ranking import evaluate as local
from rankeval.ranking.evaluate import RunReport, check_query_weights, evaluate_part
from rankeval.ranking.inputs import Qrels, Run
from rankeval.scored.decisions import Asks, asks_of
from rankeval.scored.partitioned import (
    BucketPart,
    BucketPoints,
    Layout,
    PartitionedReport,
    Request,
    assemble,
    bucket_ids,
    bucket_part,
    bucket_part_from_counts,
    bucket_totals,
)
from rankeval.scored.segments import SegmentReports
from rankeval.scored.sorting import id_order, run_starts
from rankeval.scored.weighted_parts import (
    SumShare,
    SumStart,
    WeightedReport,
    bucket_points,
    sorted_bucket,
    sum_share,
    sum_starts,
)
from rankeval.scored.weighted_parts import assemble as weighted_assemble

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "SAMPLE_SIZE",
    "Engine",
    "ScoredTableOptions",
    "assemble_group_triples",
    "assemble_groups",
    "assemble_pairs",
    "bucket_count",
    "bucket_rows",
    "bucket_runs",
    "check_columns",
    "check_found",
    "check_misses",
    "check_missing",
    "check_order",
    "check_run_options",
    "check_weight_policy",
    "check_weights_found",
    "collect_evaluator",
    "evaluate",
    "evaluate_run",
    "first_seen",
    "group_layout",
    "group_layouts",
    "group_order",
    "group_parts",
    "group_reports",
    "groups_points_bound",
    "labels_of",
    "points_bound",
    "points_fit",
    "report_from_counts",
    "reports_once",
    "request_of",
    "run_batch",
    "scored_parts",
    "scored_parts_from_counts",
    "scored_totals",
    "scores_fit",
    "weighted_counts",
    "weighted_offsets",
    "weighted_points",
    "weighted_reports",
    "weighted_shares",
    "weighted_starts",
]

_INSERTION_NEEDS_ORDER = (
    'ties="insertion" ranks tied scores in arrival order, and a table has none (the same '
    "partitions merged in different orders give different values): pass order_col=, the "
    'column that gives the arrival order, or use ties="grouped"'
)


def check_columns(present: Iterable[str], wanted: Mapping[str, str | None]) -> None:
    """Every wanted column (``{argument: column}``) exists, named in the error if not."""
    have = list(present)
    for argument, column in wanted.items():
        if column is None:
            continue
        if not isinstance(column, str):
            raise TypeError(f"{argument} must be a column name (str), got "
                            f"{type(column).__name__} {column!r}")
        if column not in have:
            raise ValueError(f"{argument}={column!r}: no such column; the table has "
                             f"{', '.join(map(repr, have))}")


def check_found(found: Mapping[str, Any], score_col: str, label_col: str,
                order_col: str | None, group_col: str | None = None) -> None:
    """Refuse what an engine's checking pass found in a scored table: no row, missing
    values (counts under ``score``, ``label``, ``order``), labels other than 0/1
    (``bad_label``). Each message names the column."""
    if not found["rows"]:
        raise ValueError("the table has no rows: there is nothing to evaluate")
    for argument, column in (("score", score_col), ("label", label_col), ("order", order_col),
                             ("group", group_col)):
        if found.get(argument):
            raise ValueError(f"{argument} column {column!r} holds {found[argument]} missing "
                             "values (null or NaN)")
    if found.get("bad_label"):
        raise ValueError(f"label column {label_col!r} must hold booleans or 0/1, found "
                         f"{found['bad_label']} other values")


def check_missing(wanted: Mapping[str, str], counts: Iterable[int]) -> None:
    """Refuse a run or qrels column with missing values (``counts`` in ``wanted``'s order)."""
    for (argument, column), count in zip(wanted.items(), counts, strict=True):
        if count:
            raise ValueError(f"{argument}={column!r} holds {count} missing values (null or NaN)")


def check_order(ties: object, order_col: str | None) -> TiePolicy:
    """The tie policy, refusing ``"insertion"`` without an order column (and the reverse)."""
    policy = check_choice(ties, "ties", TIE_POLICIES)
    if policy == "insertion" and order_col is None:
        raise ValueError(_INSERTION_NEEDS_ORDER)
    if policy == "grouped" and order_col is not None:
        raise ValueError('order_col orders tied scores under ties="insertion"; '
                         'ties="grouped" ignores any order, so leave order_col out')
    return policy


def check_misses(misses: object, negative_misses: object) -> tuple[int, int]:
    """The miss counts of ``add_misses`` and ``add_negative_misses``."""
    return (check_int(misses, "misses", minimum=0),
            check_int(negative_misses, "negative_misses", minimum=0))


#: Scores sampled for the bucket bounds, by every engine: about 100 a bucket at one bucket a
#: million rows up to 10**9 rows, so that buckets stay within about 10 % of their share.
SAMPLE_SIZE: Final = 100_000


@dataclass(frozen=True)
class ScoredTableOptions:
    """How an engine evaluates a table of scored cases: the one set of arguments (and
    defaults) of ``rankeval.spark.evaluate`` and ``rankeval.dask.evaluate``, checked once on
    the driver, before any job runs, and passed down whole.

    ``ties="insertion"`` needs ``order_col`` (the arrival order of the rows); ``buckets``
    (default: twice the engine's parallelism, and at least one per 1,000,000 rows) sets the
    parallelism of the ranking step; ``precision_at``, ``beta`` and ``curve_points`` say
    which precisions at k and maximum F measures to compute and how many points the
    downsampled curves keep; ``misses`` and ``negative_misses`` are those of ``add_misses``
    and ``add_negative_misses``; about ``sample_size`` scores, drawn with ``seed``, set the
    bucket bounds; ``group_col`` asks for one report per value of that column;
    ``decisions`` names the decision reads beyond the KS statistic (best thresholds,
    constrained points, partial areas, lift, the gains table, the hull: read names,
    ``(name, {argument: value})`` pairs or :func:`rankeval.scored.decisions.ask`'s);
    ``weight_col`` names a column of case weights (finite, non-negative; grouped ties): the
    result is then a :class:`~rankeval.scored.weighted_parts.WeightedReport`.

    >>> ScoredTableOptions(ties="insertion", order_col="t").request.curve_points
    1000
    >>> ScoredTableOptions(misses=-1)
    Traceback (most recent call last):
    ...
    ValueError: misses must be an integer >= 0, got -1
    """

    score_col: str = "score"
    label_col: str = "label"
    ties: TiePolicy = "grouped"
    order_col: str | None = None
    buckets: int | None = None
    precision_at: Sequence[int] = PRECISION_AT_RANKS
    beta: float | Sequence[float] = 1.0
    curve_points: int = 1000
    misses: int = 0
    negative_misses: int = 0
    sample_size: int = SAMPLE_SIZE
    seed: int = 0
    group_col: str | None = None
    decisions: Asks = ()
    weight_col: str | None = None

    def __post_init__(self) -> None:
        for name in ("score_col", "label_col"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a column name (str), got "
                                f"{type(getattr(self, name)).__name__}")
        for name in ("group_col", "weight_col"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a column name (str), got "
                                f"{type(getattr(self, name)).__name__}")
        set_ = object.__setattr__
        set_(self, "ties", check_order(self.ties, self.order_col))
        check_weight_policy(self.weight_col, self.ties)
        misses, negative = check_misses(self.misses, self.negative_misses)
        set_(self, "misses", misses)
        set_(self, "negative_misses", negative)
        if self.group_col is not None and (misses or negative):
            raise ValueError("misses and negative_misses belong to one evaluator, not to "
                             "every group: leave them out with group_col=")
        if self.buckets is not None:
            set_(self, "buckets", check_int(self.buckets, "buckets", minimum=1))
        set_(self, "sample_size", check_int(self.sample_size, "sample_size", minimum=1))
        set_(self, "seed", check_int(self.seed, "seed", minimum=0))
        set_(self, "request", request_of(self.precision_at, self.beta, self.curve_points,
                                         self.decisions))

    #: The values to compute (set when checked).
    request: Request = field(init=False, default=Request(), compare=False)


#: Cases per bucket when the number of buckets is left to the engine: the driver reads one
#: bucket's compressed points at a time, so this bounds its memory whatever the row count.
CASES_PER_BUCKET: Final = 1_000_000


#: Compressed points the driver may hold at once (24 bytes each): below this, one job
#: collects every bucket's points; above, they are read one bucket at a time.
DRIVER_POINTS: Final = 500_000


#: Distinct scores the driver ranks itself from their counts, without any task.
DRIVER_SCORES: Final = 100_000


def scores_fit(distinct: int) -> bool:
    """Whether ``distinct`` scores are few enough for the driver to rank."""
    return distinct <= DRIVER_SCORES


def report_from_counts(scores: FloatArray, positives: IntArray, negatives: IntArray,
                       pos_missed: int, neg_missed: int, request: Request) -> PartitionedReport:
    """The report of cases given as counts per score, ranked on the driver as one bucket.

    The same functions as every bucket of a partitioned evaluation, so the same bits.
    """
    totals = np.array([[int(negatives.sum()), int(positives.sum())]], dtype=np.int64)
    layout = Layout(totals, "grouped", pos_missed, neg_missed, request)
    part, points = bucket_part_from_counts(0, scores, positives, negatives, layout)
    return assemble(layout, [part], [points])


def assemble_pairs(layout: Layout, pairs: list[tuple[BucketPart, BucketPoints]]
                   ) -> PartitionedReport:
    """The report from every bucket's part and points, collected in any order."""
    pairs = sorted(pairs, key=lambda pair: pair[0].bucket)
    return assemble(layout, [part for part, _ in pairs], (points for _, points in pairs))


def points_bound(layout: Layout) -> int:
    """At most how many compressed points the buckets hold: two per positive (where the
    true positives grow, and the point before) and each bucket's last."""
    return 2 * layout.pos_added + layout.buckets


def points_fit(bound: int) -> bool:
    """Whether points numbering at most ``bound`` may be held together by the driver."""
    return bound <= DRIVER_POINTS


def bucket_count(asked: object, rows: int, parallelism: int, name: str = "buckets") -> int:
    """How many buckets (tasks) to rank in: ``asked``, else twice the engine's parallelism,
    or more when the rows need it (:data:`CASES_PER_BUCKET`)."""
    if asked is not None:
        return check_int(asked, name, minimum=1)
    return max(1, 2 * parallelism, -(-rows // CASES_PER_BUCKET))


def check_run_options(measures: str | Sequence[str], runid: object,
                      options: dict[str, Any]) -> None:
    """Refuse unknown measures or options on the driver, before any job runs.

    The local :func:`~rankeval.evaluate_run` checks them on a one-line qrels and run.
    """
    if not isinstance(runid, str):
        raise TypeError(f"runid must be a str, got {type(runid).__name__} {runid!r}")
    one = np.array(["q"])
    local.evaluate_run(Qrels.from_arrays(one, one, np.array([1])),
                       Run.from_arrays(one, one, np.array([1.0])), measures, **options)


def request_of(precision_at: Sequence[int], beta: float | Sequence[float],
               curve_points: int, decisions: Asks = ()) -> Request:
    """The :class:`~rankeval.scored.partitioned.Request` of an engine call's arguments."""
    return Request(tuple(precision_at), betas_of(beta), check_int(curve_points, "curve_points",
                                                                minimum=2),
                   asks_of(decisions))


def labels_of(values: NDArray[Any], column: str) -> BoolArray:
    """A label column as bool: booleans, or integers (or floats) that are all 0 or 1."""
    if values.dtype == np.bool_:
        return values
    if values.dtype.kind in "iuf":
        bad = (values != 0) & (values != 1)
        if bad.any():
            raise ValueError(f"label column {column!r} must hold booleans or 0/1, found "
                             f"{values[bad][0].item()!r}")
        return np.asarray(values == 1, dtype=np.bool_)
    raise TypeError(f"label column {column!r} must hold booleans or 0/1, got dtype "
                    f"{values.dtype}")


def scored_totals(scores: FloatArray, labels: BoolArray, bounds: FloatArray) -> IntArray:
    """One task's ``(buckets, 2)`` negatives and positives per bucket; the driver adds them."""
    return bucket_totals(bucket_ids(scores, bounds), labels, bounds.shape[0] + 1)


def scored_parts(ids: IntArray, scores: FloatArray, labels: BoolArray, layout: Layout,
                 order: NDArray[Any] | None = None
                 ) -> list[tuple[BucketPart, BucketPoints]]:
    """The parts of the whole buckets one task holds (its cases grouped by bucket id)."""
    return [bucket_part(bucket, scores[rows], labels[rows], layout,
                        None if order is None else order[rows])
            for bucket, rows in bucket_rows(ids)]


def scored_parts_from_counts(ids: IntArray, scores: FloatArray, positives: IntArray,
                             negatives: IntArray, layout: Layout
                             ) -> list[tuple[BucketPart, BucketPoints]]:
    """:func:`scored_parts` for rows of counts per score (a score may fill several rows)."""
    return [bucket_part_from_counts(bucket, scores[rows], positives[rows], negatives[rows],
                                    layout) for bucket, rows in bucket_rows(ids)]


def bucket_rows(ids: IntArray) -> list[tuple[int, IntArray]]:
    """Each bucket id present, with the positions of its rows."""
    by_bucket, runs = bucket_runs(ids)
    return [(bucket, by_bucket[start:end]) for bucket, start, end in runs]


def bucket_runs(ids: IntArray) -> tuple[IntArray, list[tuple[int, int, int]]]:
    """The rows in order of bucket id (stable), and each id present with its run
    ``(id, start, end)`` in that order: gather a column once, then slice it."""
    if ids.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), []
    by_bucket = id_order(ids)
    sorted_ids = ids[by_bucket]
    starts = np.flatnonzero(run_starts(sorted_ids))
    ends = np.r_[starts[1:], ids.shape[0]]
    return by_bucket, list(zip(sorted_ids[starts].tolist(), starts.tolist(), ends.tolist(),
                               strict=True))


def check_weight_policy(weight_col: str | None, policy: TiePolicy) -> None:
    """Refuse ``weight_col`` with a policy other than grouped ties: a case of weight w is w
    tied copies of it."""
    if weight_col is not None and policy != "grouped":
        raise ValueError('weight_col= needs ties="grouped": a case of weight w is w tied '
                         "copies of it")


def check_weights_found(found: Mapping[str, Any], weight_col: str) -> None:
    """Refuse a weight column holding a missing value (null, NaN) or a negative or infinite
    weight, with how many rows do."""
    for key, what in (("weight", "missing values (null or NaN)"),
                      ("bad_weight", "negative or infinite weights")):
        if found.get(key):
            raise ValueError(f"weight column {weight_col!r} holds {what} (rows: "
                             f"{found[key]}); weights must be finite and non-negative")


def weighted_counts(group_index: IntArray, scores: FloatArray, weights: FloatArray,
                    bounds: FloatArray, groups: int) -> IntArray:
    """One task's ``(groups, buckets)`` cases of positive weight; the driver adds them."""
    kept = weights > 0.0
    buckets = bounds.shape[0] + 1
    ids = group_index[kept] * buckets + bucket_ids(scores[kept], bounds)
    return np.bincount(ids, minlength=groups * buckets).reshape(groups, buckets)


def weighted_shares(ids: IntArray, scores: FloatArray, labels: BoolArray, weights: FloatArray,
                    offsets: IntArray) -> list[SumShare]:
    """Step 1 of :mod:`rankeval.scored.weighted_parts` for the whole buckets one task holds
    (``offsets``: the positions before each bucket)."""
    shares = []
    for bucket, rows in bucket_rows(ids):
        _, held_labels, held_weights = sorted_bucket(scores[rows], labels[rows], weights[rows])
        shares.append(sum_share(bucket, held_labels, held_weights, int(offsets[bucket])))
    return shares


def weighted_offsets(counts: IntArray) -> IntArray:
    """The positions before each (group, bucket) of a ``(groups, buckets)`` array of cases:
    each group is a ranking of its own. Flat, indexed by ``group * buckets + bucket``."""
    offsets = np.zeros_like(counts)
    np.cumsum(counts[:, :-1], axis=1, out=offsets[:, 1:])
    return offsets.ravel()


def weighted_starts(shares: Iterable[SumShare], buckets: int) -> dict[int, SumStart]:
    """Step 2 for every group (shares keyed ``group * buckets + bucket``)."""
    by_group: dict[int, list[SumShare]] = {}
    for share in shares:
        by_group.setdefault(share.bucket // buckets, []).append(share)
    starts: dict[int, SumStart] = {}
    for group_shares in by_group.values():
        starts.update(sum_starts(group_shares))
    return starts


def weighted_reports(pieces: Iterable[tuple[int, tuple[FloatArray, FloatArray, FloatArray]]],
                     buckets: int, groups: int, o: ScoredTableOptions) -> list[WeightedReport]:
    """Each group's report from the buckets' points (keyed ``group * buckets + bucket``)."""
    by_group: list[list[tuple[int, tuple[FloatArray, FloatArray, FloatArray]]]] = [
        [] for _ in range(groups)]
    for key, points in pieces:
        by_group[key // buckets].append((key, points))
    return [weighted_assemble(found, o.misses, o.negative_misses, o.request.curve_points)
            for found in by_group]


def weighted_points(ids: IntArray, scores: FloatArray, labels: BoolArray, weights: FloatArray,
                    offsets: IntArray, starts: Mapping[int, SumStart]
                    ) -> list[tuple[int, tuple[FloatArray, FloatArray, FloatArray]]]:
    """Step 3 for the whole buckets one task holds: each bucket's points."""
    found = []
    for bucket, rows in bucket_rows(ids):
        keys, held_labels, held_weights = sorted_bucket(scores[rows], labels[rows],
                                                        weights[rows])
        found.append((bucket, bucket_points(keys, held_labels, held_weights,
                                            int(offsets[bucket]), starts[bucket])))
    return found


def run_batch(
    qrels: tuple[NDArray[Any], NDArray[Any], NDArray[Any]],
    run: tuple[NDArray[Any], NDArray[Any], NDArray[Any]],
    measures: str | Sequence[str],
    runid: str,
    options: dict[str, Any],
) -> RunReport | None:
    """One task's queries (all rows of each query it holds), evaluated; None if it has none.

    ``qrels`` and ``run`` are ``(query, doc, rel)`` and ``(query, doc, score)`` columns.
    """
    if qrels[0].shape[0] == 0 and run[0].shape[0] == 0:
        return None
    return evaluate_part(Qrels.from_arrays(*qrels), Run.from_arrays(*run, runid=runid),
                         measures, **options)


def first_seen(chunks: Iterable[Iterable[str]]) -> list[str]:
    """Query ids in order of first appearance over chunks given in table order."""
    return list(dict.fromkeys(q for chunk in chunks for q in chunk))


# ---------------------------------------------------------------------------------------------
# one report per group: every group's cases ranked in the same global buckets
#
# The buckets are closed ranges of keys, so a group's cases in bucket b are one range of that
# group's own ranking, whole tie blocks included: each group is a partitioned evaluation of
# its own, over the same bucket bounds. Its layout comes from its totals per bucket, its parts
# from its cases in each bucket, and its report from the same assemble, bit for bit.


def group_order(groups: Iterable[Any]) -> list[Any]:
    """The groups sorted (by type name then repr when their values do not compare)."""
    found = list(groups)
    try:
        return sorted(found)
    except TypeError:
        return sorted(found, key=lambda g: (type(g).__name__, repr(g)))


def group_layouts(rows: Iterable[tuple[Any, int, int, int]], buckets: int,
                  o: ScoredTableOptions) -> tuple[list[Any], list[Layout]]:
    """The groups, sorted, and each one's layout, from rows ``(group, bucket, negatives,
    positives)`` (several rows of one group and bucket add up)."""
    totals: dict[Any, IntArray] = {}
    for group, bucket, negatives, positives in rows:
        counts = totals.get(group)
        if counts is None:
            counts = totals[group] = np.zeros((buckets, 2), dtype=np.int64)
        counts[bucket] += (negatives, positives)
    groups = group_order(totals)
    return groups, [group_layout(totals[g], o) for g in groups]


def group_layout(totals: IntArray, o: ScoredTableOptions) -> Layout:
    """One group's layout from its ``(buckets, 2)`` negatives and positives: a ranking of
    its own (the misses of ``o`` belong to one evaluator, never to a group's)."""
    return Layout(totals, o.ties, 0, 0, o.request)


def group_parts(group_index: IntArray, ids: IntArray, scores: FloatArray, labels: BoolArray,
                layouts: Sequence[Layout], order: NDArray[Any] | None = None
                ) -> list[tuple[int, BucketPart, BucketPoints]]:
    """:func:`scored_parts` of one task's cases of many groups: ``(group index, part,
    points)`` for each (group, bucket) the task holds whole."""
    buckets = layouts[0].buckets if layouts else 1
    if group_index.shape[0] and int(group_index.min()) < 0:
        raise RuntimeError("a task holds a group value the checking job did not count: the "
                           "table changed between the jobs (evaluate a stable table)")
    found = []
    by_group, runs = bucket_runs(group_index * buckets + ids)
    scores, labels = scores[by_group], labels[by_group]  # each (group, bucket) contiguous
    order = None if order is None else order[by_group]
    for composite, start, end in runs:
        group, bucket = divmod(composite, buckets)
        held = labels[start:end]
        positives = int(np.count_nonzero(held))
        expected = layouts[group].totals[bucket]
        if (held.shape[0] - positives, positives) != (int(expected[0]), int(expected[1])):
            # A task must hold each of its (group, bucket)s whole: a part would rank wrong.
            raise RuntimeError(
                f"a task holds {positives} positives and {held.shape[0] - positives} "
                f"negatives of group {group} in bucket {bucket}, where the checking job "
                f"counted {int(expected[1])} and {int(expected[0])}: the group's rows were "
                "split between tasks")
        part, points = bucket_part(bucket, scores[start:end], held, layouts[group],
                                   None if order is None else order[start:end])
        found.append((group, part, points))
    return found


def group_reports(group_index: IntArray, scores: FloatArray, labels: BoolArray,
                  layouts: Sequence[Layout], order: NDArray[Any] | None = None
                  ) -> list[tuple[int, PartitionedReport]]:
    """Each whole group's report, from one task's cases of groups that are one bucket each
    (every layout has one bucket): ``(group index, report)``."""
    return [(group, assemble(layouts[group], [part], [points]))
            for group, part, points in group_parts(group_index,
                                                   np.zeros_like(group_index), scores,
                                                   labels, layouts, order)]


def whole_group_reports(groups: Sequence[Any],
                        found: Iterable[Iterable[tuple[int, PartitionedReport]]]
                        ) -> dict[Any, PartitionedReport]:
    """Each group's report from the tasks' ``(group index, report)`` lists, checked: every
    group arrives from exactly one task (each task checked that its part holds the cases the
    checking job counted, :func:`group_parts`)."""
    reports = reports_once(found, groups.__getitem__)
    missing = [groups[i] for i in range(len(groups)) if i not in reports]
    if missing:
        raise RuntimeError(f"no task reported the group {missing[0]!r}")
    return {group: reports[index] for index, group in enumerate(groups)}


def reports_once(found: Iterable[Iterable[tuple[Any, PartitionedReport]]],
                 shown: Callable[[Any], Any] = lambda key: key
                 ) -> dict[Any, PartitionedReport]:
    """The tasks' ``(key, report)`` lists as one dict, checked: a group arriving from two
    tasks had its rows split between them (``shown`` names a key's group in the error)."""
    reports: dict[Any, PartitionedReport] = {}
    for chunk in found:
        for key, report in chunk:
            if key in reports:
                raise RuntimeError(f"group {shown(key)!r} arrived from two tasks: its rows "
                                   "were split between them")
            reports[key] = report
    return reports


def groups_points_bound(layouts: Sequence[Layout]) -> int:
    """:func:`points_bound` of every group together."""
    return sum(points_bound(layout) for layout in layouts)


def assemble_groups(groups: Sequence[Any], layouts: Sequence[Layout],
                    parts: Iterable[tuple[int, BucketPart]],
                    points: Iterable[tuple[int, BucketPoints]]) -> SegmentReports:
    """Every group's report from all parts (any order) and the points in (group index,
    bucket) order, read once: one group's points at a time."""
    by_group: list[list[BucketPart]] = [[] for _ in groups]
    for group, part in parts:
        by_group[group].append(part)
    reports: dict[Any, PartitionedReport] = {}
    stream = itertools.groupby(points, key=lambda pair: pair[0])
    for group, pairs in stream:
        reports[groups[group]] = assemble(layouts[group], by_group[group],
                                          (chunk for _, chunk in pairs))
    if len(reports) != len(groups):
        raise ValueError(f"expected the points of {len(groups)} groups, got {len(reports)}")
    return SegmentReports({g: reports[g] for g in groups})


def assemble_group_triples(groups: Sequence[Any], layouts: Sequence[Layout],
                           triples: Iterable[tuple[int, BucketPart, BucketPoints]]
                           ) -> SegmentReports:
    """:func:`assemble_groups` of every ``(group index, part, points)``, collected."""
    ordered = sorted(triples, key=lambda t: (t[0], t[1].bucket))
    return assemble_groups(groups, layouts, ((g, part) for g, part, _ in ordered),
                           ((g, points) for g, _, points in ordered))


@runtime_checkable
class Engine(Protocol):
    """What an engine adapter (a module of :mod:`rankeval.adapters`) provides: the steps
    the shared front doors (:func:`evaluate`, :func:`evaluate_run`,
    :func:`collect_evaluator`) call once their options are checked. Each receives the
    checked options; sampling bounds, the bucket layout, assembly and the group fast path
    are this module's functions, written once. ``rankeval.adapters.spark`` and
    ``rankeval.adapters.dask`` are the two; a third is a module with these five functions.
    """

    def evaluate_table(self, df: Any, options: ScoredTableOptions, /) -> PartitionedReport:
        """One exact report of the table's scored rows."""
        ...

    def evaluate_groups(self, df: Any, options: ScoredTableOptions, /) -> SegmentReports:
        """One report per value of ``options.group_col``."""
        ...

    def evaluate_weighted(self, df: Any, options: ScoredTableOptions, /
                          ) -> WeightedReport | SegmentReports:
        """The weighted report of the table's rows and ``options.weight_col`` (one a group
        with ``options.group_col``)."""
        ...

    def evaluate_run_table(self, qrels_df: Any, run_df: Any, measures: str | Sequence[str],
                           /, *, query_col: str, doc_col: str, score_col: str, rel_col: str,
                           runid: str, batches: int | None, options: dict[str, Any]
                           ) -> RunReport:
        """:func:`rankeval.evaluate_run` over the engine's tables."""
        ...

    def collect_table(self, df: Any, score_col: str, label_col: str, policy: TiePolicy,
                      order_col: str | None, weight_col: str | None, /) -> Any:
        """Every row in a local evaluator."""
        ...


# The engines' one evaluate (after every check it calls is defined).
_DEFAULT = ScoredTableOptions()


class TableKeywords(TypedDict, total=False):
    """The keywords of :func:`evaluate` shared by its three forms: :class:`ScoredTableOptions`'
    fields (the one place they are checked and defaulted), as type checkers see them;
    ``betas`` is ``beta``'s deprecated earlier name."""

    score_col: str
    label_col: str
    ties: TiePolicy
    order_col: str | None
    buckets: int | None
    precision_at: Sequence[int]
    beta: float | Sequence[float]
    curve_points: int
    misses: int
    negative_misses: int
    sample_size: int
    seed: int
    decisions: Asks
    betas: Sequence[float] | None


@overload
def evaluate(df: Any, *columns: str, group_col: None = None, weight_col: None = None,
             **options: Unpack[TableKeywords]) -> PartitionedReport: ...
@overload
def evaluate(df: Any, *columns: str, group_col: None = None, weight_col: str,
             **options: Unpack[TableKeywords]) -> WeightedReport: ...
@overload
def evaluate(df: Any, *columns: str, group_col: str, weight_col: str | None = None,
             **options: Unpack[TableKeywords]) -> SegmentReports: ...


def evaluate(df: Any, *columns: str, group_col: str | None = None,
             weight_col: str | None = None, **options: Unpack[TableKeywords]
             ) -> PartitionedReport | SegmentReports | WeightedReport:
    """Evaluate a Spark or Dask DataFrame of scored cases exactly: ``rankeval.spark.evaluate``
    and ``rankeval.dask.evaluate`` are this one function.

    The report's values equal those of a local ``ScoredPrecisionRecallEvaluation`` fed the
    same rows, bit for bit (with ``decisions=``, the decision reads asked for too). The
    arguments are :class:`ScoredTableOptions`' (checked on the
    driver before any job runs; ``betas`` is ``beta``'s deprecated earlier name); the
    DataFrame's library picks the engine (``evaluate_table`` of :mod:`rankeval.spark` or
    :mod:`rankeval.dask`, whose texts say how each runs).

    With ``group_col``, one report per value of that column (a
    :class:`~rankeval.scored.segments.SegmentReports`, groups sorted), each equal to a local
    evaluator fed that group's rows, bit for bit; no group is collected to the driver. The
    groups share the bucket bounds (a group's cases in a bucket are one range of its own
    ranking), so every task ranks a bucket of one group at a time.

    With ``weight_col``, each row weighs its column's value (finite, non-negative; a zero
    weight counts for nothing; misses weigh 1): a
    :class:`~rankeval.scored.weighted_parts.WeightedReport`, whose reads equal a local
    evaluator's fed ``add_cases(labels, scores, weights=)``, bit for bit (the sums of weights
    follow one order fixed by the ranking's positions, whatever the partitions). Its driver
    holds the operating points, 24 bytes a distinct score, as a local weighted evaluator does;
    every decision read is there without ``decisions=``. With ``group_col`` too, one such
    report a group (a :class:`~rankeval.scored.segments.SegmentReports`).

    Raises
    ------
    ValueError
        A missing column, a null or NaN value, a label other than 0/1, an empty table,
        ``ties="insertion"`` without ``order_col``, tied rows with one order value, misses
        with ``group_col``, a negative or infinite weight, or ``weight_col`` with insertion
        ties.
    TypeError
        Not a Spark or Dask DataFrame, or a column of the wrong type.
    """
    checked = _table_options(columns, group_col, weight_col, dict(options))
    engine = _engine_of(df, "evaluate")
    if weight_col is not None:
        weighted: WeightedReport | SegmentReports = engine.evaluate_weighted(df, checked)
        return weighted
    if group_col is not None:
        grouped: SegmentReports = engine.evaluate_groups(df, checked)
        return grouped
    result: PartitionedReport = engine.evaluate_table(df, checked)
    return result


def _table_options(columns: tuple[str, ...], group_col: str | None, weight_col: str | None,
                   options: dict[str, Any]) -> ScoredTableOptions:
    """:func:`evaluate`'s arguments, checked into one :class:`ScoredTableOptions`: the
    columns given by position (deprecated: score first, truth second, against the rule) moved
    to their keywords, and ``betas`` into ``beta``."""
    if len(columns) > 2:
        raise TypeError(f"evaluate() takes the DataFrame and at most two column names by "
                        f"position (deprecated), got {len(columns) + 1} positional arguments")
    given = dict(zip(("score_col", "label_col")[:len(columns)], columns, strict=True))
    for name in given.keys() & options.keys():
        raise TypeError(f"evaluate() got {name} by position and by keyword")
    if given:
        deprecated("evaluate()'s columns by position (score_col, label_col) are now "
                   "keywords: label_col=, score_col=", stacklevel=3)
        options.update(given)
    known = {item.name for item in fields(ScoredTableOptions) if item.init}
    unknown = sorted(set(options) - known - {"betas"})
    if unknown:
        raise TypeError(f"evaluate() got an unexpected keyword argument {unknown[0]!r}")
    if "betas" in options:
        options["beta"] = betas_of(options.get("beta", 1.0), options.pop("betas"))  # warns
    return ScoredTableOptions(**options, group_col=group_col, weight_col=weight_col)


def evaluate_run(
    qrels_df: Any,
    run_df: Any,
    measures: str | Sequence[str] = ("official",),
    *,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    score_col: str = "score",
    rel_col: str = "relevance",
    runid: str = "run",
    buckets: int | None = None,
    batches: int | None = None,
    query_weights: Mapping[Any, float] | None = None,
    **options: Any,
) -> RunReport:
    """:func:`rankeval.evaluate_run` over Spark or Dask DataFrames: qrels first, the same
    measures (``rankeval.spark.evaluate_run`` and ``rankeval.dask.evaluate_run`` are this one
    function; the run table's library picks the engine).

    Both tables are cut by query into ``buckets`` (default: the engine's parallelism; the
    same word as :func:`evaluate`'s, ``batches=`` is its deprecated earlier name); each
    bucket of queries is evaluated by the local function in one task, and the driver merges the
    per-query values (:func:`rankeval.ranking.evaluate.merge_evaluations`). ``options`` are
    :func:`rankeval.evaluate_run`'s, checked on the driver before any job runs. ir_measures
    names average in the run's order: the order in which the run table first lists each
    query. ``query_weights`` weighs the queries in the means, on the driver
    (:meth:`~rankeval.ranking.evaluate.RunReport.weighted`).
    """
    if batches is not None:
        if buckets is not None:
            raise ValueError("give buckets= (batches= is its deprecated earlier name), not both")
        deprecated("evaluate_run(batches=) is now buckets=, the word evaluate() uses")
        buckets = batches
    check_run_options(measures, runid, options)
    if query_weights is not None:
        check_query_weights(query_weights)
    engine = _engine_of(run_df, "evaluate_run")
    result: RunReport = engine.evaluate_run_table(
        qrels_df, run_df, measures, query_col=query_col, doc_col=doc_col,
        score_col=score_col, rel_col=rel_col, runid=runid, batches=buckets, options=options)
    return result if query_weights is None else result.weighted(query_weights)


def collect_evaluator(
    df: Any,
    score_col: str = "score",
    label_col: str = "label",
    *,
    ties: TiePolicy = "grouped",
    order_col: str | None = None,
    weight_col: str | None = None,
) -> Any:
    """Every row of a Spark or Dask DataFrame in a real, local
    :class:`~rankeval.ScoredPrecisionRecallEvaluation` (rows in ``order_col`` order for
    ``ties="insertion"``; with ``weight_col``, each row weighing that column's value, checked
    as :func:`evaluate` checks it): for tables that fit in memory (about 24 bytes a row, 32
    weighted), to be saved or merged with a live evaluator, or for the weighted bootstrap.
    ``rankeval.spark.collect_evaluator`` and ``rankeval.dask.collect_evaluator`` are this one
    function.
    """
    policy = check_order(ties, order_col)
    check_weight_policy(weight_col, policy)
    return _engine_of(df, "collect_evaluator").collect_table(df, score_col, label_col, policy,
                                                             order_col, weight_col)


def _engine_of(df: Any, function: str) -> Engine:
    """The adapter module of ``df``'s library."""
    library = type(df).__module__.partition(".")[0]
    # cast: mypy cannot check a module against a protocol across this import cycle (the
    # adapters import this module); tests/test_engines.py checks both against Engine.
    if library == "pyspark":
        from rankeval.adapters import spark

        return cast(Engine, spark)
    if library in ("dask", "dask_expr"):
        from rankeval.adapters import dask

        return cast(Engine, dask)
    raise TypeError(f"{function} takes a Spark or a Dask DataFrame, got "
                    f"{type(df).__module__}.{type(df).__name__} (a table in memory goes to "
                    "the local functions)")
