"""The Gini coefficient, registered as one scored read: 2 * ROC area - 1, which is Somers' D
of the scores against the labels (scipy's ``somersd``), on every reader and surface."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import somersd

from rankeval import ScoredPrecisionRecallEvaluation


@pytest.mark.parametrize("seed", range(6))
def test_gini_is_somers_d_of_the_scores_against_the_labels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.random(300) < 0.3
    labels[:2] = [True, False]
    scores = np.round(rng.normal(labels * 0.8, 1.0), 1)  # ties
    ev = ScoredPrecisionRecallEvaluation()  # grouped ties, as Somers' D counts them
    ev.add_cases(labels, scores)
    want = somersd(labels.astype(int), scores).statistic
    assert ev.read("gini") == pytest.approx(want, abs=1e-12)
    assert ev.summary()["gini"] == ev.read("gini")
    assert ev.report().read("gini") == ev.read("gini")
