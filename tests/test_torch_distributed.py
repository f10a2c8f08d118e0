"""rankeval.torch under torch.distributed (gloo on CPU, real processes): every kind of
accumulator synced from shards of very different sizes, one of them empty, equals one
process fed every case, bit for bit, on every rank; nothing hangs on the empty rank."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.torch import Metric, sync

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("sizes", [[300, 0, 17], [1, 120, 0, 45]])
def test_every_rank_holds_the_evaluator_of_every_case(tmp_path: Path,
                                                      sizes: list[int]) -> None:
    world = len(sizes)
    init = tmp_path / "init"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    children = [subprocess.Popen(
        [sys.executable, "-m", "tests.torch_dist_child", str(rank), str(world), str(init),
         ",".join(map(str, sizes))], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True) for rank in range(world)]
    outputs = []
    try:
        for child in children:
            out, err = child.communicate(timeout=600)
            assert child.returncode == 0, err[-2000:]
            outputs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    for report in outputs:
        failed = [name for name, ok in report.items() if name != "rank" and ok is not True]
        assert not failed, (report["rank"], failed)


def test_outside_a_process_group_sync_is_a_copy() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False], [0.9, 0.1])
    copy = sync(ev)
    assert copy == ev
    assert copy is not ev


def test_the_metric_protocol_on_one_process() -> None:
    """update/compute/reset/forward as torchmetrics' Metric; forward returns the batch's own
    values; compute those of every batch so far."""
    metric = Metric()
    scores = torch.tensor([0.9, 0.2, 0.7, 0.4])
    labels = torch.tensor([1, 0, 0, 1])
    batch = metric(scores, labels)
    again = metric(torch.tensor([0.8, 0.1]), torch.tensor([1, 0]))
    assert batch["cases"] == 4.0
    assert again["cases"] == 2.0
    everything = ScoredPrecisionRecallEvaluation()
    everything.add_cases(np.array([1, 0, 0, 1, 1, 0], bool),
                         np.array([0.9, 0.2, 0.7, 0.4, 0.8, 0.1]))
    assert metric.compute() == everything.compute()
    metric.reset()
    assert metric.compute()["cases"] == 0.0
