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
from typing import Protocol, TypeVar, runtime_checkable

from rankeval.points import FloatArray
from rankeval.scored.reads import READS

__all__ = ["RankingReader", "Reader", "summary_of"]

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
