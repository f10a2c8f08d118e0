"""Behaviour of rankeval.confusion: binary and multi-class evaluation from confusion counts.

Oracles: LingPipe's F-measure grid (bit-exact), the Chinese course notes' seed examples
(seed_golden.json), hand arithmetic written next to each value, and scikit-learn on
hypothesis-generated label lists.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    class_likelihood_ratios,
    cohen_kappa_score,
    confusion_matrix,
    fbeta_score,
    matthews_corrcoef,
    precision_score,
    recall_score,
)

from rankeval.confusion import (
    ConfusionMatrix,
    CostMatrix,
    MultiClassEvaluation,
    PrecisionRecallEvaluation,
    _f_measure_unchecked,
    f_measure,
    f_measure_array,
)

DATA = Path(__file__).parent / "data"
TOLERANCE = 1e-12  # the spec's tolerance for floats compared with reference outputs

# Few examples: the machine is shared, and each example already checks many values.
FEW = settings(max_examples=60, deadline=None)


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def seed_entry(name: str) -> dict[str, Any]:
    """The seed_golden.json entry of the Chinese course notes (seed 004) called ``name``."""
    entries = json.loads((DATA / "seed_golden.json").read_text(encoding="utf-8"))
    (entry,) = [e for e in entries if e["seed"].startswith("004") and e["name"] == name]
    return dict(entry)


def _number(value: float | str) -> float:
    """JSON number, or Java's "NaN" / "Infinity" / "-Infinity" spelled as a string."""
    return float(value)


def oracle_rows() -> list[tuple[float, float, float, float]]:
    """(beta, recall, precision, fMeasure) for every line of the LingPipe F-measure grid."""
    rows = []
    with (DATA / "lingpipe_fmeasure_oracle.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            rows.append(
                (
                    _number(record["beta"]),
                    _number(record["recall"]),
                    _number(record["precision"]),
                    _number(record["fMeasure"]),
                )
            )
    return rows


ORACLE = oracle_rows()


def re_repr(value: object) -> str:
    """``repr(value)`` escaped for use inside a regular expression."""
    return re.escape(repr(value))


def accepted_beta(beta: float) -> bool:
    """The beta rule of every F in rankeval: finite, > 0, with a finite non-zero square."""
    return math.isfinite(beta) and beta > 0 and 0.0 < beta * beta < math.inf


def same_bits(actual: float, expected: float) -> bool:
    """Equal as Java would print them: both NaN, or equal with the same sign (so -0.0 != 0.0)."""
    if math.isnan(expected):
        return math.isnan(actual)
    return actual == expected and math.copysign(1.0, actual) == math.copysign(1.0, expected)


def close(actual: float, expected: float) -> bool:
    """Within the spec's tolerance, treating NaN as equal to NaN."""
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    return math.isclose(actual, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def counts(ev: PrecisionRecallEvaluation) -> tuple[int, int, int, int]:
    return (ev.true_positive, ev.false_negative, ev.false_positive, ev.true_negative)


def matrix_state(ev: MultiClassEvaluation[Any]) -> tuple[tuple[Any, ...], list[list[int]]]:
    cm = ev.confusion_matrix()
    return cm.labels, cm.counts.tolist()


def sklearn_quiet(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a scikit-learn metric with its undefined-value warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


FRUIT = seed_entry("zh_micro_precision")["input"]


def fruit() -> MultiClassEvaluation[str]:
    return MultiClassEvaluation.from_labels(FRUIT["y_true"], FRUIT["y_pred"])


# Strategies (kept here rather than tests/strategies.py, which this change does not own).
binary_cases = st.lists(st.tuples(st.booleans(), st.booleans()), max_size=40)
count_values = st.integers(min_value=0, max_value=10**6)
label_pairs = st.lists(
    st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd")), min_size=1, max_size=40
)
betas = st.sampled_from([0.25, 0.5, 1.0, 2.0, 3.0])


def evaluation_from(cases: Sequence[tuple[bool, bool]]) -> PrecisionRecallEvaluation:
    ev = PrecisionRecallEvaluation()
    for reference, response in cases:
        ev.add_case(reference, response)
    return ev


# ---------------------------------------------------------------------------------------------
# F-measure: LingPipe's static fMeasure
# ---------------------------------------------------------------------------------------------


class TestFMeasureOracle:
    def test_unchecked_reproduces_every_oracle_line_bit_exactly(self) -> None:
        """The unchecked kernel gives Java's bits on the whole grid, any beta included."""
        mismatches = [
            (row, _f_measure_unchecked(*row[:3]))
            for row in ORACLE
            if not same_bits(_f_measure_unchecked(*row[:3]), row[3])
        ]
        assert mismatches == []

    def test_public_function_reproduces_every_valid_beta_line(self) -> None:
        """f_measure gives Java's bits on every line whose beta the one check accepts."""
        valid = [row for row in ORACLE if accepted_beta(row[0])]
        assert len(valid) > 400  # 3 betas x 144 grid points
        assert [row for row in valid if not same_bits(f_measure(*row[:3]), row[3])] == []

    def test_array_variant_has_the_same_bits_elementwise(self) -> None:
        """f_measure_array matches the oracle bit for bit, one beta at a time, with no warnings."""
        valid_betas = sorted({row[0] for row in ORACLE if accepted_beta(row[0])})
        for beta in valid_betas:
            rows = [row for row in ORACLE if row[0] == beta]
            result = f_measure_array(beta, [r[1] for r in rows], [r[2] for r in rows])
            assert result.dtype == np.float64
            assert result.shape == (len(rows),)
            bad = [row for row, got in zip(rows, result, strict=True) if not same_bits(got, row[3])]
            assert bad == [], beta

    def test_oracle_covers_the_java_division_by_zero_results(self) -> None:
        """The grid exercises NaN, +-Infinity and -0.0, so bit-exactness means something."""
        results = [row[3] for row in ORACLE if row[0] > 0]
        assert any(math.isnan(v) for v in results)
        assert any(math.isinf(v) for v in results)
        assert any(v == 0.0 and math.copysign(1.0, v) < 0 for v in results)

    def test_hand_calculated_values(self) -> None:
        """F1 is the harmonic mean; larger beta moves F towards recall."""
        # 2 * 0.5 * 0.25 / (0.5 + 0.25) = 0.25 / 0.75 = 1/3
        assert f_measure(1.0, 0.5, 0.25) == pytest.approx(1 / 3, abs=TOLERANCE)
        # beta = 2: 5 * 0.5 * 0.25 / (0.5 + 4 * 0.25) = 0.625 / 1.5 = 5/12 (closer to recall 0.5)
        assert f_measure(2.0, 0.5, 0.25) == pytest.approx(5 / 12, abs=TOLERANCE)
        assert math.isnan(f_measure(1.0, 0.0, 0.0))

    def test_seed_f1_examples(self) -> None:
        """The course notes' F1 examples 0.50909 and 0.58333 (pairs are (P, R); F1 is symmetric)."""
        entry = seed_entry("zh_f1_examples")
        for (p, r), expected in zip(entry["input"]["pairs"], entry["expected"], strict=True):
            assert close(f_measure(1.0, r, p), expected)
            assert close(f_measure(1.0, p, r), expected)
            assert close(float(f_measure_array(1.0, [r], [p])[0]), expected)


class TestFMeasureValidation:
    @pytest.mark.parametrize("beta", [0.0, -1.0, -0.0, math.nan, math.inf, -math.inf])
    def test_bad_beta_is_a_value_error_naming_it(self, beta: float) -> None:
        """beta must be finite and > 0 (one rule for every F); the message shows the value."""
        with pytest.raises(ValueError, match=rf"beta.*{re_repr(beta)}"):
            f_measure(beta, 0.5, 0.5)
        with pytest.raises(ValueError, match="beta"):
            f_measure_array(beta, [0.5], [0.5])

    @pytest.mark.parametrize("beta", [True, "1", None, [1.0]])
    def test_non_real_beta_is_a_type_error(self, beta: Any) -> None:
        """beta must be a real number; bools are refused rather than read as 1."""
        with pytest.raises(TypeError, match="beta"):
            f_measure(beta, 0.5, 0.5)

    @pytest.mark.parametrize("name", ["recall", "precision"])
    def test_non_real_recall_or_precision_is_a_type_error(self, name: str) -> None:
        """recall and precision must be real numbers; NaN is allowed and propagates."""
        args: dict[str, Any] = {"beta": 1.0, "recall": 0.5, "precision": 0.5, name: "0.5"}
        with pytest.raises(TypeError, match=rf"{name}.*'0\.5'"):
            f_measure(**args)
        assert math.isnan(f_measure(**{**args, name: math.nan}))

    def test_integer_arguments_are_computed_in_double(self) -> None:
        """Ints are converted to float first, exactly as Java widens them."""
        assert same_bits(f_measure(1, 1, 0), 0.0)
        assert same_bits(_f_measure_unchecked(2, 1, 1), 1.0)


# ---------------------------------------------------------------------------------------------
# PrecisionRecallEvaluation
# ---------------------------------------------------------------------------------------------


class TestConstruction:
    def test_default_is_empty(self) -> None:
        """A new evaluation has all four counts 0."""
        ev = PrecisionRecallEvaluation()
        ev._check()
        assert counts(ev) == (0, 0, 0, 0)
        assert ev.total == 0

    def test_counts_by_keyword(self) -> None:
        """Keyword counts land in their named cells; NumPy ints become Python ints."""
        ev = PrecisionRecallEvaluation(tp=np.int64(1), fn=2, fp=3, tn=4)
        ev._check()
        assert counts(ev) == (1, 2, 3, 4)
        assert type(ev.true_positive) is int

    def test_positional_counts_are_refused(self) -> None:
        """Counts are keyword-only, so a misordered LingPipe-style call cannot go unnoticed."""
        with pytest.raises(TypeError):
            PrecisionRecallEvaluation(1, 2, 3, 4)  # type: ignore[call-arg]

    @pytest.mark.parametrize("name", ["tp", "fn", "fp", "tn"])
    @pytest.mark.parametrize("value", [True, np.bool_(False), 1.0, "1", None])
    def test_non_int_count_is_a_type_error(self, name: str, value: Any) -> None:
        """Bools, floats and strings are not counts; the message names the argument and value."""
        with pytest.raises(TypeError, match=rf"{name}.*{re_repr(value)}"):
            PrecisionRecallEvaluation(**{name: value})

    @pytest.mark.parametrize("name", ["tp", "fn", "fp", "tn"])
    def test_negative_count_is_a_value_error(self, name: str) -> None:
        """A negative count is refused with a ValueError naming it."""
        with pytest.raises(ValueError, match=rf"{name}.*-1"):
            PrecisionRecallEvaluation(**{name: -1})

    def test_repr_and_equality(self) -> None:
        """Equal counts compare equal; the evaluation is mutable, hence unhashable."""
        ev = PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)
        assert repr(ev) == "PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)"
        assert ev == PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)
        assert ev != PrecisionRecallEvaluation(tp=1, fn=2, fp=4, tn=3)
        assert ev != (1, 2, 3, 4)
        with pytest.raises(TypeError):
            hash(ev)


class TestAddCase:
    @pytest.mark.parametrize(
        ("reference", "response", "cell"),
        [(True, True, 0), (True, False, 1), (False, True, 2), (False, False, 3)],
    )
    def test_each_case_increments_exactly_its_cell(
        self, reference: bool, response: bool, cell: int
    ) -> None:
        """(ref, resp) = (T,T)->TP, (T,F)->FN, (F,T)->FP, (F,F)->TN."""
        ev = PrecisionRecallEvaluation()
        ev.add_case(reference, response)
        ev._check()
        expected = [0, 0, 0, 0]
        expected[cell] = 1
        assert counts(ev) == tuple(expected)

    def test_numpy_bools_and_zero_one_ints_are_accepted(self) -> None:
        """np.bool_ and the ints 0/1 are read as booleans."""
        ev = PrecisionRecallEvaluation()
        ev.add_case(np.bool_(True), 1)  # type: ignore[arg-type]
        ev.add_case(0, np.bool_(False))  # type: ignore[arg-type]
        ev._check()
        assert counts(ev) == (1, 0, 0, 1)

    @pytest.mark.parametrize("position", ["reference", "response"])
    @pytest.mark.parametrize(
        ("value", "error"),
        [
            (2, ValueError),
            (-1, ValueError),
            ("yes", TypeError),
            (None, TypeError),
            (1.0, TypeError),
        ],
    )
    def test_bad_flag_raises_and_leaves_counts_unchanged(
        self, position: str, value: Any, error: type[Exception]
    ) -> None:
        """A bad reference or response raises, names the argument and value, changes nothing."""
        ev = PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)
        before = counts(ev)
        args = {"reference": True, "response": True, position: value}
        with pytest.raises(error, match=rf"{position}.*{re_repr(value)}"):
            ev.add_case(**args)
        ev._check()
        assert counts(ev) == before

    @FEW
    @given(binary_cases)
    def test_incremental_equals_batch_after_every_add(self, cases: list[tuple[bool, bool]]) -> None:
        """After each add_case, the counts equal those of the cases so far, tallied at once."""
        ev = PrecisionRecallEvaluation()
        for i, (reference, response) in enumerate(cases):
            ev.add_case(reference, response)
            ev._check()
            seen = cases[: i + 1]
            assert counts(ev) == (
                seen.count((True, True)),
                seen.count((True, False)),
                seen.count((False, True)),
                seen.count((False, False)),
            )


class TestMerge:
    @FEW
    @given(binary_cases, binary_cases)
    def test_merge_equals_adding_the_other_cases(
        self, first: list[tuple[bool, bool]], second: list[tuple[bool, bool]]
    ) -> None:
        """merge(a, b) has the counts of a's cases followed by b's; b is unchanged."""
        ev, other = evaluation_from(first), evaluation_from(second)
        other_before = counts(other)
        ev.merge(other)
        ev._check()
        assert ev == evaluation_from(first + second)
        assert counts(other) == other_before

    def test_merge_refuses_other_types(self) -> None:
        """Only evaluations merge; the target is unchanged on failure."""
        ev = PrecisionRecallEvaluation(tp=1)
        with pytest.raises(TypeError, match=r"other.*\(1, 0, 0, 0\)"):
            ev.merge((1, 0, 0, 0))  # type: ignore[arg-type]
        assert counts(ev) == (1, 0, 0, 0)


class TestStatistics:
    # Running example: the left cost example of the notes, TP=150 FN=40 FP=60 TN=250 (n=500).
    EV = PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250)

    def test_count_views(self) -> None:
        """Marginals: positive ref 150+40, negative ref 60+250, positive resp 150+60, ..."""
        ev = self.EV
        assert ev.total == 500
        assert (ev.positive_reference, ev.negative_reference) == (190, 310)
        assert (ev.positive_response, ev.negative_response) == (210, 290)
        assert (ev.correct_response, ev.incorrect_response) == (400, 100)

    def test_hand_calculated_ratios(self) -> None:
        """Each ratio is its exact int/int quotient, correctly rounded."""
        ev = self.EV
        assert ev.precision() == 150 / 210  # TP / (TP + FP)
        assert ev.recall() == 150 / 190  # TP / (TP + FN)
        assert ev.specificity() == 250 / 310  # TN / (TN + FP)
        assert ev.rejection_precision() == 250 / 290  # TN / (TN + FN)
        assert ev.fallout() == 60 / 310  # FP / (FP + TN)
        assert ev.accuracy() == 400 / 500  # (TP + TN) / n = 0.8
        assert ev.error_rate() == 100 / 500  # (FN + FP) / n = 0.2
        # Pr(e) = (190 * 210 + 310 * 290) / 500**2 = (39900 + 89900) / 250000 = 0.5192
        assert ev.random_accuracy() == 129800 / 250000
        # kappa = (500 * 400 - 129800) / (500**2 - 129800) = 70200 / 120200
        assert ev.kappa() == 70200 / 120200
        # F1 = 2 * 150 / (2 * 150 + 40 + 60) = 300 / 400
        assert ev.f_measure() == 0.75
        # F2 = 5 * 150 / (5 * 150 + 4 * 40 + 60) = 750 / 970
        assert ev.f_measure(2.0) == pytest.approx(750 / 970, rel=TOLERANCE)
        # F0.5 = 1.25 * 150 / (1.25 * 150 + 0.25 * 40 + 60) = 187.5 / 257.5
        assert ev.f_measure(0.5) == pytest.approx(187.5 / 257.5, rel=TOLERANCE)

    def test_empty_evaluation_is_undefined_everywhere_except_cost(self) -> None:
        """With no cases every ratio is NaN (0/0), never a quiet 0; the cost is 0."""
        ev = PrecisionRecallEvaluation()
        for statistic in (
            ev.precision,
            ev.recall,
            ev.specificity,
            ev.rejection_precision,
            ev.fallout,
            ev.f_measure,
            ev.accuracy,
            ev.error_rate,
            ev.random_accuracy,
            ev.kappa,
        ):
            assert math.isnan(statistic()), statistic.__name__
        assert ev.cost(CostMatrix(tp=-1, fn=100, fp=1, tn=0)) == 0.0

    def test_each_undefined_when_line(self) -> None:
        """Each ratio is NaN exactly when its documented denominator is 0."""
        no_positive_response = PrecisionRecallEvaluation(fn=3, tn=2)
        assert math.isnan(no_positive_response.precision())
        assert no_positive_response.recall() == 0.0
        no_positive_reference = PrecisionRecallEvaluation(fp=3, tn=2)
        assert math.isnan(no_positive_reference.recall())
        assert no_positive_reference.precision() == 0.0
        no_negative_reference = PrecisionRecallEvaluation(tp=3, fn=2)
        assert math.isnan(no_negative_reference.specificity())
        assert math.isnan(no_negative_reference.fallout())
        no_negative_response = PrecisionRecallEvaluation(tp=3, fp=2)
        assert math.isnan(no_negative_response.rejection_precision())
        only_true_negatives = PrecisionRecallEvaluation(tn=5)
        assert math.isnan(only_true_negatives.f_measure())
        # Pr(e) = 1 when both raters are constant and equal: kappa is 0/0.
        assert math.isnan(PrecisionRecallEvaluation(tp=4).kappa())
        assert math.isnan(PrecisionRecallEvaluation(tn=4).kappa())
        # Constant but opposite raters: Pr(a) = 0, Pr(e) = 0, kappa = 0.
        assert PrecisionRecallEvaluation(fn=4).kappa() == 0.0

    def test_f_measure_with_no_true_positive_is_zero_not_nan(self) -> None:
        """TP = 0 with errors gives F = 0 from the counts (LingPipe's P/R form would give NaN)."""
        assert PrecisionRecallEvaluation(fn=2, fp=3, tn=1).f_measure() == 0.0
        assert PrecisionRecallEvaluation(fp=3).f_measure(2.0) == 0.0

    def test_f_measure_limits_of_beta(self) -> None:
        """A tiny beta gives precision, a huge one recall, without overflow."""
        ev = PrecisionRecallEvaluation(tp=3, fn=1, fp=2, tn=9)
        assert ev.f_measure(1e-150) == pytest.approx(ev.precision(), rel=TOLERANCE)
        assert ev.f_measure(1e150) == pytest.approx(ev.recall(), rel=TOLERANCE)
        assert ev.f_measure(1e-100) == pytest.approx(ev.precision(), rel=TOLERANCE)
        big = PrecisionRecallEvaluation(tp=10**9, fn=10**9, fp=1)
        assert big.f_measure(1e150) == pytest.approx(0.5, rel=TOLERANCE)

    @pytest.mark.parametrize("beta", [1e200, 1e-200, 1e-300])
    def test_every_f_refuses_a_beta_whose_square_is_not_a_double(self, beta: float) -> None:
        """One beta rule: the function, the array form, the counts and the curve all refuse."""
        from rankeval import ScoredPrecisionRecallEvaluation

        scored = ScoredPrecisionRecallEvaluation()
        scored.add_cases([True, False], [2.0, 1.0])
        calls = [
            lambda: f_measure(beta, 0.5, 0.5),
            lambda: f_measure_array(beta, [0.5], [0.5]),
            lambda: PrecisionRecallEvaluation(tp=3, fn=1, fp=2, tn=9).f_measure(beta),
            lambda: scored.maximum_f_measure(beta),
        ]
        for call in calls:
            with pytest.raises(ValueError, match=r"beta must have a finite, non-zero square"):
                call()

    @pytest.mark.parametrize("beta", [0.0, -2.0, math.nan, math.inf, True, "2"])
    def test_bad_beta_raises_and_leaves_counts_unchanged(self, beta: Any) -> None:
        """The instance F-measure validates beta like the static one; nothing changes."""
        ev = PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)
        with pytest.raises((TypeError, ValueError), match=rf"beta.*{re_repr(beta)}"):
            ev.f_measure(beta)
        assert counts(ev) == (1, 2, 3, 4)

    @FEW
    @given(count_values, count_values, count_values, count_values, betas)
    def test_f_measure_agrees_with_the_static_formula(
        self, tp: int, fn: int, fp: int, tn: int, beta: float
    ) -> None:
        """With TP > 0, F from counts equals f_measure(beta, recall, precision) to 1e-12."""
        ev = PrecisionRecallEvaluation(tp=tp + 1, fn=fn, fp=fp, tn=tn)
        assert close(ev.f_measure(beta), f_measure(beta, ev.recall(), ev.precision()))

    @FEW
    @given(count_values, count_values, count_values, count_values)
    def test_complementary_ratios_sum_to_one(self, tp: int, fn: int, fp: int, tn: int) -> None:
        """accuracy + error rate = 1 and specificity + fallout = 1 whenever defined."""
        ev = PrecisionRecallEvaluation(tp=tp, fn=fn, fp=fp, tn=tn)
        if ev.total:
            assert ev.accuracy() + ev.error_rate() == pytest.approx(1.0, abs=TOLERANCE)
        if fp + tn:
            assert ev.specificity() + ev.fallout() == pytest.approx(1.0, abs=TOLERANCE)

    def test_huge_counts_do_not_overflow(self) -> None:
        """Counts are Python ints: beyond 2**63 the ratios are still exact quotients."""
        ev = PrecisionRecallEvaluation(tp=3 * 2**70, fn=2**70, fp=2**70, tn=3 * 2**70)
        assert ev.precision() == 0.75
        assert ev.accuracy() == 0.75
        # Pr(e) = 0.5 -> kappa = (0.75 - 0.5) / 0.5 = 0.5
        assert ev.kappa() == 0.5


class TestAgainstSklearnBinary:
    @FEW
    @given(binary_cases.filter(bool), betas)
    def test_binary_statistics_match_sklearn(
        self, cases: list[tuple[bool, bool]], beta: float
    ) -> None:
        """precision, recall, F-beta, accuracy, kappa and the matrix equal scikit-learn's."""
        ev = evaluation_from(cases)
        y_true = [reference for reference, _ in cases]
        y_pred = [response for _, response in cases]
        nan = np.nan
        assert close(ev.precision(), precision_score(y_true, y_pred, zero_division=nan))
        assert close(ev.recall(), recall_score(y_true, y_pred, zero_division=nan))
        assert close(ev.f_measure(beta), fbeta_score(y_true, y_pred, beta=beta, zero_division=nan))
        assert close(ev.accuracy(), accuracy_score(y_true, y_pred))
        expected_kappa = sklearn_quiet(cohen_kappa_score, y_true, y_pred, labels=[False, True])
        assert close(ev.kappa(), expected_kappa)
        # sklearn's layout for labels [True, False]: [[TP, FN], [FP, TN]].
        matrix = confusion_matrix(y_true, y_pred, labels=[True, False])
        assert matrix.ravel().tolist() == list(counts(ev))


class TestDecisionRates:
    """npv, fdr, the likelihood ratios, MCC, balanced accuracy and Youden's J."""

    @FEW
    @given(binary_cases.filter(bool))
    def test_rates_match_sklearn(self, cases: list[tuple[bool, bool]]) -> None:
        """Where scikit-learn defines them, the rates equal its values; where it does not
        (a 0/0 or x/0), ours are the documented nan or inf, checked from the counts."""
        ev = evaluation_from(cases)
        y_true = [reference for reference, _ in cases]
        y_pred = [response for _, response in cases]
        tp, fn, fp, tn = counts(ev)
        nan = np.nan
        # npv is the precision of the negative class; fdr one minus precision
        assert close(ev.npv(), precision_score(y_true, y_pred, pos_label=False,
                                               zero_division=nan))
        assert close(ev.fdr(), 1.0 - precision_score(y_true, y_pred, zero_division=nan))
        if tp + fn and fp + tn:
            assert close(ev.balanced_accuracy(),
                         sklearn_quiet(balanced_accuracy_score, y_true, y_pred))
            assert close(ev.youden_index(), sklearn_quiet(balanced_accuracy_score, y_true,
                                                          y_pred, adjusted=True))
            lr_plus, lr_minus = sklearn_quiet(class_likelihood_ratios, y_true, y_pred,
                                              labels=[False, True])
            assert close(ev.lr_positive(), lr_plus) if fp else (
                ev.lr_positive() == math.inf if tp else math.isnan(ev.lr_positive()))
            assert close(ev.lr_negative(), lr_minus) if tn else (
                ev.lr_negative() == math.inf if fn else math.isnan(ev.lr_negative()))
        else:
            for rate in (ev.balanced_accuracy, ev.youden_index, ev.lr_positive,
                         ev.lr_negative):
                assert math.isnan(rate())
        if (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn):
            assert close(ev.matthews_corrcoef(), matthews_corrcoef(y_true, y_pred))
        else:
            assert math.isnan(ev.matthews_corrcoef())

    def test_rates_by_hand(self) -> None:
        """The course notes' left table: each rate from its formula, by hand."""
        ev = PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250)
        assert ev.npv() == 250 / 290
        assert ev.fdr() == 60 / 210
        assert ev.lr_positive() == (150 * 310) / (60 * 190)  # (150/190) / (60/310)
        assert ev.lr_negative() == (40 * 310) / (250 * 190)  # (40/190) / (250/310)
        assert ev.balanced_accuracy() == 94000 / 117800  # (150/190 + 250/310) / 2
        assert ev.youden_index() == 35100 / 58900  # (150*250 - 60*40) / (190*310)
        assert ev.matthews_corrcoef() == 35100 / math.sqrt(210 * 190 * 310 * 290)
        # a perfect test: LR+ infinite, LR- zero
        perfect = PrecisionRecallEvaluation(tp=3, tn=2)
        assert (perfect.lr_positive(), perfect.lr_negative()) == (math.inf, 0.0)


class TestCost:
    @pytest.mark.parametrize("name", ["zh_cost_left", "zh_cost_right"])
    def test_seed_cost_examples(self, name: str) -> None:
        """Accuracy 0.8 / cost 3910 and accuracy 0.9 / cost 4255 from the notes, exactly."""
        entry = seed_entry(name)
        confusion = entry["input"]["confusion"]
        ev = PrecisionRecallEvaluation(
            tp=confusion["TP"], fn=confusion["FN"], fp=confusion["FP"], tn=confusion["TN"]
        )
        costs = entry["input"]["cost_matrix"]
        expected = entry["expected"]
        assert ev.accuracy() == expected["accuracy"]
        # left:  150 * -1 + 40 * 100 + 60 * 1 + 250 * 0 = -150 + 4000 + 60 = 3910
        # right: 250 * -1 + 45 * 100 + 5 * 1 + 200 * 0 = -250 + 4500 + 5 = 4255
        assert ev.cost(costs) == expected["cost"]
        as_matrix = CostMatrix(tp=costs["TP"], fn=costs["FN"], fp=costs["FP"], tn=costs["TN"])
        assert ev.cost(as_matrix) == expected["cost"]
        rows = [[costs["TP"], costs["FN"]], [costs["FP"], costs["TN"]]]
        assert ev.cost(rows) == expected["cost"]
        assert ev.cost({key.lower(): value for key, value in costs.items()}) == expected["cost"]

    def test_float_costs_are_summed_exactly(self) -> None:
        """Float costs: the correctly rounded sum of the four products (fsum)."""
        ev = PrecisionRecallEvaluation(tp=1, fn=1, fp=1, tn=1)
        # 0.1 + 0.2 + 0.3 + (-0.6) is 5.55e-17 left to right but ~0 exactly
        costs = CostMatrix(tp=0.1, fn=0.2, fp=0.3, tn=-0.6)
        assert ev.cost(costs) == math.fsum([0.1, 0.2, 0.3, -0.6])

    def test_cost_matrix_is_keyword_only_and_frozen(self) -> None:
        """No positional cells (so no wrong order), and no mutation after construction."""
        with pytest.raises(TypeError):
            CostMatrix(-1, 100, 1, 0)  # type: ignore[call-arg]
        costs = CostMatrix(tp=-1, fn=100, fp=1, tn=0)
        with pytest.raises(AttributeError):
            costs.tp = 5  # type: ignore[misc]
        assert CostMatrix.from_rows([[-1, 100], [1, 0]]) == costs
        assert CostMatrix.from_mapping({"Tp": -1, "fN": 100, "FP": 1, "tn": 0}) == costs

    @pytest.mark.parametrize(
        ("bad", "error", "pattern"),
        [
            ({"TP": 1, "FN": 1, "FP": 1}, ValueError, r"tp, fn, fp, tn"),
            ({"TP": 1, "FN": 1, "FP": 1, "TN": 1, "X": 1}, ValueError, r"'X'"),
            ({"TP": 1, "tp": 1, "FN": 1, "FP": 1}, ValueError, r"tp, fn, fp, tn"),
            ({"TP": True, "FN": 1, "FP": 1, "TN": 1}, TypeError, r"tp.*True"),
            ({"TP": math.nan, "FN": 1, "FP": 1, "TN": 1}, ValueError, r"tp.*nan"),
            ({"TP": 1, "FN": math.inf, "FP": 1, "TN": 1}, ValueError, r"fn.*inf"),
            ({"TP": 1, "FN": 1, "FP": "1", "TN": 1}, TypeError, r"fp.*'1'"),
            ([[1, 2], [3]], ValueError, r"\[\[1, 2\], \[3\]\]"),
            ([1, 2, 3, 4], ValueError, r"\[1, 2, 3, 4\]"),
            ("tpfnfptn", TypeError, r"'tpfnfptn'"),
            (None, TypeError, r"None"),
        ],
    )
    def test_malformed_cost_matrix_raises_and_changes_nothing(
        self, bad: Any, error: type[Exception], pattern: str
    ) -> None:
        """A malformed cost matrix raises with the offending value; counts are unchanged."""
        ev = PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)
        with pytest.raises(error, match=pattern):
            ev.cost(bad)
        assert counts(ev) == (1, 2, 3, 4)


class TestKappaSeed:
    @pytest.mark.parametrize(
        "name", ["zh_kappa_example1", "zh_kappa_example2_table1", "zh_kappa_example2_table2"]
    )
    def test_seed_kappa_examples(self, name: str) -> None:
        """Pr(a), Pr(e) and kappa of the notes' agreement tables (0.6667, 0.1304, 0.2593)."""
        entry = seed_entry(name)
        table = entry["input"]["table"]
        # First letter = rater A (reference), second = rater B (response): A yes 10/30 in
        # example 1 is YY + YN. So YY = TP, YN = FN, NY = FP, NN = TN.
        ev = PrecisionRecallEvaluation(
            tp=table["YY"], fn=table["YN"], fp=table["NY"], tn=table["NN"]
        )
        expected = entry["expected"]
        assert close(ev.accuracy(), expected["Pr_a"])
        assert close(ev.random_accuracy(), expected["Pr_e"])
        assert close(ev.kappa(), expected["kappa"])
        # Example 1 by hand: Pr(a) = 25/30, Pr(e) = (10*15 + 20*15)/900 = 0.5,
        # kappa = (30*25 - 450) / (900 - 450) = 300/450 = 2/3.
        multi = MultiClassEvaluation.from_counts({(a, b): table[a + b] for a in "YN" for b in "YN"})
        assert close(multi.kappa(), expected["kappa"])
        assert close(multi.random_accuracy(), expected["Pr_e"])

    def test_kappa_example1_is_exactly_two_thirds(self) -> None:
        """(30*25 - 450) / (900 - 450) = 2/3, rounded once."""
        ev = PrecisionRecallEvaluation(tp=10, fn=0, fp=5, tn=15)
        assert ev.kappa() == 2 / 3


class TestAliases:
    def test_count_aliases(self) -> None:
        """LingPipe's count methods return the same ints as the snake_case properties."""
        ev = PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)
        assert ev.truePositive() == ev.true_positive == 1
        assert ev.falseNegative() == ev.false_negative == 2
        assert ev.falsePositive() == ev.false_positive == 3
        assert ev.trueNegative() == ev.true_negative == 4
        assert ev.total_cases() == ev.total == 10
        assert ev.positiveReference() == ev.positive_reference
        assert ev.negativeReference() == ev.negative_reference
        assert ev.positiveResponse() == ev.positive_response
        assert ev.negativeResponse() == ev.negative_response
        assert ev.correctResponse() == ev.correct_response
        assert ev.incorrectResponse() == ev.incorrect_response

    def test_statistic_aliases(self) -> None:
        """LingPipe's statistic names give the same floats."""
        ev = PrecisionRecallEvaluation(tp=1, fn=2, fp=3, tn=4)
        assert ev.rejectionRecall() == ev.specificity()
        assert ev.rejectionPrecision() == ev.rejection_precision()
        assert ev.errorRate() == ev.error_rate()
        assert ev.randomAccuracy() == ev.random_accuracy()

    def test_add_case_alias(self) -> None:
        """addCase is add_case, validation included."""
        ev = PrecisionRecallEvaluation()
        ev.addCase(True, False)
        assert counts(ev) == (0, 1, 0, 0)
        with pytest.raises(ValueError, match="reference"):
            ev.addCase(2, False)  # type: ignore[arg-type]
        assert counts(ev) == (0, 1, 0, 0)

    def test_f_measure_alias_static_and_instance(self) -> None:
        """fMeasure is static on the class and instance-or-static on an object, as in Java."""
        ev = PrecisionRecallEvaluation(tp=150, fn=40, fp=60, tn=250)
        assert PrecisionRecallEvaluation.fMeasure(1.0, 0.7, 0.4) == f_measure(1.0, 0.7, 0.4)
        assert ev.fMeasure() == ev.f_measure()
        assert ev.fMeasure(2.0) == ev.f_measure(2.0)
        assert ev.fMeasure(2.0, 0.5, 0.25) == f_measure(2.0, 0.5, 0.25)
        with pytest.raises(TypeError, match="2 arguments"):
            ev.fMeasure(1.0, 0.5)
        with pytest.raises(ValueError, match="beta"):
            PrecisionRecallEvaluation.fMeasure(0.0, 0.5, 0.5)


class TestAccuracySeed:
    def test_all_majority_predictor_accuracy(self) -> None:
        """Predicting class 0 for 9990 class-0 and 10 class-1 cases: 9990/10000 = 0.999."""
        entry = seed_entry("zh_accuracy_imbalance")
        n0, n1 = entry["input"]["n_class0"], entry["input"]["n_class1"]
        # Class 1 as positive: the 10 class-1 cases are false negatives, the rest true negatives.
        ev = PrecisionRecallEvaluation(fn=n1, tn=n0)
        assert ev.accuracy() == entry["expected"]
        assert math.isnan(ev.precision())  # never predicts class 1: precision undefined
        assert ev.recall() == 0.0
        multi = MultiClassEvaluation.from_counts({(0, 0): n0, (1, 0): n1})
        assert multi.accuracy() == entry["expected"]


# ---------------------------------------------------------------------------------------------
# MultiClassEvaluation
# ---------------------------------------------------------------------------------------------


class TestMultiClassSeed:
    def test_micro_precision(self) -> None:
        """Micro precision = correct / n = 4/9 (orange 1 + lemon 1 + apple 2 correct of 9)."""
        entry = seed_entry("zh_micro_precision")
        ev = MultiClassEvaluation.from_labels(entry["input"]["y_true"], entry["input"]["y_pred"])
        assert ev.micro_precision() == entry["expected"]
        assert ev.micro_recall() == entry["expected"]
        assert ev.micro_f_measure() == entry["expected"]
        assert ev.accuracy() == entry["expected"]

    def test_macro_precision_is_per_predicted_class(self) -> None:
        """Macro precision (1/1 + 1/3 + 2/5)/3 = (15 + 5 + 6)/45 = 26/45 = 0.5778."""
        entry = seed_entry("zh_macro_precision_true")
        ev = MultiClassEvaluation.from_labels(entry["input"]["y_true"], entry["input"]["y_pred"])
        assert close(ev.macro_precision(), entry["expected"])
        assert close(ev.macro_precision(), 26 / 45)

    def test_seed_macro_is_macro_recall(self) -> None:
        """The notes' 0.57 is macro recall: (1/5 + 1/2 + 2/2)/3 = 1.7/3 = 0.5667."""
        entry = seed_entry("zh_macro_as_computed")
        ev = MultiClassEvaluation.from_labels(entry["input"]["y_true"], entry["input"]["y_pred"])
        assert close(ev.macro_recall(), entry["expected"])

    def test_per_class_views_of_the_fruit_example(self) -> None:
        """Labels in first-seen order orange, lemon, apple; their one-vs-rest counts by hand."""
        ev = fruit()
        assert ev.labels == ("orange", "lemon", "apple")
        # orange: TP 1, FN 4 (two lemons, two apples), FP 0, TN 4
        assert ev.one_vs_rest("orange") == PrecisionRecallEvaluation(tp=1, fn=4, fp=0, tn=4)
        # apple: TP 2, FN 0, FP 3 (two oranges and a lemon predicted apple), TN 4
        assert ev.one_vs_rest("apple") == PrecisionRecallEvaluation(tp=2, fn=0, fp=3, tn=4)
        np.testing.assert_array_equal(ev.per_class_precision(), [1 / 1, 1 / 3, 2 / 5])
        np.testing.assert_array_equal(ev.per_class_recall(), [1 / 5, 1 / 2, 2 / 2])


class TestMultiClassConstruction:
    def test_three_constructors_agree(self) -> None:
        """from_labels, from_counts and from_confusion_matrix build the same matrix."""
        by_labels = fruit()
        cm = by_labels.confusion_matrix()
        by_matrix = MultiClassEvaluation.from_confusion_matrix(cm.counts, cm.labels)
        cells = {
            (r, c): int(cm.counts[i, j])
            for i, r in enumerate(cm.labels)
            for j, c in enumerate(cm.labels)
        }
        by_counts = MultiClassEvaluation.from_counts(cells)
        for ev in (by_labels, by_matrix, by_counts):
            ev._check()
            assert matrix_state(ev) == matrix_state(by_labels)

    def test_declared_labels_come_first_and_may_be_unused(self) -> None:
        """Declared labels fix the order; an unused one has undefined per-class values."""
        ev = MultiClassEvaluation.from_labels(["b", "a"], ["a", "a"], labels=["z", "a"])
        ev._check()
        assert ev.labels == ("z", "a", "b")
        assert ev.confusion_matrix().counts.tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 0]]
        assert math.isnan(ev.one_vs_rest("z").precision())
        assert math.isnan(ev.per_class_f_measure()[0])
        assert math.isnan(ev.macro_f_measure())
        # b: TP 0, FN 1, FP 0 -> F = 0; a: TP 1, FN 0, FP 1 -> F = 2/3
        assert ev.macro_f_measure(undefined="skip") == pytest.approx(1 / 3, abs=TOLERANCE)
        assert ev.macro_f_measure(undefined="zero") == pytest.approx(2 / 9, abs=TOLERANCE)

    def test_confusion_matrix_is_a_read_only_labelled_value(self) -> None:
        """The matrix is int64, read-only, and carries its labels."""
        cm = fruit().confusion_matrix()
        assert isinstance(cm, ConfusionMatrix)
        assert cm.counts.dtype == np.int64
        with pytest.raises(ValueError, match="read-only"):
            cm.counts[0, 0] = 7
        with pytest.raises(AttributeError):
            cm.labels = ()  # type: ignore[misc]

    @FEW
    @given(label_pairs)
    def test_incremental_equals_batch_after_every_add(self, pairs: list[tuple[str, str]]) -> None:
        """After each add_case the matrix equals the one built from the cases so far."""
        ev: MultiClassEvaluation[str] = MultiClassEvaluation()
        for i, (reference, response) in enumerate(pairs):
            ev.add_case(reference, response)
            ev._check()
            seen = pairs[: i + 1]
            batch = MultiClassEvaluation.from_labels([p[0] for p in seen], [p[1] for p in seen])
            assert matrix_state(ev) == matrix_state(batch)

    @FEW
    @given(label_pairs, label_pairs)
    def test_merge_equals_adding_the_other_cases(
        self, first: list[tuple[str, str]], second: list[tuple[str, str]]
    ) -> None:
        """merge has the matrix of both case lists in sequence; the other is unchanged."""
        ev = MultiClassEvaluation.from_labels([p[0] for p in first], [p[1] for p in first])
        other = MultiClassEvaluation.from_labels([p[0] for p in second], [p[1] for p in second])
        other_before = matrix_state(other)
        ev.merge(other)
        ev._check()
        both = first + second
        batch = MultiClassEvaluation.from_labels([p[0] for p in both], [p[1] for p in both])
        assert matrix_state(ev) == matrix_state(batch)
        assert matrix_state(other) == other_before

    @FEW
    @given(binary_cases)
    def test_one_vs_rest_of_boolean_labels_is_the_binary_evaluation(
        self, cases: list[tuple[bool, bool]]
    ) -> None:
        """With labels True/False, one_vs_rest(True) equals PrecisionRecallEvaluation."""
        ev = MultiClassEvaluation.from_labels(
            [c[0] for c in cases], [c[1] for c in cases], labels=[True, False]
        )
        binary = evaluation_from(cases)
        assert ev.one_vs_rest(True) == binary
        assert close(ev.kappa(), binary.kappa())
        assert close(ev.accuracy(), binary.accuracy())

    @FEW
    @given(label_pairs)
    def test_micro_average_is_the_sum_of_one_vs_rest(self, pairs: list[tuple[str, str]]) -> None:
        """micro_average() = Σ one_vs_rest(c), LingPipe's microAverage."""
        ev = MultiClassEvaluation.from_labels([p[0] for p in pairs], [p[1] for p in pairs])
        summed = PrecisionRecallEvaluation()
        for label in ev.labels:
            summed.merge(ev.one_vs_rest(label))
        assert ev.micro_average() == summed

    def test_empty_evaluation_is_undefined(self) -> None:
        """No cases: accuracy, kappa and every average are NaN."""
        ev: MultiClassEvaluation[str] = MultiClassEvaluation()
        for value in (
            ev.accuracy(),
            ev.kappa(),
            ev.random_accuracy(),
            ev.micro_precision(),
            ev.micro_recall(),
            ev.micro_f_measure(),
            ev.macro_precision(),
            ev.macro_recall(),
            ev.macro_f_measure(),
            ev.macro_precision(undefined="zero"),
        ):
            assert math.isnan(value)
        assert ev.confusion_matrix().counts.shape == (0, 0)

    def test_unhashable_label_raises_and_changes_nothing(self) -> None:
        """add_case / add_cases refuse unhashable labels without partial updates."""
        ev = fruit()
        before = matrix_state(ev)
        with pytest.raises(TypeError, match=r"response.*\['x'\]"):
            ev.add_case("apple", ["x"])  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"references\[1\].*\{\}"):
            ev.add_cases(["apple", {}], ["apple", "apple"])  # type: ignore[list-item]
        ev._check()
        assert matrix_state(ev) == before

    def test_length_mismatch_raises_and_changes_nothing(self) -> None:
        """add_cases needs parallel sequences of equal length."""
        ev = fruit()
        before = matrix_state(ev)
        with pytest.raises(ValueError, match=r"same length.*2.*1"):
            ev.add_cases(["apple", "lemon"], ["apple"])
        assert matrix_state(ev) == before

    @pytest.mark.parametrize(
        ("bad", "error", "pattern"),
        [
            ({("a", "b"): -1}, ValueError, r"counts\[\('a', 'b'\)\].*-1"),
            ({("a", "b"): 1.5}, TypeError, r"1\.5"),
            ({("a", "b"): True}, TypeError, r"True"),
            ({"ab": 1}, TypeError, r"'ab'"),
            ([(("a", "b"), 1)], TypeError, r"mapping"),
        ],
    )
    def test_bad_counts_mapping(self, bad: Any, error: type[Exception], pattern: str) -> None:
        """from_counts validates keys and counts, naming the offending entry."""
        with pytest.raises(error, match=pattern):
            MultiClassEvaluation.from_counts(bad)

    @pytest.mark.parametrize(
        ("matrix", "labels", "error", "pattern"),
        [
            ([[1, 2], [3, 4]], ["a"], ValueError, r"shape \(1, 1\).*\(2, 2\)"),
            ([[1, -2], [3, 4]], ["a", "b"], ValueError, r"matrix\[0\]\[1\].*-2"),
            ([[1, 2.0], [3, 4]], ["a", "b"], TypeError, r"matrix\[0\]\[1\].*2\.0"),
            ([[1, 2], [3, 4]], ["a", "a"], ValueError, r"distinct.*'a'"),
        ],
    )
    def test_bad_confusion_matrix(
        self, matrix: Any, labels: list[str], error: type[Exception], pattern: str
    ) -> None:
        """from_confusion_matrix checks shape, entries and labels."""
        with pytest.raises(error, match=pattern):
            MultiClassEvaluation.from_confusion_matrix(matrix, labels)

    def test_unknown_label_and_policy_are_value_errors(self) -> None:
        """one_vs_rest needs a known label; undefined must be nan/skip/zero."""
        ev = fruit()
        with pytest.raises(ValueError, match="'kiwi'"):
            ev.one_vs_rest("kiwi")
        with pytest.raises(ValueError, match="'ignore'"):
            ev.macro_precision(undefined="ignore")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"beta.*0"):
            ev.macro_f_measure(beta=0.0)

    def test_count_lookup(self) -> None:
        """count(reference, response) reads one cell; unknown labels count 0."""
        ev = fruit()
        assert ev.count("orange", "lemon") == 2
        assert ev.count("kiwi", "apple") == 0
        assert ev.total == 9


def nan_policy_mean(per_class: np.ndarray) -> float:
    """The "nan" policy applied to sklearn's per-class values: NaN if any class is undefined."""
    return math.nan if np.isnan(per_class).any() else float(np.mean(per_class))


class TestAgainstSklearnMultiClass:
    @FEW
    @given(label_pairs, betas)
    def test_matrix_accuracy_kappa_and_micro(
        self, pairs: list[tuple[str, str]], beta: float
    ) -> None:
        """Confusion matrix, accuracy, kappa and micro P/R/F equal scikit-learn's."""
        y_true = [p[0] for p in pairs]
        y_pred = [p[1] for p in pairs]
        ev = MultiClassEvaluation.from_labels(y_true, y_pred)
        labels = list(ev.labels)
        np.testing.assert_array_equal(
            ev.confusion_matrix().counts,
            sklearn_quiet(confusion_matrix, y_true, y_pred, labels=labels),
        )
        assert close(ev.accuracy(), accuracy_score(y_true, y_pred))
        assert close(ev.kappa(), sklearn_quiet(cohen_kappa_score, y_true, y_pred, labels=labels))
        micro = {"labels": labels, "average": "micro", "zero_division": np.nan}
        assert close(ev.micro_precision(), precision_score(y_true, y_pred, **micro))
        assert close(ev.micro_recall(), recall_score(y_true, y_pred, **micro))
        assert close(ev.micro_f_measure(beta), fbeta_score(y_true, y_pred, beta=beta, **micro))

    @FEW
    @given(label_pairs, betas)
    def test_per_class_and_macro(self, pairs: list[tuple[str, str]], beta: float) -> None:
        """Per-class and macro P/R/F equal scikit-learn's under each undefined policy."""
        y_true = [p[0] for p in pairs]
        y_pred = [p[1] for p in pairs]
        ev = MultiClassEvaluation.from_labels(y_true, y_pred)
        labels = list(ev.labels)
        cases: list[tuple[str, Callable[..., Any], Callable[..., float], dict[str, Any]]] = [
            ("precision", precision_score, ev.macro_precision, {}),
            ("recall", recall_score, ev.macro_recall, {}),
            ("f", fbeta_score, lambda **kw: ev.macro_f_measure(beta, **kw), {"beta": beta}),
        ]
        per_class_ours = {
            "precision": ev.per_class_precision(),
            "recall": ev.per_class_recall(),
            "f": ev.per_class_f_measure(beta),
        }
        for name, metric, ours, extra in cases:
            per_class = metric(
                y_true, y_pred, labels=labels, average=None, zero_division=np.nan, **extra
            )
            np.testing.assert_allclose(per_class_ours[name], per_class, rtol=TOLERANCE, atol=0)
            for undefined, zero_division in (("skip", np.nan), ("zero", 0.0)):
                expected = metric(
                    y_true,
                    y_pred,
                    labels=labels,
                    average="macro",
                    zero_division=zero_division,
                    **extra,
                )
                assert close(ours(undefined=undefined), expected), (name, undefined)
            assert close(ours(undefined="nan"), nan_policy_mean(per_class)), name
            assert close(ours(), ours(undefined="nan"))

    @FEW
    @given(label_pairs)
    def test_label_order_does_not_change_any_average(self, pairs: list[tuple[str, str]]) -> None:
        """Declaring labels in another order permutes the matrix but keeps every value."""
        y_true = [p[0] for p in pairs]
        y_pred = [p[1] for p in pairs]
        ev = MultiClassEvaluation.from_labels(y_true, y_pred)
        reordered = MultiClassEvaluation.from_labels(y_true, y_pred, labels=ev.labels[::-1])
        for method in ("macro_precision", "macro_recall", "macro_f_measure", "kappa"):
            assert same_bits(getattr(reordered, method)(), getattr(ev, method)()), method


class TestReprs:
    def test_repr_shows_labels_and_total(self) -> None:
        """The multi-class repr names its labels and case count."""
        assert repr(fruit()) == (
            "MultiClassEvaluation(labels=('orange', 'lemon', 'apple'), total=9)"
        )


def test_every_public_class_and_function_has_a_doctest() -> None:
    """Every exported class and function documents itself with a runnable example."""
    import rankeval.confusion as module

    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__doc__, name
            assert ">>>" in obj.__doc__, name
