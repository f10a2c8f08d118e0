"""``rankeval trec``: trec_eval's own test suite byte for byte, its flags, and its errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rankeval.ranking import trec_cli

SUITE = Path(__file__).parent / "data" / "trec_eval_tests"

# The commands of the suite's README (trec_eval's Makefile quicktest target).
COMMANDS: dict[str, list[str]] = {
    "out.test": ["qrels.test", "results.test"],
    "out.test.a": ["-m", "all_trec", "qrels.test", "results.test"],
    "out.test.aq": ["-m", "all_trec", "-q", "qrels.test", "results.test"],
    "out.test.aqc": ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"],
    "out.test.aqcM": ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"],
    "out.test.aql": ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                     "results.test"],
}
VERSIONS = {"v9.0.4": [], "v10.0": ["--profile", "trec_eval10"]}


def _argv(args: list[str]) -> list[str]:
    return [str(SUITE / a) if (SUITE / a).is_file() else a for a in args]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = trec_cli.main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("version", list(VERSIONS))
@pytest.mark.parametrize("expected_file", list(COMMANDS))
def test_output_is_byte_identical(
    version: str, expected_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each expected output of trec_eval's test suite is reproduced byte for byte."""
    status, out, err = run_cli(VERSIONS[version] + _argv(COMMANDS[expected_file]), capsys)
    expected = (SUITE / version / expected_file).read_text()
    assert (status, err) == (0, "")
    got_lines, expected_lines = out.splitlines(), expected.splitlines()
    matching = sum(a == b for a, b in zip(got_lines, expected_lines, strict=False))
    assert (matching, len(got_lines)) == (len(expected_lines), len(expected_lines))
    assert out == expected


class TestFlags:
    """trec_eval's getopt_long syntax is accepted in every spelling."""

    def test_separate_and_attached_values_agree(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``-M 100 -l 2 -m relstring.20`` equals ``-M100 -l2 -mrelstring.20``."""
        files = _argv(["qrels.rel_level", "results.test"])
        attached = run_cli(["-M100", "-l2", "-mrelstring.20", "-q", *files], capsys)
        separate = run_cli(["-M", "100", "-l", "2", "-m", "relstring.20", "-q", *files], capsys)
        assert attached == separate
        assert attached[0] == 0
        assert "relstring_20" in attached[1]

    def test_long_options_and_options_after_files(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """``--measure=map --query_eval_wanted`` after the file names behaves like ``-m map -q``."""
        files = _argv(["qrels.test", "results.test"])
        short = run_cli(["-m", "map", "-q", *files], capsys)
        long = run_cli([*files, "--measure=map", "--query_eval_wanted"], capsys)
        assert short == long
        assert short[1].count("\n") == 4  # three queries and 'all'

    def test_combined_short_flags(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``-qc`` is ``-q -c``."""
        files = _argv(["qrels.test", "results.trunc"])
        assert run_cli(["-qc", "-m", "map", *files], capsys) == run_cli(
            ["-q", "-c", "-m", "map", *files], capsys
        )

    def test_first_parameters_of_a_measure_win(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``-m P.5 -m P.10`` prints only P_5, as trec_eval does."""
        _, out, _ = run_cli(["-m", "P.5", "-m", "P.10", *_argv(["qrels.test", "results.test"])],
                            capsys)
        assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["P_5"]

    def test_nosummary_prints_only_queries(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``-n -q`` prints per-query lines and no 'all' line."""
        _, out, _ = run_cli(["-n", "-q", "-m", "map", *_argv(["qrels.test", "results.test"])],
                            capsys)
        assert [line.split("\t")[1] for line in out.splitlines()] == ["301", "302", "303"]

    def test_judged_only_drops_unjudged_documents(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """``-J`` evaluates only judged retrieved documents (fewer retrieved, same judged)."""
        files = _argv(["qrels.test", "results.test"])
        _, plain, _ = run_cli(["-m", "num_ret", "-m", "num_nonrel_judged_ret", *files], capsys)
        _, judged, _ = run_cli(["-J", "-m", "num_ret", "-m", "num_nonrel_judged_ret", *files],
                               capsys)
        values = {line.split("\t")[0].strip(): int(line.split("\t")[2])
                  for line in judged.splitlines()}
        plain_values = {line.split("\t")[0].strip(): int(line.split("\t")[2])
                        for line in plain.splitlines()}
        assert values["num_ret"] < plain_values["num_ret"]
        assert values["num_nonrel_judged_ret"] == plain_values["num_nonrel_judged_ret"]

    def test_run_from_standard_input(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A run file of ``-`` is read from standard input."""
        import io
        import sys

        data = (SUITE / "results.test").read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        via_stdin = run_cli([str(SUITE / "qrels.test"), "-"], capsys)
        assert via_stdin[1] == (SUITE / "v9.0.4" / "out.test").read_text()

    def test_help_and_version_exit_zero(self, capsys: pytest.CaptureFixture[str]) -> None:
        """``-h`` prints the help, ``-v`` the version; both return 0."""
        status, out, _ = run_cli(["-h"], capsys)
        assert status == 0
        assert "usage: rankeval trec" in out
        status, out, _ = run_cli(["--version"], capsys)
        assert status == 0
        assert out.startswith("rankeval trec")


class TestErrors:
    """Bad data exits 1 with ``rankeval: error: FILE:LINE: ...``; bad usage exits 2."""

    def _files(self, tmp_path: Path, run: str) -> list[str]:
        qrels = tmp_path / "qrels"
        qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
        run_file = tmp_path / "run"
        run_file.write_text(run)
        return [str(qrels), str(run_file)]

    @pytest.mark.parametrize(
        ("run", "line", "message"),
        [
            ("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2\n", 2, "expected 6 fields"),
            ("q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 high r\n", 2, "expected a number for the score"),
            ("q1 Q0 d1 1 0.5 r\n\nq1 Q0 d1 2 0.4 r\n", 3, "listed twice"),
            ("q1 Q0 d1 1 nan r\n", 1, "NaN"),
        ],
    )
    def test_bad_run_file(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], run: str, line: int,
        message: str,
    ) -> None:
        """Wrong column count, non-numeric score, duplicate docno: FILE:LINE and status 1."""
        files = self._files(tmp_path, run)
        status, out, err = run_cli(files, capsys)
        assert (status, out) == (1, "")
        assert err.startswith(f"rankeval: error: {files[1]}:{line}: ")
        assert message in err

    def test_bad_qrels_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A qrels line with 5 fields is reported with its line number."""
        qrels = tmp_path / "qrels"
        qrels.write_text("q1 0 d1 1\nq1 0 d2 1 extra\n")
        run = tmp_path / "run"
        run.write_text("q1 Q0 d1 1 0.5 r\n")
        status, _, err = run_cli([str(qrels), str(run)], capsys)
        assert status == 1
        assert err == f"rankeval: error: {qrels}:2: expected 4 fields (query, iteration, " \
            "document, relevance), found 5\n"

    def test_missing_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """An unreadable file is a data error (status 1) naming the file."""
        status, _, err = run_cli([str(tmp_path / "nope"), str(tmp_path / "nope2")], capsys)
        assert status == 1
        assert "nope" in err
        assert err.startswith("rankeval: error: cannot read")

    def test_no_common_query(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A run sharing no query with the qrels is reported, status 1."""
        files = self._files(tmp_path, "q9 Q0 d1 1 0.5 r\n")
        status, _, err = run_cli(files, capsys)
        assert status == 1
        assert "no queries with both results and relevance" in err

    @pytest.mark.parametrize(
        "args",
        [
            ["-m", "nosuchmeasure"],
            ["-m", "P.0"],
            ["-m", "P.5,5"],
            ["-M", "ten"],
            ["--profile", "trec_eval8"],
            ["-x"],
            ["-Z", "zscores"],
            ["-R", "prefs"],
        ],
    )
    def test_usage_errors_exit_2(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
    ) -> None:
        """Unknown measures or flags, bad parameters: usage on stderr, status 2."""
        files = self._files(tmp_path, "q1 Q0 d1 1 0.5 r\n")
        status, out, err = run_cli([*args, *files], capsys)
        assert (status, out) == (2, "")
        assert err.startswith("usage: rankeval trec")
        assert "rankeval: error: " in err

    def test_wrong_number_of_files(self, capsys: pytest.CaptureFixture[str]) -> None:
        """One file instead of two is a usage error."""
        status, _, err = run_cli([str(SUITE / "qrels.test")], capsys)
        assert status == 2
        assert "expected 2 files" in err


def test_the_trec_command_does_not_load_the_scored_half() -> None:
    # `rankeval trec` starts in a fresh process for every run file: the one-ranking evaluator
    # and its decisions, engines and plots are about 3 MB and 40 ms it does not need.
    code = ("import sys\n"
            "from rankeval.ranking import trec_cli, catalogue, evaluate\n"
            "print(sorted(m for m in sys.modules if m.startswith('rankeval.scored')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
