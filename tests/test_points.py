"""One operating-points contract: the single-ranking evaluator, the many-query batches and the
partitioned report build the same operating points from the same cases, through the one
function :func:`rankeval.points.confusion_at_thresholds` (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import ScoredPrecisionRecallEvaluation, points
from rankeval.ranking import evaluate as many
from rankeval.ranking.inputs import Qrels, Run
from rankeval.ranking.options import RunOptions
from rankeval.scored import partitioned
from tests.strategies import tied_scores

finite = st.one_of(tied_scores, st.floats(-1e6, 1e6, allow_nan=False))
cases = st.lists(st.tuples(st.booleans(), finite), min_size=1, max_size=40)


def _evaluator_points(labels: list[bool], scores: list[float], ties: str,
                      ) -> points.OperatingPoints:
    ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
    for label, score in zip(labels, scores, strict=True):
        ev.add_case(label, score)
    return ev._points()


def _batch_points(labels: list[bool], scores: list[float]) -> tuple[Any, Any]:
    """The many-query half's points of the same cases: one query, a document a case, its
    judgment 1 or 0, ties in the order given (the evaluator's insertion order)."""
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = Qrels.from_dict({"q": {d: int(label) for d, label in zip(docs, labels,
                                                                      strict=True)}})
    run = Run.from_dict({"q": dict(zip(docs, scores, strict=True))})
    ranked, _, _ = many._rank(qrels, run, RunOptions(ties="input", score_precision="double"))
    ((_, batch),) = list(ranked.batches())
    return batch.tp[0], batch.fp[0]


def _partitioned_points(labels: list[bool], scores: list[float], ties: str,
                        buckets: int) -> tuple[Any, Any]:
    """The engines' points: range buckets of the scores, each bucket's points in global
    counts, read in bucket order."""
    s = np.array(scores, dtype=np.float64)
    y = np.array(labels, dtype=bool)
    bounds = partitioned.range_bounds(s, buckets)
    ids = partitioned.bucket_ids(s, bounds)
    layout = partitioned.Layout(partitioned.bucket_totals(ids, y, bounds.shape[0] + 1),
                                ties)  # type: ignore[arg-type]
    order = np.arange(s.shape[0])  # the arrival order, as an engine's order column
    tp, fp = [], []
    for bucket in np.flatnonzero(layout.totals.sum(axis=1)).tolist():
        mine = ids == bucket
        got = partitioned.bucket_points(bucket, s[mine], y[mine], layout, order[mine])
        tp.append(got.tp)
        fp.append(got.fp)
    return np.concatenate(tp), np.concatenate(fp)


@settings(max_examples=150, deadline=None)
@given(cases, st.sampled_from(["insertion", "grouped"]), st.integers(1, 6))
def test_three_readers_build_the_same_points(given_cases: list[tuple[bool, float]], ties: str,
                                             buckets: int) -> None:
    labels = [label for label, _ in given_cases]
    scores = [score for _, score in given_cases]
    local = _evaluator_points(labels, scores, ties)

    tp, fp = _partitioned_points(labels, scores, ties, buckets)
    np.testing.assert_array_equal(tp, local.tp)
    np.testing.assert_array_equal(fp, local.fp)

    # The batches make every rank a point (trec_eval's rule); their points at the ends of
    # the tie blocks are the grouped policy's, all of them the insertion policy's.
    tp, fp = _batch_points(labels, scores)
    if ties == "grouped":
        ranked = -np.array(sorted(scores, key=lambda v: -v), dtype=np.float64) + 0.0
        ends = points.tie_block_ends(ranked)
        tp, fp = tp[ends], fp[ends]
    np.testing.assert_array_equal(tp, local.tp)
    np.testing.assert_array_equal(fp, local.fp)


def test_the_contract_by_hand() -> None:
    # Labels 1 0 1 1 0 ranked best first; the grouped blocks end after ranks 2 and 5.
    labels = np.array([True, False, True, True, False])
    tp, fp = points.confusion_at_thresholds(labels)
    assert tp.tolist() == [1, 1, 2, 3, 3]
    assert fp.tolist() == [0, 1, 1, 1, 2]
    tp, fp = points.confusion_at_thresholds(labels, ends=np.array([1, 4]))
    assert (tp.tolist(), fp.tolist()) == ([1, 3], [1, 2])
    # Rows standing for several cases, below 4 positives and 6 negatives of a partition.
    tp, fp = points.confusion_at_thresholds(np.array([2, 0, 1]), np.array([0, 3, 1]),
                                            above=(4, 6))
    assert (tp.tolist(), fp.tolist()) == ([6, 6, 7], [6, 9, 10])


def test_every_reader_calls_the_one_function(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = points.confusion_at_thresholds

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append("called")
        return real(*args, **kwargs)

    monkeypatch.setattr(points, "confusion_at_thresholds", spy)
    labels, scores = [True, False, True, False], [0.9, 0.4, 0.4, 0.1]
    readers: dict[str, Callable[[], object]] = {
        "evaluator": lambda: _evaluator_points(labels, scores, "grouped"),
        "batches": lambda: _batch_points(labels, scores),
        "partitioned": lambda: _partitioned_points(labels, scores, "grouped", 2),
    }
    for name, read in readers.items():
        calls.clear()
        read()
        assert calls, f"the {name} built its operating points without the contract"


def test_the_three_readers_share_the_declared_protocols() -> None:
    """The evaluator and the partitioned report are ranking readers; the sketch answers the
    counts, the ROC area and AP by the same names (with bounds)."""
    from rankeval import SketchEvaluation
    from rankeval.scored.readers import RankingReader, Reader

    labels, scores = [True, False, True], [0.9, 0.4, 0.1]
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(labels, scores)
    report = ev.report()
    sketch = SketchEvaluation()
    sketch.add_cases(labels, scores)
    assert isinstance(ev, RankingReader)
    assert isinstance(report, RankingReader)
    assert isinstance(sketch, Reader)
    assert not isinstance(sketch, RankingReader)
    assert report.summary(precision_at=(10,)) == ev.summary()
