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

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from rankeval.trec_keys import PairIndex, as_bytes, common_docids

__all__ = [
    "NONPOOL",
    "PAD",
    "UNJUDGED",
    "Batch",
    "RankedQueries",
    "TiePolicy",
    "rank_queries",
]

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

TiePolicy = Literal["docid_desc", "docid_asc", "input", "average"]
ScorePrecision = Literal["float32", "double"]

NONPOOL = -1
UNJUDGED = -2
#: Relevance value of the padding cells right of a query's last retrieved document.
PAD = -(2**40)

# Padded batches hold at most this many cells (queries x longest ranking) at a time.
_BATCH_CELLS = 1 << 22


@dataclass(frozen=True)
class Batch:
    """Some queries' rankings as a padded matrix (queries x ranks).

    Attributes
    ----------
    rels : ndarray of int64, shape (B, L)
        Relevance value at each rank; ``PAD`` right of ``num_ret``.
    num_ret : ndarray of int64, shape (B,)
        Documents retrieved (after truncation).
    rel_levels : ndarray of int64, shape (B, V)
        Judged documents (retrieved or not) per relevance value 0..V-1.
    level : int
        Relevance level: a value >= level is relevant.
    tied : ndarray of bool, shape (B, L), or None
        ``tied[b, i]``: rank i+1 has the same score as rank i+2 (only for ``ties="average"``).
    """

    rels: IntArray
    num_ret: IntArray
    rel_levels: IntArray
    level: int
    tied: BoolArray | None

    @property
    def size(self) -> int:
        """Number of queries."""
        return int(self.rels.shape[0])

    @property
    def width(self) -> int:
        """Number of rank columns (longest ranking in the batch)."""
        return int(self.rels.shape[1])

    @cached_property
    def relevant(self) -> BoolArray:
        """Relevant (value >= level) at each rank; padding never is."""
        return np.asarray(self.rels >= self.level, dtype=bool)

    @cached_property
    def tp(self) -> IntArray:
        """Cumulative relevant count at ranks 1..L (constant over padding)."""
        return np.cumsum(self.relevant, axis=1, dtype=np.int64)

    @cached_property
    def rank(self) -> IntArray:
        """1-based rank of each column, shape (L,)."""
        return np.arange(1, self.width + 1, dtype=np.int64)

    @cached_property
    def fp(self) -> IntArray:
        """Cumulative non-relevant count (padding counts as non-relevant, as trec_eval's P)."""
        return self.rank[None, :] - self.tp

    @cached_property
    def num_rel(self) -> IntArray:
        """R: judged documents at or above the relevance level, retrieved or not."""
        values = np.arange(self.rel_levels.shape[1])
        return np.asarray(self.rel_levels[:, values >= self.level].sum(axis=1), dtype=np.int64)

    @cached_property
    def num_nonrel(self) -> IntArray:
        """Judged non-relevant documents (0 <= value < level), retrieved or not."""
        values = np.arange(self.rel_levels.shape[1])
        return np.asarray(self.rel_levels[:, values < self.level].sum(axis=1), dtype=np.int64)

    @cached_property
    def num_rel_ret(self) -> IntArray:
        """Relevant documents retrieved."""
        if self.width == 0:
            return np.zeros(self.size, dtype=np.int64)
        return np.asarray(self.tp[:, -1], dtype=np.int64)

    def tp_at(self, k: IntArray | int) -> IntArray:
        """Relevant count in the top ``k`` (per query or one k), padding non-relevant; k >= 0."""
        ks = np.broadcast_to(np.asarray(k, dtype=np.int64), (self.size,))
        ks = np.minimum(ks, self.width)
        out = np.zeros(self.size, dtype=np.int64)
        has = ks > 0
        if has.any():
            rows = np.flatnonzero(has)
            out[rows] = self.tp[rows, ks[rows] - 1]
        return out


@dataclass(frozen=True)
class RankedQueries:
    """Every evaluated query's ranking, stored flat (CSR style).

    Attributes
    ----------
    rels : ndarray of int64
        Relevance values of all queries' rankings, concatenated in query order.
    offsets : ndarray of int64, shape (Q+1,)
        Query q's ranking is ``rels[offsets[q]:offsets[q+1]]``.
    rel_levels : ndarray of int64, shape (Q, V)
        Judged documents per relevance value 0..V-1 for each query.
    level : int
        Relevance level.
    tied : ndarray of bool or None
        Flat like ``rels``: the document ties with the next one of its query.
    """

    rels: IntArray
    offsets: IntArray
    rel_levels: IntArray
    level: int
    tied: BoolArray | None

    @property
    def size(self) -> int:
        """Number of queries."""
        return int(self.offsets.shape[0] - 1)

    @property
    def num_ret(self) -> IntArray:
        """Retrieved documents per query."""
        return np.diff(self.offsets)

    def batches(self, max_cells: int = _BATCH_CELLS) -> Iterator[tuple[IntArray, Batch]]:
        """Padded batches covering every query once: ``(query indices, batch)``.

        Queries are grouped by ranking length so that padding stays small; each batch has
        at most ``max_cells`` cells unless a single query is longer than that.

        Complexity: O(total cells) over all batches.
        """
        lengths = self.num_ret
        order = np.argsort(lengths, kind="stable")
        start = 0
        q = self.size
        while start < q:
            width = int(lengths[order[start]])
            stop = start + 1
            # Grow while the padded block stays within budget at the widest member.
            while stop < q:
                wider = int(lengths[order[stop]])
                if (stop + 1 - start) * max(wider, 1) > max_cells:
                    break
                width = wider
                stop += 1
            members = np.sort(order[start:stop])
            yield members, self._batch(members, width)
            start = stop

    def _batch(self, members: IntArray, width: int) -> Batch:
        lengths = self.num_ret[members]
        b = int(members.size)
        rels = np.full((b, width), PAD, dtype=np.int64)
        tied = np.zeros((b, width), dtype=bool) if self.tied is not None else None
        if width:
            columns = np.arange(width, dtype=np.int64)
            inside = columns[None, :] < lengths[:, None]
            source = (self.offsets[members][:, None] + columns[None, :])[inside]
            rels[inside] = self.rels[source]
            if tied is not None and self.tied is not None:
                tied[inside] = self.tied[source]
        return Batch(rels, lengths, self.rel_levels[members], self.level, tied)


def rank_queries(
    *,
    run_query: IntArray,
    run_docid: NDArray[np.generic],
    run_score: FloatArray,
    qrels_query: IntArray,
    qrels_docid: NDArray[np.generic],
    qrels_rel: IntArray,
    evaluated_run: IntArray,
    evaluated_qrels: IntArray,
    num_run_queries: int,
    num_qrels_queries: int,
    level: int,
    ties: TiePolicy,
    score_precision: ScorePrecision,
    max_docs: int | None,
    judged_only: bool,
    qrels_index: PairIndex | None = None,
) -> RankedQueries:
    """Rank the evaluated queries and look up every retrieved document's judgment.

    Parameters
    ----------
    run_query, run_docid, run_score : ndarray
        Run rows: query code (into the run's query list), document id, score. No
        ``(query, docid)`` pair may repeat.
    qrels_query, qrels_docid, qrels_rel : ndarray
        Qrels rows: query code (into the qrels' query list), document id, judgment.
    evaluated_run, evaluated_qrels : ndarray of int64, shape (Q,)
        For each evaluated query in output order: its run query code (-1 when the run has
        no results for it) and its qrels query code.
    num_run_queries, num_qrels_queries : int
        Sizes of the two query lists.
    level : int
        Relevance level.
    ties, score_precision, max_docs, judged_only
        Ranking rules; see the module docstring.
    qrels_index : PairIndex, optional
        A prebuilt index of ``(qrels_query, qrels_docid)`` (built here when omitted).

    Returns
    -------
    RankedQueries

    Complexity: O(n log n) for n run rows (the sort), O(m) expected for m qrels rows.
    """
    q = int(evaluated_qrels.shape[0])
    run_docid, qrels_docid = common_docids(run_docid, qrels_docid)

    # Which evaluated position each run row belongs to (-1: query not evaluated).
    position_of_run_query = np.full(num_run_queries, -1, dtype=np.int64)
    has_run = evaluated_run >= 0
    position_of_run_query[evaluated_run[has_run]] = np.flatnonzero(has_run)
    row_position = position_of_run_query[run_query] if run_query.size else run_query
    keep = row_position >= 0
    rows = np.arange(run_query.shape[0], dtype=np.int64)
    if not keep.all():
        rows = rows[keep]
    position = row_position[rows]
    scores = run_score[rows]

    order = _rank_order(position, scores, score_precision, stable=ties == "input")
    rows, position = rows[order], position[order]
    key = _score_key(run_score[rows], score_precision)
    same = (position[1:] == position[:-1]) & (key[1:] == key[:-1])
    if ties != "input" and same.any():
        fix = _tie_order(same, run_docid[rows], descending=ties != "docid_asc")
        rows, position = rows[fix], position[fix]
    counts = np.bincount(position, minlength=q).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)))[:-1]
    rank0 = np.arange(rows.size, dtype=np.int64) - starts[position]
    tied_flat = None
    if ties == "average":
        tied_flat = np.zeros(rows.size, dtype=bool)
        tied_flat[:-1] = same
    if max_docs is not None:
        within = rank0 < max_docs
        if not within.all():
            rows, position = rows[within], position[within]
            if tied_flat is not None:
                tied_flat = tied_flat[within]

    # Judgments of the retrieved documents.
    qrels_position = np.full(num_qrels_queries, -1, dtype=np.int64)
    qrels_position[evaluated_qrels] = np.arange(q, dtype=np.int64)
    index = qrels_index if qrels_index is not None else PairIndex(qrels_query, qrels_docid)
    found = index.lookup(evaluated_qrels[position], run_docid[rows])
    judged = found >= 0
    rels = np.full(rows.size, NONPOOL, dtype=np.int64)
    rels[judged] = qrels_rel[found[judged]]
    rels[judged & (rels < 0)] = UNJUDGED
    if judged_only and not judged.all():
        keep_judged = rels >= 0
        rels, position = rels[keep_judged], position[keep_judged]
        if tied_flat is not None:
            tied_flat = tied_flat[keep_judged]
    if tied_flat is not None and tied_flat.size:
        # A block may not continue into the next query (or past a truncation).
        tied_flat[:-1] &= position[1:] == position[:-1]
        tied_flat[-1] = False
    offsets = np.concatenate(([0], np.cumsum(np.bincount(position, minlength=q)))).astype(
        np.int64
    )

    # Judged documents per relevance value, retrieved or not.
    q_of_judgment = qrels_position[qrels_query] if qrels_query.size else qrels_query
    counted = (q_of_judgment >= 0) & (qrels_rel >= 0)
    values = int(qrels_rel[counted].max(initial=0)) + 1
    flat = q_of_judgment[counted] * values + qrels_rel[counted]
    rel_levels = np.bincount(flat, minlength=q * values).astype(np.int64).reshape(q, values)
    return RankedQueries(rels, offsets, rel_levels, level, tied_flat)


def _score_key(scores: FloatArray, precision: ScorePrecision) -> FloatArray:
    if precision == "float32":
        return scores.astype(np.float32).astype(np.float64)
    return scores


def _rank_order(
    position: IntArray, scores: FloatArray, precision: ScorePrecision, *, stable: bool
) -> IntArray:
    """Order rows by (position ascending, score descending)."""
    n = int(position.shape[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if precision == "float32":
        bits = scores.astype(np.float32).view(np.uint32).astype(np.uint64)
        negative = (bits >> np.uint64(31)) == 1
        # Map floats to unsigned keys ascending with the value, then flip for descending.
        ascending = np.where(negative, ~bits & np.uint64(0xFFFFFFFF), bits | np.uint64(1 << 31))
        # -0.0 and +0.0 compare equal in C; give them one key.
        zero = scores == 0
        ascending[zero] = np.uint64(1 << 31)
        descending = np.uint64(0xFFFFFFFF) - ascending
        combined = (position.astype(np.uint64) << np.uint64(32)) | descending
        return np.argsort(combined, kind="stable" if stable else "quicksort").astype(np.int64)
    return np.lexsort((-(scores + 0.0), position)).astype(np.int64)


def _tie_order(
    same: BoolArray, docid: NDArray[np.generic], *, descending: bool
) -> IntArray:
    """Permutation that sorts every tie block (``same[i]``: row i ties row i+1) by docid."""
    n = int(docid.shape[0])
    perm = np.arange(n, dtype=np.int64)
    in_block = np.zeros(n, dtype=bool)
    in_block[:-1] |= same
    in_block[1:] |= same
    members = np.flatnonzero(in_block)
    # Block id: a new block starts wherever a member does not tie with its predecessor.
    starts_block = np.ones(members.size, dtype=bool)
    starts_block[1:] = ~same[members[1:] - 1]
    block = np.cumsum(starts_block) - 1
    keys = docid[members]
    if keys.dtype.kind in "iu":
        keys = as_bytes(keys)  # trec_eval compares docnos as strings
    within = np.lexsort((keys, block))
    ordered = members[within]
    if descending:
        # Docids are distinct inside a query, so reversing each block gives descending order.
        block_sorted = block[within]
        first = np.searchsorted(block_sorted, block_sorted, side="left")
        last = np.searchsorted(block_sorted, block_sorted, side="right") - 1
        idx = np.arange(members.size)
        ordered = ordered[first + last - idx]
    perm[members] = ordered
    return perm
