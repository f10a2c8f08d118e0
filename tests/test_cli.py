"""Behaviour of the rankeval command line, called through main([...])."""

from __future__ import annotations

import io
import json
import math
import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import rankeval.terminal
from rankeval import cli
from rankeval.cli import main
from rankeval.ranking import trec_files
from tests.conftest import RUNNING_EXAMPLE as RUNNING_EXAMPLE_CASES
from tests.helpers import read_options

ROOT = Path(__file__).resolve().parent.parent
RUNNING_EXAMPLE = ROOT / "rankeval" / "data" / "lingpipe_running_example.tsv"
ORACLE_FILE = ROOT / "tests" / "data" / "lingpipe_oracle_dev.jsonl"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def oracle(record_id: str) -> dict[str, Any]:
    """The LingPipe outputs recorded for one input set."""
    with ORACLE_FILE.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if record["id"] == record_id:
                outputs: dict[str, Any] = record["outputs"]
                return outputs
    raise KeyError(record_id)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """main(argv) with its exit status, stdout and stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def decode(value: Any) -> Any:
    """The oracle's and --json's "NaN"/"Infinity" strings back to floats, recursively."""
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        return {key: decode(item) for key, item in value.items()}
    return value


def close(actual: Any, expected: Any) -> bool:
    """Equal within 1e-12 (the spec's tolerance), NaN equal to NaN, same nesting."""
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(close(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(actual, float) and math.isnan(actual)
    return bool(actual == expected or abs(actual - expected) <= 1e-12)


def png_size(path: str | Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, after checking the signature."""
    data = Path(path).read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


EXPECTED_REPORT = (
    oracle("doc-example")["toString()"] + "\n  Precision at 5=0.6\n  Precision at 10=0.4\n"
)


class TestReport:
    def test_default_output_is_lingpipe_report(self, capsys: pytest.CaptureFixture[str]) -> None:
        """The default output is LingPipe's toString, with Precision at r lines for r <= n."""
        status, out, err = run(capsys, "scored", "--misses", "1", str(RUNNING_EXAMPLE))
        assert (status, out, err) == (0, EXPECTED_REPORT, "")

    def test_standard_input(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """FILE '-' reads standard input; errors name it <stdin>."""
        data = RUNNING_EXAMPLE.read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        assert run(capsys, "scored", "--misses", "1", "-") == (0, EXPECTED_REPORT, "")
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1\t0.5\n1\tnan\n")))
        status, out, err = run(capsys, "scored", "-")
        assert (status, out) == (1, "")
        assert (
            err
            == "rankeval: error: <stdin>:2: expected a score that is a number, found NaN ('nan')\n"
        )

    def test_negative_misses(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--negative-misses adds negatives never returned (oracle set doc-example-negmiss3)."""
        status, out, _ = run(
            capsys, "scored", "--misses", "1", "--negative-misses", "3", str(RUNNING_EXAMPLE)
        )
        expected = oracle("doc-example-negmiss3")["toString()"]
        assert status == 0
        assert out == expected + "\n  Precision at 5=0.6\n  Precision at 10=0.4\n"

    def test_without_misses(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Without --misses the file alone is evaluated (oracle set doc-example-nomiss)."""
        status, out, _ = run(capsys, "scored", str(RUNNING_EXAMPLE))
        expected = oracle("doc-example-nomiss")["toString()"]
        assert (status, out) == (0, expected + "\n  Precision at 5=0.6\n  Precision at 10=0.4\n")

    def test_empty_file(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """An empty file is the empty evaluation: LingPipe's values, no Precision at r lines."""
        status, out, _ = run(capsys, "scored", write(tmp_path, "empty.tsv", ""))
        lines = oracle("empty")["toString()"].split("\n")
        assert (status, out) == (0, "\n".join(lines[:8]) + "\n")

    def test_output_file(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """-o writes the output to a file instead of stdout."""
        target = tmp_path / "report.txt"
        status, out, _ = run(
            capsys, "scored", "--misses", "1", "-o", str(target), str(RUNNING_EXAMPLE)
        )
        assert (status, out) == (0, "")
        assert target.read_text() == EXPECTED_REPORT

    def test_output_file_untouched_on_data_error(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A data error leaves an existing output file as it was and no temporary file."""
        target = tmp_path / "report.json"
        target.write_text("old")
        bad = write(tmp_path, "bad.tsv", "1\t0.5\nmaybe\t0.5\n")
        status, _, err = run(capsys, "scored", "--json", "-o", str(target), bad)
        assert status == 1
        assert (
            err == f"rankeval: error: {bad}:2: expected a label true/false, 1/0 or yes/no, "
            "found 'maybe'\n"
        )
        assert target.read_text() == "old"
        assert sorted(os.listdir(tmp_path)) == ["bad.tsv", "report.json"]


class TestCurves:
    @pytest.mark.parametrize(
        ("options", "key"),
        [
            ((), "printPrecisionRecallCurve(prCurve(false))"),
            (("--interpolate",), "printPrecisionRecallCurve(prCurve(true))"),
        ],
    )
    def test_pr_curve_is_lingpipe_text(
        self, capsys: pytest.CaptureFixture[str], options: tuple[str, ...], key: str
    ) -> None:
        """--curve pr prints exactly what LingPipe's printPrecisionRecallCurve writes."""
        status, out, _ = run(
            capsys, "scored", "--misses", "1", "--curve", "pr", *options, str(RUNNING_EXAMPLE)
        )
        assert (status, out) == (0, oracle("doc-example")[key])

    def test_score_curve_is_lingpipe_text(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--curve score prints exactly what printScorePrecisionRecallCurve writes."""
        status, out, _ = run(
            capsys, "scored", "--misses", "1", "--curve", "score", str(RUNNING_EXAMPLE)
        )
        expected = oracle("doc-example")["printScorePrecisionRecallCurve(prScoreCurve(false))"]
        assert (status, out) == (0, expected)

    def test_interpolated_score_curve_starts_above_every_score(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The interpolated score curve starts at [0, 1, +inf], printed as Infinity."""
        status, out, _ = run(
            capsys,
            "scored",
            "--misses",
            "1",
            "--curve",
            "score",
            "--interpolate",
            str(RUNNING_EXAMPLE),
        )
        # Rows from the oracle's prScoreCurve(true), after rankeval's [0, 1, +inf] first row.
        assert (status, out) == (
            0,
            "  PRECI.   RECALL    SCORE\n"
            "1.000000 0.000000 Infinity\n"
            "0.600000 0.200000 -1.270000\n"
            "0.600000 0.400000 -1.470000\n"
            "0.600000 0.600000 -1.600000\n"
            "0.444444 0.800000 -2.010000\n",
        )

    def test_roc_curve_table(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--curve roc writes F6(1 - specificity), F6(sensitivity) under its own header."""
        status, out, _ = run(
            capsys, "scored", "--misses", "1", "--curve", "roc", str(RUNNING_EXAMPLE)
        )
        # The oracle's rocCurve(false), formatted by hand with %8.6f.
        assert (status, out) == (
            0,
            " 1-SPEC.    SENS.\n"
            "0.000000 0.000000\n"
            "0.166667 0.000000\n"
            "0.166667 0.200000\n"
            "0.333333 0.200000\n"
            "0.333333 0.400000\n"
            "0.333333 0.600000\n"
            "0.500000 0.600000\n"
            "0.666667 0.600000\n"
            "0.833333 0.600000\n"
            "0.833333 0.800000\n"
            "1.000000 0.800000\n"
            "1.000000 1.000000\n",
        )

    def test_interpolated_roc_curve_table(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--curve roc --interpolate prints the oracle's rocCurve(true) points."""
        status, out, _ = run(
            capsys,
            "scored",
            "--misses",
            "1",
            "--curve",
            "roc",
            "--interpolate",
            str(RUNNING_EXAMPLE),
        )
        assert status == 0
        rows = [[float(v) for v in line.split()] for line in out.splitlines()[1:]]
        assert close(
            rows, [[round(x, 6), round(y, 6)] for x, y in oracle("doc-example")["rocCurve(true)"]]
        )


class TestJson:
    def test_every_value_matches_the_oracle(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--json holds every derived value; each is LingPipe's or rankeval's documented one."""
        status, out, _ = run(capsys, "scored", "--misses", "1", "--ties", "insertion", "--json",
                             str(RUNNING_EXAMPLE))
        assert status == 0
        got = decode(json.loads(out))
        want = decode(oracle("doc-example"))
        assert got["input"] == str(RUNNING_EXAMPLE)
        assert (got["ties"], got["misses"], got["negative_misses"]) == ("insertion", 1, 0)
        assert (got["num_cases"], got["num_positive_ref"], got["num_negative_ref"]) == (11, 5, 6)
        pairs = {
            "average_precision": "averagePrecision()",
            "maximum_f_measure": "maximumFMeasure()",
            "reciprocal_rank": "reciprocalRank()",
            "eleven_point_interpolated_precision": "elevenPtInterpPrecision()",
        }
        for ours, theirs in pairs.items():
            assert close(got[ours], want[theirs]), ours
        for flag, interpolated in (("false", "uninterpolated"), ("true", "interpolated")):
            assert close(
                got["area_under_pr_curve"][interpolated], want[f"areaUnderPrCurve({flag})"]
            )
            assert close(
                got["area_under_roc_curve"][interpolated], want[f"areaUnderRocCurve({flag})"]
            )
            assert close(got["pr_curve"][interpolated], want[f"prCurve({flag})"])
            assert close(got["roc_curve"][interpolated], want[f"rocCurve({flag})"])
        assert close(got["pr_score_curve"]["uninterpolated"], want["prScoreCurve(false)"])
        assert close(
            got["pr_score_curve"]["interpolated"],
            [[0.0, 1.0, math.inf], *want["prScoreCurve(true)"][1:]],
        )
        assert got["pr_curve"]["columns"] == ["recall", "precision"]
        assert got["roc_curve"]["columns"] == ["1-specificity", "sensitivity"]
        assert got["pr_score_curve"]["columns"] == ["recall", "precision", "score"]
        # R-precision is precision at rank R = 5 of the 10 returned cases is 3/5.
        assert got["r_precision"] == got["pr_breakeven_point"] == 0.6
        assert got["precision_at"] == {
            "5": want["precisionAt(5)"],
            "10": want["precisionAt(10)"],
            "25": 4 / 25,  # all 4 returned positives, over 25
            "100": want["precisionAt(100)"],
            "500": 4 / 500,
        }

    def test_non_finite_values_are_strings(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """With no positives AP is NaN; the output stays strict JSON with "NaN" strings."""
        path = write(tmp_path, "neg.csv", "label,score\n0,1\n0,2\n")
        status, out, _ = run(capsys, "scored", "--json", path)
        assert status == 0
        document = json.loads(out, parse_constant=lambda name: pytest.fail(f"bare {name}"))
        assert document["average_precision"] == "NaN"
        assert document["pr_curve"]["uninterpolated"][1] == ["NaN", 0.0]

    def test_ties_policy(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A tied positive/negative pair: ROC area 1 in insertion order, 1/2 grouped."""
        path = write(tmp_path, "tie.tsv", "1\t0.5\n0\t0.5\n")
        areas = {}
        for ties in ("insertion", "grouped"):
            status, out, _ = run(capsys, "scored", "--json", "--ties", ties, path)
            assert status == 0
            document = json.loads(out)
            assert document["ties"] == ties
            areas[ties] = document["area_under_roc_curve"]["uninterpolated"]
        assert areas == {"insertion": 1.0, "grouped": 0.5}

    def test_small_chunks_give_the_same_result(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Feeding the evaluator in many small batches changes nothing (tie order included)."""
        status, whole, _ = run(
            capsys, "scored", "--json", str(ROOT / "rankeval/data/spam_filter_20k.tsv")
        )
        monkeypatch.setattr(cli, "CHUNK_ROWS", 7)
        status2, chunked, _ = run(
            capsys, "scored", "--json", str(ROOT / "rankeval/data/spam_filter_20k.tsv")
        )
        assert status == status2 == 0
        assert chunked == whole


QUERY_FILE = (
    "query\tlabel\tscore\n"
    + "".join(
        f"q1\t{str(label).lower()}\t{score}\n"
        for label, score in RUNNING_EXAMPLE_CASES
    )
    + "q2\t1\t0.9\nq3\t0\t0.3\nq2\t0\t0.8\nq2\t1\t0.1\n"
)


class TestQueries:
    def test_per_query_lines_and_means(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """One line per query; q3 has no positive, so it scores 0 and counts (trec_eval's rule)."""
        status, out, _ = run(capsys, "scored", write(tmp_path, "q.tsv", QUERY_FILE))
        q1 = oracle("doc-example-nomiss")
        # q1: the running example without its miss; R-precision = 2 of the top 4.
        # q2: ranking +, -, +: AP = (1/1 + 2/3) / 2, RR = 1, R-precision = 1/2, ROC area 1/2.
        q2_ap = (1 / 1 + 2 / 3) / 2
        map_ = (q1["averagePrecision()"] + q2_ap + 0.0) / 3
        mean_auc = (q1["areaUnderRocCurve(false)"] + 0.5) / 2
        assert status == 0
        assert out == (
            "query\tcases\tpositives\taverage precision\treciprocal rank\tR-precision\tROC area\n"
            f"q1\t10\t4\t{q1['averagePrecision()']}\t0.5\t0.5\t{q1['areaUnderRocCurve(false)']}\n"
            f"q2\t3\t2\t{q2_ap!r}\t1.0\t0.5\t0.5\n"
            "q3\t1\t0\tNaN\t0.0\t1.0\tNaN\n"
            "\n"
            "  Queries=3\n"
            "  Queries without positives (scored 0)=1\n"
            f"  Mean Average Precision={map_!r} (over 3 queries)\n"
            "  Mean Reciprocal Rank=0.5 (over 3 queries)\n"
            f"  Mean R-Precision={(0.5 + 0.5 + 0.0) / 3!r} (over 3 queries)\n"
            f"  Mean Area Under ROC Curve (uninterpolated)={mean_auc!r}"
            " (over 2 queries)\n"
        )

    def test_skip_leaves_queries_without_positives_out(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """--no-relevant skip: the means cover only the queries that have positives."""
        path = write(tmp_path, "q.tsv", QUERY_FILE)
        status, out, _ = run(capsys, "scored", "--no-relevant", "skip", path)
        q1 = oracle("doc-example-nomiss")
        map_ = (q1["averagePrecision()"] + (1 / 1 + 2 / 3) / 2) / 2
        assert status == 0
        assert "  Queries without positives (left out)=1\n" in out
        assert f"  Mean Average Precision={map_!r} (over 2 queries)\n" in out
        assert "  Mean Reciprocal Rank=0.75 (over 2 queries)\n" in out
        assert "  Mean R-Precision=0.5 (over 2 queries)\n" in out

    def test_one_mean_for_every_path(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Query a: -, +; query b: - only. MAP is (1/2 + 0) / 2 from all three entry points."""
        from rankeval import evaluate_run

        cases = write(tmp_path, "q.tsv", "a\t0\t2\na\t1\t1\nb\t0\t1\n")
        qrels = write(tmp_path, "qrels", "a 0 a1 0\na 0 a2 1\nb 0 b1 0\n")
        trec_run = write(tmp_path, "run", "a Q0 a1 1 2 r\na Q0 a2 2 1 r\nb Q0 b1 1 1 r\n")
        assert evaluate_run(qrels, trec_run, "map")["map"] == 0.25
        status, out, _ = run(capsys, "trec", "-m", "map", qrels, trec_run)
        assert (status, out) == (0, "map                   \tall\t0.2500\n")
        status, out, _ = run(capsys, "scored", cases)
        assert status == 0
        assert "  Mean Average Precision=0.25 (over 2 queries)\n" in out
        for argv in (("trec", "--no-relevant", "skip", "-m", "map", qrels, trec_run),):
            status, out, _ = run(capsys, *argv)
            assert (status, out) == (0, "map                   \tall\t0.5000\n")
        assert evaluate_run(qrels, trec_run, "map", no_relevant="skip")["map"] == 0.5
        status, out, _ = run(capsys, "scored", "--no-relevant", "skip", cases)
        assert "  Mean Average Precision=0.5 (over 1 query)\n" in out

    def test_query_json(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """--json gives every value per query plus the summary with its query counts."""
        status, out, _ = run(capsys, "scored", "--json", write(tmp_path, "q.tsv", QUERY_FILE))
        assert status == 0
        document = json.loads(out)
        assert [q["query"] for q in document["queries"]] == ["q1", "q2", "q3"]
        assert document["queries"][1]["average_precision"] == pytest.approx(5 / 6, abs=1e-12)
        assert document["queries"][2]["average_precision"] == "NaN"
        assert document["summary"]["num_queries"] == 3
        assert document["summary"]["num_queries_without_positives"] == 1
        assert document["summary"]["no_relevant"] == "zero"
        assert document["summary"]["mean_reciprocal_rank"] == {"value": 0.5, "num_queries": 3}

    def test_roc_mean_leaves_out_queries_without_negatives(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """A query with only positives has no ROC area; the ROC mean covers the others."""
        path = write(tmp_path, "q.csv", "a,1,2\na,0,1\nb,1,5\n")
        status, out, _ = run(capsys, "scored", path)
        assert status == 0
        assert "  Mean Area Under ROC Curve (uninterpolated)=1.0 (over 1 query)\n" in out
        assert "  Mean Average Precision=1.0 (over 2 queries)\n" in out  # both have positives

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            (("--misses", "1"), "--misses and --negative-misses apply to a single ranking"),
            (
                ("--negative-misses", "0"),
                "--misses and --negative-misses apply to a single ranking",
            ),
            (("--curve", "pr"), "--curve draws a single ranking"),
            (("--plot", "x.png"), "--plot draws a single ranking"),
        ],
    )
    def test_single_ranking_options_are_usage_errors(
        self,
        capsys: pytest.CaptureFixture[str],
        tmp_path: Path,
        options: tuple[str, ...],
        message: str,
    ) -> None:
        """Options that need one ranking are refused for a file with a query column."""
        path = write(tmp_path, "q.tsv", QUERY_FILE)
        status, out, err = run(capsys, "scored", *options, path)
        assert (status, out) == (2, "")
        assert err == f"rankeval: error: {message}, but {path} has a query column\n"
        assert not (tmp_path / "x.png").exists()


class TestDataErrors:
    @pytest.mark.parametrize(
        ("text", "message"),
        [
            (
                "label\tscore\n1\t0.5\nmaybe\t0.5\n",
                "3: expected a label true/false, 1/0 or yes/no, found 'maybe'",
            ),
            ("1\t0.5\n0\tabc\n", "2: expected a number for the score, found 'abc'"),
            ("1\t0.5\n0\tNaN\n", "2: expected a score that is a number, found NaN ('NaN')"),
            (
                "1\t0.5\n0\t0.5\t7\n",
                "2: expected 2 tab-separated fields (label, score), found 3: '0\\t0.5\\t7'",
            ),
            (
                "1 0.5\n",
                "1: expected fields separated by a tab or a comma, or a JSON object or array, "
                "found '1 0.5'",
            ),
        ],
    )
    def test_malformed_line(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
    ) -> None:
        """A malformed line stops with FILE:LINE: expected ..., found ... and status 1."""
        path = write(tmp_path, "bad.tsv", text)
        assert run(capsys, "scored", path) == (1, "", f"rankeval: error: {path}:{message}\n")

    def test_missing_file(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """An unreadable input file is a data error, status 1."""
        path = str(tmp_path / "nope.tsv")
        status, out, err = run(capsys, "scored", path)
        assert (status, out) == (1, "")
        assert err == f"rankeval: error: {path}: cannot read the file: No such file or directory\n"

    def test_unwritable_plot(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """A plot that cannot be written is an error, status 1, naming the file, found up front."""
        target = str(tmp_path / "missing-dir" / "plot.png")
        status, out, err = run(capsys, "scored", "--plot", target, str(RUNNING_EXAMPLE))
        assert (status, out) == (1, "")  # refused before the report is printed
        assert (
            err == f"rankeval: error: {target}: cannot write: no directory "
            f"{str(tmp_path / 'missing-dir')!r}\n"
        )


class TestUsageErrors:
    @pytest.mark.parametrize(
        ("argv", "message"),
        [
            (
                ["scored", "--interpolate", "f"],
                "--interpolate applies to --curve; give --curve pr, roc or score",
            ),
            (
                ["scored", "--misses", "-1", "f"],
                "argument --misses: expected a non-negative integer, found '-1'",
            ),
            (
                ["scored", "--negative-misses", "x", "f"],
                "argument --negative-misses: expected a non-negative integer, found 'x'",
            ),
            (
                ["scored", "--json", "--curve", "pr", "f"],
                "argument --curve: not allowed with argument --json",
            ),
            (
                ["scored", "--ties", "random", "f"],
                "argument --ties: invalid choice: 'random' (choose from ",
            ),
            (
                ["scored", "--curve", "det", "f"],
                "argument --curve: invalid choice: 'det' (choose from ",
            ),
            (
                ["scored", "--plot", "out.jpg", "f"],
                "--plot: expected a file name ending in .png or .svg, found 'out.jpg'",
            ),
            (["scored"], "the following arguments are required: FILE"),
            (["scored", "--bogus", "f"], "unrecognized arguments: --bogus"),
            ([], "expected a command: scored, demo, trec, compare or data"),
            (["frobnicate"], "argument COMMAND: invalid choice: 'frobnicate' (choose from "),
        ],
    )
    def test_usage_error(
        self, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
    ) -> None:
        """A bad command line exits 2 with rankeval: error: on stderr and nothing on stdout."""
        status, out, err = run(capsys, *argv)
        assert (status, out) == (2, "")
        # argparse's quoting of the choices differs between Python versions: match the start.
        assert f"\nrankeval: error: {message}" in "\n" + err
        assert err.endswith("\n")
        assert err.count("rankeval: error:") == 1

    def test_help_and_version(self, capsys: pytest.CaptureFixture[str]) -> None:
        """--help and --version print and exit 0."""
        status, out, _ = run(capsys, "scored", "--help")
        assert status == 0
        assert "--negative-misses N" in out
        import importlib.metadata

        import rankeval

        # One version source: the package's __version__, which the build reads.
        assert importlib.metadata.version("rankeval-exact") == rankeval.__version__
        assert run(capsys, "--version") == (0, f"rankeval {rankeval.__version__}\n", "")


class TestTrecDispatch:
    def test_arguments_pass_through_unchanged(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """rankeval trec ARGS hands ARGS, options included, to rankeval.ranking.trec_cli.main."""
        seen: list[list[str]] = []

        def fake_main(argv: list[str]) -> int:
            seen.append(argv)
            return 3

        module = types.ModuleType("rankeval.ranking.trec_cli")
        module.main = fake_main  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "rankeval.ranking.trec_cli", module)
        argv = ["-q", "-m", "all_trec", "--help", "qrels", "run"]
        assert main(["trec", *argv]) == 3
        assert seen == [argv]

    def test_missing_trec_module(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Without rankeval.ranking.trec_cli, rankeval trec says so and exits 1."""
        monkeypatch.setitem(sys.modules, "rankeval.ranking.trec_cli", None)
        status, _, err = run(capsys, "trec", "qrels", "run")
        assert status == 1
        assert err == (
            "rankeval: error: the trec subcommand is not available in this installation "
            "(module rankeval.ranking.trec_cli is missing)\n"
        )


class TestPlotOption:
    def test_png(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """--plot FILE.png writes a 1200 x 600 PNG besides the usual report."""
        target = tmp_path / "curves.png"
        status, out, _ = run(
            capsys, "scored", "--misses", "1", "--plot", str(target), str(RUNNING_EXAMPLE)
        )
        assert (status, out) == (0, EXPECTED_REPORT)
        assert png_size(target) == (1200, 600)
        assert os.listdir(tmp_path) == ["curves.png"]

    def test_svg(self, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
        """--plot FILE.svg writes an SVG document."""
        target = tmp_path / "curves.SVG"
        status, _, _ = run(capsys, "scored", "--plot", str(target), str(RUNNING_EXAMPLE))
        assert status == 0
        text = target.read_text()
        assert text.startswith("<?xml")
        assert "<svg" in text

    def test_missing_matplotlib(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        """Without matplotlib, --plot fails before reading, with the install command; status 1."""
        monkeypatch.setitem(sys.modules, "matplotlib", None)
        target = tmp_path / "curves.png"
        status, out, err = run(capsys, "scored", "--plot", str(target), str(RUNNING_EXAMPLE))
        assert (status, out) == (1, "")
        assert (
            err
            == "rankeval: error: rankeval.plotting needs matplotlib: pip install "
            "'rankeval-exact[plot]'\n"
        )
        assert not target.exists()


class _Terminal(io.StringIO):
    """A stand-in for a terminal's standard error."""

    def isatty(self) -> bool:
        return True


class TestProgress:
    def test_progress_on_a_terminal(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """On a terminal, a long read shows tqdm's bar (bytes, percentage), then clears it."""
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        monkeypatch.setattr(rankeval.terminal, "PROGRESS_DELAY", 0.0)
        monkeypatch.setattr(rankeval.terminal, "PROGRESS_INTERVAL", 0.0)
        monkeypatch.setattr(cli, "CHUNK_ROWS", 1000)
        path = str(ROOT / "rankeval/data/spam_filter_20k.tsv")
        assert main(["scored", path]) == 0
        shown = terminal.getvalue()
        assert f"rankeval: reading {path}:" in shown
        assert re.search(r"[1-9]\d%\|[#\d ]+\| [\d.]+k/180k", shown)  # bytes and percentage
        assert shown.split("\r")[-1].strip() == ""  # the bar is cleared at the end

    def test_trec_progress_on_a_terminal(self, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
        """rankeval trec shows the bytes of both files parsed, then clears the bar."""
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        monkeypatch.setattr(rankeval.terminal, "PROGRESS_DELAY", 0.0)
        monkeypatch.setattr(rankeval.terminal, "PROGRESS_INTERVAL", 0.0)
        monkeypatch.setattr(trec_files, "_CHUNK_BYTES", 1 << 12)
        data = ROOT / "tests/data/trec_eval_tests"
        qrels, results = data / "qrels.test", data / "results.test"
        total = qrels.stat().st_size + results.stat().st_size
        assert main(["trec", str(qrels), str(results)]) == 0
        shown = terminal.getvalue()
        assert "rankeval: reading:" in shown
        assert f"/{total / 1000:.0f}k" in shown or f"/{total / 1000:.1f}k" in shown
        assert re.search(r"100%\|#+\|", shown)
        assert shown.split("\r")[-1].strip() == ""
        assert "runid" in capsys.readouterr().out

    def test_no_progress_when_piped(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """When stderr is not a terminal nothing is shown, however long the read."""
        monkeypatch.setattr(rankeval.terminal, "PROGRESS_DELAY", 0.0)
        monkeypatch.setattr(cli, "CHUNK_ROWS", 1000)
        status, _, err = run(capsys, "scored", str(ROOT / "rankeval/data/spam_filter_20k.tsv"))
        assert (status, err) == (0, "")

    def test_no_progress_for_short_reads(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A read shorter than the delay shows nothing, even on a terminal."""
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        assert main(["scored", str(RUNNING_EXAMPLE)]) == 0
        assert terminal.getvalue() == ""


class TestDemo:
    def test_demo_prints_reports_and_writes_plots(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """rankeval demo prints the running example's exact report and writes two PNGs."""
        out_dir = tmp_path / "demo"
        status, out, err = run(capsys, "demo", "--output-dir", str(out_dir))
        assert (status, err) == (0, "")
        assert EXPECTED_REPORT in out
        assert oracle("doc-example")["printPrecisionRecallCurve(prCurve(false))"] in out
        assert "A spam filter's scores for 20,000 held-out messages" in out
        for name in ("lingpipe_running_example.png", "spam_filter_20k.png"):
            assert png_size(out_dir / name) == (1200, 600)
            assert f"wrote {out_dir / name}\n" in out

    def test_each_command_the_demo_prints_gives_its_report(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path
    ) -> None:
        """Fixed: the demo read the spam filter (tied scores) in insertion order while the
        command it printed reads them with the default policy: each printed command now
        gives the report printed under it."""
        import shlex

        status, out, _ = run(capsys, "demo", "--output-dir", str(tmp_path / "demo"))
        assert status == 0
        commands = [line[2:] for line in out.splitlines() if line.startswith("$ rankeval scored")]
        assert len(commands) == 3
        for command in commands:
            status, report, _ = run(capsys, *shlex.split(command)[1:])
            assert status == 0
            assert f"$ {command}\n{report}" in out, command

    def test_demo_without_matplotlib_prints_the_values_and_succeeds(
        self, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """On the plain install (no matplotlib) the demo's values are printed, one line says
        how to get the plots, and it exits 0 without creating the output directory."""
        import importlib.util

        real = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec",
                            lambda name, *a: None if name == "matplotlib" else real(name, *a))
        out_dir = tmp_path / "demo"
        status, out, err = run(capsys, "demo", "--output-dir", str(out_dir))
        assert (status, err) == (0, "")
        assert EXPECTED_REPORT in out
        assert out.endswith("no plots: matplotlib is not installed (pip install "
                            "'rankeval-exact[plot]' draws them)\n")
        assert not out_dir.exists()


class TestEntryPoints:
    def test_python_dash_m(self) -> None:
        """python -m rankeval runs the same command line and returns its status."""
        result = subprocess.run(
            [sys.executable, "-m", "rankeval", "scored", "--misses", "1", str(RUNNING_EXAMPLE)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert (result.returncode, result.stdout, result.stderr) == (0, EXPECTED_REPORT, "")

    def test_broken_pipe_is_not_an_error(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A reader that goes away (| head) ends the command quietly with status 0."""

        class ClosedPipe(io.StringIO):
            def write(self, text: str) -> int:
                raise BrokenPipeError

        monkeypatch.setattr(sys, "stdout", ClosedPipe())
        assert main(["scored", "--curve", "pr", str(RUNNING_EXAMPLE)]) == 0


# ----------------------------------------------------------- named columns and intervals

NAMED = "id,is_spam,p_spam\n1,1,0.9\n2,0,0.8\n3,1,0.7\n4,0,0.4\n5,1,0.3\n"


def test_named_columns_read_a_header_the_reader_does_not_know(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "named.csv", NAMED)
    status, out, _ = run(capsys, "scored", path, "--label-column", "is_spam",
                         "--score-column", "p_spam", "--json")
    assert status == 0
    document = json.loads(out)
    # Five cases: positives at ranks 1, 3, 5: AP (1 + 2/3 + 3/5) / 3, by hand.
    assert (document["num_positive_ref"], document["num_negative_ref"]) == (3, 2)
    assert document["average_precision"] == pytest.approx((1 + 2 / 3 + 3 / 5) / 3, abs=1e-15)
    jsonl = write(tmp_path, "named.jsonl",
                  "".join(json.dumps({"who": q, "y": y, "s": s}) + "\n"
                          for q, y, s in (("a", 1, 0.5), ("a", 0, 0.2), ("b", 0, 0.9),
                                          ("b", 1, 0.4))))
    status, out, _ = run(capsys, "scored", jsonl, "--label-column", "y", "--score-column", "s",
                         "--query-column", "who", "--json")
    assert status == 0
    assert [q["query"] for q in json.loads(out)["queries"]] == ["a", "b"]


@pytest.mark.parametrize(("options", "message"), [
    (("--label-column", "spam", "--score-column", "p_spam"),
     "expected a label column named 'spam'"),
    (("--label-column", "is_spam", "--score-column", "is_spam"), "different columns"),
])
def test_a_named_column_missing_or_named_twice_is_a_data_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...],
        message: str) -> None:
    path = write(tmp_path, "named.csv", NAMED)
    status, out, err = run(capsys, "scored", path, *options)
    assert (status, out) == (1, "")
    assert err.startswith(f"rankeval: error: {path}:1: ")
    assert message in err
    assert err.count("\n") == 1


def test_intervals_by_hand_and_by_scipy(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from scipy.stats import beta

    path = write(tmp_path, "named.csv", NAMED)
    status, out, _ = run(capsys, "scored", path, "--label-column", "is_spam", "--score-column",
                         "p_spam", "--interval", "roc_auc", "--interval", "precision_at.2:beta",
                         "--json")
    assert status == 0
    roc, top = json.loads(out)["intervals"]
    # DeLong by hand: positives' placements 1, 1/2, 0 and negatives' 1/3, 2/3: area 1/2,
    # variance 1/9 (the variances of the placements over R and over N).
    assert (roc["measure"], roc["value"], roc["method"]) == ("roc_auc", 0.5, "delong")
    assert roc["std_error"] == pytest.approx(1 / 3, abs=1e-12)
    # Clopper-Pearson of 1 hit in the top 2.
    assert top["measure"] == "precision_at.2"
    assert (top["low"], top["high"]) == pytest.approx(
        (beta.ppf(0.025, 1, 2), beta.ppf(0.975, 2, 1)), abs=1e-12)
    status, text, _ = run(capsys, "scored", path, "--label-column", "is_spam",
                          "--score-column", "p_spam", "--interval", "precision_at.2:beta")
    assert text.splitlines()[-1].startswith("precision_at.2 = 0.5, 95% interval [")


def _every_interval_spec() -> list[tuple[str, dict[str, Any]]]:
    """Every measure and method the evaluator's interval takes, as --interval spells it."""
    from rankeval.scored.uncertainty import INTERVAL_METHODS

    out = []
    for measure, methods in INTERVAL_METHODS.items():
        parameter, extra = {"precision_at": (".3", {"k": 3}),
                            "precision": (".0.75", {"threshold": 0.75}),
                            "recall": (".0.5", {"threshold": 0.5})}.get(measure, ("", {}))
        options = read_options(measure)  # a decision read's bound or range, from the registry
        if options:
            (value,) = options.values()
            parameter = "." + (",".join(map(str, value)) if isinstance(value, tuple)
                               else str(value))
            extra = options
        out.append((measure + parameter, {"measure": measure, "method": None, **extra}))
        out.extend((f"{measure}{parameter}:{method}",
                    {"measure": measure, "method": method, **extra}) for method in methods)
    return out


@pytest.mark.parametrize(("spec", "call"), _every_interval_spec(),
                         ids=[spec for spec, _ in _every_interval_spec()])
def test_every_interval_option_is_the_evaluators(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str,
        call: dict[str, Any]) -> None:
    from rankeval import ScoredPrecisionRecallEvaluation

    path = write(tmp_path, "named.csv", NAMED)
    status, out, _ = run(capsys, "scored", path, "--label-column", "is_spam", "--score-column",
                         "p_spam", "--misses", "1", "--interval", spec, "--level", "0.9",
                         "--resamples", "50", "--seed", "4", "--json")
    assert status == 0
    ev = ScoredPrecisionRecallEvaluation(ties="insertion")
    ev.add_cases([True, False, True, False, True], [0.9, 0.8, 0.7, 0.4, 0.3])
    ev.add_misses(1)
    want = ev.interval(level=0.9, resamples=50, seed=4, **call)
    (got,) = decode(json.loads(out)["intervals"])
    assert got["measure"] == spec.partition(":")[0]
    assert close([got["value"], got["low"], got["high"], got["std_error"]],
                 [want.value, want.low, want.high, want.std_error])
    assert (got["level"], got["method"]) == (0.9, want.method)


@pytest.mark.parametrize(("options", "message"), [
    (("--interval", "auc"), "expected one of roc_auc"),
    (("--interval", "roc_auc:wilson"), "roc_auc takes the methods delong, bootstrap"),
    (("--interval", "precision_at"), "precision_at needs a rank"),
    (("--interval", "precision_at.0"), "precision_at needs a rank"),
    (("--interval", "precision.x"), "precision needs a threshold"),
    (("--interval", "recall.nan"), "recall needs a finite threshold"),
    (("--interval", "roc_auc.3"), "roc_auc takes no parameter"),
    (("--interval", "sensitivity_at"), "sensitivity_at needs its specificity after a dot"),
    (("--interval", "partial_roc_auc.0,x"), "partial_roc_auc needs its fpr"),
    (("--level", "1"), "a confidence level between 0 and 1"),
    (("--resamples", "1"), "between 2 and"),
    (("--interval", "roc_auc", "--curve", "pr"), "not to --curve"),
])
def test_bad_interval_options_are_usage_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...],
        message: str) -> None:
    path = write(tmp_path, "named.csv", NAMED)
    status, _, err = run(capsys, "scored", path, "--label-column", "is_spam", "--score-column",
                         "p_spam", *options)
    assert status == 2
    assert message in err


def test_an_interval_on_a_file_of_queries_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "q.tsv", "q1\t1\t0.5\nq1\t0\t0.2\n")
    status, _, err = run(capsys, "scored", path, "--interval", "roc_auc")
    assert status == 2
    assert "--interval reads a single ranking" in err


# ---------------------------------------------------------------------------------------------
# decisions on the command line: --threshold, --best, --partial-auc

CASES = "1\t0.9\n0\t0.8\n1\t0.7\n0\t0.4\n1\t0.3\n"  # R = 3, N = 2


def test_decisions_in_the_json_are_the_evaluators(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from rankeval import ScoredPrecisionRecallEvaluation
    from rankeval.scored.decisions import RULES

    path = write(tmp_path, "cases.tsv", CASES)
    best = [arg for rule in RULES for arg in ("--best", rule)]  # every rule the library has
    status, out, _ = run(capsys, "scored", path, "--misses", "1", "--json", "--threshold",
                         "0.5", "--threshold", "0.75", *best, "--costs", "1,5",
                         "--partial-auc", "0,0.5", "--partial-auc", "0.25,1")
    assert status == 0
    got = json.loads(out)["decisions"]
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True, False, True], [0.9, 0.8, 0.7, 0.4, 0.3])
    ev.add_misses(1)
    for row, threshold in zip(got["thresholds"], (0.5, 0.75), strict=True):
        c = ev.confusion_at(threshold)
        assert (row["tp"], row["fp"], row["tn"], row["fn"]) == (
            c.true_positive, c.false_positive, c.true_negative, c.false_negative)
        assert row["precision"] == c.precision()
        assert row["recall"] == c.recall()
    for row, rule in zip(got["best"], RULES, strict=True):
        point = ev.best_threshold(rule, **({"costs": (1.0, 5.0)} if rule == "cost" else {}))
        assert (row["rule"], row["threshold"], row["tp"], row["fp"], row["value"]) == (
            rule, point.threshold, point.tp, point.fp, point.value)
    # by hand: the ROC points (0,0) (0,1/4) (1/2,1/4) (1/2,1/2) (1,1/2) (1,1) with one miss
    assert got["partial_roc_auc"][0]["area"] == pytest.approx(0.125)
    assert got["partial_roc_auc"][1]["fpr"] == [0.25, 1.0]
    assert got["partial_roc_auc"][1]["normalized"] == ev.partial_roc_auc(
        fpr=(0.25, 1.0), standardize="normalized")


def test_decisions_in_the_text_report(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "cases.tsv", CASES)
    status, out, _ = run(capsys, "scored", path, "--threshold", "0.5", "--best", "youden",
                         "--partial-auc", "0,0.5")
    assert status == 0
    lines = out.splitlines()[-3:]
    # by hand: at 0.5 the top three; Youden's J is 1/3 at 0.9; the area to FPR 1/2 is 1/6
    assert lines[0] == ("threshold 0.5: tp=2 fp=1 tn=1 fn=1, precision 0.6666666666666666, "
                        "recall 0.6666666666666666, specificity 0.5")
    assert lines[1].startswith("best threshold by youden: 0.9 (tp=1 fp=0 tn=2 fn=2), youden "
                               "0.3333333333333333")
    assert lines[2].startswith("partial ROC area over FPR 0.0 to 0.5: 0.16666666666666666")


@pytest.mark.parametrize(("options", "message"), [
    (("--best", "cost"), "--best cost needs --costs"),
    (("--costs", "1,2"), "--costs applies to --best cost"),
    (("--threshold", "0.5", "--curve", "roc"), "--threshold adds to the report"),
    (("--partial-auc", "0.5,0.1"), "expected 0 <= A < B <= 1"),
    (("--partial-auc", "0.1"), "expected A,B"),
    (("--threshold", "nan"), "expected a finite number"),
    (("--best", "youdens"), "invalid choice"),
])
def test_decision_options_refused_with_usage_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...],
        message: str) -> None:
    path = write(tmp_path, "cases.tsv", CASES)
    status, out, err = run(capsys, "scored", path, *options)
    assert (status, out) == (2, "")
    assert message in err


def test_decision_options_refuse_a_query_column(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "q.tsv", "query\tlabel\tscore\nq1\t1\t0.9\nq1\t0\t0.2\n")
    status, _, err = run(capsys, "scored", path, "--best", "youden")
    assert status == 2
    assert "--best reads a single ranking" in err
