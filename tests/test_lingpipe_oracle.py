"""Every record of the LingPipe 4.1.0 reference outputs, through the LingPipe-named aliases.

Where rankeval differs on purpose (docs/semantics.md), a few outputs are overridden
(R-precision / BEP, maximumFMeasure
for beta <= 0, the first row of prScoreCurve(true) and its print text, the
"Precision at" lines of toString); there the expected value comes from the
slow reference implementation in ``tests/reference.py`` instead.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.scored.lingpipe_text import java_double_to_string, java_f6
from tests.conftest import close, decode, load_oracle
from tests.reference import Reference

ALL_RECORDS = load_oracle()
TOL = 1e-12


def has_nan(record: dict[str, Any]) -> bool:
    return any(score == "NaN" for _, score in record["cases"])


# rankeval: NaN scores are refused, so NaN records are checked for that alone.
RECORDS = [r for r in ALL_RECORDS if not has_nan(r)]
NAN_RECORDS = [r for r in ALL_RECORDS if has_nan(r)]


def build(record: dict[str, Any]) -> ScoredPrecisionRecallEvaluation:
    """Replay the oracle harness: addCase for each case, then addMisses, addNegativeMisses."""
    ev = ScoredPrecisionRecallEvaluation(ties="insertion")  # LingPipe's rule
    for correct, score in decode(record["cases"]):
        ev.addCase(correct, score)
    for method, count in (
        ("addMisses", record["misses"]),
        ("addNegativeMisses", record["negative_misses"]),
    ):
        if record["outputs"][method] is not None:
            with pytest.raises(ValueError, match="must be non-negative"):
                getattr(ev, method)(count)
        else:
            getattr(ev, method)(count)
    return ev


def reference(record: dict[str, Any]) -> Reference:
    misses = max(record["misses"], 0)
    negative_misses = max(record["negative_misses"], 0)
    return Reference(decode(record["cases"]), misses, negative_misses)


@pytest.fixture(params=RECORDS, ids=[r["id"] for r in RECORDS])
def case(request: pytest.FixtureRequest) -> tuple[dict[str, Any], dict[str, Any], Any]:
    record = request.param
    return record, decode(record["outputs"]), build(record)


@pytest.mark.parametrize("record", NAN_RECORDS, ids=[r["id"] for r in NAN_RECORDS])
def test_nan_records_are_refused(record: dict[str, Any]) -> None:
    """A NaN score raises ValueError and leaves the cases before it intact."""
    ev = ScoredPrecisionRecallEvaluation(ties="insertion")
    added = 0
    for correct, score in decode(record["cases"]):
        if score != score:
            with pytest.raises(ValueError, match="NaN"):
                ev.addCase(correct, score)
        else:
            ev.addCase(correct, score)
            added += 1
    assert ev.numCases() == added


def test_oracle_covers_every_record() -> None:
    """The oracle file holds 232 records and each is exercised by one of the two groups."""
    assert len(ALL_RECORDS) == 232
    assert len(RECORDS) + len(NAN_RECORDS) == 232
    assert len(NAN_RECORDS) <= 1


class TestLingPipeOracle:
    def test_counts(self, case: Any) -> None:
        """numCases, numPositiveRef and numNegativeRef equal LingPipe's."""
        _, out, ev = case
        assert ev.numCases() == out["numCases()"]
        assert ev.numPositiveRef() == out["numPositiveRef()"]
        assert ev.numNegativeRef() == out["numNegativeRef()"]

    @pytest.mark.parametrize("method", ["prCurve", "rocCurve"])
    @pytest.mark.parametrize("flag", [False, True])
    def test_curves(self, case: Any, method: str, flag: bool) -> None:
        """PR and ROC curves, both interpolations, have LingPipe's shape and values."""
        _, out, ev = case
        got = getattr(ev, method)(flag)
        expected = out[f"{method}({str(flag).lower()})"]
        assert got.shape == (len(expected), 2)
        assert close(got.tolist(), expected, TOL)

    def test_score_curve(self, case: Any) -> None:
        """prScoreCurve(false) equals LingPipe's; prScoreCurve(true) adds the score +inf
        to row 0."""
        _, out, ev = case
        assert close(ev.prScoreCurve(False).tolist(), out["prScoreCurve(false)"], TOL)
        got = ev.prScoreCurve(True).tolist()
        expected = out["prScoreCurve(true)"]
        assert got[0] == [0.0, 1.0, float("inf")]
        assert expected[0] == [0.0, 1.0]
        assert close(got[1:], expected[1:], TOL)

    @pytest.mark.parametrize(
        "key",
        [
            "elevenPtInterpPrecision()", "averagePrecision()", "reciprocalRank()",
            "areaUnderPrCurve(false)", "areaUnderPrCurve(true)",
            "areaUnderRocCurve(false)", "areaUnderRocCurve(true)",
            "maximumFMeasure()", "maximumFMeasure(0.5)", "maximumFMeasure(1.0)",
            "maximumFMeasure(2.0)",
        ],
    )
    def test_values(self, case: Any, key: str) -> None:
        """Scalar summaries equal LingPipe's to 1e-12."""
        _, out, ev = case
        name, arg = re.fullmatch(r"(\w+)\((.*)\)", key).groups()  # type: ignore[union-attr]
        args = [] if arg == "" else [arg == "true" if arg in ("true", "false") else float(arg)]
        got = getattr(ev, name)(*args)
        assert close(got.tolist() if hasattr(got, "tolist") else got, out[key], TOL)

    @pytest.mark.parametrize("beta", [0.0, -1.0])
    def test_nonpositive_beta_rejected(self, case: Any, beta: float) -> None:
        """beta <= 0 is a ValueError (LingPipe gives NaN or |beta|'s value)."""
        _, _, ev = case
        with pytest.raises(ValueError, match="beta"):
            ev.maximumFMeasure(beta)

    def test_precision_at(self, case: Any) -> None:
        """precisionAt at every rank the oracle asked, including past the end and MAX_INT."""
        _, out, ev = case
        for key, expected in out.items():
            m = re.fullmatch(r"precisionAt\((-?\d+)\)", key)
            if not m:
                continue
            rank = int(m.group(1))
            if isinstance(expected, dict):
                assert rank < 0
                with pytest.raises(ValueError, match="Rank must be non-negative"):
                    ev.precisionAt(rank)
            else:
                assert close(ev.precisionAt(rank), expected, TOL), key

    def test_r_precision_is_precision_at_r(self, case: Any) -> None:
        """rPrecision and prBreakevenPoint are precision at rank R (1.0 when R = 0)."""
        record, _, ev = case
        expected = reference(record).r_precision()
        assert close(ev.rPrecision(), expected, TOL)
        assert close(ev.prBreakevenPoint(), expected, TOL)

    @pytest.mark.parametrize("flag", ["false", "true"])
    def test_print_pr_curve(self, case: Any, flag: str) -> None:
        """printPrecisionRecallCurve writes LingPipe's exact text."""
        _, out, ev = case
        buffer = io.StringIO()
        ev.printPrecisionRecallCurve(ev.prCurve(flag == "true"), buffer)
        assert buffer.getvalue() == out[f"printPrecisionRecallCurve(prCurve({flag}))"]

    def test_print_score_curve(self, case: Any) -> None:
        """printScorePrecisionRecallCurve writes LingPipe's exact text (and no longer crashes)."""
        _, out, ev = case
        buffer = io.StringIO()
        ev.printScorePrecisionRecallCurve(ev.prScoreCurve(False), buffer)
        assert buffer.getvalue() == out["printScorePrecisionRecallCurve(prScoreCurve(false))"]
        assert out["printScorePrecisionRecallCurve(prScoreCurve(true))"] == {
            "exception": "ArrayIndexOutOfBoundsException"
        }
        buffer = io.StringIO()
        ev.printScorePrecisionRecallCurve(ev.prScoreCurve(True), buffer)
        rows = [[0.0, 1.0, float("inf")], *out["prScoreCurve(true)"][1:]]
        expected = "  PRECI.   RECALL    SCORE\n" + "".join(
            f"{java_f6(p)} {java_f6(r)} {java_f6(s)}\n" for r, p, s in rows
        )
        assert buffer.getvalue() == expected

    def test_to_string(self, case: Any) -> None:
        """toString: LingPipe's eight lines byte for byte (BEP fixed), then "Precision at r"
        for r <= n."""
        record, out, ev = case
        text = ev.toString()
        assert text == str(ev)
        lines = text.split("\n")
        lingpipe = out["toString()"].split("\n")
        ref = reference(record)
        bep = (
            "  BEP (Precision-Recall break even point)="
            f"{java_double_to_string(ref.r_precision())}"
        )
        assert lines[:8] == [*lingpipe[:6], bep, lingpipe[7]]
        n = len(record["cases"])
        expected_tail = [
            f"  Precision at {r}={java_double_to_string(ref.precision_at(r))}"
            for r in (5, 10, 25, 100, 500)
            if r <= n
        ]
        assert lines[8:] == expected_tail
