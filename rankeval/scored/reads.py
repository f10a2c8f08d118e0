"""The scored reads, registered: every scalar value a scored evaluator reads, one object each.

The ranking half has :mod:`rankeval.ranking.registry`; this is the scored half's. Each
:class:`ScoredRead` declares its names (the ``summary()`` key, the reader's PEP 8 method, the
LingPipe spelling), its parameter, the readers that compute it, its interval methods, its
Prometheus gauge and its one-line description. What lists scored values reads this table:

* ``summary()`` of the evaluator, the windows and the partitioned report
  (:func:`rankeval.scored.readers.summary_of`), so the segment frame's columns too;
* ``interval()``'s measures and methods (:data:`rankeval.scored.uncertainty.INTERVAL_METHODS`);
* the Prometheus gauges (:class:`rankeval.prometheus.EvaluationCollector`);
* ``rankeval scored --json`` (the values keyed by their method names);
* the docs' catalogue of scored reads (``python -m rankeval.scored.reads`` writes it).

A new scored read is one :class:`ScoredRead` here (and its method on the readers).

>>> READS["reciprocal_rank"].method, READS["reciprocal_rank"].lingpipe
('reciprocal_rank', 'reciprocalRank')
>>> [read.name for read in READS.values() if "delong" in read.intervals]
['roc_auc', 'gini']
>>> READS["sensitivity_at"].options, READS["sensitivity_at"].intervals
(('specificity',), ('bootstrap',))
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rankeval.intervals import PROPORTION_METHODS
from rankeval.scored import decisions

__all__ = ["READERS", "READS", "ScoredRead", "catalogue", "interval_methods", "read_value"]

Parameter = Literal["rank", "beta", "threshold"] | None

#: The readers, by the name a :class:`ScoredRead` lists them under: the evaluator (and its
#: windows, and each category of the multi-category evaluator, which is one), the partitioned
#: report of the engines and of ``report()``, and the sketch (values with bounds).
READERS = ("evaluator", "report", "sketch")
_EXACT = frozenset({"evaluator", "report"})
_ALL = frozenset(READERS)
_PROPORTIONS: tuple[str, ...] = tuple(PROPORTION_METHODS)


@dataclass(frozen=True)
class ScoredRead:
    """One scalar read of a ranking of scored cases.

    Attributes
    ----------
    name : str
        The ``summary()`` key (with a rank: ``precision_at_<k>``), the ``interval()``
        measure and the Prometheus gauge's suffix.
    method : str or None
        The readers' method (PEP 8); None for a read only ``interval()`` makes (precision
        and recall at a threshold, from the counts above it).
    lingpipe : str or None
        LingPipe's spelling of the method, where LingPipe has one.
    description : str
        One line: the gauge's help and the catalogue's entry.
    parameter : {"rank", "beta", "threshold"} or None
        What the read takes: a rank ``k``, the F-measure's ``beta``, a score threshold.
    interpolated : bool
        Whether the method takes ``interpolate=`` (``--json`` gives both values).
    readers : frozenset of str
        Which of :data:`READERS` compute it. A partitioned report gives a decision read
        (:data:`rankeval.scored.decisions.ASKABLE`) when asked for it (``decisions=``).
    intervals : tuple of str
        ``interval()``'s methods for it, the default first; empty: no interval.
    in_summary : bool
        Whether ``summary()`` (and so the segment frame and the gauges) holds it.
    exported : bool
        Whether the Prometheus collector exports it (as ``rankeval_<metric>``): always for
        a read in the summary; for precision and recall at a threshold and the partial ROC
        area, when the collector is given the threshold or the range.
    metric : str
        The gauge's name without ``rankeval_``.
    compute : callable or None
        For a read no reader has a method for: its value from the reader (and the
        argument), through the reader's other reads; every reader then has it at once
        (``reader.read(name)``, ``summary()``, the gauges, ``--json``).
    options : tuple of str
        The keyword arguments the method takes (a decision read's bound, range or
        standardisation), passed by ``read(name, **options)`` and ``interval(name,
        **options)``; a read with options is in no summary.
    field : str or None
        The attribute of the method's result that is the value (``"value"`` of an
        :class:`~rankeval.scored.decisions.OperatingPoint`); None: the result itself.
    of_points : callable or None
        The value from a ranking's :class:`~rankeval.points.OperatingPoints` and the
        options: the one function the reader's method and each bootstrap resample call
        (a resample is a weighted ranking), so a decision read's interval needs nothing
        else.
    better : {"higher", "lower"}
        Which way the read improves: a loss or an error is better lower (a scikit-learn
        scorer negates it).
    probabilities : bool
        Whether the read takes the scores as probabilities (the calibration reads): a
        scikit-learn scorer then asks the estimator for ``predict_proba``.
    weighted : bool
        Whether an evaluator holding weighted cases gives it (scikit-learn's
        ``sample_weight`` meaning). False for the reads by rank, which count cases and have no
        weighted meaning: such an evaluator raises for those, and its ``summary()`` leaves
        them out.
    """

    name: str
    method: str | None
    lingpipe: str | None
    description: str
    parameter: Parameter = None
    interpolated: bool = False
    readers: frozenset[str] = _EXACT
    intervals: tuple[str, ...] = ()
    in_summary: bool = True
    exported: bool = True
    metric: str = ""
    compute: Callable[[Any, Any], float] | None = None
    options: tuple[str, ...] = ()
    field: str | None = None
    of_points: Callable[[Any, Mapping[str, Any]], float] | None = None
    better: Literal["higher", "lower"] = "higher"
    probabilities: bool = False
    weighted: bool = True

    def key(self, argument: object = None) -> str:
        """The ``summary()`` key: ``precision_at_<k>`` for a rank, else the name."""
        return f"{self.name}_{argument}" if self.parameter == "rank" else self.name

    def read(self, reader: Any, argument: Any = None, *, interpolate: bool = False,
             **options: Any) -> Any:
        """The value from ``reader`` (an evaluator, a report, a sketch), with ``argument``
        for a read that takes one and ``options`` for a read that declares them."""
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            allowed = ", ".join(f"{o}=" for o in self.options) or "none"
            raise ValueError(f"{self.name} takes no {', '.join(unknown)} (its options: "
                             f"{allowed})")
        if self.options:
            result = getattr(reader, str(self.method))(**options)
            return getattr(result, self.field) if self.field else result
        if self.compute is not None:
            return self.compute(reader, argument)
        if self.method is None:
            raise ValueError(f"{self.name} is read by interval() only (it needs threshold=)")
        method = getattr(reader, self.method)
        if interpolate:
            if not self.interpolated:
                raise ValueError(f"{self.name} has no interpolated value")
            return method(True)
        result = method() if self.parameter is None else method(argument)
        return getattr(result, self.field) if self.field else result

    @property
    def gauge(self) -> str:
        """The Prometheus metric's full name."""
        return "rankeval_" + (self.metric or self.name)


def _constrained(name: str, given: str) -> Callable[[Any, Mapping[str, Any]], float]:
    """A constrained read's value from the points: the achievable point's."""
    def value(points: Any, options: Mapping[str, Any]) -> float:
        point = decisions.constrained(points, name, options[given])  # type: ignore[arg-type]
        assert isinstance(point, decisions.OperatingPoint)
        return point.value

    return value


def _reads(reads: Iterable[ScoredRead]) -> dict[str, ScoredRead]:
    out: dict[str, ScoredRead] = {}
    for read in reads:
        if read.name in out:
            raise ValueError(f"two scored reads are named {read.name!r}")
        out[read.name] = read
    return out


#: Every scored read, in ``summary()``'s order.
READS: dict[str, ScoredRead] = _reads([
    ScoredRead("cases", "num_cases", "numCases",
               "Cases held: ranked cases plus misses of both kinds.", readers=_ALL),
    ScoredRead("positives", "num_positive_ref", "numPositiveRef",
               "Positive cases R, misses included.", readers=_ALL, metric="positive_cases"),
    ScoredRead("negatives", "num_negative_ref", "numNegativeRef",
               "Negative cases N, negative misses included.", readers=_ALL,
               metric="negative_cases"),
    ScoredRead("roc_auc", "area_under_roc_curve", "areaUnderRocCurve",
               "Area under the ROC curve (exact pair count).", interpolated=True,
               readers=_ALL, intervals=("delong", "bootstrap")),
    ScoredRead("gini", None, None, "Gini coefficient: 2 * ROC area - 1 (Somers' D of the "
               "scores against the labels).", intervals=("delong", "bootstrap"),
               compute=lambda reader, _: 2.0 * float(reader.area_under_roc_curve()) - 1.0),
    ScoredRead("pr_auc", "area_under_pr_curve", "areaUnderPrCurve",
               "Trapezoid area under the precision-recall curve.", interpolated=True),
    ScoredRead("average_precision", "average_precision", "averagePrecision",
               "Average precision.", readers=_ALL,
               intervals=("logit", "binomial", "bootstrap")),
    ScoredRead("max_f", "maximum_f_measure", "maximumFMeasure",
               "Largest F-measure over the PR curve.", parameter="beta",
               metric="max_f_measure"),
    ScoredRead("r_precision", "r_precision", "rPrecision", "Precision at rank R.",
               intervals=(*_PROPORTIONS, "bootstrap"), weighted=False),
    ScoredRead("reciprocal_rank", "reciprocal_rank", "reciprocalRank",
               "1 / rank of the first positive.", intervals=("bootstrap",), weighted=False),
    ScoredRead("precision_at", "precision_at", "precisionAt", "Precision at rank k.",
               parameter="rank", intervals=(*_PROPORTIONS, "bootstrap"), weighted=False),
    ScoredRead("pr_breakeven_point", "pr_breakeven_point", "prBreakevenPoint",
               "Precision where it equals recall on the PR curve.", in_summary=False,
               exported=False, weighted=False),
    ScoredRead("ks", "ks_statistic", None, "Kolmogorov-Smirnov statistic: the largest "
               "|TPR - FPR| over the thresholds.", field="value", intervals=("bootstrap",),
               of_points=lambda points, _: decisions.ks_statistic(points).value),
    ScoredRead("roc_convex_hull_auc", "area_under_roc_convex_hull", None,
               "Area under the ROC convex hull (the thresholds' randomised mixtures).",
               in_summary=False, exported=False),
    ScoredRead("pr_gain_auc", "area_under_pr_gain_curve", None,
               "Area under Flach & Kull's precision-recall-gain curve.",
               intervals=("bootstrap",), in_summary=False, exported=False,
               readers=frozenset({"evaluator"}),
               of_points=lambda points, _: decisions.area_under_pr_gain_curve(points)),
    ScoredRead("lift_at", "lift_at", None, "Lift of the top fraction of the cases.",
               options=("fraction",), intervals=("bootstrap",), in_summary=False,
               exported=False,
               of_points=lambda points, o: decisions.lift_at(points, o["fraction"])),
    ScoredRead("partial_roc_auc", "partial_roc_auc", None, "ROC area over a range of "
               "false- or true-positive rates, raw or standardised (McClish).",
               options=("fpr", "tpr", "standardize"), intervals=("bootstrap",),
               in_summary=False,
               of_points=lambda points, o: decisions.partial_roc_auc(points, **o)),
    *(ScoredRead(name, name, None, description, options=(given,), field="value",
                 intervals=("bootstrap",), in_summary=False, exported=False,
                 of_points=_constrained(name, given))
      for name, given, description in (
          ("sensitivity_at", "specificity",
           "Best sensitivity of a threshold whose specificity is at least the bound."),
          ("specificity_at", "sensitivity",
           "Best specificity of a threshold whose sensitivity is at least the bound."),
          ("precision_at_recall", "recall",
           "Best precision of a threshold whose recall is at least the bound."),
          ("recall_at_precision", "precision",
           "Best recall of a threshold whose precision is at least the bound."))),
    ScoredRead("brier_score", "brier_score", None, "Mean squared difference of score and "
               "outcome (the scores as probabilities).", in_summary=False, exported=False,
               readers=frozenset({"evaluator"}), better="lower", probabilities=True),
    ScoredRead("log_loss", "log_loss", None, "Log loss of the outcomes and the scores "
               "(as probabilities).", in_summary=False, exported=False,
               readers=frozenset({"evaluator"}), better="lower", probabilities=True),
    ScoredRead("calibration_error", "calibration_error", None, "Calibration error "
               "(expected by default; torchmetrics' BinaryCalibrationError).",
               options=("bins", "strategy", "norm"), in_summary=False, exported=False,
               readers=frozenset({"evaluator"}), better="lower", probabilities=True),
    ScoredRead("precision", None, None, "Precision of the cases scoring at least a threshold.",
               parameter="threshold", intervals=_PROPORTIONS, in_summary=False,
               readers=frozenset({"evaluator"}), metric="precision_at_threshold",
               compute=lambda reader, t: reader.confusion_at(t).precision()),
    ScoredRead("recall", None, None, "Recall of the cases scoring at least a threshold.",
               parameter="threshold", intervals=_PROPORTIONS, in_summary=False,
               readers=frozenset({"evaluator"}), metric="recall_at_threshold",
               compute=lambda reader, t: reader.confusion_at(t).recall()),
])


def read_value(reader: Any, name: str, argument: Any = None, **options: Any) -> Any:
    """``reader.read(name, argument)``: the registered read ``name`` of any reader.

    >>> from rankeval import ScoredPrecisionRecallEvaluation
    >>> ev = ScoredPrecisionRecallEvaluation()
    >>> ev.add_cases([True, False], [0.9, 0.1])
    >>> read_value(ev, "roc_auc"), read_value(ev, "precision_at", 1)
    (1.0, 1.0)
    """
    read = READS.get(name)
    if read is None:
        raise ValueError(f"unknown read {name!r}; the registered reads are "
                         f"{', '.join(READS)}")
    return read.read(reader, argument, **options)


def interval_methods() -> dict[str, tuple[str, ...]]:
    """Each read with an interval: its methods, the default first."""
    return {read.name: read.intervals for read in READS.values() if read.intervals}


def catalogue() -> str:
    """The docs page of the scored reads (``docs/scored-reads.md``), from :data:`READS`."""
    lines = [
        "# Scored reads",
        "",
        "<!-- Generated from rankeval.scored.reads by `python -m rankeval.scored.reads`; "
        "do not edit by hand. -->",
        "",
        "Every value a scored evaluator reads, from one table (`rankeval.scored.reads.READS`): "
        "`summary()` (and the segment frame), `interval()`, the Prometheus gauges and "
        "`rankeval scored --json` all list these. Readers: the evaluator (its windows, and "
        "each category of `ScoredClassifierEvaluation`), the partitioned `report()` of the "
        "engines, the sketch (with bounds). Ties and edge cases: [semantics](semantics.md). "
        "*weighted*: what an evaluator holding weighted cases gives "
        "([weighted cases](semantics.md#weighted-cases)); it raises for the others.",
        "",
        "| name | method | LingPipe | takes | readers | intervals (default first) "
        "| gauge | weighted | what it is |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for read in READS.values():
        takes = {"rank": "`k`", "beta": "`beta`", "threshold": "`threshold=`"}.get(
            str(read.parameter), "`interpolate`" if read.interpolated else "")
        if read.options:
            takes = ", ".join(f"`{option}=`" for option in read.options)
        how = (f"`{read.method}()`" if read.method else f'`read("{read.name}")`'
               if read.compute else "interval only")
        cells = [f"`{read.name}`", how,
                 f"`{read.lingpipe}`" if read.lingpipe else "",
                 takes, ", ".join(r for r in READERS if r in read.readers),
                 ", ".join(f"`{m}`" for m in read.intervals),
                 f"`{read.gauge}`" if read.exported else "",
                 "yes" if read.weighted else "", read.description]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _main() -> int:  # pragma: no cover - the docs page's generator
    sys.stdout.write(catalogue())
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(_main())
