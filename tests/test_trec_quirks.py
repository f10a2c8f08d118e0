"""``rankeval trec`` against the real trec_eval binaries on minimised cases, every profile.

``tests/data/trec_eval_quirks.json`` holds each case's input and what the three trec_eval
builds (9.0.8-2020, 9.0.8, 10.0; built from the sources in ``tests/data/trec_eval_src``)
printed for it, written by ``benchmarks/trec_curated.py``. Where a build printed results, the
profile reproducing it must print the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rankeval.ranking import trec_cli

DATA = Path(__file__).parent / "data"
CASES: list[dict[str, Any]] = json.loads((DATA / "trec_eval_quirks.json").read_text())


# Where the binary fails: 10.0 crashes (SIGSEGV) on a comment line in these files (see
# below), and under -c ranks the missing query, so meets its duplicate judgment.
CRASHES = {("a query id starting with # is a query in 9.x", "10.0"),
           ("a document judged twice for a query the run lacks, counted by -c's num_rel",
            "10.0")}
# Where every binary fails on purpose (exit 4) after printing the -q lines of the queries
# before the one it fails on: rankeval prints the same lines, then fails with one line.
FAILS = {"-q: the queries before a duplicate are printed before trec_eval fails",
         "-q -c: a duplicate judgment stops trec_eval at its query, in id order"}
# Where a binary refuses the input as a whole (exit 7, nothing printed): so must we.
NO_SHARED = "-c with no query in common: 10.0 evaluates the qrels queries, 9.x refuses"
REFUSALS = {(NO_SHARED, "9.0.8-2020"), (NO_SHARED, "9.0.8")}
PROFILES = ("9.0.8-2020", "9.0.8", "10.0")
PAIRS = [(case, profile) for case in CASES for profile in PROFILES
         if (case["name"], profile) not in CRASHES | REFUSALS and case["name"] not in FAILS]
FAILING = [(case, profile) for case in CASES for profile in PROFILES
           if case["name"] in FAILS]


def run_trec(tmp_path: Path, capsys: pytest.CaptureFixture[str], qrels: str, run: str,
             args: list[str]) -> str:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    status = trec_cli.main([*args, str(tmp_path / "qrels"), str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    return out


@pytest.mark.parametrize(("case", "profile"), PAIRS,
                         ids=[f"{c['name']} [{p}]" for c, p in PAIRS])
def test_same_bytes_as_the_binary(case: dict[str, Any], profile: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    expected = case["trec_eval"][profile]
    assert expected["status"] == 0
    out = run_trec(tmp_path, capsys, case["qrels"], case["run"],
                   [*case["args"], "--profile", profile])
    assert out == expected["stdout"]


@pytest.mark.parametrize(("case", "profile"), FAILING,
                         ids=[f"{c['name']} [{p}]" for c, p in FAILING])
def test_the_lines_printed_before_a_failure(case: dict[str, Any], profile: str,
                                            tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    expected = case["trec_eval"][profile]
    assert expected["status"] == 4
    assert expected["stdout"]  # the binary did print some queries first
    (tmp_path / "qrels").write_text(case["qrels"])
    (tmp_path / "run").write_text(case["run"])
    status = trec_cli.main([*case["args"], "--profile", profile, str(tmp_path / "qrels"),
                            str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert status == 1
    assert out == expected["stdout"]
    assert err.startswith("rankeval: error: ")
    assert "twice for query" in err
    assert err.count("\n") == 1


def test_the_crashes_listed_are_crashes() -> None:
    assert len(FAILS) == 2
    for case in CASES:
        for profile, result in case["trec_eval"].items():
            assert (result["status"] != 0) == ((case["name"], profile) in CRASHES | REFUSALS
                                               or case["name"] in FAILS)


@pytest.mark.parametrize("profile", ["9.0.8-2020", "9.0.8"])
def test_9_refuses_c_with_no_query_in_common(profile: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    case = next(c for c in CASES if c["name"] == NO_SHARED)
    assert case["trec_eval"][profile] == {"status": 7, "stdout": ""}
    (tmp_path / "qrels").write_text(case["qrels"])
    (tmp_path / "run").write_text(case["run"])
    status = trec_cli.main([*case["args"], "--profile", profile, str(tmp_path / "qrels"),
                            str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    assert err == ("rankeval: error: " + str(tmp_path / "run")
                   + ": no queries with both results and relevance information\n")


def test_10_with_c_refuses_a_duplicate_judgment_of_a_missing_query(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """trec_eval 10 ranks a query the run lacks under -c, so it meets (and refuses) the
    duplicate judgment that 9.x never sees; so does the 10.0 profile."""
    case = next(c for c in CASES if c["name"].startswith("a document judged twice"))
    (tmp_path / "qrels").write_text(case["qrels"])
    (tmp_path / "run").write_text(case["run"])
    status = trec_cli.main([*case["args"], "--profile", "10.0", str(tmp_path / "qrels"),
                            str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert (status, out) == (1, "")
    assert "qrels:3: document 'b' is judged twice for query 'q2' (first on line 2)" in err


def test_comment_lines_under_10_are_skipped_where_the_binary_crashes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """10.0 means to skip lines starting with #, and crashes on them: the 10.0 profile skips
    them, and answers as for the files without those lines."""
    case = next(c for c in CASES if c["name"].startswith("a query id starting with #"))
    args = [*case["args"], "--profile", "10.0"]
    with_comments = run_trec(tmp_path, capsys, case["qrels"], case["run"], args)

    def strip(text: str) -> str:
        return "".join(line for line in text.splitlines(True) if not line.startswith("#"))

    assert with_comments == run_trec(tmp_path, capsys, strip(case["qrels"]),
                                     strip(case["run"]), args)


def test_the_profiles_really_differ_where_the_releases_do() -> None:
    """The float/double case separates the 2020 tag from the release (map 0.5 vs 1.0)."""
    case = CASES[0]
    outputs = {p: case["trec_eval"][p]["stdout"] for p in ("9.0.8-2020", "9.0.8")}
    assert outputs["9.0.8-2020"] != outputs["9.0.8"]
