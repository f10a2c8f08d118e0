"""One frozen options object for the many-query evaluation: evaluate_run's keywords are
RunOptions' fields (same names, same defaults), checked once, passed down whole."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from rankeval.ranking import evaluate as evaluate_module
from rankeval.ranking.options import PROFILE_DEFAULTS, RunOptions


def _keywords(function: object) -> dict[str, object]:
    parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
    return {name: p.default for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY}


def test_evaluate_run_takes_exactly_the_options() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(RunOptions)}
    keywords = _keywords(evaluate_module.evaluate_run)
    assert keywords.pop("known") is None  # an input, not an option
    assert keywords.pop("query_weights") is None  # the means' weights, applied to the report
    assert keywords.pop("workers") == 1  # how many processes, not what is computed
    assert keywords == fields


def test_the_other_entry_points_take_a_subset_with_the_same_defaults() -> None:
    fields = {f.name: f.default for f in dataclasses.fields(RunOptions)}
    for function in (evaluate_module.relevant_ranks,):
        for name, default in _keywords(function).items():
            assert fields[name] == default, (function, name)


def test_options_are_checked_when_made_and_when_replaced() -> None:
    with pytest.raises(ValueError, match="ap_denominator must be one of"):
        RunOptions(ap_denominator="all")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_docs must be an integer >= 0"):
        RunOptions().replace(max_docs=-1)
    with pytest.raises(TypeError, match="complete"):
        RunOptions(complete="yes")  # type: ignore[arg-type]
    assert RunOptions(profile="trec_eval10").profile == "10.0"


def test_the_profile_fills_in_what_is_left_out() -> None:
    for profile, (precision, rule) in PROFILE_DEFAULTS.items():
        o = RunOptions(profile=profile)
        assert (o.rules.score_precision, o.measure_options.iprec_rule) == (precision, rule)
        given = RunOptions(profile=profile, score_precision="double", iprec_rule="ceil")
        assert (given.rules.score_precision, given.measure_options.iprec_rule) == (
            "double", "ceil")


def test_the_private_batch_flag_left_the_public_signature() -> None:
    with pytest.raises(TypeError, match="_batch"):
        evaluate_module.evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map",
                                     _batch=True)  # type: ignore[call-arg]
    part = evaluate_module.evaluate_part({"q1": {"a": 1}}, {"q2": {"a": 1.0}}, "map")
    assert part.queries == ()
