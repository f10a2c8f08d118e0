"""Many queries ranked at once: trec_eval's ``form_res_rels`` as whole-array operations.

For every evaluated query this turns the retrieved ``(docid, score)`` rows into the list of
qrels values in rank order, the only thing any trec_eval measure looks at, plus the counts of
judged documents per relevance level (retrieved or not).

Ranking rules (trec_eval 9.x unless an option says otherwise):

* sort by score descending; trec_eval 9 compares scores as C ``float`` (``score_precision=
  "float32"``), trec_eval 10 as ``double``;
* equal scores: document id **descending**, byte-wise (``strcmp``), the default
  ``ties="docid_desc"``; ``"docid_asc"`` reverses that, ``"input"`` keeps the order rows were
  given in, ``"average"`` keeps ``docid_desc`` order but records the tie blocks so measures
  that support it can average over them;
* ``max_docs`` (``-M``) truncates each ranking after the sort; ``judged_only`` (``-J``) then
  drops retrieved documents without a judgment (keeping the order).

Relevance values of ranked documents: the qrels value when judged; ``NONPOOL`` (-1) when the
document is not in the qrels; ``UNJUDGED`` (-2) when the qrels value is negative.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from rankeval import points as contract
from rankeval.ranking.join import PairIndex, as_bytes, doc_hash, sorted_distinct

__all__ = [
    "NONPOOL",
    "PAD",
    "UNJUDGED",
    "DocumentTies",
    "JudgedCounts",
    "JudgmentRows",
    "QueryBatch",
    "RankedQueries",
    "RankingRules",
    "RunRows",
    "judged_counts",
    "rank_queries",
]

IntArray = NDArray[np.int64]
# Row indices: int64, or uint32 where the rows are fewer than 2**32 (half the memory).
RowArray = NDArray[np.integer[Any]]
FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

#: Order of equal scores: trec_eval's docno descending, ascending, input order, or
#: averaged over the tie block.
DocumentTies = Literal["docid_desc", "docid_asc", "input", "average"]
ScorePrecision = Literal["float32", "double"]

NONPOOL = -1
UNJUDGED = -2
#: Relevance value of the padding cells right of a query's last retrieved document.
PAD = -(2**40)

# Padded batches hold at most this many cells (queries x longest ranking) at a time.
_BATCH_CELLS = 1 << 16
# Cells sorted, and rows joined with the qrels, at a time by the equal-length fast path (so
# that their temporaries stay in cache).
_SORT_CELLS = 1 << 16
_JOIN_ROWS = 1 << 17
# Tied rows put in docid order at a time.
_TIE_ROWS = 1 << 18


@dataclass(frozen=True)
class QueryBatch:
    """Some queries' rankings as a padded matrix (queries x ranks).

    Attributes
    ----------
    rels : ndarray of int64, shape (B, L)
        Relevance value at each rank; ``PAD`` right of ``num_ret``.
    num_ret : ndarray of int64, shape (B,)
        Documents retrieved (after truncation).
    rel_levels : ndarray of int64, shape (B, V)
        Judged documents (retrieved or not) with relevance value ``grades[v]`` in column v.
    level : int
        Relevance level: a value >= level is relevant.
    tied : ndarray of bool, shape (B, L), or None
        ``tied[b, i]``: rank i+1 has the same score as rank i+2 (only for ``ties="average"``).
    grades : ndarray of int64, shape (V,)
        The relevance values judged in the batch's queries, ascending, none negative: only
        those, so that memory never grows with a grade's size (a grade of 10**8 is one
        column, not 10**8).
    """

    rels: IntArray
    num_ret: IntArray
    rel_levels: IntArray
    level: int
    tied: BoolArray | None
    grades: IntArray
    # What several measures derive alike from the batch (the nDCG family's running sums),
    # computed once: see measures._dcg_parts.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    #: The same rankings judged against another input, by name (``"known"``: the documents
    #: the user already knew, for coverage and novelty); same shape, same queries.
    sides: dict[str, QueryBatch] = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        """Number of queries.

        >>> _example().size
        2

        Complexity: O(1).
        """
        return int(self.rels.shape[0])

    @property
    def width(self) -> int:
        """Number of rank columns (longest ranking in the batch).

        >>> _example().width
        3

        Complexity: O(1).
        """
        return int(self.rels.shape[1])

    @cached_property
    def relevant(self) -> BoolArray:
        """Relevant (value >= level) at each rank; padding never is."""
        return np.asarray(self.rels >= self.level, dtype=bool)

    @cached_property
    def _relevant_cells(self) -> tuple[IntArray, IntArray]:
        """Row and 0-based column of every relevant cell, row by row.

        Relevant documents are usually a small fraction of the ranks: measures that only
        look at them (AP, the counts in the top k) work on these lists rather than on the
        whole matrix.
        """
        flat = np.flatnonzero(self.relevant.ravel())
        rows = flat // max(self.width, 1)
        return rows, flat - rows * self.width

    @cached_property
    def tp(self) -> IntArray:
        """Cumulative relevant count at ranks 1..L (constant over padding)."""
        return self._confusion[0]

    @cached_property
    def _confusion(self) -> tuple[IntArray, IntArray]:
        """The batch's operating points, a threshold after every rank: the package's one
        contract (:func:`rankeval.points.confusion_at_thresholds`)."""
        return contract.confusion_at_thresholds(self.relevant)

    def tp_prefix(self, k: int) -> IntArray:
        """The first ``min(k, L)`` columns of :attr:`tp` (computed alone when tp is not).

        >>> _example().tp_prefix(2).tolist()
        [[0, 1], [1, 1]]

        Complexity: O(B·min(k, L)).
        """
        if "tp" in self.__dict__ or k >= self.width:
            return self.tp[:, :k]
        return contract.confusion_at_thresholds(self.relevant[:, :k])[0]

    @cached_property
    def rank(self) -> IntArray:
        """1-based rank of each column, shape (L,)."""
        return np.arange(1, self.width + 1, dtype=np.int64)

    @cached_property
    def fp(self) -> IntArray:
        """Cumulative non-relevant count (padding counts as non-relevant, as trec_eval's P)."""
        return self._confusion[1]

    @cached_property
    def num_rel(self) -> IntArray:
        """R: judged documents at or above the relevance level, retrieved or not."""
        return np.asarray(self.rel_levels[:, self.grades >= self.level].sum(axis=1),
                          dtype=np.int64)

    @cached_property
    def num_nonrel(self) -> IntArray:
        """Judged non-relevant documents (0 <= value < level), retrieved or not."""
        return np.asarray(self.rel_levels[:, self.grades < self.level].sum(axis=1),
                          dtype=np.int64)

    def column_of(self, grade: int) -> int:
        """The column of :attr:`rel_levels` counting ``grade``, or -1 if no query judges it.

        Complexity: O(log V).
        """
        at = int(np.searchsorted(self.grades, grade))
        return at if at < self.grades.shape[0] and int(self.grades[at]) == grade else -1

    def count_of(self, grade: int) -> IntArray:
        """Judged documents of ``grade`` per query (0 where none). Complexity: O(B)."""
        column = self.column_of(grade)
        if column < 0:
            return np.zeros(self.size, dtype=np.int64)
        return np.asarray(self.rel_levels[:, column], dtype=np.int64)

    @cached_property
    def num_rel_levels(self) -> IntArray:
        """trec_eval's ``num_rel_levels`` per query: its largest judged value + 1 (0 if it
        judges none)."""
        present = self.rel_levels > 0
        if not present.shape[1]:
            return np.zeros(self.size, dtype=np.int64)
        last = present.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1)
        return np.where(present.any(axis=1), self.grades[last] + 1, 0).astype(np.int64)

    @cached_property
    def num_rel_ret(self) -> IntArray:
        """Relevant documents retrieved."""
        if self.width == 0:
            return np.zeros(self.size, dtype=np.int64)
        if "tp" in self.__dict__:
            return np.asarray(self.tp[:, -1], dtype=np.int64)
        rows, _ = self._relevant_cells
        return np.bincount(rows, minlength=self.size).astype(np.int64, copy=False)

    @cached_property
    def judged_rel_ret(self) -> IntArray:
        """Judged relevant documents retrieved: trec_eval's ``num_rel_ret``.

        The same as :attr:`num_rel_ret` unless the relevance level is 0 or below. Then the
        rank-wise tests (``value >= level``) that trec_eval's P, AP, ... make also take an
        unjudged document (value ``NONPOOL``, or ``UNJUDGED`` at -2), but its
        ``num_rel_ret`` and the set measures count only judged ones (value >= 0).
        """
        if self.level > 0:
            return self.num_rel_ret
        return np.asarray((self.rels >= 0).sum(axis=1), dtype=np.int64)

    @cached_property
    def hits(self) -> tuple[IntArray, IntArray]:
        """The operating points at relevant ranks only, shape (B, H) each: (tp, rank).

        Row b lists its relevant ranks in order (tp = 1, 2, ...), padded on the right with
        its last tp (so the padding adds no precision term) and rank ``width + 1``. Sums over
        relevant ranks need only these H columns instead of all L.
        """
        counts = self.num_rel_ret
        width = int(counts.max(initial=0))
        rows, columns = self._relevant_cells
        first = np.concatenate(([0], np.cumsum(counts)))[:-1]
        column = np.arange(rows.size, dtype=np.int64) - first[rows]
        tp = np.broadcast_to(counts[:, None], (self.size, width)).copy()
        rank = np.full((self.size, width), self.width + 1, dtype=np.int64)
        cell = rows * width + column  # flat scatter: cheaper than a 2-D fancy one
        tp.ravel()[cell] = column + 1
        rank.ravel()[cell] = columns + 1
        return tp, rank

    def tp_at(self, k: IntArray | int) -> IntArray:
        """Relevant count in the top ``k`` (per query or one k), padding non-relevant; k >= 0.

        >>> _example().tp_at(2).tolist(), _example().tp_at(np.array([0, 9])).tolist()
        ([1, 1], [0, 1])

        Complexity: O(B) when :attr:`tp` is known, else O(B + relevant ranks).
        """
        ks = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.size,))
        ks = np.minimum(ks, self.width)
        if "tp" not in self.__dict__:
            # Count the relevant cells left of each row's cutoff.
            rows, columns = self._relevant_cells
            inside = np.flatnonzero(columns < ks.take(rows))
            return np.bincount(rows.take(inside),
                               minlength=self.size).astype(np.int64, copy=False)
        out = np.zeros(self.size, dtype=np.int64)
        has = ks > 0
        if has.any():
            rows = np.flatnonzero(has)
            out[rows] = self.tp[rows, ks[rows] - 1]
        return out


@dataclass(frozen=True)
class RankedQueries:
    """Every evaluated query's ranking, stored flat (CSR style).

    Queries are stored in an internal order (the run's, which saves moving a million rows
    around); ``positions`` maps them to the evaluation's order.

    Attributes
    ----------
    rels : ndarray of signed integers
        Relevance values of all queries' rankings, concatenated query after query, in the
        narrowest signed type that holds them (a batch's matrix is int64).
    offsets : ndarray of int64, shape (K+1,)
        Stored query k's ranking is ``rels[offsets[k]:offsets[k+1]]``.
    positions : ndarray of int64, shape (K,)
        Evaluated position of stored query k.
    judged : JudgedCounts
        Judged documents per relevance value of each stored query.
    level : int
        Relevance level.
    tied : ndarray of bool or None
        Flat like ``rels``: the document ties with the next one of its query.
    """

    rels: NDArray[np.signedinteger[Any]]
    offsets: IntArray
    positions: IntArray
    judged: JudgedCounts
    level: int
    tied: BoolArray | None
    #: The same rankings judged against other inputs, by name (see ``QueryBatch.sides``).
    sides: dict[str, RankedQueries] = field(default_factory=dict, compare=False)

    @property
    def size(self) -> int:
        """Number of queries.

        >>> _ranked_example().size
        2

        Complexity: O(1).
        """
        return int(self.offsets.shape[0] - 1)

    @property
    def num_ret(self) -> IntArray:
        """Retrieved documents per stored query.

        >>> _ranked_example().num_ret.tolist()
        [3, 1]

        Complexity: O(K).
        """
        return np.diff(self.offsets)

    def batches(self, max_cells: int = _BATCH_CELLS) -> Iterator[tuple[IntArray, QueryBatch]]:
        """Padded batches covering every query once: ``(evaluated positions, batch)``.

        Queries are grouped by ranking length so that padding stays small; each batch has
        at most ``max_cells`` cells unless a single query is longer than that.

        >>> [(p.tolist(), b.rels.tolist()) for p, b in _ranked_example().batches()]
        [([0, 1], [[1, -1099511627776, -1099511627776], [0, 1, -1]])]

        Complexity: O(total cells) over all batches.
        """
        lengths = self.num_ret
        q = self.size
        uniform = q > 0 and bool((lengths == lengths[0]).all())
        order = np.arange(q, dtype=np.int64) if uniform else np.argsort(lengths, kind="stable")
        ordered = lengths[order]
        # A batch's judged counts have a column per grade its queries judge: at most the
        # grades of the whole qrels, and at most the sum of its queries' own.
        grades = self.judged.num_grades
        own = np.zeros(q + 1, dtype=np.int64)
        np.cumsum(self.judged.distinct().take(order), out=own[1:])
        start = 0
        while start < q:
            # Largest stop with (stop - start) * max(widest, columns) <= max_cells (at least
            # one query).
            low, high = start + 1, q
            while low < high:
                mid = (low + high + 1) // 2
                columns = min(grades, int(own[mid] - own[start]))
                if (mid - start) * max(int(ordered[mid - 1]), columns, 1) <= max_cells:
                    low = mid
                else:
                    high = mid - 1
            stop = low
            members = order[start:stop]
            yield self.positions[members], self._batch(members, int(ordered[stop - 1]))
            start = stop

    def _batch(self, members: IntArray, width: int) -> QueryBatch:
        batch = self._own_batch(members, width)
        for name, side in self.sides.items():
            batch.sides[name] = side._own_batch(members, width)
        return batch

    def _own_batch(self, members: IntArray, width: int) -> QueryBatch:
        lengths = self.num_ret[members]
        b = int(members.size)
        first, last = int(members[0]), int(members[-1])
        if last - first + 1 == b and bool((lengths == width).all()):
            # Consecutive queries of equal length: the flat arrays are already the matrix.
            lo, hi = int(self.offsets[first]), int(self.offsets[last + 1])
            rels = self.rels[lo:hi].reshape(b, width).astype(np.int64)
            tied = None if self.tied is None else self.tied[lo:hi].reshape(b, width)
            grades, levels = self.judged.dense(members)
            return QueryBatch(rels, lengths, levels, self.level, tied, grades)
        rels = np.full((b, width), PAD, dtype=np.int64)
        tied = np.zeros((b, width), dtype=bool) if self.tied is not None else None
        if width:
            columns = np.arange(width, dtype=np.int64)
            inside = columns[None, :] < lengths[:, None]
            source = (self.offsets[members][:, None] + columns[None, :])[inside]
            rels[inside] = self.rels[source]
            if tied is not None and self.tied is not None:
                tied[inside] = self.tied[source]
        grades, levels = self.judged.dense(members)
        return QueryBatch(rels, lengths, levels, self.level, tied, grades)


@dataclass(frozen=True)
class RunRows:
    """A run as :func:`rank_queries` reads it: its rows, columnar.

    Attributes
    ----------
    query, docid, score : ndarray
        Per row: query code (into the run's query list), document id, score. No
        ``(query, docid)`` pair may repeat.
    hashes : ndarray of uint64, or None
        ``doc_hash(docid)``, or None to hash the rows block by block as they are looked up
        (a large run's hashes are then never all in memory).
    num_queries : int
        Size of the run's query list.
    segments : ndarray of int64, optional
        Start row of each run of equal ``query`` values (known to the caller), which spares
        a pass over the rows.
    """

    query: IntArray
    docid: NDArray[np.generic]
    score: FloatArray
    hashes: NDArray[np.uint64] | None
    num_queries: int
    segments: IntArray | None = None


@dataclass(frozen=True)
class JudgmentRows:
    """Qrels as :func:`rank_queries` reads them.

    Attributes
    ----------
    query, rel : ndarray
        Per judgment: query code (into the qrels' query list) and value.
    index : PairIndex
        Index of the ``(query, docid)`` pairs; its document ids must be of the same kind as
        the run's (see :func:`rankeval.ranking.join.common_docids`).
    num_queries : int
        Size of the qrels' query list.
    levels : JudgedCounts, optional
        :func:`judged_counts` of the qrels, when known (it depends on the qrels only).
    """

    query: IntArray
    rel: IntArray
    index: PairIndex
    num_queries: int
    levels: JudgedCounts | None = None


@dataclass(frozen=True)
class RankingRules:
    """How rankings are formed (see the module docstring): the relevance level, the order of
    tied scores, the precision scores are compared in, the cutoff ``max_docs`` and whether
    unjudged documents are dropped (``judged_only``)."""

    level: int = 1
    ties: DocumentTies = "docid_desc"
    score_precision: ScorePrecision = "float32"
    max_docs: int | None = None
    judged_only: bool = False


def rank_queries(
    run: RunRows,
    judgments: JudgmentRows,
    evaluated_run: IntArray,
    evaluated_qrels: IntArray,
    rules: RankingRules,
) -> RankedQueries:
    """Rank the evaluated queries and look up every retrieved document's judgment.

    Parameters
    ----------
    run : RunRows
    judgments : JudgmentRows
    evaluated_run, evaluated_qrels : ndarray of int64, shape (Q,)
        For each evaluated query in output order: its run query code (-1 when the run has
        no results for it) and its qrels query code.
    rules : RankingRules

    Returns
    -------
    RankedQueries

    Examples
    --------
    Query 0 retrieves documents 5 (score 1), 6 (score 2), 7 (score 2); only 6 is judged:

    >>> from rankeval.ranking.join import PairIndex, doc_hash
    >>> docs = np.array([5, 6, 7])
    >>> ranked = rank_queries(
    ...     RunRows(np.zeros(3, dtype=np.int64), docs, np.array([1.0, 2.0, 2.0]),
    ...             doc_hash(docs), 1),
    ...     JudgmentRows(np.array([0]), np.array([1]), PairIndex(np.array([0]), np.array([6])),
    ...                  1),
    ...     np.array([0]), np.array([0]), RankingRules())
    >>> ranked.rels.tolist()  # 7 before 6 (tie, docno descending), then 5
    [-1, 1, -1]

    Complexity: O(n log L) for n run rows and rankings of length L (the sort), O(m)
    expected for m qrels rows.
    """
    run_query, run_docid, run_score, run_hash = run.query, run.docid, run.score, run.hashes
    qrels_rel, qrels_index = judgments.rel, judgments.index
    level, ties, max_docs = rules.level, rules.ties, rules.max_docs
    q = int(evaluated_qrels.shape[0])
    position_of_run_query = np.full(run.num_queries, -1, dtype=np.int64)
    has_run = evaluated_run >= 0
    position_of_run_query[evaluated_run[has_run]] = np.flatnonzero(has_run)
    rows, offsets, positions, same, grid = _rank_order(
        position_of_run_query, run_query, run.segments, run_score, rules.score_precision,
        stable=ties == "input",
    )
    lengths = np.diff(offsets)
    if ties != "input":
        members = _tied_rows(same)
        # Only the tied rows move: reorder them in place, leave the rest be. In pieces of
        # whole tie blocks, so that heavy ties (most of a ranking) need only a piece's
        # temporaries.
        for lo, hi in _tie_pieces(same, members):
            part = members[lo:hi]
            rows[part] = rows[part[_tie_order(same, part, run_docid[rows[part]],
                                              descending=ties != "docid_asc")]]
    tied_flat = None
    if ties == "average":
        tied_flat = np.zeros(rows.size, dtype=bool)
        tied_flat[:-1] = same
    truncated = max_docs is not None and bool((lengths > max_docs).any())
    if max_docs is not None and truncated:
        rank0 = np.arange(rows.size, dtype=np.int64) - np.repeat(offsets[:-1], lengths)
        within = rank0 < max_docs
        rows = rows[within]
        if tied_flat is not None:
            tied_flat = tied_flat[within]
        lengths = np.minimum(lengths, max_docs)

    # Judgments of the retrieved documents: NONPOOL unless found in the qrels.
    segment_query = evaluated_qrels[positions]
    # Held until evaluated, in the narrowest type that holds every judgment: an eighth of
    # int64's memory for the usual small grades.
    rel_type = _judgment_type(qrels_rel)
    if grid and not truncated:
        rels = _grid_judgments(qrels_index, qrels_rel, segment_query, run_docid, run_hash, rows,
                               rel_type)
    else:
        rels = np.full(rows.size, NONPOOL, dtype=rel_type)
        queries = np.repeat(segment_query, lengths)
        for lo in range(0, int(rows.size), _JOIN_ROWS):
            take = rows[lo : lo + _JOIN_ROWS].astype(np.int64, copy=False)
            hashes = doc_hash(run_docid.take(take)) if run_hash is None else run_hash.take(take)
            found = qrels_index.matches(queries[lo : lo + _JOIN_ROWS], run_docid, hashes,
                                        take=take)
            rels[found.position + lo] = _judgment(qrels_rel.take(found.row))
    if rules.judged_only:
        keep_judged = rels >= 0
        if not keep_judged.all():
            rels = rels[keep_judged]
            if tied_flat is not None:
                tied_flat = tied_flat[keep_judged]
            segment = np.repeat(np.arange(lengths.size), lengths)[keep_judged]
            lengths = np.bincount(segment, minlength=lengths.size)
    if tied_flat is not None and tied_flat.size:
        # A block may not continue into the next query (or past a truncation).
        ends = np.cumsum(lengths)
        tied_flat[ends[lengths > 0] - 1] = False

    # Evaluated queries the run has no results for come last, with empty rankings.
    missing = np.setdiff1d(np.arange(q, dtype=np.int64), positions, assume_unique=True)
    positions = np.concatenate((positions, missing))
    lengths = np.concatenate((lengths, np.zeros(missing.size, dtype=np.int64)))
    offsets = np.zeros(positions.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])

    # Judged documents per relevance value, retrieved or not, per stored query; values up
    # to the largest one judged in an evaluated query.
    qrels_levels = judgments.levels
    if qrels_levels is None:
        qrels_levels = judged_counts(judgments.query, qrels_rel, judgments.num_queries)
    judged = qrels_levels.take(evaluated_qrels.take(positions))
    return RankedQueries(rels, offsets, positions, judged, level, tied_flat)


@dataclass(frozen=True)
class JudgedCounts:
    """Judged documents per relevance value of each query, kept sparse: query k judges
    ``counts[i]`` documents with value ``grades[i]`` for i in ``offsets[k]:offsets[k+1]``
    (values ascending, none negative). Memory is O(queries + distinct (query, value)
    pairs), whatever the values.
    """

    offsets: IntArray
    grades: IntArray
    counts: IntArray

    @cached_property
    def num_grades(self) -> int:
        """Distinct values judged in all the queries.

        >>> judged_counts(np.array([0, 0, 1]), np.array([7, 10**8, 7]), 2).num_grades
        2

        Complexity: O(n log n) once, for n pairs.
        """
        return int(sorted_distinct(self.grades).shape[0])

    def distinct(self) -> IntArray:
        """Distinct values judged per query. Complexity: O(Q)."""
        return np.diff(self.offsets)

    def take(self, rows: IntArray) -> JudgedCounts:
        """The counts of queries ``rows``, in that order. Complexity: O(len(rows) + pairs)."""
        starts, sizes = self.offsets.take(rows), np.diff(self.offsets).take(rows)
        offsets = np.zeros(rows.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        source = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1],
                                                                      dtype=np.int64)
        return JudgedCounts(offsets, self.grades.take(source), self.counts.take(source))

    def dense(self, rows: IntArray) -> tuple[IntArray, IntArray]:
        """``(grades, matrix)``: the values judged by queries ``rows`` (ascending) and a
        (len(rows), len(grades)) matrix of their counts.

        >>> judged_counts(np.array([0, 0, 1]), np.array([7, 10**8, 2]), 2).dense(
        ...     np.array([1, 0]))[1].tolist()
        [[1, 0, 0], [0, 1, 1]]

        Complexity: O(pairs of those queries · log + their size · grades).
        """
        part = self.take(rows)
        grades = sorted_distinct(part.grades)
        matrix = np.zeros((rows.shape[0], grades.shape[0]), dtype=np.int64)
        row = np.repeat(np.arange(rows.shape[0], dtype=np.int64), part.distinct())
        matrix[row, np.searchsorted(grades, part.grades)] = part.counts
        return grades, matrix


def judged_counts(qrels_query: IntArray, qrels_rel: IntArray, num_queries: int
                  ) -> JudgedCounts:
    """Judged documents per relevance value of each qrels query, sparse.

    Negative values (unjudged) are not counted.

    >>> counts = judged_counts(np.array([0, 0, 1, 1]), np.array([2, 0, -1, 1]), 2)
    >>> counts.dense(np.array([0, 1]))[1].tolist()
    [[1, 0, 1], [0, 1, 0]]

    When the queries times the relevance values span few cells (at most four a judgment, or
    2^20), each (query, value) is counted in its own cell (``np.bincount``) and read back in
    order: no sort, and no gather of the judgments in sorted order, whose random reads made the
    cost per judgment grow with the qrels once they outgrew the cache.

    Complexity: O(m + cells) counted, O(m log m) sorted, for m judgments.
    """
    query, rel = qrels_query, qrels_rel
    if int(rel.min(initial=0)) < 0:  # only then copies: the judged rows
        judged = rel >= 0
        query, rel = query[judged], rel[judged]
    query = query.astype(np.int64, copy=False)
    rel = rel.astype(np.int64, copy=False)
    if query.shape[0]:
        low = int(rel.min())
        span = int(rel.max()) - low + 1
        cells = num_queries * span
        if cells <= max(4 * query.shape[0], 1 << 20):
            # Each judgment's cell, built in place in 32 bits where they fit: one array of
            # m small integers the only temporary.
            key: NDArray[np.signedinteger[Any]] = rel.astype(
                np.int32 if cells < 2**31 else np.int64)
            key -= low
            key += query * span if span > 1 else query
            found = np.bincount(key, minlength=cells)
            held = np.flatnonzero(found)
            counts = found.take(held).astype(np.int64, copy=False)
            query, rel = np.divmod(held, span)
            rel += low
            offsets = np.zeros(num_queries + 1, dtype=np.int64)
            np.cumsum(np.bincount(query, minlength=num_queries), out=offsets[1:])
            return JudgedCounts(offsets, rel, counts)
    order = np.lexsort((rel, query))
    query, rel = query.take(order), rel.take(order)
    if query.shape[0]:
        first = np.concatenate(([True], (query[1:] != query[:-1]) | (rel[1:] != rel[:-1])))
        starts = np.flatnonzero(first)
        counts = np.diff(np.append(starts, query.shape[0])).astype(np.int64)
        query, rel = query.take(starts), rel.take(starts)
    else:
        counts = np.zeros(0, dtype=np.int64)
    offsets = np.zeros(num_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(query, minlength=num_queries), out=offsets[1:])
    return JudgedCounts(offsets, rel, counts)


def _judgment(rel: IntArray) -> IntArray:
    """Qrels values as rankings hold them: negative ones (in the pool, unjudged) UNJUDGED."""
    return np.where(rel < 0, UNJUDGED, rel)


def _judgment_type(qrels_rel: IntArray) -> np.dtype[np.signedinteger[Any]]:
    """The narrowest signed integer type holding every judgment and NONPOOL, UNJUDGED."""
    low = min(int(qrels_rel.min(initial=0)), UNJUDGED)
    high = int(qrels_rel.max(initial=0))
    for kind in (np.int8, np.int16, np.int32):
        info = np.iinfo(kind)
        if info.min <= low and high <= info.max:
            return np.dtype(kind)
    return np.dtype(np.int64)


def _grid_judgments(
    qrels_index: PairIndex,
    qrels_rel: IntArray,
    segment_query: IntArray,
    docid: NDArray[np.generic],
    hashes: NDArray[np.uint64] | None,
    rows: RowArray,
    rel_type: np.dtype[np.signedinteger[Any]],
) -> NDArray[np.signedinteger[Any]]:
    """Judgments in rank order when every row is ranked and query k owns rows k·L..k·L+L-1.

    Rows are looked up in input order (one query per matrix row), a few hundred queries at
    a time so that the block's temporaries stay in cache, and each block's judgments are
    then moved into rank order (``rows`` of block k stay inside block k).
    """
    count = int(segment_query.size)
    width = int(rows.size) // max(count, 1)
    rels = np.empty(rows.size, dtype=rel_type)
    per = max(1, _JOIN_ROWS // max(width, 1))
    block = np.empty(min(per, count) * width, dtype=rel_type)
    for first in range(0, count, per):
        lo, hi = first * width, min(first + per, count) * width
        found = qrels_index.matches_grid(
            segment_query[first : first + per], docid[lo:hi],
            doc_hash(docid[lo:hi]) if hashes is None else hashes[lo:hi])
        judged = block[: hi - lo]
        judged.fill(NONPOOL)
        judged[found.position] = _judgment(qrels_rel.take(found.row))
        # mode="clip": the indices are valid, and take buffers ``out`` in the default mode.
        np.take(judged, rows[lo:hi] - lo, out=rels[lo:hi], mode="clip")
    return rels


def _score_key(scores: FloatArray, precision: ScorePrecision) -> NDArray[np.floating[Any]]:
    """Scores as the comparison sees them: C float or double; -0.0 as 0.0."""
    if precision == "float32":
        key32: NDArray[np.floating[Any]] = scores.astype(np.float32)
        key32 += np.float32(0.0)
        return key32
    return scores + 0.0


def _rank_order(
    position_of_query: IntArray,
    query: IntArray,
    segments: IntArray | None,
    scores: FloatArray,
    precision: ScorePrecision,
    *,
    stable: bool,
) -> tuple[RowArray, IntArray, IntArray, BoolArray, bool]:
    """Rows of evaluated queries, each query's rows by score descending (as
    :func:`_score_key` compares them).

    ``position_of_query`` maps run query codes to evaluated positions (-1: not evaluated);
    ``segments`` optionally gives the start row of each run of equal ``query`` values.

    Returns the ordered rows, the offsets of each query's block in them, each block's
    evaluated position, which ordered rows tie with the next one (same query, same key),
    and whether the rows form a grid (all rows evaluated, queries contiguous, equal length,
    block k being rows ``k*L .. k*L+L-1``). Blocks come in the order queries first appear
    in the run.

    Rows of one query usually come together (files, dicts, arrays in query order); the
    rankings are then sorted as rows of a matrix, much faster than one global sort.
    ``stable`` keeps the input order of equal keys.
    """
    n = int(query.shape[0])
    kind: Literal["stable", "quicksort"] = "stable" if stable else "quicksort"
    empty = np.zeros(0, dtype=np.int64)
    no_ties = np.zeros(0, dtype=bool)
    if n == 0:
        return empty, np.zeros(1, dtype=np.int64), empty, no_ties, False
    if segments is None:
        segments = np.concatenate(([0], np.flatnonzero(query[1:] != query[:-1]) + 1))
    seg_start = segments
    seg_len = np.diff(np.concatenate((seg_start, [n])))
    seg_pos = position_of_query[query[seg_start]]
    keep = seg_pos >= 0
    starts, lengths, positions = seg_start[keep], seg_len[keep], seg_pos[keep]
    count = int(starts.size)
    width = int(lengths.max(initial=0))
    if count == 0:
        return empty, np.zeros(1, dtype=np.int64), empty, no_ties, False
    # Each evaluated query in one segment (positions are query codes mapped one to one).
    grouped = int(np.bincount(positions).max()) <= 1
    offsets = np.zeros(count + 1, dtype=np.int64)
    if grouped and count * width == n and bool(keep.all()):
        # Every row evaluated, every query the same length (query k owns rows k·L..k·L+L-1):
        # the rankings are the sorted rows of a matrix.
        offsets[1:] = np.arange(1, count + 1, dtype=np.int64) * width
        ties = np.empty((count, width), dtype=bool)
        ties[:, -1] = False
        order: RowArray
        if precision == "float32" and n < 2**32:
            order = _sort_rows_float32(scores.reshape(count, width), ties[:, :-1])
        else:
            grid = _score_key(scores, precision).reshape(count, width)
            order = np.argsort(-grid, axis=1, kind=kind)
            ranked_key = np.take_along_axis(grid, order, axis=1)
            np.equal(ranked_key[:, 1:], ranked_key[:, :-1], out=ties[:, :-1])
            order += starts[:, None]
        return order.ravel(), offsets, positions, ties.ravel()[:-1], True
    key = _score_key(scores, precision)
    if grouped and count * width <= 2 * n + 1024:
        columns = np.arange(width, dtype=np.int64)
        inside = columns[None, :] < lengths[:, None]
        index = np.where(inside, starts[:, None] + columns[None, :], 0)
        padded = np.where(inside, -key[index], np.inf)
        within = np.argsort(padded, axis=1, kind=kind)
        ranked = np.take_along_axis(index, within, axis=1)
        rows = ranked[np.take_along_axis(inside, within, axis=1)]
        np.cumsum(lengths, out=offsets[1:])
    else:
        position = position_of_query[query]
        chosen = np.flatnonzero(position >= 0)
        rows = chosen[np.lexsort((-key[chosen], position[chosen]))]
        positions, block_lengths = np.unique(position[rows], return_counts=True)
        offsets = np.zeros(positions.size + 1, dtype=np.int64)
        np.cumsum(block_lengths, out=offsets[1:])
    ranked_key = key[rows]
    same = ranked_key[1:] == ranked_key[:-1]
    if same.size:
        same[offsets[1:-1] - 1] = False  # no tie across two queries
    return rows, offsets, positions, same, False


def _sort_rows_float32(scores: FloatArray, same: BoolArray) -> NDArray[np.uint32]:
    """Flat cell indices of each row of ``scores``, by C-float score descending (equal
    scores in column order); writes ``same[r, i]``: ranks i and i+1 of row r tie.

    One sort of (descending key bits, flat index) words per row: no index indirection, and
    equal keys stay in column (input) order, so it is stable too. Non-negative floats get
    their low 31 bits flipped, negative ones keep theirs: unsigned order then runs from
    +inf down to -inf. Rows go through in blocks whose temporaries stay in cache; the score
    conversion happens there too. Needs fewer than 2**32 cells.
    """
    count, width = scores.shape
    # Cell indices in 32 bits (half the memory of the rankings' largest array).
    order = np.empty((count, width), dtype=np.uint32)
    per = max(1, _SORT_CELLS // max(width, 1))
    rows_per_block = min(per, count)
    key = np.empty((rows_per_block, width), dtype=np.float32)
    flip = np.empty((rows_per_block, width), dtype=np.uint32)
    packed = np.empty((rows_per_block, width), dtype=np.uint64)
    key_half, index_half = (1, 0) if sys.byteorder == "little" else (0, 1)
    words = packed.view(np.uint32).reshape(rows_per_block, width, 2)
    for first in range(0, count, per):
        rows = slice(first, first + per)
        m = min(per, count - first)
        block, block_words, block_flip, block_key = packed[:m], words[:m], flip[:m], key[:m]
        # _score_key's C float, block by block: rounded to float first, then + 0.0 turns
        # -0.0 (also from tiny negatives) into 0.0.
        np.copyto(block_key, scores[rows], casting="same_kind")
        block_key += np.float32(0.0)
        bits = block_key.view(np.uint32)
        np.right_shift(bits, np.uint32(31), out=block_flip)
        block_flip -= np.uint32(1)
        block_flip &= np.uint32(0x7FFFFFFF)
        block_flip ^= bits
        block_words[:, :, key_half] = block_flip
        block_words[:, :, index_half] = np.arange(
            first * width, (first + m) * width, dtype=np.uint32).reshape(m, width)
        block.sort(axis=1)
        high = block_words[:, :, key_half]
        np.equal(high[:, 1:], high[:, :-1], out=same[rows])
        np.copyto(order[rows], block_words[:, :, index_half])
    return order


def _tied_rows(same: BoolArray) -> IntArray:
    """Positions (in the sorted order) of the rows that tie with a neighbour, ascending."""
    tied = np.zeros(same.size + 1, dtype=bool)
    tied[:-1] = same
    tied[1:] |= same
    return np.flatnonzero(tied)


def _tie_pieces(same: BoolArray, members: IntArray) -> list[tuple[int, int]]:
    """``members`` (:func:`_tied_rows`) cut into pieces of about :data:`_TIE_ROWS`, each
    ending where a tie block does: a piece starts at the first block start at or after
    each multiple of :data:`_TIE_ROWS` (a block longer than that stays whole)."""
    n = int(members.size)
    if n == 0:
        return []
    # Members that start a tie block (they do not tie the row before them).
    starts = np.flatnonzero(~same[members[1:] - 1]) + 1
    wanted = np.arange(_TIE_ROWS, n, _TIE_ROWS)
    cuts = np.append(starts, n)[np.searchsorted(starts, wanted)]
    edges = np.unique(np.concatenate(([0], cuts, [n])))
    return list(itertools.pairwise(edges.tolist()))


def _tie_order(
    same: BoolArray, members: IntArray, keys: NDArray[np.generic], *, descending: bool
) -> IntArray:
    """Order of ``members`` (:func:`_tied_rows`) that sorts every tie block by docid.

    ``same[i]``: row i ties row i+1; ``keys`` are the document ids of the members' rows.
    """
    # Block id: a new block starts wherever a member does not tie with its predecessor.
    starts_block = np.ones(members.size, dtype=bool)
    starts_block[1:] = ~same[members[1:] - 1]
    block = np.cumsum(starts_block) - 1
    if keys.dtype.kind in "iu":
        keys = as_bytes(keys)  # trec_eval compares docnos as strings
    within = np.lexsort((keys, block))
    if descending:
        # Docids are distinct inside a query, so reversing each block gives descending order.
        block_sorted = block[within]
        first = np.searchsorted(block_sorted, block_sorted, side="left")
        last = np.searchsorted(block_sorted, block_sorted, side="right") - 1
        idx = np.arange(members.size)
        within = within[first + last - idx]
    return within.astype(np.int64, copy=False)


def _example() -> QueryBatch:
    """A two-query batch for the doctests: relevance (0, 2, -1) and (1)."""
    rels = np.array([[0, 2, NONPOOL], [1, PAD, PAD]], dtype=np.int64)
    return QueryBatch(rels, np.array([3, 1]), np.array([[1, 1, 1], [0, 1, 0]]), 1, None,
                      np.arange(3))


def _ranked_example() -> RankedQueries:
    """Two stored queries (evaluated positions 1 and 0) for the doctests."""
    return RankedQueries(np.array([0, 1, -1, 1]), np.array([0, 3, 4]), np.array([1, 0]),
                         judged_counts(np.array([0, 0, 1]), np.array([0, 1, 1]), 2), 1, None)
