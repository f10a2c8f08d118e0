"""Many segments: ``SegmentedEvaluation``, one evaluator per segment, made on first sight.

Services evaluate per country, app version or customer tier. :class:`SegmentedEvaluation`
keeps an evaluator per segment key (any hashable value), made by the ``factory`` given
(``lambda: ScoredPrecisionRecallEvaluation(ties="grouped")``, a window, a classifier
evaluation...), and routes each case to its segment's. Each segment's evaluator is an
ordinary one (``seg["de"]``); :meth:`~SegmentedEvaluation.summary_frame` tabulates every
segment's ``summary()``. Memory: the evaluators' own, plus O(segments).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rankeval.checks import check_case_arrays

__all__ = ["SegmentedEvaluation"]


class SegmentedEvaluation:
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
        keys = list(np.asarray(segments, dtype=object).tolist()
                    if not isinstance(segments, list) else segments)
        if len(keys) != labels.shape[0]:
            raise ValueError(f"{len(keys)} segments for {labels.shape[0]} cases")
        groups: dict[Hashable, list[int]] = {}
        for i, key in enumerate(keys):
            try:
                groups.setdefault(key, []).append(i)
            except TypeError:
                raise TypeError(f"segment {i} is not hashable: {type(key).__name__}") from None
        for key, rows in groups.items():
            take = np.asarray(rows, dtype=np.int64)
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

    def merge(self, other: SegmentedEvaluation) -> None:
        """Merge ``other``'s evaluators into this one's, segment by segment (a segment only
        ``other`` has gets a new evaluator). Complexity: that of the merges."""
        if not isinstance(other, SegmentedEvaluation):
            raise TypeError(f"can only merge a SegmentedEvaluation, got {type(other).__name__}")
        for key, theirs in other.items():
            self._get(key).merge(theirs)

    def summaries(self, **options: Any) -> dict[Hashable, dict[str, float]]:
        """Every segment's ``summary(**options)``, in order of first sight."""
        return {key: ev.summary(**options) for key, ev in self.items()}

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
