"""Behaviour of rankeval.io: reading scored-case files, writing JSON, atomic output files."""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.io import Cases, DataError, ScoredCaseReader, atomic_output, write_json
from tests.conftest import RUNNING_EXAMPLE

DATA_DIR = Path(__file__).resolve().parent.parent / "rankeval" / "data"


def read(text: str, name: str = "in.tsv", **options: object) -> list[Cases]:
    """Every batch the reader yields for ``text``."""
    return list(ScoredCaseReader(io.StringIO(text), name, **options))  # type: ignore[arg-type]


def flat(batches: list[Cases]) -> list[tuple[str | None, bool, float]]:
    """(query, label, score) rows of the batches, in the order yielded."""
    return [
        (batch.query, bool(label), float(score))
        for batch in batches
        for label, score in zip(batch.labels.tolist(), batch.scores.tolist(), strict=True)
    ]


def error_of(text: str, name: str = "in.tsv", **options: object) -> DataError:
    """The DataError raised while reading ``text`` (construction or iteration)."""
    with pytest.raises(DataError) as caught:
        read(text, name, **options)
    return caught.value


class TestFormats:
    def test_tab_separated_rows_are_tsv(self) -> None:
        """A tab in the first line means TSV."""
        reader = ScoredCaseReader(io.StringIO("true\t0.5\nfalse\t0.25\n"), "x")
        assert reader.file_format == "tsv"
        assert flat(list(reader)) == [(None, True, 0.5), (None, False, 0.25)]

    def test_comma_separated_rows_are_csv(self) -> None:
        """A comma (and no tab) in the first line means CSV."""
        reader = ScoredCaseReader(io.StringIO("1,0.5\n0,-2\n"), "x")
        assert reader.file_format == "csv"
        assert flat(list(reader)) == [(None, True, 0.5), (None, False, -2.0)]

    def test_json_objects_are_json_lines(self) -> None:
        """A first line starting with { means JSON Lines of objects."""
        text = '{"label": true, "score": 0.5}\n{"score": 1, "label": "no"}\n'
        reader = ScoredCaseReader(io.StringIO(text), "x")
        assert reader.file_format == "jsonl"
        assert flat(list(reader)) == [(None, True, 0.5), (None, False, 1.0)]

    def test_json_arrays_are_positional(self) -> None:
        """JSON arrays are laid out like headerless rows: [label, score], [query, label, score]."""
        assert flat(read('[true, 0.5]\n[0, "-Infinity"]\n')) == [
            (None, True, 0.5),
            (None, False, -math.inf),
        ]
        assert flat(read('["q1", 1, 2.5]\n')) == [("q1", True, 2.5)]

    def test_explicit_format_skips_detection(self) -> None:
        """file_format='csv' reads a line with both a tab and a comma as CSV."""
        batches = read('"a\tb",true,1\n', file_format="csv")
        assert flat(batches) == [("a\tb", True, 1.0)]

    def test_undetectable_first_line_is_a_data_error(self) -> None:
        """A first line with neither tab, comma nor JSON names what was expected and found."""
        error = error_of("\n\ntrue 0.5\n")
        assert str(error) == (
            "in.tsv:3: expected fields separated by a tab or a comma, or a JSON object or "
            "array, found 'true 0.5'"
        )

    def test_empty_input_has_no_cases(self) -> None:
        """An empty or blank file yields nothing and has no query column."""
        for text in ("", "\n\n  \n"):
            reader = ScoredCaseReader(io.StringIO(text), "x")
            assert list(reader) == []
            assert not reader.has_query


class TestHeader:
    def test_header_is_recognised_and_skipped(self) -> None:
        """A first row naming label and score is a header, not a case."""
        reader = ScoredCaseReader(io.StringIO("label\tscore\ntrue\t1\n"), "x")
        assert reader.header == ["label", "score"]
        assert flat(list(reader)) == [(None, True, 1.0)]

    def test_header_columns_in_any_order_with_extra_columns(self) -> None:
        """Named columns may come in any order; unnamed ones are ignored."""
        text = "id,Score,QID,Correct\n7,0.5,q1,yes\n8,0.25,q2,no\n"
        assert flat(read(text)) == [("q1", True, 0.5), ("q2", False, 0.25)]

    @pytest.mark.parametrize(
        ("label", "score"), [("relevant", "y_score"), ("y_true", "prediction"), ("gold", "logit")]
    )
    def test_header_aliases(self, label: str, score: str) -> None:
        """Common spellings of the label and score columns are recognised."""
        assert flat(read(f"{label}\t{score}\n1\t3\n")) == [(None, True, 3.0)]

    def test_header_without_score_column_is_an_error(self) -> None:
        """A header naming a label but no score column says which names it expected."""
        error = error_of("label\tvalue\n1\t2\n")
        assert error.line == 1
        assert "expected the header to name a score column (score, y_score" in error.message
        assert "found ['label', 'value']" in error.message

    def test_two_columns_without_header_are_label_and_score(self) -> None:
        """Headerless rows of two fields are label, score."""
        reader = ScoredCaseReader(io.StringIO("no\t-1\n"), "x")
        assert reader.header is None
        assert not reader.has_query
        assert flat(list(reader)) == [(None, False, -1.0)]

    def test_three_columns_without_header_are_query_label_score(self) -> None:
        """Headerless rows of three fields are query, label, score."""
        reader = ScoredCaseReader(io.StringIO("q7\t1\t0.5\n"), "x")
        assert reader.has_query
        assert flat(list(reader)) == [("q7", True, 0.5)]

    def test_other_widths_without_header_are_an_error(self) -> None:
        """A headerless first row of 4 fields names both accepted layouts."""
        error = error_of("a,b,c,d\n")
        assert str(error) == (
            "in.tsv:1: expected 2 comma-separated fields (label, score) or 3 (query, label, "
            "score), found 4: 'a,b,c,d'"
        )


class TestValues:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("true", True),
            ("TRUE", True),
            ("True", True),
            ("tRuE", True),
            ("1", True),
            ("yes", True),
            ("Yes", True),
            (" yes ", True),
            ("false", False),
            ("FALSE", False),
            ("0", False),
            ("no", False),
            ("NO", False),
        ],
    )
    def test_label_spellings(self, text: str, expected: bool) -> None:
        """true/false, 1/0 and yes/no are accepted in any case."""
        assert flat(read(f"{text},0.5\n")) == [(None, expected, 0.5)]

    @pytest.mark.parametrize("text", ["2", "t", "y", "", "1.0", "positive"])
    def test_bad_label_is_a_data_error(self, text: str) -> None:
        """Anything else is refused with the expected spellings and the text found."""
        error = error_of(f"label,score\n1,0.5\n{text},0.25\n")
        assert str(error) == (
            f"in.tsv:3: expected a label true/false, 1/0 or yes/no, found {text!r}"
        )

    @pytest.mark.parametrize(
        ("text", "expected"),
        [("0.5", 0.5), ("-1e300", -1e300), ("inf", math.inf), ("-Infinity", -math.inf), ("7", 7.0)],
    )
    def test_scores(self, text: str, expected: float) -> None:
        """Decimal numbers and infinities are scores."""
        assert flat(read(f"1\t{text}\n")) == [(None, True, expected)]

    @pytest.mark.parametrize("text", ["nan", "NaN", "-nan"])
    def test_nan_score_is_a_data_error(self, text: str) -> None:
        """NaN is refused at the line that holds it."""
        error = error_of(f"1\t0.5\n0\t{text}\n")
        assert str(error) == f"in.tsv:2: expected a score that is a number, found NaN ({text!r})"

    @pytest.mark.parametrize("text", ["abc", "", "0.5.1", "1,5"])
    def test_non_numeric_score_is_a_data_error(self, text: str) -> None:
        """A score that is not a number is refused with the text found."""
        error = error_of(f"1\t0.5\n\n0\t{text}\n")
        assert str(error) == f"in.tsv:3: expected a number for the score, found {text!r}"

    def test_empty_query_is_a_data_error(self) -> None:
        """A query column needs a non-empty id."""
        error = error_of("q1\t1\t0.5\n \t1\t0.5\n")
        assert str(error) == "in.tsv:2: expected a query id, found ' '"

    def test_long_found_text_is_cut(self) -> None:
        """Messages quote at most 60 characters of what was found."""
        error = error_of("1\t" + "x" * 200 + "\n")
        assert error.message.endswith("'" + "x" * 60 + "'...")


class TestLines:
    def test_wrong_field_count_names_the_line(self) -> None:
        """A row with the wrong number of fields is refused with its line number."""
        error = error_of("1\t0.5\n0\t0.25\n1\t0.5\t9\n")
        assert str(error) == (
            "in.tsv:3: expected 2 tab-separated fields (label, score), found 3: '1\\t0.5\\t9'"
        )

    def test_wrong_field_count_after_a_header(self) -> None:
        """After a header, rows must have as many fields as the header."""
        error = error_of("label,score,id\n1,0.5,a\n1,0.5\n")
        assert str(error) == (
            "in.tsv:3: expected 3 comma-separated fields as in the header, found 2: '1,0.5'"
        )

    def test_blank_lines_are_skipped_and_counted(self) -> None:
        """Blank lines carry no case but still count in line numbers."""
        assert flat(read("\n\nlabel\tscore\n\n1\t2\n\n")) == [(None, True, 2.0)]
        assert error_of("\n\nlabel\tscore\n\n1\t2\n\nx\t1\n").line == 7

    def test_windows_line_ends_and_byte_order_mark(self) -> None:
        """CRLF line ends and a UTF-8 byte order mark are accepted."""
        text = "\ufefflabel,score\r\ntrue,1\r\nfalse,2\r\n"
        assert flat(read(text)) == [(None, True, 1.0), (None, False, 2.0)]

    def test_line_numbers_stay_right_across_chunks(self) -> None:
        """An error far into a file names the right line whatever the chunk size."""
        lines = ["label\tscore"] + ["1\t0.5"] * 20 + ["1\tx"]
        for chunk_rows in (1, 3, 7, 100):
            assert error_of("\n".join(lines) + "\n", chunk_rows=chunk_rows).line == 22

    @pytest.mark.parametrize(
        ("content", "line"),
        [
            (b"1\t0.5\n0\t0.25\n1\t\xff\xfe\n", 3),
            (b"\n\xff\t1\n", 2),
            (b"label\tscore\n1\t2\n\n\xc3\n", 4),
            (b'{"label": 1, "score": 2}\n\n"\xff"\n', 3),
        ],
    )
    def test_undecodable_bytes_are_a_data_error(self, content: bytes, line: int) -> None:
        """Bytes that are not UTF-8 stop a binary stream's reading at their line."""
        with pytest.raises(DataError) as caught:
            list(ScoredCaseReader(io.BytesIO(content), "bad.tsv", chunk_rows=1))
        assert caught.value.line == line
        assert caught.value.message.startswith("expected UTF-8 text, found undecodable bytes")

    def test_binary_stream_reads_like_text(self, tmp_path: Path) -> None:
        """A file opened in binary mode gives the same cases, BOM and CRLF included."""
        path = tmp_path / "x.csv"
        path.write_bytes("\ufefflabel,score\r\ntrue,1\r\nno,2\r\n".encode())
        with path.open("rb") as stream:
            reader = ScoredCaseReader(stream, "x.csv")
            assert flat(list(reader)) == [(None, True, 1.0), (None, False, 2.0)]
            assert reader.bytes_read == path.stat().st_size

    def test_csv_quoting(self) -> None:
        """CSV fields may be quoted; malformed quoting is a data error at its line."""
        assert flat(read('"q,1",true,0.5\n')) == [("q,1", True, 0.5)]
        error = error_of('q1,true,0.5\n"q"x,true,0.5\n')
        assert error.line == 2
        assert error.message.startswith("expected a well-formed CSV row, found ")

    def test_lines_read_counts_physical_lines(self) -> None:
        """lines_read ends at the number of lines consumed, header and blanks included."""
        reader = ScoredCaseReader(io.StringIO("label\tscore\n1\t1\n\n0\t2\n"), "x")
        list(reader)
        assert reader.lines_read == 4


class TestChunks:
    def test_chunks_hold_at_most_chunk_rows(self) -> None:
        """Rows come in chunks of chunk_rows, in file order."""
        text = "".join(f"{i % 2}\t{i}\n" for i in range(10))
        batches = read(text, chunk_rows=3)
        assert [len(batch.labels) for batch in batches] == [3, 3, 3, 1]
        assert [score for _, _, score in flat(batches)] == [float(i) for i in range(10)]

    def test_chunk_arrays_have_evaluator_dtypes(self) -> None:
        """Labels are a bool array and scores a float64 array."""
        (batch,) = read("1\t2\n")
        assert batch.labels.dtype == np.bool_
        assert batch.scores.dtype == np.float64

    def test_queries_are_split_keeping_file_order(self) -> None:
        """Each query's cases keep file order (ties need it); queries in first-seen order."""
        text = "b\t1\t1\na\t0\t1\nb\t0\t1\na\t1\t2\nb\t1\t3\n"
        assert flat(read(text)) == [
            ("b", True, 1.0),
            ("b", False, 1.0),
            ("b", True, 3.0),
            ("a", False, 1.0),
            ("a", True, 2.0),
        ]

    def test_queries_across_chunks(self) -> None:
        """With small chunks, concatenating a query's batches gives its rows in file order."""
        rows = [(f"q{i % 3}", i % 2 == 0, float(i)) for i in range(20)]
        text = "".join(f"{q}\t{int(label)}\t{score}\n" for q, label, score in rows)
        got = flat(read(text, chunk_rows=4))
        for query in ("q0", "q1", "q2"):
            assert [r for r in got if r[0] == query] == [r for r in rows if r[0] == query]

    def test_chunk_rows_must_be_positive(self) -> None:
        """chunk_rows below 1 is a ValueError."""
        with pytest.raises(ValueError, match="chunk_rows must be at least 1"):
            ScoredCaseReader(io.StringIO(""), "x", chunk_rows=0)


class TestJsonLines:
    def test_json_label_and_score_types(self) -> None:
        """JSON labels: booleans, 0/1 or label strings; scores: numbers or numeric strings."""
        text = (
            '{"label": false, "score": 1}\n'
            '{"label": 1, "score": 2.5}\n'
            '{"label": "YES", "score": "Infinity"}\n'
        )
        assert flat(read(text)) == [(None, False, 1.0), (None, True, 2.5), (None, True, math.inf)]

    @pytest.mark.parametrize(
        ("record", "message"),
        [
            ('{"label": 2, "score": 1}', "expected a label true/false, 1/0 or yes/no, found '2'"),
            (
                '{"label": null, "score": 1}',
                "expected a label true/false, 1/0 or yes/no, found 'null'",
            ),
            ('{"label": 1, "score": true}', "expected a number for the score, found 'true'"),
            ('{"label": 1, "score": NaN}', "expected a score that is a number, found NaN"),
            ('{"label": 1}', "expected a key 'score', found keys ['label']"),
            ("[1, 2]", "expected a JSON object like line 1, found '[1, 2]'"),
        ],
    )
    def test_bad_json_records(self, record: str, message: str) -> None:
        """A bad value or shape in a later record names its line and what was found."""
        error = error_of('{"label": 1, "score": 0.5}\n' + record + "\n", "in.jsonl")
        assert str(error) == f"in.jsonl:2: {message}"

    def test_invalid_json_is_a_data_error(self) -> None:
        """Text that is not JSON names the line and the parser's complaint."""
        error = error_of("[1, 0.5]\n[1, 0.5\n", "in.jsonl")
        assert error.line == 2
        assert error.message.startswith("expected a JSON object or array, found '[1, 0.5' (")

    def test_first_object_without_label_key(self) -> None:
        """The first object must name a label key."""
        error = error_of('{"y": 1, "score": 2}\n', "in.jsonl")
        assert error.line == 1
        assert error.message.startswith("expected a label key (label, correct")

    def test_json_query_key(self) -> None:
        """A query key gives per-query batches; integer ids become their text."""
        text = '{"qid": 3, "label": 1, "score": 1}\n{"qid": "a", "label": 0, "score": 2}\n'
        assert flat(read(text)) == [("3", True, 1.0), ("a", False, 2.0)]


labels_and_scores = st.lists(
    st.tuples(
        st.booleans(),
        st.floats(allow_nan=False) | st.sampled_from([0.0, 0.5, 1.0]),
    ),
    max_size=40,
)


class TestRoundTrip:
    @settings(max_examples=60, deadline=None)
    @given(rows=labels_and_scores, chunk_rows=st.integers(1, 7))
    def test_tsv_csv_and_json_lines_read_back_exactly(
        self, rows: list[tuple[bool, float]], chunk_rows: int
    ) -> None:
        """Cases written in any of the three formats read back exactly, in order."""
        expected = [(None, label, score) for label, score in rows]
        tsv = "label\tscore\n" + "".join(f"{int(a)}\t{b!r}\n" for a, b in rows)
        csv_text = "correct,score\n" + "".join(f"{a},{b!r}\n" for a, b in rows)
        jsonl = "".join(
            json.dumps({"label": a, "score": b if math.isfinite(b) else repr(b)}) + "\n"
            for a, b in rows
        )
        for text in (tsv, csv_text, jsonl):
            assert flat(read(text, chunk_rows=chunk_rows)) == expected


class TestAtomicOutput:
    def test_success_replaces_the_file(self, tmp_path: Path) -> None:
        """The new content appears in full, with ordinary permissions, and no temp file stays."""
        target = tmp_path / "out.txt"
        target.write_text("old")
        with atomic_output(target) as out:
            out.write("new")
        assert target.read_text() == "new"
        assert os.listdir(tmp_path) == ["out.txt"]
        umask = os.umask(0)
        os.umask(umask)
        assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask

    def test_failure_leaves_the_old_file(self, tmp_path: Path) -> None:
        """An exception inside the block leaves the old file untouched and removes the temp."""
        target = tmp_path / "out.bin"
        target.write_bytes(b"old")

        def write_half_then_fail() -> None:
            with atomic_output(target, binary=True) as out:
                out.write(b"half")
                raise RuntimeError("boom")

        with pytest.raises(RuntimeError, match="boom"):
            write_half_then_fail()
        assert target.read_bytes() == b"old"
        assert os.listdir(tmp_path) == ["out.bin"]

    def test_missing_directory_is_an_os_error(self, tmp_path: Path) -> None:
        """A target in a missing directory fails before anything is written."""
        with pytest.raises(FileNotFoundError), atomic_output(tmp_path / "no" / "out.txt"):
            pass


class TestWriteJson:
    def test_non_finite_floats_are_strings(self) -> None:
        """NaN and infinities become the strings "NaN", "Infinity", "-Infinity": strict JSON."""
        out = io.StringIO()
        write_json({"a": math.nan, "b": [math.inf, -math.inf], "c": np.float64(0.5)}, out)
        assert json.loads(out.getvalue()) == {"a": "NaN", "b": ["Infinity", "-Infinity"], "c": 0.5}

    def test_large_arrays_round_trip(self) -> None:
        """A curve longer than one write block reads back equal, row by row."""
        curve = np.random.default_rng(5).random((10_001, 3))
        curve[7, 1] = math.nan
        out = io.StringIO()
        write_json({"curve": curve, "empty": np.zeros((0, 2)), "flat": np.arange(3.0)}, out)
        back = json.loads(out.getvalue())
        assert back["curve"][7][1] == "NaN"
        back["curve"][7][1] = math.nan
        np.testing.assert_array_equal(np.array(back["curve"], dtype=float), curve)
        assert back["empty"] == []
        assert back["flat"] == [0.0, 1.0, 2.0]

    def test_scalars(self) -> None:
        """Booleans, integers, None and strings are written as JSON; keys become strings."""
        out = io.StringIO()
        write_json({"t": True, "n": None, "i": np.int64(3), 5: "x\n", "l": [], "d": {}}, out)
        assert json.loads(out.getvalue()) == {
            "t": True,
            "n": None,
            "i": 3,
            "5": "x\n",
            "l": [],
            "d": {},
        }

    def test_unknown_type_is_a_type_error(self) -> None:
        """Objects JSON cannot hold are refused by type."""
        with pytest.raises(TypeError, match="cannot write object as JSON"):
            write_json({"x": object()}, io.StringIO())


class TestBundledData:
    def test_spam_filter_file_is_reproducible(self) -> None:
        """The bundled 20,000-case file is exactly what its generator writes."""
        spec = importlib.util.spec_from_file_location(
            "make_spam_filter", DATA_DIR / "make_spam_filter.py"
        )
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        bundled = (DATA_DIR / "spam_filter_20k.tsv").read_text(encoding="utf-8")
        assert module.spam_filter_tsv() == bundled
        assert len(bundled.encode()) < 1_000_000

    def test_running_example_file_holds_the_spec_cases(self) -> None:
        """The bundled running example is the spec's 10 cases in insertion order."""
        with (DATA_DIR / "lingpipe_running_example.tsv").open(newline="") as stream:
            rows = flat(list(ScoredCaseReader(stream, "x")))
        assert rows == [
            (None, label, score)
            for label, score in RUNNING_EXAMPLE
        ]


class TestOneAtomicWriter:
    """The one atomic writer behind save() and every -o."""

    def test_keeps_the_mode_of_the_file_it_replaces(self, tmp_path: Path) -> None:
        """A 0600 file stays 0600 after save() and after -o; nothing else is left behind."""
        from rankeval import ScoredPrecisionRecallEvaluation
        from rankeval.cli import main

        state, report = tmp_path / "state", tmp_path / "report.txt"
        for target in (state, report):
            target.write_text("old")
            target.chmod(0o600)
        ev = ScoredPrecisionRecallEvaluation()
        ev.add_cases([True, False], [2.0, 1.0])
        ev.save(state)
        cases = tmp_path / "cases.tsv"
        cases.write_text("1\t2\n0\t1\n")
        assert main(["scored", "-o", str(report), str(cases)]) == 0
        for target in (state, report):
            assert os.stat(target).st_mode & 0o777 == 0o600
        assert sorted(p.name for p in tmp_path.iterdir()) == ["cases.tsv", "report.txt", "state"]

    def test_never_touches_the_process_umask(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Setting the umask races with other threads' file creation, so it is never called."""
        def refuse(mask: int) -> int:
            raise AssertionError("os.umask called")

        monkeypatch.setattr(os, "umask", refuse)
        with atomic_output(tmp_path / "new.txt") as out:
            out.write("x")
        assert (tmp_path / "new.txt").read_text() == "x"

    def test_syncs_file_and_directory_before_it_returns(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """fsync runs on the file and on its directory."""
        synced: list[int] = []
        real = os.fsync
        monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
        with atomic_output(tmp_path / "new.bin", binary=True) as out:
            out.write(b"x")
        assert len(synced) == 2


class TestStaleTemporaries:
    """Temporary files of killed saves go on the next save; a live writer's never do."""

    def leftover(self, directory: Path, base: str, age: float) -> Path:
        from rankeval.io import TEMP_SUFFIX

        path = directory / f".{base}.{os.urandom(8).hex()}{TEMP_SUFFIX}"
        path.write_bytes(b"half a save")
        when = os.path.getmtime(path) - age
        os.utime(path, (when, when))
        return path

    def test_old_unlocked_leftovers_of_this_target_are_removed(self, tmp_path: Path) -> None:
        from rankeval.io import STALE_AFTER

        old = self.leftover(tmp_path, "out.txt", 2 * STALE_AFTER)
        fresh = self.leftover(tmp_path, "out.txt", 0)  # perhaps a save starting right now
        other_target = self.leftover(tmp_path, "other.txt", 2 * STALE_AFTER)
        with atomic_output(tmp_path / "out.txt") as out:
            out.write("x")
        assert not old.exists()
        assert fresh.exists()
        assert other_target.exists()

    def test_a_leftover_locked_by_a_live_writer_stays(self, tmp_path: Path) -> None:
        import subprocess
        import sys

        from rankeval.io import STALE_AFTER

        held = self.leftover(tmp_path, "out.txt", 2 * STALE_AFTER)
        holder = subprocess.Popen(
            [sys.executable, "-c",
             "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
             "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
             str(held)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline() == "held\n"
            with atomic_output(tmp_path / "out.txt") as out:
                out.write("x")
            assert held.exists()
        finally:
            holder.communicate("", timeout=60)
        with atomic_output(tmp_path / "out.txt") as out:  # the writer is gone now
            out.write("y")
        assert not held.exists()


def test_masked_arrays_are_refused_unless_nothing_is_masked() -> None:
    from rankeval import ScoredPrecisionRecallEvaluation

    ev = ScoredPrecisionRecallEvaluation()
    masked = r"scores is a masked array with masked entries \(scores\[1\]"
    with pytest.raises(ValueError, match=masked):
        ev.add_cases([True, False], np.ma.array([0.5, 0.7], mask=[False, True]))
    assert ev.num_cases() == 0
    ev.add_cases(np.ma.array([True, False]), np.ma.array([0.5, 0.7]))  # no entry masked
    assert ev.num_cases() == 2


def test_write_errors_name_the_target_not_the_temporary_file(tmp_path: Path) -> None:
    from rankeval import ScoredPrecisionRecallEvaluation

    target = tmp_path / "missing" / "ev.rankeval"
    with pytest.raises(FileNotFoundError) as info:
        ScoredPrecisionRecallEvaluation().save(target)
    assert info.value.filename == str(target)
    assert "rankeval-tmp" not in str(info.value)
    (tmp_path / "dir.rankeval").mkdir()
    (tmp_path / "dir.rankeval" / "x").write_text("keeps the rename from replacing it")
    with pytest.raises(IsADirectoryError) as info:
        ScoredPrecisionRecallEvaluation().save(tmp_path / "dir.rankeval")
    assert "rankeval-tmp" not in str(info.value)
