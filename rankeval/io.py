"""Readers and writers at the edge: scored-case files, JSON output, atomic output files.

Scored-case files hold one case a line, as tab-separated values, comma-separated values or JSON
Lines. The format is taken from the first non-blank line (a line starting with ``{`` or ``[`` is
JSON Lines, else a tab means TSV, else a comma means CSV) unless it is given explicitly.

Columns
    Without a header, a row is ``label, score`` or ``query, label, score``. A header row is
    recognised when its fields name the columns (case-insensitive); the columns may then come
    in any order and further columns are ignored:

    * label: ``label``, ``correct``, ``relevant``, ``relevance``, ``y_true``, ``target``,
      ``truth``, ``gold``;
    * score: ``score``, ``y_score``, ``y_pred``, ``prediction``, ``confidence``,
      ``probability``, ``prob``, ``logit``;
    * query (optional): ``query``, ``query_id``, ``qid``, ``topic``.

    JSON Lines rows are objects with those keys, or arrays laid out like headerless rows.

    Other names are given as ``columns`` (``{"label": "is_spam", "score": "p"}``; on the
    command line ``--label-column``, ``--score-column``, ``--query-column``): a named column
    must then be in the header (or be a key of the JSON objects) exactly as written, and the
    roles not named are found by the names above.

Values
    Labels are ``true``/``false``, ``1``/``0`` or ``yes``/``no`` in any case (JSON also
    ``true``/``false`` and the numbers 0 and 1). Scores are decimal numbers as C's
    ``strtod`` reads them (ASCII only, no ``_`` separators, spaces or tabs around allowed);
    ``inf``, ``Infinity`` and their negatives are accepted; NaN and finite numbers too large
    for a double (``1e400``) are not. Blank lines (nothing but spaces or tabs) are skipped.

Malformed input raises :class:`DataError`, whose text is ``FILE:LINE: expected ..., found ...``.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import itertools
import json
import math
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from rankeval.errors import DataError

if TYPE_CHECKING:
    from _csv import Reader as CsvReader

__all__ = [
    "DEFAULT_CHUNK_ROWS",
    "TEMP_SUFFIX",
    "Cases",
    "DataError",
    "FileFormat",
    "ScoredCaseReader",
    "atomic_output",
    "output_kind",
    "physical_memory",
    "same_file",
    "write_json",
]

FileFormat = Literal["tsv", "csv", "jsonl"]

#: Rows parsed before they are handed on as arrays: large enough that the per-call cost of
#: ``add_cases`` vanishes, small enough (about 1.5 MB of Python objects) to be noise in memory.
DEFAULT_CHUNK_ROWS = 65536

_LABEL_TEXT: dict[str, bool] = {
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "yes": True,
    "no": False,
}
# The spellings seen in practice, looked up before any stripping or case folding.
_LABEL_FAST: dict[str, bool] = {
    **_LABEL_TEXT,
    **{key.upper(): value for key, value in _LABEL_TEXT.items()},
    **{key.capitalize(): value for key, value in _LABEL_TEXT.items()},
}

_LABEL_NAMES = ("label", "correct", "relevant", "relevance", "y_true", "target", "truth", "gold")
_SCORE_NAMES = (
    "score",
    "y_score",
    "y_pred",
    "prediction",
    "confidence",
    "probability",
    "prob",
    "logit",
)
_QUERY_NAMES = ("query", "query_id", "qid", "topic")

_SHOWN_CHARS = 60


@dataclass(frozen=True)
class Cases:
    """Consecutive cases of one query, in file order.

    ``query`` is ``None`` when the file has no query column.
    """

    query: str | None
    labels: NDArray[np.bool_]
    scores: NDArray[np.float64]


@dataclass(frozen=True)
class _Layout:
    """Where the fields of a row are."""

    label: int | str
    score: int | str
    query: int | str | None
    width: int | None  # fields a delimited row must have; None for JSON objects


def _shown(text: str) -> str:
    """Quote a found value for a message, cut to a readable length.

    Examples
    --------
    >>> _shown("abc"), _shown("x" * 100)[-5:]
    ("'abc'", "x'...")
    """
    if len(text) > _SHOWN_CHARS:
        return repr(text[:_SHOWN_CHARS]) + "..."
    return repr(text)


def parse_label(text: str) -> bool:
    """Parse a label: ``true``/``false``, ``1``/``0``, ``yes``/``no``, any case, spaces ignored.

    Raises ``ValueError`` with the expected spellings and the text found.

    Complexity: O(len(text)).

    Examples
    --------
    >>> parse_label("Yes"), parse_label(" 0 ")
    (True, False)
    """
    label = _LABEL_FAST.get(text)
    if label is None:
        label = _LABEL_TEXT.get(text.strip().lower())
        if label is None:
            raise ValueError(f"expected a label true/false, 1/0 or yes/no, found {_shown(text)}")
    return label


def parse_score(text: str) -> float:
    """Parse a score: a decimal number or an infinity; NaN and anything else are refused.

    The numbers C's ``strtod`` reads (what trec_eval and LingPipe's Java read,
    too): ASCII digits, sign, point, exponent, ``inf``/``infinity``, with
    spaces or tabs around. Python's extras (``5_000``, non-ASCII digits) are
    refused, and so is a finite number too large for a double (``1e400``),
    which ``float()`` would silently turn into an infinity.

    Raises ``ValueError`` with what was expected and the text found.

    Complexity: O(len(text)).

    Examples
    --------
    >>> parse_score("-1.27"), parse_score("-Infinity"), parse_score(" 5 ")
    (-1.27, -inf, 5.0)
    >>> parse_score("1e400")
    Traceback (most recent call last):
    ...
    ValueError: expected a score a double can hold, found '1e400' (too large)
    """
    if not text.isascii() or "_" in text:
        raise ValueError(f"expected a number for the score, found {_shown(text)}")
    try:
        score = float(text)
    except ValueError:
        raise ValueError(f"expected a number for the score, found {_shown(text)}") from None
    if score != score:
        raise ValueError(f"expected a score that is a number, found NaN ({_shown(text)})")
    if score in (math.inf, -math.inf) and text.strip(" \t").lstrip("+-").lower() not in (
        "inf",
        "infinity",
    ):
        raise ValueError(f"expected a score a double can hold, found {_shown(text)} (too large)")
    return score


def _json_label(value: object) -> bool:
    """Parse a JSON label: a boolean, 0 or 1, or a label string."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        return parse_label(value)
    found = _shown(json.dumps(value))
    raise ValueError(f"expected a label true/false, 1/0 or yes/no, found {found}")


def _json_score(value: object) -> float:
    """Parse a JSON score: a number, or a string holding one (JSON has no infinities)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            score = float(value)
        except OverflowError:
            raise ValueError(
                f"expected a score a double can hold, found an integer of {len(str(value))} digits"
            ) from None
        if score != score:
            raise ValueError("expected a score that is a number, found NaN")
        return score
    if isinstance(value, str):
        return parse_score(value)
    raise ValueError(f"expected a number for the score, found {_shown(json.dumps(value))}")


def _json_float_literal(text: str) -> float:
    """A JSON number with a fraction or exponent, refused if a double cannot hold it."""
    value = float(text)
    if value in (math.inf, -math.inf):
        raise ValueError(f"{_shown(text)}, too large for a double")
    return value


def _query_text(value: object) -> str:
    """Validate a query id: non-empty text (JSON integers are taken as their decimal text)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    shown = _shown(value) if isinstance(value, str) else _shown(json.dumps(value))
    raise ValueError(f"expected a query id, found {shown}")


def _pick(names: Iterable[str], wanted: tuple[str, ...], what: str,
          named: str | None = None) -> str | None:
    """Find the one name among ``names`` that is a spelling of a column, or None; with
    ``named`` (the caller's name for it), the one name equal to it, which must be there."""
    names = list(names)
    if named is not None:
        exact = [name for name in names if name.strip() == named]
        if not exact:
            raise ValueError(f"expected a {what} column named {named!r}, found the fields "
                             f"{_fields(names)}")
        if len(exact) > 1:
            raise ValueError(f"expected one {what} column named {named!r}, found {len(exact)}")
        return exact[0]
    found = [name for name in names if name.strip().lower() in wanted]
    if len(found) > 1:
        raise ValueError(f"expected one {what} column, found several: {found!r}")
    return found[0] if found else None


def _one_role_each(label: str | None, score: str | None, query: str | None,
                   names: list[str]) -> None:
    """Refuse one column taken as two of the label, the score and the query."""
    chosen = [name for name in (label, score, query) if name is not None]
    if len(set(chosen)) < len(chosen):
        raise ValueError(f"expected the label, score and query in different columns, found "
                         f"one column for two of them in {_fields(names)}")


def _fields(names: list[str]) -> str:
    """A row's fields for a message, cut to a readable length."""
    text = repr(names)
    return text if len(text) <= 120 else text[:117] + "..."


def _sniff(line: str) -> FileFormat:
    """Tell the format from the first non-blank line."""
    stripped = line.lstrip()
    if stripped.startswith(("{", "[")):
        return "jsonl"
    if "\t" in line:
        return "tsv"
    if "," in line:
        return "csv"
    raise ValueError(
        "expected fields separated by a tab or a comma, or a JSON object or array, "
        f"found {_shown(line.rstrip(chr(10) + chr(13)))}"
    )


def _group_by_query(
    queries: list[str], labels: NDArray[np.bool_], scores: NDArray[np.float64]
) -> Iterator[Cases]:
    """Split one chunk into per-query runs, keeping file order inside each query.

    Queries come out in order of first appearance in the chunk.

    Complexity: O(m log m) for m rows.
    """
    codes_of: dict[str, int] = {}
    codes = np.fromiter(
        (codes_of.setdefault(query, len(codes_of)) for query in queries),
        dtype=np.intp,
        count=len(queries),
    )
    if len(codes_of) == 1:
        yield Cases(queries[0], labels, scores)
        return
    # A stable sort keeps each query's rows in file order: the insertion tie policy needs it.
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(codes_of) + 1))
    for query, code in codes_of.items():
        rows = order[bounds[code] : bounds[code + 1]]
        yield Cases(query, labels[rows], scores[rows])


class ScoredCaseReader:
    """Stream scored cases from a text file, a chunk of rows at a time.

    The first non-blank line is read on construction, so the format and the presence of a
    query column (:attr:`has_query`) are known before the first chunk. Iterating yields
    :class:`Cases`, at most ``chunk_rows`` rows' worth per chunk (one :class:`Cases` per
    query present in the chunk); memory stays at one chunk whatever the file's size.

    Parameters
    ----------
    stream : binary or text stream, or any iterable of lines
        A file opened in binary mode is decoded as UTF-8 line by line, so undecodable
        bytes are reported at their line (a text stream decodes ahead, in blocks, and
        cannot say where). Text streams should be opened with ``newline=""``.
    path : str
        The name used in error messages (``"<stdin>"`` for standard input).
    file_format : {"tsv", "csv", "jsonl"}, optional
        Skips detection.
    chunk_rows : int
        Rows per chunk.
    columns : mapping, optional
        The header's names for the ``"label"``, ``"score"`` and ``"query"`` columns where
        they are not among the recognised names (see the module text).

    Raises
    ------
    DataError
        On construction for a malformed first row, while iterating for any later one.

    Complexity: O(b) time for b bytes read; O(chunk_rows) memory.

    Examples
    --------
    >>> import io
    >>> reader = ScoredCaseReader(io.StringIO("label,score\\ntrue,0.5\\nno,0.25\\n"), "x.csv")
    >>> reader.file_format, reader.has_query, reader.header
    ('csv', False, ['label', 'score'])
    >>> [(c.labels.tolist(), c.scores.tolist()) for c in reader]
    [([True, False], [0.5, 0.25])]
    """

    def __init__(
        self,
        stream: Iterable[str] | Iterable[bytes],
        path: str,
        *,
        file_format: FileFormat | None = None,
        chunk_rows: int = DEFAULT_CHUNK_ROWS,
        columns: Mapping[str, str] | None = None,
    ) -> None:
        if chunk_rows < 1:
            raise ValueError(f"chunk_rows must be at least 1, got {chunk_rows!r}")
        named = dict(columns or {})
        unknown = sorted(set(named) - {"label", "score", "query"})
        if unknown:
            raise ValueError(f"columns names the label, score and query columns, not {unknown}")
        for role, column in named.items():
            if not isinstance(column, str) or not column.strip():
                raise ValueError(f"the {role} column's name must be a non-empty string, got "
                                 f"{column!r}")
        self._named = named
        self.path = path
        self.chunk_rows = chunk_rows
        #: Physical lines consumed so far; updated once per chunk.
        self.lines_read = 0
        self.header: list[str] | None = None
        self._stream = stream
        self._first_line = ""
        self._first_line_number = 0
        raw = iter(stream)
        first = next(raw, None)
        self._binary = isinstance(first, bytes)
        chained: Iterator[Any] = iter(()) if first is None else itertools.chain([first], raw)
        # bytes.decode (UTF-8, strict) runs in C; a failure is placed by counting lines.
        self._lines: Iterator[str] = map(bytes.decode, chained) if self._binary else chained
        number = 0
        try:
            for number, line in enumerate(self._lines, start=1):
                if line.strip():
                    self._first_line, self._first_line_number = line.lstrip("\ufeff"), number
                    break
        except UnicodeDecodeError as error:
            raise self._decode_error(number + 1, error) from None
        self.file_format: FileFormat | None = file_format
        self._layout: _Layout | None = None
        if self._first_line:
            if self.file_format is None:
                self.file_format = self._at(self._first_line_number, _sniff, self._first_line)
            if self.file_format == "jsonl":
                record = self._json_record(self._first_line, self._first_line_number)
                self._layout = self._at(self._first_line_number, self._json_layout, record)
            else:
                row = self._first_row()
                self._layout = self._at(self._first_line_number, self._delimited_layout, row)

    @property
    def has_query(self) -> bool:
        """Whether the rows carry a query column (False for an empty file)."""
        return self._layout is not None and self._layout.query is not None

    @property
    def bytes_read(self) -> int | None:
        """Bytes consumed from the underlying file, when it can tell; else None."""
        source = self._stream if self._binary else getattr(self._stream, "buffer", None)
        tell = getattr(source, "tell", None)
        try:
            return None if tell is None else int(tell())
        except (OSError, ValueError):
            return None

    def _decode_error(self, line: int, error: UnicodeDecodeError) -> DataError:
        message = f"expected UTF-8 text, found undecodable bytes ({error.reason})"
        return DataError(self.path, line, message)

    def _at(self, line: int, parse: Callable[[Any], Any], value: Any) -> Any:
        """Call ``parse(value)``, turning its ValueError into a DataError at ``line``."""
        try:
            return parse(value)
        except ValueError as error:
            raise DataError(self.path, line, str(error)) from None

    def _first_row(self) -> list[str]:
        try:
            return next(self._csv_rows([self._first_line]))
        except csv.Error as error:
            raise self._row_error(self._first_line_number, error) from None

    def _row_error(self, line: int, error: csv.Error) -> DataError:
        """The error for a row the csv module cannot read; a bare CR gets its own words."""
        if "new-line character" in str(error):  # the csv module's words for a bare CR
            problem = "a carriage return (\\r) inside the line; lines must end in \\n or \\r\\n"
        else:
            problem = str(error)
        kind = str(self.file_format).upper()
        return DataError(self.path, line, f"expected a well-formed {kind} row, found {problem}")

    def _csv_rows(self, lines: Iterable[str]) -> CsvReader:
        """csv rows of the detected dialect (TSV: no quoting at all)."""
        if self.file_format == "tsv":
            return csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE, strict=True)
        return csv.reader(lines, strict=True)

    def _delimited_layout(self, row: list[str]) -> _Layout:
        """Read the first row of a TSV/CSV file as a header, or infer positions from its width."""
        named = self._named
        label = _pick(row, _LABEL_NAMES, "label", named.get("label"))
        score = _pick(row, _SCORE_NAMES, "score", named.get("score"))
        query = _pick(row, _QUERY_NAMES, "query", named.get("query"))
        _one_role_each(label, score, query, row)
        if label is not None or score is not None or query is not None:
            if label is None or score is None:
                missing = "label" if label is None else "score"
                names = _LABEL_NAMES if label is None else _SCORE_NAMES
                raise ValueError(
                    f"expected the header to name a {missing} column ({', '.join(names)}), "
                    f"found {row!r}"
                )
            self.header = row
            query_at = None if query is None else row.index(query)
            return _Layout(row.index(label), row.index(score), query_at, len(row))
        if len(row) == 2:
            return _Layout(0, 1, None, 2)
        if len(row) == 3:
            return _Layout(1, 2, 0, 3)
        raise ValueError(
            f"expected 2 {self._separator()} fields (label, score) or 3 (query, label, score), "
            f"found {len(row)}: {_shown(self._first_line.rstrip(chr(10) + chr(13)))}"
        )

    def _separator(self) -> str:
        return "tab-separated" if self.file_format == "tsv" else "comma-separated"

    def _json_record(self, line: str, number: int) -> object:
        try:
            return json.loads(line, parse_float=_json_float_literal)
        except json.JSONDecodeError as error:
            found = f"{_shown(line.strip())} ({error.msg})"
            message = f"expected a JSON object or array, found {found}"
            raise DataError(self.path, number, message) from None
        except ValueError as error:  # an integer past Python's 4300 digits, a huge float
            problem = str(error)
            if "integer string conversion" in problem:
                problem = "an integer of more than 4300 digits"
            message = f"expected a JSON object or array of usable values, found {problem}"
            raise DataError(self.path, number, message) from None
        except RecursionError:
            message = "expected a JSON object or array, found nesting too deep to read"
            raise DataError(self.path, number, message) from None

    def _json_layout(self, record: object) -> _Layout:
        """Infer the layout of JSON Lines records from the first one."""
        named = self._named
        if isinstance(record, dict):
            keys = list(record)
            label = _pick(keys, _LABEL_NAMES, "label", named.get("label"))
            score = _pick(keys, _SCORE_NAMES, "score", named.get("score"))
            if label is None or score is None:
                missing = "label" if label is None else "score"
                names = _LABEL_NAMES if label is None else _SCORE_NAMES
                expected = f"a {missing} key ({', '.join(names)})"
                raise ValueError(f"expected {expected}, found keys {keys!r}")
            query = _pick(keys, _QUERY_NAMES, "query", named.get("query"))
            _one_role_each(label, score, query, keys)
            return _Layout(label, score, query, None)
        if named:
            raise ValueError("expected JSON objects whose keys name the columns, found an "
                             "array")
        if isinstance(record, list) and len(record) in (2, 3):
            return _Layout(0, 1, None, 2) if len(record) == 2 else _Layout(1, 2, 0, 3)
        raise ValueError(
            "expected a JSON object with label and score keys, or an array [label, score] or "
            f"[query, label, score], found {_shown(json.dumps(record))}"
        )

    def __iter__(self) -> Iterator[Cases]:
        if self._layout is None:
            return iter(())
        if self.file_format == "jsonl":
            return self._json_chunks(self._layout)
        return self._delimited_chunks(self._layout)

    def _emit(
        self, queries: list[str] | None, labels: list[bool], scores: list[float]
    ) -> Iterator[Cases]:
        label_array = np.array(labels, dtype=np.bool_)
        score_array = np.array(scores, dtype=np.float64)
        if queries is None:
            yield Cases(None, label_array, score_array)
        else:
            yield from _group_by_query(queries, label_array, score_array)

    def _delimited_chunks(self, layout: _Layout) -> Iterator[Cases]:
        # The hot loop of a 10-million-line file: locals only, the fast label table first;
        # anything unusual takes the slow path, which names the line.
        label_at, score_at, query_at, width = layout.label, layout.score, layout.query, layout.width
        assert isinstance(label_at, int)
        assert isinstance(score_at, int)
        assert query_at is None or isinstance(query_at, int)
        if self.header is None:
            first, offset = [self._first_line], self._first_line_number - 1
        else:
            first, offset = [], self._first_line_number
        rows = self._csv_rows(itertools.chain(first, self._lines))
        fast_label = _LABEL_FAST.get
        chunk_rows = self.chunk_rows
        queries: list[str] | None = None if query_at is None else []
        labels: list[bool] = []
        scores: list[float] = []
        add_label, add_score = labels.append, scores.append
        try:
            for row in rows:
                if len(row) != width:
                    if not row or (len(row) == 1 and not row[0].strip()):
                        continue  # a blank line, spaces or tabs at most
                    raise self._width_error(offset + rows.line_num, row, layout)
                label = fast_label(row[label_at])
                text = row[score_at]
                try:
                    score = float(text)
                except ValueError:
                    score = math.nan
                # score - score is 0.0 unless the score is infinite or NaN; infinities
                # and anything float() reads beyond C's strtod take parse_score's path.
                if label is None or score - score != 0.0 or not text.isascii() or "_" in text:
                    if not "".join(row).strip():
                        continue  # tabs or spaces only: a blank line
                    line = offset + rows.line_num
                    label = self._at(line, parse_label, row[label_at])
                    score = self._at(line, parse_score, row[score_at])
                if queries is not None:
                    assert query_at is not None
                    query = row[query_at].strip()
                    if not query:
                        query = self._at(offset + rows.line_num, _query_text, row[query_at])
                    queries.append(query)
                add_label(label)
                add_score(score)
                if len(labels) >= chunk_rows:
                    self.lines_read = offset + rows.line_num
                    yield from self._emit(queries, labels, scores)
                    labels.clear()
                    scores.clear()
                    if queries is not None:
                        queries.clear()
        except csv.Error as error:
            raise self._row_error(offset + rows.line_num, error) from None
        except UnicodeDecodeError as error:
            raise self._decode_error(offset + rows.line_num + 1, error) from None
        self.lines_read = offset + rows.line_num
        if labels:
            yield from self._emit(queries, labels, scores)

    def _width_error(self, line: int, row: list[str], layout: _Layout) -> DataError:
        if self.header is None:
            names = "label, score" if layout.query is None else "query, label, score"
            what = f"{layout.width} {self._separator()} fields ({names})"
        else:
            what = f"{layout.width} {self._separator()} fields as in the header"
        found = ("\t" if self.file_format == "tsv" else ",").join(row)
        return DataError(self.path, line, f"expected {what}, found {len(row)}: {_shown(found)}")

    def _json_chunks(self, layout: _Layout) -> Iterator[Cases]:
        is_object = layout.width is None
        chunk_rows = self.chunk_rows
        queries: list[str] | None = None if layout.query is None else []
        labels: list[bool] = []
        scores: list[float] = []
        lines = enumerate(itertools.chain([self._first_line], self._lines), self._first_line_number)
        number = self._first_line_number - 1
        while True:
            try:
                number, line = next(lines)
            except StopIteration:
                break
            except UnicodeDecodeError as error:
                raise self._decode_error(number + 1, error) from None
            if not line.strip():
                continue
            record = self._json_record(line, number)
            try:
                if is_object:
                    if not isinstance(record, dict):
                        raise ValueError(
                            f"expected a JSON object like line {self._first_line_number}, "
                            f"found {_shown(line.strip())}"
                        )
                    fields: Mapping[Any, Any] = record
                    for key in (layout.label, layout.score, layout.query):
                        if key is not None and key not in record:
                            raise ValueError(f"expected a key {key!r}, found keys {list(record)!r}")
                else:
                    if not isinstance(record, list) or len(record) != layout.width:
                        raise ValueError(
                            f"expected an array of {layout.width} values like line "
                            f"{self._first_line_number}, found {_shown(line.strip())}"
                        )
                    fields = dict(enumerate(record))
                labels.append(_json_label(fields[layout.label]))
                scores.append(_json_score(fields[layout.score]))
                if queries is not None:
                    queries.append(_query_text(fields[layout.query]))
            except ValueError as error:
                raise DataError(self.path, number, str(error)) from None
            if len(labels) >= chunk_rows:
                self.lines_read = number
                yield from self._emit(queries, labels, scores)
                labels.clear()
                scores.clear()
                if queries is not None:
                    queries.clear()
        self.lines_read = number
        if labels:
            yield from self._emit(queries, labels, scores)


#: Progress appears on a terminal once a read has taken this many seconds,
PROGRESS_DELAY = 1.0
#: and is redrawn at most this often (seconds).
PROGRESS_INTERVAL = 0.2


class _NoProgress:
    """What :func:`progress_bar` gives when nothing is shown: every call does nothing."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        return None

    def set_description_str(self, desc: str) -> None:
        return None


def progress_bar(desc: str, total: int | None, unit: str = "B") -> Any:
    """A tqdm bar on standard error for a long job, or an object that shows nothing.

    Shown only when standard error is a terminal (tqdm is not even imported otherwise, so
    piped runs pay nothing), only once the job has taken :data:`PROGRESS_DELAY` seconds,
    and cleared at the end. ``total`` in ``unit`` (bytes scale as kB, MB), or None.
    """
    if not _isatty(sys.stderr):
        return _NoProgress()
    from tqdm import tqdm

    return tqdm(
        total=total, unit=unit, unit_scale=True, desc=desc, file=sys.stderr, leave=False,
        delay=PROGRESS_DELAY, mininterval=PROGRESS_INTERVAL,
    )


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def standard_output() -> Iterator[IO[str]]:
    """Standard output for a command's report; a failed write becomes a :class:`DataError`.

    ``BrokenPipeError`` passes through (the reader went away: the command ends
    quietly); any other write error (a full disk, a closed descriptor) is
    ``<stdout>: cannot write: ...``, after which descriptor 1 is pointed at
    /dev/null so that the interpreter's last flush cannot fail again.
    """
    out = sys.stdout
    if out is None:  # the process started with descriptor 1 closed
        raise DataError("<stdout>", None, "cannot write: standard output is closed")
    try:
        yield out
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        silence_stdout()
        raise DataError("<stdout>", None, f"cannot write: {os_reason(error)}") from None


def silence_stdout() -> None:
    """Point descriptor 1 at /dev/null, so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def os_reason(error: OSError) -> str:
    """The words of an OSError without its file name (messages name the file themselves)."""
    return error.strerror or str(error) or type(error).__name__


#: Suffix of the temporary files :func:`atomic_output` writes beside its target.
TEMP_SUFFIX = ".rankeval-tmp"


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """Write a file so that readers, crashes and kills see the old file or the whole new one.

    The block writes to a fresh temporary file beside ``path`` (``.<name>.<16 hex
    digits>.rankeval-tmp``); when it ends without an exception the file is flushed, synced to
    disk, renamed over ``path``, and the directory is synced so the rename survives a power
    loss. On any exception the temporary file is removed and ``path`` is untouched. This is
    the one writer behind ``save`` and every ``-o`` of the command line.

    What is replaced: a symbolic link is followed, and the file it names is replaced (the
    link stays a link). A target that exists and is a character device (``/dev/null``, a
    terminal, ``/dev/stdout``) or a FIFO is written in place, as a shell's ``>`` would, and
    never replaced by a file; any other target that is not a regular file (a socket, a
    block device) is refused. See :func:`output_kind`.

    The new file gets the mode of the file it replaces, or, for a new file, what ``open()``
    would give (0o666 less the umask, applied by the system: the process umask is never
    changed, so other threads are not disturbed).

    A writer locks its temporary file (``flock``; the lock dies with the process, even on
    SIGKILL). After a successful write, temporary files that killed writers left for the
    same target are removed once they are :data:`STALE_AFTER` seconds old and unlocked.

    Raises
    ------
    OSError
        As :func:`open` would, before the block runs: ``FileNotFoundError`` for ``""`` or a
        missing directory, ``IsADirectoryError`` for a directory or a path ending in a
        separator; later, whatever writing, syncing or renaming raises.

    Complexity: O(1) besides the writing itself, plus two ``fsync`` calls.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_output(target) as out:
    ...     _ = out.write("done\\n")
    >>> target.read_text()
    'done\\n'
    """
    target = os.fspath(path)
    if not isinstance(target, str):
        raise TypeError(f"path must be a str or os.PathLike[str], got {target!r}")
    if output_kind(target) == "stream":  # a device or a FIFO: written in place, never replaced
        with _writer(target, binary) as stream:
            yield stream
            stream.flush()
        return
    if os.path.islink(target):  # the file the link names is replaced; the link stays
        target = os.path.realpath(target)
    directory, base = _split_target(target)
    try:
        temporary, handle = _open_temporary(directory, base)
    except OSError as error:  # name the target, not a temporary file the user never chose
        raise type(error)(error.errno, error.strerror, target) from None
    try:
        _hold(handle)  # marks the temporary file as in use until this process ends
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        with _writer(handle, binary) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        try:
            os.replace(temporary, target)
        except OSError as error:
            raise type(error)(error.errno, error.strerror, target) from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # already renamed or removed
            os.unlink(temporary)
        raise
    _fsync_directory(directory)
    _remove_stale_temporaries(directory, base)


def physical_memory() -> int | None:
    """Bytes of memory the machine has (``sysconf``; no file is read, so nothing is left
    open if the caller is interrupted), or None where the system does not say.

    >>> physical_memory() is None or physical_memory() > 0
    True

    Complexity: O(1).
    """
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def _writer(target: str | int, binary: bool) -> IO[Any]:
    """``target`` (a path or a descriptor) opened for writing: bytes, or UTF-8 text with
    ``\n`` line ends."""
    if binary:
        return open(target, "wb")
    return open(target, "w", encoding="utf-8", newline="\n")


def output_kind(path: str | os.PathLike[str]) -> Literal["file", "stream"]:
    """How :func:`atomic_output` writes ``path``: ``"file"`` (a new or regular file, replaced
    atomically; through a symbolic link, the file it names) or ``"stream"`` (an existing
    character device or FIFO, written in place).

    Raises
    ------
    OSError
        ``IsADirectoryError`` for a directory; ``OSError`` (``EINVAL``) naming the kind for
        a socket or a block device, which are never written.

    >>> output_kind(os.devnull)
    'stream'

    Complexity: O(1) (one ``stat``).
    """
    target = os.fspath(path)
    try:
        mode = os.stat(target).st_mode  # follows symbolic links
    except OSError:  # missing (or a dangling link): a new file; other faults show on open
        return "file"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    kind = "a block device" if stat.S_ISBLK(mode) else (
        "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise OSError(errno.EINVAL, f"is {kind}; rankeval writes only files, character "
                  "devices and FIFOs", target)


def same_file(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]
              ) -> str | None:
    """The first of ``inputs`` that is the regular file ``output`` would replace, or None.

    Writing a device or FIFO in place clobbers nothing, so only a regular file counts;
    links and other names of one file (hard links, ``./a`` and ``a``) are the same file.

    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.tsv")
    >>> _ = open(path, "w").close()
    >>> same_file(path, ["-", path]) == path, same_file(os.devnull, [os.devnull])
    (True, None)

    Complexity: O(len(inputs)) ``stat`` calls.
    """
    try:
        out = os.stat(output)
    except OSError:
        return None
    if not stat.S_ISREG(out.st_mode):
        return None
    for name in inputs:
        try:
            other = os.stat(name)
        except (OSError, TypeError, ValueError):
            continue
        if (other.st_dev, other.st_ino) == (out.st_dev, out.st_ino):
            return os.fspath(name)
    return None


#: A temporary file left by a killed writer is removed once it is this old (seconds) and
#: no process holds its lock.
STALE_AFTER = 60.0


def _hold(handle: int) -> None:
    """Lock the temporary file: a writer's lock dies with its process, even on SIGKILL."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: stale files are left alone
        return
    with contextlib.suppress(OSError):
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _remove_stale_temporaries(directory: str, base: str) -> None:
    """Delete temporary files of earlier, killed saves to the same target.

    Only files of our own naming for this target, older than :data:`STALE_AFTER`
    and not locked by a live writer (see :func:`_hold`), so that a save running
    in another process is never disturbed. Best effort: errors are ignored.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    prefix = f".{base[:100]}."
    cutoff = time.time() - STALE_AFTER
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            name = entry.name
            middle = name[len(prefix) : -len(TEMP_SUFFIX)]
            if not (
                name.startswith(prefix)
                and name.endswith(TEMP_SUFFIX)
                and len(middle) == 16
                and all(c in "0123456789abcdef" for c in middle)
            ):
                continue
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime > cutoff or entry.is_symlink():
                    continue
                fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # fails if a writer lives
                    os.unlink(entry.path)
                finally:
                    os.close(fd)


def _open_temporary(directory: str, base: str) -> tuple[str, int]:
    """Create a fresh temporary file next to the target (mode 0o666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    stem = base[:100]  # keeps the name under NAME_MAX for long targets
    while True:
        name = os.path.join(directory, f".{stem}.{os.urandom(8).hex()}{TEMP_SUFFIX}")
        try:
            return name, os.open(name, flags, 0o666)
        except FileExistsError:  # pragma: no cover - 64 random bits collided
            continue


def _split_target(target: str) -> tuple[str, str]:
    """The target's directory and name; refuses paths that cannot name a file up front.

    The path is not normalised: ``a/..`` must stay a directory, not become ``.``.
    """
    if not target:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), target)
    directory, base = os.path.split(target)
    if not base or os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    return directory or os.curdir, base


def _fsync_directory(directory: str) -> None:
    """Make the rename durable; a no-op where directories cannot be opened or synced."""
    if os.name == "nt":  # pragma: no cover - Windows cannot open a directory
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as error:  # pragma: no cover - depends on the filesystem
        if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


_NON_FINITE = {math.inf: '"Infinity"', -math.inf: '"-Infinity"'}
_ROWS_PER_WRITE = 4096


def _json_float(value: float) -> str:
    """JSON text of a float; non-finite values become the strings NaN, Infinity, -Infinity.

    Examples
    --------
    >>> [_json_float(v) for v in (0.5, 1e-9, float("nan"), float("-inf"))]
    ['0.5', '1e-09', '"NaN"', '"-Infinity"']
    """
    if value != value:
        return '"NaN"'
    return _NON_FINITE.get(value) or repr(value)


def write_json(value: object, out: IO[str], *, indent: int = 2) -> None:
    """Write ``value`` as JSON, streaming NumPy arrays a block of rows at a time.

    Non-finite floats, which JSON cannot express, are written as the strings ``"NaN"``,
    ``"Infinity"`` and ``"-Infinity"`` (the convention of the LingPipe reference data).
    Dicts, lists, tuples, strings, ints, floats, bools, None and NumPy arrays (of any
    dimension, written as nested lists with each innermost row on one line) are supported.

    Complexity: O(size of the output); memory O(one block of rows) for arrays.

    Examples
    --------
    >>> import io, numpy as np
    >>> out = io.StringIO()
    >>> write_json({"auc": float("nan"), "curve": np.array([[0.0, 1.0], [1.0, 0.5]])}, out)
    >>> print(out.getvalue(), end="")
    {
      "auc": "NaN",
      "curve": [
        [0.0, 1.0],
        [1.0, 0.5]
      ]
    }
    """
    _write_json(value, out, indent, 0)
    out.write("\n")


def _write_json(value: object, out: IO[str], indent: int, depth: int) -> None:
    pad = " " * (indent * (depth + 1))
    if isinstance(value, np.ndarray):
        _write_json_array(value, out, indent, depth)
    elif isinstance(value, Mapping):
        if not value:
            out.write("{}")
            return
        out.write("{")
        for number, (key, item) in enumerate(value.items()):
            out.write(("," if number else "") + f"\n{pad}{json.dumps(str(key))}: ")
            _write_json(item, out, indent, depth + 1)
        out.write(f"\n{pad[:-indent] if indent else ''}}}")
    elif isinstance(value, (list, tuple)):
        if all(not isinstance(item, (Mapping, list, tuple, np.ndarray)) for item in value):
            out.write("[" + ", ".join(_json_scalar(item) for item in value) + "]")
            return
        out.write("[")
        for number, item in enumerate(value):
            out.write(("," if number else "") + f"\n{pad}")
            _write_json(item, out, indent, depth + 1)
        out.write(f"\n{pad[:-indent] if indent else ''}]")
    else:
        out.write(_json_scalar(value))


def _json_scalar(value: object) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _json_float(float(value))
    if value is None or isinstance(value, str):
        return json.dumps(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON: {value!r}")


def _write_json_array(array: NDArray[Any], out: IO[str], indent: int, depth: int) -> None:
    if array.ndim <= 1:
        out.write("[" + ", ".join(_json_scalar(item) for item in array.tolist()) + "]")
        return
    if len(array) == 0:
        out.write("[]")
        return
    pad = " " * (indent * (depth + 1))
    out.write("[")
    if array.ndim == 2 and array.dtype.kind == "f":
        fmt = _json_float
        for start in range(0, len(array), _ROWS_PER_WRITE):
            block = array[start : start + _ROWS_PER_WRITE].tolist()
            text = f",\n{pad}".join("[" + ", ".join(map(fmt, row)) + "]" for row in block)
            out.write(("," if start else "") + f"\n{pad}" + text)
    else:
        for number, item in enumerate(array):
            out.write(("," if number else "") + f"\n{pad}")
            _write_json_array(item, out, indent, depth + 1)
    out.write(f"\n{pad[:-indent] if indent else ''}]")
