"""Runs and qrels: the two inputs of a many-query evaluation, in the shapes people have them.

* TREC files: :meth:`Run.from_file`, :meth:`Qrels.from_file` (or just pass a path);
* pytrec_eval's dicts ``{qid: {docid: score}}`` / ``{qid: {docid: rel}}`` (or pass the dict);
* ranked id lists and relevant-id sets (a retrieval tutorial's shape):
  :meth:`Run.from_ranked_lists`, :meth:`Qrels.from_relevant`;
* per-query score arrays over a document list: :meth:`Run.from_scores`;
* columnar NumPy arrays ``(qid, docid, score)`` for speed: :meth:`Run.from_arrays`,
  :meth:`Qrels.from_arrays`.

Both are immutable columnar tables; queries are numbered in first-seen order.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import methodcaller
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval.checks import is_null
from rankeval.ranking import trec_files
from rankeval.ranking.frames import is_frame
from rankeval.ranking.join import PairIndex, as_bytes, as_objects, doc_hash, first_duplicate
from rankeval.ranking.trec_files import gather_bytes
from rankeval.ranking.trec_sort import JudgedCounts, judged_counts

__all__ = ["Qrels", "QrelsLike", "Run", "RunLike", "as_qrels", "as_run", "qrels_and_run"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
DocIds = NDArray[Any]
DocId: TypeAlias = "str | bytes | int"
RunLike: TypeAlias = "Run | Mapping[str, Mapping[Any, float]] | str | os.PathLike[str]"
QrelsLike: TypeAlias = "Qrels | Mapping[str, Mapping[Any, int]] | str | os.PathLike[str]"


@dataclass(frozen=True)
class _QueryCodes:
    """Distinct query ids (as text), each row's index into them, and the segment starts.

    Segments are maximal runs of rows with the same query. ``grouped``: each query's rows
    form one segment (so query k is segment k).
    """

    ids: tuple[str, ...]
    codes: IntArray
    segments: IntArray
    grouped: bool


def _query_codes(values: NDArray[Any]) -> _QueryCodes:
    """Code the query column (see :class:`_QueryCodes`).

    Rows of one query usually come together (TREC files, dicts, columns in query order);
    that case needs no sort: one comparison with the row above, then a set of the
    segments' first ids.

    Complexity: O(n·w) for n ids of w bytes when grouped; O(n log n) otherwise.
    """
    n = int(values.shape[0])
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return _QueryCodes((), empty, empty, True)
    if values.dtype.kind == "O":
        # A missing id starts a segment of its own (NaN differs from everything, one None
        # from any id), so only the segments' first ids need a look: the whole column is
        # walked only when comparing its neighbours fails (pd.NA refuses to be compared).
        try:
            segments = _segment_starts(values)
        except TypeError:
            _check_present(values, "query id")
            raise
        _check_present(values[segments], "query id", segments)
    else:
        _check_present(values, "query id")
        segments = _segment_starts(values)
    starts = values[segments]
    firsts = _texts(starts)
    if _distinct(starts, firsts):
        codes = np.repeat(np.arange(segments.size, dtype=np.int64),
                          np.diff(np.append(segments, n)))
        return _QueryCodes(tuple(firsts), codes, segments, True)
    uniques, inverse = np.unique(values, return_inverse=True)
    codes = inverse.astype(np.int64).reshape(-1)
    return _QueryCodes(tuple(_texts(uniques)), codes, segments, False)


def _distinct(ids: NDArray[Any], texts: list[str]) -> bool:
    """Whether no id repeats (``texts``: the same ids as text).

    Text and byte ids are judged by their 64-bit hashes (:func:`~rankeval.ranking.join.
    doc_hash`), sorted: distinct hashes are distinct ids. Only when two hashes agree (a
    repeat, or a collision) is a set of the texts asked. A set of a million fresh strings
    costs four times the hashes and more per id as it grows past the caches: that made the
    cost of a query grow with the number of queries.

    Complexity: O(n log n) in NumPy's sort of n integers.
    """
    if ids.dtype.kind in "SU" and ids.shape[0] > 1:
        hashes = np.sort(doc_hash(ids))
        if not bool((hashes[1:] == hashes[:-1]).any()):
            return True
    return len(set(texts)) == len(texts)


def _check_present(values: NDArray[Any], what: str, rows: IntArray | None = None) -> None:
    """Refuse a missing id (None, NaN, a data frame's null): it would become a query named
    "nan" or "None". ``ValueError`` names the first row (``rows[i]`` for ``values[i]``
    when given).

    Object ids are judged by their types first (a C-level pass): a ``str``, ``bytes`` or
    integer is never null, so a column of them needs no look at each value; only a column
    holding another type is walked value by value, to name the first null.
    """
    kind = values.dtype.kind
    if kind == "f":
        missing = np.flatnonzero(np.isnan(values))
        if missing.size:
            row = int(missing[0]) if rows is None else int(rows[missing[0]])
            raise ValueError(f"{what} at row {row} is missing (NaN)")
    elif kind == "O":
        items = values.tolist()
        if all(issubclass(k, (str, bytes)) or _integral_type(k) for k in _kinds(items)):
            return
        for at, value in enumerate(items):
            if value is None or is_null(value):
                row = at if rows is None else int(rows[at])
                raise ValueError(f"{what} at row {row} is missing ({value!r})")


def _kinds(items: Iterable[Any]) -> set[type]:
    """The types of ``items``, in one C-level pass (``map`` and ``set``)."""
    return set(map(type, items))


def _integral_type(kind: type) -> bool:
    """An integer type, never a bool (``numbers.Integral`` by subclass, once per type)."""
    return issubclass(kind, numbers.Integral) and not issubclass(kind, (bool, np.bool_))


def _real_type(kind: type) -> bool:
    """A real-number type, never a bool."""
    return issubclass(kind, numbers.Real) and not issubclass(kind, (bool, np.bool_))


def _segment_starts(values: NDArray[Any]) -> IntArray:
    """Start row of each maximal run of equal values.

    Strings are compared as their raw bytes read as wide integers (equal strings of one
    array have equal padded bytes): one fast comparison of every word with the word one
    row above, instead of a string comparison per row.
    """
    n = int(values.shape[0])
    itemsize = int(values.dtype.itemsize)
    if values.dtype.kind in "SU" and itemsize:
        size = next(b for b in (8, 4, 2, 1) if itemsize % b == 0)
        per_row = itemsize // size
        flat = np.ascontiguousarray(values).view(f"u{size}")
        differs = np.flatnonzero(flat[per_row:] != flat[:-per_row]) // per_row + 1
        fresh = np.empty(differs.size, dtype=bool)
        fresh[:1] = True
        np.not_equal(differs[1:], differs[:-1], out=fresh[1:])
        changes = differs[fresh]
    else:
        changes = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = np.empty(changes.size + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = changes
    return starts if n else starts[:0]


def _texts(values: NDArray[Any]) -> list[str]:
    """Ids as text: ``U`` as is, bytes decoded as UTF-8 (invalid bytes kept as surrogates)."""
    items = values.tolist()
    if values.dtype.kind == "U":
        return items  # type: ignore[no-any-return]
    return [_text(v) for v in items]


def _utf8(ids: Sequence[str]) -> NDArray[np.bytes_]:
    """Ids as an ``S`` array of UTF-8 bytes (lone surrogates from bytes round-trip)."""
    if not ids:
        return np.zeros(0, dtype="S1")
    text = np.array(ids, dtype=str)
    if int(np.ascontiguousarray(text).view(np.uint32).max(initial=0)) < 128:
        return text.astype("S")
    return np.array([i.encode("utf-8", "surrogateescape") for i in ids], dtype="S")


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return str(value)


def _docid_array(values: Sequence[Any] | NDArray[Any], what: str) -> DocIds:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {array.shape}")
    kind = array.dtype.kind
    if kind in "SU" or kind in "iu":
        return array if kind != "u" else array.astype(np.int64)
    if array.size == 0:
        return np.zeros(0, dtype="U1")
    if kind == "O":
        items = array.tolist()
        text = _text_bytes(items)  # a table's object column of strings
        if text is not None:
            return text
        kinds = _kinds(items)  # one C-level pass, then a check a type
        if all(issubclass(k, str) for k in kinds):
            return np.array(items, dtype=str)
        if all(issubclass(k, bytes) for k in kinds):
            return np.array(items, dtype=bytes)
        if all(_integral_type(k) for k in kinds):
            return np.array(items, dtype=np.int64)
    raise TypeError(
        f"{what} must be strings, bytes or integers (one kind), got dtype {array.dtype}"
    )


def _check_nested(table: Mapping[Any, Any], name: str, values: str) -> None:
    """Refuse a ``table`` whose values are not all mappings (``TypeError`` naming the first);
    judged by their types in one C-level pass (``isinstance`` of an ABC costs a microsecond a
    query)."""
    if all(issubclass(k, Mapping) for k in _kinds(table.values())):
        return
    for qid, inner in table.items():
        if not isinstance(inner, Mapping):
            raise TypeError(f"{name}[{qid!r}] must map document ids to {values}, got "
                            f"{type(inner).__name__}")


@dataclass(frozen=True)
class _Flat:
    """``{qid: {docid: value}}`` as rows, chained at C level (no Python step a row): the
    queries' codes, the document ids and the values in the mapping's order."""

    coded: _QueryCodes
    docs: list[Any]
    values: list[Any]


def _flattened(table: Mapping[Any, Mapping[Any, Any]]) -> _Flat:
    inner = list(table.values())
    counts = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    names = [str(q) for q in table]
    docs = list(chain.from_iterable(inner))
    values = list(chain.from_iterable(map(methodcaller("values"), inner)))
    coded = _dict_codes(names, counts)
    if coded is None:  # two keys read alike as text ({1: ..., "1": ...}): code the column
        qids = np.repeat(np.array(names, dtype=str), counts) if inner else (
            np.zeros(0, dtype="U1"))
        coded = _query_codes(qids)
    return _Flat(coded, docs, values)


def _dict_codes(names: list[str], counts: IntArray) -> _QueryCodes | None:
    """The codes of a mapping's rows (queries with rows, in order), straight from its keys
    and sizes; None when two keys read alike as text."""
    present = counts > 0
    ids = [name for name, kept in zip(names, present.tolist(), strict=True) if kept]
    if len(set(ids)) != len(ids):
        return None
    sizes = counts[present]
    codes = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
    segments = np.zeros(sizes.size, dtype=np.int64)
    np.cumsum(sizes[:-1], out=segments[1:])
    return _QueryCodes(tuple(ids), codes, segments, True)


def _mapping_ids(keys: list[Any]) -> DocIds:
    """The document ids of a mapping (see :func:`_text_bytes`)."""
    ids = _text_bytes(keys)
    return ids if ids is not None else _docid_array(keys, "document ids")


def _text_bytes(items: list[Any]) -> NDArray[np.bytes_] | None:
    """Text ids as UTF-8 bytes in one pass: joined by newlines, encoded and cut at the
    newlines by NumPy, at half the cost of NumPy's ``U`` conversion of a list of strings.
    None for what this cannot carry (another type, a newline inside, a lone surrogate, a
    width past the fast reader's, no id): those go the general way.

    Raises
    ------
    ValueError
        An id ending with a NUL character: NumPy's strings drop it, so it would read as
        another document's id.
    """
    try:
        joined = "\n".join(items).encode("utf-8", "surrogateescape")
    except (TypeError, UnicodeEncodeError):  # not all text, or a lone surrogate
        return None
    data = np.frombuffer(joined, dtype=np.uint8)
    if bool((data == 0).any()):
        ended = next((k for k in items if k.endswith("\x00")), None)
        if ended is not None:
            raise ValueError(f"document id {ended!r} ends with a NUL character, which "
                             "NumPy's strings drop (it would be another document's id)")
        return None
    cuts = np.flatnonzero(data == ord("\n"))
    if not items or cuts.size != len(items) - 1:
        return None
    starts = np.empty(len(items), dtype=np.int64)
    starts[0] = 0
    starts[1:] = cuts + 1
    ends = np.empty(len(items), dtype=np.int64)
    ends[:-1] = cuts
    ends[-1] = data.size
    if int((ends - starts).max()) == 0:  # every id empty
        return np.zeros(len(items), dtype="S1")
    return gather_bytes(data, starts, ends)


def _first_bad_grade(qrels: Mapping[Any, Any], grades: Iterable[Any]
                     ) -> tuple[Any, Any, Any] | None:
    """The first (query, document, grade) of ``qrels`` whose grade is not an integer (a bool
    is not), or None. ``grades`` are every grade of ``qrels``, judged by their types in one
    C-level pass first; only when a bad type is among them are the mappings walked."""
    if all(_integral_type(k) for k in _kinds(grades)):
        return None
    for qid, judged in qrels.items():
        if not isinstance(judged, Mapping):
            continue  # Qrels.from_dict reports it
        for docid, rel in judged.items():
            if isinstance(rel, bool) or not isinstance(rel, numbers.Integral):
                return qid, docid, rel
    return None  # pragma: no cover - a bad type was found above


def _check_lengths(**arrays: NDArray[Any]) -> int:
    sizes = {name: int(a.shape[0]) for name, a in arrays.items()}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"columns must have equal lengths, got {sizes}")
    return next(iter(sizes.values())) if sizes else 0


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments of many queries (immutable).

    A query exists when it has at least one judgment. A judgment ``rel >= relevance_level``
    (default 1) is relevant; 0 is judged non-relevant; negative values mean "in the pool but
    unjudged" (trec_eval's convention, used by ``bpref`` and ``infAP``).

    Build one with :meth:`from_dict`, :meth:`from_file`, :meth:`from_relevant` or
    :meth:`from_arrays`; the fields are the columnar form.

    Attributes
    ----------
    query_ids : tuple of str
        Distinct query ids.
    query : ndarray of int64
        Per judgment, the index of its query in ``query_ids``.
    docid : ndarray
        Per judgment, the document id (``S``, ``U`` or integer dtype).
    rel : ndarray of int64
        Per judgment, the relevance value.

    Examples
    --------
    >>> qrels = Qrels.from_dict({"q1": {"d1": 2, "d2": 0}, "q2": {}})
    >>> qrels.query_ids, len(qrels)
    (('q1',), 1)
    """

    query_ids: tuple[str, ...]
    query: IntArray
    docid: DocIds
    rel: IntArray

    def __len__(self) -> int:
        """Number of queries.

        >>> len(Qrels.from_relevant({"q1": ["a"], "q2": ["b"]}))
        2

        Complexity: O(1).
        """
        return len(self.query_ids)

    @classmethod
    def from_dict(cls, qrels: Mapping[Any, Mapping[Any, int]]) -> Qrels:
        """From pytrec_eval's shape ``{qid: {docid: rel}}``.

        Queries with no judgment (``{qid: {}}``) do not exist, as in trec_eval.

        Raises
        ------
        TypeError
            For a relevance that is not an integer.

        >>> Qrels.from_dict({"q1": {"d1": 2, "d2": 0}}).rel.tolist()
        [2, 0]

        Complexity: O(m) for m judgments.
        """
        _check_nested(qrels, "qrels", "relevance grades")
        flat = _flattened(qrels)
        bad = _first_bad_grade(qrels, flat.values)
        if bad is not None:
            qid, docid, rel = bad
            raise TypeError(f"relevance of query {qid!r}, document {docid!r} must be an "
                            f"integer, got {type(rel).__name__} {rel!r}")
        try:
            rel = np.array(flat.values, dtype=np.int64)
        except OverflowError:
            raise ValueError("relevance grades must fit in 64 bits (|rel| < 2**63)") from None
        return cls._build(None, _mapping_ids(flat.docs), rel, None, coded=flat.coded)

    @classmethod
    def from_relevant(
        cls, relevant: Mapping[Any, Iterable[DocId]] | Sequence[Iterable[DocId]]
    ) -> Qrels:
        """From relevant-id collections: every listed document has relevance 1.

        A sequence of collections (a tutorial's ``ground_truth``) numbers its queries
        ``"0"``, ``"1"``, ...; a mapping keeps its keys.

        >>> Qrels.from_relevant([[11, 1, 7], [4]]).query_ids
        ('0', '1')

        Complexity: O(m).
        """
        items = relevant.items() if isinstance(relevant, Mapping) else enumerate(relevant)
        return cls.from_dict({str(q): dict.fromkeys(ids, 1) for q, ids in items})

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Qrels:
        """Read a TREC qrels file (``qid iter docno rel``).

        Raises
        ------
        rankeval.errors.DataError
            ``FILE:LINE: ...`` for a malformed line or a document judged twice.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "qrels")
        >>> with open(path, "w") as f:
        ...     _ = f.write("301 0 FT1 1\\n301 0 FT2 0\\n")
        >>> Qrels.from_file(path).to_dict()
        {'301': {'FT1': 1, 'FT2': 0}}

        Complexity: O(b + m) for b bytes.
        """
        return cls.from_table(trec_files.read_qrels(path))

    @classmethod
    def from_table(cls, table: trec_files.QrelsTable) -> Qrels:
        """From a parsed qrels file (:func:`rankeval.ranking.trec_files.parse_qrels`).

        >>> from rankeval.ranking import trec_files
        >>> Qrels.from_table(trec_files.parse_qrels(b"q 0 d 1\\n")).query_ids
        ('q',)

        Complexity: O(m).
        """
        return cls._build(table.qid, table.docid, table.rel, None, checked=True)

    @classmethod
    def from_ir_datasets(cls, dataset: Any) -> Qrels:
        """The qrels of an ir_datasets dataset: an id (``"msmarco-passage/trec-dl-2019"``) or
        a dataset object (:mod:`rankeval.adapters.irds`; ``rankeval-exact[irds]``).

        Raises
        ------
        ValueError
            A dataset without qrels, or what :meth:`from_arrays` refuses.

        Complexity: O(m) plus ir_datasets' reading.
        """
        from rankeval.adapters.irds import qrels_columns

        return cls.from_arrays(*qrels_columns(dataset))

    @classmethod
    def from_frame(cls, frame: Any, *, query_col: str | None = None,
                   doc_col: str | None = None, rel_col: str | None = None) -> Qrels:
        """From a pandas, polars or Arrow table (narwhals needed: ``rankeval-exact[frames]``).

        Columns ``query_id``/``qid``, ``doc_id``/``docno``, ``relevance``/``label`` unless
        named (see :mod:`rankeval.ranking.frames`).

        Complexity: O(m) plus the table's conversion to arrays.
        """
        from rankeval.ranking.frames import columns

        got = columns(frame, {"query": query_col, "doc": doc_col, "relevance": rel_col})
        return cls.from_arrays(got["query"], got["doc"], got["relevance"])

    @classmethod
    def from_arrays(cls, qid: ArrayLike, docid: ArrayLike, rel: ArrayLike) -> Qrels:
        """From columns: query ids, document ids (strings, bytes or integers), relevance.

        Raises
        ------
        ValueError
            Unequal lengths, non-integer relevance, or a ``(qid, docid)`` pair given twice.

        >>> Qrels.from_arrays(["q", "q"], [7, 9], [1, 0]).to_dict()
        {'q': {'7': 1, '9': 0}}

        Complexity: O(m) expected.
        """
        q = np.asarray(qid)
        d = _docid_array(np.asarray(docid), "docid")
        r = np.asarray(rel)
        _check_lengths(qid=q, docid=d, rel=r)
        integral = r.dtype.kind in "iu" or (
            r.dtype.kind == "f" and bool(np.all(np.isfinite(r))) and bool(np.all(r == np.round(r)))
        )
        if r.size and not integral:
            raise ValueError(f"rel must hold integers, got dtype {r.dtype}")
        if r.size and r.dtype.kind in "uf":
            inside = (r <= np.uint64(2**63 - 1)) if r.dtype.kind == "u" else (np.abs(r) < 2.0**63)
            if not bool(inside.all()):
                at = int(np.flatnonzero(~inside)[0])
                raise ValueError(f"rel[{at}] is {r[at].item()!r}, outside the int64 range "
                                 "(|rel| < 2**63)")
        return cls._build(q, d, r.astype(np.int64), None)

    @classmethod
    def _build(
        cls, qid: NDArray[Any] | None, docid: DocIds, rel: IntArray, lines: IntArray | None,
        *, checked: bool = False, coded: _QueryCodes | None = None,
    ) -> Qrels:
        """From columns (``coded``: the query column coded already, ``qid`` then unused)."""
        if coded is None:
            assert qid is not None
            coded = _query_codes(qid)
        query_ids, query = coded.ids, coded.codes
        hashes = doc_hash(docid)
        if not checked:
            dup = first_duplicate(query, docid, hashes,
                                  blocks=coded.segments if coded.grouped else None)
            if dup is not None:
                raise ValueError(
                    f"document {_text(docid[dup[1]].item())!r} is judged twice for query "
                    f"{query_ids[int(query[dup[1]])]!r} (rows {dup[0]} and {dup[1]})"
                )
        for array in (query, docid, rel, hashes):
            array.flags.writeable = False
        qrels = cls(query_ids, query, docid, rel)
        qrels.__dict__["_hashes"] = hashes  # seeds the cached property: hashed once, here
        return qrels

    def to_dict(self) -> dict[str, dict[str, int]]:
        """pytrec_eval's shape ``{qid: {docid: rel}}`` (document ids as text).

        >>> Qrels.from_relevant({"q": [3]}).to_dict()
        {'q': {'3': 1}}

        Complexity: O(m).
        """
        return _nested(self.query_ids, self.query, self.docid, self.rel)

    def to_frame(self, backend: str = "pandas") -> Any:
        """A table ``query_id``, ``doc_id`` (as text), ``relevance`` (narwhals needed).

        :meth:`from_frame` reads it back. Complexity: O(m).
        """
        return _long_table(self.query_ids, self.query, self.docid, "relevance", self.rel,
                           backend)

    @cached_property
    def _hashes(self) -> NDArray[np.uint64]:
        return doc_hash(self.docid)

    @cached_property
    def _query_keys(self) -> NDArray[np.bytes_]:
        """Query ids as UTF-8 bytes (their byte order is trec_eval's strcmp order)."""
        return _utf8(self.query_ids)

    @cached_property
    def _sorted_queries(self) -> IntArray:
        """Query indices in byte order of their ids."""
        return np.argsort(self._query_keys, kind="stable").astype(np.int64)

    @cached_property
    def _query_position(self) -> dict[str, int]:
        """Index of each query id in ``query_ids``."""
        return {q: i for i, q in enumerate(self.query_ids)}

    @cached_property
    def _judged_counts(self) -> JudgedCounts:
        """Judged documents per relevance value of each query (see ``judged_counts``)."""
        counts = judged_counts(self.query, self.rel, len(self.query_ids))
        for array in (counts.offsets, counts.grades, counts.counts):
            array.flags.writeable = False
        return counts

    @cached_property
    def _native_index(self) -> PairIndex:
        # The index keeps what it needs of the hashes: they go (recomputed if ever asked).
        return PairIndex(self.query, self.docid, self.__dict__.pop("_hashes", None))

    @cached_property
    def _bytes_index(self) -> PairIndex:
        docid = as_bytes(self.docid)
        return PairIndex(self.query, docid, doc_hash(docid))

    @cached_property
    def _object_index(self) -> PairIndex:
        docid = as_objects(as_bytes(self.docid))
        return PairIndex(self.query, docid, doc_hash(docid))

    def _join(self, run: Run) -> tuple[DocIds, NDArray[np.uint64] | None, PairIndex]:
        """Run document ids and hashes comparable with this qrels' ids, and the join index.

        The index is built once per Qrels (and id kind) and reused by every evaluation.
        """
        run_kind, own_kind = run.docid.dtype.kind, self.docid.dtype.kind
        if run_kind == own_kind or (run_kind in "iu" and own_kind in "iu"):
            # Hashes known already (a run built from arrays), else hashed as looked up.
            return run.docid, run.__dict__.get("_hashes"), self._native_index
        if "O" in (run_kind, own_kind):  # very unequal id lengths on one side
            return run._docid_objects, run._object_hashes, self._object_index
        return run._docid_bytes, run._bytes_hashes, self._bytes_index

    def _select(self, keep: BoolArray) -> Qrels:
        """The judgments of the queries ``keep`` marks (one flag per query id), in order."""
        rows, ids, query = _selected(self.query_ids, self.query, keep)
        qrels = Qrels(ids, query, self.docid[rows], self.rel[rows])
        if "_hashes" in self.__dict__:
            qrels.__dict__["_hashes"] = self._hashes[rows]
        return qrels


@dataclass(frozen=True, eq=False)
class Run:
    """Retrieved documents with scores, for many queries (immutable).

    trec_eval ignores the order documents are listed in and ranks each query by score
    (descending), breaking ties by document id (descending, byte-wise); so does
    :func:`evaluate_run` unless told otherwise (``ties=``).

    Attributes
    ----------
    query_ids : tuple of str
        Distinct query ids.
    query : ndarray of int64
        Per row, the index of its query in ``query_ids``.
    docid : ndarray
        Per row, the document id (``S``, ``U`` or integer dtype).
    score : ndarray of float64
        Per row, the score (no NaN).
    runid : str
        The run's name (printed on trec_eval's ``runid`` line).

    Examples
    --------
    >>> run = Run.from_ranked_lists([["d3", "d1"], ["d2"]])
    >>> run.query_ids, run.score.tolist()
    (('0', '1'), [2.0, 1.0, 1.0])
    """

    query_ids: tuple[str, ...]
    query: IntArray
    docid: DocIds
    score: FloatArray
    runid: str = "run"

    def __len__(self) -> int:
        """Number of queries (including queries listed without documents).

        >>> len(Run.from_dict({"q1": {"a": 1.0}, "q2": {}}))
        2

        Complexity: O(1).
        """
        return len(self.query_ids)

    @classmethod
    def from_dict(cls, run: Mapping[Any, Mapping[Any, float]], *, runid: str = "run") -> Run:
        """From pytrec_eval's shape ``{qid: {docid: score}}``.

        Raises
        ------
        TypeError, ValueError
            For a score that is not a real number, or NaN.

        >>> Run.from_dict({"q1": {"d1": 0.5, "d2": 1.5}}).score.tolist()
        [0.5, 1.5]

        Complexity: O(n) for n rows.
        """
        _check_nested(run, "run", "scores")
        # Rows by C-level chaining (a query's documents and scores at once), not row by row.
        flat = _flattened(run)
        return cls._build(None, _mapping_ids(flat.docs), _scores(flat.values), runid,
                          check_duplicates=False, queries=(str(q) for q in run),
                          coded=flat.coded)

    @classmethod
    def from_ranked_lists(
        cls,
        ranked: Mapping[Any, Sequence[DocId]] | Sequence[Sequence[DocId]],
        *,
        runid: str = "run",
    ) -> Run:
        """From document ids in rank order; the document at position i of n gets score n - i.

        A sequence of lists (a tutorial's ``results``) numbers its queries ``"0"``, ``"1"``,
        ...; a mapping keeps its keys.

        Raises
        ------
        ValueError
            When a list holds a document twice.

        >>> Run.from_ranked_lists({"q": ["d7", "d3"]}).to_dict()
        {'q': {'d7': 2.0, 'd3': 1.0}}

        Complexity: O(n).
        """
        items = ranked.items() if isinstance(ranked, Mapping) else enumerate(ranked)
        names: list[str] = []
        qids: list[str] = []
        docs: list[Any] = []
        scores: list[float] = []
        for qid, listed in items:
            ids = list(listed)
            names.append(str(qid))
            qids.extend([str(qid)] * len(ids))
            docs.extend(ids)
            scores.extend(float(len(ids) - i) for i in range(len(ids)))
        return cls._build(np.array(qids, dtype=str), _docid_array(docs, "document ids"),
                          np.array(scores, dtype=np.float64), runid, queries=names)

    @classmethod
    def from_scores(
        cls,
        scores: Mapping[Any, ArrayLike] | Sequence[ArrayLike] | NDArray[Any],
        doc_ids: Sequence[DocId] | NDArray[Any] | None = None,
        *,
        runid: str = "run",
    ) -> Run:
        """From one score per document per query (every document is ranked).

        Parameters
        ----------
        scores : mapping or sequence of 1-D arrays, or a 2-D array
            ``scores[q][j]`` is document j's score for query q. A sequence (or the rows of a
            2-D array) numbers its queries ``"0"``, ``"1"``, ...
        doc_ids : sequence, optional
            Document j's id; default the integers 0, 1, ...

        Notes
        -----
        Complexity: O(n).

        Examples
        --------
        >>> Run.from_scores([[0.1, 0.9]], doc_ids=["a", "b"]).docid.tolist()
        ['a', 'b']
        """
        items = scores.items() if isinstance(scores, Mapping) else enumerate(scores)
        names: list[str] = []
        qids: list[NDArray[Any]] = []
        docs: list[DocIds] = []
        values: list[FloatArray] = []
        for qid, row in items:
            names.append(str(qid))
            s = _scores(np.asarray(row, dtype=np.float64).reshape(-1))
            ids = (np.arange(s.size, dtype=np.int64) if doc_ids is None
                   else _docid_array(doc_ids, "doc_ids"))
            if ids.shape[0] != s.size:
                raise ValueError(
                    f"query {qid!r} has {s.size} scores but doc_ids has {ids.shape[0]} ids"
                )
            qids.append(np.full(s.size, str(qid)))
            docs.append(ids)
            values.append(s)
        if not qids:
            return cls._build(np.zeros(0, dtype=str), np.zeros(0, dtype=np.int64),
                              np.zeros(0), runid)
        return cls._build(np.concatenate(qids), np.concatenate(docs), np.concatenate(values),
                          runid, queries=names)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Run:
        """Read a TREC run file (``qid iter docno rank score runid``).

        Raises
        ------
        rankeval.errors.DataError
            ``FILE:LINE: ...`` for a malformed line or a document listed twice.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "run")
        >>> with open(path, "w") as f:
        ...     _ = f.write("301 Q0 FT1 1 2.5 bm25\\n")
        >>> run = Run.from_file(path)
        >>> run.to_dict(), run.runid
        ({'301': {'FT1': 2.5}}, 'bm25')

        Complexity: O(b + n) for b bytes.
        """
        return cls.from_table(trec_files.read_run(path))

    @classmethod
    def from_table(cls, table: trec_files.RunTable) -> Run:
        """From a parsed run file (:func:`rankeval.ranking.trec_files.parse_run`).

        >>> from rankeval.ranking import trec_files
        >>> Run.from_table(trec_files.parse_run(b"q Q0 d 1 0.5 r\\n")).runid
        'r'

        Complexity: O(n).
        """
        return cls._build(table.qid, table.docid, table.score, table.runid,
                          check_duplicates=False)

    @classmethod
    def from_ir_datasets(cls, dataset: Any, *, runid: str | None = None) -> Run:
        """The scored documents (``scoreddocs``, a baseline run) of an ir_datasets dataset,
        named ``runid`` or after the dataset (:mod:`rankeval.adapters.irds`;
        ``rankeval-exact[irds]``).

        Raises
        ------
        ValueError
            A dataset without scored documents, or what :meth:`from_arrays` refuses.

        Complexity: O(n) plus ir_datasets' reading.
        """
        from rankeval.adapters.irds import run_columns

        qid, docid, score, name = run_columns(dataset)
        return cls.from_arrays(qid, docid, score, runid=name if runid is None else runid)

    @classmethod
    def from_frame(cls, frame: Any, *, query_col: str | None = None,
                   doc_col: str | None = None, score_col: str | None = None,
                   runid: str = "run") -> Run:
        """From a pandas, polars or Arrow table (narwhals needed: ``rankeval-exact[frames]``).

        Columns ``query_id``/``qid``, ``doc_id``/``docno``, ``score`` unless named (see
        :mod:`rankeval.ranking.frames`).

        Complexity: O(n) plus the table's conversion to arrays.
        """
        from rankeval.ranking.frames import columns

        got = columns(frame, {"query": query_col, "doc": doc_col, "score": score_col})
        return cls.from_arrays(got["query"], got["doc"], got["score"], runid=runid)

    @classmethod
    def from_arrays(
        cls, qid: ArrayLike, docid: ArrayLike, score: ArrayLike, *, runid: str = "run"
    ) -> Run:
        """From columns: query ids, document ids (strings, bytes or integers), scores.

        The fastest input: no Python loop touches the rows.

        Raises
        ------
        ValueError
            Unequal lengths, NaN scores, or a ``(qid, docid)`` pair given twice.

        >>> run = Run.from_arrays(np.array(["q1", "q1"]), np.array([10, 11]), np.array([0.2, 0.9]))
        >>> run.query_ids, run.docid.tolist()
        (('q1',), [10, 11])

        Complexity: O(n) expected.
        """
        q = np.asarray(qid)
        d = _docid_array(np.asarray(docid), "docid")
        s = _scores(np.asarray(score, dtype=np.float64))
        _check_lengths(qid=q, docid=d, score=s)
        return cls._build(q, d, s, runid)

    @classmethod
    def _build(
        cls, qid: NDArray[Any] | None, docid: DocIds, score: FloatArray, runid: str,
        *, check_duplicates: bool = True, queries: Iterable[str] = (),
        coded: _QueryCodes | None = None,
    ) -> Run:
        """From columns (``coded``: the query column coded already, ``qid`` then unused)."""
        if coded is None:
            assert qid is not None
            coded = _query_codes(qid)
        query_ids, query, segments = coded.ids, coded.codes, coded.segments
        # Queries listed without any document (``{qid: {}}``) exist and score 0, as in
        # pytrec_eval.
        listed = dict.fromkeys(queries)
        if listed:
            known = set(query_ids)
            query_ids += tuple(q for q in listed if q not in known)
        run = cls(query_ids, query, docid, score, runid)
        if check_duplicates:
            hashes = doc_hash(docid)
            dup = first_duplicate(query, docid, hashes,
                                  blocks=segments if coded.grouped else None)
            if dup is not None:
                raise ValueError(
                    f"document {_text(docid[dup[1]].item())!r} is listed twice for query "
                    f"{query_ids[int(query[dup[1]])]!r} (rows {dup[0]} and {dup[1]})"
                )
            hashes.flags.writeable = False
            # Seed the cached property: hashed once, here. A run read from a file (checked
            # by the reader) is hashed block by block as it is joined instead: its hashes
            # are never all in memory.
            run.__dict__["_hashes"] = hashes
        for array in (query, docid, score, segments):
            array.flags.writeable = False
        run.__dict__["_segments"] = segments
        return run

    @cached_property
    def _hashes(self) -> NDArray[np.uint64]:
        return doc_hash(self.docid)

    @cached_property
    def _segments(self) -> IntArray:
        """Start row of each run of rows with the same query."""
        return _segment_starts(self.query)

    @cached_property
    def _docid_bytes(self) -> DocIds:
        return as_bytes(self.docid)

    @cached_property
    def _bytes_hashes(self) -> NDArray[np.uint64]:
        return doc_hash(self._docid_bytes)

    @cached_property
    def _docid_objects(self) -> DocIds:
        return as_objects(as_bytes(self.docid))

    @cached_property
    def _object_hashes(self) -> NDArray[np.uint64]:
        return doc_hash(self._docid_objects)

    def _select(self, keep: BoolArray) -> Run:
        """The rows of the queries ``keep`` marks (one flag per query id), in order; a query
        listed without documents stays listed."""
        rows, ids, query = _selected(self.query_ids, self.query, keep)
        run = Run(ids, query, self.docid[rows], self.score[rows], self.runid)
        if "_hashes" in self.__dict__:
            run.__dict__["_hashes"] = self._hashes[rows]
        return run

    def to_dict(self) -> dict[str, dict[str, float]]:
        """pytrec_eval's shape ``{qid: {docid: score}}`` (document ids as text).

        >>> Run.from_arrays(["q"], [5], [1.0]).to_dict()
        {'q': {'5': 1.0}}

        Complexity: O(n).
        """
        return _nested(self.query_ids, self.query, self.docid, self.score)

    def to_frame(self, backend: str = "pandas") -> Any:
        """A table ``query_id``, ``doc_id`` (as text), ``score`` (narwhals needed).

        :meth:`from_frame` reads it back. Complexity: O(n).
        """
        return _long_table(self.query_ids, self.query, self.docid, "score", self.score, backend)


def _selected(query_ids: tuple[str, ...], query: IntArray, keep: BoolArray
              ) -> tuple[IntArray | slice, tuple[str, ...], IntArray]:
    """The rows of the kept queries (a slice when they are consecutive: views, not copies),
    the kept ids, and those rows' codes among them."""
    found = np.flatnonzero(keep[query])
    consecutive = found.size > 0 and int(found[-1]) - int(found[0]) + 1 == found.size
    rows = slice(int(found[0]), int(found[-1]) + 1) if consecutive else found
    renumbered = np.cumsum(keep, dtype=np.int64) - 1
    ids = tuple(q for q, kept in zip(query_ids, keep.tolist(), strict=True) if kept)
    return rows, ids, renumbered[query[rows]]


def _nested(query_ids: tuple[str, ...], query: IntArray, docid: DocIds,
            values: NDArray[Any]) -> dict[str, dict[str, Any]]:
    """``{qid: {docid as text: value}}`` of a Run's or Qrels' rows."""
    out: dict[str, dict[str, Any]] = {q: {} for q in query_ids}
    for q, d, v in zip(query.tolist(), docid.tolist(), values.tolist(), strict=True):
        out[query_ids[q]][_text(d)] = v
    return out


def _long_table(query_ids: tuple[str, ...], query: IntArray, docid: DocIds, name: str,
                values: NDArray[Any], backend: str) -> Any:
    """A Run's or Qrels' rows as a table ``query_id``, ``doc_id`` (text), ``name``."""
    from rankeval.ranking.frames import to_frame

    return to_frame({"query_id": [query_ids[q] for q in query.tolist()],
                     "doc_id": _texts(docid), name: values}, backend)


def _scores(values: Sequence[Any] | NDArray[Any]) -> FloatArray:
    if isinstance(values, np.ndarray):
        array = values
    else:
        if not all(_real_type(k) for k in _kinds(values)):  # then find the first, by value
            for value in values:
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                    raise TypeError(
                        f"scores must be real numbers, got {type(value).__name__} {value!r}"
                    )
        array = np.array(values, dtype=np.float64)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"scores must be real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64, copy=False).reshape(-1)
    # The sum is NaN when a score is (or when +inf and -inf meet): a cheap first look.
    with np.errstate(invalid="ignore", over="ignore"):  # huge scores may sum to inf
        total = array.sum()
    if np.isnan(total):
        nan = np.flatnonzero(np.isnan(array))
        if nan.size:
            raise ValueError(f"scores must not be NaN (row {int(nan[0])})")
    return array


#: What every swap error says: the order of every peer.
SWAP_HINT = (
    "the qrels come first: evaluate_run(qrels, run, ...), as in trec_eval, pytrec_eval, ranx "
    "and ir_measures"
)


def qrels_and_run(qrels: QrelsLike, run: RunLike) -> tuple[Qrels, Run]:
    """The two inputs of an evaluation, qrels first; a ``TypeError`` when they are swapped.

    Refused as swapped: a :class:`Run` where the qrels belong or a :class:`Qrels` where the
    run belongs; qrels with a relevance that is not an integer (a score); and two mappings
    where the run's values are all small integers (-1 to 4, like relevance grades) while
    some query of the qrels has 4 or more documents with pairwise different values (like
    scores). That last rule can only be a guess: pass :class:`Qrels` and :class:`Run`
    objects to be taken at your word.

    >>> qrels_and_run({"q": {"a": 1, "b": 4, "c": 3, "d": 2}}, {"q": {"a": 1, "b": 0, "c": 1}})
    Traceback (most recent call last):
    ...
    TypeError: these look swapped: the run's values are all small integers like relevance ...

    Complexity: O(m) for m judgments and run rows (mappings are scanned once more).
    """
    if isinstance(qrels, Run) or isinstance(run, Qrels):
        raise TypeError(
            f"got a {type(qrels).__name__} where the qrels belong and a {type(run).__name__} "
            f"where the run belongs; {SWAP_HINT}"
        )
    if isinstance(qrels, Mapping):
        judged_maps = list(qrels.values())
        if not all(issubclass(k, Mapping) for k in _kinds(judged_maps)):
            judged_maps = [judged for judged in judged_maps if isinstance(judged, Mapping)]
        bad = _first_bad_grade(qrels, chain.from_iterable(map(methodcaller("values"),
                                                              judged_maps)))
        if bad is not None:
            qid, docid, rel = bad
            raise TypeError(f"qrels: query {qid!r}, document {docid!r} has {rel!r}, not an "
                            f"integer relevance (a score? {SWAP_HINT})")
        if isinstance(run, Mapping):
            _refuse_likely_swap(qrels, run)
    return as_qrels(qrels), as_run(run)


def _refuse_likely_swap(qrels: Mapping[Any, Any], run: Mapping[Any, Any]) -> None:
    grades = all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) and -1 <= int(v) <= 4
        for scored in run.values() if isinstance(scored, Mapping) for v in scored.values()
    )
    if not grades or not any(isinstance(scored, Mapping) and scored for scored in run.values()):
        return
    for qid, judged in qrels.items():
        values = list(judged.values()) if isinstance(judged, Mapping) else []
        if len(values) >= 4 and len(set(values)) == len(values):
            raise TypeError(
                "these look swapped: the run's values are all small integers like relevance "
                f"grades, and query {qid!r} of the qrels gives {len(values)} documents "
                f"{len(values)} different values like scores; {SWAP_HINT}"
            )


def as_run(run: RunLike) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, Qrels):
        raise TypeError(f"got a Qrels where a run belongs; {SWAP_HINT}")
    if isinstance(run, Mapping):
        return Run.from_dict(run)
    if isinstance(run, (str, os.PathLike)):
        return Run.from_file(run)
    if is_frame(run):
        return Run.from_frame(run)
    raise TypeError(
        f"run must be a Run, a {{qid: {{docid: score}}}} mapping, a path or a table, "
        f"got {type(run).__name__}"
    )


def as_qrels(qrels: QrelsLike) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, Run):
        raise TypeError(f"got a Run where the qrels belong; {SWAP_HINT}")
    if isinstance(qrels, Mapping):
        return Qrels.from_dict(qrels)
    if isinstance(qrels, (str, os.PathLike)):
        return Qrels.from_file(qrels)
    if is_frame(qrels):
        return Qrels.from_frame(qrels)
    raise TypeError(
        f"qrels must be a Qrels, a {{qid: {{docid: rel}}}} mapping, a path or a table, "
        f"got {type(qrels).__name__}"
    )


