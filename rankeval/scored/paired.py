"""Comparing two classifiers' ROC areas: DeLong's tests, paired and unpaired (pROC's
``roc.test``).

* Paired (both classifiers scored the same cases): :class:`PairedEvaluation` streams
  ``add_case(correct, score_a, score_b)``; :func:`roc_test` takes the arrays too. DeLong,
  DeLong & Clarke-Pearson (1988): the covariance of the two areas from each case's
  placements (Sun & Xu 2014's mid-ranks, ties one half), ``z = d / sigma`` and the interval
  ``d ± z·sigma`` of the difference ``d = AUC_a - AUC_b``.
* Unpaired (two evaluators of different cases): :func:`roc_test` of two evaluators. pROC's
  unpaired DeLong: ``t = d / sqrt(S_a + S_b)`` with Welch-Satterthwaite degrees of freedom
  (the t distribution needs scipy: ``pip install rankeval-exact[stats]``); its interval, which pROC
  does not give, is ``d ± t·sqrt(S_a + S_b)`` at those degrees of freedom.

Alternatives, scipy's spellings: ``"two-sided"`` (default), ``"greater"`` (AUC_a > AUC_b),
``"less"`` (``"two_sided"`` is a deprecated earlier spelling).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval import intervals
from rankeval._deprecation import deprecated
from rankeval.checks import (
    check_case_arrays,
    check_choice,
    check_correct,
    check_score,
    check_weight,
    check_weight_array,
)
from rankeval.scored.accumulation import Part, joined, merged_copy, new_list, nothing
from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation
from rankeval.scored.weighted import WeightParts

_MAGIC = b"\x89RKP\r\n\x1a\n"
_VERSION = 1

__all__ = ["PairedEvaluation", "RocTest", "roc_test"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
Alternative = Literal["two-sided", "greater", "less"]
_ALTERNATIVES: tuple[Alternative, ...] = ("two-sided", "greater", "less")


def _alternative(value: object) -> Alternative:
    """scipy's spelling of the alternative; ``"two_sided"`` is the deprecated earlier one."""
    if value == "two_sided":
        deprecated('alternative="two_sided" is now scipy\'s "two-sided"', stacklevel=3)
        return "two-sided"
    chosen: Alternative = check_choice(value, "alternative", _ALTERNATIVES)
    return chosen


@dataclass(frozen=True)
class RocTest:
    """The outcome of comparing two ROC areas.

    Attributes
    ----------
    statistic : float
        ``z`` (paired) or ``t`` (unpaired).
    p_value : float
        For ``alternative``.
    difference : float
        ``AUC_a - AUC_b``.
    low, high : float
        The ``level`` confidence interval of the difference.
    method : str
        ``"delong_paired"``, ``"delong_unpaired"`` or ``"bootstrap_paired"`` (partial
        areas).
    alternative : str
    level : float
    df : float
        The t statistic's degrees of freedom (unpaired), else NaN.
    auc_a, auc_b : float
        The two areas.
    """

    statistic: float
    p_value: float
    difference: float
    low: float
    high: float
    method: str
    alternative: str
    level: float
    df: float
    auc_a: float
    auc_b: float

    @property
    def interval(self) -> intervals.Interval:
        """The difference of the areas and its interval, as the one
        :class:`~rankeval.Interval` (the standard error is ``|difference / statistic|``)."""
        finite = math.isfinite(self.statistic) and self.statistic != 0.0
        se = abs(self.difference / self.statistic) if finite else math.nan
        return intervals.Interval(self.difference, self.low, self.high, self.level,
                                  self.method, se)

    def to_text(self, digits: int = 4) -> str:
        """The test in words: the method and alternative, both areas, the difference with
        its interval, the statistic and the p-value."""
        from rankeval._text import number

        name = "t" if self.method == "delong_unpaired" else "z"
        return (f"{self.method} ({self.alternative}): AUC a {number(self.auc_a, digits)}, "
                f"b {number(self.auc_b, digits)}, difference "
                f"{number(self.difference, digits)} [{number(self.low, digits)}, "
                f"{number(self.high, digits)}] ({self.level * 100:.10g}%), {name} "
                f"{number(self.statistic, digits)}, p {number(self.p_value, digits)}\n")


def placements(labels: BoolArray, scores: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Each positive's share of negatives scored below it and each negative's share of
    positives scored above it, ties one half (Sun & Xu's mid-rank placements), in case order.

    >>> v10, v01 = placements(np.array([True, False, True]), np.array([0.9, 0.5, 0.5]))
    >>> v10.tolist(), v01.tolist()
    ([1.0, 0.5], [0.75])

    Complexity: O(n log n).
    """
    n = int(scores.shape[0])
    if n == 0:
        return np.zeros(0), np.zeros(0)
    order = np.argsort(scores, kind="stable")  # one sort: every case's place in the ranking
    ranked_scores, ranked = scores[order], labels[order]
    starts, pos_in, neg_in = intervals.blocks(ranked_scores, ranked, grouped=True)
    num_pos, num_neg = int(pos_in.sum()), int(neg_in.sum())
    neg_below = np.cumsum(neg_in) - neg_in  # negatives scored lower than the block
    pos_above = num_pos - np.cumsum(pos_in)  # positives scored higher
    block = np.repeat(np.arange(starts.shape[0]), pos_in + neg_in)
    placed = np.where(ranked, (neg_below + 0.5 * neg_in)[block] / max(num_neg, 1),
                      (pos_above + 0.5 * pos_in)[block] / max(num_pos, 1))
    values = np.empty(n, dtype=np.float64)
    values[order] = placed
    v10, v01 = values[labels], values[~labels]
    return v10, v01


def _paired(labels: BoolArray, a: FloatArray, b: FloatArray, level: float,
            alternative: Alternative, auc_a: float | None = None,
            auc_b: float | None = None) -> RocTest:
    m, n = int(labels.sum()), int((~labels).sum())
    if m < 2 or n < 2:
        raise ValueError(f"DeLong's test needs at least two positives and two negatives, got "
                         f"{m} and {n}")
    v10a, v01a = placements(labels, a)
    v10b, v01b = placements(labels, b)
    theta_a = float(v10a.mean()) if auc_a is None else auc_a
    theta_b = float(v10b.mean()) if auc_b is None else auc_b
    da10, db10 = v10a - theta_a, v10b - theta_b
    da01, db01 = v01a - theta_a, v01b - theta_b
    s10 = np.array([[da10 @ da10, da10 @ db10], [db10 @ da10, db10 @ db10]]) / (m - 1)
    s01 = np.array([[da01 @ da01, da01 @ db01], [db01 @ da01, db01 @ db01]]) / (n - 1)
    s = s10 / m + s01 / n
    variance = float(s[0, 0] + s[1, 1] - s[0, 1] - s[1, 0])
    sigma = math.sqrt(max(variance, 0.0))
    d = theta_a - theta_b
    z = 0.0 if d == 0.0 and sigma == 0.0 else (d / sigma if sigma > 0 else math.copysign(
        math.inf, d))
    p = _p_normal(z, alternative)
    crit = intervals.normal_quantile(1.0 - (1.0 - level) / 2.0)
    return RocTest(z, p, d, d - crit * sigma, d + crit * sigma, "delong_paired", alternative,
                   level, math.nan, theta_a, theta_b)


def _p_normal(z: float, alternative: Alternative) -> float:
    if alternative == "two-sided":
        return 2.0 * intervals.normal_cdf(-abs(z))
    return intervals.normal_cdf(-z) if alternative == "greater" else intervals.normal_cdf(z)


def _unpaired(a: ScoredPrecisionRecallEvaluation, b: ScoredPrecisionRecallEvaluation,
              level: float, alternative: Alternative) -> RocTest:
    parts = []
    for name, ev in (("a", a), ("b", b)):
        if ev.weighted:
            raise ValueError(f"DeLong's test counts cases and has no weighted form: evaluator "
                             f"{name} holds weighted cases (its interval(method=\"bootstrap\") "
                             "resamples them)")
        with ev._lock:
            keys, labels = ev._merged().ranking()
            parts.append(intervals.delong(keys, labels, ev.ties == "grouped", ev._pos_missed,
                                          ev._neg_missed, ev.area_under_roc_curve()))
    pa, pb = parts
    for name, part in (("a", pa), ("b", pb)):
        if part.positives < 2 or part.negatives < 2:
            raise ValueError(f"DeLong's test needs at least two positives and two negatives in "
                             f"each evaluator; {name} has {part.positives} and "
                             f"{part.negatives}")
    sa, sb = pa.variance, pb.variance
    d = pa.auc - pb.auc
    spread = math.sqrt(sa + sb)
    df = (sa + sb) ** 2 / (sa**2 / (pa.positives + pa.negatives - 1)
                           + sb**2 / (pb.positives + pb.negatives - 1)) if sa + sb else math.inf
    t = 0.0 if d == 0.0 and spread == 0.0 else (d / spread if spread > 0 else math.copysign(
        math.inf, d))
    student = intervals._scipy_stats().t
    if alternative == "two-sided":
        p = float(2.0 * student.cdf(-abs(t), df))
    elif alternative == "greater":
        p = float(student.cdf(-t, df))
    else:
        p = float(student.cdf(t, df))
    crit = float(student.ppf(1.0 - (1.0 - level) / 2.0, df)) if spread else 0.0
    return RocTest(t, p, d, d - crit * spread, d + crit * spread, "delong_unpaired",
                   alternative, level, df, pa.auc, pb.auc)


def roc_test(a: Any, b: Any, c: Any = None, *, level: float = 0.95,
             alternative: str = "two-sided") -> RocTest:
    """DeLong's test of two ROC areas: ``roc_test(correct, scores_a, scores_b)`` (paired,
    from arrays), ``roc_test(paired_evaluation)``, or ``roc_test(ev_a, ev_b)`` (unpaired: two
    :class:`~rankeval.ScoredPrecisionRecallEvaluation` of different cases). See the module
    text for the formulas.

    >>> t = roc_test([1, 1, 0, 0, 1, 0], [0.9, 0.8, 0.3, 0.4, 0.6, 0.1],
    ...              [0.7, 0.2, 0.6, 0.1, 0.8, 0.5])
    >>> t.method, t.auc_a, round(t.auc_b, 6)  # b ranks 7 of the 9 pairs right
    ('delong_paired', 1.0, 0.777778)

    Raises
    ------
    ValueError
        Fewer than two positives or two negatives, an unknown alternative, a level outside
        (0, 1), arrays of different lengths.
    TypeError
        Arguments of none of the three forms.

    Complexity: O(n log n) paired, O(n) unpaired.
    """
    chosen = _alternative(alternative)
    level = intervals.check_level(level)
    if isinstance(a, PairedEvaluation) and b is None and c is None:
        return a.roc_test(level=level, alternative=chosen)
    if isinstance(a, ScoredPrecisionRecallEvaluation):
        if not isinstance(b, ScoredPrecisionRecallEvaluation) or c is not None:
            raise TypeError("roc_test(ev_a, ev_b) compares two ScoredPrecisionRecallEvaluation "
                            f"objects; got {type(b).__name__} for the second")
        return _unpaired(a, b, level, chosen)
    if c is None:
        raise TypeError("roc_test takes (correct, scores_a, scores_b), a PairedEvaluation, or "
                        "two evaluators")
    labels, scores_a = check_case_arrays(a, b)
    labels_again, scores_b = check_case_arrays(a, c)
    del labels_again
    return _paired(labels, scores_a, scores_b, level, chosen)


class _Ranking:
    """One classifier's ranking of the paired cases, sorted once (grouped ties): each
    resample's weights give its operating points in O(n)."""

    def __init__(self, scores: FloatArray, labels: BoolArray) -> None:
        self.order = np.argsort(-scores, kind="stable")
        ranked = scores[self.order]
        self.starts = np.flatnonzero(np.append(True, ranked[1:] != ranked[:-1]))
        self.scores = ranked[self.starts]
        self.labels = labels[self.order]

    def points(self, weights: NDArray[Any]) -> Any:
        """The operating points of a resample: how many times each case is drawn (int64), or
        that times its weight (float64: sums of weights, as a weighted evaluator's)."""
        from rankeval import points

        w = weights[self.order]
        zero = w.dtype.type(0)
        pos = np.add.reduceat(np.where(self.labels, w, zero), self.starts)
        neg = np.add.reduceat(np.where(self.labels, zero, w), self.starts)
        tp, fp = points.confusion_at_thresholds(pos, neg)
        if w.dtype == np.float64:
            return points.OperatingPoints(tp, fp, self.scores, float(tp[-1]), float(fp[-1]))
        return points.OperatingPoints(tp, fp, self.scores, int(pos.sum()), int(neg.sum()))


def _grouped_evaluator(paired: object) -> ScoredPrecisionRecallEvaluation:
    return ScoredPrecisionRecallEvaluation(ties="grouped")


class PairedEvaluation(WeightParts):
    """Two classifiers scored on the same cases, streamed in, for DeLong's paired test.

    ``a`` and ``b`` are ordinary :class:`~rankeval.ScoredPrecisionRecallEvaluation` readers
    (grouped ties, as DeLong's placements count ties one half) of each classifier's scores;
    :meth:`roc_test` compares their ROC areas. Thread-safe: every method holds one lock.
    Memory: 17 bytes a case for the pairs, plus the two evaluators'.

    Cases may carry weights (``weight=``, ``weights=``: finite, non-negative; a zero weight is
    a case that counts for nothing and is not kept): ``a`` and ``b`` are then weighted
    evaluators, :meth:`partial_roc_test` resamples each case with its weight, and
    :meth:`roc_test` is refused, since DeLong's placements count cases. 8 bytes a case more.

    >>> paired = PairedEvaluation()
    >>> paired.add_cases([1, 1, 0, 0, 1, 0], [0.9, 0.8, 0.3, 0.4, 0.6, 0.1],
    ...                  [0.7, 0.2, 0.6, 0.1, 0.8, 0.5])
    >>> paired.a.area_under_roc_curve(), paired.roc_test().difference > 0
    (1.0, True)
    """

    def __init__(self) -> None:
        self._start()

    # The state, declared once (rankeval.scored.accumulation): each classifier's evaluator
    # (merged by its own merge), the pairs in arrival order (labels, both scores), and their
    # weights once a weight was given (None before); the lists join in a merge.
    _STATE: ClassVar[dict[str, Part]] = {
        "_a": Part(_grouped_evaluator, merged_copy),
        "_b": Part(_grouped_evaluator, merged_copy),
        "_labels": Part(new_list, joined),
        "_scores_a": Part(new_list, joined),
        "_scores_b": Part(new_list, joined),
        "_weights": Part(nothing, joined),
    }
    _a: ScoredPrecisionRecallEvaluation
    _b: ScoredPrecisionRecallEvaluation
    _labels: list[BoolArray]
    _scores_a: list[FloatArray]
    _scores_b: list[FloatArray]

    def _settings(self) -> dict[str, Any]:
        return {}

    @property
    def a(self) -> ScoredPrecisionRecallEvaluation:
        """Classifier a's evaluator, read-only (a snapshot: adding to it directly would
        desynchronise the pairs that :meth:`roc_test` reads). Complexity: O(cases since the
        last read)."""
        with self._lock:
            return self._a.snapshot()

    @property
    def b(self) -> ScoredPrecisionRecallEvaluation:
        """Classifier b's evaluator, read-only (see :attr:`a`)."""
        with self._lock:
            return self._b.snapshot()

    def add_case(self, correct: bool, score_a: float, score_b: float,
                 weight: float | None = None) -> None:
        """Add one case with both classifiers' scores (and its weight). Complexity: O(1)
        amortised."""
        label = check_correct(correct)
        sa, sb = check_score(score_a), check_score(score_b)
        if weight is None:
            self._add(np.array([label]), np.array([sa]), np.array([sb]), None)
        else:
            self._add(np.array([label]), np.array([sa]), np.array([sb]),
                      np.array([check_weight(weight)]))

    def add_cases(self, correct: ArrayLike, scores_a: ArrayLike, scores_b: ArrayLike,
                  weights: ArrayLike | None = None) -> None:
        """Add many cases: labels, each classifier's scores and (optionally) the cases'
        weights, aligned. All or nothing.

        Complexity: O(k log k) for k cases.
        """
        labels, a = check_case_arrays(correct, scores_a)
        _, b = check_case_arrays(correct, scores_b)
        w = None if weights is None else check_weight_array(weights, labels.shape[0])
        self._add(labels.copy(), a.astype(np.float64, copy=True),
                  b.astype(np.float64, copy=True), w)

    def _add(self, labels: BoolArray, a: FloatArray, b: FloatArray,
             weights: FloatArray | None) -> None:
        """Add checked cases (arrays of their own) to both evaluators and the pairs."""
        with self._lock:
            if weights is None and self._weights is not None:
                weights = np.ones(labels.shape[0])
            before = self._a.__getstate__()  # O(pending): the sorted arrays are shared
            self._a.add_cases(labels, a, weights=weights)
            try:
                self._b.add_cases(labels, b, weights=weights)
            except BaseException:
                self._a.__setstate__(before)  # all or nothing: a as it was
                raise
            if weights is not None:
                if self._weights is None:  # the pairs held so far weigh 1
                    held = sum(part.shape[0] for part in self._labels)
                    self._weights = [np.ones(held)] if held else []
                kept = weights > 0.0
                if not kept.all():  # a zero weight counts for nothing
                    labels, a, b, weights = labels[kept], a[kept], b[kept], weights[kept]
                self._weights.append(weights)
            self._labels.append(labels)
            self._scores_a.append(a)
            self._scores_b.append(b)

    def _arrays(self) -> tuple[BoolArray, FloatArray, FloatArray]:
        if not self._labels:
            empty = np.zeros(0)
            return empty.astype(bool), empty, empty
        if len(self._labels) > 1:  # one array from now on
            self._labels = [np.concatenate(self._labels)]
            self._scores_a = [np.concatenate(self._scores_a)]
            self._scores_b = [np.concatenate(self._scores_b)]
        return self._labels[0], self._scores_a[0], self._scores_b[0]

    def num_cases(self) -> int:
        """Cases added. Complexity: O(1)."""
        return self._a.num_cases()

    def merge(self, other: PairedEvaluation) -> None:
        """Add every pair of ``other`` after this one's (grouped ties: the order of the
        cases changes no value). Complexity: O(m log m) for m cases of ``other``."""
        super().merge(other)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PairedEvaluation):
            return NotImplemented
        with self._lock:
            mine = (*self._arrays(), self._weight_array())
        with other._lock:
            theirs = (*other._arrays(), other._weight_array())
        if (mine[3] is None) != (theirs[3] is None):
            return False
        return all(x is None or y is None or np.array_equal(x, y)
                   for x, y in zip(mine, theirs, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def _locked_arrays(self) -> tuple[BoolArray, FloatArray, FloatArray]:
        with self._lock:
            return self._arrays()

    def to_bytes(self) -> bytes:
        """The pairs in :mod:`rankeval.container`'s self-checking format: each case's label
        (a byte) and both scores (float64), in arrival order; weighted, the metadata says
        ``"weights": true`` and a fourth section holds the weights (float64).
        Complexity: O(n)."""
        from rankeval import container

        with self._lock:
            labels, a, b = self._arrays()
            weights = self._weight_array()
        meta: dict[str, Any] = {"cases": int(labels.shape[0])}
        sections = [labels.astype(np.uint8).tobytes(),
                    np.ascontiguousarray(a, dtype="<f8").tobytes(),
                    np.ascontiguousarray(b, dtype="<f8").tobytes()]
        if weights is not None:
            meta["weights"] = True
            sections.append(np.ascontiguousarray(weights, dtype="<f8").tobytes())
        return container.pack(_MAGIC, _VERSION, meta, sections)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>") -> PairedEvaluation:
        """The evaluation :meth:`to_bytes` wrote; :class:`~rankeval.PersistenceError` names
        the file and the first fault of a truncated, corrupted or crafted state."""
        from rankeval import container
        from rankeval.errors import PersistenceError

        meta, blobs = container.unpack(data, _MAGIC, _VERSION, "paired evaluation", name)
        n = meta.get("cases")
        weighted = meta.get("weights", False)
        if (not set(meta) <= {"cases", "weights"} or type(n) is not int or n < 0
                or weighted not in (True, False) or ("weights" in meta and not weighted)):
            raise PersistenceError(name, f"invalid paired state: metadata {meta!r}")
        if [len(blob) for blob in blobs] != [n, 8 * n, 8 * n] + [8 * n] * weighted:
            raise PersistenceError(name, f"invalid paired state: the sections do not hold {n} "
                                   "cases")
        labels = np.frombuffer(blobs[0], dtype=np.uint8)
        if n and int(labels.max()) > 1:
            raise PersistenceError(name, "invalid paired state: a label is neither 0 nor 1")
        weights = np.frombuffer(blobs[3], dtype="<f8") if weighted else None
        if weights is not None and n and not bool((weights > 0.0).all()):
            raise PersistenceError(name, "invalid paired state: a weight is not a positive "
                                   "finite number (a zero weight is never kept)")
        paired = cls()
        try:
            if n or weighted:
                paired.add_cases(labels.astype(bool), np.frombuffer(blobs[1], dtype="<f8"),
                                 np.frombuffer(blobs[2], dtype="<f8"), weights)
        except (TypeError, ValueError) as error:
            raise PersistenceError(name, f"invalid paired state: {error}") from None
        return paired

    def __repr__(self) -> str:
        weighted = ", weighted" if self.weighted else ""
        return f"PairedEvaluation(cases={self.num_cases()}{weighted})"

    def to_text(self, digits: int = 4) -> str:
        """Both classifiers' ROC areas and DeLong's paired test (grouped ties, always);
        weighted, the areas alone (DeLong's test counts cases)."""
        with self._lock:
            cases = self._a.num_cases()
            if self._weights is not None:
                return (f"PairedEvaluation (ties=grouped, weighted cases, sum of weights "
                        f"{cases:.{digits}g})\n  AUC a={self._a.area_under_roc_curve():.{digits}f}"
                        f" b={self._b.area_under_roc_curve():.{digits}f}\n")
            try:
                test = self.roc_test().to_text(digits)
            except ValueError as error:  # too few cases of a class for the test
                test = f"no test: {error}\n"
        return f"PairedEvaluation (ties=grouped, {cases} cases)\n  {test}"

    def partial_roc_test(self, fpr: tuple[float, float] | None = None,
                         tpr: tuple[float, float] | None = None,
                         standardize: str | None = None, *, level: float = 0.95,
                         alternative: str = "two-sided", resamples: int = 2000,
                         seed: int = 0) -> RocTest:
        """The paired bootstrap test of two partial ROC areas (pROC's ``roc.test(method=
        "bootstrap")`` with ``partial.auc``): ``D = (A_a - A_b) / s`` with ``s`` the standard
        deviation of the difference over ``resamples`` stratified resamples of the cases
        (the same cases for both classifiers, positives and negatives drawn apart), its
        p-value from the normal distribution, and the interval ``D s ± z s``. The areas are
        :meth:`~rankeval.ScoredPrecisionRecallEvaluation.partial_roc_auc`'s with the same
        ``fpr``/``tpr`` and ``standardize``; ``method`` is ``"bootstrap_paired"``.

        Each resample reweights the two rankings sorted once: O(B·n) after the sorts.

        Raises
        ------
        ValueError
            What ``partial_roc_auc`` refuses, fewer than two positives or two negatives, an
            unknown alternative, a level outside (0, 1), too few or too many resamples.
        """
        from rankeval.checks import check_int
        from rankeval.scored import decisions
        from rankeval.scored.uncertainty import MAX_RESAMPLES, draws

        chosen = _alternative(alternative)
        level = intervals.check_level(level)
        resamples = check_int(resamples, "resamples", minimum=2, maximum=MAX_RESAMPLES)
        seed = check_int(seed, "seed", minimum=0)
        with self._lock:
            labels, a, b = self._arrays()
            case_weights = self._weight_array()
            area_a = self._a.partial_roc_auc(fpr, tpr, standardize)
            area_b = self._b.partial_roc_auc(fpr, tpr, standardize)
        positives, negatives = np.flatnonzero(labels), np.flatnonzero(~labels)
        if positives.shape[0] < 2 or negatives.shape[0] < 2:
            raise ValueError(f"the paired test needs at least two positives and two "
                             f"negatives, got {positives.shape[0]} and {negatives.shape[0]}")
        rankings = [_Ranking(scores, labels) for scores in (a, b)]
        rng = np.random.default_rng(seed)
        weights = np.zeros(labels.shape[0], dtype=np.int64)
        differences = np.empty(resamples)
        for i in range(resamples):  # positives drawn first, then negatives, as bootstrap()
            weights[positives] = draws(rng, positives.shape[0])
            weights[negatives] = draws(rng, negatives.shape[0])
            # A weighted case drawn k times carries k times its weight.
            drawn = weights if case_weights is None else weights * case_weights
            area = [decisions.partial_roc_auc(r.points(drawn), fpr, tpr, standardize)
                    for r in rankings]
            differences[i] = area[0] - area[1]
        finite = differences[np.isfinite(differences)]
        sigma = float(np.std(finite, ddof=1)) if finite.shape[0] >= 2 else math.nan
        d = area_a - area_b
        z = 0.0 if d == 0.0 and sigma == 0.0 else (d / sigma if sigma > 0 else math.copysign(
            math.inf, d))
        crit = intervals.normal_quantile(1.0 - (1.0 - level) / 2.0)
        return RocTest(z, _p_normal(z, chosen), d, d - crit * sigma, d + crit * sigma,
                       "bootstrap_paired", chosen, level, math.nan, area_a, area_b)

    def roc_test(self, *, level: float = 0.95, alternative: str = "two-sided") -> RocTest:
        """DeLong's paired test of the two ROC areas (see the module text).

        Refused on weighted cases: DeLong's placements count cases, and a weight standing for
        unobserved cases would shrink the variance (:meth:`partial_roc_test` with the full
        range ``fpr=(0, 1)`` is the paired bootstrap of the whole areas, weighted cases too).

        Complexity: O(n log n).
        """
        chosen = _alternative(alternative)
        level = intervals.check_level(level)
        with self._lock:
            if self._weights is not None:
                raise ValueError("DeLong's paired test counts cases and has no weighted form: "
                                 "on weighted cases use partial_roc_test(fpr=(0, 1)), the "
                                 "paired bootstrap of the whole ROC areas")
            labels, a, b = self._arrays()
            return _paired(labels, a, b, level, chosen, self._a.area_under_roc_curve(),
                           self._b.area_under_roc_curve())

