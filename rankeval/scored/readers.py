"""What the scored readers share, declared: the evaluator, the partitioned report of the
engines and the sketch answer the same questions by the same names.

* :class:`Reader` — the counts, the ROC area and AP: all three (the sketch's values come
  with bounds, so the value type is a parameter);
* :class:`RankingReader` — every exact value and curve: the evaluator
  (:class:`~rankeval.ScoredPrecisionRecallEvaluation`) and the partitioned report
  (:class:`~rankeval.scored.partitioned.PartitionedReport`); :func:`summary_of` reads one.

>>> from rankeval import ScoredPrecisionRecallEvaluation
>>> isinstance(ScoredPrecisionRecallEvaluation(), RankingReader)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar, runtime_checkable

from rankeval.points import FloatArray
from rankeval.scored.reads import READS

__all__ = ["Accumulator", "RankingReader", "Reader", "summary_of"]

V_co = TypeVar("V_co", covariant=True)


@runtime_checkable
class Reader(Protocol[V_co]):
    """Counts, the ROC area and average precision (values of type ``V_co``)."""

    def num_cases(self) -> int: ...
    def num_positive_ref(self) -> int: ...
    def num_negative_ref(self) -> int: ...
    def area_under_roc_curve(self) -> V_co: ...
    def average_precision(self) -> V_co: ...


@runtime_checkable
class RankingReader(Reader[float], Protocol):
    """Every exact value and curve of a ranking, by the evaluator's names."""

    def area_under_pr_curve(self, interpolate: bool = False) -> float: ...
    def eleven_point_interpolated_precision(self) -> FloatArray: ...
    def maximum_f_measure(self, beta: float = 1.0) -> float: ...
    def precision_at(self, rank: int) -> float: ...
    def r_precision(self) -> float: ...
    def pr_breakeven_point(self) -> float: ...
    def reciprocal_rank(self) -> float: ...
    def pr_curve(self, interpolate: bool = False) -> FloatArray: ...
    def pr_score_curve(self, interpolate: bool = False) -> FloatArray: ...
    def roc_curve(self) -> FloatArray: ...


@runtime_checkable
class Accumulator(Protocol):
    """What every accumulator does, whatever it holds: the binary evaluator (and its
    windows), the multi-category, paired, sketch and segmented evaluations.
    ``tests/test_accumulators.py`` holds each to it and to the round trips (``from_bytes``
    and ``load``, classmethods, take the class's own arguments: a segmented evaluation's
    factory, a time window's clock).
    """

    def merge(self, other: Any) -> None: ...
    def reset(self) -> None: ...
    def to_bytes(self) -> bytes: ...
    def save(self, path: Any) -> None: ...
    def to_text(self) -> str: ...
    def __getstate__(self) -> Any: ...


def reset_to_empty(accumulator: Any, empty: Any) -> None:
    """Give ``accumulator`` the state of ``empty`` (a new one with its settings), keeping its
    own lock: each accumulator's ``reset()`` calls this under that lock."""
    state = dict(vars(empty))
    state.pop("_lock", None)
    vars(accumulator).update(state)


def summary_of(reader: RankingReader, ranks: Iterable[int], beta: float) -> dict[str, float]:
    """The ``summary()`` of a ranking reader, as one dict.

    Shared by :class:`~rankeval.scored.ScoredPrecisionRecallEvaluation` (which holds its
    lock around the call) and the partitioned report, so both have the same keys: those of
    the registered reads (:data:`rankeval.scored.reads.READS`) that ``summary()`` holds, in
    its order, ``precision_at_<k>`` for each rank.

    Complexity: that of the reads.
    """
    out: dict[str, float] = {}
    weighted = getattr(reader, "weighted", False)
    for read in READS.values():
        if not read.in_summary or (weighted and not read.weighted):
            continue
        if read.parameter == "rank":
            out.update((read.key(k), float(read.read(reader, k))) for k in ranks)
        else:
            out[read.name] = float(read.read(reader, beta))
    return out
