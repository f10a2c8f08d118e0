"""Java number formatting: ``Double.toString`` and ``%8.6f``, as LingPipe prints them.

Expected texts come from the spec (section 5) and from LingPipe's own output in the oracle
file; the hypothesis properties compare against a slow reference written from the spec's
wording, not from the implementation.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from rankeval.scored.lingpipe_text import java_double_to_string, java_f6, java_f6_many

ORACLE_PATH = Path(__file__).parent / "data" / "lingpipe_oracle_dev.jsonl"

NAN = math.nan
INF = math.inf

# toString() label -> the output key holding the value it prints (spec section 4).
TO_STRING_KEYS = {
    "Area Under PR Curve (interpolated)": "areaUnderPrCurve(true)",
    "Area Under PR Curve (uninterpolated)": "areaUnderPrCurve(false)",
    "Area Under ROC Curve (interpolated)": "areaUnderRocCurve(true)",
    "Area Under ROC Curve (uninterpolated)": "areaUnderRocCurve(false)",
    "Average Precision": "averagePrecision()",
    "Maximum F(1) Measure": "maximumFMeasure()",
    "BEP (Precision-Recall break even point)": "prBreakevenPoint()",
    "Reciprocal Rank": "reciprocalRank()",
}

# print method -> (curve key, column holding the third printed value, or None for F1).
PRINT_OUTPUTS = {
    "printPrecisionRecallCurve(prCurve(false))": ("prCurve(false)", None),
    "printPrecisionRecallCurve(prCurve(true))": ("prCurve(true)", None),
    "printScorePrecisionRecallCurve(prScoreCurve(false))": ("prScoreCurve(false)", 2),
}


def _from_json(value: Any) -> Any:
    """Decode the oracle's non-finite numbers, stored as strings, recursively."""
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value)
    if isinstance(value, list):
        return [_from_json(item) for item in value]
    return value


def _load_oracle() -> list[dict[str, Any]]:
    with ORACLE_PATH.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


ORACLE = _load_oracle()


def _java_divide(numerator: float, denominator: float) -> float:
    """Java ``double`` division: x/0 is NaN or a signed infinity instead of an exception."""
    if denominator == 0.0:
        if numerator == 0.0 or math.isnan(numerator):
            return NAN
        return math.copysign(INF, numerator) * math.copysign(1.0, denominator)
    return numerator / denominator


def _lingpipe_f1(recall: float, precision: float) -> float:
    """LingPipe's ``fMeasure(1.0, recall, precision)``, evaluated left to right in double."""
    return _java_divide((1 + 1.0) * recall * precision, recall + 1.0 * precision)


def _expected_rows(record: dict[str, Any], method: str) -> list[str]:
    """The printed rows of one print output of the oracle, without the header."""
    lines: list[str] = record["outputs"][method].split("\n")
    assert lines[-1] == "", "every printed row ends with a newline"
    return lines[1:-1]


def _row_values(record: dict[str, Any], method: str) -> list[tuple[float, float, float]]:
    """The three numbers each printed row shows, from the curve stored in the same record."""
    curve_key, third_column = PRINT_OUTPUTS[method]
    rows = []
    for row in _from_json(record["outputs"][curve_key]):
        recall, precision = row[0], row[1]
        third = _lingpipe_f1(recall, precision) if third_column is None else row[third_column]
        rows.append((precision, recall, third))
    return rows


def _printed_cases() -> list[Any]:
    cases = []
    for record in ORACLE:
        for method in PRINT_OUTPUTS:
            if isinstance(record["outputs"][method], str):  # skip recorded exceptions
                cases.append(pytest.param(record, method, id=f"{record['id']}-{method[:20]}"))
    return cases


def _java_f6_reference(x: float) -> str:
    """Slow ``%8.6f`` written from the spec's words, by integer arithmetic on Java's digits."""
    if math.isnan(x):
        return "     NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    sign, digit_tuple, exponent = Decimal(java_double_to_string(x)).as_tuple()
    assert isinstance(exponent, int)
    coefficient = int("".join(map(str, digit_tuple)))
    shift = exponent + 6  # the value is coefficient * 10**shift millionths
    if shift >= 0:
        millionths = coefficient * 10**shift
    else:
        millionths = (coefficient + 5 * 10 ** (-shift - 1)) // 10 ** (-shift)  # half-up
    text = f"{'-' if sign else ''}{millionths // 10**6}.{millionths % 10**6:06d}"
    return text.rjust(8)


class TestDoubleToStringSpecExamples:
    """Java 17 ``Double.toString`` on every example of spec section 5."""

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            pytest.param(NAN, "NaN", id="nan"),
            pytest.param(INF, "Infinity", id="inf"),
            pytest.param(-INF, "-Infinity", id="-inf"),
            pytest.param(0.0, "0.0", id="zero"),
            pytest.param(-0.0, "-0.0", id="negative-zero"),
            pytest.param(0.5, "0.5", id="half"),
            pytest.param(2.0 / 3.0, "0.6666666666666666", id="two-thirds"),
            pytest.param(9999999.0, "9999999.0", id="below-1e7"),
            pytest.param(0.001, "0.001", id="1e-3"),
            pytest.param(1.8626451500983188e-9, "1.8626451500983188E-9", id="e-form-small"),
            pytest.param(1e7, "1.0E7", id="e-form-1e7"),
        ],
    )
    def test_spec_example(self, value: float, expected: str) -> None:
        """Each example of the spec prints as the spec shows."""
        assert java_double_to_string(value) == expected

    @pytest.mark.xfail(
        strict=True, reason="JDK <= 18 prints a longer, non-shortest string; ignored by design"
    )
    def test_jdk17_non_shortest_1e23(self) -> None:
        """The spec's known divergence: JDK 17 prints 1.0E23 as 9.999999999999999E22."""
        assert java_double_to_string(1e23) == "9.999999999999999E22"

    def test_numpy_scalar(self) -> None:
        """A NumPy float64 prints like the Python float it equals."""
        assert java_double_to_string(np.float64(0.5)) == "0.5"
        assert java_double_to_string(np.float64(1e7)) == "1.0E7"


class TestDoubleToStringOracle:
    """``toString()`` lines of the LingPipe oracle are reproduced from the stored values."""

    @pytest.mark.parametrize("record", [pytest.param(r, id=r["id"]) for r in ORACLE])
    def test_to_string_values(self, record: dict[str, Any]) -> None:
        """Every ``label=D(value)`` line whose value the record stores prints identically."""
        outputs = record["outputs"]
        checked = 0
        for line in outputs["toString()"].split("\n"):
            label, _, printed = line.strip().partition("=")
            if label.startswith("Precision at "):
                key = f"precisionAt({label.removeprefix('Precision at ')})"
                if key not in outputs:  # toString prints precisionAt(25), the record lacks it
                    continue
            else:
                key = TO_STRING_KEYS[label]
            assert java_double_to_string(_from_json(outputs[key])) == printed, line
            checked += 1
        assert checked >= len(TO_STRING_KEYS)


class TestF6SpecExamples:
    """Java ``%8.6f`` on every example of spec section 5."""

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            pytest.param(NAN, "     NaN", id="nan"),
            pytest.param(INF, "Infinity", id="inf"),
            pytest.param(-INF, "-Infinity", id="-inf"),
            pytest.param(-0.0, "-0.000000", id="negative-zero"),
            pytest.param(-5e-7, "-0.000001", id="negative-half-up-from-zero"),
            pytest.param(1.0 / 128.0, "0.007813", id="1-128-half-up"),
            pytest.param(1.0000005, "1.000001", id="decimal-digits-half-up"),
            pytest.param(1e300, "1" + "0" * 300 + ".000000", id="1e300-all-digits"),
        ],
    )
    def test_spec_example(self, value: float, expected: str) -> None:
        """Each example of the spec prints as the spec shows, one by one and in bulk."""
        assert java_f6(value) == expected
        assert java_f6_many([value]) == [expected]

    def test_many_accepts_arrays_and_iterators(self) -> None:
        """The bulk formatter takes arrays of any shape and one-shot iterators."""
        values = [0.0078125, -5e-7, NAN, 1.0000005]
        expected = ["0.007813", "-0.000001", "     NaN", "1.000001"]
        assert java_f6_many(np.array(values).reshape(2, 2)) == expected
        assert java_f6_many(iter(values)) == expected
        assert java_f6_many(np.array(values, dtype=np.float32)[:1]) == ["0.007813"]
        assert java_f6_many([]) == []


class TestF6Oracle:
    """Curve rows printed by LingPipe are reproduced from the curves stored in the record."""

    @pytest.mark.parametrize(("record", "method"), _printed_cases())
    def test_printed_rows(self, record: dict[str, Any], method: str) -> None:
        """Each row is ``F6(precision) F6(recall) F6(F1 or score)``, one by one and in bulk."""
        expected = _expected_rows(record, method)
        values = _row_values(record, method)
        assert len(values) == len(expected)
        singly = [" ".join(java_f6(v) for v in row) for row in values]
        assert singly == expected
        flat = java_f6_many(np.array(values, dtype=np.float64).reshape(-1))
        in_bulk = [" ".join(flat[i : i + 3]) for i in range(0, len(flat), 3)]
        assert in_bulk == expected


# Values near a 6-decimal rounding midpoint, where Java and Python rounding part ways.
decimal_midpoints = st.builds(
    lambda units, scale, negative: (-1.0 if negative else 1.0) * float(f"{units}5e-{scale}"),
    st.integers(min_value=0, max_value=10**12),
    st.integers(min_value=1, max_value=12),
    st.booleans(),
)
binary_fractions = st.builds(
    lambda numerator, power: numerator / 2.0**power,
    st.integers(min_value=-(2**40), max_value=2**40),
    st.integers(min_value=0, max_value=40),
)
any_double = st.floats(allow_nan=True, allow_infinity=True)


class TestProperties:
    """Properties over all doubles, against the spec-worded slow reference."""

    @given(st.one_of(any_double, decimal_midpoints, binary_fractions))
    @example(1.0 / 128.0)
    @example(-5e-7)
    @example(5e-324)
    @example(1.7976931348623157e308)
    @example(4503599627370495.5)
    def test_f6_matches_reference(self, x: float) -> None:
        """``java_f6`` equals half-up rounding of the ``Double.toString`` digits."""
        assert java_f6(x) == _java_f6_reference(x)

    @given(st.lists(st.one_of(any_double, decimal_midpoints, binary_fractions), max_size=50))
    def test_f6_many_matches_f6(self, values: list[float]) -> None:
        """The bulk formatter agrees with the one-value formatter on every element."""
        assert java_f6_many(values) == [java_f6(v) for v in values]

    @given(st.floats(allow_nan=False, allow_infinity=False))
    @example(5e-324)
    @example(-0.0)
    @example(9999999.999999998)
    @example(0.0009999999999999998)
    def test_to_string_round_trips(self, x: float) -> None:
        """Parsing the text gives back the same double, sign of zero included."""
        text = java_double_to_string(x)
        assert float(text) == x
        assert math.copysign(1.0, float(text)) == math.copysign(1.0, x)

    @given(st.floats(allow_nan=False, allow_infinity=False))
    def test_to_string_layout(self, x: float) -> None:
        """Plain decimal exactly for 1e-3 <= |x| < 1e7, else ``d.dddE<exp>`` without ``+``."""
        text = java_double_to_string(x)
        if x == 0.0 or 1e-3 <= abs(x) < 1e7:
            assert re.fullmatch(r"-?(0|[1-9][0-9]*)\.(0|[0-9]*[1-9])", text), text
        else:
            assert re.fullmatch(r"-?[1-9]\.(0|[0-9]*[1-9])E-?[1-9][0-9]*", text), text
