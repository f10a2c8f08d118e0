"""Calibration reads against scikit-learn (brier_score_loss, log_loss, calibration_curve) and
torchmetrics (BinaryCalibrationError) on random probabilities with ties, some on bin edges;
Murphy's decomposition against its definition."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import torch
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, log_loss
from torchmetrics.classification import BinaryCalibrationError

from rankeval import ScoredPrecisionRecallEvaluation


def _data(seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if seed % 2:
        p = np.round(p, 1)  # ties, many on the edges of ten bins, and some 0s and 1s
    y = rng.random(n) < p
    return y, p


def _evaluator(y: np.ndarray, p: np.ndarray, ties: str = "grouped"
               ) -> ScoredPrecisionRecallEvaluation:
    ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
    ev.add_cases(y, p)
    return ev


@pytest.mark.parametrize("seed", range(8))
def test_brier_and_log_loss_are_sklearns(seed: int) -> None:
    y, p = _data(seed)
    ev = _evaluator(y, p, "insertion" if seed % 3 else "grouped")
    assert ev.brier_score() == pytest.approx(brier_score_loss(y, p), abs=1e-12)
    assert ev.log_loss() == pytest.approx(log_loss(y, p, labels=[False, True]), abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("bins", [1, 5, 10, 15])
def test_reliability_curve_is_sklearns(seed: int, strategy: str, bins: int) -> None:
    y, p = _data(seed)
    curve = _evaluator(y, p).reliability_curve(bins=bins, strategy=strategy)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=bins, strategy=strategy)
    np.testing.assert_allclose(curve.fraction_positive, prob_true, rtol=0, atol=1e-12)
    np.testing.assert_allclose(curve.mean_predicted, prob_pred, rtol=0, atol=1e-12)
    assert int(curve.counts.sum()) == p.shape[0]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
@pytest.mark.parametrize("bins", [2, 10, 15])
def test_calibration_error_is_torchmetrics(seed: int, norm: str, bins: int) -> None:
    y, p = _data(seed)
    theirs = BinaryCalibrationError(n_bins=bins, norm=norm)
    want = float(theirs(torch.tensor(p, dtype=torch.float64), torch.tensor(y.astype(int))))
    got = _evaluator(y, p).calibration_error(bins=bins, norm=norm)
    assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_murphys_decomposition(seed: int) -> None:
    """Over the distinct scores the decomposition is exact; over bins it follows its
    definition, written out here."""
    y, p = _data(seed)
    ev = _evaluator(y, p)
    d = ev.brier_decomposition()
    assert d.brier == pytest.approx(brier_score_loss(y, p), abs=1e-12)
    assert d.reliability - d.resolution + d.uncertainty == pytest.approx(d.brier, abs=1e-12)
    base = y.mean()
    assert d.uncertainty == pytest.approx(base * (1 - base), abs=1e-15)
    binned = ev.brier_decomposition(bins=5)
    edges = np.linspace(0, 1, 6)
    ids = np.searchsorted(edges[1:-1], p)
    rel = res = 0.0
    for b in np.unique(ids):
        inside = ids == b
        rel += inside.sum() * (p[inside].mean() - y[inside].mean()) ** 2
        res += inside.sum() * (y[inside].mean() - base) ** 2
    assert binned.reliability == pytest.approx(rel / p.size, abs=1e-12)
    assert binned.resolution == pytest.approx(res / p.size, abs=1e-12)


def test_scores_outside_the_unit_interval_are_refused_for_calibration_only() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True], [2.5, -1.0, 0.5])
    for read in (ev.brier_score, ev.log_loss, ev.reliability_curve, ev.calibration_error,
                 ev.brier_decomposition):
        with pytest.raises(ValueError, match=r"as probabilities, and .* is outside"):
            read()
    assert ev.area_under_roc_curve() == 1.0  # the ranking measures take any real score
    empty = ScoredPrecisionRecallEvaluation()
    assert math.isnan(empty.brier_score())
    assert math.isnan(empty.calibration_error())


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_no_scored_case_reads_empty_under_every_strategy(strategy: str) -> None:
    """Found by a fresh-clone run: the quantile bins of no score raised IndexError."""
    for misses in (0, 2):
        ev = ScoredPrecisionRecallEvaluation()
        ev.add_misses(misses)
        curve = ev.reliability_curve(1, strategy)
        assert curve.counts.tolist() == curve.fraction_positive.tolist() == []
        assert math.isnan(ev.calibration_error(bins=1, strategy=strategy))
        assert math.isnan(ev.brier_decomposition(bins=1, strategy=strategy).brier)


def test_the_suite_draws_the_same_examples_every_run() -> None:
    """`make test` loads the derandomised profile (conftest); `make fuzz` sets another."""
    from hypothesis import settings

    if os.environ.get("RANKEVAL_HYPOTHESIS_PROFILE", "ci") == "ci":
        assert settings.default.derandomize
        assert settings.default.database is None


def _slow_quantile_ce(confidence: list[float], correct: list[bool], bins: int,
                      norm: str) -> float:
    """The calibration error over quantile bins, written out case by case: the edges are
    the confidences' percentiles at scikit-learn's calibration_curve's quantiles (its exact
    expression, ``linspace(0, 1) * 100``: with 400 cases some edges fall on a case, and the
    last bit of a quantile moves it), a confidence on an inner edge in the bin below it."""
    quantiles = np.linspace(0, 1, bins + 1) * 100
    edges = np.percentile(confidence, quantiles)[1:-1].tolist()
    members: dict[int, list[int]] = {}
    for i, c in enumerate(confidence):
        members.setdefault(sum(1 for edge in edges if edge < c), []).append(i)
    gaps, shares = [], []
    for cases in members.values():
        accuracy = sum(correct[i] for i in cases) / len(cases)
        mean = sum(confidence[i] for i in cases) / len(cases)
        gaps.append(abs(accuracy - mean))
        shares.append(len(cases) / len(confidence))
    if norm == "max":
        return max(gaps)
    if norm == "l1":
        return sum(g * s for g, s in zip(gaps, shares, strict=True))
    return math.sqrt(sum(g * g * s for g, s in zip(gaps, shares, strict=True)))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("norm", ["l1", "l2", "max"])
def test_quantile_calibration_error_by_hand(seed: int, norm: str) -> None:
    """strategy="quantile", binary and top-label (many categories), against the slow loop."""
    from rankeval import ScoredClassifierEvaluation

    y, p = _data(seed)
    got = _evaluator(y, p).calibration_error(bins=6, strategy="quantile", norm=norm)
    assert got == pytest.approx(_slow_quantile_ce(p.tolist(), y.tolist(), 6, norm), abs=1e-12)
    rng = np.random.default_rng(seed)
    scores = np.round(rng.dirichlet([1.0, 1.0, 1.0], 300), 2)
    labels = rng.integers(0, 3, 300)
    ev = ScoredClassifierEvaluation(["a", "b", "c"])
    ev.add_cases(labels, scores)
    top = scores.argmax(axis=1)
    want = _slow_quantile_ce(scores.max(axis=1).tolist(), (top == labels).tolist(), 5, norm)
    assert ev.calibration_error(bins=5, strategy="quantile", norm=norm) == pytest.approx(
        want, abs=1e-12)
