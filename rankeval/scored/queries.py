"""Many queries of scored cases, one evaluator each: feeding them and averaging over them.

``rankeval scored`` reads a file of scored cases with a query column into one
:class:`~rankeval.ScoredPrecisionRecallEvaluation` per query through :class:`QueryFeeder`
and reports :func:`summarize_queries`; both are library code, usable without the command
line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankeval.case_files import DEFAULT_CHUNK_ROWS, Cases
from rankeval.checks import check_choice
from rankeval.formulas import NO_RELEVANT, NoRelevant, mean_over_queries

if TYPE_CHECKING:
    from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation

__all__ = ["Mean", "QueryFeeder", "QuerySummary", "summarize_queries"]


@dataclass(frozen=True)
class Mean:
    """A mean over queries and how many queries it covers (NaN when it covers none)."""

    value: float
    num_queries: int


@dataclass(frozen=True)
class QuerySummary:
    """Means over the queries of a multi-query file, under one :data:`NoRelevant` rule.

    ``no_relevant="zero"`` (trec_eval's rule, the default everywhere): a query without
    positives scores 0 on average precision, reciprocal rank and R-precision and counts in
    their means. ``"skip"``: it is left out of them. The ROC area is undefined for a query
    that lacks positives or negatives; its mean covers the queries where it is defined.
    """

    num_queries: int
    num_without_positives: int
    no_relevant: NoRelevant
    mean_average_precision: Mean
    mean_reciprocal_rank: Mean
    mean_r_precision: Mean
    mean_area_under_roc_curve: Mean


def summarize_queries(
    evaluations: Mapping[str, ScoredPrecisionRecallEvaluation], no_relevant: NoRelevant = "zero"
) -> QuerySummary:
    """Mean AP, reciprocal rank, R-precision and ROC area over queries, as evaluate_run averages.

    Queries are summed in trec_eval's order (query ids sorted byte-wise), so with distinct
    scores the means equal :func:`rankeval.evaluate_run`'s ``map``, ``recip_rank`` and
    ``Rprec`` for the same cases bit for bit.

    Undefined when: no query is evaluated (every mean is NaN over 0 queries).

    Complexity: O(sum of the per-query evaluation costs).

    Examples
    --------
    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> a, b, c = (ScoredPrecisionRecallEvaluation() for _ in range(3))
    >>> a.add_cases([False, True], [2.0, 1.0])  # RR 1/2
    >>> b.add_cases([True, False], [2.0, 1.0])  # RR 1
    >>> c.add_cases([False], [1.0])  # no positive: scores 0, or is left out
    >>> summarize_queries({"a": a, "b": b, "c": c}).mean_reciprocal_rank
    Mean(value=0.5, num_queries=3)
    >>> summarize_queries({"a": a, "b": b, "c": c}, "skip").mean_reciprocal_rank
    Mean(value=0.75, num_queries=2)
    """
    check_choice(no_relevant, "no_relevant", NO_RELEVANT)
    ordered = [evaluations[q] for q in sorted(evaluations, key=lambda q: q.encode())]
    judged = [ev for ev in ordered if ev.num_positive_ref() > 0]
    evaluated = ordered if no_relevant == "zero" else judged

    def mean(read: Callable[[ScoredPrecisionRecallEvaluation], float]) -> Mean:
        values = [read(ev) if ev.num_positive_ref() > 0 else 0.0 for ev in evaluated]
        return Mean(mean_over_queries(values, len(values)), len(values))

    areas = [ev.area_under_roc_curve(False) for ev in judged if ev.num_negative_ref() > 0]
    return QuerySummary(
        num_queries=len(evaluations),
        num_without_positives=len(evaluations) - len(judged),
        no_relevant=no_relevant,
        mean_average_precision=mean(lambda ev: ev.average_precision()),
        mean_reciprocal_rank=mean(lambda ev: ev.reciprocal_rank()),
        mean_r_precision=mean(lambda ev: ev.r_precision()),
        mean_area_under_roc_curve=Mean(mean_over_queries(areas, len(areas)), len(areas)),
    )


class QueryFeeder:
    """Hands a reader's chunks (:class:`rankeval.case_files.Cases`, each of one query) to one
    evaluator per query, in geometrically growing batches.

    ``add_cases`` merges a batch into everything added before, so feeding a fixed-size
    chunk at a time would cost O(n) per chunk, O(n^2 / chunk) in all. Holding back up to
    an eighth of what a query already has keeps the total cost O(n log n) while the held
    rows (9 bytes each) stay a small fraction of the evaluator's own arrays.
    """

    def __init__(self, make: Callable[[], ScoredPrecisionRecallEvaluation],
                 chunk_rows: int = DEFAULT_CHUNK_ROWS) -> None:
        self._chunk_rows = chunk_rows
        self.evaluations: dict[str | None, ScoredPrecisionRecallEvaluation] = {}
        self._make = make
        self._pending: dict[str | None, list[Cases]] = {}
        self._pending_rows: dict[str | None, int] = {}
        self._added: dict[str | None, int] = {}
        self._total_pending = 0
        self._total_added = 0

    def add(self, cases: Cases) -> None:
        query = cases.query
        if query not in self.evaluations:
            self.evaluations[query] = self._make()
            self._pending[query], self._pending_rows[query], self._added[query] = [], 0, 0
        self._pending[query].append(cases)
        self._pending_rows[query] += len(cases.labels)
        self._total_pending += len(cases.labels)
        if self._pending_rows[query] >= max(self._chunk_rows, self._added[query] // 8):
            self._flush(query)
        if self._total_pending >= max(4 * self._chunk_rows, self._total_added // 8):
            self.finish()

    def _flush(self, query: str | None) -> None:
        batches = self._pending[query]
        if not batches:
            return
        if len(batches) == 1:
            labels, scores = batches[0].labels, batches[0].scores
        else:
            labels = np.concatenate([batch.labels for batch in batches])
            scores = np.concatenate([batch.scores for batch in batches])
        batches.clear()
        self.evaluations[query].add_cases(labels, scores)
        rows = self._pending_rows[query]
        self._pending_rows[query] = 0
        self._added[query] += rows
        self._total_pending -= rows
        self._total_added += rows

    def finish(self) -> None:
        for query in self._pending:
            self._flush(query)
