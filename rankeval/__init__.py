"""rankeval: exact, incremental evaluation of scored decisions and ranked retrieval.

A ten-line tour, on LingPipe's running example (10 scored cases, one miss):

>>> from rankeval import ScoredPrecisionRecallEvaluation
>>> ev = ScoredPrecisionRecallEvaluation()
>>> ev.add_cases([False, True, False, True, True, False, False, False, True, False],
...              [-1.21, -1.27, -1.39, -1.47, -1.6, -1.65, -1.79, -1.8, -2.01, -3.7])
>>> ev.add_misses(1)
>>> round(ev.average_precision(), 4), ev.reciprocal_rank(), ev.precision_at(5)
(0.4089, 0.5, 0.6)
>>> ev.pr_curve(interpolate=True)[:3].tolist()
[[0.0, 1.0], [0.2, 0.6], [0.4, 0.6]]

Many queries, trec_eval's way:

>>> from rankeval import evaluate_run
>>> result = evaluate_run({"q1": {"d2": 1}}, {"q1": {"d1": 2.0, "d2": 1.0}}, ["map", "P_1"])
>>> result["map"], result["P_1"]
(0.5, 0.0)
"""

from typing import TYPE_CHECKING

from rankeval._lazy import lazy_names

if TYPE_CHECKING:
    from rankeval.confusion import (
        CostMatrix,
        MultiClassEvaluation,
        PrecisionRecallEvaluation,
        f_measure,
    )
    from rankeval.errors import DataError, PersistenceError
    from rankeval.intervals import Interval
    from rankeval.ranking import (
        Comparison,
        KendallTau,
        PairTest,
        Qrels,
        Run,
        RunReport,
        compare,
        eleven_point_precision,
        evaluate_run,
        first_relevant_ranks,
        kendall_tau,
        kendall_tau_counts,
        median_first_relevant_rank,
        median_relevant_rank,
        relevant_ranks,
    )
    from rankeval.scored import ScoredPrecisionRecallEvaluation
    from rankeval.scored.classifier import ScoredClassifierEvaluation
    from rankeval.scored.decisions import OperatingPoint
    from rankeval.scored.paired import PairedEvaluation, RocTest, roc_test
    from rankeval.scored.partitioned import PartitionedReport
    from rankeval.scored.segments import SegmentedEvaluation, SegmentReports
    from rankeval.scored.sketch import Estimate, SketchEvaluation
    from rankeval.scored.weighted_parts import WeightedReport

# Names are imported when first used (PEP 562): ``rankeval trec`` and a service that only
# needs the scored evaluator do not pay for the modules they never touch.
_WHERE = {
    **dict.fromkeys(("CostMatrix", "MultiClassEvaluation", "PrecisionRecallEvaluation",
                     "f_measure"), "rankeval.confusion"),
    **dict.fromkeys(("DataError", "PersistenceError"), "rankeval.errors"),
    **dict.fromkeys(("Comparison", "KendallTau", "PairTest", "Qrels", "Run", "RunReport",
                     "compare", "eleven_point_precision", "evaluate_run",
                     "first_relevant_ranks", "kendall_tau", "kendall_tau_counts",
                     "median_first_relevant_rank", "median_relevant_rank",
                     "relevant_ranks"), "rankeval.ranking"),
    "ScoredPrecisionRecallEvaluation": "rankeval.scored",
    "PartitionedReport": "rankeval.scored.partitioned",
    "WeightedReport": "rankeval.scored.weighted_parts",
    **dict.fromkeys(("Estimate", "SketchEvaluation"), "rankeval.scored.sketch"),
    "Interval": "rankeval.intervals",
    "ScoredClassifierEvaluation": "rankeval.scored.classifier",
    "OperatingPoint": "rankeval.scored.decisions",
    **dict.fromkeys(("SegmentedEvaluation", "SegmentReports"), "rankeval.scored.segments"),
    **dict.fromkeys(("PairedEvaluation", "RocTest", "roc_test"), "rankeval.scored.paired"),
}


__getattr__, __dir__ = lazy_names("rankeval", globals(), _WHERE,
                                  {"RunEvaluation": "RunReport"})


__version__ = "0.2.0"
__all__ = [
    "Comparison",
    "CostMatrix",
    "DataError",
    "Estimate",
    "Interval",
    "KendallTau",
    "MultiClassEvaluation",
    "OperatingPoint",
    "PairTest",
    "PairedEvaluation",
    "PartitionedReport",
    "PersistenceError",
    "PrecisionRecallEvaluation",
    "Qrels",
    "RocTest",
    "Run",
    "RunReport",
    "ScoredClassifierEvaluation",
    "ScoredPrecisionRecallEvaluation",
    "SegmentReports",
    "SegmentedEvaluation",
    "SketchEvaluation",
    "WeightedReport",
    "__version__",
    "compare",
    "eleven_point_precision",
    "evaluate_run",
    "f_measure",
    "first_relevant_ranks",
    "kendall_tau",
    "kendall_tau_counts",
    "median_first_relevant_rank",
    "median_relevant_rank",
    "relevant_ranks",
    "roc_test",
]
