"""The docs' examples run and print what the docs show (doctest), and the numbers they show
are the oracles' on the same data."""

from __future__ import annotations

import doctest
from pathlib import Path

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    roc_auc_score,
    top_k_accuracy_score,
)

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(p.name for p in DOCS.glob("*.md") if ">>> " in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_as_shown(page: str) -> None:
    result = doctest.testfile(str(DOCS / page), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_categories_page_shows_the_oracles_numbers() -> None:
    """docs/categories.md's example, recomputed by scikit-learn."""
    labels = np.array([0, 1, 2, 1, 0, 2])
    scores = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4],
                       [0.4, 0.4, 0.2], [0.5, 0.1, 0.4], [0.2, 0.6, 0.2]])
    onehot = np.eye(3, dtype=bool)[labels]
    assert list(roc_auc_score(onehot, scores, average=None)) == [1.0, 0.75, 0.625]
    assert round(roc_auc_score(labels, scores, multi_class="ovr"), 4) == 0.7917
    assert round(roc_auc_score(labels, scores, multi_class="ovo"), 4) == 0.7917
    assert average_precision_score(onehot, scores, average="micro") == 0.6875
    assert round(top_k_accuracy_score(labels, scores, k=1), 4) == 0.8333
    assert top_k_accuracy_score(labels, scores, k=2) == 1.0
    y = np.array([1, 0, 1, 1, 0])
    p = np.array([0.9, 0.4, 0.7, 0.3, 0.2])
    assert round(brier_score_loss(y, p), 4) == 0.158
    prob_true, prob_pred = calibration_curve(y, p, n_bins=2)
    assert (prob_true.round(4).tolist(), prob_pred.round(4).tolist()) == ([0.3333, 1.0],
                                                                          [0.3, 0.8])
