"""The partitioned algorithm (no engine): every value equals the local evaluator's bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.scored import partitioned
from rankeval.scored.curves import curve_ranks
from rankeval.scored.partitioned import Request, evaluate_buckets, range_bounds
from tests.helpers import (
    DECISIONS,
    assert_decisions_match,
    assert_report_matches,
    evaluator_of,
    same_bits,
)

RANKS = (1, 3, 10, 100)


def _data(seed: int, n: int, distinct: int, positive_rate: float) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, distinct, n) / 7.0
    scores[rng.random(n) < 0.05] = -0.0  # -0.0 and 0.0 are one tie block
    labels = rng.random(n) < positive_rate
    return labels, scores, rng.random(n)


@pytest.mark.parametrize("buckets", [1, 2, 7, 64])
@pytest.mark.parametrize(("distinct", "positive_rate"), [(40, 0.3), (3, 0.5), (10_000, 0.01),
                                                         (1, 0.4)])
def test_every_value_equals_the_local_evaluator(buckets: int, distinct: int,
                                                positive_rate: float) -> None:
    labels, scores, sample = _data(buckets * 1000 + distinct, 20_000, distinct, positive_rate)
    request = Request(precision_ranks=RANKS, curve_points=200, decisions=DECISIONS)
    report = evaluate_buckets(scores, labels, range_bounds(scores[sample < 0.05], buckets),
                              request=request)
    assert_report_matches(report, evaluator_of(labels, scores), RANKS, 200)


@pytest.mark.parametrize("tasks", [1, 3])
def test_counts_per_score_equal_the_cases(tasks: int) -> None:
    # Counts per (score, task), as an engine's map-side aggregation sends them.
    labels, scores, sample = _data(tasks, 3000, 60, 0.3)
    request = Request(precision_ranks=RANKS, curve_points=64, decisions=DECISIONS)
    report = evaluate_buckets(scores, labels, range_bounds(scores[sample < 0.1], 5),
                              request=request, counts_from=tasks, pos_missed=2, neg_missed=1)
    local = evaluator_of(labels, scores, misses=2, negative_misses=1)
    assert_report_matches(report, local, RANKS, 64)


def test_counts_need_the_grouped_policy() -> None:
    layout = partitioned.Layout(np.array([[1, 1]]), "insertion")
    with pytest.raises(ValueError, match='ties="grouped" only'):
        partitioned.bucket_part_from_counts(0, np.array([0.5]), np.array([1]), np.array([1]),
                                            layout)


def test_skewed_bounds_and_misses() -> None:
    labels, scores, _ = _data(3, 20_000, 500, 0.2)
    # Bounds from the top 1 % of scores only: one bucket takes nearly everything.
    top = np.sort(scores)[-200:]
    report = evaluate_buckets(scores, labels, range_bounds(top, 16),
                              request=Request(RANKS, curve_points=50, decisions=DECISIONS),
                              pos_missed=7, neg_missed=3)
    local = evaluator_of(labels, scores, misses=7, negative_misses=3)
    assert_report_matches(report, local, RANKS, 50)


def test_insertion_ties_follow_the_order_column() -> None:
    labels, scores, order = _data(5, 5_000, 30, 0.3)
    arrival = np.argsort(order, kind="stable")
    local = evaluator_of(labels[arrival], scores[arrival], ties="insertion")
    report = evaluate_buckets(scores, labels, range_bounds(scores, 7), ties="insertion",
                              order=order,
                              request=Request(precision_ranks=RANKS, decisions=DECISIONS))
    assert_report_matches(report, local, RANKS, 1000)


def test_insertion_without_order_and_repeated_orders_are_refused() -> None:
    labels, scores, _ = _data(6, 100, 5, 0.3)
    with pytest.raises(ValueError, match="needs an arrival order"):
        evaluate_buckets(scores, labels, range_bounds(scores, 2), ties="insertion")
    with pytest.raises(ValueError, match="tied scores share the order value 1"):
        evaluate_buckets(scores, labels, range_bounds(scores, 2), ties="insertion",
                         order=np.ones(100, dtype=np.int64))


def test_summing_per_partition_partials_would_not_be_exact() -> None:
    # The reason for the compressed points: AP summed per bucket, then added, is off.
    labels, scores, sample = _data(11, 200_000, 10**9, 0.02)
    ev = evaluator_of(labels, scores)
    bounds = range_bounds(scores[sample < 0.01], 64)
    ids = partitioned.bucket_ids(scores, bounds)
    points = ev._points()
    steps = points.recall_steps
    terms = (np.diff(points.tp[steps], prepend=0) * points.tp[steps]
             / (points.tp[steps] + points.fp[steps]))
    bucket_of_step = np.sort(ids)[np.searchsorted(points.tp + points.fp, 0) + steps]
    partial = sum(float(np.cumsum(terms[bucket_of_step == b])[-1])
                  for b in np.unique(bucket_of_step)) / points.num_pos
    assert partial != ev.average_precision()
    report = evaluate_buckets(scores, labels, bounds)
    assert same_bits(report.average_precision(), ev.average_precision())


@settings(max_examples=150, deadline=None)
@given(
    cases=st.lists(st.tuples(st.booleans(), st.sampled_from([-1.0, -0.0, 0.0, 0.25, 0.5, 2.0])
                             | st.floats(-3, 3)), min_size=1, max_size=60),
    buckets=st.integers(1, 9),
    misses=st.integers(0, 3),
    negative_misses=st.integers(0, 3),
    curve_points=st.integers(2, 8),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_cases_and_bucketings(cases: list[tuple[bool, float]], buckets: int, misses: int,
                                     negative_misses: int, curve_points: int, seed: int) -> None:
    labels = np.array([c for c, _ in cases], dtype=bool)
    scores = np.array([s for _, s in cases], dtype=np.float64)
    rng = np.random.default_rng(seed)
    sample = scores[rng.random(scores.shape[0]) < 0.5]
    for ties in ("grouped", "insertion"):
        order = rng.permutation(scores.shape[0])
        arrival = np.argsort(order)
        local = evaluator_of(labels[arrival], scores[arrival], ties, misses, negative_misses)
        report = evaluate_buckets(
            scores, labels, range_bounds(sample, buckets), ties=ties,
            order=order if ties == "insertion" else None,
            request=Request((0, 1, 2, 5, 100), curve_points=curve_points, decisions=DECISIONS),
            pos_missed=misses, neg_missed=negative_misses)
        assert_report_matches(report, local, (0, 1, 2, 5, 100), curve_points)
        if ties == "grouped":  # the same cases as counts per score, from two tasks
            report = evaluate_buckets(
                scores, labels, range_bounds(sample, buckets),
                request=Request((0, 1, 2, 5, 100), curve_points=curve_points, decisions=DECISIONS),
                pos_missed=misses, neg_missed=negative_misses, counts_from=2)
            assert_report_matches(report, local, (0, 1, 2, 5, 100), curve_points)


def test_bounds_never_split_a_tie_block() -> None:
    scores = np.array([0.0, -0.0, 0.0, 1.0, 1.0, 2.0])
    bounds = range_bounds(scores, 6)
    ids = partitioned.bucket_ids(scores, bounds)
    assert len(set(ids[:3].tolist())) == 1
    assert ids[3] == ids[4]
    assert range_bounds(np.full(10, 0.5), 8).shape == (0,)


def test_curve_ranks_are_evenly_spaced_and_exact() -> None:
    assert curve_ranks(10, 4).tolist() == [1, 4, 7, 10]
    assert curve_ranks(3, 10).tolist() == [1, 2, 3]
    big = curve_ranks(10**18, 10**6)
    assert big[0] == 1
    assert big[-1] == 10**18
    assert bool(np.all(np.diff(big) > 0))


def test_values_not_asked_for_are_refused_by_name() -> None:
    labels, scores, _ = _data(1, 100, 5, 0.5)
    report = evaluate_buckets(scores, labels, range_bounds(scores, 2),
                              request=Request(precision_ranks=(10,), betas=(1.0,)))
    with pytest.raises(ValueError, match=r"precision was computed at ranks \(10,\), not 7"):
        report.precision_at(7)
    with pytest.raises(ValueError, match=r"not 2\.0: ask for it with beta="):
        report.maximum_f_measure(2.0)


def test_local_downsampling() -> None:
    ev = evaluator_of(np.array([True, False, True, True]), np.array([4.0, 3.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match="max_points must be an integer >= 2"):
        ev.roc_curve(max_points=1)
    assert ev.pr_curve(max_points=4).tolist() == ev.pr_curve().tolist()
    # Uninterpolated: the points holding ranks 1 and 4 between the limit rows.
    assert ev.pr_curve(max_points=2).tolist() == [[0.0, 1.0], [1 / 3, 1.0], [1.0, 0.75],
                                                   [1.0, 0.0]]
    # Interpolated: rows 1 and 4 of its four rows.
    full = ev.pr_curve(True).tolist()
    assert ev.pr_curve(True, max_points=2).tolist() == [full[0], full[-1]]


@pytest.mark.parametrize(("distinct", "positive_rate"), [(5000, 0.3), (40, 0.5), (10_000, 0.01)])
@pytest.mark.parametrize("size", [1, 5, 64])
def test_the_report_reads_points_in_slices(distinct: int, positive_rate: float, size: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Many slices per bucket: the interpolated precision spans slices and buckets.
    monkeypatch.setattr(partitioned, "_SLICE", size)
    labels, scores, sample = _data(size + distinct, 5000, distinct, positive_rate)
    request = Request(precision_ranks=RANKS, curve_points=64, decisions=DECISIONS)
    report = evaluate_buckets(scores, labels, range_bounds(scores[sample < 0.05], 4),
                              request=request, pos_missed=3)
    assert_report_matches(report, evaluator_of(labels, scores, misses=3), RANKS, 64)


def test_report_intervals_that_need_the_cases_are_refused() -> None:
    labels, scores, sample = _data(5, 2000, 50, 0.3)
    report = evaluate_buckets(scores, labels, range_bounds(scores[sample < 0.1], 4))
    with pytest.raises(ValueError, match="bootstrap resamples the cases"):
        report.interval("roc_auc", method="bootstrap")
    with pytest.raises(ValueError, match="at a threshold need the cases"):
        report.interval("precision", method="wilson", threshold=0.5)
    with pytest.raises(ValueError, match="precision was computed at ranks"):
        report.interval("precision_at", k=7)
    # The local evaluator's DeLong interval, bit for bit (the helper checks every method).
    local = evaluator_of(labels, scores).interval("roc_auc")
    assert report.interval("roc_auc") == local


@pytest.mark.parametrize("seed", range(12))
def test_decision_candidates_inside_a_run_of_ties_bring_its_end(seed: int) -> None:
    # Insertion ties: the lift's cases inside a long run of equal scores are candidates; the
    # report must see the run's end as the cut, or a rule would read a threshold at the
    # counts of half a run. Few asks, so no other read brings those ends in.
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 6, 600) / 5.0
    labels = rng.random(600) < 0.3
    order = rng.permutation(600)
    calls = [("lift_at", {"fraction": f}) for f in np.linspace(0.05, 0.95, 19).tolist()]
    calls += [("best_threshold", {"rule": rule}) for rule in ("youden", "closest_topleft")]
    calls += [("partial_roc_auc", {"fpr": (0.1, 0.35)})]
    for buckets in (1, 3):
        report = evaluate_buckets(scores, labels, range_bounds(scores, buckets),
                                  ties="insertion", order=order,
                                  request=Request(decisions=calls))
        local = evaluator_of(labels[np.argsort(order)], scores[np.argsort(order)],
                             "insertion")
        assert_decisions_match(report, local, calls)


def test_decision_reads_not_asked_for_are_refused_by_name() -> None:
    labels, scores, _ = _data(5, 2000, 30, 0.3)
    report = evaluate_buckets(scores, labels, range_bounds(scores, 4),
                              request=Request(decisions=[("best_threshold", {"rule": "f_beta",
                                                                             "beta": 2.0}),
                                                         ("net_benefit",
                                                          {"thresholds": [0.1, 0.2]}),
                                                         "roc_convex_hull"]))
    local = evaluator_of(labels, scores)
    assert report.best_threshold("f_beta", beta=2) == local.best_threshold("f_beta", beta=2)
    # each threshold asked for is one: any subset of them reads
    assert report.confusion_at(0.2) == local.confusion_at(0.2)
    assert report.cost_curve().tolist() == local.cost_curve().tolist()  # the hull's
    with pytest.raises(ValueError, match=r"best_threshold\(rule='f_beta', beta=1\.0\) was "
                                         r"not asked of this report: ask for it with "
                                         r"decisions="):
        report.best_threshold("f_beta")
    with pytest.raises(ValueError, match=r"confusion_at\(threshold=0\.3\) was not asked"):
        report.confusion_at(0.3)
    with pytest.raises(ValueError, match=r"partial_roc_auc.* was not asked"):
        report.partial_roc_auc(fpr=(0, 0.1))
    for read in ("det_curve", "gains_curve", "lift_curve", "pr_gain_curve",
                 "area_under_pr_gain_curve", "thresholds_table"):
        with pytest.raises(ValueError, match=f"'{read}' is not a decision read a partitioned "
                                             "report gives"):
            getattr(report, read)()


@pytest.mark.parametrize(("decisions", "error", "match"), [
    ([("best_threshold", {"rule": "median"})], ValueError, "rule"),
    ([("best_threshold", {"rule": "youden", "costs": (1, 2)})], ValueError, "apply to rule"),
    ([("min_expected_cost", {})], TypeError, "costs"),
    ([("sensitivity_at", {"specificity": 1.5})], ValueError, r"specificity must be in \[0, 1\]"),
    ([("sensitivity_at", {"specificity": 0.5, "method": "spline"})], ValueError, "method"),
    ([("partial_roc_auc", {"fpr": (0.3, 0.1)})], ValueError, "reversed"),
    ([("partial_roc_auc", {})], ValueError, "exactly one of fpr"),
    ([("lift_at", {"fraction": 0.0})], ValueError, r"fraction must be in \(0, 1\]"),
    ([("gains_table", {"bins": 0})], ValueError, "bins"),
    ([("net_benefit", {"thresholds": [1.0]})], ValueError, r"\[0, 1\)"),
    ([("confusion_at", {"threshold": float("nan")})], ValueError, "threshold"),
    ([("det_curve", {})], ValueError, "not a decision read"),
    ([("best_threshold", {"rul": "youden"})], TypeError, "best_threshold: got an unexpected"),
    (["best_threshold", 3], TypeError, "a decision read is a name"),
    ("best_threshold", TypeError, "decisions must be a list"),
])
def test_bad_decision_asks_fail_when_the_request_is_made(decisions: Any, error: type,
                                                        match: str) -> None:
    with pytest.raises(error, match=match):
        Request(decisions=decisions)


def test_a_group_from_two_tasks_is_refused_by_name() -> None:
    """The engines' tasks each report whole groups: a key two tasks report (the group's rows
    split between them) is refused, named by its value; a group no task reports too."""
    from rankeval.adapters.common import reports_once, whole_group_reports

    first, second = object(), object()
    assert reports_once([[("de", first)], [("fr", second)]]) == {"de": first, "fr": second}
    with pytest.raises(RuntimeError, match="group 'fr' arrived from two tasks"):
        reports_once([[("de", first), ("fr", second)], [("fr", first)]])
    groups = ["de", "fr"]
    with pytest.raises(RuntimeError, match="group 'fr' arrived from two tasks"):
        whole_group_reports(groups, [[(1, first)], [(0, second), (1, second)]])
    with pytest.raises(RuntimeError, match="no task reported the group 'fr'"):
        whole_group_reports(groups, [[(0, first)]])
    assert whole_group_reports(groups, [[(1, first)], [(0, second)]]) == {"de": second,
                                                                        "fr": first}
