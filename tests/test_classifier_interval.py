"""ScoredClassifierEvaluation.interval: the bootstrap per category and for the averages.

Every resample is the cases each repeated as many times as it was drawn, so each resampled
value must equal scikit-learn's on the repeated rows; the whole interval must equal a slow
bootstrap written here from the documented draws (each category's cases drawn among
themselves, in the categories' order; all the cases at once for multi-label), reading every
resample with scikit-learn."""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score, top_k_accuracy_score

from rankeval.scored.classifier import _AVERAGES, ScoredClassifierEvaluation
from rankeval.scored.classifier_bootstrap import weighted_reads

NAMES = ["ham", "spam", "promo", "social"]
MEASURES = ("roc_auc", "average_precision", "top_k_accuracy")


def _data(seed: int, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = np.concatenate([np.arange(4), rng.integers(0, 4, n - 4)])  # every category
    raw = np.round(rng.random((n, 4)) + 0.6 * np.eye(4)[labels], 1)  # ties
    return labels, raw / raw.sum(axis=1, keepdims=True)


def _surface() -> list[tuple[str, str, Any, int]]:
    """Every (measure, multi_class, average, k) the method accepts."""
    out = []
    for measure, multi_class, average in itertools.product(MEASURES, ("ovr", "ovo"), _AVERAGES):
        if measure == "top_k_accuracy":
            if multi_class == "ovr" and average == "macro":
                out.extend((measure, multi_class, average, k) for k in (1, 2, 3, 4))
        elif multi_class == "ovo":
            if measure == "roc_auc" and average in ("macro", "weighted"):
                out.append((measure, multi_class, average, 1))
        else:
            out.append((measure, multi_class, average, 1))
    return out


def _column(onehot: np.ndarray, scores: np.ndarray, j: int, measure: str) -> float:
    y = onehot[:, j]
    if not y.any() or (measure == "roc_auc" and y.all()):
        return math.nan  # the documented rule: undefined, left out of the averages
    read = roc_auc_score if measure == "roc_auc" else average_precision_score
    return float(read(y, scores[:, j]))


def _sklearn(labels: np.ndarray, scores: np.ndarray, measure: str, multi_class: str,
             average: Any, k: int, multi_label: bool) -> list[float]:
    """The read by scikit-learn (the per-category values; the averages of the defined)."""
    onehot = labels.astype(bool) if multi_label else np.eye(4, dtype=bool)[labels]
    if measure == "top_k_accuracy":
        with warnings.catch_warnings():  # k = 4 of 4 categories: sklearn warns, reads 1.0
            warnings.simplefilter("ignore")
            return [float(top_k_accuracy_score(labels, scores, k=k, labels=range(4)))]
    if multi_class == "ovo":
        return [float(roc_auc_score(labels, scores, multi_class="ovo", average=average))]
    if average == "micro":
        read = roc_auc_score if measure == "roc_auc" else average_precision_score
        return [float(read(onehot.ravel(), scores.ravel()))]
    values = [_column(onehot, scores, j, measure) for j in range(4)]
    if average is None:
        return values
    kept = [j for j in range(4) if values[j] == values[j]]
    weights = onehot.sum(axis=0)[kept] if average == "weighted" else None
    return [float(np.average([values[j] for j in kept], weights=weights))]


@pytest.mark.parametrize("seed", range(6))
def test_every_resampled_read_is_sklearns_on_the_repeated_rows(seed: int) -> None:
    labels, scores = _data(seed)
    rng = np.random.default_rng(100 + seed)
    for measure, multi_class, average, k in _surface():
        read = weighted_reads(labels, scores, multi_label=False, grouped=True, measure=measure,
                              multi_class=multi_class, average=average, k=k)
        for _ in range(3):
            counts = rng.integers(0, 3, labels.shape[0])
            for j in range(4):  # every category keeps a case, as a stratified resample does
                counts[np.flatnonzero(labels == j)[0]] += 1
            want = _sklearn(np.repeat(labels, counts), np.repeat(scores, counts, axis=0),
                            measure, multi_class, average, k, False)
            got = read(counts.astype(np.int64)).tolist()
            assert got == pytest.approx(want, abs=1e-12, nan_ok=True), (measure, multi_class,
                                                                        average, k)


def _slow_bootstrap(labels: np.ndarray, scores: np.ndarray, measure: str, multi_class: str,
                    average: Any, k: int, multi_label: bool, resamples: int, seed: int,
                    level: float) -> list[tuple[float, float, float]]:
    rng = np.random.default_rng(seed)
    n = labels.shape[0]
    found = []
    for _ in range(resamples):
        if multi_label:
            counts = np.bincount(rng.integers(0, n, n), minlength=n)
        else:
            counts = np.zeros(n, dtype=np.int64)
            for j in range(4):
                members = np.flatnonzero(labels == j)
                counts[members] = np.bincount(rng.integers(0, members.size, members.size),
                                              minlength=members.size)
        found.append(_sklearn(np.repeat(labels, counts, axis=0),
                              np.repeat(scores, counts, axis=0), measure, multi_class,
                              average, k, multi_label))
    table = np.array(found)
    out = []
    for column in table.T:
        finite = column[np.isfinite(column)]
        low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
        out.append((float(low), float(high), float(np.std(finite, ddof=1))))
    return out


@pytest.mark.parametrize("case", _surface(), ids=lambda case: "-".join(map(str, case)))
def test_the_interval_is_a_slow_bootstrap_by_sklearn(case: tuple[str, str, Any, int]) -> None:
    measure, multi_class, average, k = case
    labels, scores = _data(7, n=24)
    ev = ScoredClassifierEvaluation(NAMES)
    ev.add_cases(labels, scores)
    got = ev.interval(measure, 0.9, multi_class=multi_class, average=average, k=k,
                      resamples=40, seed=3)
    want = _slow_bootstrap(labels, scores, measure, multi_class, average, k, False, 40, 3, 0.9)
    intervals = list(got.values()) if isinstance(got, dict) else [got]
    if isinstance(got, dict):
        assert list(got) == NAMES
    values = _sklearn(labels, scores, measure, multi_class, average, k, False)
    for interval, (low, high, se), value in zip(intervals, want, values, strict=True):
        assert interval.method == "bootstrap"
        assert interval.level == 0.9
        assert interval.value == pytest.approx(value, abs=1e-12)
        assert (interval.low, interval.high, interval.std_error) == pytest.approx(
            (low, high, se), abs=1e-12)


def test_multi_label_resamples_every_case_at_once() -> None:
    rng = np.random.default_rng(5)
    members = (rng.random((30, 4)) < 0.3).astype(np.int64)
    members[:2, 3] = [1, 0]  # a rare category, often undefined in a resample
    members[2:, 3] = 0
    scores = np.round(rng.random((30, 4)), 1)
    ev = ScoredClassifierEvaluation(NAMES, multi_label=True)
    ev.add_cases(members, scores)
    for average in ("macro", "weighted", None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = ev.interval("roc_auc", average=average, resamples=30, seed=1)
        want = _slow_bootstrap(members, scores, "roc_auc", "ovr", average, 1, True, 30, 1, 0.95)
        intervals = list(got.values()) if isinstance(got, dict) else [got]
        for interval, (low, high, se) in zip(intervals, want, strict=True):
            assert (interval.low, interval.high, interval.std_error) == pytest.approx(
                (low, high, se), abs=1e-12)


def test_an_undefined_read_has_no_bounds_and_the_reads_value() -> None:
    ev = ScoredClassifierEvaluation(["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert math.isnan(ev.interval("roc_auc").value)  # no case
        ev.add_cases(["a", "b"], [[0.9, 0.1, 0.0], [0.2, 0.7, 0.1]])
        per = ev.interval("roc_auc", average=None, resamples=20)
    assert isinstance(per, dict)
    assert math.isnan(per["c"].value)
    assert math.isnan(per["c"].low)
    assert per["a"].value == 1.0


def test_insertion_ties_read_the_evaluators_values() -> None:
    labels, scores = _data(2)
    ev = ScoredClassifierEvaluation(NAMES, ties="insertion")
    ev.add_cases(labels, scores)
    for measure, multi_class, average, k in _surface():
        read = weighted_reads(labels, scores, multi_label=False, grouped=False,
                              measure=measure, multi_class=multi_class, average=average, k=k)
        if measure == "top_k_accuracy":
            want: Any = ev.top_k_accuracy(k)
        elif measure == "roc_auc":
            want = ev.roc_auc(multi_class, average)
        else:
            want = ev.average_precision(average)
        want = list(want.values()) if isinstance(want, dict) else [want]
        got = read(np.ones(labels.shape[0], dtype=np.int64)).tolist()
        assert got == pytest.approx(want, abs=1e-12), (measure, multi_class, average, k)


@pytest.mark.parametrize(("call", "message"), [
    ({"measure": "brier"}, "measure"),
    ({"method": "delong"}, "method"),
    ({"measure": "average_precision", "multi_class": "ovo"}, "multi_class='ovo'"),
    ({"multi_class": "ovo", "average": "micro"}, "one-vs-one"),
    ({"measure": "top_k_accuracy", "average": None}, "average applies"),
    ({"k": 2}, "k= applies"),
    ({"level": 1.0}, "level"),
    ({"resamples": 1}, "resamples"),
    ({"seed": -1}, "seed"),
])
def test_bad_arguments_are_refused(call: dict[str, Any], message: str) -> None:
    ev = ScoredClassifierEvaluation(NAMES)
    ev.add_cases(*_data(1))
    with pytest.raises(ValueError, match=message):
        ev.interval(**call)
