"""LingPipe's spellings and report text for the scored evaluator: a mixin.

:class:`LingPipeSpellings` gives :class:`~rankeval.ScoredPrecisionRecallEvaluation` LingPipe
4.1.0's method names (``addCase``, ``averagePrecision``, ``rocCurve``, ...: the same
functions as the PEP 8 names, not wrappers), its ``toString()`` text (``str(evaluator)``) and
its two curve printers, byte for byte. The Java number formats are
:mod:`rankeval.scored.lingpipe_text`'s.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, ClassVar, Protocol

from numpy.typing import ArrayLike

from rankeval import formulas
from rankeval.checks import check_curve, check_file
from rankeval.scored.lingpipe_text import java_double_to_string, java_f6

if TYPE_CHECKING:
    from rankeval.points import FloatArray

__all__ = ["LINGPIPE_NAMES", "LingPipeSpellings"]

#: LingPipe's method name -> rankeval's (PEP 8) name of the same function.
LINGPIPE_NAMES: dict[str, str] = {
    "addCase": "add_case",
    "addMisses": "add_misses",
    "addNegativeMisses": "add_negative_misses",
    "numCases": "num_cases",
    "numPositiveRef": "num_positive_ref",
    "numNegativeRef": "num_negative_ref",
    "prCurve": "pr_curve",
    "prScoreCurve": "pr_score_curve",
    "rocCurve": "roc_curve",
    "elevenPtInterpPrecision": "eleven_point_interpolated_precision",
    "averagePrecision": "average_precision",
    "maximumFMeasure": "maximum_f_measure",
    "precisionAt": "precision_at",
    "prBreakevenPoint": "pr_breakeven_point",
    "rPrecision": "r_precision",
    "reciprocalRank": "reciprocal_rank",
    "areaUnderPrCurve": "area_under_pr_curve",
    "areaUnderRocCurve": "area_under_roc_curve",
    "printPrecisionRecallCurve": "print_precision_recall_curve",
    "printScorePrecisionRecallCurve": "print_score_precision_recall_curve",
}


class _Reads(Protocol):
    """What the text needs of an evaluator."""

    _lock: threading.RLock

    def _ranked_count(self) -> int: ...
    def _cached(self, key: object, compute: Callable[[], float]) -> float: ...
    def roc_curve(self, interpolate: bool = False,
                  max_points: int | None = None) -> FloatArray: ...
    def area_under_pr_curve(self, interpolate: bool = False) -> float: ...
    def area_under_roc_curve(self, interpolate: bool = False) -> float: ...
    def average_precision(self) -> float: ...
    def maximum_f_measure(self, beta: float = 1.0) -> float: ...
    def pr_breakeven_point(self) -> float: ...
    def reciprocal_rank(self) -> float: ...
    def precision_at(self, rank: int) -> float: ...
    def _lingpipe_roc_area(self) -> float: ...


class LingPipeSpellings:
    """LingPipe's names, ``toString()`` text and curve printers (see the module text).

    A subclass gets each name of :data:`LINGPIPE_NAMES` as a class attribute bound to its
    own method of the PEP 8 name: ``ScoredPrecisionRecallEvaluation.addCase is
    ScoredPrecisionRecallEvaluation.add_case``.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for lingpipe, ours in LINGPIPE_NAMES.items():
            # The attribute as defined (a staticmethod stays one), from the first class of
            # the MRO that defines it.
            setattr(cls, lingpipe, inspect.getattr_static(cls, ours))

    if TYPE_CHECKING:  # the names, for type checkers (set on each subclass at class creation)
        addCase: ClassVar[Callable[..., Any]]  # noqa: N815
        addMisses: ClassVar[Callable[..., Any]]  # noqa: N815
        addNegativeMisses: ClassVar[Callable[..., Any]]  # noqa: N815
        numCases: ClassVar[Callable[..., Any]]  # noqa: N815
        numPositiveRef: ClassVar[Callable[..., Any]]  # noqa: N815
        numNegativeRef: ClassVar[Callable[..., Any]]  # noqa: N815
        prCurve: ClassVar[Callable[..., Any]]  # noqa: N815
        prScoreCurve: ClassVar[Callable[..., Any]]  # noqa: N815
        rocCurve: ClassVar[Callable[..., Any]]  # noqa: N815
        elevenPtInterpPrecision: ClassVar[Callable[..., Any]]  # noqa: N815
        averagePrecision: ClassVar[Callable[..., Any]]  # noqa: N815
        maximumFMeasure: ClassVar[Callable[..., Any]]  # noqa: N815
        precisionAt: ClassVar[Callable[..., Any]]  # noqa: N815
        prBreakevenPoint: ClassVar[Callable[..., Any]]  # noqa: N815
        rPrecision: ClassVar[Callable[..., Any]]  # noqa: N815
        reciprocalRank: ClassVar[Callable[..., Any]]  # noqa: N815
        areaUnderPrCurve: ClassVar[Callable[..., Any]]  # noqa: N815
        areaUnderRocCurve: ClassVar[Callable[..., Any]]  # noqa: N815
        printPrecisionRecallCurve: ClassVar[Callable[..., Any]]  # noqa: N815
        printScorePrecisionRecallCurve: ClassVar[Callable[..., Any]]  # noqa: N815

    def __str__(self: _Reads) -> str:
        """LingPipe's ``toString()`` text, with "Precision at r" for each r <= n.

        Byte-identical to LingPipe's: the uninterpolated ROC area printed here
        is LingPipe's trapezoid sum, which may differ from the exact value of
        :meth:`area_under_roc_curve` in the last digit.
        """
        with self._lock:
            d = java_double_to_string
            lines = [
                f"  Area Under PR Curve (interpolated)={d(self.area_under_pr_curve(True))}",
                f"  Area Under PR Curve (uninterpolated)={d(self.area_under_pr_curve(False))}",
                f"  Area Under ROC Curve (interpolated)={d(self.area_under_roc_curve(True))}",
                f"  Area Under ROC Curve (uninterpolated)={d(self._lingpipe_roc_area())}",
                f"  Average Precision={d(self.average_precision())}",
                f"  Maximum F(1) Measure={d(self.maximum_f_measure())}",
                f"  BEP (Precision-Recall break even point)={d(self.pr_breakeven_point())}",
                f"  Reciprocal Rank={d(self.reciprocal_rank())}",
            ]
            n = self._ranked_count()
            lines += [
                f"  Precision at {r}={d(self.precision_at(r))}"
                for r in formulas.PRECISION_AT_RANKS
                if r <= n
            ]
        return "\n".join(lines)

    @staticmethod
    def print_precision_recall_curve(curve: ArrayLike, file: IO[str] | None = None) -> None:
        """Write a ``[recall, precision]`` curve as LingPipe does: precision, recall, F1.

        >>> LingPipeSpellings.print_precision_recall_curve([[0.0, 1.0], [0.5, 0.5]])
          PRECI.   RECALL        F
        1.000000 0.000000 0.000000
        0.500000 0.500000 0.500000
        """
        check_file(sys.stdout if file is None else file)
        rows = check_curve(curve, 2)
        f1 = formulas.f_measure_array(1.0, rows[:, 0], rows[:, 1])
        text = ["  PRECI.   RECALL        F\n"]
        text += [
            f"{java_f6(p)} {java_f6(r)} {java_f6(f)}\n"
            for r, p, f in zip(rows[:, 0].tolist(), rows[:, 1].tolist(), f1.tolist(), strict=True)
        ]
        _write(text, file)

    @staticmethod
    def print_score_precision_recall_curve(curve: ArrayLike, file: IO[str] | None = None) -> None:
        """Write a ``[recall, precision, score]`` curve as LingPipe does: precision, recall, score.

        >>> LingPipeSpellings.print_score_precision_recall_curve([[0.5, 1.0, 2.5]])
          PRECI.   RECALL    SCORE
        1.000000 0.500000 2.500000
        """
        check_file(sys.stdout if file is None else file)
        rows = check_curve(curve, 3)
        text = ["  PRECI.   RECALL    SCORE\n"]
        text += [
            f"{java_f6(p)} {java_f6(r)} {java_f6(s)}\n"
            for r, p, s in zip(
                rows[:, 0].tolist(), rows[:, 1].tolist(), rows[:, 2].tolist(), strict=True
            )
        ]
        _write(text, file)

    def _lingpipe_roc_area(self: _Reads) -> float:
        """LingPipe's trapezoid sum over the uninterpolated ROC curve (for its text)."""
        return self._cached(
            ("roc_auc", False), lambda: formulas.area_under_curve(self.roc_curve(False))
        )

    def toString(self) -> str:  # noqa: N802
        """LingPipe's spelling of ``str(evaluation)``."""
        return str(self)


def _write(chunks: list[str], file: IO[str] | None) -> None:
    out = sys.stdout if file is None else file
    out.write("".join(chunks))
    out.flush()
