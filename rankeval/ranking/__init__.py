"""Many queries ranked at once: runs, qrels and trec_eval's measures.

Data flows one way through this room::

    trec_files / dicts / arrays ─► Run, Qrels ─► join (doc ids) ─► trec_sort (per-query
    rankings as padded batches) ─► measures (one function per trec_eval measure, built on
    :mod:`rankeval.formulas`) ─► evaluate (RunReport: per-query values, aggregates)

* :mod:`.inputs` — :class:`Run` and :class:`Qrels`, from files, dicts and arrays.
* :mod:`.evaluate` — :func:`evaluate_run` and :class:`RunReport`.
* :mod:`.registry` — the one registry: every measure declared once, with all its names.
* :mod:`.catalogue` — trec_eval's ``-m`` syntax, nicknames and printing, over the registry.
* :mod:`.measures` — the measures' functions over batches of queries.
* :mod:`.trec_sort` — trec_eval's ranking rules, many queries at a time.
* :mod:`.join` — matching run documents to judgments by hashed ids.
* :mod:`.trec_files` — reading TREC run and qrels files.
* :mod:`.trec_cli` — ``rankeval trec``, the trec_eval drop-in.
"""

from typing import TYPE_CHECKING

from rankeval._lazy import lazy_names

if TYPE_CHECKING:
    from rankeval.ranking.correlation import KendallTau, kendall_tau, kendall_tau_counts
    from rankeval.ranking.evaluate import (
        Qrels,
        Run,
        RunReport,
        eleven_point_precision,
        evaluate_run,
        first_relevant_ranks,
        median_first_relevant_rank,
        median_relevant_rank,
        relevant_ranks,
    )
    from rankeval.ranking.significance import Comparison, PairTest, compare

# Imported when first used (PEP 562), as in the package above.
_WHERE = {
    **dict.fromkeys(("KendallTau", "kendall_tau", "kendall_tau_counts"),
                    "rankeval.ranking.correlation"),
    **dict.fromkeys(("Comparison", "PairTest", "compare"), "rankeval.ranking.significance"),
    **dict.fromkeys(("Qrels", "Run", "RunReport", "eleven_point_precision", "evaluate_run",
                     "first_relevant_ranks", "median_first_relevant_rank",
                     "median_relevant_rank", "relevant_ranks"), "rankeval.ranking.evaluate"),
}


__getattr__, __dir__ = lazy_names("rankeval.ranking", globals(), _WHERE,
                                  {"RunEvaluation": "RunReport"})


__all__ = [
    "Comparison",
    "KendallTau",
    "PairTest",
    "Qrels",
    "Run",
    "RunReport",
    "compare",
    "eleven_point_precision",
    "evaluate_run",
    "first_relevant_ranks",
    "kendall_tau",
    "kendall_tau_counts",
    "median_first_relevant_rank",
    "median_relevant_rank",
    "relevant_ranks",
]
