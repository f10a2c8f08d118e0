"""The fast curve and summary code gives the slow reference's bits, not just its values to 1e-12.

The curve and summary kernels skip work the spec's loops do (zero terms of
in-order sums, points inside runs of equal recall, rows of a vertical drop);
these tests pin that each shortcut returns exactly what the loop returns, signed
zeros and NaN included, for both tie policies and every tier of the store.
"""

from __future__ import annotations

import math
import struct
from contextlib import AbstractContextManager
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rankeval import ScoredPrecisionRecallEvaluation
from tests import strategies
from tests.helpers import store_tiers
from tests.reference import Reference


def tiny_tiers() -> AbstractContextManager[Any]:
    """Fold and merge every few adds, so curves come from freshly merged arrays."""
    return store_tiers(3, 2)


def bits(value: Any) -> Any:
    """Floats as their IEEE bit patterns (NaN as one pattern), recursively."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else struct.pack("<d", value)
    if isinstance(value, (list, tuple)):
        return [bits(v) for v in value]
    return value


def assert_identical(got: Any, want: Any, what: str) -> None:
    assert bits(got) == bits(want), what


def check(ev: ScoredPrecisionRecallEvaluation, ref: Reference) -> None:
    for flag in (False, True):
        assert_identical(ev.pr_curve(flag).tolist(), ref.pr_curve(flag), f"pr_curve({flag})")
        assert_identical(
            ev.pr_score_curve(flag).tolist(), ref.pr_score_curve(flag), f"pr_score_curve({flag})"
        )
        assert_identical(ev.roc_curve(flag).tolist(), ref.roc_curve(flag), f"roc_curve({flag})")
        assert_identical(
            ev.area_under_pr_curve(flag), ref.area(ref.pr_curve(flag)), f"area pr({flag})"
        )
    assert_identical(ev.area_under_roc_curve(True), ref.area(ref.roc_curve(True)), "area roc")
    assert_identical(ev._lingpipe_roc_area(), ref.area(ref.roc_curve(False)), "LingPipe roc area")
    assert_identical(ev.average_precision(), ref.average_precision(), "average precision")
    assert_identical(
        ev._points().average_precision, ref.average_precision(), "AP of the points"
    )
    assert_identical(ev.eleven_point_interpolated_precision().tolist(), ref.eleven_point(), "11pt")
    for beta in (0.5, 1.0, 2.0):
        assert_identical(ev.maximum_f_measure(beta), ref.maximum_f(beta), f"max F({beta})")


class TestBitIdentical:
    @given(strategies.cases, strategies.miss_counts, strategies.miss_counts, strategies.ties)
    def test_batch(self, cases: list[tuple[bool, float]], misses: int, negative_misses: int,
                   ties: str) -> None:
        """add_cases then every curve and curve-derived value: the reference's bits."""
        ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
        ev.add_cases([c for c, _ in cases], [s for _, s in cases])
        ev.add_misses(misses)
        ev.add_negative_misses(negative_misses)
        check(ev, Reference(cases, misses, negative_misses, ties))

    @given(
        st.lists(st.tuples(st.booleans(), strategies.scores), min_size=1, max_size=25),
        st.data(),
        strategies.ties,
    )
    def test_streaming(self, cases: list[tuple[bool, float]], data: st.DataObject,
                       ties: str) -> None:
        """One case at a time through tiny tiers, read at a random moment: the same bits."""
        cut = data.draw(st.integers(min_value=1, max_value=len(cases)))
        with tiny_tiers():
            ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
            for correct, score in cases[:cut]:
                ev.add_case(correct, score)
            check(ev, Reference(cases[:cut], 0, 0, ties))
            for correct, score in cases[cut:]:
                ev.add_case(correct, score)
            check(ev, Reference(cases, 0, 0, ties))
