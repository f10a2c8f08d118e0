"""Unscored evaluation from confusion counts: binary and multi-class.

:class:`PrecisionRecallEvaluation` is the 2x2 confusion matrix of LingPipe's class of the
same name (reference = the truth, response = the system's decision).
:class:`MultiClassEvaluation` holds a K x K confusion matrix over arbitrary hashable labels
and gives one-vs-rest views, micro and macro averages and Cohen's kappa, with
scikit-learn's definitions. :func:`f_measure` is LingPipe's static ``fMeasure``, bit for bit.

Every ratio of counts is computed as an exact ``int / int`` division (correctly rounded),
and every undefined value (a 0/0) is ``nan``, never a quiet 0.

>>> ev = PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250)
>>> ev.accuracy()
0.8
>>> ev.cost(CostMatrix(tp=-1, fn=100, fp=1, tn=0))
3910.0
>>> fruit = MultiClassEvaluation.from_labels(
...     ["orange"] * 5 + ["lemon"] * 2 + ["apple"] * 2,
...     ["lemon", "lemon", "apple", "orange", "apple", "lemon", "apple", "apple", "apple"])
>>> round(fruit.micro_precision(), 4), round(fruit.macro_precision(), 4)
(0.4444, 0.5778)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval import formulas
from rankeval.checks import (
    check_beta,
    check_choice,
    check_correct,
    check_hashable,
    check_int,
    check_real,
    check_weight,
)

__all__ = [
    "ConfusionMatrix",
    "CostMatrix",
    "MultiClassEvaluation",
    "PrecisionRecallEvaluation",
    "Undefined",
    "f_measure",
    "f_measure_array",
]

L = TypeVar("L", bound=Hashable)

Undefined = Literal["nan", "skip", "zero"]
"""How a macro average treats classes whose own value is undefined (0/0).

``"nan"``: the average is ``nan`` (the default: undefined is loud).
``"skip"``: average over the defined classes only (scikit-learn ``zero_division=np.nan``).
``"zero"``: count undefined classes as 0 (scikit-learn ``zero_division=0``).
"""

_UNDEFINED_POLICIES: tuple[Undefined, ...] = ("nan", "skip", "zero")


def _set_weights(ev: PrecisionRecallEvaluation, *cells: float) -> None:
    """Give a confusion matrix sums of weights as its four cells (tp, fn, fp, tn)."""
    for name, value in zip(("_tp", "_fn", "_fp", "_tn"), cells, strict=True):
        setattr(ev, name, value)


def _ratio(numerator: int, denominator: int) -> float:
    """Exact, correctly rounded ``numerator / denominator``; ``nan`` for a zero denominator.

    Every caller passes counts with ``0 <= numerator <= denominator``-style constraints, so a
    zero denominator only ever comes with a zero numerator: a genuine 0/0.
    """
    if denominator == 0:
        return math.nan
    return numerator / denominator


def _ratio_or_inf(numerator: int, denominator: int, positives: int, negatives: int) -> float:
    """A likelihood ratio ``numerator / denominator``: ``nan`` without positives or negatives
    or for 0/0, ``inf`` for a positive numerator over 0, else one rounded division."""
    if positives == 0 or negatives == 0 or numerator == denominator == 0:
        return math.nan
    if denominator == 0:
        return math.inf
    return numerator / denominator


# ---------------------------------------------------------------------------------------------
# F-measure (LingPipe's static fMeasure)
# ---------------------------------------------------------------------------------------------


def _f_measure_unchecked(beta: float, recall: float, precision: float) -> float:
    """LingPipe's static ``fMeasure`` with no validation, bit-exact with the Java code.

    For hot paths that have validated ``beta`` once already. Any ``beta`` (0, negative, NaN,
    infinite) gives Java's result, as do NaN or infinite ``recall`` / ``precision``. The
    formula itself lives in :func:`rankeval.formulas.f_measure_array`.

    >>> _f_measure_unchecked(1.0, 0.0, 0.0)
    nan
    """
    return float(formulas.f_measure_array(float(beta), float(recall), float(precision)))


def f_measure(beta: float, recall: float, precision: float) -> float:
    """F-measure of a recall and a precision (LingPipe's static ``fMeasure``).

    Parameters
    ----------
    beta : float
        Relative weight of recall: ``beta > 1`` favours recall, ``beta < 1`` precision
        (F tends to recall as beta grows). Must be finite and > 0.
    recall, precision : float
        Any real numbers; NaN propagates.

    Returns
    -------
    float
        ``((1 + b2) * recall * precision) / (recall + b2 * precision)`` with
        ``b2 = beta * beta``, evaluated left to right in IEEE double exactly as LingPipe does,
        so the result is bit-identical to the Java method (including ``nan`` and ``±inf``
        where Java's division by zero gives them).

    Raises
    ------
    TypeError
        If an argument is not a real number (bools are rejected).
    ValueError
        If ``beta`` is not finite or not > 0 (LingPipe accepts those and returns NaN or
        ``|beta|``'s value; rankeval refuses them).

    Notes
    -----
    This is the weighted harmonic mean of precision and recall.
    Undefined when ``recall + b2 * precision == 0`` with a zero numerator, e.g.
    ``recall == precision == 0``: ``nan`` (Java's 0/0).
    Complexity: O(1).

    Examples
    --------
    The two F1 examples of the IR course notes:

    >>> f_measure(1.0, 0.7, 0.4)
    0.509090909090909
    >>> f_measure(1.0, 0.7, 0.5)
    0.5833333333333334
    >>> f_measure(1.0, 0.0, 0.0)
    nan
    """
    checked_beta = check_beta(beta)
    return _f_measure_unchecked(
        checked_beta, check_real(recall, "recall"), check_real(precision, "precision")
    )


def f_measure_array(beta: float, recall: ArrayLike, precision: ArrayLike) -> NDArray[np.float64]:
    """Elementwise :func:`f_measure` over arrays, with the same bits as the scalar function.

    Parameters
    ----------
    beta : float
        Finite and > 0.
    recall, precision : array_like
        Broadcastable arrays of reals, converted to ``float64``.

    Returns
    -------
    numpy.ndarray
        ``float64`` array of the broadcast shape; ``nan`` where Java's formula gives NaN
        (e.g. ``recall == precision == 0``), ``±inf`` where it divides a non-zero by zero.
        No floating-point warnings are emitted.

    Raises
    ------
    TypeError
        If ``beta`` is not a real number.
    ValueError
        If ``beta`` is not finite or not > 0.

    Notes
    -----
    Undefined when ``recall + b2 * precision == 0`` with a zero numerator: ``nan``.
    Complexity: O(n) for n elements.

    Examples
    --------
    >>> f_measure_array(1.0, [0.7, 0.7, 0.0], [0.4, 0.5, 0.0])
    array([0.50909091, 0.58333333,        nan])
    """
    return formulas.f_measure_array(check_beta(beta), recall, precision)


# ---------------------------------------------------------------------------------------------
# Cost matrix
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CostMatrix:
    """Cost of each cell of a 2x2 confusion matrix; keyword-only so no cell is misplaced.

    Parameters
    ----------
    tp : float
        Cost of a true positive (reference positive, response positive).
    fn : float
        Cost of a false negative (reference positive, response negative).
    fp : float
        Cost of a false positive (reference negative, response positive).
    tn : float
        Cost of a true negative (reference negative, response negative).

    Raises
    ------
    TypeError
        If a cost is not a real number (bools are rejected).
    ValueError
        If a cost is NaN or infinite.

    Notes
    -----
    Costs may be negative (a gain). Ints are kept as ints, so an all-int cost matrix gives an
    exact total. Complexity: O(1).

    Examples
    --------
    The cost matrix of the IR course notes (a miss is 100 times worse than a false alarm):

    >>> CostMatrix(tp=-1, fn=100, fp=1, tn=0)
    CostMatrix(tp=-1, fn=100, fp=1, tn=0)
    """

    tp: float
    fn: float
    fp: float
    tn: float

    def __post_init__(self) -> None:
        for name in ("tp", "fn", "fp", "tn"):
            value = getattr(self, name)
            if math.isinf(check_real(value, name)) or math.isnan(float(value)):
                raise ValueError(f"{name} must be a finite cost; got {value!r}")
            if isinstance(value, numbers.Integral):
                object.__setattr__(self, name, int(value))
            else:
                object.__setattr__(self, name, float(value))

    @classmethod
    def from_mapping(cls, costs: Mapping[str, float]) -> CostMatrix:
        """Build from a mapping with exactly the keys ``tp, fn, fp, tn`` (any letter case).

        Parameters
        ----------
        costs : Mapping[str, float]
            For example ``{"TP": -1, "FN": 100, "FP": 1, "TN": 0}``.

        Returns
        -------
        CostMatrix

        Raises
        ------
        ValueError
            If the keys are not exactly the four cells.
        TypeError
            If ``costs`` is not a mapping with string keys, or a cost is not a real number.

        Notes
        -----
        Complexity: O(1).

        Examples
        --------
        >>> CostMatrix.from_mapping({"TP": -1, "FN": 100, "FP": 1, "TN": 0})
        CostMatrix(tp=-1, fn=100, fp=1, tn=0)
        """
        if not isinstance(costs, Mapping):
            raise TypeError(f"costs must be a mapping of tp/fn/fp/tn to costs; got {costs!r}")
        by_cell: dict[str, float] = {}
        for key, value in costs.items():
            if not isinstance(key, str):
                raise TypeError(f"costs keys must be strings; got {key!r}")
            by_cell[key.lower()] = value
        if sorted(by_cell) != ["fn", "fp", "tn", "tp"] or len(costs) != 4:
            raise ValueError(
                f"costs must have exactly the keys tp, fn, fp, tn; got {sorted(costs)!r}"
            )
        return cls(tp=by_cell["tp"], fn=by_cell["fn"], fp=by_cell["fp"], tn=by_cell["tn"])

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[float]]) -> CostMatrix:
        """Build from nested rows ``[[tp, fn], [fp, tn]]``.

        Rows are the reference (positive, negative), columns the response (positive,
        negative). This is **not** scikit-learn's ``confusion_matrix`` layout for labels
        ``[0, 1]``, which is ``[[tn, fp], [fn, tp]]``; prefer keywords or a mapping.

        Parameters
        ----------
        rows : Sequence[Sequence[float]]
            A 2x2 nested sequence.

        Returns
        -------
        CostMatrix

        Raises
        ------
        ValueError
            If ``rows`` is not 2x2.
        TypeError
            If ``rows`` is not a nested sequence, or a cost is not a real number.

        Notes
        -----
        Complexity: O(1).

        Examples
        --------
        >>> CostMatrix.from_rows([[-1, 100], [1, 0]])
        CostMatrix(tp=-1, fn=100, fp=1, tn=0)
        """
        if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
            raise TypeError(
                f"rows must be a 2x2 nested sequence [[tp, fn], [fp, tn]]; got {rows!r}"
            )
        if len(rows) != 2 or any(
            isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or len(row) != 2
            for row in rows
        ):
            raise ValueError(
                f"rows must be a 2x2 nested sequence [[tp, fn], [fp, tn]]; got {rows!r}"
            )
        (tp, fn), (fp, tn) = rows
        return cls(tp=tp, fn=fn, fp=fp, tn=tn)


def _as_cost_matrix(
    cost_matrix: CostMatrix | Mapping[str, float] | Sequence[Sequence[float]],
) -> CostMatrix:
    if isinstance(cost_matrix, CostMatrix):
        return cost_matrix
    if isinstance(cost_matrix, Mapping):
        return CostMatrix.from_mapping(cost_matrix)
    if isinstance(cost_matrix, Sequence) and not isinstance(cost_matrix, (str, bytes)):
        return CostMatrix.from_rows(cost_matrix)
    raise TypeError(
        "cost_matrix must be a CostMatrix, a mapping of tp/fn/fp/tn, or rows "
        f"[[tp, fn], [fp, tn]]; got {cost_matrix!r}"
    )


# ---------------------------------------------------------------------------------------------
# Binary evaluation
# ---------------------------------------------------------------------------------------------


class _FMeasureAlias:
    """LingPipe's overloaded ``fMeasure``: static ``(beta, recall, precision)`` or instance.

    On the class, ``PrecisionRecallEvaluation.fMeasure(beta, recall, precision)`` is
    :func:`f_measure`. On an instance, ``ev.fMeasure()`` / ``ev.fMeasure(beta)`` is
    :meth:`PrecisionRecallEvaluation.f_measure`, and the three-argument form is again the
    static one, as Java allows.
    """

    @overload
    def __get__(
        self, obj: None, objtype: type | None = None
    ) -> Callable[[float, float, float], float]: ...

    @overload
    def __get__(
        self, obj: PrecisionRecallEvaluation, objtype: type | None = None
    ) -> Callable[..., float]: ...

    def __get__(
        self, obj: PrecisionRecallEvaluation | None, objtype: type | None = None
    ) -> Callable[..., float]:
        if obj is None:
            return f_measure
        evaluation = obj

        def f_measure_alias(*args: float) -> float:
            if len(args) == 3:
                return f_measure(*args)
            if len(args) <= 1:
                return evaluation.f_measure(*args)
            raise TypeError(
                f"fMeasure takes (), (beta) or (beta, recall, precision); got {len(args)} arguments"
            )

        return f_measure_alias


class PrecisionRecallEvaluation:
    """The 2x2 confusion matrix of binary decisions, with the statistics derived from it.

    The reference is the truth, the response the system's decision. Each case lands in one
    cell: true positive (reference and response positive), false negative (reference
    positive, response negative), false positive (reference negative, response positive) or
    true negative. Counts are Python ints (no overflow).

    Parameters
    ----------
    tp, fn, fp, tn : int or numpy.integer
        Initial counts, keyword-only (LingPipe's ``PrecisionRecallEvaluation(tp, fn, fp, tn)``
        takes them positionally; here a misordered call fails loudly instead).

    Raises
    ------
    TypeError
        If a count is not an int (bools and floats are rejected).
    ValueError
        If a count is negative.

    Notes
    -----
    Every ratio is an exact ``int / int`` division, correctly rounded; every ratio whose
    denominator is 0 is ``nan``. LingPipe's camelCase names are thin aliases:
    ``addCase``, ``truePositive``, ``falsePositive``, ``trueNegative``, ``falseNegative``,
    ``positiveReference``, ``negativeReference``, ``positiveResponse``, ``negativeResponse``,
    ``correctResponse``, ``incorrectResponse``, ``total`` (a method in LingPipe: use
    ``total_cases()``), ``precision``, ``recall``, ``rejectionRecall``, ``rejectionPrecision``,
    ``fMeasure`` (static or instance, as in Java), ``accuracy``, ``errorRate``,
    ``randomAccuracy``, ``kappa``.

    Examples
    --------
    The left-hand example of the cost discussion in the IR course notes:

    >>> ev = PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250)
    >>> ev
    PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250)
    >>> ev.precision(), ev.recall(), ev.accuracy()
    (0.7142857142857143, 0.7894736842105263, 0.8)
    >>> ev.truePositive(), ev.rejectionRecall() == ev.specificity()
    (150, True)
    >>> PrecisionRecallEvaluation.fMeasure(1.0, 0.7, 0.4)
    0.509090909090909
    """

    __slots__ = ("_fn", "_fp", "_tn", "_tp")

    def __init__(
        self,
        *,
        tp: int | np.integer[Any] = 0,
        fn: int | np.integer[Any] = 0,
        fp: int | np.integer[Any] = 0,
        tn: int | np.integer[Any] = 0,
    ) -> None:
        counts = tuple(
            check_int(value, name, minimum=0)
            for name, value in (("tp", tp), ("fn", fn), ("fp", fp), ("tn", tn))
        )
        self._tp, self._fn, self._fp, self._tn = counts

    @classmethod
    def of_weights(cls, *, tp: float = 0.0, fn: float = 0.0, fp: float = 0.0,
                   tn: float = 0.0) -> PrecisionRecallEvaluation:
        """The confusion matrix of weighted cases: each cell the sum of its cases' weights
        (finite, non-negative floats; scikit-learn's ``confusion_matrix(sample_weight=)``).
        Every rate is then a float division of those sums; with integer sums below 2^53, the
        same bits as the counts'. The decision reads of a weighted evaluator give these.

        >>> PrecisionRecallEvaluation.of_weights(tp=1.5, fn=0.5, fp=1.0, tn=3.0).recall()
        0.75
        """
        ev = cls.__new__(cls)
        _set_weights(ev, *(check_weight(value, name) for name, value in
                           (("tp", tp), ("fn", fn), ("fp", fp), ("tn", tn))))
        return ev

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of weights (:meth:`of_weights`)."""
        return type(self._tp) is float

    # -- mutation ------------------------------------------------------------------------------

    def add_case(self, reference: bool, response: bool) -> None:
        """Add one case to the matching cell.

        Parameters
        ----------
        reference : bool
            Whether the case is truly positive. A ``bool``, NumPy bool, or the int 0 or 1.
        response : bool
            Whether the system said positive. Same types as ``reference``.

        Raises
        ------
        TypeError
            If an argument is not a bool, NumPy bool or int.
        ValueError
            If an argument is an int other than 0 or 1.
            The evaluation is unchanged when anything is raised.

        Notes
        -----
        Complexity: O(1).

        Examples
        --------
        >>> ev = PrecisionRecallEvaluation()
        >>> ev.add_case(True, True)
        >>> ev.add_case(False, True)
        >>> ev
        PrecisionRecallEvaluation(tp=1, fn=0, fp=1, tn=0)
        """
        ref = check_correct(reference, "reference")
        resp = check_correct(response, "response")
        if ref:
            if resp:
                self._tp += 1
            else:
                self._fn += 1
        elif resp:
            self._fp += 1
        else:
            self._tn += 1

    def merge(self, other: PrecisionRecallEvaluation) -> None:
        """Add another evaluation's counts to this one (``other`` is unchanged).

        Parameters
        ----------
        other : PrecisionRecallEvaluation

        Raises
        ------
        TypeError
            If ``other`` is not a :class:`PrecisionRecallEvaluation`.

        Notes
        -----
        Merging equals adding the other's cases one by one. Complexity: O(1).

        Examples
        --------
        >>> ev = PrecisionRecallEvaluation(tp=1)
        >>> ev.merge(PrecisionRecallEvaluation(tp=2, tn=5))
        >>> ev
        PrecisionRecallEvaluation(tp=3, fn=0, fp=0, tn=5)
        """
        if not isinstance(other, PrecisionRecallEvaluation):
            raise TypeError(f"other must be a PrecisionRecallEvaluation; got {other!r}")
        tp, fn, fp, tn = other._tp, other._fn, other._fp, other._tn
        if self.weighted or other.weighted:  # sums of weights: all four stay floats
            _set_weights(self, float(self._tp + tp), float(self._fn + fn),
                         float(self._fp + fp), float(self._tn + tn))
            return
        self._tp += tp
        self._fn += fn
        self._fp += fp
        self._tn += tn

    # -- counts --------------------------------------------------------------------------------

    @property
    def true_positive(self) -> int:
        """Number of cases with positive reference and positive response.

        >>> PrecisionRecallEvaluation(tp=3).true_positive
        3
        """
        return self._tp

    @property
    def false_negative(self) -> int:
        """Number of cases with positive reference and negative response.

        >>> PrecisionRecallEvaluation(fn=3).false_negative
        3
        """
        return self._fn

    @property
    def false_positive(self) -> int:
        """Number of cases with negative reference and positive response.

        >>> PrecisionRecallEvaluation(fp=3).false_positive
        3
        """
        return self._fp

    @property
    def true_negative(self) -> int:
        """Number of cases with negative reference and negative response.

        >>> PrecisionRecallEvaluation(tn=3).true_negative
        3
        """
        return self._tn

    @property
    def total(self) -> int:
        """Number of cases, ``TP + FN + FP + TN``.

        >>> PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4).total
        10
        """
        return self._tp + self._fn + self._fp + self._tn

    @property
    def positive_reference(self) -> int:
        """Number of truly positive cases, ``TP + FN``.

        >>> PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4).positive_reference
        3
        """
        return self._tp + self._fn

    @property
    def negative_reference(self) -> int:
        """Number of truly negative cases, ``FP + TN``.

        >>> PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4).negative_reference
        7
        """
        return self._fp + self._tn

    @property
    def positive_response(self) -> int:
        """Number of positive responses, ``TP + FP``.

        >>> PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4).positive_response
        4
        """
        return self._tp + self._fp

    @property
    def negative_response(self) -> int:
        """Number of negative responses, ``FN + TN``.

        >>> PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4).negative_response
        6
        """
        return self._fn + self._tn

    @property
    def correct_response(self) -> int:
        """Number of cases where response equals reference, ``TP + TN``.

        >>> PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4).correct_response
        5
        """
        return self._tp + self._tn

    @property
    def incorrect_response(self) -> int:
        """Number of cases where response differs from reference, ``FN + FP``.

        >>> PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4).incorrect_response
        5
        """
        return self._fn + self._fp

    # -- statistics ----------------------------------------------------------------------------

    def precision(self) -> float:
        """Fraction of positive responses that are correct, ``TP / (TP + FP)``.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no positive responses (``TP + FP == 0``): ``nan``.
        Complexity: O(1).

        Examples
        --------
        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).precision()
        0.7142857142857143
        >>> PrecisionRecallEvaluation(fn=1).precision()
        nan
        """
        return _ratio(self._tp, self._tp + self._fp)

    def recall(self) -> float:
        """Fraction of truly positive cases found, ``TP / (TP + FN)`` (sensitivity).

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no positive references (``TP + FN == 0``): ``nan``.
        Complexity: O(1).

        Examples
        --------
        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).recall()
        0.7894736842105263
        """
        return _ratio(self._tp, self._tp + self._fn)

    def specificity(self) -> float:
        """Fraction of truly negative cases rejected, ``TN / (TN + FP)`` (rejection recall).

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no negative references (``FP + TN == 0``): ``nan``.
        Complexity: O(1).

        Examples
        --------
        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).specificity()
        0.8064516129032258
        """
        return _ratio(self._tn, self._tn + self._fp)

    def rejection_precision(self) -> float:
        """Fraction of negative responses that are correct, ``TN / (TN + FN)``.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no negative responses (``FN + TN == 0``): ``nan``.
        Complexity: O(1).

        Examples
        --------
        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).rejection_precision()
        0.8620689655172413
        """
        return _ratio(self._tn, self._tn + self._fn)

    def fallout(self) -> float:
        """False-positive rate, ``FP / (FP + TN)`` = ``1 - specificity``.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no negative references (``FP + TN == 0``): ``nan``.
        Complexity: O(1).

        Examples
        --------
        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).fallout()
        0.1935483870967742
        """
        return _ratio(self._fp, self._fp + self._tn)

    def npv(self) -> float:
        """Negative predictive value, ``TN / (TN + FN)``: :meth:`rejection_precision`.

        Undefined when there are no negative responses: ``nan``. Complexity: O(1).

        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).npv()
        0.8620689655172413
        """
        return self.rejection_precision()

    def fdr(self) -> float:
        """False discovery rate, ``FP / (TP + FP)`` = ``1 - precision``.

        Undefined when there are no positive responses: ``nan``. Complexity: O(1).

        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).fdr()
        0.2857142857142857
        """
        return _ratio(self._fp, self._tp + self._fp)

    def lr_positive(self) -> float:
        """Positive likelihood ratio, ``sensitivity / (1 - specificity)``.

        Computed as the one correctly rounded quotient ``TP (FP + TN) / (FP (TP + FN))``.
        Undefined (``nan``) with no positive or no negative reference, and when ``TP = FP =
        0``; ``inf`` when there are true positives but no false positive (scikit-learn's
        ``class_likelihood_ratios`` reports ``nan`` there and warns). Complexity: O(1).

        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).lr_positive()
        4.078947368421052
        """
        return _ratio_or_inf(self._tp * (self._fp + self._tn), self._fp * (self._tp + self._fn),
                             self._tp + self._fn, self._fp + self._tn)

    def lr_negative(self) -> float:
        """Negative likelihood ratio, ``(1 - sensitivity) / specificity``.

        Computed as ``FN (FP + TN) / (TN (TP + FN))``, rounded once. Undefined (``nan``)
        with no positive or no negative reference, and when ``FN = TN = 0``; ``inf`` when
        there are false negatives but no true negative. Complexity: O(1).

        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).lr_negative()
        0.26105263157894737
        """
        return _ratio_or_inf(self._fn * (self._fp + self._tn), self._tn * (self._tp + self._fn),
                             self._tp + self._fn, self._fp + self._tn)

    def matthews_corrcoef(self) -> float:
        """Matthews' correlation coefficient (the phi coefficient of the 2x2 table).

        ``(TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN))``, the numerator and
        the product exact. Undefined when a row or a column of the table is empty:
        ``nan`` (scikit-learn's ``matthews_corrcoef`` returns 0 there). Complexity: O(1).

        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).matthews_corrcoef()
        0.5860583023936081
        """
        tp, fn, fp, tn = self._tp, self._fn, self._fp, self._tn
        product = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
        if product == 0:
            return math.nan
        return float((tp * tn - fp * fn) / math.sqrt(product))

    def balanced_accuracy(self) -> float:
        """Mean of sensitivity and specificity, ``(recall + specificity) / 2``.

        Computed as ``(TP (FP + TN) + TN (TP + FN)) / (2 (TP + FN)(FP + TN))``, rounded once.
        Undefined with no positive or no negative reference: ``nan``. Complexity: O(1).

        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).balanced_accuracy()
        0.797962648556876
        """
        positives, negatives = self._tp + self._fn, self._fp + self._tn
        return _ratio(self._tp * negatives + self._tn * positives, 2 * positives * negatives)

    def youden_index(self) -> float:
        """Youden's J, ``sensitivity + specificity - 1`` (the informedness).

        Computed as ``(TP TN - FP FN) / ((TP + FN)(FP + TN))``, rounded once. Undefined with
        no positive or no negative reference: ``nan``. Complexity: O(1).

        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).youden_index()
        0.5959252971137521
        """
        tp, fn, fp, tn = self._tp, self._fn, self._fp, self._tn
        return _ratio(tp * tn - fp * fn, (tp + fn) * (fp + tn))

    def f_measure(self, beta: float = 1.0) -> float:
        """F-measure from the counts, ``(1 + b2) TP / ((1 + b2) TP + b2 FN + FP)``.

        Parameters
        ----------
        beta : float, default 1.0
            Relative weight of recall; finite and > 0.

        Returns
        -------
        float
            Equal (up to the last bit) to ``f_measure(beta, recall(), precision())`` whenever
            ``TP > 0``. With ``TP == 0`` it is 0.0 as soon as ``FN + FP > 0``, like
            scikit-learn's ``fbeta_score``; LingPipe's instance ``fMeasure`` returns NaN there
            because its precision/recall form computes 0/0.

        Raises
        ------
        TypeError
            If ``beta`` is not a real number.
        ValueError
            If ``beta`` is not finite or not > 0.

        Notes
        -----
        Undefined when ``TP + FN + FP == 0`` (only true negatives, or no cases): ``nan``.
        Complexity: O(1).

        Examples
        --------
        >>> ev = PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250)
        >>> ev.f_measure()
        0.75
        >>> ev.f_measure(2.0)
        0.7731958762886598
        >>> PrecisionRecallEvaluation(fn=1, fp=1).f_measure()
        0.0
        """
        return formulas.f_measure_of_counts(check_beta(beta), self._tp, self._fn, self._fp)

    def accuracy(self) -> float:
        """Fraction of cases where response equals reference, ``(TP + TN) / total``.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(1).

        Examples
        --------
        The accuracy of predicting the majority class for 9990 negatives and 10 positives:

        >>> PrecisionRecallEvaluation(fn=10, tn=9990).accuracy()
        0.999
        """
        return _ratio(self._tp + self._tn, self.total)

    def error_rate(self) -> float:
        """Fraction of cases where response differs from reference, ``(FN + FP) / total``.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(1).

        Examples
        --------
        >>> PrecisionRecallEvaluation(fn=10, tn=9990).error_rate()
        0.001
        """
        return _ratio(self._fn + self._fp, self.total)

    def random_accuracy(self) -> float:
        """Accuracy expected by chance from the marginals, Cohen's ``Pr(e)``.

        ``((TP+FN)(TP+FP) + (FP+TN)(FN+TN)) / total**2``: the probability that reference
        and response agree if drawn independently with their own positive rates.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(1).

        Examples
        --------
        >>> PrecisionRecallEvaluation(tp=10, fn=0, fp=5, tn=15).random_accuracy()
        0.5
        """
        return _ratio(self._chance_agreement_numerator(), self.total**2)

    def kappa(self) -> float:
        """Cohen's kappa of reference against response, ``(Pr(a) - Pr(e)) / (1 - Pr(e))``.

        Computed exactly as ``(n A - S) / (n**2 - S)`` with ``n`` the total, ``A = TP + TN``
        and ``S = n**2 Pr(e)``, then rounded once. Equals
        ``sklearn.metrics.cohen_kappa_score`` (up to its rounding).

        Returns
        -------
        float

        Notes
        -----
        Undefined when ``Pr(e) == 1``, i.e. reference and response are both constant and
        equal (all cases in one diagonal cell), or there are no cases: ``nan``.
        Complexity: O(1).

        Examples
        --------
        Example 1 of the IR course notes (A says yes 10 of 30, B 15 of 30):

        >>> PrecisionRecallEvaluation(tp=10, fn=0, fp=5, tn=15).kappa()
        0.6666666666666666
        """
        n = self.total
        chance = self._chance_agreement_numerator()
        return _ratio(n * (self._tp + self._tn) - chance, n * n - chance)

    def cost(
        self, cost_matrix: CostMatrix | Mapping[str, float] | Sequence[Sequence[float]]
    ) -> float:
        """Total cost, ``TP c_tp + FN c_fn + FP c_fp + TN c_tn``.

        Parameters
        ----------
        cost_matrix : CostMatrix or Mapping[str, float] or Sequence[Sequence[float]]
            A :class:`CostMatrix`; a mapping with exactly the keys ``tp, fn, fp, tn`` (any
            letter case); or rows ``[[c_tp, c_fn], [c_fp, c_tn]]`` (rows = reference
            positive/negative, columns = response positive/negative; see
            :meth:`CostMatrix.from_rows`).

        Returns
        -------
        float
            Exact when all costs are ints; otherwise the correctly rounded sum of the four
            products.

        Raises
        ------
        TypeError, ValueError
            If ``cost_matrix`` is malformed (see :class:`CostMatrix`).

        Notes
        -----
        Defined for every evaluation (0.0 with no cases). Complexity: O(1).

        Examples
        --------
        >>> costs = {"TP": -1, "FN": 100, "FP": 1, "TN": 0}
        >>> PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250).cost(costs)
        3910.0
        >>> PrecisionRecallEvaluation(tp=250, fn=45, fp=5, tn=200).cost([[-1, 100], [1, 0]])
        4255.0
        """
        costs = _as_cost_matrix(cost_matrix)
        products = [
            self._tp * costs.tp,
            self._fn * costs.fn,
            self._fp * costs.fp,
            self._tn * costs.tn,
        ]
        if all(isinstance(product, int) for product in products):
            return float(sum(products))
        return math.fsum(products)

    def _chance_agreement_numerator(self) -> int:
        """``total**2 * Pr(e)`` as an exact int."""
        return (self._tp + self._fn) * (self._tp + self._fp) + (self._fp + self._tn) * (
            self._fn + self._tn
        )

    # -- invariants, comparison, display -------------------------------------------------------

    def _check(self) -> None:
        """Assert the internal invariants (for tests): four non-negative Python ints, or four
        finite non-negative floats (weighted)."""
        for value in (self._tp, self._fn, self._fp, self._tn):
            assert type(value) is (float if self.weighted else int), value
            assert 0 <= value < math.inf, value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PrecisionRecallEvaluation):
            return NotImplemented
        return (self._tp, self._fn, self._fp, self._tn) == (
            other._tp,
            other._fn,
            other._fp,
            other._tn,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tp={self._tp}, fn={self._fn}, fp={self._fp}, tn={self._tn})"

    def to_text(self, digits: int = 4) -> str:
        """The counts and the main values, under a title line."""
        from rankeval._text import summary_text

        return summary_text(type(self).__name__, [
            ("tp", self._tp), ("fn", self._fn), ("fp", self._fp), ("tn", self._tn),
            ("precision", self.precision()), ("recall", self.recall()),
            ("f_measure", self.f_measure()), ("accuracy", self.accuracy()),
            ("kappa", self.kappa())], digits)

    # -- LingPipe aliases ----------------------------------------------------------------------

    def addCase(self, reference: bool, response: bool) -> None:  # noqa: N802
        """LingPipe alias of :meth:`add_case`."""
        self.add_case(reference, response)

    def truePositive(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`true_positive`."""
        return self._tp

    def falseNegative(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`false_negative`."""
        return self._fn

    def falsePositive(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`false_positive`."""
        return self._fp

    def trueNegative(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`true_negative`."""
        return self._tn

    def total_cases(self) -> int:
        """LingPipe's ``total()`` (here :attr:`total` is a property).

        >>> PrecisionRecallEvaluation(tp=1, tn=1).total_cases()
        2
        """
        return self.total

    def positiveReference(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`positive_reference`."""
        return self.positive_reference

    def negativeReference(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`negative_reference`."""
        return self.negative_reference

    def positiveResponse(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`positive_response`."""
        return self.positive_response

    def negativeResponse(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`negative_response`."""
        return self.negative_response

    def correctResponse(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`correct_response`."""
        return self.correct_response

    def incorrectResponse(self) -> int:  # noqa: N802
        """LingPipe alias of :attr:`incorrect_response`."""
        return self.incorrect_response

    def rejectionRecall(self) -> float:  # noqa: N802
        """LingPipe alias of :meth:`specificity`."""
        return self.specificity()

    def rejectionPrecision(self) -> float:  # noqa: N802
        """LingPipe alias of :meth:`rejection_precision`."""
        return self.rejection_precision()

    def errorRate(self) -> float:  # noqa: N802
        """Alias of :meth:`error_rate`."""
        return self.error_rate()

    def randomAccuracy(self) -> float:  # noqa: N802
        """LingPipe alias of :meth:`random_accuracy`."""
        return self.random_accuracy()

    fMeasure = _FMeasureAlias()  # noqa: N815


# ---------------------------------------------------------------------------------------------
# Multi-class evaluation
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ConfusionMatrix(Generic[L]):
    """A labelled K x K confusion matrix: ``counts[i, j]`` cases of reference ``labels[i]``
    answered with ``labels[j]`` (rows = reference, columns = response, as in scikit-learn).

    Attributes
    ----------
    labels : tuple
        Row and column labels, in the evaluation's label order.
    counts : numpy.ndarray
        Read-only ``int64`` array of shape ``(K, K)``.

    Examples
    --------
    >>> cm = MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).confusion_matrix()
    >>> cm.labels
    ('a', 'b')
    >>> cm.counts
    array([[1, 1],
           [0, 1]])
    """

    labels: tuple[L, ...]
    counts: NDArray[np.int64] = field(repr=False)

    def __repr__(self) -> str:
        """The labels and every count, rows the reference (a small matrix in full; NumPy's
        summary with ``...`` past 1,000 cells)."""
        return (f"ConfusionMatrix(labels={self.labels!r}, counts="
                f"{np.array2string(np.asarray(self.counts), separator=', ')})")


def _average(values: Sequence[float], undefined: Undefined) -> float:
    """Mean of per-class values under an :data:`Undefined` policy; exactly rounded sum."""
    if undefined == "zero":
        values = [0.0 if math.isnan(v) else v for v in values]
    elif undefined == "skip":
        values = [v for v in values if not math.isnan(v)]
    if not values:
        return math.nan
    return math.fsum(values) / len(values)


class MultiClassEvaluation(Generic[L]):
    """Confusion matrix of single-label multi-class decisions, with micro and macro averages.

    Labels are any hashable values. Their order (for :meth:`confusion_matrix` and the
    ``per_class_*`` arrays) is the order given in ``labels``, then the order of first
    appearance; no result other than those layouts depends on it.

    Parameters
    ----------
    labels : Iterable, optional
        Labels to include even if no case uses them (like scikit-learn's ``labels=``). Such a
        label has undefined per-class precision, recall and F-measure.

    Raises
    ------
    TypeError
        If a label is unhashable.
    ValueError
        If ``labels`` repeats a label.

    Notes
    -----
    Definitions follow scikit-learn: the per-class precision of label ``c`` uses the column
    of predicted ``c``, recall the row of reference ``c``; macro averages are unweighted means
    over all labels; micro averages pool the one-vs-rest counts (and all equal accuracy).

    Examples
    --------
    The fruit example of the IR course notes:

    >>> ev = MultiClassEvaluation.from_labels(
    ...     ["orange"] * 5 + ["lemon"] * 2 + ["apple"] * 2,
    ...     ["lemon", "lemon", "apple", "orange", "apple", "lemon", "apple", "apple", "apple"])
    >>> ev.micro_precision()
    0.4444444444444444
    >>> ev.macro_precision()
    0.5777777777777778
    >>> ev.macro_recall()
    0.5666666666666667
    """

    __slots__ = ("_cells", "_column_sums", "_labels", "_row_sums", "_total", "_trace")

    def __init__(self, labels: Iterable[L] = ()) -> None:
        declared: dict[L, None] = {}
        for i, label in enumerate(labels):
            check_hashable(label, f"labels[{i}]")
            if label in declared:
                raise ValueError(f"labels must be distinct; labels[{i}] repeats {label!r}")
            declared[label] = None
        self._labels = declared
        self._cells: dict[tuple[L, L], int] = {}
        self._row_sums: dict[L, int] = dict.fromkeys(declared, 0)
        self._column_sums: dict[L, int] = dict.fromkeys(declared, 0)
        self._total = 0
        self._trace = 0

    # -- construction --------------------------------------------------------------------------

    @classmethod
    def from_labels(
        cls, reference: Iterable[L], response: Iterable[L], labels: Iterable[L] = ()
    ) -> MultiClassEvaluation[L]:
        """Build from parallel sequences of reference and response labels.

        Parameters
        ----------
        reference, response : Iterable
            Same length; case ``i`` is ``(reference[i], response[i])``.
        labels : Iterable, optional
            Extra labels, as in the constructor.

        Returns
        -------
        MultiClassEvaluation

        Raises
        ------
        TypeError, ValueError
            As :meth:`add_cases`.

        Notes
        -----
        Complexity: O(n) for n cases.

        Examples
        --------
        >>> MultiClassEvaluation.from_labels([1, 2, 2], [1, 2, 1]).accuracy()
        0.6666666666666666
        """
        evaluation = cls(labels)
        evaluation.add_cases(reference, response)
        return evaluation

    @classmethod
    def from_counts(
        cls, counts: Mapping[tuple[L, L], int], labels: Iterable[L] = ()
    ) -> MultiClassEvaluation[L]:
        """Build from a mapping ``(reference_label, response_label) -> count``.

        Parameters
        ----------
        counts : Mapping[tuple, int]
            Non-negative int counts keyed by ``(reference, response)`` pairs.
        labels : Iterable, optional
            Label order (and extra labels); labels only in ``counts`` follow in the mapping's
            order, reference before response.

        Returns
        -------
        MultiClassEvaluation

        Raises
        ------
        TypeError
            If ``counts`` is not a mapping, a key is not a pair of hashable labels, or a count
            is not an int.
        ValueError
            If a count is negative.

        Notes
        -----
        Complexity: O(m) for m keys.

        Examples
        --------
        >>> ev = MultiClassEvaluation.from_counts({("y", "y"): 10, ("y", "n"): 0,
        ...                                        ("n", "y"): 5, ("n", "n"): 15})
        >>> ev.kappa()
        0.6666666666666666
        """
        if not isinstance(counts, Mapping):
            raise TypeError(
                f"counts must be a mapping (reference, response) -> int; got {counts!r}"
            )
        checked: list[tuple[L, L, int]] = []
        for key, value in counts.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise TypeError(f"counts keys must be (reference, response) pairs; got {key!r}")
            check_hashable(key[0], f"counts key {key!r} reference")
            check_hashable(key[1], f"counts key {key!r} response")
            checked.append((key[0], key[1], check_int(value, f"counts[{key!r}]", minimum=0)))
        evaluation = cls(labels)
        for reference, response, count in checked:
            evaluation._add(reference, response, count)
        return evaluation

    @classmethod
    def from_confusion_matrix(
        cls, matrix: ArrayLike, labels: Sequence[L]
    ) -> MultiClassEvaluation[L]:
        """Build from a K x K count matrix (rows = reference, columns = response).

        Parameters
        ----------
        matrix : array_like of int
            ``matrix[i][j]`` cases of reference ``labels[i]`` answered ``labels[j]``;
            scikit-learn's ``confusion_matrix`` layout.
        labels : Sequence
            K distinct labels.

        Returns
        -------
        MultiClassEvaluation

        Raises
        ------
        TypeError
            If an entry is not an int.
        ValueError
            If the shape is not ``(K, K)``, labels repeat, or an entry is negative.

        Notes
        -----
        Complexity: O(K**2).

        Examples
        --------
        >>> ev = MultiClassEvaluation.from_confusion_matrix([[10, 0], [5, 15]], ["y", "n"])
        >>> ev.confusion_matrix().counts
        array([[10,  0],
               [ 5, 15]])
        """
        label_tuple = tuple(labels)
        array = np.asarray(matrix, dtype=object)
        k = len(label_tuple)
        if array.shape != (k, k):
            raise ValueError(
                f"matrix must have shape ({k}, {k}) to match {k} labels; got shape {array.shape!r}"
            )
        checked = [
            [check_int(array[i, j], f"matrix[{i}][{j}]", minimum=0) for j in range(k)]
            for i in range(k)
        ]
        evaluation = cls(label_tuple)
        for i, reference in enumerate(label_tuple):
            for j, response in enumerate(label_tuple):
                if checked[i][j]:
                    evaluation._add(reference, response, checked[i][j])
        return evaluation

    # -- mutation ------------------------------------------------------------------------------

    def add_case(self, reference: L, response: L) -> None:
        """Add one case: truth ``reference``, system answer ``response``.

        Parameters
        ----------
        reference, response : hashable
            Labels; new ones are appended to :attr:`labels`.

        Raises
        ------
        TypeError
            If a label is unhashable (the evaluation is then unchanged).

        Notes
        -----
        Complexity: O(1) amortised.

        Examples
        --------
        >>> ev = MultiClassEvaluation()
        >>> ev.add_case("cat", "dog")
        >>> ev.labels, ev.total
        (('cat', 'dog'), 1)
        """
        check_hashable(reference, "reference")
        check_hashable(response, "response")
        self._add(reference, response, 1)

    def add_cases(self, references: Iterable[L], responses: Iterable[L]) -> None:
        """Add many cases from parallel sequences; all or nothing.

        Parameters
        ----------
        references, responses : Iterable
            Same length.

        Raises
        ------
        TypeError
            If a label is unhashable.
        ValueError
            If the lengths differ. The evaluation is unchanged when anything is raised.

        Notes
        -----
        Same result as calling :meth:`add_case` for each pair. Complexity: O(n).

        Examples
        --------
        >>> ev = MultiClassEvaluation()
        >>> ev.add_cases(["a", "b"], ["a", "a"])
        >>> ev.accuracy()
        0.5
        """
        reference_list = list(references)
        response_list = list(responses)
        if len(reference_list) != len(response_list):
            raise ValueError(
                "references and responses must have the same length; got "
                f"{len(reference_list)!r} and {len(response_list)!r}"
            )
        for i, (reference, response) in enumerate(zip(reference_list, response_list, strict=True)):
            check_hashable(reference, f"references[{i}]")
            check_hashable(response, f"responses[{i}]")
        for reference, response in zip(reference_list, response_list, strict=True):
            self._add(reference, response, 1)

    def merge(self, other: MultiClassEvaluation[L]) -> None:
        """Add another evaluation's counts (``other`` is unchanged).

        Parameters
        ----------
        other : MultiClassEvaluation

        Raises
        ------
        TypeError
            If ``other`` is not a :class:`MultiClassEvaluation`.

        Notes
        -----
        Labels new to this evaluation are appended in ``other``'s order. Complexity: O(m)
        for m non-zero cells of ``other``.

        Examples
        --------
        >>> ev = MultiClassEvaluation.from_labels(["a"], ["a"])
        >>> ev.merge(MultiClassEvaluation.from_labels(["b"], ["a"]))
        >>> ev.accuracy()
        0.5
        """
        if not isinstance(other, MultiClassEvaluation):
            raise TypeError(f"other must be a MultiClassEvaluation; got {other!r}")
        cells = list(other._cells.items())
        other_labels = list(other._labels)
        for label in other_labels:
            self._register(label)
        for (reference, response), count in cells:
            self._add(reference, response, count)

    def _register(self, label: L) -> None:
        if label not in self._labels:
            self._labels[label] = None
            self._row_sums[label] = 0
            self._column_sums[label] = 0

    def _add(self, reference: L, response: L, count: int) -> None:
        self._register(reference)
        self._register(response)
        if count == 0:
            return
        key = (reference, response)
        self._cells[key] = self._cells.get(key, 0) + count
        self._row_sums[reference] += count
        self._column_sums[response] += count
        self._total += count
        if reference is response or reference == response:  # dict-key equality
            self._trace += count

    # -- counts --------------------------------------------------------------------------------

    @property
    def labels(self) -> tuple[L, ...]:
        """All labels: declared ones first, then in order of first appearance.

        >>> MultiClassEvaluation.from_labels(["b", "a"], ["c", "a"], labels=["a"]).labels
        ('a', 'b', 'c')
        """
        return tuple(self._labels)

    @property
    def total(self) -> int:
        """Number of cases.

        >>> MultiClassEvaluation.from_labels(["a", "b"], ["a", "a"]).total
        2
        """
        return self._total

    def count(self, reference: L, response: L) -> int:
        """Number of cases with this reference and this response (0 for unknown labels).

        Parameters
        ----------
        reference, response : hashable

        Returns
        -------
        int

        Notes
        -----
        Complexity: O(1).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "b"], ["a", "a"]).count("b", "a")
        1
        """
        return self._cells.get((reference, response), 0)

    def confusion_matrix(self) -> ConfusionMatrix[L]:
        """The labelled count matrix (rows = reference, columns = response).

        Returns
        -------
        ConfusionMatrix
            ``labels`` and a read-only ``int64`` array; equals
            ``sklearn.metrics.confusion_matrix(reference, response, labels=labels)``.

        Notes
        -----
        Complexity: O(K**2) for K labels.

        Examples
        --------
        >>> MultiClassEvaluation.from_labels([0, 1, 1], [0, 0, 1]).confusion_matrix().counts
        array([[1, 0],
               [1, 1]])
        """
        labels = self.labels
        index = {label: i for i, label in enumerate(labels)}
        counts = np.zeros((len(labels), len(labels)), dtype=np.int64)
        for (reference, response), count in self._cells.items():
            counts[index[reference], index[response]] = count
        counts.flags.writeable = False
        return ConfusionMatrix(labels=labels, counts=counts)

    def one_vs_rest(self, label: L) -> PrecisionRecallEvaluation:
        """The binary evaluation of ``label`` against all other labels.

        Parameters
        ----------
        label : hashable
            One of :attr:`labels`.

        Returns
        -------
        PrecisionRecallEvaluation
            TP = cases of reference ``label`` answered ``label``; FN = the rest of its row;
            FP = the rest of its column; TN = everything else.

        Raises
        ------
        ValueError
            If ``label`` is not among :attr:`labels`.

        Notes
        -----
        Complexity: O(1).

        Examples
        --------
        >>> ev = MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"])
        >>> ev.one_vs_rest("b")
        PrecisionRecallEvaluation(tp=1, fn=0, fp=1, tn=1)
        """
        try:
            in_labels = label in self._labels
        except TypeError:
            in_labels = False
        if not in_labels:
            raise ValueError(f"label must be one of {self.labels!r}; got {label!r}")
        tp = self._cells.get((label, label), 0)
        fn = self._row_sums[label] - tp
        fp = self._column_sums[label] - tp
        return PrecisionRecallEvaluation(tp=tp, fn=fn, fp=fp, tn=self._total - tp - fn - fp)

    def micro_average(self) -> PrecisionRecallEvaluation:
        """Sum of the one-vs-rest evaluations over all labels (LingPipe's ``microAverage``).

        Returns
        -------
        PrecisionRecallEvaluation
            TP = correct cases, FN = FP = incorrect cases, TN = ``(K - 2) n + correct``.

        Notes
        -----
        Complexity: O(1).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).micro_average()
        PrecisionRecallEvaluation(tp=2, fn=1, fp=1, tn=2)
        """
        incorrect = self._total - self._trace
        tn = len(self._labels) * self._total - self._trace - 2 * incorrect
        return PrecisionRecallEvaluation(tp=self._trace, fn=incorrect, fp=incorrect, tn=tn)

    # -- micro averages ------------------------------------------------------------------------

    def micro_precision(self) -> float:
        """Pooled precision ``Σ TP / Σ (TP + FP)``; equals accuracy for single-label data.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(1).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).micro_precision()
        0.6666666666666666
        """
        return self.micro_average().precision()

    def micro_recall(self) -> float:
        """Pooled recall ``Σ TP / Σ (TP + FN)``; equals accuracy for single-label data.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(1).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).micro_recall()
        0.6666666666666666
        """
        return self.micro_average().recall()

    def micro_f_measure(self, beta: float = 1.0) -> float:
        """F-measure of the pooled counts; equals accuracy for single-label data.

        Parameters
        ----------
        beta : float, default 1.0
            Finite and > 0.

        Returns
        -------
        float

        Raises
        ------
        TypeError, ValueError
            For a bad ``beta`` (see :func:`f_measure`).

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(1).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).micro_f_measure()
        0.6666666666666666
        """
        return self.micro_average().f_measure(beta)

    # -- per-class values and macro averages ---------------------------------------------------

    def per_class_precision(self) -> NDArray[np.float64]:
        """Precision of each label (its column: cases answered with it), in :attr:`labels` order.

        Returns
        -------
        numpy.ndarray
            ``nan`` for a label never given as a response.

        Notes
        -----
        Undefined (``nan``) per label with no positive responses. Complexity: O(K).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "a", "a"]).per_class_precision()
        array([0.66666667,        nan])
        """
        return np.array(
            [self.one_vs_rest(label).precision() for label in self._labels], dtype=np.float64
        )

    def per_class_recall(self) -> NDArray[np.float64]:
        """Recall of each label (its row: cases whose reference it is), in :attr:`labels` order.

        Returns
        -------
        numpy.ndarray
            ``nan`` for a label that is never a reference.

        Notes
        -----
        Undefined (``nan``) per label with no positive references. Complexity: O(K).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).per_class_recall()
        array([0.5, 1. ])
        """
        return np.array(
            [self.one_vs_rest(label).recall() for label in self._labels], dtype=np.float64
        )

    def per_class_f_measure(self, beta: float = 1.0) -> NDArray[np.float64]:
        """F-measure of each label's one-vs-rest counts, in :attr:`labels` order.

        Parameters
        ----------
        beta : float, default 1.0
            Finite and > 0.

        Returns
        -------
        numpy.ndarray
            0.0 for a label with no true positives but some errors (as scikit-learn).

        Raises
        ------
        TypeError, ValueError
            For a bad ``beta``.

        Notes
        -----
        Undefined (``nan``) only for a declared label that no case uses.
        Complexity: O(K).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).per_class_f_measure()
        array([0.66666667, 0.66666667])
        """
        checked_beta = check_beta(beta)
        return np.array(
            [self.one_vs_rest(label).f_measure(checked_beta) for label in self._labels],
            dtype=np.float64,
        )

    def macro_precision(self, undefined: Undefined = "nan") -> float:
        """Unweighted mean of the per-class precisions (scikit-learn ``average='macro'``).

        Parameters
        ----------
        undefined : {"nan", "skip", "zero"}, default "nan"
            Policy for labels never given as a response: ``"nan"`` makes the average NaN;
            ``"skip"`` leaves them out (sklearn ``zero_division=np.nan``); ``"zero"`` counts
            them as 0 (sklearn ``zero_division=0``).

        Returns
        -------
        float

        Raises
        ------
        ValueError
            For an unknown ``undefined`` policy.

        Notes
        -----
        ``(1/K) Σ_c TP_c / (TP_c + FP_c)``, summed exactly (order-independent).
        Undefined when there are no labels, when every class is skipped, or (policy
        ``"nan"``) when any label is never a response. Complexity: O(K).

        Examples
        --------
        Per predicted fruit: orange 1/1, lemon 1/3, apple 2/5, mean 26/45:

        >>> ev = MultiClassEvaluation.from_labels(
        ...     ["orange"] * 5 + ["lemon"] * 2 + ["apple"] * 2,
        ...     ["lemon", "lemon", "apple", "orange", "apple", "lemon", "apple", "apple", "apple"])
        >>> ev.macro_precision()
        0.5777777777777778
        """
        policy = check_choice(undefined, "undefined", _UNDEFINED_POLICIES)
        return _average([self.one_vs_rest(c).precision() for c in self._labels], policy)

    def macro_recall(self, undefined: Undefined = "nan") -> float:
        """Unweighted mean of the per-class recalls (scikit-learn ``average='macro'``).

        Parameters
        ----------
        undefined : {"nan", "skip", "zero"}, default "nan"
            Policy for labels that are never a reference (see :meth:`macro_precision`).

        Returns
        -------
        float

        Raises
        ------
        ValueError
            For an unknown ``undefined`` policy.

        Notes
        -----
        ``(1/K) Σ_c TP_c / (TP_c + FN_c)``. Undefined when there are no labels, when every
        class is skipped, or (policy ``"nan"``) when any label is never a reference.
        Complexity: O(K).

        Examples
        --------
        Per true fruit: orange 1/5, lemon 1/2, apple 2/2 (the course notes' "macro precision"):

        >>> ev = MultiClassEvaluation.from_labels(
        ...     ["orange"] * 5 + ["lemon"] * 2 + ["apple"] * 2,
        ...     ["lemon", "lemon", "apple", "orange", "apple", "lemon", "apple", "apple", "apple"])
        >>> ev.macro_recall()
        0.5666666666666667
        """
        policy = check_choice(undefined, "undefined", _UNDEFINED_POLICIES)
        return _average([self.one_vs_rest(c).recall() for c in self._labels], policy)

    def macro_f_measure(self, beta: float = 1.0, undefined: Undefined = "nan") -> float:
        """Unweighted mean of the per-class F-measures (scikit-learn ``fbeta_score``, macro).

        Parameters
        ----------
        beta : float, default 1.0
            Finite and > 0.
        undefined : {"nan", "skip", "zero"}, default "nan"
            Policy for labels with an undefined F (see :meth:`macro_precision`).

        Returns
        -------
        float

        Raises
        ------
        TypeError, ValueError
            For a bad ``beta`` or an unknown policy.

        Notes
        -----
        The mean of per-class F, not the F of the macro precision and recall. A per-class F
        is undefined only for a declared label no case uses. Complexity: O(K).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).macro_f_measure()
        0.6666666666666666
        """
        checked_beta = check_beta(beta)
        policy = check_choice(undefined, "undefined", _UNDEFINED_POLICIES)
        return _average([self.one_vs_rest(c).f_measure(checked_beta) for c in self._labels], policy)

    # -- agreement -----------------------------------------------------------------------------

    def accuracy(self) -> float:
        """Fraction of cases whose response equals the reference.

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(1).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).accuracy()
        0.6666666666666666
        """
        return _ratio(self._trace, self._total)

    def random_accuracy(self) -> float:
        """Chance agreement from the marginals, ``Σ_c row_c col_c / n**2`` (Cohen's ``Pr(e)``).

        Returns
        -------
        float

        Notes
        -----
        Undefined when there are no cases: ``nan``. Complexity: O(K).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).random_accuracy()
        0.4444444444444444
        """
        return _ratio(self._chance_agreement_numerator(), self._total**2)

    def kappa(self) -> float:
        """Cohen's kappa, ``(Pr(a) - Pr(e)) / (1 - Pr(e))`` (sklearn ``cohen_kappa_score``).

        Computed exactly as ``(n T - S) / (n**2 - S)`` with ``T`` the correct cases and
        ``S = Σ_c row_c col_c``, then rounded once.

        Returns
        -------
        float

        Notes
        -----
        Undefined when ``Pr(e) == 1`` (reference and response use one and the same label for
        every case) or there are no cases: ``nan``. Complexity: O(K).

        Examples
        --------
        >>> MultiClassEvaluation.from_labels(["a", "a", "b"], ["a", "b", "b"]).kappa()
        0.4
        """
        chance = self._chance_agreement_numerator()
        n = self._total
        return _ratio(n * self._trace - chance, n * n - chance)

    def _chance_agreement_numerator(self) -> int:
        return sum(self._row_sums[c] * self._column_sums[c] for c in self._labels)

    # -- invariants, display -------------------------------------------------------------------

    def _check(self) -> None:
        """Assert the internal invariants (for tests): sums, trace and labels agree."""
        rows: dict[Any, int] = dict.fromkeys(self._labels, 0)
        columns: dict[Any, int] = dict.fromkeys(self._labels, 0)
        trace = 0
        for (reference, response), count in self._cells.items():
            assert type(count) is int, count
            assert count > 0, count
            rows[reference] += count
            columns[response] += count
            if reference is response or reference == response:
                trace += count
        assert rows == self._row_sums
        assert columns == self._column_sums
        assert list(rows) == list(self._row_sums) == list(self._column_sums) == list(self._labels)
        assert trace == self._trace
        assert sum(rows.values()) == self._total

    def __repr__(self) -> str:
        return f"{type(self).__name__}(labels={self.labels!r}, total={self._total})"

    def to_text(self, digits: int = 4) -> str:
        """The main values under a line naming the categories."""
        from rankeval._text import summary_text

        return summary_text(f"{type(self).__name__} ({len(self.labels)} categories)", [
            ("total", self._total), ("accuracy", self.accuracy()),
            ("macro_precision", self.macro_precision()), ("macro_recall", self.macro_recall()),
            ("macro_f_measure", self.macro_f_measure()), ("kappa", self.kappa())], digits)
