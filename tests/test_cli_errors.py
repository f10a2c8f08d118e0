"""Every bad input the command line was seen to choke on: one error line, the right status.

Each case is a file (or none) and a command line; the expected result is
the exit status and a phrase of the one ``rankeval: error: ...`` line.
Usage errors (status 2) may print the usage first, as argparse and
trec_eval do; nothing else reaches standard error, and never a traceback.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval.cli import main

REPO = Path(__file__).resolve().parent.parent

# name -> (file contents or None, arguments with {file} and {tmp}, status, phrase)
CASES: dict[str, tuple[bytes | None, list[str], int, str]] = {
    "bare CR line ends": (
        b"label\tscore\r1\t0.5\r", ["scored", "{file}"], 1,
        ":1: expected a well-formed TSV row, found a carriage return",
    ),
    "bare CR on a later line": (
        b"1\t0.5\n0\t0.3\r1\t0.2\n", ["scored", "{file}"], 1,
        ":2: expected a well-formed TSV row, found a carriage return",
    ),
    "a field over 128 KiB on the first line": (
        b"1\t0.5" + b" " * (200 * 1024) + b"\n", ["scored", "{file}"], 1,
        ":1: expected a well-formed TSV row, found field larger than field limit",
    ),
    "a field over 128 KiB later": (
        b"1\t0.5\n1\t" + b"7" * (200 * 1024) + b"\n", ["scored", "{file}"], 1,
        ":2: expected a well-formed TSV row, found field larger",
    ),
    "a 5,000-digit integer label in JSON": (
        b'{"score": 0.5, "label": ' + b"1" * 5000 + b"}\n", ["scored", "{file}"], 1,
        ":1: expected a JSON object or array of usable values, found an integer of more than "
        "4300 digits",
    ),
    "a 400-digit integer score in JSON": (
        b'{"score": ' + b"9" * 400 + b', "label": 1}\n', ["scored", "{file}"], 1,
        ":1: expected a score a double can hold, found an integer of 400 digits",
    ),
    "a JSON float past a double": (
        b'{"score": 0.5, "label": 1}\n{"score": 1e400, "label": 0}\n', ["scored", "{file}"], 1,
        ":2: expected a JSON object or array of usable values, found '1e400', too large",
    ),
    "deep JSON nesting": (
        b"[" * 100_000 + b"]" * 100_000 + b"\n", ["scored", "{file}"], 1,
        ":1: expected a JSON object or array, found nesting too deep to read",
    ),
    "a score with an underscore": (
        b"1\t0.5\n0\t5_000\n", ["scored", "{file}"], 1,
        ":2: expected a number for the score, found '5_000'",
    ),
    "a score in Arabic-Indic digits": (
        "1\t0.5\n0\t\u0663\n".encode(), ["scored", "{file}"], 1,
        ":2: expected a number for the score, found",
    ),
    "a score in full-width digits": (
        "1\t\uff15\n".encode(), ["scored", "{file}"], 1,
        ":1: expected a number for the score, found",
    ),
    "a score past a double": (
        b"1\t0.5\n0\t1e400\n", ["scored", "{file}"], 1,
        ":2: expected a score a double can hold, found '1e400' (too large)",
    ),
    "-o into a missing directory": (
        b"1\t0.5\n", ["scored", "{file}", "-o", "{tmp}/missing/out.txt"], 1,
        "out.txt: cannot write: no directory",
    ),
    "-o under a file": (
        b"1\t0.5\n", ["scored", "{file}", "-o", "{file}/out.txt"], 1,
        "is not a directory",
    ),
    "-o onto a directory": (
        b"1\t0.5\n", ["scored", "{file}", "-o", "{tmp}"], 1,
        ": cannot write: it is a directory",
    ),
    "--plot into a missing directory": (
        b"1\t0.5\n", ["scored", "{file}", "--plot", "{tmp}/missing/p.png"], 1,
        "p.png: cannot write: no directory",
    ),
    "--misses 2**63": (
        b"1\t0.5\n", ["scored", "--misses", str(2**63), "{file}"], 2,
        "argument --misses: expected at most 2**63 - 1, found '9223372036854775808'",
    ),
    "--misses of 5,000 digits": (
        b"1\t0.5\n", ["scored", "--misses", "9" * 5000, "{file}"], 2,
        "argument --misses: expected at most 2**63 - 1, found '999",
    ),
    "--misses 5_000": (
        b"1\t0.5\n", ["scored", "--misses", "5_000", "{file}"], 2,
        "argument --misses: expected a non-negative integer, found '5_000'",
    ),
    "--misses 2**63 - 1 with a positive in the file": (
        b"1\t0.5\n", ["scored", "--misses", str(2**63 - 1), "{file}"], 1,
        ": numPositiveRef would reach 9223372036854775808, beyond the supported 2**63 - 1",
    ),
    "trec -N 10**30": (
        b"q1 0 a 1\n", ["trec", "-N", str(10**30), "{file}", "{file}"], 2,
        "-N expects an integer within 2**63 - 1",
    ),
    "trec -N 5_0": (
        b"q1 0 a 1\n", ["trec", "-N", "5_0", "{file}", "{file}"], 2,
        "-N expects an integer, found '5_0'",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_gives_one_error_line(name: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    content, arguments, status, phrase = CASES[name]
    path = tmp_path / "input.txt"
    if content is not None:
        path.write_bytes(content)
    argv = [a.replace("{file}", str(path)).replace("{tmp}", str(tmp_path)) for a in arguments]
    assert main(argv) == status
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("rankeval: error: ")]
    assert len(errors) == 1, err
    assert err.endswith(errors[0] + "\n")  # the error line is the last
    assert phrase in errors[0]
    assert "Traceback" not in err
    if status == 1:
        assert err == errors[0] + "\n"
    assert not list(tmp_path.glob("**/.*rankeval-tmp"))


def test_whitespace_only_lines_are_skipped_as_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spaced, plain = tmp_path / "spaced.tsv", tmp_path / "plain.tsv"
    spaced.write_text("1\t0.5\n   \n\t\n0\t0.25\n \t \n")
    plain.write_text("1\t0.5\n0\t0.25\n")
    assert main(["scored", str(spaced)]) == 0
    with_spaces = capsys.readouterr().out
    assert main(["scored", str(plain)]) == 0
    assert capsys.readouterr().out == with_spaces


def test_spaces_around_a_score_are_read_as_strtod_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """C's strtod skips leading blanks; CSV written by hand puts a space after the comma."""
    spaced, plain = tmp_path / "spaced.csv", tmp_path / "plain.csv"
    spaced.write_text("label,score\n1, 0.5\n0,0.25 \n")
    plain.write_text("label,score\n1,0.5\n0,0.25\n")
    assert main(["scored", str(spaced)]) == 0
    with_spaces = capsys.readouterr().out
    assert main(["scored", str(plain)]) == 0
    assert capsys.readouterr().out == with_spaces


def _command(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "rankeval", *args], capture_output=False, text=True,
        env=env, timeout=120, **kwargs,
    )


@pytest.mark.parametrize("command", ["scored", "trec"])
def test_a_full_standard_output_is_one_error_line(command: str, tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.fail("this test needs /dev/full (Linux)")
    # A node of our own, inside the temporary directory, with the numbers of /dev/full
    # (tests run as root: the system's node is never written).
    full_node = tmp_path / "full"
    os.mknod(full_node, 0o666 | stat.S_IFCHR, os.stat("/dev/full").st_rdev)
    scored, qrels, run = tmp_path / "s.tsv", tmp_path / "q.txt", tmp_path / "r.txt"
    scored.write_text("1\t0.5\n0\t0.25\n")
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 0.5 r\n")
    args = ["scored", str(scored)] if command == "scored" else ["trec", str(qrels), str(run)]
    with open(full_node, "w") as full:
        done = _command(args, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 1
    assert done.stderr == "rankeval: error: <stdout>: cannot write: No space left on device\n"


@pytest.mark.parametrize("command", ["scored", "trec"])
def test_a_closed_standard_output_is_one_error_line(command: str, tmp_path: Path) -> None:
    scored, qrels, run = tmp_path / "s.tsv", tmp_path / "q.txt", tmp_path / "r.txt"
    scored.write_text("1\t0.5\n0\t0.25\n")
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 0.5 r\n")
    args = ["scored", str(scored)] if command == "scored" else ["trec", str(qrels), str(run)]
    script = (
        "import os, runpy, sys; os.close(1); sys.stdout = None; "
        f"sys.argv = ['rankeval', *{args!r}]; runpy.run_module('rankeval', run_name='__main__')"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stderr == "rankeval: error: <stdout>: cannot write: standard output is closed\n"


@pytest.mark.parametrize("command", ["scored", "trec"])
def test_a_reader_that_goes_away_is_not_an_error(command: str, tmp_path: Path) -> None:
    scored, qrels, run = tmp_path / "s.tsv", tmp_path / "q.txt", tmp_path / "r.txt"
    scored.write_text("".join(f"{i % 2}\t{i / 7:.6f}\n" for i in range(50_000)))
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(20_000)))
    run.write_text("".join(f"q{i} Q0 d{i} 1 0.5 r\n" for i in range(20_000)))
    args = (["scored", "--curve", "pr", str(scored)] if command == "scored"
            else ["trec", "-q", str(qrels), str(run)])
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        f"{sys.executable} -m rankeval {' '.join(args)} | head -1",
        shell=True, capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    assert done.stderr == ""
    assert len(done.stdout.splitlines()) == 1
