"""Weighted cases cut into buckets: the three steps of :mod:`rankeval.scored.weighted_parts`
give a local weighted evaluator's bits however the cases are cut, and the local sums follow
the one order the docs define (checked against a slow loop)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rankeval import ScoredPrecisionRecallEvaluation as Evaluation
from rankeval.points import SUM_BLOCK, weight_sums
from rankeval.scored import weighted_parts
from rankeval.scored.reads import READS
from tests.helpers import DECISIONS, assert_decisions_match, same_bits


def _slow_sums(values: list[float]) -> list[float]:
    """The documented order, one Python float addition at a time: inside each block of
    SUM_BLOCK positions from its first, plus the blocks' totals added one after another."""
    out, before, within = [], 0.0, 0.0
    for i, value in enumerate(values):
        if i and i % SUM_BLOCK == 0:
            before, within = before + within, 0.0
        within += value
        out.append(before + within if i >= SUM_BLOCK else within)
    return out


def test_running_sums_follow_the_documented_order() -> None:
    rng = np.random.default_rng(7)
    n = 3 * SUM_BLOCK + 123
    labels = rng.random(n) < 0.4
    weights = rng.random(n) * 10.0
    positive, negative = weight_sums(labels, weights)
    assert same_bits(positive, _slow_sums(np.where(labels, weights, 0.0).tolist()))
    assert same_bits(negative, _slow_sums(np.where(labels, 0.0, weights).tolist()))
    # Not the plain running sum: otherwise this test could not tell the orders apart.
    assert not same_bits(positive, np.cumsum(np.where(labels, weights, 0.0)))


def _data(seed: int, n: int) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.3
    scores = np.round(rng.random(n) * 0.7 + 0.3 * labels * rng.random(n), 3)
    weights = rng.random(n) * 3.0
    weights[rng.random(n) < 0.1] = 0.0
    return labels, scores, weights


def _bounds(rng: np.random.Generator, scores: Any, buckets: int) -> Any:
    """Random bucket bounds: some buckets empty, some within one block, some over many."""
    keys = np.unique(-scores)
    picks = rng.choice(keys, min(buckets - 1, keys.shape[0]), replace=False)
    extra = np.array([-2.0, 1.0])[: rng.integers(0, 3)]  # empty buckets at either end
    return np.unique(np.concatenate((picks, extra)))


@pytest.mark.parametrize(("seed", "buckets"), [(0, 1), (1, 2), (2, 9), (3, 60), (4, 400)])
def test_any_cut_gives_the_local_bits(seed: int, buckets: int) -> None:
    labels, scores, weights = _data(seed, 5 * SUM_BLOCK + 77)
    rng = np.random.default_rng(seed + 50)
    ev = Evaluation()
    ev.add_cases(labels, scores, weights=weights)
    ev.add_misses(seed)
    ev.add_negative_misses(1)
    report = weighted_parts.evaluate_buckets(scores, labels, weights,
                                             _bounds(rng, scores, buckets), seed, 1, 50)
    mine, local = report.summary(), ev.summary(())
    assert mine.keys() == local.keys()
    assert all(same_bits(mine[key], local[key]) for key in mine), (mine, local)
    for interpolate in (False, True):
        assert same_bits(report.pr_curve(interpolate), ev.pr_curve(interpolate, max_points=50))
        assert same_bits(report.pr_score_curve(interpolate),
                         ev.pr_score_curve(interpolate, max_points=50))
        assert same_bits(report.area_under_pr_curve(interpolate),
                         ev.area_under_pr_curve(interpolate))
    assert same_bits(report.roc_curve(), ev.roc_curve(max_points=50))
    assert same_bits(report.eleven_point_interpolated_precision(),
                     ev.eleven_point_interpolated_precision())
    assert same_bits(report.maximum_f_measure(0.5), ev.maximum_f_measure(0.5))
    assert same_bits(report.num_positive_ref(), ev.num_positive_ref())
    assert same_bits(report.num_negative_ref(), ev.num_negative_ref())
    assert_decisions_match(report, ev, DECISIONS)


def test_every_weighted_read_of_the_report_is_registered() -> None:
    """Each read the registry says a report gives on weighted cases: the local value."""
    labels, scores, weights = _data(9, 2 * SUM_BLOCK)
    ev = Evaluation()
    ev.add_cases(labels, scores, weights=weights)
    report = weighted_parts.evaluate_buckets(scores, labels, weights,
                                             np.array([-0.6, -0.3]))
    for read in READS.values():
        if read.method is None or read.options or "report" not in read.readers:
            continue
        argument = {"beta": 2.0, "threshold": 0.5}.get(str(read.parameter))
        if not read.weighted:
            with pytest.raises(ValueError, match="weight"):
                report.read(read.name, argument)
            continue
        assert same_bits(report.read(read.name, argument), ev.read(read.name, argument)), read


def test_a_report_refuses_what_needs_the_cases() -> None:
    labels, scores, weights = _data(2, 500)
    report = weighted_parts.evaluate_buckets(scores, labels, weights, np.zeros(0))
    with pytest.raises(ValueError, match="collect_evaluator"):
        report.interval("roc_auc")
    for name in ("precision_at", "r_precision", "reciprocal_rank", "pr_breakeven_point"):
        with pytest.raises(ValueError, match="weight"):
            getattr(report, name)(*([5] if name == "precision_at" else []))
    assert "weighted" in report.to_text()
    assert report.num_cases() == pytest.approx(float(weights.sum()), rel=1e-12)


def test_an_empty_table_and_one_without_weight() -> None:
    empty = weighted_parts.evaluate_buckets(np.zeros(0), np.zeros(0, bool), np.zeros(0),
                                            np.zeros(0), 2, 1)
    ev = Evaluation()
    ev.add_cases([True], [0.5], weights=[0.0])
    ev.add_misses(2)
    ev.add_negative_misses(1)
    assert empty.summary() == pytest.approx(ev.summary(()), nan_ok=True)
