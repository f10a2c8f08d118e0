"""One query's scored cases, streamed in: the evaluator and everything it owns.

Data flows one way through this room::

    add_case / add_cases ─► store (sorted columns, pair count) ─► points (operating points)
                                  │                                   │
                                  └─► O(log n) reads                  └─► curves, formulas

* :mod:`.evaluation` — :class:`ScoredPrecisionRecallEvaluation`: the state (declared once),
  the lock, the cache; it computes nothing itself. Its mixins: :mod:`.lingpipe` (LingPipe's
  names, text and printers), :mod:`.metric_names` (torchmetrics' ``update``/``compute``),
  :mod:`.uncertainty` (``interval()``).
* :mod:`.store` — the sorted case store and its exact pair count; :mod:`.window` its
  sliding-window variant.
* :mod:`.sorting` — sorting cases (the operating points are :mod:`rankeval.points`).
* :mod:`.curves` — PR, ROC and score curves as pure functions of the operating points.
* :mod:`.state_file` — the saved-state file format.
* :mod:`.partitioned` — exact reports read bucket by bucket (engines, and :meth:`report`).
* :mod:`.sketch` — :class:`SketchEvaluation`, bounded memory with a stated error.
* :mod:`.readers` — the protocols the evaluator, the partitioned report and the sketch share.
* :mod:`.paired` — :class:`PairedEvaluation` and :func:`roc_test`: DeLong's tests.
* :mod:`.classifier` — :class:`ScoredClassifierEvaluation`: many categories, one-vs-rest and
  one-vs-one.
* :mod:`.segments` — :class:`SegmentedEvaluation`: an evaluator per segment.
* :mod:`.calibration` — Brier score, log loss, calibration error, the reliability curve.
* :mod:`.queries` — one evaluator per query of a file, and their means.
* :mod:`.lingpipe_text` — Java's number formatting, for LingPipe's report text.
"""

from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation

__all__ = ["ScoredPrecisionRecallEvaluation"]
