"""rankeval's reads as scikit-learn scorers, against scikit-learn itself: every registered
read (drawn from the registry) scores what the read gives on the held-out scores; the ROC
area and McClish's partial area equal scikit-learn's own scorers in GridSearchCV; a grid
search picks by a rankeval scorer; TunedThresholdClassifierCV tunes the threshold that
best_threshold gives."""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import make_scorer, roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, TunedThresholdClassifierCV

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.scored.reads import READS
from rankeval.sklearn import CONFUSION_RATES, confusion_scorer, scorer
from tests.helpers import read_options

SCORED = [name for name, read in READS.items()
          if name not in ("cases", "positives", "negatives") and "evaluator" in read.readers]


def data(seed: int = 0, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = (x @ np.array([1.0, -0.5, 0.3]) + rng.normal(0, 1.2, n) > 0.4).astype(int)
    return x, y


def argument_of(name: str) -> Any:
    parameter = READS[name].parameter
    return {"rank": 10, "beta": 2.0, "threshold": 0.5}.get(str(parameter))


@pytest.mark.parametrize("name", SCORED)
def test_every_read_scores_what_the_read_gives(name: str) -> None:
    x, y = data()
    model = LogisticRegression().fit(x[:200], y[:200])
    proba = model.predict_proba(x[200:])[:, 1]
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(y[200:] == 1, proba)
    options = read_options(name)
    want = float(READS[name].read(ev, argument_of(name), **options))
    got = scorer(name, argument=argument_of(name), **options)(model, x[200:], y[200:])
    sign = 1.0 if READS[name].better == "higher" else -1.0
    assert got == pytest.approx(sign * want, abs=1e-15, nan_ok=True)


@pytest.mark.parametrize(("ours", "theirs"), [
    (lambda: scorer("roc_auc"), lambda: "roc_auc"),
    (lambda: scorer("partial_roc_auc", fpr=(0.0, 0.2), standardize="mcclish"),
     lambda: make_scorer(roc_auc_score, max_fpr=0.2, response_method="predict_proba")),
    (lambda: scorer("brier_score"), lambda: "neg_brier_score"),
    (lambda: scorer("log_loss"), lambda: "neg_log_loss"),
])
def test_a_grid_search_scores_as_scikit_learns_own_scorers(ours: Any, theirs: Any) -> None:
    x, y = data(1)
    grid = {"C": [0.01, 0.1, 1.0, 10.0]}
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    a = GridSearchCV(LogisticRegression(), grid, scoring=ours(), cv=cv).fit(x, y)
    b = GridSearchCV(LogisticRegression(), grid, scoring=theirs(), cv=cv).fit(x, y)
    np.testing.assert_allclose(a.cv_results_["mean_test_score"],
                               b.cv_results_["mean_test_score"], rtol=1e-12, atol=1e-15)
    assert a.best_params_ == b.best_params_


def test_a_grid_search_picks_by_a_rankeval_read() -> None:
    """The grid's scores are the read on each held-out fold, computed here by hand."""
    x, y = data(2)
    grid = {"C": [0.001, 0.01, 1.0]}
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    search = GridSearchCV(LogisticRegression(), grid, cv=cv,
                          scoring=scorer("sensitivity_at", specificity=0.9)).fit(x, y)
    means = []
    for c in grid["C"]:
        folds = []
        for train, test in cv.split(x, y):
            model = LogisticRegression(C=c).fit(x[train], y[train])
            ev = ScoredPrecisionRecallEvaluation()
            ev.add_cases(y[test] == 1, model.predict_proba(x[test])[:, 1])
            folds.append(ev.sensitivity_at(0.9).value)
        means.append(np.mean(folds))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], means, rtol=1e-12)
    assert search.best_params_ == {"C": grid["C"][int(np.argmax(means))]}


@pytest.mark.parametrize("seed", range(3))
def test_tuned_threshold_is_best_thresholds_youden(seed: int) -> None:
    x, y = data(seed + 10, 400)
    model = LogisticRegression().fit(x[:200], y[:200])
    proba = model.predict_proba(x[200:])[:, 1]
    tuned = TunedThresholdClassifierCV(model, scoring=confusion_scorer("youden_index"),
                                       cv="prefit", refit=False, thresholds=np.unique(proba))
    tuned.fit(x[200:], y[200:])
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(y[200:] == 1, proba)
    best = ev.best_threshold("youden")
    assert tuned.best_score_ == pytest.approx(best.value, abs=1e-12)
    assert ev.confusion_at(tuned.best_threshold_).youden_index() == pytest.approx(best.value,
                                                                                  abs=1e-12)


@pytest.mark.parametrize("rate", list(CONFUSION_RATES))
def test_every_confusion_rate_scores_the_decisions(rate: str) -> None:
    x, y = data(3)
    model = LogisticRegression().fit(x[:200], y[:200])
    predicted = model.predict(x[200:])
    actual = y[200:]
    tp = int(np.sum((actual == 1) & (predicted == 1)))
    fp = int(np.sum((actual == 0) & (predicted == 1)))
    fn = int(np.sum((actual == 1) & (predicted == 0)))
    tn = len(actual) - tp - fp - fn
    from rankeval import PrecisionRecallEvaluation

    want = getattr(PrecisionRecallEvaluation(tp=tp, fn=fn, fp=fp, tn=tn), rate)()
    sign = 1.0 if CONFUSION_RATES[rate] == "higher" else -1.0
    got = confusion_scorer(rate)(model, x[200:], y[200:])
    assert got == pytest.approx(sign * want, nan_ok=True)


def test_string_classes_take_pos_label() -> None:
    x, y = data(4)
    names = np.where(y == 1, "spam", "ham")
    model = LogisticRegression().fit(x, names)
    ours = scorer("roc_auc", pos_label="spam")(model, x, names)
    assert ours == pytest.approx(roc_auc_score(names == "spam", model.predict_proba(x)[:, 1]))
    flipped = scorer("roc_auc", pos_label="ham")(model, x, names)
    assert flipped == pytest.approx(roc_auc_score(names == "ham",
                                                  model.predict_proba(x)[:, 0]))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: scorer("auc"), "unknown scorer 'auc'"),
    (lambda: scorer("cases"), "unknown scorer 'cases'"),
    (lambda: scorer("precision_at"), "needs argument="),
    (lambda: scorer("roc_auc", fpr=(0, 0.1)), "roc_auc takes no fpr"),
    (lambda: scorer("partial_roc_auc", fpr=(0.3, 0.1)), "reversed"),
    (lambda: confusion_scorer("auc"), "unknown rate 'auc'"),
    (lambda: confusion_scorer("f_measure", beta=-1.0), "beta"),
])
def test_bad_scorers_are_refused_when_made(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_a_missing_scikit_learn_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn.metrics", None)
    with pytest.raises(ModuleNotFoundError, match=r"rankeval-exact\[sklearn\]"):
        scorer("roc_auc")


def test_a_multiclass_estimator_is_refused_clearly() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(90, 2))
    y = np.repeat([0, 1, 2], 30)
    model = LogisticRegression().fit(x, y)
    with pytest.raises(ValueError, match="binary: the estimator scores 3 classes"):
        scorer("roc_auc")(model, x, y)
    binary = LogisticRegression().fit(x, y == 2)
    assert math.isfinite(scorer("roc_auc")(binary, x, y == 2))
