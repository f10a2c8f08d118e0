"""Summary values of a ranking: pure functions of curves and cumulative counts.

Two families live here, and both are shared by the single-query evaluator,
the multi-query evaluation and the command line:

* functions of cumulative counts along the **last axis** (``tp``, ``fp`` at
  ranks or operating points), so a 2-D array (queries x ranks, padded on the
  right with non-relevant rows) evaluates many queries at once;
* functions of a curve (trapezoid area, eleven-point precision, maximum F) and
  exact closed forms for tie blocks (expected precision and reciprocal rank
  under the ``"grouped"`` tie policy, the exact ROC pair count).

Sums run sequentially in rank order (``np.cumsum``), as LingPipe's and
trec_eval's loops do, so results agree with them bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: How the streaming evaluator ranks equal scores: in arrival order (``"insertion"``,
#: LingPipe's rule) or as one block whose values are expectations over its orders
#: (``"grouped"``, scikit-learn's rule).
TiePolicy = Literal["insertion", "grouped"]
TIE_POLICIES: tuple[TiePolicy, ...] = ("insertion", "grouped")

#: What a query without any relevant judgment contributes to a mean over queries: it scores 0
#: on every measure and counts (``"zero"``, trec_eval's rule) or it is left out (``"skip"``).
NoRelevant = Literal["zero", "skip"]
NO_RELEVANT: tuple[NoRelevant, ...] = ("zero", "skip")


__all__ = [
    "NO_RELEVANT",
    "PRECISION_AT_RANKS",
    "TIE_POLICIES",
    "InOrderSum",
    "NoRelevant",
    "TiePolicy",
    "ap_terms",
    "area_under_curve",
    "average_precision",
    "best_precision_from",
    "c_merge_sort",
    "eleven_point_interpolated_precision",
    "expected_precision_at",
    "expected_reciprocal_rank",
    "f_measure_array",
    "f_measure_of_count_arrays",
    "f_measure_of_counts",
    "first_at_levels",
    "maximum_f_measure",
    "mean_over_queries",
    "precision_at",
    "precision_of",
    "r_precision",
    "reciprocal_of_rank",
    "reciprocal_rank",
    "roc_auc_from_pairs",
    "sequential_total",
    "trapezoid_terms",
]


_T = TypeVar("_T")

#: The ranks of precision a report gives by default (LingPipe's ``toString()`` prints
#: precision at these ranks): the evaluator's ``report``, the command line, the partitioned
#: report and the engines all read this one tuple.
PRECISION_AT_RANKS = (5, 10, 25, 100, 500)


def c_merge_sort(items: list[_T], compare: Callable[[_T, _T], int]) -> list[_T]:
    """``items`` in the order glibc's ``qsort`` leaves them for ``compare``: its stable
    top-down merge sort (``msort``: the first half of n // 2, then the rest; on a tie the
    left run's item first). trec_eval sorts cutoffs and gains with comparators that are not
    consistent (``(int)(a - b)``), so the order they print and sum in is this algorithm's,
    not any sort's.

    >>> c_merge_sort([3, 1, 2], lambda a, b: a - b)
    [1, 2, 3]
    >>> c_merge_sort([2.5, 9.0, 2.0], lambda a, b: int(a - b))  # 2.5 and 2 compare equal
    [2.5, 2.0, 9.0]

    Complexity: O(n log n) calls of ``compare``.
    """
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = c_merge_sort(items[:half], compare), c_merge_sort(items[half:], compare)
    out: list[_T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _scalar_or_array(value: NDArray[Any]) -> Any:
    return float(value) if value.ndim == 0 else value


def _sequential_sum(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Sum along the last axis in order (``np.sum`` sums pairwise)."""
    if values.shape[-1] == 0:
        return np.zeros(values.shape[:-1], dtype=np.float64)
    return np.cumsum(values, axis=-1)[..., -1]


# Rows per block of the 1-D kernels below: temporaries stay in cache, and a
# million-row curve costs no million-row scratch array (allocating and
# freeing those, page faults included, took a third of a full report).
_BLOCK = 1 << 16


def _blocks(length: int) -> range:
    return range(0, length, _BLOCK)


class InOrderSum:
    """A left-to-right sum of terms fed block by block, in order: the sum every ordered
    value of rankeval uses (AP, trapezoid areas), so that a sum fed in pieces, on one
    machine or from the buckets of a partitioned evaluation, has the same bits.

    Zero terms are skipped, with the same bits as the plain loop: before the
    first nonzero term the running sum is ±0, which that term replaces
    exactly; after it the running sum is never -0.0 (two nonzero doubles never
    round to a zero of that sign), and adding ±0 to anything else changes
    nothing. Only a sum of zeros alone needs their signs: -0.0 iff all are.
    NaN terms are kept and make the sum NaN. Blocks may be overwritten.

    >>> total = InOrderSum()
    >>> total.add(np.array([0.1, 0.2])); total.add(np.array([0.3])); total.total()
    0.6000000000000001
    """

    __slots__ = ("_all_negative_zero", "_empty", "_running")

    def __init__(self) -> None:
        self._running: float | None = None  # the sum so far, once a nonzero term came
        self._all_negative_zero = True
        self._empty = True

    def add(self, terms: NDArray[np.float64]) -> None:
        """Add the next terms, in order."""
        if terms.shape[0] == 0:
            return
        self._empty = False
        count = np.count_nonzero(terms)  # NaN counts
        if count == 0:
            self._all_negative_zero = self._all_negative_zero and bool(np.signbit(terms).all())
            return
        nonzero = terms if count == terms.shape[0] else np.compress(terms != 0.0, terms)
        if self._running is not None:
            nonzero[0] += self._running
        self._running = float(np.cumsum(nonzero, out=nonzero)[-1])

    def total(self) -> float:
        """The sum of every term added so far (0.0 for none)."""
        if self._running is not None:
            return self._running
        return -0.0 if self._all_negative_zero and not self._empty else 0.0


def _in_order_sum(blocks: Iterable[NDArray[np.float64]]) -> float:
    """Left-to-right sum of terms given as consecutive blocks (:class:`InOrderSum`)."""
    total = InOrderSum()
    for terms in blocks:
        total.add(terms)
    return total.total()


def f_measure_array(beta: float, recall: ArrayLike, precision: ArrayLike) -> FloatArray:
    """LingPipe's ``fMeasure`` elementwise: ``((1 + b²)·r·p) / (r + b²·p)``.

    Evaluated left to right in IEEE double, so each element has the bits of
    the Java expression; 0/0 gives NaN. ``beta`` is not validated here.

    >>> f_measure_array(1.0, [0.5, 0.0], [0.5, 0.0]).tolist()
    [0.5, nan]

    Complexity: O(m).
    """
    b2 = beta * beta
    r, p = np.broadcast_arrays(
        np.asarray(recall, dtype=np.float64), np.asarray(precision, dtype=np.float64)
    )
    with np.errstate(all="ignore"):
        # ((1 + b²) * r * p) / (r + b² * p), operation by operation, in place
        # to save temporaries on long curves.
        numerator = np.multiply(1.0 + b2, r)
        numerator *= p
        denominator = np.multiply(b2, p)
        denominator += r
        numerator /= denominator
        return np.asarray(numerator, dtype=np.float64)


def f_measure_of_counts(beta: float, tp: int, fn: int, fp: int) -> float:
    """F_β from confusion counts: ``(1 + b²)·TP / ((1 + b²)·TP + b²·FN + FP)``.

    The second F formula, on purpose: :func:`f_measure_array` reproduces LingPipe's
    precision/recall form bit for bit and is 0/0 = NaN when TP = 0, while this count form is
    0 there as soon as FN + FP > 0 (scikit-learn's ``fbeta_score``); for TP > 0 the two agree
    to the last bit or one ulp. It is divided through by ``1 + b²`` (``TP / (TP + w·FN +
    u·FP)`` with ``u = 1/(1 + b²)``, ``w = b²·u``) so that a large β cannot overflow. ``beta``
    is validated by callers (:func:`rankeval.checks.check_beta`).

    >>> f_measure_of_counts(1.0, 150, 40, 60), f_measure_of_counts(1.0, 0, 1, 1)
    (0.75, 0.0)

    Undefined when TP + FN + FP = 0 (NaN). Complexity: O(1).
    """
    denominator: float = _f_denominator(beta, tp, fn, fp)
    if denominator == 0.0:
        return math.nan
    return tp / denominator


def _f_denominator(beta: float, tp: Any, fn: Any, fp: Any) -> Any:
    """``TP + w·FN + u·FP``, the count form's denominator (scalars or arrays alike)."""
    b2 = beta * beta
    u = 1.0 / (1.0 + b2)
    w = b2 * u
    return tp + w * fn + u * fp


def f_measure_of_count_arrays(beta: float, tp: ArrayLike, fn: ArrayLike,
                              fp: ArrayLike) -> NDArray[np.float64]:
    """:func:`f_measure_of_counts` elementwise, the same arithmetic in the same order (so
    the same bits at each element); NaN where TP + FN + FP = 0.

    >>> f_measure_of_count_arrays(1.0, np.array([150, 0]), np.array([40, 1]),
    ...                           np.array([60, 1])).tolist()
    [0.75, 0.0]
    """
    tp = np.asarray(tp)
    denominator = _f_denominator(beta, tp, np.asarray(fn), np.asarray(fp))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(denominator == 0.0, math.nan, tp / denominator),
                          dtype=np.float64)


def average_precision(tp: ArrayLike, fp: ArrayLike, num_pos: ArrayLike) -> Any:
    """Average precision: Σ Δtp · tp/(tp+fp) over operating points, divided by R.

    With one operating point per rank this is (Σ over relevant ranks of the
    precision there) / R, LingPipe's ``averagePrecision`` and trec_eval's
    ``map``; with one point per tie block it is sklearn's Σ ΔR · P. Relevant
    items never ranked (misses) count in R and add nothing to the sum.

    Undefined when R = 0 (NaN; trec_eval callers substitute 0).

    >>> average_precision([0, 1, 1, 2, 3, 3, 3, 3, 4, 4], [1, 1, 2, 2, 2, 3, 4, 5, 5, 6], 5)
    0.40888888888888886

    Complexity: O(m) along the last axis.
    """
    tp_a, fp_a = count_array(tp), count_array(fp)
    with np.errstate(divide="ignore", invalid="ignore"):
        if tp_a.ndim == 1:
            blocks = (_ap_terms(tp_a, fp_a, start) for start in _blocks(tp_a.shape[0]))
            total: Any = _in_order_sum(blocks)
        else:
            total = _sequential_sum(_ap_terms(tp_a, fp_a, 0))
        return _scalar_or_array(total / np.asarray(num_pos, dtype=np.float64))


def count_array(counts: ArrayLike) -> NDArray[Any]:
    """Counts as int64, or as float64 when they are weights (sums of case weights: a
    weighted evaluator's true and false positives). Integer-valued weights below 2^53 give
    the same float operations on the same values, so the same bits, as the counts."""
    array = np.asarray(counts)
    return np.asarray(array, dtype=count_dtype(array))


def count_dtype(counts: NDArray[Any]) -> Any:
    """The dtype counts are kept in: float64 for sums of weights (a float64 array), else
    int64 (counts, or labels counted)."""
    return np.float64 if counts.dtype == np.float64 else np.int64


def _ap_terms(tp: NDArray[np.int64], fp: NDArray[np.int64], start: int) -> FloatArray:
    """``Δtp · tp/(tp+fp)`` along the last axis, for rows ``start:start + _BLOCK`` if 1-D."""
    if tp.ndim == 1:
        stop = min(start + _BLOCK, tp.shape[0])
        previous = tp[start - 1] if start else 0
        tp, fp = tp[start:stop], fp[start:stop]
    else:
        previous = 0
    return ap_terms(tp, fp, previous)


def ap_terms(tp: NDArray[np.int64], fp: NDArray[np.int64], previous: Any = 0) -> FloatArray:
    """The terms ``Δtp · tp/(tp+fp)`` of :func:`average_precision` along the last axis,
    ``previous`` being the true positives before the first point (0 at the top).

    >>> ap_terms(np.array([1, 1, 2]), np.array([0, 1, 1]), 0).tolist()
    [1.0, 0.0, 0.6666666666666666]
    """
    delta = np.empty_like(tp)
    np.subtract(tp[..., :1], previous, out=delta[..., :1])
    np.subtract(tp[..., 1:], tp[..., :-1], out=delta[..., 1:])
    terms: FloatArray = np.divide(tp, tp + fp)
    terms *= delta
    return terms


def best_precision_from(precision: ArrayLike) -> FloatArray:
    """Interpolated precision: at each point, the highest precision there or at any later point.

    This is the "maximum precision at equal or higher recall" of both LingPipe's
    interpolated PR curve and trec_eval's ``iprec_at_recall``, along the last axis.

    >>> best_precision_from([0.5, 1.0, 0.25, 0.4]).tolist()
    [1.0, 1.0, 0.4, 0.4]

    Complexity: O(m) along the last axis.
    """
    values = np.asarray(precision, dtype=np.float64)
    return np.maximum.accumulate(values[..., ::-1], axis=-1)[..., ::-1]


def precision_of(hits: ArrayLike, rank: ArrayLike) -> Any:
    """Precision at a cutoff: ``hits / rank``, and 1.0 at rank 0 (nothing asked, nothing wrong).

    ``hits`` counts the relevant items among the top ``min(rank, n)``; places past the ranking
    count as non-relevant because the divisor stays ``rank``. Every precision-at-k in
    rankeval ends here: LingPipe's ``precisionAt``, trec_eval's ``P_k`` and ``Rprec``.

    >>> precision_of(3, 5), precision_of(0, 0)
    (0.6, 1.0)

    Complexity: O(1) per element.
    """
    h = np.asarray(hits, dtype=np.float64)
    k = np.asarray(rank, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _scalar_or_array(np.where(k > 0, h / np.where(k > 0, k, 1.0), 1.0))


def reciprocal_of_rank(first_rank: ArrayLike) -> Any:
    """Reciprocal rank from the 1-based rank of the first relevant item (0 when there is none).

    >>> reciprocal_of_rank(2), reciprocal_of_rank(0)
    (0.5, 0.0)

    Complexity: O(1) per element.
    """
    rank = np.asarray(first_rank, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return _scalar_or_array(np.where(rank > 0, 1.0 / np.where(rank > 0, rank, 1.0), 0.0))


def precision_at(tp: ArrayLike, rank: int) -> Any:
    """:func:`precision_of` at ``rank``, reading the hits from cumulative counts ``tp``.

    ``tp`` holds the cumulative count of relevant items at ranks 1..n along its last axis
    (several queries at once when 2-D). Ranks beyond the ranking count as non-relevant
    (trec_eval's ``P_k``, LingPipe's ``precisionAt``); rank 0 gives 1.0.

    >>> precision_at([0, 1, 1, 2, 3], 5), precision_at([0, 1, 1, 2, 3], 100)
    (0.6, 0.03)

    Complexity: O(1).
    """
    tp_a = np.asarray(tp, dtype=np.int64)
    k = min(rank, tp_a.shape[-1])
    hits = tp_a[..., k - 1] if k else np.zeros(tp_a.shape[:-1], dtype=np.int64)
    return precision_of(hits, rank)


def r_precision(hits_at_r: ArrayLike, num_pos: ArrayLike) -> Any:
    """R-precision: :func:`precision_of` at rank R = ``num_pos``; 1.0 when R = 0.

    ``hits_at_r`` counts the relevant items among the top R (misses count in R, and places
    past the ranking count as non-relevant), so this is also the break-even point of the
    precision-recall curve. trec_eval's ``Rprec`` is the same value with 0 for R = 0: its
    caller substitutes that.

    >>> r_precision(3, 5), r_precision(0, 0)
    (0.6, 1.0)

    Complexity: O(1) per element.
    """
    return precision_of(hits_at_r, num_pos)


def reciprocal_rank(tp: ArrayLike) -> Any:
    """:func:`reciprocal_of_rank` of the first rank where cumulative ``tp`` reaches 1.

    >>> reciprocal_rank([0, 1, 1]), reciprocal_rank([0, 0])
    (0.5, 0.0)

    Complexity: O(n) along the last axis.
    """
    tp_a = np.asarray(tp, dtype=np.int64)
    hit = tp_a >= 1
    first = np.argmax(hit, axis=-1)
    found = (
        np.take_along_axis(hit, first[..., None], axis=-1)[..., 0] if hit.shape[-1] else hit.any(-1)
    )
    return reciprocal_of_rank(np.where(found, first + 1, 0))


def expected_precision_at(
    pos_above: int, tied_pos: int, tied: int, above: int, rank: int
) -> float:
    """Precision at ``rank`` averaged over every order inside the straddling tie block.

    ``above`` cases (``pos_above`` of them positive) rank strictly above the
    block of ``tied`` cases (``tied_pos`` positive) that holds the last of the
    top ``min(rank, n)`` places. Computed exactly and rounded once.

    >>> expected_precision_at(pos_above=1, tied_pos=1, tied=2, above=1, rank=2)
    0.75

    Complexity: O(1).
    """
    if rank == 0 or tied == 0:
        return float(precision_of(pos_above, rank))
    places = min(rank, above + tied) - above
    return (pos_above * tied + tied_pos * places) / (tied * rank)


def expected_reciprocal_rank(above: int, tied_pos: int, tied_neg: int) -> float:
    """Exact E[1/rank of the first positive] when it lies in a tie block.

    ``above`` negatives rank strictly above a block of ``tied_pos`` positives
    and ``tied_neg`` negatives in uniformly random order. With J the position
    of the first positive in the block, P(J = j) = C(p+m-j, p-1) / C(p+m, p),
    computed as a running product; the sum runs in order of j and stops once
    the probability underflows to 0.

    >>> expected_reciprocal_rank(0, 1, 1)  # ranks 1 or 2, each half the time
    0.75

    Complexity: O(m) for m tied negatives.
    """
    if tied_pos == 0:
        return 0.0
    if tied_neg == 0:
        return float(reciprocal_of_rank(above + 1))
    p, m = tied_pos, tied_neg
    j = np.arange(1, m + 2, dtype=np.float64)
    ratios = np.empty(m + 1, dtype=np.float64)
    ratios[0] = p / (p + m)
    # P(J = j+1) / P(J = j) = (m - j + 1) / (p + m - j)
    ratios[1:] = (m - j[:-1] + 1.0) / (p + m - j[:-1])
    probabilities = np.cumprod(ratios)
    return _in_order_sum([probabilities / (above + j)])


def roc_auc_from_pairs(
    doubled_pairs: float, pos_added: float, pos_missed: int, neg_added: float, neg_missed: int
) -> float:
    """Exact area under the uninterpolated ROC curve from its pair count.

    ``doubled_pairs`` is twice the number of (positive, negative) pairs of ranked
    cases with the positive above the negative, tied pairs counting one half
    under the grouped policy. Ranked positives beat every negative miss, and a
    positive miss against a negative miss counts one half (the closing
    diagonal to ``[1, 1]``). The rational value is rounded once, so it is at
    least as accurate as LingPipe's trapezoid sum (they agree to ~1e-15).

    Undefined when a case has been ranked and R = 0 or N = 0 (NaN); 0.5 with
    nothing ranked (the diagonal). Weighted cases give the pair count and the totals in
    sums of weights (floats).

    >>> roc_auc_from_pairs(2 * 14, 4, 1, 6, 0)
    0.4666666666666667

    Complexity: O(1).
    """
    num_pos = pos_added + pos_missed
    num_neg = neg_added + neg_missed
    if pos_added + neg_added == 0:
        return 0.5
    if num_pos == 0 or num_neg == 0:
        return math.nan
    numerator = doubled_pairs + 2 * pos_added * neg_missed + pos_missed * neg_missed
    return numerator / (2 * num_pos * num_neg)


def area_under_curve(curve: FloatArray) -> float:
    """Trapezoid rule over consecutive rows ``(x, y)``, summed in row order.

    Any NaN point makes the area NaN.

    >>> area_under_curve(np.array([[0.0, 0.0], [0.5, 1.0], [1.0, 1.0]]))
    0.75

    Complexity: O(m).
    """
    x = curve[:, 0]
    y = curve[:, 1]

    def trapezoids(start: int) -> FloatArray:
        stop = min(start + _BLOCK, x.shape[0] - 1)
        return trapezoid_terms(x[start : stop + 1], y[start : stop + 1])

    return _in_order_sum(trapezoids(start) for start in _blocks(x.shape[0] - 1))


def trapezoid_terms(x: FloatArray, y: FloatArray) -> FloatArray:
    """The trapezoids ``(y_i + y_i+1) · (x_i+1 - x_i) / 2`` between consecutive rows.

    >>> trapezoid_terms(np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])).tolist()
    [0.25, 0.5]
    """
    terms = np.add(y[:-1], y[1:])
    terms *= x[1:] - x[:-1]
    terms /= 2.0
    return terms


_ELEVEN_LEVELS = np.arange(11) * 0.1  # 0.1 * i in double: 0.30000000000000004 at i = 3


def eleven_point_interpolated_precision(interpolated_pr: FloatArray) -> FloatArray:
    """Precision of the first interpolated row with recall + 1e-13 ≥ 0.1·i, i = 0..10.

    Takes the output of ``pr_curve(points, interpolate=True)``; a level no row
    reaches gets 0.0, NaN recalls never qualify (LingPipe).

    Complexity: O(m).
    """
    found, values = first_at_levels(interpolated_pr[:, 0], interpolated_pr[:, 1])
    out = np.where(found, values, 0.0)
    out.flags.writeable = False
    return out


def first_at_levels(recall: FloatArray, precision: FloatArray) -> tuple[BoolArray, FloatArray]:
    """For each level 0.1·i, i = 0..10: whether some row has recall + 1e-13 ≥ it, and the
    precision of the first such row (0.0 where none does). NaN recalls never qualify.

    Complexity: O(m).
    """
    if recall.shape[0] == 0:
        return np.zeros(11, dtype=np.bool_), np.zeros(11, dtype=np.float64)
    shifted = recall + 1e-13
    with np.errstate(invalid="ignore"):
        qualifies = shifted[None, :] >= _ELEVEN_LEVELS[:, None]
    first = np.argmax(qualifies, axis=1)
    found = qualifies[np.arange(11), first]
    return found, np.where(found, precision[first], 0.0)


def maximum_f_measure(pr: FloatArray, beta: float) -> float:
    """Largest F_β over the rows of an uninterpolated PR curve, limit points included.

    Starts from 0.0; a NaN F at any row makes the result NaN (Java's
    ``Math.max``), so it is NaN when R = 0 and a case has been ranked.

    Complexity: O(m).
    """
    best = 0.0
    for start in _blocks(pr.shape[0]):
        rows = pr[start : start + _BLOCK]
        top = float(f_measure_array(beta, rows[:, 0], rows[:, 1]).max())  # NaN if any is
        if math.isnan(top):
            return math.nan
        best = max(best, top)
    return best


def sequential_total(values: ArrayLike) -> float:
    """Sum of a 1-D array from left to right (trec_eval accumulates query by query).

    >>> sequential_total([0.1, 0.2, 0.3]), sequential_total([])
    (0.6000000000000001, 0.0)

    Complexity: O(n).
    """
    array = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(array)[-1]) if array.size else 0.0


def mean_over_queries(values: ArrayLike, count: int) -> float:
    """The mean over queries of every evaluation in rankeval: in-order sum / ``count``.

    ``values`` are the evaluated queries' values in query order; ``count`` is how many queries
    the mean covers (it can exceed ``len(values)`` when queries that score 0 are not listed,
    as trec_eval 9 does under ``-c``). Which queries are evaluated at all is decided by the
    :data:`NoRelevant` rule before this is called.

    Undefined when ``count`` is 0 (NaN).

    >>> mean_over_queries([0.5, 0.0], 2)
    0.25

    Complexity: O(n).
    """
    return sequential_total(values) / count if count else math.nan
