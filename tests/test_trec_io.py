"""TREC run and qrels readers: trec_eval's parsing rules, strict errors, fast path = line parser."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.io import DataError
from rankeval.ranking import trec_files


def write(tmp_path: Path, text: str | bytes, name: str = "file") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text)
    else:
        path.write_bytes(text)
    return path


class TestRunFormat:
    """trec_eval's results format: six fields, extra fields ignored, last run id kept."""

    def test_columns_and_runid(self, tmp_path: Path) -> None:
        """qid, docno and score are read; iter and rank ignored; run id from the last line."""
        table = trec_files.read_run(write(tmp_path, "q1 Q0 d1 9 2.5 A\nq2 x d2 1 -1e3 B junk\n"))
        assert table.qid.tolist() == [b"q1", b"q2"]
        assert table.docid.tolist() == [b"d1", b"d2"]
        assert table.score.tolist() == [2.5, -1000.0]
        assert table.runid == "B"
        assert table.line.tolist() == [1, 2]

    def test_comments_blank_lines_and_whitespace(self, tmp_path: Path) -> None:
        """# lines and blank lines are skipped; any isspace run separates; CR is whitespace."""
        text = "# header\n\n  q1\tQ0  d1 1 0.5 r\r\n   \nq1 Q0 d2 2 0.25 r\n"
        table = trec_files.read_run(write(tmp_path, text))
        assert table.docid.tolist() == [b"d1", b"d2"]
        assert table.line.tolist() == [3, 5]

    def test_no_trailing_newline(self, tmp_path: Path) -> None:
        """The last line needs no newline."""
        assert trec_files.read_run(write(tmp_path, "q Q0 d 1 1 r")).runid == "r"

    @pytest.mark.parametrize("score", ["1e-3", "inf", "-inf", "+2", ".5", "5.", "1E+2"])
    def test_other_number_spellings(self, tmp_path: Path, score: str) -> None:
        """Exponents, signs, infinities are numbers (as strtod reads them)."""
        table = trec_files.read_run(write(tmp_path, f"q Q0 d 1 {score} r\n"))
        assert table.score.tolist() == [float(score)]

    @pytest.mark.parametrize(("text", "line", "message"), [
        ("q Q0 d 1 0.5 r\nq Q0 e 2\n", 2, "expected 6 fields"),
        ("q Q0 d 1 abc r\n", 1, "expected a number for the score, found 'abc'"),
        ("q Q0 d 1 1_0 r\n", 1, "expected a number for the score"),
        ("q Q0 d 1 nan r\n", 1, "(NaN)"),
        ("q Q0 d 1 1 r\nq Q0 e 1 1 r\nq Q0 d 1 2 r\n", 3,
         "document 'd' is listed twice for query 'q' (first on line 1)"),
    ])
    def test_errors_name_the_line(self, tmp_path: Path, text: str, line: int,
                                  message: str) -> None:
        """Malformed lines raise DataError with FILE:LINE."""
        path = write(tmp_path, text)
        with pytest.raises(DataError) as caught:
            trec_files.read_run(path)
        assert caught.value.line == line
        assert str(caught.value).startswith(f"{path}:{line}: ")
        assert message in str(caught.value)

    def test_empty_file(self, tmp_path: Path) -> None:
        """A run without results is an error."""
        with pytest.raises(DataError, match="at least one result"):
            trec_files.read_run(write(tmp_path, "# nothing\n"))

    def test_same_docid_in_two_queries_is_fine(self, tmp_path: Path) -> None:
        """Duplicates are per query."""
        table = trec_files.read_run(write(tmp_path, "a Q0 d 1 1 r\nb Q0 d 1 1 r\na Q0 e 1 1 r\n"))
        assert table.qid.tolist() == [b"a", b"b", b"a"]


class TestQrelsFormat:
    """trec_eval's qrels format: exactly four fields, integer relevance."""

    def test_columns(self, tmp_path: Path) -> None:
        """qid, docno and rel are read; negative relevance kept (unjudged)."""
        table = trec_files.read_qrels(write(tmp_path, "q 0 d1 2\nq 0 d2 -1\n"))
        assert table.rel.tolist() == [2, -1]

    @pytest.mark.parametrize(("text", "line", "message"), [
        ("q 0 d1 1\nq 0 d2\n", 2, "expected 4 fields"),
        ("q 0 d1 1 extra\n", 1, "expected 4 fields"),
        ("q 0 d1 1.5\n", 1, "expected an integer relevance, found '1.5'"),
        ("q 0 d1 1\nq 0 d1 0\n", 2, "judged twice"),
    ])
    def test_errors_name_the_line(self, tmp_path: Path, text: str, line: int,
                                  message: str) -> None:
        """Malformed qrels lines raise DataError with FILE:LINE."""
        path = write(tmp_path, text)
        with pytest.raises(DataError) as caught:
            trec_files.read_qrels(path)
        assert caught.value.line == line
        assert message in str(caught.value)


tokens = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FF,
                                        exclude_characters="#"), min_size=1, max_size=8)
spaces = st.sampled_from([" ", "\t", "  ", " \t", "\r\t"])


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(tokens, tokens, st.floats(allow_nan=False, width=32),
                               st.booleans(), spaces), min_size=1, max_size=25),
       blank=st.booleans())
def test_fast_path_equals_line_parser(
    rows: list[tuple[str, str, float, bool, str]], blank: bool
) -> None:
    """The vectorised split and the line-by-line parser read the same values."""
    lines = []
    seen = set()
    for qid, docid, score, extra, sep in rows:
        if (qid, docid) in seen:
            continue
        seen.add((qid, docid))
        fields = [qid, "Q0", docid, "1", repr(score), "run"] + (["x"] if extra else [])
        lines.append(sep.join(fields))
        if blank:
            lines.append(" ")
    data = ("\n".join(lines) + "\n").encode("utf-8")
    fast = trec_files.parse_run(data, "run")
    slow_q, slow_d, slow_s, slow_lines, slow_runid = trec_files._slow_run("run", data)
    assert fast.qid.tolist() == slow_q.tolist()
    assert fast.docid.tolist() == slow_d.tolist()
    assert fast.score.tolist() == trec_files._parse_scores_slow("run", slow_s, slow_lines).tolist()
    assert fast.line.tolist() == slow_lines.tolist()
    assert fast.runid == slow_runid


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(tokens, tokens, st.floats(allow_nan=False, width=32)),
                     min_size=1, max_size=40),
       chunk=st.integers(8, 200), extra=st.booleans())
def test_chunked_split_equals_one_chunk(rows: list[tuple[str, str, float]], chunk: int,
                                        extra: bool) -> None:
    """Tokenising in small chunks (cut at line ends) reads the same rows and line numbers."""
    seen: set[tuple[str, str]] = set()
    lines = []
    for qid, docid, score in rows:
        if (qid, docid) not in seen:
            seen.add((qid, docid))
            lines.append(f"{qid} Q0 {docid} 1 {score!r} run{len(lines)}" + (" x" if extra else ""))
            lines.append("")
    data = ("\n".join(lines)).encode("utf-8")
    whole = trec_files.parse_run(data, "run")
    saved = trec_files._CHUNK_BYTES
    try:
        trec_files._CHUNK_BYTES = chunk
        reports: list[int] = []
        pieces = trec_files.parse_run(data, "run", reports.append)
    finally:
        trec_files._CHUNK_BYTES = saved
    assert sum(reports) == len(data)  # a progress bar's updates reach the size exactly
    assert len(reports) >= min(len(data) // (chunk + 200), 2)
    assert pieces.qid.tolist() == whole.qid.tolist()
    assert pieces.docid.tolist() == whole.docid.tolist()
    assert pieces.score.tolist() == whole.score.tolist()
    assert pieces.line.tolist() == whole.line.tolist()
    assert pieces.runid == whole.runid


@settings(max_examples=60, deadline=None)
@given(value=st.floats(allow_nan=False, allow_infinity=False),
       digits=st.integers(0, 17))
def test_decimal_scores_are_correctly_rounded(value: float, digits: int) -> None:
    """A decimal score reads as Python's (correctly rounded) float of the same text."""
    text = f"{value:.{digits}f}"
    table = trec_files.parse_run(f"q Q0 d 1 {text} r\n".encode(), "run")
    assert table.score.tolist() == [float(text)]


def test_long_fields_fall_back(tmp_path: Path) -> None:
    """Fields longer than the fast path's window are still read exactly."""
    long_id = "d" * 300
    table = trec_files.read_run(write(tmp_path, f"q Q0 {long_id} 1 0.5 r\n"))
    assert table.docid.tolist() == [long_id.encode()]


def test_utf8_ids_are_bytes(tmp_path: Path) -> None:
    """Ids are kept as the file's bytes (byte-wise order = trec_eval's strcmp)."""
    table = trec_files.read_run(write(tmp_path, "q Q0 é 1 0.5 r\n".encode()))
    assert table.docid.tolist() == ["é".encode()]
    assert np.argsort(np.array([b"z", "é".encode()])).tolist() == [0, 1]


@pytest.mark.parametrize("text", [
    "q1 0 d1 1\n# a comment\nq1 0 d2 0\n",  # falls back before the first chunk
    "q1 0 d1 1\n" * 40 + "q1 0 d2 " + "1" * 300 + "\n",  # falls back in the last chunk
])
def test_progress_reaches_the_size_when_the_line_parser_takes_over(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec_files, "_CHUNK_BYTES", 64)
    reports: list[int] = []
    data = text.encode()
    if b"1" * 300 in data:  # refused by the line parser, after the bar was finished
        with pytest.raises(DataError, match="qrels:41:"):
            trec_files.parse_qrels(data, "qrels", reports.append)
    else:
        assert trec_files.parse_qrels(data, "qrels", reports.append).rel.tolist() == [1, 0]
    assert sum(reports) == len(data)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(tokens, tokens, st.floats(allow_nan=False, width=32),
                               st.integers(-1, 3)), min_size=1, max_size=25),
       flaw=st.sampled_from(["", "extra field", "double space", "leading space",
                             "trailing space", "no final newline", "blank line", "tab"]),
       chunk=st.sampled_from([40, 1 << 22]))
def test_single_spaced_layout_equals_the_general_path(
    rows: list[tuple[str, str, float, int]], flaw: str, chunk: int,
) -> None:
    """Files with one space between fields take a shorter path; with any flaw in the
    layout they take the general one. Both read the same as the line parser."""
    seen = set()
    run_lines, qrels_lines = [], []
    for qid, docid, score, rel in rows:
        if (qid, docid) not in seen:
            seen.add((qid, docid))
            run_lines.append(f"{qid} Q0 {docid} 1 {score!r} run")
            qrels_lines.append(f"{qid} 0 {docid} {rel}")
    edits = {
        "extra field": lambda line: line + " x",
        "double space": lambda line: line.replace(" ", "  ", 1),
        "leading space": lambda line: " " + line,
        "trailing space": lambda line: line + " ",
        "tab": lambda line: line.replace(" ", "\t", 1),
    }
    if flaw in edits:
        run_lines[-1] = edits[flaw](run_lines[-1])
        if flaw != "extra field":  # qrels lines must have exactly 4 fields
            qrels_lines[-1] = edits[flaw](qrels_lines[-1])
    if flaw == "blank line":
        run_lines.insert(len(run_lines) // 2, "")
        qrels_lines.insert(len(qrels_lines) // 2, "")
    end = "" if flaw == "no final newline" else "\n"
    run_data = ("\n".join(run_lines) + end).encode()
    qrels_data = ("\n".join(qrels_lines) + end).encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trec_files, "_CHUNK_BYTES", chunk)
        run = trec_files.parse_run(run_data, "run")
        qrels = trec_files.parse_qrels(qrels_data, "qrels")
        patch.setattr(trec_files, "_single_spaced", lambda *args: None)
        general_run = trec_files.parse_run(run_data, "run")
        general_qrels = trec_files.parse_qrels(qrels_data, "qrels")
    slow_q, _, slow_s, slow_lines, slow_runid = trec_files._slow_run("run", run_data)
    for table, other in ((run, general_run), (qrels, general_qrels)):
        assert table.qid.tolist() == other.qid.tolist()
        assert table.docid.tolist() == other.docid.tolist()
        assert table.line.tolist() == other.line.tolist()
    assert run.qid.tolist() == slow_q.tolist()
    assert run.line.tolist() == slow_lines.tolist()
    assert run.score.tobytes() == general_run.score.tobytes()
    assert run.score.tolist() == trec_files._parse_scores_slow("run", slow_s, slow_lines).tolist()
    assert (run.runid, qrels.rel.tolist()) == (slow_runid, general_qrels.rel.tolist())


@pytest.mark.parametrize("tail", ["", "#7 Q0 z 1 1 r\n", "q9 Q0 z 1 1e400 r", "q9\tQ0 z 1 0.5 r"])
@pytest.mark.parametrize("chunk", [16, 64, 1 << 22])
def test_reading_a_file_in_blocks_equals_parsing_its_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: str, chunk: int) -> None:
    """read_run/read_qrels read block by block (the file is never whole in memory); a
    block the vectorised rules cannot take (a comment, a long number) sends the whole file
    to the line parser. Either way the table, and the progress total, are the same."""
    monkeypatch.setattr(trec_files, "_CHUNK_BYTES", chunk)
    run_text = "".join(f"q{i % 3} Q0 d{i} {i} {i / 7!r} r{i}\n" for i in range(40)) + tail
    qrels_text = "".join(f"q{i % 3} 0 d{i} {i % 3}\n" for i in range(40))
    (tmp_path / "run").write_text(run_text)
    (tmp_path / "qrels").write_text(qrels_text + tail.replace(" Q0 z 1 ", " 0 z ")[:-3]
                                    + ("\n" if tail else ""))
    for read, parse, name in ((trec_files.read_run, trec_files.parse_run, "run"),
                              (trec_files.read_qrels, trec_files.parse_qrels, "qrels")):
        path = tmp_path / name
        reports: list[int] = []
        try:
            expected = parse(path.read_bytes(), str(path))
        except DataError as error:
            with pytest.raises(DataError, match=re.escape(str(error))):
                read(path, reports.append)
            continue
        table = read(path, reports.append)
        assert sum(reports) == path.stat().st_size
        assert table.qid.tolist() == expected.qid.tolist()
        assert table.docid.tolist() == expected.docid.tolist()
        assert table.line.tolist() == expected.line.tolist()
        if name == "run":
            assert table.score.tobytes() == expected.score.tobytes()  # type: ignore[union-attr]
            assert table.runid == expected.runid  # type: ignore[union-attr]
