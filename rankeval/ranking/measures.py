"""Every trec_eval measure as a small pure function of a batch of ranked queries.

Each function takes a :class:`~rankeval.ranking.trec_sort.QueryBatch` (queries x ranks of relevance
values, plus judged counts per relevance value) and returns one float per query and value
column, shape ``(B, columns)``. The arithmetic follows trec_eval's C code operation for
operation (same divisions, sums accumulated in rank order with ``np.cumsum``, ``log2`` from
the C library), so the numbers agree bit for bit.

AP, P@k, R-precision-like gathers and the reciprocal rank come from the shared kernel in
:mod:`rankeval.formulas`; everything trec_eval-specific is here.

Notation in the docstrings: rank i = 1..n, rel_i the qrels value at rank i, R = judged
relevant documents (retrieved or not), H_k = relevant documents in the top k, N = judged
non-relevant documents.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from rankeval import formulas
from rankeval.ranking.trec_sort import NONPOOL, PAD, UNJUDGED, QueryBatch

if TYPE_CHECKING:
    from rankeval.ranking.catalogue import MeasureRequest

__all__ = [  # AVERAGE_TIES_MEASURES: still importable, now the registry's (see __getattr__)
    "MeasureOptions",
    "compute",
    "cutoff_count",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

IprecRule = Literal["trec9", "lround", "ceil", "lingpipe"]
ApDenominator = Literal["relevant", "retrieved", "min_k_r"]
PrecisionDenominator = Literal["k", "retrieved"]
Gain = Literal["linear", "exp"]
Discount = Literal["log2", "jk2002"]
Ideal = Literal["judged", "retrieved"]

MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001



@dataclass(frozen=True)
class MeasureOptions:
    """The conventions a measure function may consult (defaults: trec_eval 9).

    Attributes
    ----------
    iprec_rule : {"trec9", "lround", "ceil", "lingpipe"}
        Relevant documents needed for recall level p: ``(long)(p*R + 0.9)``, ``lround(p*R)``,
        ``ceil(p*R)``; ``"lingpipe"`` is ``ceil`` with precision 1.0 at recall 0.
    ap_denominator : {"relevant", "retrieved", "min_k_r"}
        AP's divisor: R, relevant retrieved (in the cutoff), or min(k, R).
    precision_denominator : {"k", "retrieved"}
        P@k divides by k (missing ranks non-relevant) or by min(k, n).
    capped_recall : bool
        recall@k divides by min(k, R) instead of R.
    gain, discount, ideal
        nDCG conventions: gain ``rel`` or ``2**rel - 1``; discount ``log2(i+1)`` or
        Jarvelin-Kekalainen's ``max(1, log2 i)``; ideal ranking from all judged documents or
        from the retrieved ones only.
    average_ties : bool
        Replace each rank's relevance by its tie block's mean (expected value over the
        orders of the block).
    empty_iprec_nan : bool
        A query left with no retrieved document (``-J``, ``-M 0``) gets NaN, as trec_eval's
        0/0, in ``iprec_at_recall`` (at levels needing no relevant document) and
        ``11pt_avg``; else 0.
    num_docs : int
        Documents in the collection (``-N``, used by ``utility``).
    """

    iprec_rule: IprecRule = "trec9"
    ap_denominator: ApDenominator = "relevant"
    precision_denominator: PrecisionDenominator = "k"
    capped_recall: bool = False
    gain: Gain = "linear"
    discount: Discount = "log2"
    ideal: Ideal = "judged"
    average_ties: bool = False
    empty_iprec_nan: bool = False
    num_docs: int = 0


Result = FloatArray | list[str]
MeasureFunction = Callable[[QueryBatch, "MeasureRequest", MeasureOptions], Result]


def __getattr__(name: str) -> Any:
    """``AVERAGE_TIES_MEASURES``: now read from the registry (each measure declares it)."""
    if name == "AVERAGE_TIES_MEASURES":
        from rankeval.ranking.registry import AVERAGE_TIES_MEASURES

        return AVERAGE_TIES_MEASURES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compute(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """Values of one measure for a batch: ``(B, columns)`` floats, or strings (relstring).

    >>> from rankeval.ranking.catalogue import parse_spec
    >>> from rankeval.ranking.trec_sort import QueryBatch
    >>> batch = QueryBatch(np.array([[0, 1, 1]]), np.array([3]), np.array([[1, 3]]), 1, None,
    ...                    np.arange(2))
    >>> compute(batch, parse_spec("P.2")[0], MeasureOptions()).tolist()
    [[0.5]]
    >>> round(float(compute(batch, parse_spec("map")[0], MeasureOptions())[0, 0]), 4)
    0.3889

    Complexity: O(B·L) for most measures, O(B·L·c) for c cutoffs of a cutoff measure.
    """
    function = request.measure.compute
    if function is None:  # ir_measures' own providers: rankeval.ranking.ir_own
        raise ValueError(f"{request.measure.name} is computed by rankeval.ranking.ir_own")
    return function(batch, request, options)


def cutoff_count(request: MeasureRequest) -> int:
    """Number of value columns the request produces.

    >>> from rankeval.ranking.catalogue import parse_spec
    >>> cutoff_count(parse_spec("P")[0]), cutoff_count(parse_spec("ndcg.1=2")[0])
    (9, 1)

    Complexity: O(1).
    """
    if request.measure.params in ("cutoffs", "levels"):
        return len(request.params)
    return 1


# ---------------------------------------------------------------------------------------------
# helpers


def _col(values: NDArray[np.generic]) -> FloatArray:
    return np.asarray(values, dtype=np.float64).reshape(-1, 1)


def _divide(num: NDArray[np.generic], den: NDArray[np.generic], ok: BoolArray) -> FloatArray:
    """``num / den`` where ``ok``, else 0.0 (trec_eval leaves the value at 0)."""
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=ok & (np.asarray(den) != 0))
    return out


_LOG2: list[float] = [0.0]


def _log2_of_int(count: int) -> FloatArray:
    """``log2(0..count-1)`` from the C library (bit-identical to trec_eval's ``log2``)."""
    if len(_LOG2) < count:
        _LOG2.extend(math.log2(i) if i > 0 else 0.0 for i in range(len(_LOG2), count))
    return np.asarray(_LOG2[:count], dtype=np.float64)


def _discounts(width: int, discount: Discount) -> FloatArray:
    """Divisor at ranks 1..width: ``log2(rank + 1)`` or JK2002 ``max(1, log2(rank))``."""
    table = _log2_of_int(width + 2)
    if discount == "log2":
        return table[2 : width + 2]
    out = table[1 : width + 1].copy()
    out[:2] = 1.0
    return out


def _block_mean(values: FloatArray, tied: BoolArray) -> FloatArray:
    """Each cell replaced by the mean over its tie block (``tied[i]``: i ties i+1)."""
    b, width = values.shape
    if width == 0:
        return values
    starts = np.ones((b, width), dtype=bool)
    starts[:, 1:] = ~tied[:, :-1]
    block = np.cumsum(starts.ravel()) - 1
    sums = np.bincount(block, weights=values.ravel())
    counts = np.bincount(block)
    means: FloatArray = (sums / counts)[block].reshape(b, width)
    return means


def _relevance(batch: QueryBatch, options: MeasureOptions) -> FloatArray:
    """Relevant indicator per rank (block means under ``average_ties``)."""
    relevant = batch.relevant.astype(np.float64)
    if options.average_ties and batch.tied is not None:
        return _block_mean(relevant, batch.tied)
    return relevant


def _cutoffs(request: MeasureRequest) -> list[int]:
    return [int(k) for k in request.params]


def _cuts(request: MeasureRequest) -> list[tuple[int, int]]:
    """Each cutoff k with the rank its counts are read at.

    trec_eval fills its cutoffs in one walk down the ranking, the next one when the rank
    equals it; a cutoff not larger than the one before (cutoffs past 2**31 can sort out of
    order, see ``catalogue``) is never met, nor is any after it, so those count every
    retrieved document (their k still divides). In ascending order every cutoff is read at
    itself.

    >>> from rankeval.ranking.catalogue import parse_spec
    >>> _cuts(parse_spec("P.3,5")[0]), _cuts(parse_spec("P.9223372036854775807,1")[0])[1]
    ([(3, 3), (5, 5)], (1, 9223372036854775807))
    """
    out: list[tuple[int, int]] = []
    met = True
    for k in _cutoffs(request):
        met = met and (not out or k > out[-1][0])
        out.append((k, k if met else _EVERY_RANK))
    return out


# A rank past any ranking (C's LONG_MAX): "every retrieved document".
_EVERY_RANK = 2**63 - 1


# ---------------------------------------------------------------------------------------------
# counts


def _num_q(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    return np.ones((batch.size, 1))


def _num_ret(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """num_ret = n."""
    return _col(batch.num_ret)


def _num_rel(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """num_rel = R."""
    return _col(batch.num_rel)


def _num_rel_ret(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """num_rel_ret = H_n."""
    return _col(batch.judged_rel_ret)


def _num_nonrel_judged_ret(
    batch: QueryBatch, request: MeasureRequest, options: MeasureOptions
) -> Result:
    """Retrieved documents judged below the relevance level."""
    judged_nonrel = (batch.rels >= 0) & (batch.rels < batch.level)
    return _col(judged_nonrel.sum(axis=1))


# ---------------------------------------------------------------------------------------------
# precision family


def _ap_sums(batch: QueryBatch, k: int | None) -> FloatArray:
    """Σ over relevant ranks i <= k of H_i / i: the kernel's AP with R = 1.

    Operating points are the relevant ranks (the other ranks add nothing); points past the
    cutoff are flattened (tp held at H_k) so they add nothing either.
    """
    tp, rank = batch.hits
    if tp.shape[1] == 0:
        return np.zeros(batch.size)
    if k is not None:
        tp = np.minimum(tp, batch.tp_at(k)[:, None])
    sums = formulas.average_precision(tp, rank - tp, 1.0)
    return np.asarray(sums, dtype=np.float64).reshape(batch.size)


def _ap_value(
    batch: QueryBatch, sums: FloatArray, k: int | None, options: MeasureOptions
) -> FloatArray:
    hits = batch.num_rel_ret if k is None else batch.tp_at(k)
    rel = batch.num_rel
    if options.ap_denominator == "retrieved":
        return _divide(sums, hits, hits > 0)
    if options.ap_denominator == "min_k_r" and k is not None:
        den = np.minimum(k, rel)
        return _divide(sums, den, den > 0)
    if k is None:
        return _over_relevant(batch, sums, hits)
    return _divide(sums, rel, rel > 0)


def _over_relevant(batch: QueryBatch, sums: FloatArray, hits: IntArray) -> FloatArray:
    """``sums / R`` where a relevant document was found, else 0 (trec_eval's AP and binG).

    trec_eval tests that its rank-wise count found one; at a relevance level of 0 or below
    that may be an unjudged document with R = 0, and then it gives +inf, as C's x / 0.
    """
    rel = batch.num_rel
    out = _divide(sums, rel, (rel > 0) & (hits > 0))
    if batch.level <= 0:
        out[(rel == 0) & (hits > 0) & (sums > 0)] = math.inf
    return out


def _map(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """map = Σ_{rel_i} H_i/i / R; 0 when nothing relevant is retrieved."""
    return _col(_ap_value(batch, _ap_sums(batch, None), None, options))


def _map_cut(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """map_cut_k = Σ_{rel_i, i<=k} H_i/i / R; 0 when R = 0."""
    columns = [_ap_value(batch, _ap_sums(batch, reach), k, options)
               for k, reach in _cuts(request)]
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


def _precision(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """P_k = H_k / k (ranks past n count as non-relevant)."""
    cuts = _cuts(request)
    out = np.zeros((batch.size, len(cuts)))
    if options.average_ties and batch.tied is not None:
        expected = np.cumsum(_relevance(batch, options), axis=1)
        for j, (k, reach) in enumerate(cuts):
            hits = (expected[:, min(reach, batch.width) - 1] if batch.width
                    else np.zeros(batch.size))
            out[:, j] = _precision_divisor(batch, hits, k, options)
        return out
    # Only the ranks up to the largest cutoff matter.
    tp = batch.tp_prefix(max((reach for _, reach in cuts), default=0))
    for j, (k, reach) in enumerate(cuts):
        if options.precision_denominator == "retrieved" or reach != k:
            out[:, j] = _precision_divisor(batch, batch.tp_at(reach), k, options)
        elif batch.width:
            out[:, j] = formulas.precision_at(tp, k)
    return out


def _precision_divisor(
    batch: QueryBatch, hits: NDArray[np.generic], k: int, options: MeasureOptions
) -> FloatArray:
    if options.precision_denominator == "retrieved":
        den = np.minimum(batch.num_ret, k)
        return _divide(hits, den, den > 0)
    return np.asarray(hits, dtype=np.float64) / float(k)


def _relative_p(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """relative_P_k = H_k / min(k, R); 0 when R = 0."""
    rel = batch.num_rel
    columns = [
        _divide(batch.tp_at(reach), np.minimum(k, rel), rel > 0) for k, reach in _cuts(request)
    ]
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


def _recall(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """recall_k = H_k / R (``capped_recall``: / min(k, R)); 0 when R = 0."""
    rel = batch.num_rel
    expected = None
    if options.average_ties and batch.tied is not None:
        expected = np.cumsum(_relevance(batch, options), axis=1)
    columns = []
    for k, reach in _cuts(request):
        if expected is None:
            hits: NDArray[np.generic] = batch.tp_at(reach)
        else:
            hits = (expected[:, min(reach, batch.width) - 1] if batch.width
                    else np.zeros(batch.size))
        den = np.minimum(k, rel) if options.capped_recall else rel
        columns.append(_divide(hits, den, rel > 0))
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


def _success(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """success_k = 1 if H_k >= 1."""
    columns = [(batch.tp_at(reach) > 0).astype(np.float64) for _, reach in _cuts(request)]
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


def _judged(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """judged_k = judged documents in the top min(k, n) / min(k, n); 0 with nothing retrieved.

    A document counts as judged if the qrels list it, whatever its relevance (ir_measures'
    ``Judged``).
    """
    judged = np.cumsum((batch.rels != NONPOOL) & (batch.rels != PAD), axis=1, dtype=np.int64)
    columns = []
    for _k, reach in _cuts(request):
        shown = np.minimum(batch.num_ret, reach)
        hits = np.where(shown > 0, judged[np.arange(batch.size), np.maximum(shown - 1, 0)]
                        if batch.width else 0, 0)
        columns.append(_divide(hits, shown, shown > 0))
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


def _r_prec(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """Rprec = H_R / R (:func:`rankeval.formulas.r_precision`), but 0 when R = 0."""
    rel = batch.num_rel
    return _col(np.where(rel > 0, formulas.r_precision(batch.tp_at(rel), rel), 0.0))


def _r_prec_mult(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """Rprec_mult_x = H_c / c with c = (long)(x·R + 0.9) (padding non-relevant); 0 if c = 0."""
    if batch.level <= 0:
        return _walked_rprec_mult(batch, request.params)
    rel = batch.num_rel.astype(np.float64)
    columns = []
    for x in request.params:
        c = (x * rel + 0.9).astype(np.int64)
        columns.append(_divide(batch.tp_at(c), c, c > 0))
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


def _recip_rank(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """recip_rank = 1 / rank of the first relevant document; 0 if none."""
    if batch.width == 0:
        return np.zeros((batch.size, 1))
    # The kernel looks for the first rank where tp reaches 1: the first relevant rank, where
    # the 0/1 relevance flags reach 1 too (and they need no running sum).
    return _col(formulas.reciprocal_rank(batch.relevant))


# ---------------------------------------------------------------------------------------------
# interpolated precision


def recall_cutoffs(levels: NDArray[np.float64], rel: IntArray, rule: IprecRule) -> IntArray:
    """Relevant documents needed to reach each recall level, shape (B, K).

    ``trec9``: ``(long)(p·R + 0.9)``; ``lround``: round half away from zero; ``ceil`` and
    ``lingpipe``: the smallest count with count/R >= p - 1e-13 (LingPipe's epsilon).

    >>> recall_cutoffs(np.array([0.4, 0.7]), np.array([3]), "trec9").tolist()
    [[2, 2]]
    >>> recall_cutoffs(np.array([0.4, 0.7]), np.array([3]), "ceil").tolist()
    [[2, 3]]

    Complexity: O(B·K).
    """
    product = levels[None, :] * rel.astype(np.float64)[:, None]
    if rule == "trec9":
        return (product + 0.9).astype(np.int64)
    if rule == "lround":
        floor = np.floor(product)
        return (floor + (product - floor >= 0.5)).astype(np.int64)
    slack = 1e-13 * rel.astype(np.float64)[:, None]
    return np.maximum(np.ceil(product - slack), 0).astype(np.int64)


def interpolated_precision(
    batch: QueryBatch, levels: NDArray[np.float64], rule: IprecRule
) -> FloatArray:
    """trec_eval's ``iprec_at_recall``: max precision at or below the c-th relevant rank.

    For each level, c = relevant documents needed (see :func:`recall_cutoffs`); the value is
    the largest H_j / j over ranks j from the rank of the c-th relevant retrieved document to
    the end (c = 0: over the whole ranking), 0 when fewer than c relevant documents are
    retrieved. ``"lingpipe"`` reports 1.0 at c = 0.

    Undefined when nothing is retrieved (trec_eval prints NaN at recall 0); 0 here.

    Complexity: O(B·(L + K)).
    """
    b, width = batch.size, batch.width
    cuts = recall_cutoffs(levels, batch.num_rel, rule)
    out = np.zeros((b, levels.size))
    if width == 0 or b == 0:
        if rule == "lingpipe":
            out[cuts == 0] = 1.0
        return out
    precision = batch.tp / batch.rank[None, :]
    best_after = formulas.best_precision_from(precision)
    found = batch.num_rel_ret
    # Flat positions of the relevant ranks, row by row; the c-th of row r is at offset[r]+c-1.
    flat = np.flatnonzero(batch.relevant.ravel())
    offset = np.concatenate(([0], np.cumsum(found)))[:-1]
    reachable = (cuts >= 1) & (cuts <= found[:, None])
    rows, cols = np.nonzero(reachable)
    rank_index = flat[offset[rows] + cuts[rows, cols] - 1] - rows * width
    out[rows, cols] = best_after[rows, rank_index]
    zero = cuts == 0
    out[zero] = np.broadcast_to(best_after[:, :1], out.shape)[zero]
    if rule == "lingpipe":
        out[zero] = 1.0
    return out


_NEGATIVE_NAN = -math.nan  # the sign bit set: what 0.0 / 0.0 gives on x86-64


# trec_eval's own loops, for a relevance level of 0 or below. There its rank-wise test
# (value >= level) takes unjudged documents too while its count of relevant retrieved ones
# (num_rel_ret) does not, so the loops below stop or index where no formula over one count
# would: they are copied step for step (per query, in Python: such levels are rare).


def _quotient(a: float, b: float) -> float:
    """C's double division a / b, 0/0 giving the NaN x86-64 gives."""
    return a / b if b else (_NEGATIVE_NAN if a == 0 else math.copysign(math.inf, a))


def _walked_iprec(batch: QueryBatch, levels: NDArray[np.float64], rule: IprecRule) -> FloatArray:
    """m_iprec_at_recall.c's loop (11pt_avg's is the same)."""
    cuts = recall_cutoffs(levels, batch.num_rel, rule)
    out = np.zeros((batch.size, levels.size))
    for b in range(batch.size):
        rels = batch.rels[b].tolist()
        num_ret = int(batch.num_ret[b])
        num_rel_ret = int(batch.judged_rel_ret[b])
        cut = levels.size - 1
        while cut >= 0 and cuts[b, cut] > num_rel_ret:
            cut -= 1
        int_precis = _quotient(num_rel_ret, num_ret)
        rel_so_far = num_rel_ret
        i = num_ret
        while i > 0 and rel_so_far > 0:
            precis = rel_so_far / i
            if int_precis < precis:
                int_precis = precis
            if rels[i - 1] >= batch.level:
                while cut >= 0 and rel_so_far == cuts[b, cut]:
                    out[b, cut] = int_precis
                    cut -= 1
                rel_so_far -= 1
            i -= 1
        while cut >= 0:
            out[b, cut] = int_precis
            cut -= 1
    return out


def _walked_rprec_mult(batch: QueryBatch, multiples: tuple[float, ...]) -> FloatArray:
    """m_Rprec_mult.c's loop."""
    out = np.zeros((batch.size, len(multiples)))
    for b in range(batch.size):
        rels = batch.rels[b].tolist()
        num_ret = int(batch.num_ret[b])
        num_rel_ret = int(batch.judged_rel_ret[b])
        cuts = [int(x * int(batch.num_rel[b]) + 0.9) for x in multiples]
        cut = len(multiples) - 1
        while cut >= 0 and cuts[cut] > num_ret:
            out[b, cut] = _quotient(num_rel_ret, cuts[cut])
            cut -= 1
        rel_so_far = num_rel_ret
        i = num_ret
        while i > 0 and rel_so_far > 0:
            precis = rel_so_far / i
            while cut >= 0 and i == cuts[cut]:
                out[b, cut] = precis
                cut -= 1
            if rels[i - 1] >= batch.level:
                rel_so_far -= 1
            i -= 1
    return out


def _iprec_at_recall(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """iprec_at_recall_p (see :func:`interpolated_precision`)."""
    return _iprec(batch, request, options)


def _iprec(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> FloatArray:
    """:func:`interpolated_precision`, with trec_eval's NaN for an empty ranking if asked."""
    levels = np.asarray(request.params, dtype=np.float64)
    if batch.level <= 0 and options.iprec_rule in ("trec9", "lround"):
        values = _walked_iprec(batch, levels, options.iprec_rule)
        if not options.empty_iprec_nan:
            values[np.isnan(values)] = 0.0
        return values
    values = interpolated_precision(batch, levels, options.iprec_rule)
    if options.empty_iprec_nan and options.iprec_rule != "lingpipe":
        # trec_eval starts from precision num_rel_ret / num_ret = 0/0 and keeps it for the
        # levels that need no relevant document.
        empty = batch.num_ret == 0
        if empty.any():
            cuts = recall_cutoffs(levels, batch.num_rel[empty], options.iprec_rule)
            rows = values[empty]
            rows[cuts == 0] = _NEGATIVE_NAN  # printed -nan, as glibc prints 0.0 / 0.0
            values[empty] = rows
    return values


def _11pt_avg(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """11pt_avg = mean of iprec over the levels (summed from the highest level down)."""
    values = _iprec(batch, request, options)
    total = np.zeros(batch.size)
    for j in range(values.shape[1] - 1, -1, -1):
        total = total + values[:, j]
    return _col(total / float(max(values.shape[1], 1)))


# ---------------------------------------------------------------------------------------------
# judged-only measures


def _bpref_sums(batch: QueryBatch) -> FloatArray:
    rels = batch.rels
    judged_nonrel = (rels >= 0) & (rels < batch.level)
    judged_rel = (rels >= 0) & (rels >= batch.level)
    nonrel_above = np.cumsum(judged_nonrel, axis=1)
    rel = batch.num_rel[:, None]
    cap = np.minimum(batch.num_nonrel, batch.num_rel)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = np.minimum(nonrel_above, rel) / cap
    terms = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    terms = np.where(judged_rel, terms, 0.0)
    if batch.width == 0:
        return np.zeros(batch.size)
    return np.asarray(np.cumsum(terms, axis=1)[:, -1], dtype=np.float64)


def _bpref(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """bpref = Σ_{judged rel} (1 - min(nonrel above, R) / min(N, R)) / R."""
    rel = batch.num_rel
    sums = _bpref_sums(batch)
    return _col(np.where(rel > 0, _divide(sums, rel, rel > 0), sums))


def _inf_ap(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """Inferred AP (Yilmaz and Aslam), trec_eval's arithmetic, divided by R."""
    rels = batch.rels
    if batch.width == 0:
        return np.zeros((batch.size, 1))
    judged_rel = (rels >= 0) & (rels >= batch.level)
    judged_nonrel = (rels >= 0) & (rels < batch.level)
    rel_so_far = np.cumsum(judged_rel, axis=1)
    nonrel_so_far = np.cumsum(judged_nonrel, axis=1)
    unjudged_so_far = np.cumsum(rels == UNJUDGED, axis=1)
    j = (batch.rank - 1).astype(np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        above = (rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / j
        ratio = (rel_so_far - 1 + INFAP_EPSILON) / (
            rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON
        )
        terms = 1.0 / (j + 1.0) + (j / (j + 1.0)) * above * ratio
    terms[:, 0] = 1.0
    terms = np.where(judged_rel, terms, 0.0)
    sums = np.cumsum(terms, axis=1)[:, -1]
    rel = batch.num_rel
    return _col(np.where(rel > 0, _divide(sums, rel, rel > 0), sums))


def _unj(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """unj_k = documents not in the qrels or unjudged among the top k, / k."""
    unjudged = np.cumsum((batch.rels == NONPOOL) | (batch.rels == UNJUDGED), axis=1)
    columns = []
    for k, reach in _cuts(request):
        count = (unjudged[:, min(reach, batch.width) - 1] if batch.width
                 else np.zeros(batch.size))
        columns.append(count / float(k))
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


# ---------------------------------------------------------------------------------------------
# set measures


def _set_p(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """set_P = H_n / n."""
    n = batch.num_ret
    return _col(_divide(batch.judged_rel_ret, n, n > 0))


def _set_relative_p(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """set_relative_P = H_n / min(n, R)."""
    n, rel = batch.num_ret, batch.num_rel
    return _col(_divide(batch.judged_rel_ret, np.minimum(n, rel), (n > 0) & (rel > 0)))


def _set_recall(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """set_recall = H_n / R."""
    rel = batch.num_rel
    return _col(_divide(batch.judged_rel_ret, rel, rel > 0))


def _set_map(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """set_map = H_n² / (n·R)."""
    n, rel, hits = (batch.num_ret.astype(np.float64), batch.num_rel.astype(np.float64),
                    batch.judged_rel_ret.astype(np.float64))
    return _col(_divide(hits * hits, n * rel, (n > 0) & (rel > 0)))


def _set_f(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """set_F = (x+1)·P·R / (x·P + R) over the retrieved set (x = parameter, default 1)."""
    x = request.params[0]
    hits = batch.judged_rel_ret.astype(np.float64)
    ok = hits > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = hits / batch.num_ret
        r = hits / batch.num_rel
        value = (x + 1.0) * p * r / (x * p + r)
    return _col(np.where(ok, value, 0.0))


def _utility(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """utility = a·H_n + b·(n - H_n) + c·(R - H_n) + d·(N_coll + H_n - n - R)."""
    a, b, c, d = request.params
    n, rel, hits = batch.num_ret, batch.num_rel, batch.judged_rel_ret
    value = (a * hits + b * (n - hits) + c * (rel - hits)
             + d * (options.num_docs + hits - n - rel))
    return _col(value)


# ---------------------------------------------------------------------------------------------
# gains: ndcg family, G, rbp


def _gain_table(batch: QueryBatch, request: MeasureRequest | None, options: MeasureOptions
                ) -> dict[int, float]:
    """Gain per relevance value: the value itself (or 2**v - 1), custom ``v=gain`` pairs."""
    table: dict[int, float] = {}
    for v in batch.grades.tolist():
        table[v] = _default_gain(v, options)
    for key, value in _gain_pairs(request):
        table[key] = value
    return table


def _default_gain(level: int, options: MeasureOptions) -> float:
    if options.gain == "linear":
        return float(level)
    return math.inf if level >= 1024 else float(2.0**level - 1.0)  # 2**1024 overflows


# Levels up to this many are enumerated one by one, as trec_eval does (zero-count levels
# can change its gain order, see _gain_plan); above, only the levels judged.
_ENUMERATED_LEVELS = 1 << 16


def _levels_below(num_levels: int, judged: IntArray) -> list[int]:
    """The levels trec_eval's ``setup_gains`` lists for a query of ``num_rel_levels``:
    every level below it; past :data:`_ENUMERATED_LEVELS`, the judged ones only (trec_eval
    itself allocates and sorts one entry a level there)."""
    if num_levels <= _ENUMERATED_LEVELS:
        return list(range(num_levels))
    return [v for v in judged.tolist() if v < num_levels]


def _gain_pairs(request: MeasureRequest | None) -> list[tuple[int, float]]:
    """The ``v=gain`` parameters whose name trec_eval reads as a level (``valid_int``: an
    optional sign, then digits), in the order given."""
    if request is None:
        return []
    out = []
    for key, value in request.pairs:
        body = key[1:] if key[:1] in "+-" else key
        if body.isascii() and body.isdigit():
            out.append((int(key), float(value)))
    return out


@dataclass(frozen=True)
class _GainPlan:
    """trec_eval's gain levels for queries whose judgments reach one ``num_rel_levels``.

    ``lookup``: each value's gain (``get_gain``: the first entry of the sorted list with that
    level); ``top_down``: the entries from the highest, as (gain, level counted there or -1);
    ``empty``: the top entry's gain is not positive, so the ideal ranking is empty.
    """

    lookup: dict[int, float]
    top_down: tuple[tuple[float, int], ...]
    empty: bool


def _c_int(value: float) -> int:
    """C's ``(int)`` of a double on x86-64 (``cvttsd2si``): truncation, INT_MIN when out of
    range."""
    return int(value) if -2.0**31 - 1.0 < value < 2.0**31 else -(2**31)


def _gain_plan(pairs: list[tuple[int, float]], num_levels: int,
               options: MeasureOptions, judged: IntArray) -> _GainPlan:
    """``setup_gains`` of trec_eval: the parameters in the order given, then each level below
    ``num_levels`` that they do not name (gain: the default); each level's documents counted
    at its first entry; sorted by glibc's ``qsort`` (a stable merge sort) with trec_eval's
    comparator ``(int)(a - b)``, under which gains less than 1 apart compare equal."""
    entries = [(level, gain) for level, gain in pairs]
    named = {level for level, _ in pairs}
    entries += [(v, _default_gain(v, options)) for v in _levels_below(num_levels, judged)
                if v not in named]
    counted_at: dict[int, int] = {}
    for index, (level, _) in enumerate(entries):
        if 0 <= level < num_levels:
            counted_at.setdefault(level, index)
    order = formulas.c_merge_sort(
        list(range(len(entries))), lambda a, b: _c_int(entries[a][1] - entries[b][1]))
    lookup: dict[int, float] = {}
    for index in order:
        lookup.setdefault(*entries[index])
    top_down = tuple((entries[i][1], entries[i][0] if counted_at.get(entries[i][0]) == i
                      else -1) for i in reversed(order))
    return _GainPlan(lookup, top_down, not top_down or top_down[0][0] <= 0.0)


def _plans(batch: QueryBatch, request: MeasureRequest | None, options: MeasureOptions
           ) -> list[tuple[IntArray, _GainPlan]] | None:
    """trec_eval's gain plans, one per ``num_rel_levels`` found in the batch, with the rows
    that use it; None where they cannot differ from sorting by gain (every pair of gains
    compares as it should, and no level is named twice): then :func:`_gain_table` and
    :func:`_ideal_gains` give the same numbers, faster."""
    if not options.empty_iprec_nan:  # trec_quirks=False: gains sorted exactly
        return None
    pairs = _gain_pairs(request)
    key = ("plans", tuple(pairs), options.gain)  # the nDCG family asks alike: once a batch
    if key in batch.memo:
        plans: list[tuple[IntArray, _GainPlan]] | None = batch.memo[key]
        return plans
    num_levels = batch.num_rel_levels
    listed = _levels_below(int(num_levels.max(initial=0)), batch.grades)
    gains = {_default_gain(v, options) for v in listed} | {g for _, g in pairs}
    plans = None
    if len({level for level, _ in pairs}) < len(pairs) or not _c_consistent(gains):
        plans = [(np.flatnonzero(num_levels == n),
                  _gain_plan(pairs, int(n), options, batch.grades))
                 for n in np.unique(num_levels).tolist()]
    batch.memo[key] = plans
    return plans


def _c_consistent(gains: set[float]) -> bool:
    """Whether trec_eval's comparator ``(int)(a - b)`` orders every pair of ``gains`` as
    ``<`` does: all finite (inf - inf is NaN, which converts to INT_MIN), no two distinct
    gains less than 1 apart (truncated to 0: equal), and none 2**31 or more apart (INT_MIN:
    misordered). Sorted, the closest pairs are neighbours and the farthest the two ends.

    >>> _c_consistent({0.0, 1.0, 2.0}), _c_consistent({2.0, 2.5}), _c_consistent({0.0, 2.0**31})
    (True, False, False)

    Complexity: O(n log n).
    """
    ordered = sorted(gains)
    if not all(math.isfinite(g) for g in ordered):
        return False
    if len(ordered) > 1 and _c_int(ordered[-1] - ordered[0]) < 0:
        return False
    return all(b - a >= 1.0 for a, b in itertools.pairwise(ordered))


def _gains(batch: QueryBatch, table: dict[int, float], width: int | None = None) -> FloatArray:
    """Gain at each of the first ``width`` ranks (0 for values without a gain, padding)."""
    rels = batch.rels if width is None else batch.rels[:, :width]
    low = min(table, default=0)
    high = max(table, default=0)
    if low >= -2 and high - low < 4096:
        # Lookup table indexed by the relevance value (padding and unknown values -> 0).
        lut = np.zeros(high - low + 2)
        for value, gain in table.items():
            lut[value - low] = gain
        index = rels - low
        index[(index < 0) | (index > high - low)] = high - low + 1
        return lut[index]
    out = np.zeros(rels.shape, dtype=np.float64)
    for value, gain in table.items():
        if gain != 0.0:
            out[rels == value] = gain
    return out


def _planned_gains(batch: QueryBatch, plans: list[tuple[IntArray, _GainPlan]],
                   width: int | None = None) -> FloatArray:
    """:func:`_gains` with each row's own plan's lookup."""
    rels = batch.rels if width is None else batch.rels[:, :width]
    out = np.zeros(rels.shape, dtype=np.float64)
    for rows, plan in plans:
        for value, gain in plan.lookup.items():
            if gain != 0.0:
                part = out[rows]
                part[rels[rows] == value] = gain
                out[rows] = part
    return out


def _ideal_gains(
    batch: QueryBatch, table: dict[int, float], width: int | None = None
) -> tuple[FloatArray, IntArray]:
    """Ideal ranking's positive gains per query (descending), padded with 0, and its length.

    Only the first ``width`` ranks are built when given (the length is the full one).
    """
    judged = set(batch.grades.tolist())
    ordered = sorted(
        ((gain, v) for v, gain in table.items() if v in judged and gain > 0.0),
        key=lambda item: -item[0],
    )
    counts = np.zeros((batch.size, len(ordered)), dtype=np.int64)
    for j, (_, v) in enumerate(ordered):
        counts[:, j] = batch.count_of(v)
    return _fill_ideal(counts, np.array([g for g, _ in ordered], dtype=np.float64), width)


def _planned_ideal(batch: QueryBatch, plans: list[tuple[IntArray, _GainPlan]],
                   width: int | None = None) -> tuple[FloatArray, IntArray]:
    """:func:`_ideal_gains` by each row's plan, as trec_eval walks it: from the top entry
    (none if its gain is not positive), past entries without documents, up to the first
    entry with documents whose gain is not positive."""
    parts = []
    for rows, plan in plans:
        size = rows.shape[0]
        entries = [(g, level) for g, level in plan.top_down if level >= 0]
        counts = np.zeros((size, len(entries)), dtype=np.int64)
        alive = np.full(size, not plan.empty)
        for j, (gain, level) in enumerate(entries):
            here = batch.count_of(level).take(rows) * alive
            if gain <= 0.0:
                alive &= here == 0
            else:
                counts[:, j] = here
        gains = np.array([max(g, 0.0) for g, _ in entries], dtype=np.float64)
        parts.append((rows, *_fill_ideal(counts, gains, width)))
    total = np.zeros(batch.size, dtype=np.int64)
    columns = max((ideal.shape[1] for _, ideal, _ in parts), default=0)
    out = np.zeros((batch.size, columns))
    for rows, ideal, length in parts:
        out[rows, : ideal.shape[1]] = ideal
        total[rows] = length
    return out, total


def _fill_ideal(counts: IntArray, gains: FloatArray, width: int | None
                ) -> tuple[FloatArray, IntArray]:
    """Rows of ``counts[:, j]`` copies of ``gains[j]`` in column order, padded with 0."""
    size = counts.shape[0]
    total = counts.sum(axis=1) if counts.shape[1] else np.zeros(size, dtype=np.int64)
    columns = int(total.max(initial=0))
    if width is not None:
        columns = min(columns, width)
    out = np.zeros((size, columns))
    if columns and counts.shape[1]:
        ends = np.cumsum(counts, axis=1)
        positions = np.arange(columns)[None, :]
        for j in range(counts.shape[1] - 1, -1, -1):
            np.copyto(out, gains[j], where=positions < ends[:, j : j + 1])
    return out, total


def _retrieved_ideal(gains: FloatArray) -> tuple[FloatArray, IntArray]:
    """Ideal ranking from the retrieved documents only (sklearn-style)."""
    positive = np.where(gains > 0, gains, 0.0)
    ordered = -np.sort(-positive, axis=1)
    return ordered, (ordered > 0).sum(axis=1).astype(np.int64)


def _prefix_dcg(gains: FloatArray, discount: Discount) -> FloatArray:
    """Running DCG, Σ_{j<=i} gain_j / discount_j, summed in rank order."""
    if gains.shape[1] == 0:
        return np.zeros(gains.shape)
    return np.cumsum(gains / _discounts(gains.shape[1], discount)[None, :], axis=1)


def _at(prefix: FloatArray, index: IntArray) -> FloatArray:
    """``prefix[b, index[b]]`` (``prefix[b, index[b, k]]`` for a matrix of indices), 0 where
    the index is negative (before rank 1); an index past the end reads the last column."""
    if prefix.shape[1] == 0:
        return np.zeros(index.shape)
    columns = index if index.ndim == 2 else index[:, None]
    got = np.take_along_axis(prefix, np.clip(columns, 0, prefix.shape[1] - 1), axis=1)
    got = np.where(columns >= 0, got, 0.0)
    return got if index.ndim == 2 else got[:, 0]


@dataclass(frozen=True)
class _Dcg:
    gains: FloatArray
    run_prefix: FloatArray
    ideal: FloatArray
    ideal_prefix: FloatArray
    ideal_len: IntArray


def _dcg_parts(
    batch: QueryBatch, request: MeasureRequest | None, options: MeasureOptions,
    width: int | None = None,
) -> _Dcg:
    """Gains, running DCG and the ideal ranking's running DCG, over the first ``width`` ranks.

    With ``ideal="retrieved"`` the ideal comes from all retrieved documents even when
    ``width`` is smaller.

    Kept in the batch's memo: ``ndcg``, ``ndcg_cut``, ``ndcg_rel`` and ``Rndcg`` with the
    same gains share one computation (a ``width`` covering every rank and every judgment
    is the same as none).
    """
    table = _gain_table(batch, request, options)
    plans = _plans(batch, request, options)
    if width is not None and width >= max(batch.width, int(batch.rel_levels.sum(axis=1).max(
            initial=0))):
        width = None
    key = ("dcg", tuple(sorted(table.items())), None if plans is None else request,
           width, options.ideal, options.average_ties, options.discount)
    parts: _Dcg | None = batch.memo.get(key)
    if parts is None:
        parts = batch.memo[key] = _new_dcg_parts(batch, table, plans, options, width)
    return parts


def _new_dcg_parts(batch: QueryBatch, table: dict[int, float],
                   plans: list[tuple[IntArray, _GainPlan]] | None, options: MeasureOptions,
                   width: int | None) -> _Dcg:
    needs_all = options.ideal == "retrieved" or options.average_ties
    wanted = None if needs_all else width
    all_gains = (_gains(batch, table, wanted) if plans is None
                 else _planned_gains(batch, plans, wanted))
    gains = all_gains if width is None else all_gains[:, :width]
    if options.ideal == "retrieved":
        ideal, ideal_len = _retrieved_ideal(all_gains)
    elif plans is None:
        ideal, ideal_len = _ideal_gains(batch, table, width)
    else:
        ideal, ideal_len = _planned_ideal(batch, plans, width)
    if width is not None:
        ideal = ideal[:, :width]
    effective = gains
    if options.average_ties and batch.tied is not None:
        effective = _block_mean(all_gains, batch.tied)
        effective = effective if width is None else effective[:, :width]
    return _Dcg(
        gains,
        _prefix_dcg(effective, options.discount),
        ideal,
        _prefix_dcg(ideal, options.discount),
        ideal_len,
    )


def _ndcg_values(batch: QueryBatch, request: MeasureRequest | None, options: MeasureOptions
                 ) -> tuple[FloatArray, FloatArray]:
    parts = _dcg_parts(batch, request, options)
    dcg = _at(parts.run_prefix, batch.num_ret - 1)
    ideal = _at(parts.ideal_prefix, parts.ideal_len - 1)
    return dcg, ideal


def _dcg(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """dcg = Σ_i gain(rel_i) / log2(i + 1)."""
    return _col(_ndcg_values(batch, request, options)[0])


def _ideal_dcg(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """ideal_dcg = DCG of the judged documents sorted by gain, positive gains only."""
    return _col(_ndcg_values(batch, request, options)[1])


def _ndcg(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """ndcg = dcg / ideal_dcg; 0 when the ideal is 0."""
    dcg, ideal = _ndcg_values(batch, request, options)
    return _col(_divide(dcg, ideal, ideal > 0.0))


def _ndcg_cut(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """ndcg_cut_k = DCG@k / ideal DCG@k (gain = qrels value; the DCG itself if ideal = 0)."""
    cuts = _cuts(request)
    parts = _dcg_parts(batch, None, options, width=max((r for _, r in cuts), default=0))
    columns = []
    for _, reach in cuts:
        dcg = _at(parts.run_prefix, np.minimum(batch.num_ret, reach) - 1)
        ideal = _at(parts.ideal_prefix, np.minimum(parts.ideal_len, reach) - 1)
        columns.append(np.where(ideal > 0.0, _divide(dcg, ideal, ideal > 0.0), dcg))
    return np.stack(columns, axis=1) if columns else np.zeros((batch.size, 0))


def _ndcg_rel(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """ndcg_rel: nDCG averaged over the positive-gain documents (missed ones at final nDCG).

    trec_eval adds the per-document ratios one by one from the top; each row's running sum
    over a zero-filled matrix (``cumsum``) adds the same numbers in the same order.
    """
    parts = _dcg_parts(batch, request, options)
    b = batch.size
    n = batch.num_ret
    ni = parts.ideal_len
    width = parts.gains.shape[1]
    out = np.zeros(b)
    if b == 0:
        return _col(out)
    found = np.zeros(b, dtype=np.int64)
    total = np.zeros(b)
    if width:
        ranks = np.arange(width)
        inside = ranks[None, :] < n[:, None]
        positive = (parts.gains > 0) & inside
        found = np.count_nonzero(positive, axis=1)
        if parts.ideal_prefix.shape[1]:
            column = np.minimum(ranks[None, :], np.maximum(ni - 1, 0)[:, None])
            column = np.minimum(column, parts.ideal_prefix.shape[1] - 1)
            ideal_at = np.take_along_axis(parts.ideal_prefix, column, axis=1)
        else:
            ideal_at = np.zeros((b, width))
        ideal_at = np.where((ni > 0)[:, None], ideal_at, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(ideal_at != 0, parts.run_prefix / np.where(ideal_at != 0, ideal_at,
                                                                         1.0), math.inf)
        terms = np.where(positive, ratio, 0.0)
        total = np.cumsum(terms, axis=1)[:, -1]
    dcg = _at(parts.run_prefix, n - 1) if width else np.zeros(b)
    dcg = np.where(n > 0, dcg, 0.0)
    ideal_full = np.where(ni > 0, _at(parts.ideal_prefix, ni - 1), 0.0) \
        if parts.ideal_prefix.shape[1] else np.zeros(b)
    rest = ni - found
    with np.errstate(divide="ignore", invalid="ignore"):
        extra = np.where(ideal_full != 0,
                         (rest.astype(np.float64) * dcg) / np.where(ideal_full != 0,
                                                                    ideal_full, 1.0),
                         math.nan)
    total = np.where(rest != 0, total + extra, total)
    with np.errstate(invalid="ignore"):
        good = total > 0.0
    out[good] = total[good] / ni[good]
    return _col(out)


def _r_ndcg(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """Rndcg: nDCG averaged at the points where the ideal gain changes level.

    At every rank j (1-based) where the ideal ranking's gain changes, and at its end ni, the
    run's DCG at min(j, num_ret) over the ideal DCG at j, when the latter is positive; then
    the run's whole DCG over the ideal's when the run is longer than ni + 1. The terms are
    summed left to right (a running sum over a zero-filled matrix: trec_eval's order) and
    divided by their count (0/0 when there is none, as in trec_eval).
    """
    parts = _dcg_parts(batch, request, options)
    b = batch.size
    ni = parts.ideal_len
    nr = batch.num_ret
    total = np.zeros(b)
    count = np.zeros(b, dtype=np.int64)
    width = int(parts.ideal.shape[1])
    if b and width:
        j = np.arange(1, width + 1, dtype=np.int64)[None, :]
        level_change = np.zeros((b, width), dtype=bool)
        level_change[:, :-1] = parts.ideal[:, 1:] != parts.ideal[:, :-1]
        point = (level_change & (j < ni[:, None])) | (j == ni[:, None])
        ideal_dcg = parts.ideal_prefix
        point &= ideal_dcg > 0.0
        run_dcg = _at(parts.run_prefix, np.minimum(j, nr[:, None]) - 1)
        terms = np.where(point, run_dcg / np.where(point, ideal_dcg, 1.0), 0.0)
        total = np.cumsum(terms, axis=1)[:, -1]
        count = point.sum(axis=1)
    tail_ideal = _at(parts.ideal_prefix, ni - 1)
    tail = (ni + 1 < nr) & (tail_ideal > 0.0)
    if tail.any():
        rows = np.flatnonzero(tail)
        total[rows] += _at(parts.run_prefix, nr - 1)[rows] / tail_ideal[rows]
        count[rows] += 1
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(count > 0, total / np.maximum(count, 1), math.nan)
    out[batch.num_rel == 0] = 0.0
    return _col(out)


def _g(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """G: Σ gain_i / log2(2 + cost_i - gained_i), normalized by the ideal total gain.

    Row sums are running sums over zero-filled matrices, in trec_eval's order; the
    logarithms come from the C library (``math.log2``), as trec_eval's do.
    """
    table = _gain_table(batch, request, options)
    plans = _plans(batch, request, options)
    if plans is None:
        gains = _gains(batch, table)
        ideal, _ = _ideal_gains(batch, table)
    else:
        gains = _planned_gains(batch, plans)
        ideal, _ = _planned_ideal(batch, plans)
    b, width = gains.shape
    out = np.zeros(b)
    if b == 0:
        return _col(out)
    ideal_sum = np.cumsum(ideal, axis=1)[:, -1] if ideal.shape[1] else np.zeros(b)
    total = np.zeros(b)
    if width:
        inside = np.arange(width)[None, :] < batch.num_ret[:, None]
        g = np.where(inside, gains, 0.0)
        ideal_row = np.zeros((b, width))
        upto = min(width, ideal.shape[1])
        ideal_row[:, :upto] = ideal[:, :upto]
        ideal_row[~inside] = 0.0
        cost = np.cumsum(np.where(ideal_row >= 1.0, ideal_row, 1.0), axis=1)
        gained = np.cumsum(g, axis=1)
        nonzero = g != 0
        arguments = (2.0 + cost[nonzero] - gained[nonzero]).tolist()
        terms = np.zeros((b, width))
        terms[nonzero] = g[nonzero] / np.array(list(map(_c_log2, arguments)))
        # trec_eval's sum starts from 0.0, so a first term of -0.0 (a gain over log2(0) =
        # -inf) leaves +0.0: adding 0.0 gives the running sum that sign.
        total = np.cumsum(terms, axis=1)[:, -1] + 0.0
    good = ideal_sum > 0.0
    out[good] = total[good] / ideal_sum[good]
    return _col(out)


def _c_log2(x: float) -> float:
    """C's ``log2``: glibc's value where defined (``math.log2`` calls it), -inf at 0 and NaN
    below (negative gains can make G's argument so), where Python raises."""
    if x > 0.0:
        return math.log2(x)
    return -math.inf if x == 0.0 else math.nan


def _bin_g(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """binG = Σ_{rel_i} 1 / log2(2 + non-relevant documents above i) / R."""
    if batch.width == 0:
        return np.zeros((batch.size, 1))
    above = batch.rank[None, :] + 2 - batch.tp  # trec_eval's 3 + i - H for 0-based i
    logs = _log2_of_int(batch.width + 3)[above]
    terms = np.where(batch.relevant, 1.0 / logs, 0.0)
    sums = np.cumsum(terms, axis=1)[:, -1]
    return _col(_over_relevant(batch, sums, batch.num_rel_ret))


def _rbp_persistence(request: MeasureRequest) -> float:
    p = 0.9
    for key, value in request.pairs:
        if key == "p":
            p = float(value)
    return p


def _powers(p: float, count: int) -> FloatArray:
    """p^0, p^1, ... by repeated multiplication (trec_eval's loop, not ``pow``)."""
    factors = np.full(count, p)
    factors[0] = 1.0
    return np.cumprod(factors)


def _rbp(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """rbp = (1 - p) Σ_i gain_i p^(i-1).

    As in trec_eval, a query's gains (its relevance values 0..max plus any ``v=gain``
    parameters) are rescaled to [0, 1] by (g - min) / (max - min) when they leave that range.
    """
    p = _rbp_persistence(request)
    table = _gain_table(batch, request, options)
    if batch.width == 0:
        return np.zeros((batch.size, 1))
    gains = _gains(batch, table)
    custom = dict(_gain_pairs(request))  # the last pair of a level wins, as in the table
    tops = (batch.num_rel_levels - 1).tolist()
    for row in range(batch.size):
        # The gains of the levels 0..top (the default where no pair names one; defaults
        # grow with the level, so the extremes are the first and last unnamed) and of every
        # pair: never enumerated, so a grade of 10**8 costs nothing.
        top = tops[row]
        values = list(custom.values())
        first, last = 0, top
        while first <= top and first in custom:
            first += 1
        while last >= 0 and last in custom:
            last -= 1
        if first <= last:
            values += [_default_gain(first, options), _default_gain(last, options)]
        if not values:
            continue
        own = {v: g for v, g in table.items() if 0 <= v <= top or v in custom}
        low, high = min(values), max(values)
        if low < 0 or high > 1:
            rels = batch.rels[row]
            with np.errstate(divide="ignore", invalid="ignore"):
                # A single gain above 1 scales by 0/0 = NaN, as in trec_eval's C.
                span = np.float64(high) - np.float64(low)
                for v, g in own.items():
                    gains[row, rels == v] = (np.float64(g) - low) / span
    terms = gains * _powers(p, batch.width)[None, :]
    sums = np.cumsum(terms, axis=1)[:, -1]
    return _col((1.0 - p) * sums)


def _rbp_resid(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """rbp_resid = p^n + (1 - p) Σ_{unjudged i} p^(i-1), when any retrieved doc is unjudged."""
    p = _rbp_persistence(request)
    powers = _powers(p, batch.width + 1)
    unjudged = (batch.rels < 0) & (batch.rels >= UNJUDGED)
    terms = np.where(unjudged, powers[None, : batch.width], 0.0)
    sums = np.cumsum(terms, axis=1)[:, -1] if batch.width else np.zeros(batch.size)
    value = powers[batch.num_ret] + (1 - p) * sums
    return _col(np.where(unjudged.any(axis=1), value, 0.0))


# ---------------------------------------------------------------------------------------------
# strings


def _relstring(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """First N relevance values: digit, '>' above 9, '-' not judged, '.' unjudged, '<' other."""
    length = min(int(request.params[0]), batch.width)  # a huge N shows every document
    width = max(0, length)
    rels = batch.rels[:, :width]
    chars = np.full(rels.shape, ord("<"), dtype=np.uint8)
    digit = (rels >= 0) & (rels <= 9)
    chars[digit] = (rels[digit] + ord("0")).astype(np.uint8)
    chars[rels > 9] = ord(">")
    chars[rels == NONPOOL] = ord("-")
    chars[rels == UNJUDGED] = ord(".")
    shown = np.minimum(batch.num_ret, max(length, 0))
    return [bytes(chars[row, : int(shown[row])]).decode("ascii") for row in range(batch.size)]


# ---------------------------------------------------------------------------------------------
# user-oriented measures (Baeza-Yates & Ribeiro-Neto): the known set U


def _known_batch(batch: QueryBatch, name: str) -> QueryBatch:
    """The same rankings judged against the known set: a document keeps its judgment when
    the user knew it, and is judged non-relevant (0) otherwise."""
    known = batch.sides.get("known")
    if known is None:
        raise ValueError(f"{name} needs the known set: pass known= (the documents the user "
                         "already knew, as a qrels file, dict or table)")
    return known


def _coverage(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """coverage = |relevant retrieved ∩ U| / |relevant ∩ U|; 0 when U holds no relevant
    document."""
    known = _known_batch(batch, "coverage")
    found, total = known.judged_rel_ret, known.num_rel
    return _col(_divide(found, total, total > 0))


def _novelty(batch: QueryBatch, request: MeasureRequest, options: MeasureOptions) -> Result:
    """novelty = |relevant retrieved not in U| / |relevant retrieved|; 0 when nothing
    relevant is retrieved."""
    known = _known_batch(batch, "novelty")
    found = batch.judged_rel_ret
    return _col(_divide(found - known.judged_rel_ret, found, found > 0))
