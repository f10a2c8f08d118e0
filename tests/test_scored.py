"""Behaviour of ScoredPrecisionRecallEvaluation beyond the oracle records.

Expected values come from the spec's running example, the seed documents
(``tests/data/seed_golden.json``), the slow reference in ``tests/reference.py``
and scikit-learn.
"""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import ScoredPrecisionRecallEvaluation
from tests import strategies
from tests.conftest import DATA, RUNNING_EXAMPLE, close, evaluation_of, same, snapshot
from tests.helpers import Stream, assert_matches_reference, small_buffer
from tests.reference import Reference

SEEDS = {entry["name"]: entry for entry in json.loads((DATA / "seed_golden.json").read_text())}




class TestRunningExample:
    """The documented example: 10 cases and one miss (LingPipe's documented example)."""

    def test_pr_curves(self, running_example: Any) -> None:
        """prCurve(false) has 11 rows (not the javadoc's 12); prCurve(true) is the spec's."""
        expected = SEEDS["lingpipe_prCurve_uninterpolated"]["expected"]
        assert close(running_example.pr_curve().tolist(), expected, 5e-5)
        assert running_example.pr_curve(True).tolist() == [
            [0.0, 1.0], [0.2, 0.6], [0.4, 0.6], [0.6, 0.6], [0.8, 0.4444444444444444], [1.0, 0.0]
        ]

    def test_roc_curves(self, running_example: Any) -> None:
        """rocCurve both ways, with x computed as 1 - TN/N (1 - 5/6 = 0.16666666666666663)."""
        for name, flag in (("uninterpolated", False), ("interpolated", True)):
            expected = SEEDS[f"lingpipe_rocCurve_{name}"]["expected"]
            assert close(running_example.roc_curve(flag).tolist(), expected, 5e-5)
        assert running_example.roc_curve()[1, 0] == 0.16666666666666663

    def test_precision_at(self, running_example: Any) -> None:
        """precision_at 0/1/5/10/20/100 = 1.0/0.0/0.6/0.4/0.2/0.04."""
        got = [running_example.precision_at(k) for k in (0, 1, 5, 10, 20, 100)]
        assert got == [1.0, 0.0, 0.6, 0.4, 0.2, 0.04]

    def test_summary_values(self, running_example: Any) -> None:
        """RR 0.5, R-precision 0.6, max F 0.6, AP 0.40888..., the four areas."""
        ev = running_example
        assert ev.reciprocal_rank() == 0.5
        assert ev.r_precision() == ev.pr_breakeven_point() == 0.6
        assert ev.maximum_f_measure() == 0.6
        assert ev.maximum_f_measure(0.5) == 0.6
        assert ev.maximum_f_measure(2.0) == 0.6896551724137931
        # (1/2 + 2/4 + 3/5 + 4/9) / 5
        assert ev.average_precision() == pytest.approx(
            (1 / 2 + 2 / 4 + 3 / 5 + 4 / 9) / 5, abs=1e-15
        )
        assert ev.area_under_pr_curve(True) == pytest.approx(0.5488888888888889, abs=1e-15)
        assert ev.area_under_pr_curve(False) == pytest.approx(0.4652777777777778, abs=1e-15)
        assert ev.area_under_roc_curve(True) == pytest.approx(0.55, abs=1e-15)
        # 14 of the 4*6 ranked pairs are ordered right, the miss adds nothing: 14/30
        assert ev.area_under_roc_curve(False) == 14 / 30

    def test_eleven_point(self, running_example: Any) -> None:
        """[1, .6 x6, .444 x2, 0, 0]: LingPipe's forced 1.0 at recall 0."""
        got = running_example.eleven_point_interpolated_precision()
        assert got.tolist() == [1.0] + [0.6] * 6 + [4 / 9] * 2 + [0.0, 0.0]

    def test_counts(self, running_example: Any) -> None:
        """numCases includes the miss: 11 cases, R = 5, N = 6."""
        ev = running_example
        assert (ev.num_cases(), ev.num_positive_ref(), ev.num_negative_ref()) == (11, 5, 6)


def _rank_ordered(relevance: list[int], num_relevant: int) -> ScoredPrecisionRecallEvaluation:
    """A ranking given as relevance flags in rank order, unretrieved relevant as misses."""
    n = len(relevance)
    return evaluation_of([(bool(r), float(n - i)) for i, r in enumerate(relevance)],
                         misses=num_relevant - sum(relevance))


class TestSeedExamples:
    """Worked examples of the seed documents, recomputed in seed_golden.json."""

    @pytest.mark.parametrize("prefix", ["fmp_toy", "fmp_ex7_12"])
    def test_fmp_notebook(self, prefix: str) -> None:
        """FMP: break-even point, maximum F and average precision through the evaluator."""
        entry = SEEDS[f"{prefix}_ap"]
        ev = _rank_ordered(
            entry["input"]["relevance_in_rank_order"], entry["input"]["num_relevant"]
        )
        assert close(ev.average_precision(), entry["expected"], 1e-12)
        assert close(ev.pr_breakeven_point(), SEEDS[f"{prefix}_bep"]["expected"], 1e-12)
        assert close(ev.maximum_f_measure(), SEEDS[f"{prefix}_Fmax"]["expected"], 1e-12)

    def test_fmp_values(self) -> None:
        """The FMP averages are 0.8125 and 0.60833 (the swapped variant 0.798611, not 0.7975)."""
        assert SEEDS["fmp_toy_ap"]["expected"] == 0.8125
        assert round(SEEDS["fmp_ex7_12_ap"]["expected"], 5) == 0.60833
        entry = SEEDS["fmp_toy_ap_swapped_8_9"]
        ev = _rank_ordered(
            entry["input"]["relevance_in_rank_order"], entry["input"]["num_relevant"]
        )
        assert close(ev.average_precision(), (1 + 1 + 3 / 4 + 4 / 9) / 4, 1e-15)

    def test_fmp_ranking_from_scores(self) -> None:
        """Exercise 7.12 from its raw similarity scores: P(r), R(r) as the table prints."""
        entry = SEEDS["fmp_ex7_12_table"]
        scores, ids, relevant = (entry["input"][k] for k in ("scores", "ids", "relevant"))
        ev = evaluation_of([(i in relevant, s) for i, s in zip(ids, scores, strict=True)])
        rows = ev.pr_score_curve()
        assert close(rows[:, 1].tolist(), entry["expected"]["P"], 1e-10)
        assert close(rows[:, 0].tolist(), entry["expected"]["R"], 1e-10)

    @pytest.mark.parametrize("name", ["zh_map_RNRNN_NNNRR", "zh_map_NRNNR_RRNNN"])
    def test_course_notes_ap_and_rprec(self, name: str) -> None:
        """Course notes: single-query AP and R-precision (RP(4))."""
        entry = SEEDS[name]
        ev = _rank_ordered(
            entry["input"]["relevance_in_rank_order"], entry["input"]["num_relevant"]
        )
        assert close(ev.average_precision(), entry["expected"]["AP"], 1e-12)
        assert close(ev.r_precision(), entry["expected"]["Rprec"], 1e-12)

    def test_perfect_roc(self) -> None:
        """Ten positives above ten negatives: ROC area 1.0 both ways."""
        labels = SEEDS["zh_roc_perfect"]["input"]["labels_in_rank_order"]
        ev = evaluation_of([(c == "p", float(-i)) for i, c in enumerate(labels)])
        assert ev.area_under_roc_curve() == ev.area_under_roc_curve(True) == 1.0


class TestGroupedTies:
    """ties="grouped": order-independent, equal to scikit-learn's tie handling."""

    @pytest.mark.parametrize("seed", range(12))
    def test_agrees_with_sklearn(self, seed: int) -> None:
        """ROC AUC = roc_auc_score and AP = average_precision_score on heavy ties."""
        from sklearn.metrics import average_precision_score, roc_auc_score

        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 400))
        labels = rng.random(n) < rng.uniform(0.1, 0.9)
        labels[:2] = [True, False]
        scores = np.round(rng.normal(labels * 0.7, 1.0), 1)  # ~40 distinct values
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        ev.add_cases(labels, scores)
        assert ev.area_under_roc_curve() == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
        backwards = ScoredPrecisionRecallEvaluation(ties="grouped")
        backwards.add_cases(labels[::-1], scores[::-1])  # grouped ties: order-independent
        assert backwards.area_under_roc_curve() == ev.area_under_roc_curve()
        assert ev.average_precision() == pytest.approx(
            average_precision_score(labels, scores), abs=1e-12
        )

    @settings(max_examples=60, deadline=None)
    @given(cases=strategies.tied_cases, misses=strategies.miss_counts,
           negative_misses=strategies.miss_counts, seed=st.integers(0, 2**32 - 1))
    def test_shuffle_invariant(self, cases: list[tuple[bool, float]], misses: int,
                               negative_misses: int, seed: int) -> None:
        """Every derived value is the same for any arrival order."""
        shuffled = list(cases)
        random.Random(seed).shuffle(shuffled)
        a = evaluation_of(cases, "grouped", misses, negative_misses)
        b = evaluation_of(shuffled, "grouped", misses, negative_misses)
        assert same(snapshot(a), snapshot(b))

    def test_expected_rank_values(self) -> None:
        """One positive tied with one negative at the top: P@1 = 0.5, RR = 0.75."""
        ev = evaluation_of([(False, 1.0), (True, 1.0), (True, 0.0)], ties="grouped")
        assert ev.precision_at(1) == 0.5
        assert ev.reciprocal_rank() == 0.75
        assert ev.r_precision() == 0.5  # R = 2: the top two are the tied {F, T} block, 1 hit / 2
        insertion = evaluation_of([(False, 1.0), (True, 1.0), (True, 0.0)])
        assert (insertion.precision_at(1), insertion.reciprocal_rank()) == (0.0, 0.5)


class TestIncremental:
    """Streaming: after every operation the evaluator equals a naive sort-everything one."""

    @settings(max_examples=80, deadline=None)
    @given(ops=strategies.operations, ties=strategies.ties, buffer=st.sampled_from([1, 2, 5, 1024]))
    def test_equals_reference_after_every_operation(
        self, ops: list[Any], ties: str, buffer: int
    ) -> None:
        """Cheap reads (counts, ROC area, P@k, RR, R-precision) and full reports match the
        reference."""
        with small_buffer(buffer):
            ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
            stream = Stream()
            for step, op in enumerate(ops):
                stream.apply(ev, op)
                cases, misses, negative_misses = stream.cases, stream.misses, stream.negative_misses
                ev._store._check()
                ref = Reference(cases, misses, negative_misses, ties)
                assert ev.num_cases() == len(cases) + misses + negative_misses
                assert close(ev.area_under_roc_curve(), ref.roc_auc_pairs(misses, negative_misses))
                for k in (0, 1, 2, 3, 7, len(cases), len(cases) + 1):
                    assert close(ev.precision_at(k), ref.precision_at(k)), k
                assert close(ev.reciprocal_rank(), ref.reciprocal_rank())
                assert close(ev.r_precision(), ref.r_precision())
                if step % 4 == 3:
                    assert_matches_reference(ev, cases, misses, negative_misses)
                    ev._store._check()

    @settings(max_examples=60, deadline=None)
    @given(cases=strategies.cases, ties=strategies.ties)
    def test_incremental_equals_batch(self, cases: list[tuple[bool, float]], ties: str) -> None:
        """add_case one at a time equals add_cases of everything so far, after every add."""
        with small_buffer(3):
            ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
            for i, (correct, score) in enumerate(cases):
                ev.add_case(correct, score)
                batch = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
                batch.add_cases([c for c, _ in cases[: i + 1]], [s for _, s in cases[: i + 1]])
                assert same(snapshot(ev), snapshot(batch))

    @settings(max_examples=60, deadline=None)
    @given(cases=strategies.distinct_cases, misses=strategies.miss_counts,
           seed=st.integers(0, 2**32 - 1))
    def test_distinct_scores_order_free(self, cases: list[tuple[bool, float]], misses: int,
                                        seed: int) -> None:
        """With distinct scores the insertion order does not matter (insertion policy)."""
        shuffled = list(cases)
        random.Random(seed).shuffle(shuffled)
        assert same(snapshot(evaluation_of(cases, misses=misses)),
                    snapshot(evaluation_of(shuffled, misses=misses)))

    def test_insertion_ties_follow_arrival(self) -> None:
        """Insertion policy: equal scores rank in arrival order, even across reads."""
        ev = ScoredPrecisionRecallEvaluation(ties="insertion")
        ev.add_case(False, 1.0)
        assert ev.reciprocal_rank() == 0.0
        ev.add_case(True, 1.0)
        assert ev.reciprocal_rank() == 0.5
        ev.pr_curve()
        ev.add_case(True, 1.0)
        ev.add_case(False, 2.0)
        assert ev.reciprocal_rank() == 1 / 3
        assert ev.pr_score_curve()[:, 2].tolist() == [2.0, 1.0, 1.0, 1.0]

    def test_signed_zero_and_infinities(self) -> None:
        """-0.0 ties with 0.0; infinities sort normally and equal ones tie."""
        ev = evaluation_of([(False, 0.0), (True, -0.0), (True, math.inf), (False, -math.inf),
                            (False, math.inf)])
        assert ev.pr_score_curve()[:, 2].tolist() == [math.inf, math.inf, 0.0, -0.0, -math.inf]
        assert ev.precision_at(2) == 0.5
        assert ev.reciprocal_rank() == 1.0


class TestReadsDoNotMutate:
    """Reads never change observable state; results are read-only values."""

    def test_arrays_are_read_only(self, running_example: Any) -> None:
        """Curves come back as read-only float64 arrays."""
        for curve in (running_example.pr_curve(), running_example.roc_curve(True),
                      running_example.pr_score_curve(True),
                      running_example.eleven_point_interpolated_precision()):
            assert curve.dtype == np.float64
            with pytest.raises(ValueError, match="read-only"):
                curve[0] = 0.0

    def test_cache_invalidated_by_every_mutator(self, running_example: Any) -> None:
        """Each mutator changes what the next read returns (no stale cache)."""
        ev = running_example
        before = ev.pr_curve().tolist()
        ev.add_misses(1)
        assert ev.pr_curve().tolist() != before
        before_roc = ev.roc_curve().tolist()
        ev.add_negative_misses(2)
        assert ev.roc_curve().tolist() != before_roc
        before_ap = ev.average_precision()
        ev.add_case(True, 100.0)
        assert ev.average_precision() != before_ap
        before_ap = ev.average_precision()
        ev.add_cases([True], [200.0])
        assert ev.average_precision() != before_ap

    def test_empty(self) -> None:
        """The empty evaluation: the edge-case table's row."""
        ev = ScoredPrecisionRecallEvaluation()
        assert ev.pr_curve().tolist() == [[0.0, 1.0], [1.0, 0.0]]
        assert ev.pr_score_curve().shape == (0, 3)
        assert ev.pr_score_curve(True).tolist() == [[0.0, 1.0, math.inf]]
        assert ev.roc_curve(True).tolist() == [[0.0, 0.0], [1.0, 1.0]]
        assert math.isnan(ev.average_precision())
        assert (ev.maximum_f_measure(), ev.r_precision(), ev.reciprocal_rank()) == (0.0, 1.0, 0.0)
        assert ev.area_under_roc_curve() == ev.area_under_pr_curve() == 0.5
        assert ev.precision_at(3) == 0.0
        assert str(ev).count("Precision at") == 0


def _calls() -> list[tuple[str, tuple[Any, ...], type[Exception]]]:
    """Every rejected call the spec documents, with its exception type."""
    return [
        ("add_case", (True, math.nan), ValueError),
        ("add_case", (True, "1.0"), TypeError),
        ("add_case", (True, None), TypeError),
        ("add_case", (2, 1.0), ValueError),
        ("add_case", ("yes", 1.0), TypeError),
        ("add_case", (None, 1.0), TypeError),
        ("add_case", (True, 10**400), ValueError),
        ("add_misses", (-1,), ValueError),
        ("add_misses", (1.5,), TypeError),
        ("add_misses", ("3",), TypeError),
        ("add_negative_misses", (-2,), ValueError),
        ("add_negative_misses", (None,), TypeError),
        ("precision_at", (-1,), ValueError),
        ("precision_at", (1.0,), TypeError),
        ("maximum_f_measure", (0.0,), ValueError),
        ("maximum_f_measure", (-1.0,), ValueError),
        ("maximum_f_measure", (math.inf,), ValueError),
        ("maximum_f_measure", (math.nan,), ValueError),
        ("maximum_f_measure", ("1",), TypeError),
        ("maximum_f_measure", (1e-320,), ValueError),
        ("maximum_f_measure", (1e308,), ValueError),
        ("add_cases", ([True, False], [1.0]), ValueError),
        ("add_cases", ([True, False], [1.0, math.nan]), ValueError),
        ("add_cases", ([True, 3], [1.0, 2.0]), ValueError),
        ("add_cases", ([True, False], ["a", "b"]), TypeError),
        ("add_cases", ([[True]], [[1.0]]), ValueError),
        ("add_cases", (True, 1.0), TypeError),
        ("pr_curve", ("yes",), TypeError),
    ]


class TestBadInput:
    """A rejected call raises the documented exception and changes nothing."""

    @pytest.mark.parametrize(("method", "args", "error"), _calls(),
                             ids=[f"{m}{a!r}" for m, a, _ in _calls()])
    @pytest.mark.parametrize("ties", ["insertion", "grouped"])
    def test_rejected_call_leaves_state(self, method: str, args: tuple[Any, ...],
                                        error: type[Exception], ties: str) -> None:
        """Every derived value is identical before and after the failed call."""
        ev = evaluation_of(RUNNING_EXAMPLE, misses=1, ties=ties)
        ev.add_case(True, 0.5)  # leave something in the add buffer
        before = snapshot(ev)
        store = copy.deepcopy(ev._store)
        with pytest.raises(error):
            getattr(ev, method)(*args)
        assert same(snapshot(ev), before)
        assert same(snapshot(ev), before)
        assert ev._store.doubled_pairs == store.doubled_pairs
        assert ev._store.size == store.size

    def test_bulk_error_names_first_bad_index(self) -> None:
        """add_cases reports the first bad index and adds nothing."""
        ev = ScoredPrecisionRecallEvaluation()
        with pytest.raises(ValueError, match=r"scores\[2\]"):
            ev.add_cases([True, False, True, True], [1.0, 2.0, math.nan, math.nan])
        with pytest.raises(ValueError, match=r"correct\[1\]"):
            ev.add_cases(np.array([1, 5, 7]), np.zeros(3))
        assert ev.num_cases() == 0

    def test_messages(self) -> None:
        """Messages name the problem (LingPipe's wording for counts and ranks)."""
        ev = ScoredPrecisionRecallEvaluation()
        with pytest.raises(ValueError, match=r"Miss count must be non-negative\. Found count=-3"):
            ev.add_misses(-3)
        with pytest.raises(ValueError, match=r"Rank must be non-negative\. Found rank=-1"):
            ev.precision_at(-1)
        with pytest.raises(ValueError, match="NaN"):
            ev.add_case(True, float("nan"))
        with pytest.raises(ValueError, match="ties must be one of"):
            ScoredPrecisionRecallEvaluation(ties="random")  # type: ignore[arg-type]

    def test_accepted_types(self) -> None:
        """NumPy bools, 0/1 and NumPy scalars are accepted; huge ranks are fine."""
        ev = ScoredPrecisionRecallEvaluation()
        ev.add_case(np.bool_(True), np.float32(0.5))
        ev.add_case(0, np.int64(3))
        ev.add_case(1, -math.inf)
        ev.add_misses(np.int32(0))
        ev.add_cases(np.array([0, 1], dtype=np.uint8), np.array([1, 2], dtype=np.int16))
        assert ev.num_cases() == 5
        assert ev.precision_at(2**31 - 1) == 3 / (2**31 - 1)


class TestAliases:
    """Every LingPipe spelling is the same method as its PEP 8 name."""

    @pytest.mark.parametrize(("alias", "name"), [
        ("addCase", "add_case"), ("addMisses", "add_misses"),
        ("addNegativeMisses", "add_negative_misses"), ("numCases", "num_cases"),
        ("numPositiveRef", "num_positive_ref"), ("numNegativeRef", "num_negative_ref"),
        ("prCurve", "pr_curve"), ("prScoreCurve", "pr_score_curve"), ("rocCurve", "roc_curve"),
        ("elevenPtInterpPrecision", "eleven_point_interpolated_precision"),
        ("averagePrecision", "average_precision"), ("maximumFMeasure", "maximum_f_measure"),
        ("precisionAt", "precision_at"), ("prBreakevenPoint", "pr_breakeven_point"),
        ("rPrecision", "r_precision"), ("reciprocalRank", "reciprocal_rank"),
        ("areaUnderPrCurve", "area_under_pr_curve"), ("areaUnderRocCurve", "area_under_roc_curve"),
        ("printPrecisionRecallCurve", "print_precision_recall_curve"),
        ("printScorePrecisionRecallCurve", "print_score_precision_recall_curve"),
    ])
    def test_alias(self, alias: str, name: str) -> None:
        """The alias is the very same function object (as defined: a static method stays
        one), on the class and on an instance."""
        import inspect

        cls = ScoredPrecisionRecallEvaluation
        assert inspect.getattr_static(cls, alias) is inspect.getattr_static(cls, name)
        ev = cls()
        assert getattr(ev, alias) == getattr(ev, name)


class _Ticks:
    """A clock that moves one second a call (picklable)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


class TestDeclaredState:
    """The evaluator's state is declared once (``_STATE``); every path honours it."""

    def _busy(self) -> ScoredPrecisionRecallEvaluation:
        ev = ScoredPrecisionRecallEvaluation(horizon=50.0, clock=_Ticks())
        ev.add_case(True, 0.5)
        ev.add_cases([False, True], [0.2, 0.9], timestamps=[120.0, 121.0])
        ev.add_misses(2)
        ev.add_negative_misses(3)
        ev.num_cases()
        return ev

    def test_reset_restores_every_declared_attribute(self) -> None:
        ev = self._busy()
        changed = [name for name, part in ev._STATE.items()
                   if getattr(ev, name) != part.empty(ev)]
        assert sorted(changed) == sorted(ev._STATE)  # each one moved away from its start
        ev.reset()
        for name, part in ev._STATE.items():
            assert getattr(ev, name) == part.empty(ev), name

    def test_pickling_and_snapshots_carry_every_declared_attribute(self) -> None:
        import pickle

        ev = self._busy()
        for clone in (pickle.loads(pickle.dumps(ev)), ev.snapshot(), ev._copy()):
            for name in ev._STATE:
                assert getattr(clone, name) == getattr(ev, name), name


def test_the_grouped_roc_area_is_the_correctly_rounded_exact_fraction() -> None:
    """The docs' claim: with grouped ties the ROC area is float(the exact fraction), which
    scikit-learn's trapezoid sum can miss in the last bit."""
    from fractions import Fraction

    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    differs = 0
    for _ in range(200):
        n = int(rng.integers(5, 120))
        labels = rng.random(n) < 0.4
        scores = np.round(rng.random(n), 1)
        if labels.all() or not labels.any():
            continue
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        ev.add_cases(labels, scores)
        pos, neg = scores[labels].tolist(), scores[~labels].tolist()
        pairs = sum(Fraction(1) if p > q else Fraction(1, 2) if p == q else Fraction(0)
                    for p in pos for q in neg)
        exact = float(pairs / (len(pos) * len(neg)))
        assert ev.area_under_roc_curve() == exact
        differs += roc_auc_score(labels, scores) != exact
    assert differs > 0  # the docs' "about 4 in 10" is a real difference, not a tie
