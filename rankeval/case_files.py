"""Scored-case files: TSV, CSV and JSON Lines, read a chunk of rows at a time.

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

import csv
import itertools
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from rankeval.errors import DataError

if TYPE_CHECKING:
    from _csv import Reader as CsvReader

__all__ = [
    "DEFAULT_CHUNK_ROWS",
    "Cases",
    "FileFormat",
    "ScoredCaseReader",
    "parse_label",
    "parse_score",
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
