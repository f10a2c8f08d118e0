"""Evaluations in MLflow: ``rankeval.mlflow``.

:func:`log_evaluation` logs, into the active MLflow run (MLflow starts one if none is):

* the summary as metrics (``prefix`` + the registry's keys, at ``step``), and each read's
  default interval where it has a cheap one (``roc_auc_low``/``_high`` by DeLong,
  ``average_precision_low``/``_high`` by the logit interval);
* the curves with their thresholds, as one MLflow table (``thresholds_table()``: every
  threshold with its counts, TPR, FPR and precision, down-sampled to ``max_points`` rows, the
  first and last kept) that ``mlflow.load_table`` reads back. Tables are Parquet: every
  threshold keeps its every bit (MLflow's JSON tables keep ten digits, and a rounded
  threshold no longer reproduces its counts);
* the PR and ROC plots as an image artifact (when matplotlib is installed);
* the evaluator's state file as an artifact, which :func:`load_evaluation` reads back into
  an equal evaluator.

:func:`log_run_report` logs a many-query :class:`~rankeval.RunReport` (aggregates as
metrics, the per-query values as a table); :func:`log_comparison` a
:class:`~rankeval.Comparison` (each system's means as metrics, the tests as a table).

Needs MLflow (``pip install 'rankeval-exact[mlflow]'``: ``mlflow-skinny``, the tracking
client, with pandas and pyarrow for the tables).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np

from rankeval._extras import optional

__all__ = ["load_evaluation", "log_comparison", "log_evaluation", "log_run_report"]

_STATE = "evaluation.rankeval"


def _mlflow() -> Any:
    return optional("mlflow", "rankeval.mlflow", "mlflow", "MLflow")


def _rows(count: int, max_points: int) -> np.ndarray:
    """``max_points`` row indices spread evenly from the first row to the last (all rows
    when there are no more)."""
    if count <= max_points:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, max_points).round().astype(np.int64))


def _frame(table: np.ndarray) -> Any:
    import pandas as pd

    return pd.DataFrame({name: table[name] for name in table.dtype.names or ()})


def log_evaluation(evaluation: Any, prefix: str = "", step: int | None = None, *,
                   max_points: int = 1000, intervals: bool = True, plots: bool = True,
                   state: bool = True) -> None:
    """Log a :class:`~rankeval.ScoredPrecisionRecallEvaluation` (its windows too) into the
    active MLflow run: metrics, a thresholds table, the plots and the state file (see the
    module text). ``prefix`` starts every metric's and artifact's name (``"val_"``,
    ``"test/"``).

    Raises
    ------
    ValueError
        ``max_points`` below 2.
    """
    from rankeval.checks import check_int
    from rankeval.scored.reads import READS

    max_points = check_int(max_points, "max_points", minimum=2)
    mlflow = _mlflow()
    metrics = {prefix + key: float(value) for key, value in evaluation.summary().items()}
    if intervals:
        weighted = getattr(evaluation, "weighted", False)
        for name in ("roc_auc", "average_precision"):  # weighted cases: the bootstrap's
            found = evaluation.interval(name, method="bootstrap" if weighted
                                        else READS[name].intervals[0])
            metrics[f"{prefix}{name}_low"], metrics[f"{prefix}{name}_high"] = found.low, found.high
    mlflow.log_metrics(metrics, step=step)
    table = evaluation.thresholds_table()
    table = table[_rows(table.shape[0], max_points)]
    mlflow.log_table(_frame(table), f"{prefix}thresholds.parquet")
    with tempfile.TemporaryDirectory() as folder:
        if state:
            path = os.path.join(folder, _STATE)
            evaluation.save(path)
            mlflow.log_artifact(path, artifact_path=f"{prefix}state")
        if plots:
            try:
                from rankeval.plotting import save_plot

                path = os.path.join(folder, "curves.png")
                save_plot(evaluation, path)
                mlflow.log_artifact(path, artifact_path=f"{prefix}plots")
            except ImportError:  # no matplotlib: no picture
                pass


def load_evaluation(run_id: str, prefix: str = "", *, cls: Any = None) -> Any:
    """The evaluator :func:`log_evaluation` saved in run ``run_id`` (with the same
    ``prefix``), loaded as ``cls`` (``ScoredPrecisionRecallEvaluation`` by default): equal
    to the one logged."""
    mlflow = _mlflow()
    if cls is None:
        from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation

        cls = ScoredPrecisionRecallEvaluation
    with tempfile.TemporaryDirectory() as folder:
        path = mlflow.artifacts.download_artifacts(run_id=run_id,
                                                   artifact_path=f"{prefix}state/{_STATE}",
                                                   dst_path=folder)
        return cls.load(path)


def log_run_report(report: Any, prefix: str = "", step: int | None = None) -> None:
    """Log a :class:`~rankeval.RunReport`: each aggregate as a metric, and the per-query
    values as a table (a row per query, a column per measure)."""
    import pandas as pd

    mlflow = _mlflow()
    mlflow.log_metrics({prefix + name: float(value)
                        for name, value in report.aggregates.items()}, step=step)
    frame = pd.DataFrame({"query": list(report.queries),
                          **{name: np.asarray(report.values[name]) for name in report.values}})
    mlflow.log_table(frame, f"{prefix}{report.runid}_per_query.parquet")


def log_comparison(comparison: Any, prefix: str = "", step: int | None = None) -> None:
    """Log a :class:`~rankeval.Comparison`: each system's mean of each measure as a metric
    (``prefix`` + ``system/measure``), and the tests as a table (its ``to_frame()``)."""
    mlflow = _mlflow()
    mlflow.log_metrics({f"{prefix}{system}/{measure}": float(value)
                        for (system, measure), value in comparison.means.items()}, step=step)
    mlflow.log_table(comparison.to_frame(), f"{prefix}comparison.parquet")
