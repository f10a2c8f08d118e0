"""Reading a store too large for its full curves: the bucketed report and the evaluator's
large-store path equal the full path bit for bit, and the downsampled curves keep their
stated error."""

from __future__ import annotations

import functools
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.points import operating_points
from rankeval.scored import evaluation as evaluation_module
from rankeval.scored.partitioned import Request, ranking_buckets, ranking_report
from tests.helpers import DECISIONS, assert_report_matches, evaluator_of, same_bits

RANKS = (1, 3, 10, 50)


cases = st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0, -3.0])),
                 max_size=60)


@settings(max_examples=150, deadline=None)
@given(cases=cases, ties=st.sampled_from(["insertion", "grouped"]),
       bucket=st.integers(1, 7), points=st.integers(2, 9), misses=st.integers(0, 2),
       negative_misses=st.integers(0, 2))
# insertion ties splitting a run of equal scores between buckets: the KS cut is the run's end
@example(cases=[(False, 0.0), (True, 0.0)], ties="insertion", bucket=1, points=2, misses=0,
         negative_misses=0)
def test_a_ranking_read_in_buckets_equals_the_evaluator(
        cases: list[tuple[bool, float]], ties: str, bucket: int, points: int, misses: int,
        negative_misses: int) -> None:
    labels = np.array([c for c, _ in cases], dtype=bool)
    scores = np.array([s for _, s in cases], dtype=np.float64)
    ev = evaluator_of(labels, scores, ties, misses, negative_misses)
    keys, ranked = ev._merged().ranking()
    report = ranking_report(keys, ranked, ev.ties, misses, negative_misses,
                            Request(RANKS, (1.0,), points, DECISIONS), bucket_cases=bucket)
    assert_report_matches(report, ev, RANKS, points)


def test_the_evaluators_report_gives_the_decision_reads_asked_for() -> None:
    rng = np.random.default_rng(8)
    scores = rng.integers(0, 40, 3000) / 7.0
    labels = rng.random(3000) < 0.3
    for ties in ("insertion", "grouped"):
        ev = evaluator_of(labels, scores, ties, 4, 2)
        small = functools.partial(ranking_report, bucket_cases=700)
        with mock.patch.object(evaluation_module, "ranking_report", small):
            report = ev.report(precision_at=RANKS, curve_points=50, decisions=DECISIONS)
        assert report._layout.buckets >= 4
        assert_report_matches(report, ev, RANKS, 50)


def test_buckets_never_split_a_tie_block_when_grouped() -> None:
    keys = np.array([-2.0, -1.0, -1.0, -1.0, -0.0, 0.0, 0.0, 3.0])
    assert ranking_buckets(keys, "grouped", 2).tolist() == [4, 7, 8]
    assert ranking_buckets(keys, "insertion", 3).tolist() == [3, 6, 8]
    assert ranking_buckets(keys[:0], "grouped", 2).tolist() == []


@pytest.mark.parametrize("ties", ["insertion", "grouped"])
def test_the_large_path_reads_what_the_full_path_reads(
        ties: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 50, 5000) / 7.0
    labels = rng.random(5000) < 0.2

    def reads(ev: ScoredPrecisionRecallEvaluation) -> list[Any]:
        return [ev.average_precision(), ev.area_under_pr_curve(), ev.area_under_pr_curve(True),
                ev.maximum_f_measure(), ev.maximum_f_measure(0.5),
                ev.eleven_point_interpolated_precision(), ev.pr_curve(max_points=40),
                ev.pr_curve(True, max_points=40), ev.pr_score_curve(max_points=7),
                ev.pr_score_curve(True, max_points=7), ev.roc_curve(max_points=30)]

    full = reads(evaluator_of(labels, scores, ties, 3, 2))
    monkeypatch.setattr(evaluation_module, "LARGE_CASES", 100)
    large = evaluator_of(labels, scores, ties, 3, 2)
    read = reads(large)
    assert "points" not in large._cache  # no full operating points were built
    assert all(same_bits(a, b) for a, b in zip(read, full, strict=True))


def test_full_curves_that_would_not_fit_are_refused_before_allocating(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ev = evaluator_of([True, False, True, False], [0.9, 0.8, 0.7, 0.1], "insertion")
    monkeypatch.setattr(evaluation_module, "LARGE_CASES", 1)
    monkeypatch.setattr(evaluation_module, "_available_memory", lambda: 100)
    with pytest.raises(ValueError, match=r"full curves of 4 cases .*\(max_points=\)"):
        ev.pr_curve()
    # Downsampled curves and the summary values still come, from the bucketed report.
    assert ev.pr_curve(max_points=2).tolist() == [[0.0, 1.0], [0.5, 1.0], [1.0, 0.5],
                                                   [1.0, 0.0]]
    assert ev.average_precision() == (1 + 2 / 3) / 2


def test_the_report_through_theevaluator_of() -> None:
    ev = evaluator_of([True, False, True], [0.9, 0.8, 0.1], "insertion")
    report = ev.report(precision_at=(1, 2, 3), beta=(1.0, 2.0), curve_points=2)
    assert report.precision_at(2) == 0.5
    assert report.average_precision() == (1 + 2 / 3) / 2
    assert report is ev.report(precision_at=(1, 2, 3), beta=(1.0, 2.0), curve_points=2)
    ev.add_case(True, 0.95)
    assert report is not ev.report(precision_at=(1, 2, 3), beta=(1.0, 2.0), curve_points=2)
    with pytest.raises(ValueError, match="curve_points"):
        ev.report(curve_points=1)


@settings(max_examples=120, deadline=None)
@given(labels=st.lists(st.booleans(), min_size=1, max_size=300),
       distinct=st.integers(1, 40), points=st.integers(2, 12),
       ties=st.sampled_from(["insertion", "grouped"]), seed=st.integers(0, 2**16))
def test_every_omitted_point_is_within_the_stated_gap(
        labels: list[bool], distinct: int, points: int, ties: str, seed: int) -> None:
    y = np.array(labels, dtype=bool)
    scores = np.random.default_rng(seed).integers(0, distinct, y.shape[0]).astype(float)
    ev = evaluator_of(y, scores, ties, misses=1, negative_misses=1)
    report = ev.report(precision_at=(), curve_points=points)
    gap = report.curve_gap()
    keys, ranked = ev._merged().ranking()
    full = operating_points(keys, ranked, ev.num_positive_ref(), ev.num_negative_ref(), ties)
    rank = full.tp + full.fp
    # The points kept: those holding the ranks 1 + i(n - 1) // (k - 1), i < k (every rank
    # when n <= k), computed here independently of the library.
    n = int(rank[-1])
    wanted = range(1, n + 1) if n <= points else [1 + i * (n - 1) // (points - 1)
                                                  for i in range(points)]
    kept = np.zeros(rank.shape[0], dtype=bool)
    for w in wanted:
        kept[int(np.argmax(rank >= w))] = True
    roc = report.roc_curve()  # [0, 0], the kept points, [1, 1]
    assert np.allclose(roc[1:-1], np.column_stack((full.fp[kept] / full.num_neg,
                                                   full.tp[kept] / full.num_pos)))
    if gap == 0:
        assert kept.all()
        return
    for i in np.flatnonzero(~kept):
        before = np.flatnonzero(kept[:i])
        prev_rank = int(rank[before[-1]]) if before.shape[0] else 0
        prev_tp = int(full.tp[before[-1]]) if before.shape[0] else 0
        prev_fp = int(full.fp[before[-1]]) if before.shape[0] else 0
        assert int(rank[i]) - prev_rank < gap
        assert (full.fp[i] - prev_fp) / full.num_neg < gap / full.num_neg
        assert (full.tp[i] - prev_tp) / full.num_pos < gap / full.num_pos
        if prev_rank:
            precision = full.tp[i] / rank[i]
            assert abs(precision - prev_tp / prev_rank) < gap / rank[i]
