"""Many categories: ``ScoredClassifierEvaluation``, one-vs-rest and one-vs-one, streamed in.

LingPipe's scored classifier evaluator keeps one scored precision-recall evaluation per
category; this one keeps the cases themselves (each case's category and its row of scores,
about 8 bytes a (case, category) cell) and builds each category's binary evaluation when it
is read, so that one-vs-one areas (Hand & Till 2001), which need each case's category, come
from the same cases. Every value equals scikit-learn's on the same arrays:

* :meth:`~ScoredClassifierEvaluation.roc_auc` — ``multi_class="ovr"`` with ``average`` macro,
  weighted (by each category's positives), micro (every (case, category) cell one binary
  case) or None (per category); ``"ovo"``: Hand & Till's mean over pairs of
  ``(A(j|k) + A(k|j)) / 2``, macro or weighted by the pair's prevalence;
* :meth:`~ScoredClassifierEvaluation.average_precision` — per category (grouped ties, the
  average of scikit-learn's ``average_precision_score``), macro, weighted, micro;
* :meth:`~ScoredClassifierEvaluation.top_k_accuracy` — scikit-learn's
  ``top_k_accuracy_score`` (ties: the later column first, as its reversed stable sort);
* :meth:`~ScoredClassifierEvaluation.category` — one category's one-vs-rest evaluation, an
  ordinary read-only :class:`~rankeval.ScoredPrecisionRecallEvaluation`;
* :meth:`~ScoredClassifierEvaluation.confusion` — the arg-max decisions'
  :class:`~rankeval.MultiClassEvaluation`.

``multi_label=True``: a case may belong to any number of categories; ``add_cases`` takes a 0/1
matrix of memberships (one column per category) instead of the categories, and the
one-vs-rest reads, the micro averages and :meth:`~ScoredClassifierEvaluation.category` read
each column (scikit-learn's multilabel-indicator ``roc_auc_score`` and
``average_precision_score``); one-vs-one, top-k accuracy and the arg-max confusion need one
category per case and are refused.

A category with no positive (or no negative) has no ROC area: NaN, with a warning naming
it, and the averages leave it out; never an exception.

Weighted cases (``add_cases(..., weights=)``; ``weighted`` from then on, earlier cases weighing
1) have scikit-learn's ``sample_weight`` meaning: each category's binary evaluation holds
them weighted, ``average="weighted"`` weighs the categories by their positives' weights, the
micro average repeats each case's weight over its cells, top-k accuracy, the Brier score and
log loss are weighted means. The one-vs-one areas (scikit-learn refuses weights there too),
the arg-max confusion and the bootstrap intervals raise on weighted cases.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval import container
from rankeval.checks import (
    check_choice,
    check_flag,
    check_int,
    check_weight,
    check_weight_array,
    listed_keys,
)
from rankeval.errors import PersistenceError
from rankeval.formulas import TiePolicy
from rankeval.intervals import Interval
from rankeval.scored.accumulation import Part, joined, new_list, nothing
from rankeval.scored.calibration import check_probabilities, grouped_mean
from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation
from rankeval.scored.weighted import WeightParts

__all__ = ["ScoredClassifierEvaluation"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
Average = Literal["macro", "weighted", "micro"] | None
_AVERAGES: tuple[Average, ...] = ("macro", "weighted", "micro", None)
_MAGIC = b"\x89RKC\r\n\x1a\n"
_VERSION = 1


class ScoredClassifierEvaluation(WeightParts):
    """Scored decisions among several categories, streamed in (see the module text).

    >>> ev = ScoredClassifierEvaluation(["ham", "spam", "promo"])
    >>> ev.add_cases(["ham", "spam", "promo", "spam"],
    ...              [[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.2, 0.3, 0.5], [0.3, 0.4, 0.3]])
    >>> ev.roc_auc(), ev.top_k_accuracy(1)
    (1.0, 1.0)
    >>> ev.category("spam").area_under_roc_curve()
    1.0

    Thread-safe: every method holds one lock. Complexity: adding is O(k·C) for k cases;
    each read sorts the C columns once (O(C·n log n)) and is cached until the next add.
    """

    def __init__(self, categories: Iterable[str | int], *, ties: TiePolicy = "grouped",
                 multi_label: bool = False) -> None:
        if isinstance(categories, (str, bytes)):
            raise TypeError(f"categories must be a sequence of names, got one "
                            f"{type(categories).__name__} ({categories!r:.40})")
        names = tuple(categories.tolist() if isinstance(categories, np.ndarray)
                      else categories)
        if len(names) < 2:
            raise ValueError(f"need at least two categories, got {len(names)}")
        kinds = {_category_kind(name) for name in names}
        if len(kinds) > 1:
            raise TypeError("categories must be all names (str) or all integers, not a mix")
        if len(set(names)) < len(names):
            raise ValueError("categories must be distinct")
        #: Whether the categories are integers: then the cases name them by value, never by
        #: index (with names, an integer is an index into the categories).
        self._by_value = kinds == {"int"}
        self.categories: tuple[Any, ...] = names
        self.ties: TiePolicy = check_choice(ties, "ties", ("insertion", "grouped"))
        self.multi_label = check_flag(multi_label, "multi_label")
        self._index = {name: i for i, name in enumerate(names)}
        self._start()

    # The state, declared once (rankeval.scored.accumulation): lists of arrays, joined by a
    # merge. Each case's category (multi-class) or its row of memberships (multi-label), its
    # row of scores, and its weight once a weight was given (None: every case weighs 1).
    _STATE: ClassVar[dict[str, Part]] = {
        "_labels": Part(new_list, joined),
        "_scores": Part(new_list, joined),
        "_weights": Part(nothing, joined),
    }
    _labels: list[NDArray[Any]]
    _scores: list[FloatArray]

    def _settings(self) -> dict[str, Any]:
        return {"categories": self.categories, "ties": self.ties,
                "multi_label": self.multi_label}

    def _changed(self) -> None:
        self._cache: dict[object, Any] = {}

    # ------------------------------------------------------------------ adds
    def add_case(self, true_category: str, scores: Sequence[float], *,
                 weight: float | None = None) -> None:
        """Add one case: its category and one score per category, in the categories' order;
        ``weight`` its weight (see :meth:`add_cases`).

        Complexity: O(C).
        """
        self.add_cases([true_category], [list(scores)],
                       weights=None if weight is None else [check_weight(weight)])

    def add_cases(self, true_categories: Sequence[str] | ArrayLike,
                  score_matrix: ArrayLike, *, weights: ArrayLike | None = None) -> None:
        """Add many cases: their categories (names, or indices into the categories) and a
        matrix with a row of scores per case and a column per category. All or nothing.

        ``weights``: each case's weight, finite and non-negative (scikit-learn's
        ``sample_weight``; see the module text). Once given, the evaluation holds weighted
        cases, the earlier ones weighing 1; weights need ``ties="grouped"``.

        Complexity: O(k·C).
        """
        scores = _score_matrix(score_matrix)
        if scores.ndim != 2 or scores.shape[1] != len(self.categories):
            raise ValueError(f"score_matrix must have one column per category "
                             f"({len(self.categories)}), got shape {scores.shape}")
        _check_no_nan(scores)
        labels: NDArray[Any] = (self._memberships(true_categories) if self.multi_label
                                else self._codes(true_categories))
        if labels.shape[0] != scores.shape[0]:
            raise ValueError(f"{labels.shape[0]} categories for {scores.shape[0]} rows of scores")
        if not self.multi_label:  # a category code in 2 bytes: 0.2 B a cell at 10 categories
            labels = labels.astype(_code_dtype(len(self.categories)))
        given = None if weights is None else check_weight_array(weights, scores.shape[0])
        if given is not None and self.ties != "grouped":
            raise ValueError("weighted cases need ties='grouped' (a case of weight w is w tied "
                             "copies of it)")
        with self._lock:
            self._append(labels, scores, given)

    def _append(self, labels: NDArray[Any], scores: FloatArray,
                weights: FloatArray | None) -> None:
        """Hold these cases (checked) after the others; callers hold the lock."""
        held = self._weights
        if weights is not None and held is None:  # the earlier cases weigh 1
            held = [np.ones(sum(part.shape[0] for part in self._labels))]
        if held is not None:
            held = [*held, weights if weights is not None else np.ones(scores.shape[0])]
        self._labels.append(labels)
        self._scores.append(scores)
        self._weights = held
        self._cache = {}

    def _codes(self, given: Sequence[str] | ArrayLike) -> IntArray:
        """Each case's category code. The given keep their identity: a list or tuple is read
        element by element (``np.asarray`` would turn ``["0", 1]`` into two names and drop a
        trailing NUL); names and indices may not be mixed."""
        if isinstance(given, np.ndarray) and given.ndim == 1:
            if given.dtype.kind in "iu" and not self._by_value:
                return self._indices(given.astype(np.int64))
            if given.dtype.kind == "b":
                raise TypeError("true_categories must be categories, not booleans")
        values = listed_keys(given, "true_categories", "category")
        kinds = {_category_kind(value) for value in values}
        if kinds == {"int"} and not self._by_value:
            return self._indices(np.array(values, dtype=np.int64))
        if len(kinds) > 1:
            raise TypeError("true_categories mixes names and integers (indices): give one "
                            "kind")
        out = np.empty(len(values), dtype=np.int64)
        for i, name in enumerate(values):
            code = self._index.get(name)
            if code is None or type(name) is bool:
                raise ValueError(f"unknown category {name!r} (case {i}); the categories are "
                                 f"{', '.join(map(repr, self.categories))}")
            out[i] = code
        return out

    def _indices(self, codes: IntArray) -> IntArray:
        bad = (codes < 0) | (codes >= len(self.categories))
        if bad.any():
            raise ValueError(f"category index {int(codes[bad][0])} is not one of 0..."
                             f"{len(self.categories) - 1}")
        return codes

    def _memberships(self, given: ArrayLike) -> NDArray[np.bool_]:
        """A multi-label case's row: 0/1 or booleans, one column per category."""
        values = np.asarray(given)
        if values.ndim != 2 or values.shape[1] != len(self.categories):
            raise ValueError(f"multi_label cases need a 0/1 matrix with one column per category "
                             f"({len(self.categories)}), got shape {values.shape}")
        if values.dtype != np.bool_ and (values.dtype.kind not in "iuf"
                                         or not np.isin(values, (0, 1)).all()):
            raise ValueError("multi_label memberships must be 0/1 or booleans")
        return np.array(values, dtype=np.bool_, copy=True)

    def _onehot(self) -> NDArray[np.bool_]:
        """Every case's membership of every category (n x C)."""
        labels = self._arrays()[0]
        if self.multi_label:
            return labels.astype(np.bool_, copy=False)
        onehot: NDArray[np.bool_] = labels[:, None] == np.arange(len(self.categories))[None, :]
        return onehot

    def _members(self, j: int) -> NDArray[np.bool_]:
        """Which cases belong to category ``j``: one column, O(n) (not the whole matrix)."""
        labels = self._arrays()[0]
        members: NDArray[np.bool_] = labels[:, j] if self.multi_label else labels == j
        return members

    def _single_label(self, what: str) -> None:
        if self.multi_label:
            raise ValueError(f"{what} needs one category per case; this evaluation is "
                             "multi_label")

    def _arrays(self) -> tuple[NDArray[Any], FloatArray]:
        """The cases so far: categories and the score matrix (one array each from now on)."""
        if not self._labels:
            width = (0, len(self.categories)) if self.multi_label else (0,)
            return (np.zeros(width, dtype=np.bool_ if self.multi_label else np.int64),
                    np.zeros((0, len(self.categories))))
        if len(self._labels) > 1:
            self._labels = [np.concatenate(self._labels)]
            self._scores = [np.concatenate(self._scores)]
        return self._labels[0], self._scores[0]

    def _unweighted(self, what: str, why: str) -> None:
        """Refuse ``what`` on weighted cases, saying ``why``."""
        if self.weighted:
            raise ValueError(f"{what} {why}: this evaluation holds weighted cases")

    def merge(self, other: ScoredClassifierEvaluation) -> None:
        """Add every case of ``other`` (same categories, same mode, same ties), after this
        one's. Complexity: O(1) (the arrays are shared: neither changes them in place)."""
        super().merge(other)

    # ------------------------------------------------------------------ files
    def to_bytes(self) -> bytes:
        """The whole state in :mod:`rankeval.container`'s self-checking format: the settings
        as JSON, then each case's category (int16/int32 codes, or a byte per membership
        under ``multi_label``) and its row of float64 scores. Complexity: O(n·C)."""
        with self._lock:
            labels, scores = self._arrays()
            kind = "u1" if self.multi_label else _code_dtype(len(self.categories)).str[1:]
            meta = {"categories": list(self.categories), "ties": self.ties,
                    "multi_label": self.multi_label, "cases": int(labels.shape[0]),
                    "labels": kind}
            blobs = [np.ascontiguousarray(labels, dtype="<" + kind).tobytes(),
                     np.ascontiguousarray(scores, dtype="<f8").tobytes()]
            weights = self._weight_array()
            if weights is not None:  # a third section: each case's weight
                meta["weighted"] = True
                blobs.append(np.ascontiguousarray(weights, dtype="<f8").tobytes())
        return container.pack(_MAGIC, _VERSION, meta, blobs)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>") -> ScoredClassifierEvaluation:
        """The evaluation :meth:`to_bytes` wrote; :class:`~rankeval.PersistenceError` names
        the file and the first fault of a truncated, corrupted or crafted state."""
        meta, blobs = container.unpack(data, _MAGIC, _VERSION, "classifier", name)
        try:
            expected = {"categories", "ties", "multi_label", "cases", "labels"}
            weighted = meta.get("weighted", False) is True
            if set(meta) != expected | ({"weighted"} if weighted else set()):
                raise ValueError(f"metadata fields {sorted(meta)}, expected {sorted(expected)}"
                                 " (and weighted: true)")
            n, names, flag = meta["cases"], meta["categories"], meta["multi_label"]
            if type(n) is not int or n < 0:
                raise ValueError(f"cases is {n!r}, not a count")
            if not isinstance(names, list) or type(flag) is not bool:
                raise ValueError("categories must be a list and multi_label a boolean")
            ev = cls(names, ties=meta["ties"], multi_label=flag)
            width = len(ev.categories)
            kind = meta["labels"]
            if kind not in (("u1",) if flag else ("i2", "i4")):
                raise ValueError(f"labels stored as {kind!r}")
            dtype = np.dtype(np.uint8) if flag else np.dtype("<" + kind)
            per_case = dtype.itemsize * (width if flag else 1)
            if (len(blobs) != 2 + weighted or len(blobs[0]) != n * per_case
                    or len(blobs[1]) != 8 * n * width or (weighted and len(blobs[2]) != 8 * n)):
                raise ValueError(f"the sections do not hold {n} cases of {width} categories")
            labels = np.frombuffer(blobs[0], dtype=dtype)
            if flag:
                if labels.shape[0] and int(labels.max()) > 1:
                    raise ValueError("a membership byte is neither 0 nor 1")
                labels = labels.reshape(n, width).astype(np.bool_)
            scores = np.frombuffer(blobs[1], dtype="<f8").reshape(n, width)
            if not flag:  # category codes, whether the categories are names or integers
                codes = ev._indices(labels.astype(np.int64))
                labels = codes.astype(_code_dtype(width))
            _check_no_nan(scores)
            weights = (check_weight_array(np.frombuffer(blobs[2], dtype="<f8"), n)
                       if weighted else None)
            if n or weighted:
                ev._append(labels, scores.copy(), weights)
        except (ValueError, TypeError) as error:
            raise PersistenceError(name, f"invalid classifier state: {error}") from None
        return ev

    def __repr__(self) -> str:
        return (f"ScoredClassifierEvaluation(categories={list(self.categories)!r}, "
                f"ties={self.ties!r}{', multi_label=True' if self.multi_label else ''}, "
                f"cases={self.num_cases()})")

    def summary(self) -> dict[str, float]:
        """The main values at once: ``cases``, ``roc_auc`` (macro one-vs-rest),
        ``roc_auc_weighted``, ``roc_auc_micro``, ``average_precision`` (macro),
        ``average_precision_micro``, and, one category per case, ``top_1_accuracy`` and
        ``roc_auc_ovo``. Undefined values are NaN (one warning a read, as each read).

        >>> ev = ScoredClassifierEvaluation(["a", "b"])
        >>> ev.add_cases(["a", "b", "b"], [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4]])
        >>> ev.summary()["roc_auc"], ev.summary()["top_1_accuracy"]
        (1.0, 0.6666666666666666)

        Complexity: that of the reads, cached until the next add.
        """
        with self._lock:
            out: dict[str, float] = {"cases": float(self.num_cases())}
            for name, value in (("roc_auc", self.roc_auc()),
                                ("roc_auc_weighted", self.roc_auc(average="weighted")),
                                ("roc_auc_micro", self.roc_auc(average="micro")),
                                ("average_precision", self.average_precision()),
                                ("average_precision_micro", self.average_precision("micro"))):
                assert isinstance(value, float)
                out[name] = value
            if not self.multi_label:
                out["top_1_accuracy"] = self.top_k_accuracy(1)
                if not self.weighted:  # no weighted meaning: left out, as the binary summary's
                    out["roc_auc_ovo"] = float(self.roc_auc("ovo"))  # type: ignore[arg-type]
            return out

    def to_text(self, digits: int = 4) -> str:
        """:meth:`summary` as text under a line naming the categories and the tie policy."""
        from rankeval._text import summary_text

        mode = ", multi_label" if self.multi_label else ""
        return summary_text(f"ScoredClassifierEvaluation ({len(self.categories)} categories, "
                            f"ties={self.ties}{mode})", self.summary(), digits)

    def num_cases(self) -> float:
        """Cases added (the sum of their weights when weighted). Complexity: O(1) after a
        read."""
        with self._lock:
            weights = self._weight_array()
            if weights is not None:
                return float(np.sum(weights))
            return int(self._arrays()[0].shape[0])

    # ----------------------------------------------------------------- reads
    def _binary(self, labels: NDArray[np.bool_], scores: FloatArray,
                weights: FloatArray | None = None) -> ScoredPrecisionRecallEvaluation:
        ev = ScoredPrecisionRecallEvaluation(ties=self.ties)
        if weights is None:
            ev.add_cases(labels, scores)
        else:
            ev.add_cases(labels, scores, weights=weights)
        return ev

    def _read(self, key: object, measure: str, labels: Any, scores: Any,
              weights: Any = None) -> tuple[float, float, float]:
        """``measure`` of a binary view (labels, scores and weights made by the callables
        given only when not cached), with its positives and negatives (sums of weights when
        weighted). Only the numbers are cached until the next add, never the evaluations: the
        evaluation holds 8 bytes a cell."""
        cached = self._cache.get((key, measure))
        if cached is None:
            ev = self._binary(labels(), scores(), None if weights is None else weights())
            pos, neg = ev.num_positive_ref(), ev.num_negative_ref()
            value = (float("nan") if pos == 0 or (measure == "roc_auc" and neg == 0)
                     else _read(ev, measure))
            cached = self._cache[(key, measure)] = (value, pos, neg)
        return cached

    def _column(self, j: int) -> ScoredPrecisionRecallEvaluation:
        scores = self._arrays()[1]
        return self._binary(self._members(j), scores[:, j], self._weight_array())

    def category(self, name: str) -> ScoredPrecisionRecallEvaluation:
        """Category ``name`` against the rest, as a read-only evaluator (every curve and
        value of :class:`~rankeval.ScoredPrecisionRecallEvaluation`).

        Complexity: O(n log n) a call.
        """
        j = self._index.get(name)
        if j is None:
            raise KeyError(f"unknown category {name!r}; the categories are "
                           f"{', '.join(map(repr, self.categories))}")
        with self._lock:
            return self._column(j).snapshot()

    def roc_auc(self, multi_class: str = "ovr", average: Average = "macro"
                ) -> float | dict[str, float]:
        """The ROC area over the categories (scikit-learn's ``roc_auc_score``).

        ``multi_class="ovr"``: each category against the rest, ``average`` ``"macro"``,
        ``"weighted"`` (by positives), ``"micro"`` (every cell a binary case) or None (a dict
        per category). ``"ovo"``: Hand & Till (2001), ``"macro"`` or ``"weighted"`` (by the
        pair's share of the cases); not on weighted cases (scikit-learn refuses them too).

        Complexity: O(C·n log n) (ovr), O(C²·n log n) (ovo), cached until the next add.
        """
        multi_class = check_choice(multi_class, "multi_class", ("ovr", "ovo"))
        chosen: Average = check_choice(average, "average", _AVERAGES)
        with self._lock:
            if multi_class == "ovo":
                self._single_label("one-vs-one")
                self._unweighted("the one-vs-one ROC area", "has no weighted meaning "
                                 "(scikit-learn refuses sample_weight there too)")
                if chosen not in ("macro", "weighted"):
                    raise ValueError("one-vs-one areas average 'macro' or 'weighted'")
                return self._ovo(chosen)
            return self._ovr("roc_auc", chosen)

    def average_precision(self, average: Average = "macro") -> float | dict[str, float]:
        """Average precision per category against the rest, averaged as ``roc_auc``'s ovr
        (scikit-learn's ``average_precision_score`` of the one-hot labels).

        Complexity: O(C·n log n), cached until the next add.
        """
        chosen: Average = check_choice(average, "average", _AVERAGES)
        with self._lock:
            return self._ovr("average_precision", chosen)

    def _ovr(self, measure: str, average: Average) -> float | dict[str, float]:
        scores = self._arrays()[1]
        weights = self._weight_array()
        width = len(self.categories)
        if average == "micro":  # every cell a case, of its row's weight
            return self._read(("micro",), measure, lambda: self._onehot().ravel(),
                              scores.ravel, None if weights is None
                              else lambda: np.repeat(weights, width))[0]
        values: dict[Any, float] = {}
        support: dict[Any, float] = {}
        undefined: list[str] = []
        for j, name in enumerate(self.categories):
            value, pos, _ = self._read(("ovr", j), measure,
                                         lambda j=j: self._members(j),
                                         lambda j=j: scores[:, j],
                                         None if weights is None else lambda: weights)
            if value != value:
                undefined.append(f"{name!r} (no {'positive' if pos == 0 else 'negative'})")
            values[name] = value
            support[name] = pos
        if undefined:  # one warning a call, however many categories
            shown = ", ".join(undefined[:5]) + (", ..." if len(undefined) > 5 else "")
            warnings.warn(f"{len(undefined)} of {len(self.categories)} categories have no "
                          f"positive or no negative case: {shown}; their {measure} is "
                          "undefined (NaN) and left out of the averages", RuntimeWarning,
                          stacklevel=4)
        if average is None:
            return values
        defined = [n for n in self.categories if values[n] == values[n]]
        if not defined:
            return float("nan")
        weights = (np.array([support[n] for n in defined], dtype=np.float64)
                   if average == "weighted" else None)
        return float(np.average([values[n] for n in defined], weights=weights))

    def _ovo(self, average: str) -> float:
        labels, scores = self._arrays()
        c = len(self.categories)
        pair_scores, prevalence = [], []
        present = np.bincount(labels, minlength=c) > 0
        if not present.all():  # one warning a call, however many pairs
            absent = [repr(self.categories[j]) for j in np.flatnonzero(~present).tolist()]
            left = c * (c - 1) // 2 - int(present.sum()) * (int(present.sum()) - 1) // 2
            warnings.warn(f"{len(absent)} of {c} categories have no case "
                          f"({', '.join(absent[:5])}{', ...' if len(absent) > 5 else ''}): "
                          f"the {left} one-vs-one pairs with one of them are left out",
                          RuntimeWarning, stacklevel=4)
        for a in range(c):
            for b in range(a + 1, c):
                if not (present[a] and present[b]):
                    continue
                mask = (labels == a) | (labels == b)
                first = self._read(("ovo", a, b), "roc_auc", lambda m=mask, a=a: labels[m] == a,
                                   lambda m=mask, a=a: scores[m, a])[0]
                second = self._read(("ovo", b, a), "roc_auc", lambda m=mask, b=b: labels[m] == b,
                                    lambda m=mask, b=b: scores[m, b])[0]
                pair_scores.append((first + second) / 2)
                prevalence.append(float(np.average(mask)))
        if not pair_scores:
            return float("nan")
        return float(np.average(pair_scores,
                                weights=prevalence if average == "weighted" else None))

    def interval(self, measure: str = "roc_auc", level: float = 0.95,
                 method: str = "bootstrap", *, multi_class: str = "ovr",
                 average: Average = "macro", k: int = 1, resamples: int = 2000,
                 seed: int = 0) -> Interval | dict[Any, Interval]:
        """A read with its ``level`` confidence interval, by the stratified bootstrap:
        ``measure`` ``"roc_auc"`` (``multi_class`` and ``average`` as :meth:`roc_auc`),
        ``"average_precision"`` (``average`` as :meth:`average_precision`) or
        ``"top_k_accuracy"`` (with ``k``). ``average=None``: a dict of one interval per
        category.

        Each resample draws each category's cases among themselves (every category keeps its
        count; ``multi_label``: all the cases at once), ``resamples`` times from ``seed``; the
        interval is the percentile interval (R's type-7 quantiles) of the resamples' values,
        the standard error their standard deviation, as the binary evaluator's bootstrap. The
        value is the read's own; an undefined one (NaN) has no bounds.

        >>> ev = ScoredClassifierEvaluation(["a", "b", "c"])
        >>> ev.add_cases(["a", "b", "c", "a", "b", "c"],
        ...              [[.6, .3, .1], [.2, .5, .3], [.1, .2, .7], [.3, .4, .3],
        ...               [.5, .4, .1], [.2, .2, .6]])
        >>> i = ev.interval("roc_auc", resamples=200)
        >>> i.value, i.low <= i.value <= i.high
        (0.9375, True)

        Complexity: O(C·n log n) once, then O(B·C·n) for B resamples (one-vs-one: C² in
        place of C); O(n·C) memory (one-vs-one: O(n·C²)) whatever B.
        """
        from rankeval.intervals import check_level
        from rankeval.scored.classifier_bootstrap import (
            resample_counts,
            resampled_reads,
            weighted_reads,
        )
        from rankeval.scored.uncertainty import MAX_RESAMPLES

        measure = check_choice(measure, "measure",
                               ("roc_auc", "average_precision", "top_k_accuracy"))
        check_choice(method, "method", ("bootstrap",))
        multi_class = check_choice(multi_class, "multi_class", ("ovr", "ovo"))
        chosen: Average = check_choice(average, "average", _AVERAGES)
        level = check_level(level)
        k = check_int(k, "k", minimum=1)
        resamples = check_int(resamples, "resamples", minimum=2, maximum=MAX_RESAMPLES)
        seed = check_int(seed, "seed", minimum=0)
        if measure != "roc_auc" and multi_class != "ovr":
            raise ValueError(f"multi_class='ovo' applies to roc_auc, not to {measure}")
        if measure == "top_k_accuracy" and chosen != "macro":
            raise ValueError("average applies to roc_auc and average_precision, not to "
                             "top_k_accuracy")
        if measure != "top_k_accuracy" and k != 1:
            raise ValueError(f"k= applies to top_k_accuracy, not to {measure}")
        self._unweighted("interval()", "does not resample weighted cases yet (the binary "
                         "evaluator's bootstrap does: category(name).interval())")
        with self._lock:
            value: float | dict[Any, float]
            if measure == "top_k_accuracy":
                value = self.top_k_accuracy(k)
            elif measure == "roc_auc":
                value = self.roc_auc(multi_class, chosen)
            else:
                value = self.average_precision(chosen)
            labels, scores = self._arrays()
            read = weighted_reads(labels, scores, multi_label=self.multi_label,
                                  grouped=self.ties == "grouped", measure=measure,
                                  multi_class=multi_class, average=chosen, k=k)
        values = np.array(list(value.values()) if isinstance(value, dict) else [value],
                          dtype=np.float64)
        found = resampled_reads(read, resample_counts(labels, self.multi_label), values, level,
                                resamples, seed)
        if isinstance(value, dict):
            return dict(zip(value, found, strict=True))
        return found[0]

    def top_k_accuracy(self, k: int = 1) -> float:
        """The share of cases whose category is among their ``k`` highest scores
        (scikit-learn's ``top_k_accuracy_score``: of equal scores the later column ranks
        first). NaN with no case.

        Complexity: O(n·C log C).
        """
        k = check_int(k, "k", minimum=1)
        self._single_label("top_k_accuracy")
        with self._lock:
            labels, scores = self._arrays()
            if labels.shape[0] == 0:
                return float("nan")
            if k >= len(self.categories):
                return 1.0
            order = np.argsort(scores, axis=1, kind="mergesort")[:, ::-1][:, :k]
            return float(np.average((order == labels[:, None]).any(axis=1),
                                    weights=self._weight_array()))

    def confusion(self) -> Any:
        """The arg-max decisions (the first of equal highest scores) as a
        :class:`~rankeval.MultiClassEvaluation` of reference against response.

        Complexity: O(n·C).
        """
        from rankeval.confusion import MultiClassEvaluation

        self._single_label("the arg-max confusion")
        self._unweighted("confusion()", "counts cases (MultiClassEvaluation holds counts)")
        with self._lock:
            labels, scores = self._arrays()
            names = np.array(self.categories, dtype=object)
            ev: Any = MultiClassEvaluation(self.categories)
            ev.add_cases(names[labels].tolist(), names[np.argmax(scores, axis=1)].tolist())
            return ev


    # ------------------------------------------------------------ calibration
    def _probability_matrix(self, measure: str) -> tuple[IntArray, FloatArray]:
        self._single_label(measure)
        labels, scores = self._arrays()
        return labels, check_probabilities(scores, measure)

    def brier_score(self) -> float:
        """The multi-class Brier score: the mean over cases of ``Σ_k (p_k - y_k)²``
        (scikit-learn's ``brier_score_loss`` of the categories and the score rows). Each
        category's own: ``category(name).brier_score()``.

        Complexity: O(n·C).
        """
        with self._lock:
            labels, scores = self._probability_matrix("brier_score")
            if labels.shape[0] == 0:
                return float("nan")
            onehot = self._onehot()
            return grouped_mean(((scores - onehot) ** 2).sum(axis=1), self._weight_array())

    def log_loss(self) -> float:
        """scikit-learn's multi-class ``log_loss``: the mean of ``-log p`` of each case's
        category, ``p`` clipped to ``[ε, 1 - ε]``.

        Complexity: O(n).
        """
        with self._lock:
            labels, scores = self._probability_matrix("log_loss")
            if labels.shape[0] == 0:
                return float("nan")
            eps = float(np.finfo(np.float64).eps)
            chosen = np.clip(scores[np.arange(labels.shape[0]), labels], eps, 1 - eps)
            return grouped_mean(-np.log(chosen), self._weight_array())

    def calibration_error(self, bins: int = 15, strategy: str = "uniform",
                          norm: str = "l1") -> float:
        """The top-label calibration error (torchmetrics' ``MulticlassCalibrationError``):
        each case's highest score (the first of equal ones) as its confidence, correct when
        that column is its category. Each category's own:
        ``category(name).calibration_error()``.

        Complexity: O(n·C + n log n).
        """
        from rankeval.scored.calibration import MAX_BINS, calibration_error_of

        with self._lock:
            labels, scores = self._probability_matrix("calibration_error")
            count = check_int(bins, "bins", minimum=1, maximum=MAX_BINS)
            if labels.shape[0] == 0:
                return float("nan")
            top = np.argmax(scores, axis=1)
            confidence = scores[np.arange(labels.shape[0]), top]
            return calibration_error_of((top == labels).astype(np.float64), confidence, count,
                                        strategy, norm, self._weight_array())


def _code_dtype(categories: int) -> np.dtype[Any]:
    """How a case's category code is held: 2 bytes, or 4 from 2^15 categories on."""
    return np.dtype(np.int16 if categories < 2**15 else np.int32)


def _check_no_nan(scores: FloatArray) -> None:
    """Refuse a score matrix holding NaN, naming its first row with one."""
    if np.isnan(scores).any():
        row = int(np.flatnonzero(np.isnan(scores).any(axis=1))[0])
        raise ValueError(f"score_matrix holds NaN (row {row})")


def _category_kind(value: object) -> str:
    """``"str"``, ``"int"`` (a Python or NumPy integer, never a bool) or the type's name."""
    if isinstance(value, str):
        return "str"
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return "int"
    return type(value).__name__


def _score_matrix(given: ArrayLike) -> FloatArray:
    """A copy of the score rows as float64: real numbers only, as the binary evaluator takes
    them (a bool, a numeric string or a Decimal is refused, not converted)."""
    from rankeval.checks import _item_by_item, check_score

    if isinstance(given, (str, bytes)):
        raise TypeError("score_matrix must hold real numbers, got a str")
    # Python rows are read element by element (np.asarray would turn True into 1.0 and a row
    # holding "0.5" into text); arrays and tensors by their dtype.
    array = (np.asarray(given) if isinstance(given, np.ndarray) or hasattr(given, "__array__")
             else np.array(given, dtype=object))
    if array.dtype.kind in "iuf":
        with np.errstate(over="ignore"):
            return np.array(array, dtype=np.float64, copy=True)
    if array.dtype.kind == "O" or array.size == 0:
        flat = _item_by_item(array.reshape(-1), np.float64, check_score, "score_matrix.flat")
        return flat.reshape(array.shape)
    raise TypeError(f"score_matrix must hold real numbers, got dtype {array.dtype}")


def _read(ev: ScoredPrecisionRecallEvaluation, measure: str) -> float:
    return ev.area_under_roc_curve() if measure == "roc_auc" else ev.average_precision()
