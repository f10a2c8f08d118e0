"""Shared fixtures and helpers: the reference data and a full snapshot of every derived value."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from rankeval import ScoredPrecisionRecallEvaluation

DATA = Path(__file__).parent / "data"

# The suite is reproducible: `make test` and CI draw the same examples every run
# (derandomize, no example database), so a red run is never luck. `make fuzz` loads the
# "fuzz" profile instead: fresh seeds every run, a database under .hypothesis/ to replay what
# it found; a failure found there is added to the suite as an @example.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True,
                          deadline=None)
settings.register_profile("fuzz", derandomize=False, print_blob=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("RANKEVAL_HYPOTHESIS_PROFILE", "ci"))

RUNNING_EXAMPLE = [
    (False, -1.21), (True, -1.27), (False, -1.39), (True, -1.47), (True, -1.6),
    (False, -1.65), (False, -1.79), (False, -1.8), (True, -2.01), (False, -3.7),
]


def decode(value: Any) -> Any:
    """Turn the oracle's "NaN"/"Infinity" strings back into floats, recursively."""
    if isinstance(value, str) and value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    return value


def load_oracle() -> list[dict[str, Any]]:
    with (DATA / "lingpipe_oracle_dev.jsonl").open() as lines:
        return [json.loads(line) for line in lines]


def snapshot(ev: Any) -> dict[str, Any]:
    """Every public derived value of an evaluator, as plain comparable data."""
    out: dict[str, Any] = {
        "counts": (ev.num_cases(), ev.num_positive_ref(), ev.num_negative_ref()),
        "str": str(ev),
    }
    for flag in (False, True):
        out[f"pr{flag}"] = ev.pr_curve(flag).tolist()
        out[f"prs{flag}"] = ev.pr_score_curve(flag).tolist()
        out[f"roc{flag}"] = ev.roc_curve(flag).tolist()
        out[f"aupr{flag}"] = ev.area_under_pr_curve(flag)
        out[f"auroc{flag}"] = ev.area_under_roc_curve(flag)
    out["eleven"] = ev.eleven_point_interpolated_precision().tolist()
    out["ap"] = ev.average_precision()
    out["maxf"] = [ev.maximum_f_measure(b) for b in (0.5, 1.0, 2.0)]
    out["p_at"] = [ev.precision_at(k) for k in (0, 1, 2, 3, 5, 10, 50)]
    out["rprec"] = ev.r_precision()
    out["rr"] = ev.reciprocal_rank()
    return out


def same(a: Any, b: Any) -> bool:
    """Equality where NaN equals NaN (curves, scalars, nested lists)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def close(a: Any, b: Any, tol: float = 1e-12) -> bool:
    """Like :func:`same` with an absolute tolerance on finite floats."""
    if isinstance(a, (float, int)) and isinstance(b, (float, int)):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= tol
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def evaluation_of(cases: list[tuple[bool, float]], ties: str = "insertion", misses: int = 0,
                  negative_misses: int = 0,
                  window: int | None = None) -> ScoredPrecisionRecallEvaluation:
    """An evaluator fed ``cases`` one ``add_case`` at a time, then the misses."""
    ev = ScoredPrecisionRecallEvaluation(ties=ties, window=window)  # type: ignore[arg-type]
    for correct, score in cases:
        ev.add_case(correct, score)
    ev.add_misses(misses)
    ev.add_negative_misses(negative_misses)
    return ev


@pytest.fixture
def running_example() -> ScoredPrecisionRecallEvaluation:
    return evaluation_of(RUNNING_EXAMPLE, misses=1)


def as_list(array: Any) -> Any:
    return np.asarray(array).tolist()


@pytest.fixture(scope="session")
def spark() -> Any:
    """One local Spark (2 cores) for the whole session: starting the JVM takes seconds."""
    from rankeval.spark import session

    active = session("local[2]", "rankeval-tests", **{"spark.sql.shuffle.partitions": "4"})
    active.sparkContext.setLogLevel("ERROR")
    yield active
    active.stop()


@pytest.fixture(scope="session")
def dask_client() -> Any:
    """One Dask LocalCluster (2 worker processes) for the whole session."""
    from dask.distributed import Client, LocalCluster

    # ":0": the scheduler's HTTP server on a free port (None still binds the default 8787,
    # which another cluster on the machine, a notebook's or a stopped run's, may hold).
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


# Modules that take most of the suite's time (an engine's JVM or cluster, crash and fault
# sweeps, the trec_eval binaries, fuzzing in child processes, a service killed and
# restarted): marked "slow", so that `pytest -m "not slow"` runs the rest in a fraction of
# the time while developing. CI and `make test` run everything.
SLOW_MODULES = frozenset({
    "test_engines.py", "test_spark_errors.py", "test_crash.py", "test_faults.py",
    "test_trec_differential.py", "test_sketch_fuzz.py", "test_service_example.py",
    "test_large_report.py",
})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
