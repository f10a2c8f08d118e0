"""Readers for TREC run and qrels files, with trec_eval's parsing rules and precise errors.

A **run** (trec_eval's "results file") has one retrieved document per line::

    qid  iter  docno  rank  score  run_id  [anything else is ignored]

A **qrels** file has one judgment per line::

    qid  iter  docno  rel

Fields are separated by any run of ASCII whitespace (C ``isspace``: space, tab, CR, VT, FF);
only ``\\n`` ends a line. As in trec_eval, the ``iter`` and ``rank`` columns are ignored (the
ranking comes from the scores), the run id kept is the one on the last line, blank lines and
lines whose first field starts with ``#`` are skipped.

Where trec_eval is lenient this module is strict, because a silent ``atof`` of ``"abc"`` is a
score of 0: every malformed line raises :class:`~rankeval.errors.DataError` naming ``FILE:LINE``.

* run: fewer than 6 fields, a score that is not a finite or infinite decimal number (NaN is
  refused: it cannot be ranked), a document listed twice for the same query;
* qrels: a field count other than 4, a relevance that is not an integer, a document judged
  twice for the same query.

The common case (no comments, the same number of fields on every line, plain decimal
numbers) is parsed without a Python loop over lines, so a 1,000,000-line run takes a fraction
of a second; anything unusual falls back to a line-by-line parse that finds the exact line of
the first error.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
>>> with open(path, "w") as f:
...     _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.25 bm25\\n")
>>> table = read_run(path)
>>> table.qid.tolist(), table.docid.tolist(), table.score.tolist(), table.runid
([b'q1', b'q1'], [b'd1', b'd2'], [2.5, 1.25], 'bm25')
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
from numpy.typing import NDArray

from rankeval.errors import DataError
from rankeval.ranking.join import first_duplicate, sorted_distinct

__all__ = [
    "DuplicateError",
    "QrelsTable",
    "RunTable",
    "parse_qrels",
    "parse_run",
    "read_qrels",
    "read_run",
    "settle_duplicates",
]

BytesArray = NDArray[np.bytes_]
IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
#: 1-based line numbers: int32 while they fit, else int64.
LineArray = NDArray[np.signedinteger[Any]]
#: A progress report: called with the number of bytes just parsed.
Progress = Callable[[int], None]

# Plain decimals with at most this many digits convert exactly as m / 10**f (Clinger's fast
# path: both operands are exact doubles, so the quotient is the correctly rounded value).
_MAX_FAST_DIGITS = 15
_SCORE_SLICE = 1 << 16
_MAX_FAST_FRACTION = 22
# Numbers longer than this go through the line parser; longer ids are sliced one by one.
_MAX_FAST_WIDTH = 64
# The fields holding ids (query, document) in both file kinds.
_ID_FIELDS = (0, 2)
# The fast path tokenises this many bytes (rounded up to a line end) at a time.
_CHUNK_BYTES = 1 << 20
# What the block parser returns: the columns asked for (the last one read as numbers), the
# line number of every row, and the last field of the last line.
_Fields = tuple[list[NDArray[Any]], LineArray, bytes]
# Reads a column of number tokens (file name and line numbers for messages).
_Number = Callable[[str, BytesArray, LineArray], NDArray[Any]]


@dataclass(frozen=True)
class RunTable:
    """A parsed run file, one row per retrieved document, in file order.

    Attributes
    ----------
    path : str
        The file read.
    qid, docid : ndarray of bytes (``S`` dtype)
        Query and document identifiers as the file spells them (byte strings).
    score : ndarray of float64
        The score column (``sim``), as C's ``strtod`` reads it.
    line : ndarray of int32 (int64 past 2**31 lines)
        The 1-based line number of each row, for messages.
    runid : str
        The run id of the last line (trec_eval prints that one).
    """

    path: str
    qid: BytesArray
    docid: BytesArray
    score: FloatArray
    line: LineArray
    runid: str


@dataclass(frozen=True)
class QrelsTable:
    """A parsed qrels file, one row per judgment, in file order.

    Attributes
    ----------
    path : str
        The file read.
    qid, docid : ndarray of bytes (``S`` dtype)
        Query and document identifiers.
    rel : ndarray of int64
        The judgment; negative values mean "in the pool but unjudged".
    line : ndarray of int32 (int64 past 2**31 lines)
        The 1-based line number of each row.
    """

    path: str
    qid: BytesArray
    docid: BytesArray
    rel: IntArray
    line: LineArray


def read_run(path: str | os.PathLike[str], progress: Progress | None = None, *,
             comments: bool = True, duplicates: bool = False) -> RunTable:
    """Read a TREC run (results) file.

    Parameters
    ----------
    path : str or path-like
        The file; ``qid iter docno rank score run_id`` per line, extra fields ignored.
    progress : callable, optional
        Called with the number of bytes parsed, as the parse goes on (a progress bar's
        ``update``); the calls add up to the file's size.
    comments : bool
        Skip lines whose first field starts with ``#``, as trec_eval 10 does (default).
        trec_eval 9 has no comments: there ``#q1 Q0 d 1 0.5 r`` is a result for query
        ``#q1`` (and a comment line is malformed).
    duplicates : bool
        Keep a document listed twice for one query (default: refuse it, naming both lines);
        see :func:`settle_duplicates` for trec_eval's own rule.

    Returns
    -------
    RunTable

    Raises
    ------
    rankeval.errors.DataError
        ``FILE:LINE: ...`` for a line with fewer than 6 fields, a score that is not a number
        (or is NaN), a document retrieved twice for one query, or a file with no results.
    OSError
        When the file cannot be read.

    Complexity: O(b + n log n) for b bytes and n lines (the log factor is the duplicate check).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "bad.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 high bm25\\n")
    >>> read_run(path)
    Traceback (most recent call last):
    ...
    rankeval.errors.DataError: ...bad.txt:1: expected a number for the score, found 'high'
    """
    name = os.fspath(path)
    fields = _read_fields(name, 6, (0, 2, 4), _parse_scores, exact=False, progress=progress,
                          comments=comments)
    if isinstance(fields, bytes):  # the line parser's turn
        return parse_run(fields, name, comments=comments, duplicates=duplicates)
    return _run_table(name, fields, duplicates)


def parse_run(data: bytes, name: str = "<run>", progress: Progress | None = None, *,
              comments: bool = True, duplicates: bool = False) -> RunTable:
    """Parse the bytes of a run file (see :func:`read_run`); ``name`` appears in messages.

    >>> parse_run(b"q1 Q0 d1 1 0.5 r\\n", "stdin").score.tolist()
    [0.5]

    Complexity: O(b + n log n).
    """
    fields = _fast_fields(name, data, 6, (0, 2, 4), _parse_scores, exact=False,
                          progress=progress, comments=comments)
    if fields is not None:
        return _run_table(name, fields, duplicates)
    qid, docid, score_tokens, lines, runid = _slow_run(name, data, comments)
    score = _parse_scores_slow(name, score_tokens, lines)
    return _checked_run(name, qid, docid, score, lines, runid, duplicates)


def _run_table(name: str, fields: _Fields, duplicates: bool) -> RunTable:
    (qid, docid, score), lines, last_runid = fields
    return _checked_run(name, qid, docid, score, lines, _decode(last_runid), duplicates)


def _checked_run(name: str, qid: BytesArray, docid: BytesArray, score: FloatArray,
                 lines: LineArray, runid: str, duplicates: bool) -> RunTable:
    if qid.size == 0:
        raise DataError(name, None, "expected at least one result line, found none")
    table = RunTable(name, qid, docid, score, lines, runid)
    if not duplicates:
        _refuse_duplicates(name, qid, docid, lines, "listed")
    return table


def read_qrels(path: str | os.PathLike[str], progress: Progress | None = None, *,
               comments: bool = True, duplicates: bool = False,
               allow_empty: bool = False) -> QrelsTable:
    """Read a TREC qrels file.

    Parameters
    ----------
    path : str or path-like
        The file; ``qid iter docno rel`` per line.
    progress, comments, duplicates
        As for :func:`read_run`.

    Returns
    -------
    QrelsTable

    Raises
    ------
    rankeval.errors.DataError
        ``FILE:LINE: ...`` for a line without exactly 4 fields, a relevance that is not an
        integer, a document judged twice for one query, or a file with no judgments.
    OSError
        When the file cannot be read.

    Complexity: O(b + n log n) for b bytes and n lines.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> read_qrels(path).rel.tolist()
    [1, 0]
    """
    name = os.fspath(path)
    fields = _read_fields(name, 4, (0, 2, 3), _parse_rels, exact=True, progress=progress,
                          comments=comments)
    if isinstance(fields, bytes):  # the line parser's turn
        return parse_qrels(fields, name, comments=comments, duplicates=duplicates,
                           allow_empty=allow_empty)
    (qid, docid, rel), lines, _ = fields
    return _checked_qrels(name, qid, docid, rel, lines, duplicates, allow_empty)


def parse_qrels(data: bytes, name: str = "<qrels>", progress: Progress | None = None, *,
                comments: bool = True, duplicates: bool = False,
                allow_empty: bool = False) -> QrelsTable:
    """Parse the bytes of a qrels file (see :func:`read_qrels`); ``name`` appears in messages.

    >>> parse_qrels(b"q1 0 d1 2\\n", "qrels").rel.tolist()
    [2]

    Complexity: O(b + m log m).
    """
    fields = _fast_fields(name, data, 4, (0, 2, 3), _parse_rels, exact=True, progress=progress,
                          comments=comments)
    if fields is None:
        qid, docid, rel_tokens, lines = _slow_qrels(name, data, comments)
        rel = _parse_rels_slow(name, rel_tokens, lines)
    else:
        (qid, docid, rel), lines, _ = fields
    return _checked_qrels(name, qid, docid, rel, lines, duplicates, allow_empty)


def _checked_qrels(name: str, qid: BytesArray, docid: BytesArray, rel: IntArray,
                   lines: LineArray, duplicates: bool, allow_empty: bool = False) -> QrelsTable:
    if qid.size == 0 and not allow_empty:
        raise DataError(name, None, "expected at least one judgment line, found none")
    if not duplicates:
        _refuse_duplicates(name, qid, docid, lines, "judged")
    return QrelsTable(name, qid, docid, rel, lines)


def settle_duplicates(qrels: QrelsTable, run: RunTable, *, qrels_strict: bool,
                      max_docs: int | None = None, float_scores: bool = False,
                      evaluated: bool = True) -> tuple[QrelsTable, RunTable, int]:
    """Duplicates as trec_eval treats them, in tables read with ``duplicates=True``.

    trec_eval looks for a document named twice only in the queries it evaluates, and there
    only among the ``max_docs`` (``-M``) it keeps after sorting: one the run lists twice for
    a query without judgments or below the cutoff, or the qrels judge twice for a query the
    run lacks, is never seen. Those duplicates are dropped here (the first line stays, and
    rows below the cutoff, which trec_eval drops anyway, go); the others raise
    :class:`DataError` as the readers do. ``qrels_strict``: every qrels query is evaluated
    (trec_eval 10 with ``-c`` ranks a missing one too). ``float_scores``: the ranking
    compares scores as C ``float`` (the 2020 tag), else as ``double``. ``evaluated=False``:
    no measure asked for reads a ranking (only ``num_q``, ``runid``), so trec_eval sees no
    duplicate at all.

    Returns the tables and the number of dropped judgments above 0, which trec_eval still
    counts in its ``-c`` summary of ``num_rel``. A duplicate trec_eval would meet raises
    :class:`DuplicateError` for the first query where it meets one (it evaluates queries in
    byte order of their ids, and looks at a query's run before its judgments), so that a
    ``-q`` caller can print the queries before it first, as trec_eval has.
    """
    # The query sets are built only if a duplicate turns up (one pass each over the ids).
    judged_queries = functools.cache(lambda: set(sorted_distinct(qrels.qid).tolist()))
    run_queries = functools.cache(lambda: set(sorted_distinct(run.qid).tolist()))
    run_keep, run_seen = _unseen_duplicates(run.path, run.qid, run.docid, run.line, "listed",
                                            lambda q: evaluated and q in judged_queries(),
                                            _below_cutoff(run, max_docs, float_scores))
    qrels_keep, qrels_seen = _unseen_duplicates(
        qrels.path, qrels.qid, qrels.docid, qrels.line, "judged",
        lambda q: evaluated and (qrels_strict or q in run_queries()))
    if run_seen or qrels_seen:
        first = min(run_seen.keys() | qrels_seen.keys())
        raise run_seen.get(first) or qrels_seen[first]
    dropped = 0
    if qrels_keep is not None:
        dropped = int(np.count_nonzero(qrels.rel[~qrels_keep] > 0))
        qrels = QrelsTable(qrels.path, qrels.qid[qrels_keep], qrels.docid[qrels_keep],
                           qrels.rel[qrels_keep], qrels.line[qrels_keep])
    if run_keep is not None:
        run = RunTable(run.path, run.qid[run_keep], run.docid[run_keep], run.score[run_keep],
                       run.line[run_keep], run.runid)
    return qrels, run, dropped


def _below_cutoff(run: RunTable, max_docs: int | None, float_scores: bool
                  ) -> Callable[[BoolArray], BoolArray]:
    """For the rows of queries with a duplicate: which ones trec_eval's ``-M`` drops."""

    def below(rows: BoolArray) -> BoolArray:
        out = np.zeros(rows.shape[0], dtype=np.bool_)
        if max_docs is None:
            return out
        scores = run.score.astype(np.float32) if float_scores else run.score
        for query in set(run.qid[rows].tolist()):
            members = np.flatnonzero(run.qid == query)
            # trec_eval's order: score descending, then document id descending (strcmp).
            ranked = sorted(members.tolist(), key=lambda i: (scores[i], run.docid[i]),
                            reverse=True)
            out[ranked[max_docs:]] = True
        return out

    return below


def _unseen_duplicates(name: str, qid: BytesArray, docid: BytesArray, lines: LineArray,
                       verb: str, evaluated: Callable[[bytes], bool],
                       below: Callable[[BoolArray], BoolArray] | None = None
                       ) -> tuple[BoolArray | None, dict[bytes, DuplicateError]]:
    """Rows to keep (None: no duplicate), and the error of each query where trec_eval would
    see a duplicate (the first one found in it).

    ``below`` marks, among the rows of queries holding a duplicate, those under trec_eval's
    ``-M`` cutoff, which it never looks at. Of the copies of one document, the one above the
    cutoff stays (it is ranked), or else the first (cut off anyway); two above it in an
    evaluated query are an error.
    """
    if first_duplicate(_group_codes(qid), docid) is None:
        return None, {}
    seen_twice: dict[bytes, DuplicateError] = {}
    cut = np.zeros(qid.shape[0], dtype=np.bool_)
    if below is not None:
        cut = below(_rows_of_duplicated_queries(qid, docid))
    copies: dict[tuple[bytes, bytes], list[int]] = {}
    for row, pair in enumerate(zip(qid.tolist(), docid.tolist(), strict=True)):
        copies.setdefault(pair, []).append(row)
    keep = np.ones(qid.shape[0], dtype=np.bool_)
    for pair, rows in copies.items():
        if len(rows) == 1:
            continue
        seen = [row for row in rows if not cut[row]]
        if len(seen) > 1 and evaluated(pair[0]) and pair[0] not in seen_twice:
            seen_twice[pair[0]] = _duplicate(name, pair[0], pair[1], verb, int(lines[seen[0]]),
                                             int(lines[seen[1]]))
        stays = seen[0] if seen else rows[0]
        keep[[row for row in rows if row != stays]] = False
    return keep, seen_twice


def _rows_of_duplicated_queries(qid: BytesArray, docid: BytesArray) -> BoolArray:
    """The rows of every query that names some document twice."""
    seen: set[tuple[bytes, bytes]] = set()
    queries: set[bytes] = set()
    for pair in zip(qid.tolist(), docid.tolist(), strict=True):
        if pair in seen:
            queries.add(pair[0])
        seen.add(pair)
    return np.isin(qid, np.array(sorted(queries), dtype=qid.dtype))


def _refuse_duplicates(
    name: str, qid: BytesArray, docid: BytesArray, lines: LineArray, verb: str
) -> None:
    """Raise :class:`DataError` at the second line naming a document twice for one query."""
    dup = first_duplicate(_group_codes(qid), docid)
    if dup is not None:
        first, second = dup
        raise _duplicate(name, qid[second], docid[second], verb, int(lines[first]),
                         int(lines[second]))


class DuplicateError(DataError):
    """A document named twice for one query; ``query`` is that query's id (bytes)."""

    def __init__(self, path: str, line: int, message: str, query: bytes) -> None:
        super().__init__(path, line, message)
        self.query = query


def _duplicate(name: str, qid: bytes | np.bytes_, docid: bytes | np.bytes_, verb: str,
               first: int, second: int) -> DuplicateError:
    """The error for a document named twice for one query, at the second line."""
    return DuplicateError(name, second, f"document {_decode(docid)!r} is {verb} twice for "
                                        f"query {_decode(qid)!r} (first on line {first})",
                          bytes(qid))


# ---------------------------------------------------------------------------------------------
# query codes


def _codes(values: NDArray[np.generic]) -> IntArray:
    """Integer codes equal exactly where ``values`` are equal."""
    _, inverse = np.unique(values, return_inverse=True)
    codes: IntArray = inverse.astype(np.int64).reshape(-1)
    return codes


def _group_codes(qid: BytesArray) -> IntArray:
    """Codes per distinct query id (order of the codes is irrelevant)."""
    n = int(qid.shape[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(qid[1:], qid[:-1], out=starts[1:])
    codes = np.cumsum(starts, dtype=np.int64)
    codes -= 1  # in place: one array of n codes at a time, not two
    # Contiguous blocks are enough when no query id comes back after another one.
    first_ids = qid[starts]
    if sorted_distinct(first_ids).shape[0] == first_ids.shape[0]:
        return codes
    return _codes(qid)


# ---------------------------------------------------------------------------------------------
# fast path: every line blank or with the expected number of fields, no comments


def _fast_fields(
    name: str, data: bytes, width: int, columns: tuple[int, ...], number: _Number, *,
    exact: bool, progress: Progress | None = None, comments: bool = True,
) -> _Fields | None:
    """The ``columns`` of every content line of ``data``, or ``None`` to fall back.

    Returns the requested field columns (``S`` arrays; the last one read by ``number``), the
    1-based line number of every content line, and the last field ``width - 1`` of the last
    content line. ``None`` whenever
    the vectorised rules might differ from the line-by-line parser: comments, control bytes
    other than whitespace, a line with fewer than ``width`` fields (or, when ``exact``, any
    other count), or a very long field.

    Large inputs are split at line ends into blocks of a megabyte: the temporaries of one
    block stay small (cache-friendly, memory reused), which is faster than one pass over
    everything, and each block's numbers are read at once (their text is never held for
    the whole file). ``progress`` hears of each block's bytes; on a fall back, of the rest
    (the line parser then runs without reports).
    """
    report = progress or _ignore
    if not data:
        return None
    fields, consumed = _block_fields(name, _slices(data), width, columns, number, exact=exact,
                                     progress=report, comments=comments, size=len(data))
    if fields is None:
        report(len(data) - consumed)
    return fields


def _read_fields(
    name: str, width: int, columns: tuple[int, ...], number: _Number, *, exact: bool,
    progress: Progress | None, comments: bool,
) -> _Fields | bytes:
    """:func:`_fast_fields` of a file read block by block, or, to fall back to the line
    parser, the whole file's bytes (progress then hears of the rest at once)."""
    report = progress or _ignore
    with open(name, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        fields, consumed = _block_fields(name, _file_blocks(handle), width, columns, number,
                                         exact=exact, progress=report, comments=comments,
                                         size=size or None)
        if fields is not None:
            return fields
        handle.seek(0)
        data = handle.read()
    report(len(data) - consumed)
    return data


def _slices(data: bytes) -> Iterator[bytes]:
    """``data`` in blocks of about :data:`_CHUNK_BYTES`, each ending at a line end."""
    start = 0
    while start < len(data):
        stop = min(start + _CHUNK_BYTES, len(data))
        if stop < len(data):
            newline = data.find(b"\n", stop)
            stop = len(data) if newline < 0 else newline + 1
        yield data[start:stop]
        start = stop


def _file_blocks(handle: BinaryIO) -> Iterator[bytes]:
    """A file in blocks of about :data:`_CHUNK_BYTES`, each ending at a line end (the last
    one at the end of the file): the whole file is never in memory at once."""
    carry = b""
    while True:
        chunk = handle.read(_CHUNK_BYTES)
        if not chunk:
            if carry:
                yield carry
            return
        block = carry + chunk
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            carry = block
            continue
        carry = block[cut:]
        yield block[:cut]


def _block_fields(
    name: str, blocks: Iterable[bytes], width: int, columns: tuple[int, ...],
    number: _Number, *, exact: bool, progress: Progress, comments: bool,
    size: int | None = None,
) -> tuple[_Fields | None, int]:
    """:func:`_fast_fields` over successive blocks of whole lines, and the bytes taken.

    The fields are None to fall back; the count is then the bytes taken before that. A
    number ``number`` refuses is reported only once every block has passed the field
    counts: a line the line parser refuses comes first, wherever it is (as it would have).
    ``size``, the input's length when known, bounds the rows (a content line takes at
    least ``2 * width`` bytes), so each column is written once into its final array.
    """
    capacity = 1 << 16 if size is None else size // (2 * width) + 1
    # A padded id column may take a few times the input, never rows x the longest id.
    budget = 4 * (size if size is not None else 1 << 24) + (1 << 20)
    built = [_Column(capacity, budget) for _ in range(len(columns) + 1)]  # fields, lines
    # Line numbers in 32 bits when they surely fit (a line takes a byte at least).
    line_type: type[np.signedinteger[Any]] = (
        np.int32 if size is not None and size < 2**31 else np.int64)
    lines_before = 0
    consumed = 0
    last_field = b""
    refused: DataError | None = None
    for block in blocks:
        if comments and b"#" in block:
            return None, consumed
        piece = _chunk_fields(block, 0, len(block), width, columns, exact=exact)
        if piece is None:
            return None, consumed
        progress(len(block))
        consumed += len(block)
        fields: list[NDArray[Any]] = list(piece[0])
        lines_before_next = lines_before + piece[3]
        if lines_before_next >= 2**31:
            line_type = np.int64  # the size was wrong (a growing file): the column widens
        lines: LineArray = (piece[1] + lines_before).astype(line_type, copy=False)
        lines_before = lines_before_next
        if lines.size:
            last_field = piece[2]
        if refused is None:
            try:
                fields[-1] = number(name, fields[-1], lines)
            except DataError as problem:
                refused = problem
        if refused is None:
            for column, part in zip(built, (*fields, lines), strict=True):
                column.append(part)
    if refused is not None:
        raise refused
    if not consumed:
        return None, consumed
    *merged, numbers = (column.result() for column in built)
    return (merged, numbers, last_field), consumed


class _Column:
    """A column appended block by block into one array, grown (or widened, for longer ids)
    only when it must. Rows past the end are never written: a generous capacity costs
    address space, not memory."""

    def __init__(self, capacity: int, budget: int = 1 << 62) -> None:
        self._capacity = max(capacity, 1)
        self._budget = budget  # bytes an S column may take; past it, an object column
        self._data: NDArray[Any] | None = None
        self._size = 0

    def append(self, part: NDArray[Any]) -> None:
        n = int(part.shape[0])
        data, size = self._data, self._size
        kind = part.dtype if data is None else np.result_type(data.dtype, part.dtype)
        if kind.kind == "S" and max(self._capacity, size + n) * kind.itemsize > self._budget:
            # One long id would pad every row to its length (a 1 MB id among short ones:
            # rows x 1 MB): such a column holds the ids as objects, each its own length.
            kind = np.dtype(object)
            part = part.astype(object)
        if data is None or kind != data.dtype or size + n > data.shape[0]:
            while size + n > self._capacity:
                self._capacity *= 2
            grown = np.empty(self._capacity, dtype=kind)
            if data is not None:
                grown[:size] = data[:size]
            self._data = data = grown
        data[size : size + n] = part
        self._size = size + n

    def result(self) -> NDArray[Any]:
        assert self._data is not None
        out = self._data[: self._size]
        if out.dtype.kind == "O":  # some block held a very long id: S again if it pays
            return compact_ids(out.tolist())
        return out


def _ignore(parsed: int) -> None:
    return None


def _chunk_fields(
    data: bytes, start: int, stop: int, width: int, columns: tuple[int, ...], *, exact: bool
) -> tuple[list[BytesArray], IntArray, bytes, int] | None:
    """:func:`_fast_fields` for ``data[start:stop]`` (whole lines; numbers 1-based within),
    and the number of newlines there."""
    buf = np.frombuffer(data, dtype=np.uint8, count=stop - start, offset=start)
    newlines = np.flatnonzero(buf == 10)
    newline_count = int(newlines.size)
    # Bytes below 32 must all be whitespace (tab, LF, VT, FF, CR) for "<= 32" to mean
    # C's isspace: count them against the tabs and newlines (and the rare others).
    expected = newlines.size + int(np.count_nonzero(buf == 9))
    for rare in (b"\r", b"\x0b", b"\x0c"):
        if data.find(rare, start, stop) >= 0:
            expected += data.count(rare, start, stop)
    if int(np.count_nonzero(buf < 32)) != expected:
        return None
    if expected == newlines.size:  # no tab or other control byte: try one space apart
        simple = _single_spaced(data, start, buf, newlines, width, columns)
        if simple is not None:
            return (*simple, newline_count)
    space = buf <= 32
    # +1 where a token ends (text -> space), -1 where one starts (space -> text).
    step = np.diff(space.view(np.int8))
    edges = np.flatnonzero(step)
    rising = step[edges] < 0
    starts = edges[rising] + 1
    ends = edges[~rising] + 1
    if not space[0]:
        starts = np.concatenate(([0], starts))
    if not space[-1]:
        ends = np.concatenate((ends, [buf.size]))
    if newlines.size == 0 or newlines[-1] != buf.size - 1:
        newlines = np.concatenate((newlines, [buf.size]))
    tokens_before = np.searchsorted(starts, newlines)
    per_line = np.diff(tokens_before, prepend=0)
    content = per_line > 0
    counts = per_line[content]
    if counts.size == 0:
        empty: BytesArray = np.zeros(0, dtype="S1")
        return [empty for _ in columns], np.zeros(0, dtype=np.int64), b"", newline_count
    if (counts < width).any() or (exact and (counts != width).any()):
        return None
    first = (tokens_before - per_line)[content]
    lines = np.flatnonzero(content).astype(np.int64) + 1
    padded = np.concatenate((buf, np.zeros(_MAX_FAST_WIDTH, dtype=np.uint8)))
    out = []
    for k in columns:
        column = gather_bytes(padded, starts[first + k], ends[first + k])
        if column is None:
            if k not in _ID_FIELDS:
                return None  # a very long number: the line parser reports it
            # Very long ids: sliced one by one rather than padded to the longest.
            base = start
            column = compact_ids([data[base + a : base + b] for a, b in zip(
                starts[first + k].tolist(), ends[first + k].tolist(), strict=True)])
        out.append(column)
    last = int(first[-1]) + width - 1
    return (out, lines, data[start + int(starts[last]) : start + int(ends[last])],
            newline_count)


def _single_spaced(
    data: bytes, start: int, buf: NDArray[np.uint8], newlines: IntArray, width: int,
    columns: tuple[int, ...],
) -> tuple[list[BytesArray], IntArray, bytes] | None:
    """The common layout, read with fewer passes: every line has exactly ``width`` fields,
    one space apart, and ends with a newline. None for anything else (the general path).
    """
    count = int(newlines.size)
    if count == 0 or int(newlines[-1]) != buf.size - 1:
        return None
    spaces = np.flatnonzero(buf == 32)
    gaps = width - 1
    if spaces.size != count * gaps:
        return None
    # Exactly width - 1 spaces in each line: as many spaces as that in all, and each line's
    # share (in order) between its own line ends. Then no field empty around them.
    cuts = np.empty((count, width + 1), dtype=np.int64)
    cuts[0, 0] = -1
    cuts[1:, 0] = newlines[:-1]
    cuts[:, 1:width] = spaces.reshape(count, gaps)
    cuts[:, width] = newlines
    if (cuts[:, width - 1] > cuts[:, width]).any() or (cuts[:, 1] < cuts[:, 0]).any():
        return None
    if (np.diff(cuts, axis=1) < 2).any():  # an empty field: doubled or edge spaces
        return None
    padded = np.concatenate((buf, np.zeros(_MAX_FAST_WIDTH, dtype=np.uint8)))
    out = []
    for k in columns:
        column = gather_bytes(padded, cuts[:, k] + 1, cuts[:, k + 1])
        if column is None:
            return None  # a very long field: the general path decides
        out.append(column)
    lines = np.arange(1, count + 1, dtype=np.int64)
    last = data[start + int(cuts[-1, width - 1]) + 1 : start + int(cuts[-1, width])]
    return out, lines, last


def gather_bytes(padded: NDArray[np.uint8], starts: IntArray, ends: IntArray) -> BytesArray | None:
    """The byte strings ``padded[starts[i]:ends[i]]`` as one ``S`` array.

    One byte position at a time (a gather of n bytes per position of the widest string),
    which beats gathering n windows of the widest width.
    """
    lengths = ends - starts
    n = int(starts.size)
    wide = int(lengths.max())
    if wide > _MAX_FAST_WIDTH:
        return None  # rare; the line parser handles long fields without a huge buffer
    by_position = np.empty((wide, n), dtype=np.uint8)
    at = starts.copy()
    for position in range(wide):
        np.take(padded, at, out=by_position[position], mode="clip")  # (valid indices)
        at += 1
    by_position *= np.arange(wide, dtype=np.uint8)[:, None] < lengths[None, :]
    return np.ascontiguousarray(by_position.T).reshape(n * wide).view(f"S{wide}")


def _digits_block(tokens: BytesArray) -> NDArray[np.uint8]:
    wide = tokens.dtype.itemsize
    return np.ascontiguousarray(tokens).view(np.uint8).reshape(-1, wide)


def _parse_scores(path: str, tokens: BytesArray, lines: LineArray) -> FloatArray:
    """Decimal scores, exactly as ``strtod`` reads them; other spellings go through ``float``.

    In slices of :data:`_SCORE_SLICE` tokens: the digit matrices of one slice stay small
    (in cache, and a few MB at the peak rather than a hundred).
    """
    n = int(tokens.shape[0])
    values = np.empty(n, dtype=np.float64)
    ok = np.empty(n, dtype=np.bool_)
    for start in range(0, n, _SCORE_SLICE):
        stop = min(start + _SCORE_SLICE, n)
        values[start:stop], ok[start:stop] = _plain_decimals(tokens[start:stop])
    if not ok.all():
        bad = np.flatnonzero(~ok)
        values[bad] = _parse_scores_slow(path, list(tokens[bad]), lines[bad])
    return values


def _plain_decimals(tokens: BytesArray) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Values of tokens of the form ``[+-]digits[.digits]`` (<= 15 digits), and which they are."""
    n = int(tokens.shape[0])
    if n == 0:
        return np.zeros(0), np.ones(0, dtype=bool)
    block = _digits_block(tokens)
    wide = block.shape[1]
    is_digit = (block >= 48) & (block <= 57)
    is_dot = block == 46
    used = block != 0
    lead = block[:, 0]
    signed = (lead == 45) | (lead == 43)
    other = used & ~is_digit & ~is_dot
    other[:, 0] &= ~signed
    digits = is_digit.sum(axis=1)
    dots = is_dot.sum(axis=1)
    ok = ~other.any(axis=1) & (dots <= 1) & (digits >= 1) & (digits <= _MAX_FAST_DIGITS)
    mantissa = np.zeros(n, dtype=np.int64)
    fraction = np.zeros(n, dtype=np.int64)
    seen_dot = np.zeros(n, dtype=bool)
    for column in range(wide):
        d = is_digit[:, column]
        value = block[:, column].astype(np.int64) - 48
        mantissa = np.where(d & ok, mantissa * 10 + value, mantissa)
        fraction += d & seen_dot
        seen_dot |= is_dot[:, column]
    ok &= fraction <= _MAX_FAST_FRACTION
    scale = 10.0 ** np.minimum(fraction, _MAX_FAST_FRACTION).astype(np.float64)
    values = mantissa.astype(np.float64) / scale
    values = np.where(lead == 45, -values, values)
    return values, ok


def _parse_scores_slow(path: str, tokens: list[bytes], lines: LineArray) -> FloatArray:
    out = np.empty(len(tokens), dtype=np.float64)
    for i, token in enumerate(tokens):
        out[i] = _score(path, token, int(lines[i]))
    return out


def _score(path: str, token: bytes, line: int) -> float:
    text = token.decode("ascii", "replace")
    try:
        if "_" in text:
            raise ValueError(text)
        value = float(text)
    except ValueError:
        raise DataError(path, line, f"expected a number for the score, found {text!r}") from None
    if math.isnan(value):
        raise DataError(path, line, f"expected a number for the score, found {text!r} (NaN)")
    return value


def _parse_rels(path: str, tokens: BytesArray, lines: LineArray) -> IntArray:
    n = int(tokens.shape[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    block = _digits_block(tokens)
    is_digit = (block >= 48) & (block <= 57)
    used = block != 0
    lead = block[:, 0]
    signed = (lead == 45) | (lead == 43)
    other = used & ~is_digit
    other[:, 0] &= ~signed
    digits = is_digit.sum(axis=1)
    ok = ~other.any(axis=1) & (digits >= 1) & (digits <= 18)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        _rel(path, bytes(tokens[bad]), int(lines[bad]))  # raises with the exact message
    value = np.zeros(n, dtype=np.int64)
    for column in range(block.shape[1]):
        d = is_digit[:, column]
        value = np.where(d, value * 10 + (block[:, column].astype(np.int64) - 48), value)
    return np.where(lead == 45, -value, value)


def _parse_rels_slow(path: str, tokens: list[bytes], lines: LineArray) -> IntArray:
    return np.array(
        [_rel(path, token, int(lines[i])) for i, token in enumerate(tokens)], dtype=np.int64
    )


def _rel(path: str, token: bytes, line: int) -> int:
    text = token.decode("ascii", "replace")
    body = text[1:] if text[:1] in "+-" else text
    if body.isdigit() and body.isascii() and len(body) > 18:
        raise DataError(path, line, f"relevance {text} is too large (at most 18 digits)")
    if not body.isdigit() or not body.isascii():
        raise DataError(path, line, f"expected an integer relevance, found {text!r}")
    return int(text)


# ---------------------------------------------------------------------------------------------
# slow path: one line at a time, exact messages


def _content_lines(data: bytes, comments: bool) -> list[tuple[int, list[bytes]]]:
    out = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        fields = raw.split()
        if not fields or (comments and fields[0].startswith(b"#")):
            continue
        out.append((number, fields))
    return out


def _slow_run(
    path: str, data: bytes, comments: bool = True
) -> tuple[BytesArray, BytesArray, list[bytes], IntArray, str]:
    qid: list[bytes] = []
    docid: list[bytes] = []
    score: list[bytes] = []
    lines: list[int] = []
    runid = b""
    for number, fields in _content_lines(data, comments):
        if len(fields) < 6:
            hint = " (a qrels file? the qrels come first)" if len(fields) == 4 else ""
            raise DataError(
                path,
                number,
                "expected 6 fields (query, iteration, document, rank, score, run id), "
                f"found {len(fields)}{hint}",
            )
        qid.append(fields[0])
        docid.append(fields[2])
        score.append(fields[4])
        runid = fields[5]
        lines.append(number)
    return (
        compact_ids(qid),
        compact_ids(docid),
        score,
        np.array(lines, dtype=np.int64),
        _decode(runid),
    )


def _slow_qrels(path: str, data: bytes, comments: bool = True
                ) -> tuple[BytesArray, BytesArray, list[bytes], IntArray]:
    qid: list[bytes] = []
    docid: list[bytes] = []
    rel: list[bytes] = []
    lines: list[int] = []
    for number, fields in _content_lines(data, comments):
        if len(fields) != 4:
            hint = " (a run file? the qrels come first)" if len(fields) == 6 else ""
            raise DataError(
                path,
                number,
                f"expected 4 fields (query, iteration, document, relevance), found "
                f"{len(fields)}{hint}",
            )
        qid.append(fields[0])
        docid.append(fields[2])
        rel.append(fields[3])
        lines.append(number)
    return compact_ids(qid), compact_ids(docid), rel, np.array(lines, dtype=np.int64)


def compact_ids(values: list[bytes]) -> BytesArray:
    """``values`` as an ``S`` array if padding costs at most about twice an object array.

    An ``S`` array pads every id to the longest: one 100 KB id among a million short ones
    would ask for 100 GB. An object array costs about 41 + len bytes an id (pointer,
    header, bytes). Object arrays sort, compare and join exactly like ``S`` arrays (byte
    order, equality), only more slowly: every step downstream accepts both.
    """
    if not values:
        return np.zeros(0, dtype="S1")
    longest = max(map(len, values))
    if longest <= 64 or longest * len(values) <= 2 * (41 * len(values) + sum(map(len, values))):
        return np.array(values, dtype=np.bytes_)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _decode(value: bytes | np.bytes_) -> str:
    return bytes(value).decode("utf-8", "surrogateescape")
