"""Ranked retrieval over many queries: trec_eval's numbers from Python, plus the seeds' conventions.

:func:`evaluate_run` scores a :class:`Run` (retrieved documents with scores, per query)
against :class:`Qrels` (relevance judgments) with any trec_eval measure, exactly as
trec_eval 9.0.x does by default (``profile="trec_eval10"`` for 10.0), and returns a
:class:`RunEvaluation` holding the per-query values and trec_eval's ``all`` aggregates.
Named options select the other conventions found in the literature (capped recall, AP over the
relevant documents found, exponential nDCG gains, textbook interpolation, ...).

Inputs come in the shapes people have them in:

* TREC files: :meth:`Run.from_file`, :meth:`Qrels.from_file` (or just pass a path);
* pytrec_eval's dicts ``{qid: {docid: score}}`` / ``{qid: {docid: rel}}`` (or pass the dict);
* ranked id lists and relevant-id sets (a retrieval tutorial's shape):
  :meth:`Run.from_ranked_lists`, :meth:`Qrels.from_relevant`;
* per-query score arrays over a document list: :meth:`Run.from_scores`;
* columnar NumPy arrays ``(qid, docid, score)`` for speed: :meth:`Run.from_arrays`,
  :meth:`Qrels.from_arrays`.

A ten-line tour:

>>> from rankeval.ranking import Qrels, Run, evaluate_run
>>> run = Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 1.0, "d4": 0.5}})
>>> qrels = Qrels.from_dict({"q1": {"d2": 1, "d9": 1}, "q2": {"d4": 2, "d1": 0}})
>>> ev = evaluate_run(run, qrels, ["map", "P.2", "recip_rank", "ndcg_cut.2"])
>>> ev["map"], ev["P_2"], ev["recip_rank"]
(0.375, 0.5, 0.5)
>>> ev.per_query("map")
{'q1': 0.25, 'q2': 0.5}
>>> print(ev.format().replace(chr(9), " | "), end="")  # trec_eval's report; tabs shown as |
map                    | all | 0.3750
recip_rank             | all | 0.5000
P_2                    | all | 0.5000
ndcg_cut_2             | all | 0.5089
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval import trec, trec_io
from rankeval.trec import Column, MeasureRequest, Profile
from rankeval.trec_keys import PairIndex, as_bytes, doc_hash, first_duplicate
from rankeval.trec_measures import (
    AVERAGE_TIES_MEASURES,
    MIN_GEO_MEAN,
    ApDenominator,
    Discount,
    Gain,
    Ideal,
    IprecRule,
    MeasureOptions,
    PrecisionDenominator,
    compute,
    cutoff_count,
)
from rankeval.trec_rank import RankedQueries, TiePolicy, judged_counts, rank_queries

__all__ = [
    "KendallTau",
    "Qrels",
    "Run",
    "RunEvaluation",
    "eleven_point_precision",
    "evaluate_run",
    "first_relevant_ranks",
    "kendall_tau",
    "kendall_tau_counts",
    "median_first_relevant_rank",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
DocIds = NDArray[Any]
DocId: TypeAlias = "str | bytes | int"
NoRelevant = Literal["zero", "skip"]
ScorePrecision = Literal["float32", "double"]
RunLike: TypeAlias = "Run | Mapping[str, Mapping[Any, float]] | str | os.PathLike[str]"
QrelsLike: TypeAlias = "Qrels | Mapping[str, Mapping[Any, int]] | str | os.PathLike[str]"

_PROFILE_DEFAULTS: dict[Profile, tuple[ScorePrecision, IprecRule]] = {
    "trec_eval9": ("float32", "trec9"),
    "trec_eval10": ("double", "lround"),
}
_COUNT_MEASURES = frozenset({"runid", "num_q", "num_ret", "num_rel", "num_rel_ret"})


# ---------------------------------------------------------------------------------------------
# inputs


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
    segments = _segment_starts(values)
    firsts = _texts(values[segments])
    if len(set(firsts)) == len(firsts):
        codes = np.repeat(np.arange(segments.size, dtype=np.int64),
                          np.diff(np.append(segments, n)))
        return _QueryCodes(tuple(firsts), codes, segments, True)
    uniques, inverse = np.unique(values, return_inverse=True)
    codes = inverse.astype(np.int64).reshape(-1)
    return _QueryCodes(tuple(_texts(uniques)), codes, segments, False)


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
        if all(isinstance(v, str) for v in items):
            return np.array(items, dtype=str)
        if all(isinstance(v, bytes) for v in items):
            return np.array(items, dtype=bytes)
        if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items):
            return np.array(items, dtype=np.int64)
    raise TypeError(
        f"{what} must be strings, bytes or integers (one kind), got dtype {array.dtype}"
    )


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
        qids: list[str] = []
        docs: list[Any] = []
        rels: list[int] = []
        for qid, judged in qrels.items():
            for docid, rel in judged.items():
                if isinstance(rel, bool) or not isinstance(rel, numbers.Integral):
                    raise TypeError(
                        f"relevance of query {qid!r}, document {docid!r} must be an integer, "
                        f"got {type(rel).__name__} {rel!r}"
                    )
                qids.append(str(qid))
                docs.append(docid)
                rels.append(int(rel))
        return cls._build(np.array(qids, dtype=str), _docid_array(docs, "document ids"),
                          np.array(rels, dtype=np.int64), None)

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
        rankeval.io.DataError
            ``FILE:LINE: ...`` for a malformed line or a document judged twice.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "qrels")
        >>> with open(path, "w") as f:
        ...     _ = f.write("301 0 FT1 1\\n301 0 FT2 0\\n")
        >>> Qrels.from_file(path).to_dict()
        {'301': {'FT1': 1, 'FT2': 0}}

        Complexity: O(b + m) for b bytes.
        """
        return cls.from_table(trec_io.read_qrels(path))

    @classmethod
    def from_table(cls, table: trec_io.QrelsTable) -> Qrels:
        """From a parsed qrels file (:func:`rankeval.trec_io.parse_qrels`).

        >>> from rankeval import trec_io
        >>> Qrels.from_table(trec_io.parse_qrels(b"q 0 d 1\\n")).query_ids
        ('q',)

        Complexity: O(m).
        """
        return cls._build(table.qid, table.docid, table.rel, None, checked=True)

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
        return cls._build(q, d, r.astype(np.int64), None)

    @classmethod
    def _build(
        cls, qid: NDArray[Any], docid: DocIds, rel: IntArray, lines: IntArray | None,
        *, checked: bool = False,
    ) -> Qrels:
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
        out: dict[str, dict[str, int]] = {q: {} for q in self.query_ids}
        rows = zip(self.query.tolist(), self.docid.tolist(), self.rel.tolist(), strict=True)
        for q, d, r in rows:
            out[self.query_ids[q]][_text(d)] = r
        return out

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
    def _judged_counts(self) -> IntArray:
        """Judged documents per relevance value of each query (see ``judged_counts``)."""
        counts = judged_counts(self.query, self.rel, len(self.query_ids))
        counts.flags.writeable = False
        return counts

    @cached_property
    def _native_index(self) -> PairIndex:
        return PairIndex(self.query, self.docid, self._hashes)

    @cached_property
    def _bytes_index(self) -> PairIndex:
        docid = as_bytes(self.docid)
        return PairIndex(self.query, docid, doc_hash(docid))

    def _join(self, run: Run) -> tuple[DocIds, NDArray[np.uint64], PairIndex]:
        """Run document ids and hashes comparable with this qrels' ids, and the join index.

        The index is built once per Qrels (and id kind) and reused by every evaluation.
        """
        run_kind, own_kind = run.docid.dtype.kind, self.docid.dtype.kind
        if run_kind == own_kind or (run_kind in "iu" and own_kind in "iu"):
            return run.docid, run._hashes, self._native_index
        return run._docid_bytes, run._bytes_hashes, self._bytes_index


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
        qids: list[str] = []
        docs: list[Any] = []
        scores: list[float] = []
        for qid, retrieved in run.items():
            q = str(qid)
            for docid, score in retrieved.items():
                qids.append(q)
                docs.append(docid)
                scores.append(score)
        return cls._build(np.array(qids, dtype=str), _docid_array(docs, "document ids"),
                          _scores(scores), runid, check_duplicates=False,
                          queries=(str(q) for q in run))

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

        >>> Run.from_scores([[0.1, 0.9]], doc_ids=["a", "b"]).docid.tolist()
        ['a', 'b']

        Complexity: O(n).
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
        rankeval.io.DataError
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
        return cls.from_table(trec_io.read_run(path))

    @classmethod
    def from_table(cls, table: trec_io.RunTable) -> Run:
        """From a parsed run file (:func:`rankeval.trec_io.parse_run`).

        >>> from rankeval import trec_io
        >>> Run.from_table(trec_io.parse_run(b"q Q0 d 1 0.5 r\\n")).runid
        'r'

        Complexity: O(n).
        """
        return cls._build(table.qid, table.docid, table.score, table.runid,
                          check_duplicates=False)

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
        cls, qid: NDArray[Any], docid: DocIds, score: FloatArray, runid: str,
        *, check_duplicates: bool = True, queries: Iterable[str] = (),
    ) -> Run:
        coded = _query_codes(qid)
        query_ids, query, segments = coded.ids, coded.codes, coded.segments
        # Queries listed without any document (``{qid: {}}``) exist and score 0, as in
        # pytrec_eval.
        listed = dict.fromkeys(queries)
        if listed:
            known = set(query_ids)
            query_ids += tuple(q for q in listed if q not in known)
        hashes = doc_hash(docid)
        if check_duplicates:
            dup = first_duplicate(query, docid, hashes,
                                  blocks=segments if coded.grouped else None)
            if dup is not None:
                raise ValueError(
                    f"document {_text(docid[dup[1]].item())!r} is listed twice for query "
                    f"{query_ids[int(query[dup[1]])]!r} (rows {dup[0]} and {dup[1]})"
                )
        for array in (query, docid, score, hashes, segments):
            array.flags.writeable = False
        run = cls(query_ids, query, docid, score, runid)
        # Seed the cached properties: computed once, here.
        run.__dict__["_hashes"] = hashes
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

    def to_dict(self) -> dict[str, dict[str, float]]:
        """pytrec_eval's shape ``{qid: {docid: score}}`` (document ids as text).

        >>> Run.from_arrays(["q"], [5], [1.0]).to_dict()
        {'q': {'5': 1.0}}

        Complexity: O(n).
        """
        out: dict[str, dict[str, float]] = {q: {} for q in self.query_ids}
        rows = zip(self.query.tolist(), self.docid.tolist(), self.score.tolist(), strict=True)
        for q, d, s in rows:
            out[self.query_ids[q]][_text(d)] = s
        return out


def _scores(values: Sequence[Any] | NDArray[Any]) -> FloatArray:
    if isinstance(values, np.ndarray):
        array = values
    else:
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
    with np.errstate(invalid="ignore"):
        total = array.sum()
    if np.isnan(total):
        nan = np.flatnonzero(np.isnan(array))
        if nan.size:
            raise ValueError(f"scores must not be NaN (row {int(nan[0])})")
    return array


def _as_run(run: RunLike) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, Mapping):
        return Run.from_dict(run)
    if isinstance(run, (str, os.PathLike)):
        return Run.from_file(run)
    raise TypeError(
        f"run must be a Run, a {{qid: {{docid: score}}}} mapping or a path, "
        f"got {type(run).__name__}"
    )


def _as_qrels(qrels: QrelsLike) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, Mapping):
        return Qrels.from_dict(qrels)
    if isinstance(qrels, (str, os.PathLike)):
        return Qrels.from_file(qrels)
    raise TypeError(
        f"qrels must be a Qrels, a {{qid: {{docid: rel}}}} mapping or a path, "
        f"got {type(qrels).__name__}"
    )


# ---------------------------------------------------------------------------------------------
# result


@dataclass(frozen=True)
class RunEvaluation:
    """Per-query values and trec_eval's aggregates for one run (immutable).

    Attributes
    ----------
    profile : {"trec_eval9", "trec_eval10"}
        The trec_eval version reproduced.
    runid : str
        The run's name.
    queries : tuple of str
        Evaluated queries in trec_eval's order (query ids sorted byte-wise). With
        ``complete=True`` this includes qrels queries the run has no results for.
    retrieved : ndarray of bool
        Per query: the run has results for it.
    columns : tuple of str
        Value names in trec_eval's output order (``"map"``, ``"P_5"``, ...).
    values : mapping of str to ndarray
        Per-query values of each numeric column, aligned with ``queries`` (read-only).
        Geometric-mean measures hold the per-query base value (AP for ``gm_map``).
    texts : mapping of str to tuple of str
        Per-query strings of text columns (``relstring``).
    aggregates : mapping of str to float
        trec_eval's ``all`` values: means (``num_q`` queries), sums for counts, geometric
        means for ``gm_*``.
    num_queries : int
        ``num_q``: queries averaged over.
    """

    profile: Profile
    runid: str
    queries: tuple[str, ...]
    retrieved: BoolArray
    columns: tuple[str, ...]
    values: Mapping[str, FloatArray]
    texts: Mapping[str, tuple[str, ...]]
    aggregates: Mapping[str, float]
    num_queries: int
    _layout: tuple[Column, ...] = field(repr=False, compare=False)

    def __getitem__(self, name: str) -> float:
        """The aggregate (trec_eval's ``all`` value) of column ``name``.

        Raises
        ------
        KeyError
            When ``name`` is not an aggregated column.

        >>> evaluate_run({"q": {"a": 1.0, "b": 0.5}}, {"q": {"b": 1}}, "recip_rank")["recip_rank"]
        0.5

        Complexity: O(1).
        """
        try:
            return self.aggregates[name]
        except KeyError:
            raise KeyError(
                f"no aggregate named {name!r}; columns are {', '.join(self.columns)}"
            ) from None

    def per_query(self, name: str) -> dict[str, float]:
        """``{qid: value}`` for one numeric column.

        >>> evaluate_run({"q": {"a": 1.0}, "r": {"a": 1.0}}, {"q": {"a": 1}, "r": {"b": 1}},
        ...              "P.1").per_query("P_1")
        {'q': 1.0, 'r': 0.0}

        Complexity: O(Q).
        """
        if name not in self.values:
            raise KeyError(f"no per-query values named {name!r}; columns are "
                           f"{', '.join(self.columns)}")
        return dict(zip(self.queries, self.values[name].tolist(), strict=True))

    def to_dict(self) -> dict[str, dict[str, float]]:
        """pytrec_eval's shape ``{qid: {measure: value}}`` over the numeric columns.

        >>> evaluate_run({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["map", "num_ret"]).to_dict()
        {'q': {'num_ret': 1.0, 'map': 1.0}}

        Complexity: O(Q · columns).
        """
        out: dict[str, dict[str, float]] = {q: {} for q in self.queries}
        for name, column in self.values.items():
            for qid, value in zip(self.queries, column.tolist(), strict=True):
                out[qid][name] = value
        return out

    def format(self, *, per_query: bool = False, summary: bool = True) -> str:
        """trec_eval's output text: ``-q`` per-query lines, then the ``all`` lines.

        >>> ev = evaluate_run({"q": {"a": 1.0}}, {"q": {"a": 1}}, ["num_ret", "map"])
        >>> print(ev.format(per_query=True).replace(chr(9), " | "), end="")
        num_ret                | q | 1
        map                    | q | 1.0000
        num_ret                | all | 1
        map                    | all | 1.0000

        Complexity: O(Q · columns).
        """
        lines: list[str] = []
        if per_query:
            show = self.retrieved if self.profile == "trec_eval9" else np.ones_like(self.retrieved)
            for i, qid in enumerate(self.queries):
                if not show[i]:
                    continue
                for column in self._layout:
                    m = column.measure
                    if not m.per_query:
                        continue
                    if m.printed == "text":
                        lines.append(trec.format_line(column.name, qid, self.texts[column.name][i],
                                                      "text"))
                    else:
                        lines.append(trec.format_line(column.name, qid,
                                                      float(self.values[column.name][i]),
                                                      m.printed))
        if summary:
            for column in self._layout:
                m = column.measure
                if not m.summary:
                    continue
                if m.name == "runid":
                    lines.append(trec.format_line("runid", "all", self.runid, "id"))
                else:
                    lines.append(trec.format_line(column.name, "all",
                                                  self.aggregates[column.name], m.printed))
        return "".join(lines)


# ---------------------------------------------------------------------------------------------
# evaluation


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> Any:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def _integer(name: str, value: object, *, minimum: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {number}")
    return number


def evaluate_run(
    run: RunLike,
    qrels: QrelsLike,
    measures: str | Iterable[str] = ("official",),
    *,
    profile: Profile = "trec_eval9",
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    ties: TiePolicy = "docid_desc",
    score_precision: ScorePrecision | None = None,
    iprec_rule: IprecRule | None = None,
    ap_denominator: ApDenominator = "relevant",
    precision_denominator: PrecisionDenominator = "k",
    capped_recall: bool = False,
    gain: Gain = "linear",
    discount: Discount = "log2",
    ideal: Ideal = "judged",
    no_relevant: NoRelevant = "zero",
    num_docs: int = 0,
    first_params_win: bool = False,
) -> RunEvaluation:
    """Evaluate a run against qrels with trec_eval's measures.

    By default the numbers are trec_eval 9.0.x's (and pytrec_eval-terrier's) bit for bit.

    Parameters
    ----------
    run : Run, mapping ``{qid: {docid: score}}`` or path of a TREC run file
    qrels : Qrels, mapping ``{qid: {docid: rel}}`` or path of a TREC qrels file
    measures : str or iterable of str
        trec_eval ``-m`` specifications: ``"map"``, ``"P.5,10"``, ``"ndcg_cut_10"``,
        ``"official"`` (default), ``"all_trec"``, ...
    profile : {"trec_eval9", "trec_eval10"}
        Which trec_eval to reproduce; sets the defaults of ``score_precision`` and
        ``iprec_rule`` and what ``all_trec`` means.
    relevance_level : int
        ``-l``: judgments at or above it are relevant (nDCG gains are unaffected).
    complete : bool
        ``-c``: average over every qrels query; queries the run misses score 0.
    max_docs : int, optional
        ``-M``: keep only the top ``max_docs`` documents of each ranking (after sorting), the
        way to get MRR@k, AP@k, ... for every measure.
    judged_only : bool
        ``-J``: drop retrieved documents that have no judgment.
    ties : {"docid_desc", "docid_asc", "input", "average"}
        Order of equal scores: trec_eval's document id descending, ascending (ir_measures'
        ``RR@k``), the order given (ranx, LingPipe), or the expected value over all orders
        (sklearn's nDCG; supported by ``P``, ``recall``, ``dcg``, ``ndcg``, ``ndcg_cut``).
    score_precision : {"float32", "double"}, optional
        Compare scores as C float (trec_eval 9) or double (trec_eval 10).
    iprec_rule : {"trec9", "lround", "ceil", "lingpipe"}, optional
        Relevant documents needed for a recall level: ``(long)(p*R+0.9)`` (trec_eval 9),
        ``lround(p*R)`` (trec_eval 10), ``ceil(p*R)`` (textbook), ``ceil`` with precision 1 at
        recall 0 (LingPipe).
    ap_denominator : {"relevant", "retrieved", "min_k_r"}
        AP (``map``, ``map_cut``) divided by R, by the relevant documents found (in the
        cutoff), or by min(k, R).
    precision_denominator : {"k", "retrieved"}
        ``P_k`` divided by k or by the documents actually ranked in the top k.
    capped_recall : bool
        ``recall_k`` divided by min(k, R) (BEIR's R_cap).
    gain, discount, ideal
        nDCG: ``"linear"`` (rel) or ``"exp"`` (2^rel - 1) gains; ``"log2"`` (log2(i+1)) or
        ``"jk2002"`` (1 for ranks 1-2, log2 i after) discounts; ideal ranking from all
        ``"judged"`` documents or from the ``"retrieved"`` ones only.
    no_relevant : {"zero", "skip"}
        Queries without a relevant judgment score 0 and count in the mean (trec_eval), or
        are not evaluated.
    num_docs : int
        ``-N``: documents in the collection (``utility`` only).
    first_params_win : bool
        trec_eval's rule for a measure given twice with parameters (the first wins) instead
        of merging the cutoffs.

    Returns
    -------
    RunEvaluation

    Raises
    ------
    ValueError
        Unknown measure or option value, a measure that does not support ``ties="average"``,
        or no query with both results and judgments.
    TypeError
        Wrong input types.

    Notes
    -----
    Deviation from trec_eval: a query with no retrieved document (possible only from Python)
    gets ``iprec_at_recall_0.00 = 0`` where trec_eval computes 0/0.

    Complexity: O(n log n + m) for n run rows and m judgments, plus O(Q·L) per measure.

    Examples
    --------
    The BGE tutorial's capped recall and MRR@5:

    >>> run = Run.from_ranked_lists([[11, 1, 17, 7, 21, 8, 0, 28, 9, 20]])
    >>> qrels = Qrels.from_relevant([[11, 1, 7, 17, 21, 99]])
    >>> evaluate_run(run, qrels, "recall.5", capped_recall=True)["recall_5"]
    1.0
    >>> evaluate_run(run, qrels, "recall.5")["recall_5"]
    0.8333333333333334
    """
    run_obj = _as_run(run)
    qrels_obj = _as_qrels(qrels)
    _choice("profile", profile, trec.PROFILES)
    specs = [measures] if isinstance(measures, str) else list(measures)
    resolved = trec.resolve(specs, profile, first_wins=_flag("first_params_win", first_params_win))
    level = _integer("relevance_level", relevance_level)
    default_precision, default_rule = _PROFILE_DEFAULTS[profile]
    options = MeasureOptions(
        iprec_rule=_choice("iprec_rule", iprec_rule or default_rule,
                           ("trec9", "lround", "ceil", "lingpipe")),
        ap_denominator=_choice("ap_denominator", ap_denominator,
                               ("relevant", "retrieved", "min_k_r")),
        precision_denominator=_choice("precision_denominator", precision_denominator,
                                      ("k", "retrieved")),
        capped_recall=_flag("capped_recall", capped_recall),
        gain=_choice("gain", gain, ("linear", "exp")),
        discount=_choice("discount", discount, ("log2", "jk2002")),
        ideal=_choice("ideal", ideal, ("judged", "retrieved")),
        average_ties=_choice("ties", ties, ("docid_desc", "docid_asc", "input", "average"))
        == "average",
        num_docs=_integer("num_docs", num_docs, minimum=0),
    )
    precision = _choice("score_precision", score_precision or default_precision,
                        ("float32", "double"))
    if max_docs is not None:
        max_docs = _integer("max_docs", max_docs, minimum=0)
    if options.average_ties:
        unsupported = [r.measure.name for r in resolved.requests
                       if r.measure.name not in AVERAGE_TIES_MEASURES | _COUNT_MEASURES]
        if unsupported:
            raise ValueError(
                f"ties='average' is defined for {sorted(AVERAGE_TIES_MEASURES)} only, "
                f"not for {unsupported}"
            )
    complete = _flag("complete", complete)
    _choice("no_relevant", no_relevant, ("zero", "skip"))

    # Evaluated queries, in trec_eval's order (query ids sorted byte-wise). The run's ids are
    # found through the qrels' dict (built once per Qrels): cheaper than sorting them.
    qrels_sorted = qrels_obj._sorted_queries
    if run_obj.query_ids == qrels_obj.query_ids:
        # Columns from one source often list the same queries in the same order.
        qrels_code = np.arange(len(run_obj.query_ids), dtype=np.int64)
    else:
        position = qrels_obj._query_position
        qrels_code = np.fromiter(map(position.get, run_obj.query_ids,
                                     itertools.repeat(-1, len(run_obj.query_ids))),
                                 dtype=np.int64, count=len(run_obj.query_ids))
    shared = np.flatnonzero(qrels_code >= 0)
    run_of_qrels = np.full(len(qrels_obj.query_ids), -1, dtype=np.int64)
    run_of_qrels[qrels_code[shared]] = shared
    run_of_qrels = run_of_qrels[qrels_sorted]
    in_run = run_of_qrels >= 0
    chosen = np.ones(qrels_sorted.size, dtype=bool) if complete else in_run
    if no_relevant == "skip":
        relevant = np.bincount(qrels_obj.query[qrels_obj.rel >= level],
                               minlength=len(qrels_obj.query_ids))
        chosen &= relevant[qrels_sorted] > 0
    if not (chosen & in_run).any():
        raise ValueError("no queries with both results and relevance information")
    evaluated_qrels = qrels_sorted[chosen].astype(np.int64)
    evaluated_run = run_of_qrels[chosen].astype(np.int64)
    names = qrels_obj.query_ids
    queries = tuple(map(names.__getitem__, evaluated_qrels.tolist()))

    run_docid, run_hash, index = qrels_obj._join(run_obj)
    ranked = rank_queries(
        run_query=run_obj.query,
        run_docid=run_docid,
        run_score=run_obj.score,
        run_hash=run_hash,
        qrels_query=qrels_obj.query,
        qrels_rel=qrels_obj.rel,
        qrels_index=index,
        evaluated_run=evaluated_run,
        evaluated_qrels=evaluated_qrels,
        num_run_queries=len(run_obj.query_ids),
        num_qrels_queries=len(qrels_obj.query_ids),
        level=level,
        ties=ties,
        score_precision=precision,
        max_docs=max_docs,
        judged_only=_flag("judged_only", judged_only),
        run_segments=run_obj._segments,
        qrels_levels=qrels_obj._judged_counts,
    )
    return _evaluate(ranked, resolved.requests, resolved.columns, options, profile,
                     queries, evaluated_run >= 0, run_obj.runid, complete)


def _evaluate(
    ranked: RankedQueries,
    requests: tuple[MeasureRequest, ...],
    columns: tuple[Column, ...],
    options: MeasureOptions,
    profile: Profile,
    queries: tuple[str, ...],
    retrieved: BoolArray,
    runid: str,
    complete: bool,
) -> RunEvaluation:
    q = len(queries)
    numeric: dict[str, FloatArray] = {}
    texts: dict[str, list[str]] = {}
    for request in requests:
        if request.measure.printed == "text":
            texts[request.measure.name] = [""] * q
        else:
            numeric[request.measure.name] = np.zeros((q, cutoff_count(request)))
    for members, batch in ranked.batches():  # members: evaluated positions
        for request in requests:
            if request.measure.name == "runid":
                continue
            result = compute(batch, request, options)
            if isinstance(result, list):
                target = texts[request.measure.name]
                for member, text in zip(members.tolist(), result, strict=True):
                    target[member] = text
            else:
                numeric[request.measure.name][members] = result
    missing = ~retrieved
    if missing.any():
        # A query the run misses scores 0, but its relevant documents still count (-c).
        for name, array in numeric.items():
            if name != "num_rel":
                array[missing] = 0.0
        for strings in texts.values():
            for i in np.flatnonzero(missing).tolist():
                strings[i] = ""

    num_q = q if complete else int(retrieved.sum())
    values: dict[str, FloatArray] = {}
    text_values: dict[str, tuple[str, ...]] = {}
    aggregates: dict[str, float] = {}
    for column in columns:
        m = column.measure
        if m.name == "runid":
            continue
        if m.printed == "text":
            text_values[column.name] = tuple(texts[m.name])
            continue
        per_query = np.ascontiguousarray(numeric[m.name][:, column.index])
        if m.name == "num_q":
            aggregates[column.name] = float(num_q)
            continue
        per_query.flags.writeable = False
        values[column.name] = per_query
        aggregates[column.name] = _aggregate(per_query, m.aggregate, retrieved, num_q, profile)
    return RunEvaluation(
        profile=profile,
        runid=runid,
        queries=queries,
        retrieved=_read_only(retrieved.copy()),
        columns=tuple(c.name for c in columns),
        values=MappingProxyType(values),
        texts=MappingProxyType(text_values),
        aggregates=MappingProxyType(aggregates),
        num_queries=num_q,
        _layout=columns,
    )


def _read_only(array: BoolArray) -> BoolArray:
    array.flags.writeable = False
    return array


def _sequential(values: FloatArray) -> float:
    """Sum in order (trec_eval accumulates query by query)."""
    return float(np.cumsum(values)[-1]) if values.size else 0.0


def _aggregate(
    values: FloatArray, how: str, retrieved: BoolArray, num_q: int, profile: Profile
) -> float:
    if how == "sum":
        return _sequential(values)
    if how == "geometric":
        logs = np.log(np.maximum(values, MIN_GEO_MEAN))
        if profile == "trec_eval9":
            # trec_eval 9 adds the missing queries (-c) in one term after the others.
            total = _sequential(logs[retrieved]) + (num_q - int(retrieved.sum())) * math.log(
                MIN_GEO_MEAN
            )
        else:
            total = _sequential(logs)
        return math.exp(total / num_q) if num_q else 0.0
    total = _sequential(values[retrieved]) if profile == "trec_eval9" else _sequential(values)
    return total / num_q if num_q else 0.0


# ---------------------------------------------------------------------------------------------
# rank statistics


def first_relevant_ranks(run: RunLike, qrels: QrelsLike, **options: Any) -> dict[str, float]:
    """Rank (1-based) of the first relevant document per query; ``inf`` when none is retrieved.

    ``options`` are :func:`evaluate_run`'s (ranking rules, ``relevance_level``, ...).

    >>> first_relevant_ranks({"q": {"a": 3.0, "b": 2.0}}, {"q": {"b": 1}})
    {'q': 2.0}

    Complexity: as :func:`evaluate_run` with ``recip_rank``.
    """
    ev = evaluate_run(run, qrels, ["recip_rank"], **options)
    rr = ev.values["recip_rank"]
    ranks = np.full(rr.shape, math.inf)
    found = rr > 0
    ranks[found] = np.rint(1.0 / rr[found])
    return dict(zip(ev.queries, ranks.tolist(), strict=True))


def median_first_relevant_rank(run: RunLike, qrels: QrelsLike, **options: Any) -> float:
    """Median over queries of the rank of the first relevant document.

    Queries with no relevant document retrieved count as rank ``inf`` (worse than any), so
    the median is ``inf`` when more than half the queries find nothing.

    Undefined when no query is evaluated (``ValueError`` from :func:`evaluate_run`).

    >>> median_first_relevant_rank({"a": {"x": 2.0, "y": 1.0}, "b": {"x": 1.0}},
    ...                            {"a": {"y": 1}, "b": {"x": 1}})
    1.5

    Complexity: as :func:`evaluate_run` plus O(Q log Q).
    """
    ranks = np.array(list(first_relevant_ranks(run, qrels, **options).values()))
    ordered = np.sort(ranks)
    mid = ordered.size // 2
    if ordered.size % 2:
        return float(ordered[mid])
    low, high = float(ordered[mid - 1]), float(ordered[mid])
    return high if math.isinf(high) else (low + high) / 2.0


def eleven_point_precision(
    run: RunLike, qrels: QrelsLike, *, iprec_rule: IprecRule | None = None, **options: Any
) -> FloatArray:
    """Macro-averaged interpolated precision at recall 0.0, 0.1, ..., 1.0 (11 values).

    The mean over queries of trec_eval's ``iprec_at_recall``; ``iprec_rule`` picks the
    convention (``"trec9"``, ``"lround"``, ``"ceil"`` textbook, ``"lingpipe"``).

    >>> run = Run.from_ranked_lists({"q": [f"d{i}" for i in range(1, 16)]})
    >>> qrels = Qrels.from_relevant({"q": ["d3", "d8", "d15"]})
    >>> eleven_point_precision(run, qrels, iprec_rule="ceil").round(4).tolist()
    [0.3333, 0.3333, 0.3333, 0.3333, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2]

    Complexity: as :func:`evaluate_run` with ``iprec_at_recall``.
    """
    ev = evaluate_run(run, qrels, ["iprec_at_recall"], iprec_rule=iprec_rule, **options)
    return np.array([ev[name] for name in ev.columns], dtype=np.float64)


@dataclass(frozen=True)
class KendallTau:
    """Pair counts of two paired rankings and both Kendall coefficients.

    Attributes
    ----------
    n : int
        Items.
    concordant, discordant : int
        Pairs ordered the same way / the opposite way by both.
    ties_x, ties_y, ties_both : int
        Pairs tied in x, in y, in both.
    tau_a : float
        (C - D) / C(n, 2). NaN when n < 2.
    tau_b : float
        (C - D) / sqrt((C(n,2) - ties_x)(C(n,2) - ties_y)) (scipy's ``kendalltau``). NaN
        when either side is constant or n < 2.
    """

    n: int
    concordant: int
    discordant: int
    ties_x: int
    ties_y: int
    ties_both: int
    tau_a: float
    tau_b: float


def kendall_tau_counts(x: ArrayLike, y: ArrayLike) -> KendallTau:
    """Concordant/discordant pair counts and Kendall's tau-a and tau-b of paired values.

    ``x[i]`` and ``y[i]`` are item i's scores (or ranks) under the two orderings; only their
    order matters.

    Undefined when: n < 2 (both NaN); x or y constant (tau-b NaN).

    >>> k = kendall_tau_counts([1, 2, 3, 4, 5], [2, 1, 5, 3, 4])
    >>> k.concordant, k.discordant, k.tau_a, k.tau_b
    (7, 3, 0.4, 0.4)

    Complexity: O(n log² n).
    """
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ys = np.asarray(y, dtype=np.float64).reshape(-1)
    if xs.shape != ys.shape:
        raise ValueError(f"x and y must have the same length, got {xs.size} and {ys.size}")
    if np.isnan(xs).any() or np.isnan(ys).any():
        raise ValueError("x and y must not contain NaN")
    n = int(xs.size)
    pairs = n * (n - 1) // 2
    order = np.lexsort((ys, xs))
    xo, yo = xs[order], ys[order]
    ties_x = _tied_pairs(xo)
    ties_both = _tied_pairs_joint(xo, yo)
    ties_y = _tied_pairs(np.sort(ys))
    # Discordant pairs: inversions of y after sorting by (x, y); pairs tied in x are sorted
    # by y so they add none.
    discordant = _inversions(_dense_ranks(yo))
    concordant = pairs - discordant - ties_x - ties_y + ties_both
    if n < 2:
        return KendallTau(n, 0, 0, 0, 0, 0, math.nan, math.nan)
    diff = concordant - discordant
    tau_a = diff / pairs
    den = math.sqrt(float(pairs - ties_x) * float(pairs - ties_y))
    tau_b = diff / den if den else math.nan
    return KendallTau(n, concordant, discordant, ties_x, ties_y, ties_both, tau_a, tau_b)


def kendall_tau(x: ArrayLike, y: ArrayLike, variant: Literal["a", "b"] = "b") -> float:
    """Kendall's rank correlation of paired values; ``variant`` ``"b"`` (default) or ``"a"``.

    Without ties both equal (C - D) / C(n, 2).

    Undefined when n < 2, or (tau-b) when x or y is constant: NaN.

    >>> kendall_tau([1, 2, 3, 4, 5], [2, 1, 5, 3, 4])
    0.4

    Complexity: O(n log² n).
    """
    counts = kendall_tau_counts(x, y)
    if variant == "a":
        return counts.tau_a
    if variant == "b":
        return counts.tau_b
    raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")


def _tied_pairs(sorted_values: FloatArray) -> int:
    if sorted_values.size == 0:
        return 0
    _, counts = np.unique(sorted_values, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def _tied_pairs_joint(xo: FloatArray, yo: FloatArray) -> int:
    if xo.size == 0:
        return 0
    change = np.ones(xo.size, dtype=bool)
    change[1:] = (xo[1:] != xo[:-1]) | (yo[1:] != yo[:-1])
    counts = np.diff(np.concatenate((np.flatnonzero(change), [xo.size])))
    return int((counts * (counts - 1) // 2).sum())


def _dense_ranks(values: FloatArray) -> IntArray:
    _, inverse = np.unique(values, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1)


def _inversions(ranks: IntArray) -> int:
    """Pairs i < j with ranks[i] > ranks[j], by bottom-up merging of sorted blocks."""
    n = int(ranks.size)
    if n < 2:
        return 0
    size = 1
    while size < n:
        size *= 2
    width = 1
    big = n + 1
    blocks = np.full(size, big, dtype=np.int64)
    blocks[:n] = ranks
    total = 0
    while width < size:
        pairs = blocks.reshape(-1, 2, width)
        left, right = pairs[:, 0, :], pairs[:, 1, :]
        count = left.shape[0]
        offset = (np.arange(count, dtype=np.int64) * (big + 1))[:, None]
        # Each left block is sorted; shifting block b by b*(big+1) keeps the flat array sorted.
        flat_left = (left + offset).ravel()
        keys = (right + offset).ravel()
        valid = (right < big).ravel()
        not_greater = np.searchsorted(flat_left, keys, side="right")
        row_start = np.repeat(np.arange(count, dtype=np.int64) * width, width)
        real_left = np.repeat((left < big).sum(axis=1), width)
        greater = real_left - (not_greater - row_start)
        total += int(greater[valid].sum())
        blocks = np.sort(pairs.reshape(count, 2 * width), axis=1).ravel()
        width *= 2
    return total
