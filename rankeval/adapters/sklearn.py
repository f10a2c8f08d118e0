"""scikit-learn model selection with rankeval's reads: ``rankeval.sklearn``.

* :func:`scorer` — any registered scored read (the ROC area, a partial area, precision at a
  recall floor, KS, the lift of the top 10 %, the calibration error, ...) as a scikit-learn
  scorer, for ``scoring=`` in ``GridSearchCV``, ``cross_validate`` and the like: the
  estimator's scores (``predict_proba``'s positive column, else ``decision_function``) go
  into a fresh :class:`~rankeval.ScoredPrecisionRecallEvaluation`, and the read's value is
  the score (negated for a loss, as scikit-learn's ``neg_`` scorers are).
* :func:`confusion_scorer` — a rate of the confusion matrix at the estimator's decisions
  (Youden's J, balanced accuracy, MCC, the F-measure, ...), for ``TunedThresholdClassifierCV``
  (whose objective is a scorer of decisions) as well as for ``scoring=``.

Both are built by scikit-learn's own ``make_scorer``, so scikit-learn chooses the response
(the positive class's column, ``pos_label``) the way it does for its own scorers. Needs
scikit-learn (``pip install 'rankeval-exact[sklearn]'``).

>>> from sklearn.linear_model import LogisticRegression
>>> from sklearn.model_selection import cross_val_score
>>> from rankeval.sklearn import scorer
>>> X = [[0.1], [0.4], [0.35], [0.8], [0.7], [0.2], [0.9], [0.05]]
>>> y = [0, 0, 1, 1, 1, 0, 1, 0]
>>> ours = cross_val_score(LogisticRegression(), X, y, cv=2, scoring=scorer("roc_auc"))
>>> ours.tolist() == cross_val_score(LogisticRegression(), X, y, cv=2,
...                                  scoring="roc_auc").tolist()
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankeval._extras import optional
from rankeval.confusion import PrecisionRecallEvaluation
from rankeval.scored.reads import READS

__all__ = ["CONFUSION_RATES", "confusion_scorer", "scorer"]

#: The rates of :class:`~rankeval.PrecisionRecallEvaluation` a :func:`confusion_scorer` takes,
#: each with the way it improves.
CONFUSION_RATES: dict[str, str] = {
    "precision": "higher", "recall": "higher", "specificity": "higher", "npv": "higher",
    "fdr": "lower", "fallout": "lower", "f_measure": "higher", "accuracy": "higher",
    "error_rate": "lower", "kappa": "higher", "balanced_accuracy": "higher",
    "youden_index": "higher", "matthews_corrcoef": "higher", "lr_positive": "higher",
    "lr_negative": "lower",
}
#: Reads that are counts, not scores of a model: no scorer.
_COUNTS = ("cases", "positives", "negatives")


def _make_scorer() -> Any:
    return optional("sklearn.metrics", "rankeval.sklearn", "sklearn", "scikit-learn").make_scorer


def _positives(y_true: Any, pos_label: Any) -> np.ndarray:
    """``y_true == pos_label``; without ``pos_label``, the greater of the two labels (the
    positive class scikit-learn's binary scorers take, ``classes_[-1]``)."""
    y = np.asarray(y_true)
    if pos_label is None:
        labels = np.unique(y)
        if labels.shape[0] > 2:
            raise ValueError(f"a rankeval scorer is binary; y has {labels.shape[0]} classes")
        pos_label = labels[-1] if labels.shape[0] else 1
    return np.asarray(y == pos_label, dtype=bool)


def scorer(name: str, *, pos_label: Any = None, argument: Any = None,
           **options: Any) -> Any:
    """The registered scored read ``name`` as a scikit-learn scorer.

    ``argument`` is the read's rank or beta where it takes one (``scorer("precision_at",
    argument=10)``); ``options`` are its options (``scorer("partial_roc_auc", fpr=(0, 0.1),
    standardize="mcclish")``, ``scorer("sensitivity_at", specificity=0.95)``). The
    calibration reads ask the estimator for ``predict_proba``; the others for
    ``predict_proba``, else ``decision_function``. A read that is better lower (a loss, an
    error) is negated, as scikit-learn's ``neg_`` scorers are.

    Raises
    ------
    ValueError
        An unknown read, a count, a read only ``interval()`` makes, an option the read does
        not take (checked when the scorer is made, on a small ranking).
    """
    read = READS.get(name)
    if read is None or name in _COUNTS or "evaluator" not in read.readers:
        known = [n for n, r in READS.items() if n not in _COUNTS and "evaluator" in r.readers]
        raise ValueError(f"unknown scorer {name!r}; the scored reads are {', '.join(known)}")
    if read.parameter == "rank" and argument is None:
        raise ValueError(f"{name} needs argument= (its rank k)")
    probe = _evaluation(np.array([True, False, True]), np.array([0.9, 0.3, 0.6]))
    read.read(probe, argument, **options)  # an option it does not take fails now, not in a fit

    def score(y_true: Any, y_score: Any, pos_label: Any = None,
              sample_weight: Any = None) -> float:
        scores = np.asarray(y_score, dtype=np.float64)
        if scores.ndim != 1:
            raise ValueError(f"a rankeval scorer is binary: the estimator scores "
                             f"{scores.shape[-1]} classes")
        ev = _evaluation(_positives(y_true, pos_label), scores, sample_weight)
        return float(read.read(ev, argument, **options))

    response = "predict_proba" if read.probabilities else ("predict_proba",
                                                           "decision_function")
    extra = {} if pos_label is None else {"pos_label": pos_label}
    return _make_scorer()(score, response_method=response,
                          greater_is_better=read.better == "higher", **extra)


def _evaluation(labels: np.ndarray, scores: np.ndarray, sample_weight: Any = None) -> Any:
    """The evaluator of a scorer's cases; weighted by ``sample_weight`` when scikit-learn
    passes one (a read with no weighted meaning then raises)."""
    from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation

    ev = ScoredPrecisionRecallEvaluation()
    if sample_weight is None:
        ev.add_cases(labels, scores)
    else:
        ev.add_cases(labels, scores, weights=sample_weight)
    return ev


def confusion_scorer(rate: str, *, pos_label: Any = None, **options: Any) -> Any:
    """A rate of :class:`~rankeval.PrecisionRecallEvaluation` (:data:`CONFUSION_RATES`) at
    the estimator's decisions (``predict``), as a scikit-learn scorer: the objective of
    ``TunedThresholdClassifierCV`` (``scoring=confusion_scorer("youden_index")`` tunes the
    threshold ``best_threshold("youden")`` gives), or ``scoring=`` anywhere. ``options``
    go to the rate (``beta=`` for ``f_measure``); a rate better lower is negated. An
    undefined rate (0/0) scores NaN.
    """
    if rate not in CONFUSION_RATES:
        raise ValueError(f"unknown rate {rate!r}; the rates are {', '.join(CONFUSION_RATES)}")
    getattr(PrecisionRecallEvaluation(tp=1, fn=1, fp=1, tn=1), rate)(**options)  # fail now

    def score(y_true: Any, y_pred: Any, pos_label: Any = None,
              sample_weight: Any = None) -> float:
        truth = np.asarray(y_true)
        chosen = pos_label
        if chosen is None:
            labels = np.unique(np.concatenate((truth, np.asarray(y_pred))))
            chosen = labels[-1] if labels.shape[0] else 1
        actual, predicted = truth == chosen, np.asarray(y_pred) == chosen
        if sample_weight is not None:  # a confusion matrix of sums of weights
            from rankeval.checks import check_weight_array

            w = check_weight_array(sample_weight, actual.shape[0], "sample_weight")
            confusion = PrecisionRecallEvaluation.of_weights(
                tp=float(w[actual & predicted].sum()), fn=float(w[actual & ~predicted].sum()),
                fp=float(w[~actual & predicted].sum()), tn=float(w[~actual & ~predicted].sum()))
            return float(getattr(confusion, rate)(**options))
        tp = int(np.count_nonzero(actual & predicted))
        fp = int(np.count_nonzero(~actual & predicted))
        fn = int(np.count_nonzero(actual & ~predicted))
        tn = int(actual.shape[0]) - tp - fp - fn
        confusion = PrecisionRecallEvaluation(tp=tp, fn=fn, fp=fp, tn=tn)
        return float(getattr(confusion, rate)(**options))

    extra = {} if pos_label is None else {"pos_label": pos_label}
    return _make_scorer()(score, greater_is_better=CONFUSION_RATES[rate] == "higher", **extra)
