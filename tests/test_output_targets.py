"""What every writer (``-o``, ``--plot``, ``save``) does with targets that are not plain files
(docs/semantics.md, "Output files"): a symbolic link is followed and the file it names
replaced; an existing character device or FIFO is written in place, never replaced by a
file; a socket or a block device is refused; an output that is an input is refused before
anything is read.

Every node is made inside the test's temporary directory (device nodes with ``mknod``,
as root, with the numbers of the system's ``/dev/null``).
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rankeval import ScoredPrecisionRecallEvaluation, cli
from rankeval.io import atomic_output, output_kind
from rankeval.scored.sketch import SketchEvaluation

INPUT = "label\tscore\ntrue\t0.9\nfalse\t0.4\ntrue\t0.3\n"


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    path = tmp_path / "s.tsv"
    path.write_text(INPUT)
    return path


def null_device(tmp_path: Path) -> Path:
    """A character device node in ``tmp_path`` with /dev/null's numbers."""
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.stat(os.devnull).st_rdev)
    return node


def expected_report(cases: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(["scored", str(cases)]) == 0
    return capsys.readouterr().out


def test_a_character_device_is_written_in_place(tmp_path: Path, cases: Path) -> None:
    node = null_device(tmp_path)
    assert cli.main(["scored", str(cases), "-o", str(node)]) == 0
    assert stat.S_ISCHR(os.lstat(node).st_mode)  # still the device, not a file
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False], [0.9, 0.1])
    ev.save(node)
    SketchEvaluation().save(node)
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["null", "s.tsv"]  # no temporary file left


def test_a_fifo_is_written_in_place(tmp_path: Path, cases: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    expected = expected_report(cases, capsys)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    try:
        assert cli.main(["scored", str(cases), "-o", str(fifo)]) == 0
    finally:
        reader.join(timeout=30)
    assert received == [expected]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_symlink_is_followed_and_the_file_it_names_replaced(
        tmp_path: Path, cases: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = expected_report(cases, capsys)
    real = tmp_path / "sub" / "report.txt"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert cli.main(["scored", str(cases), "-o", str(link)]) == 0
    assert link.is_symlink()
    assert os.readlink(link) == str(real)
    assert real.read_text() == expected
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "sub" / "new.txt")
    with atomic_output(dangling) as out:
        out.write("x\n")
    assert dangling.is_symlink()
    assert (tmp_path / "sub" / "new.txt").read_text() == "x\n"


def test_a_symlink_to_standard_output_prints(tmp_path: Path, cases: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    expected = expected_report(cases, capsys)
    link = tmp_path / "out"
    # The child's own standard output (a pipe to this test), named as users name it: no
    # device node of the system is written or replaced.
    link.symlink_to("/dev/stdout")
    done = subprocess.run([sys.executable, "-m", "rankeval", "scored", str(cases), "-o",
                           str(link)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    assert link.is_symlink()


def test_a_socket_is_refused_by_name(tmp_path: Path, cases: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(OSError, match="is a socket"):
            output_kind(path)
        assert cli.main(["scored", str(cases), "-o", str(path)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("rankeval: error: ")
        assert "is a socket" in err
        assert err.count("\n") == 1
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        server.close()


@pytest.mark.parametrize("how", ["same", "link", "hard link", "dot"])
def test_an_output_that_is_an_input_is_refused_before_reading(
        tmp_path: Path, cases: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    output = {"same": cases, "link": tmp_path / "l", "hard link": tmp_path / "h",
              "dot": tmp_path / "." / "s.tsv"}[how]
    if how == "link":
        output.symlink_to(cases)
    if how == "hard link":
        os.link(cases, output)
    assert cli.main(["scored", str(cases), "-o", str(output)]) == 2
    err = capsys.readouterr().err
    assert "is also an input" in err
    assert err.count("\n") == 1
    assert cases.read_text() == INPUT


def test_compare_refuses_to_overwrite_a_run(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    qrels, a, b = tmp_path / "qrels", tmp_path / "a", tmp_path / "b"
    qrels.write_text("q 0 d 1\n")
    a.write_text("q Q0 d 1 1.0 a\n")
    b.write_text("q Q0 d 1 2.0 b\n")
    assert cli.main(["compare", str(qrels), str(a), str(b), "-o", str(b)]) == 2
    assert "is also an input" in capsys.readouterr().err
    assert b.read_text() == "q Q0 d 1 2.0 b\n"


def test_output_and_plot_may_not_name_one_file(tmp_path: Path, cases: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "x.png"
    assert cli.main(["scored", str(cases), "-o", str(target), "--plot", str(target)]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert not target.exists()
