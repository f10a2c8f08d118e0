"""Many segments: ``SegmentedEvaluation``, one evaluator per segment, made on first sight.

Services evaluate per country, app version or customer tier. :class:`SegmentedEvaluation`
keeps an evaluator per segment key (any hashable value), made by the ``factory`` given
(``lambda: ScoredPrecisionRecallEvaluation(ties="grouped")``, a window, a classifier
evaluation...), and routes each case to its segment's. Each segment's evaluator is an
ordinary one (``seg["de"]``); :meth:`~SegmentedEvaluation.summary_frame` tabulates every
segment's ``summary()``. Memory: the evaluators' own, plus O(segments).

:meth:`~SegmentedEvaluation.save` writes a directory: one state file a segment, under names no
earlier save used, then ``segments.json``, the index of keys and files, replaced atomically,
then it removes the files of earlier saves: a save stopped anywhere leaves the old state or the
new one. Saved keys must be text, integers, floats, booleans, None, NumPy datetimes, or tuples
of those.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval.checks import check_case_arrays, check_weight, check_weight_array, listed_keys
from rankeval.scored.accumulation import Accumulation, Part, by_merge
from rankeval.scored.sorting import id_order

__all__ = ["SegmentReports", "SegmentedEvaluation"]


class _SummaryTable:
    """``summaries()`` and ``summary_frame()`` of segments' readers (``_readers()``)."""

    def _readers(self) -> list[tuple[Hashable, Any]]:
        raise NotImplementedError

    def to_text(self, digits: int = 4, **options: Any) -> str:
        """Every segment's ``to_text(**options)`` (its settings line, then its values), the
        segment's key first, in order of first sight."""
        parts = []
        for key, ev in self._readers():
            text = ev.to_text(digits=digits, **options)
            parts.append(f"segment {key!r}: {text}")
        return "".join(parts)

    def summaries(self, **options: Any) -> dict[Hashable, dict[str, float]]:
        """Every segment's ``summary(**options)``, in order of first sight."""
        return {key: ev.summary(**options) for key, ev in self._readers()}

    def summary_frame(self, backend: str = "pandas", **options: Any) -> Any:
        """Every segment's ``summary()`` as a table, a row a segment (column ``segment``
        first); ``backend`` is ``"pandas"``, ``"polars"`` or ``"pyarrow"`` (narwhals and the
        backend needed).

        Complexity: that of the summaries.
        """
        from rankeval.ranking.frames import to_frame

        rows = self.summaries(**options)
        columns: dict[str, list[Any]] = {"segment": list(rows)}
        for summary in rows.values():
            for name in summary:
                columns.setdefault(name, [])
        for summary in rows.values():
            for name in list(columns)[1:]:
                columns[name].append(summary.get(name, float("nan")))
        return to_frame(columns, backend)


class SegmentReports(_SummaryTable, Mapping[Hashable, Any]):
    """Every segment's report, read-only: what ``rankeval.spark.evaluate`` and
    ``rankeval.dask.evaluate`` return with ``group_col=`` (a
    :class:`~rankeval.scored.partitioned.PartitionedReport` a group, in the groups' order).
    """

    def __init__(self, reports: Mapping[Hashable, Any]) -> None:
        self._reports = dict(reports)

    def __getitem__(self, segment: Hashable) -> Any:
        return self._reports[segment]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._reports)

    def __len__(self) -> int:
        return len(self._reports)

    def _readers(self) -> list[tuple[Hashable, Any]]:
        return list(self._reports.items())

    def __repr__(self) -> str:
        return f"SegmentReports({len(self)} segments)"


class SegmentedEvaluation(_SummaryTable, Accumulation):
    """An evaluator per segment (see the module text).

    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> seg = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
    >>> seg.add_cases(["de", "fr", "de", "de"], [True, True, False, True], [0.9, 0.4, 0.3, 0.2])
    >>> sorted(seg), seg["de"].area_under_roc_curve(), seg["fr"].num_cases()
    (['de', 'fr'], 0.5, 1)

    Thread-safe: making an evaluator and routing a batch hold one lock; the evaluators are
    thread-safe themselves.
    """

    def __init__(self, factory: Callable[[], Any]) -> None:
        if not callable(factory):
            raise TypeError(f"factory must make an evaluator (a callable), got {factory!r}")
        self._factory = factory
        self._start()

    # The state, declared once (rankeval.scored.accumulation): an evaluator per segment, in
    # order of first sight; merge() merges them segment by segment, all or nothing.
    _STATE: ClassVar[dict[str, Part]] = {"_segments": Part(lambda seg: {}, by_merge)}
    _segments: dict[Hashable, Any]

    def _settings(self) -> dict[str, Any]:
        return {"factory": self._factory}

    def _get(self, segment: Hashable) -> Any:
        ev = self._segments.get(segment)
        if ev is None:
            try:
                hash(segment)
            except TypeError:
                raise TypeError(f"a segment key must be hashable, got "
                                f"{type(segment).__name__}") from None
            if _has_nan(segment):
                raise ValueError("a segment key must equal itself (NaN does not, nor a tuple "
                                 "holding NaN)")
            with self._lock:
                ev = self._segments.get(segment)
                if ev is None:
                    ev = self._segments[segment] = self._factory()
        return ev

    def add_case(self, segment: Hashable, correct: bool, score: float, *,
                 weight: float | None = None) -> None:
        """Add one case to ``segment``'s evaluator (made on first sight), with its ``weight``
        if given (see :meth:`add_cases`). Complexity: O(1)."""
        if weight is None:
            self._get(segment).add_case(correct, score)
        else:
            self._get(segment).add_case(correct, score, weight=check_weight(weight))

    def add_cases(self, segments: ArrayLike, correct: ArrayLike, scores: ArrayLike, *,
                  weights: ArrayLike | None = None) -> None:
        """Add many cases, each to its segment's evaluator: the cases are grouped by segment
        (their order kept within each) and each group added at once. Every array is checked
        before any case is added. ``weights``: each case's weight, given to its segment's
        evaluator (``add_cases(..., weights=)``: the evaluators must take weights).

        Complexity: O(k log k) for k cases, plus one call per segment present.
        """
        labels, values = check_case_arrays(correct, scores)
        given = None if weights is None else check_weight_array(weights, labels.shape[0])
        for key, take in _grouped(segments, labels.shape[0]):
            if given is None:
                self._get(key).add_cases(labels[take], values[take])
            else:
                self._get(key).add_cases(labels[take], values[take], weights=given[take])

    def __getitem__(self, segment: Hashable) -> Any:
        """The evaluator of ``segment``; ``KeyError`` if it has had no case."""
        with self._lock:
            return self._segments[segment]

    def __contains__(self, segment: object) -> bool:
        return segment in self._segments

    def __iter__(self) -> Iterator[Hashable]:
        """The segments, in order of first sight."""
        with self._lock:
            return iter(list(self._segments))

    def __len__(self) -> int:
        return len(self._segments)

    def items(self) -> list[tuple[Hashable, Any]]:
        """``(segment, evaluator)`` pairs, in order of first sight."""
        with self._lock:
            return list(self._segments.items())

    def _readers(self) -> list[tuple[Hashable, Any]]:
        return self.items()

    def merge(self, other: SegmentedEvaluation) -> None:
        """Merge ``other``'s evaluators into this one's, segment by segment (a segment only
        ``other`` has gets a new evaluator). All or nothing: each of ``other``'s evaluators is
        first merged into a new one from the factory, and an empty one from the factory into
        each of ours it meets (which checks the settings and adds nothing); only when every
        one of those succeeded does any of ours change.

        Complexity: that of the merges, twice.
        """
        if not isinstance(other, SegmentedEvaluation):
            raise TypeError(f"can only merge a SegmentedEvaluation, got {type(other).__name__}")
        # Theirs first, under their lock alone (see Accumulation.merge): two merges the other
        # way round never hold both locks.
        pairs = other.items()
        with self._lock:
            incoming = []
            for key, theirs in pairs:
                fresh = self._factory()
                fresh.merge(theirs)
                ours = self._segments.get(key)
                if ours is not None:
                    ours.merge(self._factory())  # empty: the settings' check alone
                incoming.append((key, ours, fresh))
            for key, ours, fresh in incoming:
                if ours is None:
                    self._segments[key] = fresh
                else:
                    ours.merge(fresh)

    # ------------------------------------------------------------------ bytes
    def to_bytes(self) -> bytes:
        """Every segment in one :mod:`rankeval.container` file: the keys (encoded as
        :meth:`save` encodes them) and each evaluator's own ``to_bytes``, in order of first
        sight. A key that cannot be encoded is refused before anything is built.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> seg = SegmentedEvaluation(ScoredPrecisionRecallEvaluation)
        >>> seg.add_cases(["a", 1], [True, False], [0.5, 0.5])
        >>> back = SegmentedEvaluation.from_bytes(seg.to_bytes(), ScoredPrecisionRecallEvaluation)
        >>> list(back) == [1, "a"] or list(back) == ["a", 1]
        True

        Complexity: that of the evaluators' ``to_bytes``.
        """
        from rankeval import container

        with self._lock:
            pairs = self.items()
            keys = [_encoded(key) for key, _ in pairs]
            blobs = [ev.to_bytes() for _, ev in pairs]
        return container.pack(_MAGIC, 1, {"keys": keys}, blobs)

    @classmethod
    def from_bytes(cls, data: bytes, factory: Callable[[], Any],  # type: ignore[override]
                   name: str = "<bytes>") -> SegmentedEvaluation:
        """The evaluation :meth:`to_bytes` wrote; ``factory`` as in :meth:`load` (its
        evaluators' class reads each segment with its ``from_bytes``).
        :class:`~rankeval.PersistenceError` names ``name`` and the first fault.

        Complexity: that of the evaluators' ``from_bytes``.
        """
        from rankeval import container
        from rankeval.errors import PersistenceError

        meta, blobs = container.unpack(data, _MAGIC, 1, "segments", name)
        seg = cls(factory)
        kind = type(factory())
        try:
            keys = meta.get("keys")
            if set(meta) != {"keys"} or not isinstance(keys, list) or len(keys) != len(blobs):
                raise ValueError("the metadata does not list one key per section")
            for number, (encoded, blob) in enumerate(zip(keys, blobs, strict=True)):
                key = _decoded(encoded, 0)
                if key in seg._segments:
                    raise ValueError(f"section {number} repeats the key {key!r}")
                seg._segments[key] = kind.from_bytes(blob, f"{name} (segment {number})")
        except RecursionError:
            raise PersistenceError(name, "malformed segments: a key nested too deeply") from None
        except (ValueError, TypeError) as error:
            if isinstance(error, PersistenceError):
                raise
            raise PersistenceError(name, f"malformed segments: {error}") from None
        return seg

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as the factory and :meth:`to_bytes` (a lambda factory cannot be pickled:
        give a class or a ``functools.partial``)."""
        return {"factory": self._factory, "state": self.to_bytes()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        loaded = SegmentedEvaluation.from_bytes(state["state"], state["factory"])
        self.__dict__.update(loaded.__dict__)

    # ------------------------------------------------------------------ files
    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write every segment's evaluator into ``directory`` (made if missing), then the
        index ``segments.json``; each segment's evaluator must have ``save``.

        Atomic as a whole: every key is encoded before anything is written (a key that cannot
        be saved is refused first); each save writes its segments to files of fresh names
        (``segment-<token>-<n>.rankeval``), then replaces the index atomically, then removes
        the files no index names any more. A save stopped at any point (an error, a kill, a
        full disk) leaves the old index with the old files, or the new index with the new
        ones, and a reader meanwhile reads one of the two.

        Complexity: that of the saves.
        """
        from rankeval.files import atomic_output

        folder = os.fspath(directory)
        with self._lock:
            pairs = self.items()
            entries = [{"key": _encoded(key), "file": ""} for key, _ in pairs]
            os.makedirs(folder, exist_ok=True)
            token = secrets.token_hex(8)
            for number, ((_, ev), entry) in enumerate(zip(pairs, entries, strict=True)):
                entry["file"] = name = f"segment-{token}-{number}.rankeval"
                ev.save(os.path.join(folder, name))
            with atomic_output(os.path.join(folder, _INDEX)) as out:
                json.dump({"format": "rankeval segments", "version": 1, "segments": entries},
                          out)
        kept = {str(entry["file"]) for entry in entries}
        for name in os.listdir(folder):  # the files of earlier saves, now named by no index
            if _SEGMENT_FILE.fullmatch(name) and name not in kept:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(os.path.join(folder, name))

    @classmethod
    def load(cls, directory: str | os.PathLike[str],  # type: ignore[override]
             factory: Callable[[], Any]) -> SegmentedEvaluation:
        """Read a directory :meth:`save` wrote; ``factory`` makes the evaluators of segments
        first seen from now on, and its evaluators' class reads every saved segment (its
        ``load``: :meth:`ScoredPrecisionRecallEvaluation.load`,
        :meth:`~rankeval.SketchEvaluation.load`, ...).

        Raises :class:`~rankeval.PersistenceError`, naming the file, for an index or segment
        file that is missing, not a regular file (a FIFO is never opened for a blocking read),
        malformed, or names a key or a file twice. A save that replaces the index while this
        reads is waited out: the index is read again (ten times at most).
        """
        from rankeval.errors import PersistenceError

        folder = os.fspath(directory)
        index = os.path.join(folder, _INDEX)
        kind = type(factory())  # the class that saved the segments reads them
        for attempt in range(_LOAD_ATTEMPTS):
            raw, entries = _read_index(index)
            seg = cls(factory)
            try:
                for key, name in entries:
                    seg._segments[key] = _load_segment(kind, os.path.join(folder, name))
            except PersistenceError:
                try:  # a save replaced the index and removed its files meanwhile: read again
                    from rankeval.container import read_file
                    changed = read_file(index) != raw
                except PersistenceError:
                    changed = False
                if changed and attempt + 1 < _LOAD_ATTEMPTS:
                    continue
                raise
            return seg
        raise AssertionError("unreachable")  # pragma: no cover


_INDEX = "segments.json"
_MAGIC = b"\x89RKS\r\n\x1a\n"
_SEGMENT_FILE = re.compile(r"segment-(?:[0-9a-f]{16}-)?[0-9]+\.rankeval")
_LOAD_ATTEMPTS = 10
#: How deep a saved key's tuples may nest (deeper is a crafted index).
_MAX_KEY_DEPTH = 32


def _read_index(index: str) -> tuple[bytes, list[tuple[Hashable, str]]]:
    """The raw index and its (key, file) pairs, every fault a ``PersistenceError``."""
    from rankeval.container import read_file
    from rankeval.errors import PersistenceError

    raw = read_file(index)  # a regular file only: a FIFO would block forever
    try:
        document = json.loads(raw.decode("utf-8"))
        if not isinstance(document, dict) or document.get("format") != "rankeval segments":
            raise ValueError("not a rankeval segments index")
        version = document.get("version")
        if type(version) is not int or version != 1:
            raise ValueError(f"version {version!r} is not 1")
        listed = document.get("segments")
        if not isinstance(listed, list):
            raise ValueError("'segments' is not a list")
        entries: list[tuple[Hashable, str]] = []
        keys: dict[Hashable, int] = {}
        files: set[str] = set()
        for number, entry in enumerate(listed):
            if not isinstance(entry, dict) or set(entry) != {"key", "file"}:
                raise ValueError(f"entry {number} is not {{'key': ..., 'file': ...}}")
            key, name = _decoded(entry["key"], 0), entry["file"]
            if not isinstance(name, str) or not _SEGMENT_FILE.fullmatch(name):
                raise ValueError(f"entry {number}: {name!r} is not a segment file's name")
            if key in keys:
                raise ValueError(f"entries {keys[key]} and {number} have the same key {key!r}")
            if name in files:
                raise ValueError(f"the file {name!r} is named for two keys")
            keys[key] = number
            files.add(name)
            entries.append((key, name))
    except RecursionError:
        raise PersistenceError(index, "malformed index: nested too deeply") from None
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise PersistenceError(index, f"malformed index: {error}") from None
    return raw, entries


def _load_segment(kind: Any, path: str) -> Any:
    from rankeval.errors import PersistenceError

    try:
        return kind.load(path)
    except OSError as error:
        raise PersistenceError(path, f"cannot read it: {error.strerror or error}") from None


def _grouped(segments: ArrayLike, count: int) -> list[tuple[Hashable, NDArray[np.int64]]]:
    """Each segment with the positions of its cases (in order), segments in order of first
    sight. The keys keep their identity: a list or tuple is read element by element (never
    through ``np.asarray``, which would make ``(1, "1")`` one text key or drop a trailing
    NUL); a NumPy array of integers, text or datetimes is grouped by NumPy (O(k log k)), its
    keys Python ints, str or ``np.datetime64``; other keys one by one, as dict keys (so
    ``1``, ``1.0`` and ``True`` are one segment, as in any dict).
    """
    if isinstance(segments, np.ndarray) and segments.dtype.kind in "biuUMm":
        array = segments
        if array.ndim != 1:
            raise ValueError(f"segments must be one-dimensional, got shape {array.shape}")
        if array.shape[0] != count:
            raise ValueError(f"{array.shape[0]} segments for {count} cases")
        if array.dtype.kind in "Mm" and np.isnat(array).any():
            raise ValueError(f"segment {int(np.flatnonzero(np.isnat(array))[0])} is NaT: a "
                             "segment key must equal itself")
        uniques, first, inverse = np.unique(array, return_index=True, return_inverse=True)
        seen = np.argsort(first, kind="stable")  # the segments in order of first sight
        rank = np.empty_like(seen)
        rank[seen] = np.arange(seen.shape[0])
        codes = rank[inverse.reshape(-1)]
        by_segment = id_order(codes)
        sizes = np.bincount(codes, minlength=seen.shape[0])
        ends = np.cumsum(sizes)
        ordered = uniques[seen]
        keys: list[Hashable] = (list(ordered) if array.dtype.kind in "Mm"
                                else ordered.tolist())
        return [(key, by_segment[a:b].astype(np.int64))
                for key, a, b in zip(keys, (ends - sizes).tolist(), ends.tolist(), strict=True)]
    listed = listed_keys(segments, "segments", "key")
    if len(listed) != count:
        raise ValueError(f"{len(listed)} segments for {count} cases")
    groups: dict[Hashable, list[int]] = {}
    for i, key in enumerate(listed):
        try:
            groups.setdefault(key, []).append(i)
        except TypeError:
            raise TypeError(f"segment {i} is not hashable: {type(key).__name__}") from None
        if _has_nan(key):  # every NaN would make a segment of its own
            raise ValueError(f"segment {i} is NaN (or a tuple holding NaN): a segment key "
                             "must equal itself")
    return [(key, np.asarray(rows, dtype=np.int64)) for key, rows in groups.items()]


def _has_nan(key: object) -> bool:
    """Whether ``key`` is unequal to itself or holds such a value (NaN, NaT, inside tuples)."""
    if isinstance(key, tuple):
        return any(_has_nan(part) for part in key)
    return bool(key != key)


def _encoded(key: Hashable) -> Any:
    """A segment key as JSON, its type kept: ``["t", [...]]`` for a tuple."""
    if key is None or isinstance(key, (bool, str)):
        return key
    if isinstance(key, (int, np.integer)):
        return {"int": str(int(key))}
    if isinstance(key, (float, np.floating)):
        return {"float": repr(float(key))}
    if isinstance(key, np.datetime64) and not np.isnat(key):
        return {"datetime64": str(key)}
    if isinstance(key, tuple):
        return {"tuple": [_encoded(part) for part in key]}
    raise TypeError(f"a saved segment key must be text, an int, a float, a boolean, None, a "
                    f"NumPy datetime64 or a tuple of those, got {type(key).__name__}; nothing "
                    "was written")


def _decoded(value: Any, depth: int) -> Hashable:
    """A key read back from the index (see :func:`_encoded`); ``ValueError`` if malformed."""
    if depth > _MAX_KEY_DEPTH:
        raise ValueError(f"a key nests tuples more than {_MAX_KEY_DEPTH} deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (kind, inner), = value.items()
        if kind == "int" and isinstance(inner, str) and _INT.fullmatch(inner):
            return int(inner)
        if kind == "float" and isinstance(inner, str):
            number = float(inner)
            if number != number:
                raise ValueError("a NaN key")
            return number
        if kind == "datetime64" and isinstance(inner, str):
            return np.datetime64(inner)
        if kind == "tuple" and isinstance(inner, list):
            return tuple(_decoded(part, depth + 1) for part in inner)
    raise ValueError(f"unknown segment key {value!r}")


_INT = re.compile(r"-?[0-9]{1,4300}")
