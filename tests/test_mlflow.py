"""rankeval.mlflow against a real local MLflow tracking store (a file store in the test's
temporary directory): what is logged reads back with MlflowClient and mlflow.load_table
equal to what was logged, and the state file loads into an equal evaluator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mlflow
import numpy as np
import pytest
from mlflow import MlflowClient

from rankeval import ScoredPrecisionRecallEvaluation, compare, evaluate_run
from rankeval.mlflow import load_evaluation, log_comparison, log_evaluation, log_run_report


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    # MLflow keeps the file store for local use behind this switch (it prefers a database)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    yield MlflowClient()
    mlflow.set_tracking_uri(None)


def evaluator() -> ScoredPrecisionRecallEvaluation:
    rng = np.random.default_rng(3)
    labels = rng.random(3000) < 0.3
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(labels, np.round(labels * 0.5 + rng.random(3000), 3))
    ev.add_misses(4)
    return ev


def test_an_evaluation_reads_back_as_logged(store: Any) -> None:
    ev = evaluator()
    with mlflow.start_run() as run:
        log_evaluation(ev, prefix="val_", step=3, max_points=50)
    logged = store.get_run(run.info.run_id).data.metrics
    for key, value in ev.summary().items():
        assert logged["val_" + key] == pytest.approx(value, rel=1e-15, nan_ok=True), key
    delong = ev.interval("roc_auc")
    assert (logged["val_roc_auc_low"], logged["val_roc_auc_high"]) == (delong.low, delong.high)
    history = store.get_metric_history(run.info.run_id, "val_roc_auc")
    assert [m.step for m in history] == [3]
    table = mlflow.load_table("val_thresholds.parquet", run_ids=[run.info.run_id])
    full = ev.thresholds_table()
    assert len(table) == 50
    rows = np.unique(np.linspace(0, full.shape[0] - 1, 50).round().astype(int))
    for column in ("tp", "fp", "tn", "fn"):
        np.testing.assert_array_equal(table[column].to_numpy(), full[column][rows])
    np.testing.assert_array_equal(table["threshold"].to_numpy(), full["threshold"][rows])
    assert table["tp"].iloc[-1] == full["tp"][-1]  # the last threshold kept
    artifacts = {a.path for a in store.list_artifacts(run.info.run_id)}
    assert {"val_state", "val_plots"} <= artifacts
    assert load_evaluation(run.info.run_id, prefix="val_") == ev


def test_a_run_report_and_a_comparison(store: Any) -> None:
    qrels = {f"q{i}": {"a": 1, "b": 0, "c": i % 2} for i in range(6)}
    runs = {"x": {q: {"a": 0.9, "b": 0.5, "c": 0.1 * i} for i, q in enumerate(qrels)},
            "y": {q: {"a": 0.2, "b": 0.8, "c": 0.3} for q in qrels}}
    report = evaluate_run(qrels, runs["x"], ["map", "P_1"])
    comparison = compare(qrels, runs, ["map"], test="t-test")
    with mlflow.start_run() as run:
        log_run_report(report, prefix="x/")
        log_comparison(comparison)
    logged = store.get_run(run.info.run_id).data.metrics
    assert logged["x/map"] == report.aggregates["map"]
    assert logged["x/P_1"] == report.aggregates["P_1"]
    for (system, measure), value in comparison.means.items():
        assert logged[f"{system}/{measure}"] == value
    per_query = mlflow.load_table(f"x/{report.runid}_per_query.parquet",
                                  run_ids=[run.info.run_id])
    assert per_query["query"].tolist() == list(report.queries)
    np.testing.assert_array_equal(per_query["map"].to_numpy(), report.values["map"])
    tests = mlflow.load_table("comparison.parquet", run_ids=[run.info.run_id])
    assert len(tests) == len(comparison.tests)


def test_max_points_is_checked_and_nothing_is_logged(store: Any) -> None:
    with mlflow.start_run() as run, pytest.raises(ValueError, match="max_points"):
        log_evaluation(evaluator(), max_points=1)
    assert store.get_run(run.info.run_id).data.metrics == {}


def test_a_missing_mlflow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "mlflow", None)
    with pytest.raises(ModuleNotFoundError, match=r"rankeval-exact\[mlflow\]"):
        log_evaluation(evaluator())


def test_a_weighted_evaluation_logs_its_bootstrap_bounds_and_reads_back(store: Any) -> None:
    rng = np.random.default_rng(5)
    labels = rng.random(500) < 0.3
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(labels, np.round(labels * 0.5 + rng.random(500), 2),
                 weights=np.where(labels, 1.0, 20.0))
    with mlflow.start_run() as run:
        log_evaluation(ev, prefix="w_", plots=False)
    logged = store.get_run(run.info.run_id).data.metrics
    assert set(logged) == {"w_" + key for key in ev.summary()} | {
        f"w_{name}_{end}" for name in ("roc_auc", "average_precision") for end in ("low", "high")}
    found = ev.interval("roc_auc")  # the bootstrap: the one interval of weighted cases
    assert (logged["w_roc_auc_low"], logged["w_roc_auc_high"]) == (found.low, found.high)
    table = mlflow.load_table("w_thresholds.parquet", run_ids=[run.info.run_id])
    assert table["fp"].iloc[-1] == ev.num_negative_ref()  # sums of weights
    assert load_evaluation(run.info.run_id, prefix="w_") == ev
