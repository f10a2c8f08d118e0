"""Many segments: ``SegmentedEvaluation``, one evaluator per segment, made on first sight.

Services evaluate per country, app version or customer tier. :class:`SegmentedEvaluation`
keeps an evaluator per segment key (any hashable value), made by the ``factory`` given
(``lambda: ScoredPrecisionRecallEvaluation(ties="grouped")``, a window, a classifier
evaluation...), and routes each case to its segment's. Each segment's evaluator is an
ordinary one (``seg["de"]``); :meth:`~SegmentedEvaluation.summary_frame` tabulates every
segment's ``summary()``. Memory: the evaluators' own, plus O(segments).

:meth:`~SegmentedEvaluation.save` writes a directory: one state file a segment (each written
atomically) and last ``segments.json``, the index of keys and files, so a reader sees the old
index or the new one. Keys must be text, numbers, booleans, None, or tuples of those.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval.checks import check_case_arrays

__all__ = ["SegmentReports", "SegmentedEvaluation"]


class _SummaryTable:
    """``summaries()`` and ``summary_frame()`` of segments' readers (``_readers()``)."""

    def _readers(self) -> list[tuple[Hashable, Any]]:
        raise NotImplementedError

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


class SegmentedEvaluation(_SummaryTable):
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
        self._segments: dict[Hashable, Any] = {}
        self._lock = threading.RLock()

    def _get(self, segment: Hashable) -> Any:
        ev = self._segments.get(segment)
        if ev is None:
            try:
                hash(segment)
            except TypeError:
                raise TypeError(f"a segment key must be hashable, got "
                                f"{type(segment).__name__}") from None
            if segment != segment:
                raise ValueError("a segment key must equal itself (NaN does not)")
            with self._lock:
                ev = self._segments.get(segment)
                if ev is None:
                    ev = self._segments[segment] = self._factory()
        return ev

    def add_case(self, segment: Hashable, correct: bool, score: float) -> None:
        """Add one case to ``segment``'s evaluator (made on first sight). Complexity: O(1)."""
        self._get(segment).add_case(correct, score)

    def add_cases(self, segments: ArrayLike, correct: ArrayLike, scores: ArrayLike) -> None:
        """Add many cases, each to its segment's evaluator: the cases are grouped by segment
        (their order kept within each) and each group added at once. Every array is checked
        before any case is added.

        Complexity: O(k log k) for k cases, plus one call per segment present.
        """
        labels, values = check_case_arrays(correct, scores)
        for key, take in _grouped(segments, labels.shape[0]):
            self._get(key).add_cases(labels[take], values[take])

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
        ``other`` has gets a new evaluator). Complexity: that of the merges."""
        if not isinstance(other, SegmentedEvaluation):
            raise TypeError(f"can only merge a SegmentedEvaluation, got {type(other).__name__}")
        for key, theirs in other.items():
            self._get(key).merge(theirs)

    # ------------------------------------------------------------------ files
    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write every segment's evaluator into ``directory`` (made if missing), then the
        index ``segments.json``. Each segment's evaluator must have ``save``.

        Complexity: that of the saves.
        """
        from rankeval.io import atomic_output

        folder = os.fspath(directory)
        os.makedirs(folder, exist_ok=True)
        entries = []
        for number, (key, ev) in enumerate(self.items()):
            name = f"segment-{number}.rankeval"
            entries.append({"key": _encoded(key), "file": name})
            ev.save(os.path.join(folder, name))
        with atomic_output(os.path.join(folder, "segments.json")) as out:
            json.dump({"format": "rankeval segments", "version": 1, "segments": entries}, out)

    @classmethod
    def load(cls, directory: str | os.PathLike[str],
             factory: Callable[[], Any]) -> SegmentedEvaluation:
        """Read a directory :meth:`save` wrote; ``factory`` makes the evaluators of segments
        first seen from now on, and its evaluators' class reads every saved segment (its
        ``load``: :meth:`ScoredPrecisionRecallEvaluation.load`,
        :meth:`~rankeval.SketchEvaluation.load`, ...).

        Raises :class:`~rankeval.PersistenceError` for a missing or malformed index.
        """
        from rankeval.errors import PersistenceError

        folder = os.fspath(directory)
        index = os.path.join(folder, "segments.json")
        try:
            with open(index, encoding="utf-8") as f:
                document = json.load(f)
            if document.get("format") != "rankeval segments" or document.get("version") != 1:
                raise ValueError("not a rankeval segments index (format, version 1)")
            entries = [(_decoded(e["key"]), str(e["file"])) for e in document["segments"]]
        except OSError as error:
            raise PersistenceError(index, f"cannot read it: {error.strerror or error}") from None
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise PersistenceError(index, f"malformed index: {error}") from None
        seg = cls(factory)
        kind = type(factory())  # the class that saved the segments reads them
        for key, name in entries:
            if os.path.basename(name) != name:
                raise PersistenceError(index, f"segment file {name!r} is not in the directory")
            seg._segments[key] = kind.load(os.path.join(folder, name))
        return seg


def _grouped(segments: ArrayLike, count: int) -> list[tuple[Hashable, NDArray[np.int64]]]:
    """Each segment with the positions of its cases (in order), segments in order of first
    sight. Integer or text keys are grouped by NumPy (O(k log k)); others one by one."""
    array = np.asarray(segments) if not isinstance(segments, list) else None
    if array is not None and array.ndim == 1 and array.dtype.kind in "biuU":
        if array.shape[0] != count:
            raise ValueError(f"{array.shape[0]} segments for {count} cases")
        uniques, first, inverse = np.unique(array, return_index=True, return_inverse=True)
        seen = np.argsort(first, kind="stable")  # the segments in order of first sight
        rank = np.empty_like(seen)
        rank[seen] = np.arange(seen.shape[0])
        codes = rank[inverse]
        by_segment = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes, minlength=seen.shape[0])
        ends = np.cumsum(sizes)
        keys: list[Hashable] = uniques[seen].tolist()
        return [(key, by_segment[a:b].astype(np.int64))
                for key, a, b in zip(keys, (ends - sizes).tolist(), ends.tolist(), strict=True)]
    listed = list(np.asarray(segments, dtype=object).tolist()
                  if not isinstance(segments, list) else segments)
    if len(listed) != count:
        raise ValueError(f"{len(listed)} segments for {count} cases")
    groups: dict[Hashable, list[int]] = {}
    for i, key in enumerate(listed):
        try:
            groups.setdefault(key, []).append(i)
        except TypeError:
            raise TypeError(f"segment {i} is not hashable: {type(key).__name__}") from None
        if key != key:  # NaN is unequal to itself: every NaN would make a segment of its own
            raise ValueError(f"segment {i} is NaN: a segment key must equal itself")
    return [(key, np.asarray(rows, dtype=np.int64)) for key, rows in groups.items()]


def _encoded(key: Hashable) -> Any:
    """A segment key as JSON, its type kept: ``["t", [...]]`` for a tuple."""
    if key is None or isinstance(key, (bool, str)):
        return key
    if isinstance(key, int):
        return {"int": str(key)}
    if isinstance(key, float):
        return {"float": repr(key)}
    if isinstance(key, tuple):
        return {"tuple": [_encoded(part) for part in key]}
    raise TypeError(f"a saved segment key must be text, a number, a boolean, None or a tuple "
                    f"of those, got {type(key).__name__}")


def _decoded(value: Any) -> Hashable:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (kind, inner), = value.items()
        if kind == "int":
            return int(inner)
        if kind == "float":
            return float(inner)
        if kind == "tuple":
            return tuple(_decoded(part) for part in inner)
    raise ValueError(f"unknown segment key {value!r}")
