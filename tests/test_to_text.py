"""Every result and accumulator the package exports renders with ``to_text()``, and each one
made under a tie policy names it. The classes come from ``rankeval.__all__``: a new public
class fails here until it renders or is named an input or an error."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import rankeval

INPUTS_AND_ERRORS = {"CostMatrix", "Qrels", "Run", "DataError", "PersistenceError"}
LABELS = [True, False, True, True, False, False, True]
SCORES = [0.9, 0.8, 0.8, 0.6, 0.5, 0.5, 0.1]


def _evaluator() -> Any:
    ev = rankeval.ScoredPrecisionRecallEvaluation()
    ev.add_cases(LABELS, SCORES)
    return ev


def _comparison() -> Any:
    qrels = {f"q{i}": {"a": 1, "b": 0, "c": 1} for i in range(4)}
    runs = {"x": {q: {"a": 1.0, "b": 0.5, "c": 0.2 + i / 10} for i, q in enumerate(qrels)},
            "y": {q: {"a": 0.1, "b": 0.5, "c": 0.9 - i / 10} for i, q in enumerate(qrels)}}
    return rankeval.compare(qrels, runs, "map", test="randomization")


def _classifier() -> Any:
    ev = rankeval.ScoredClassifierEvaluation(["a", "b"])
    ev.add_cases(["a", "b", "a", "b"], [[0.8, 0.2], [0.3, 0.7], [0.4, 0.6], [0.6, 0.4]])
    return ev


def _weighted() -> Any:
    ev = rankeval.ScoredPrecisionRecallEvaluation()
    ev.add_cases(LABELS, SCORES, weights=np.linspace(0.5, 2.0, len(LABELS)))
    return ev


def _paired() -> Any:
    ev = rankeval.PairedEvaluation()
    ev.add_cases(LABELS, SCORES, SCORES[::-1])
    return ev


def _segmented() -> Any:
    seg = rankeval.SegmentedEvaluation(rankeval.ScoredPrecisionRecallEvaluation)
    seg.add_cases(["s", "t"] * 3 + ["s"], LABELS, SCORES)
    return seg


def _pr() -> Any:
    ev = rankeval.PrecisionRecallEvaluation()
    for reference, response in [(True, True), (False, True), (True, False), (False, False)]:
        ev.add_case(reference, response)
    return ev


def _multi() -> Any:
    ev = rankeval.MultiClassEvaluation(["a", "b"])
    ev.add_cases(["a", "b", "a"], ["a", "a", "a"])
    return ev


def _sketch() -> Any:
    ev = rankeval.SketchEvaluation()
    ev.add_cases(LABELS, SCORES)
    return ev


MADE: dict[str, Callable[[], Any]] = {
    "ScoredPrecisionRecallEvaluation": _evaluator,
    "PartitionedReport": lambda: _evaluator().report(),
    "WeightedReport": lambda: _weighted().report(),
    "Interval": lambda: _evaluator().interval(),
    "Estimate": lambda: _sketch().area_under_roc_curve(),
    "SketchEvaluation": _sketch,
    "ScoredClassifierEvaluation": _classifier,
    "PairedEvaluation": _paired,
    "RocTest": lambda: _paired().roc_test(),
    "SegmentedEvaluation": _segmented,
    "SegmentReports": lambda: rankeval.SegmentReports(
        {key: ev.report() for key, ev in _segmented().items()}),
    "Comparison": _comparison,
    "PairTest": lambda: _comparison().tests[0],
    "RunReport": lambda: rankeval.evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map"),
    "KendallTau": lambda: rankeval.kendall_tau_counts([1, 2, 3], [1, 3, 2]),
    "PrecisionRecallEvaluation": _pr,
    "MultiClassEvaluation": _multi,
    "OperatingPoint": lambda: _evaluator().best_threshold(),
}
CLASSES = [name for name in rankeval.__all__ if inspect.isclass(getattr(rankeval, name))]


def test_every_exported_class_is_rendered_or_an_input() -> None:
    assert set(CLASSES) - INPUTS_AND_ERRORS == set(MADE)


@pytest.mark.parametrize("name", sorted(MADE))
def test_to_text_renders_and_names_the_tie_policy(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        made = MADE[name]()
        text = made.to_text()
    assert isinstance(made, getattr(rankeval, name))
    assert isinstance(text, str)
    assert text.strip()
    ties = getattr(made, "ties", None)
    if isinstance(ties, str):
        assert f"ties={ties}" in text.splitlines()[0], text
