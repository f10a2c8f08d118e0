"""One rank of tests/test_torch_distributed.py: join a gloo process group (a file in the
test's temporary directory), feed this rank's shard of the cases into each kind of
accumulator, sync, and check that every rank holds what one process fed every case (rank 0's
cases first) holds, bit for bit; the Metric protocol too. Prints one JSON line.

    python torch_dist_child.py RANK WORLD INIT_FILE SIZES
"""

from __future__ import annotations

import datetime
import json
import sys
from typing import Any

import numpy as np
import torch
import torch.distributed as dist

from rankeval import (
    PairedEvaluation,
    ScoredClassifierEvaluation,
    ScoredPrecisionRecallEvaluation,
    SegmentedEvaluation,
)
from rankeval.torch import Metric, sync
from tests.helpers import Clock

CATEGORIES = ["a", "b", "c"]


def cases(total: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    labels = rng.random(total) < 0.35
    return {"labels": labels, "scores": np.round(rng.random(total), 2),
            "other": np.round(rng.random(total), 1), "segment": rng.choice(["x", "y"], total),
            "category": rng.choice(CATEGORIES, total),
            "probabilities": np.round(rng.dirichlet([1, 1, 1], total), 2),
            "weights": np.where(rng.random(total) < 0.1, 0.0, rng.random(total) * 3.0)}


def accumulators() -> dict[str, Any]:
    return {
        "grouped": ScoredPrecisionRecallEvaluation(),
        "insertion": ScoredPrecisionRecallEvaluation(ties="insertion"),
        "count window": ScoredPrecisionRecallEvaluation(window=50),
        "time window": ScoredPrecisionRecallEvaluation(horizon=1e9, clock=Clock(5.0)),
        "categories": ScoredClassifierEvaluation(CATEGORIES),
        "segments": SegmentedEvaluation(ScoredPrecisionRecallEvaluation),
        "paired": PairedEvaluation(),
        "weighted": ScoredPrecisionRecallEvaluation(),
        "weighted window": ScoredPrecisionRecallEvaluation(window=50),
        "weighted categories": ScoredClassifierEvaluation(CATEGORIES),
        "weighted segments": SegmentedEvaluation(ScoredPrecisionRecallEvaluation),
        "weighted paired": PairedEvaluation(),
    }


def feed(made: dict[str, Any], data: dict[str, np.ndarray], part: slice) -> None:
    labels, scores = data["labels"][part], data["scores"][part]
    for name in ("grouped", "insertion", "count window", "time window"):
        made[name].add_cases(labels, scores)
    made["categories"].add_cases(data["category"][part], data["probabilities"][part])
    made["segments"].add_cases(data["segment"][part], labels, scores)
    made["paired"].add_cases(labels, scores, data["other"][part])
    weights = data["weights"][part]
    made["weighted"].add_cases(labels, scores, weights=weights)
    made["weighted window"].add_cases(labels, scores, weights=weights)
    made["weighted categories"].add_cases(data["category"][part], data["probabilities"][part],
                                          weights=weights)
    made["weighted segments"].add_cases(data["segment"][part], labels, scores, weights=weights)
    made["weighted paired"].add_cases(labels, scores, data["other"][part], weights)


def same(a: Any, b: Any) -> bool:
    """Equal states: by the class's own equality where it has one (a window's bytes record
    how its cases arrived in batches), else by their bytes."""
    if type(a).__eq__ is not object.__eq__:
        return bool(a == b)
    return bool(a.to_bytes() == b.to_bytes())


def main() -> None:
    rank, world, init, sizes = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                [int(s) for s in sys.argv[4].split(",")])
    dist.init_process_group("gloo", init_method=f"file://{init}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=120))
    data = cases(sum(sizes))
    start = sum(sizes[:rank])
    mine = accumulators()
    feed(mine, data, slice(start, start + sizes[rank]))
    whole = accumulators()
    feed(whole, data, slice(0, sum(sizes)))
    report: dict[str, Any] = {"rank": rank}
    for name, evaluator in mine.items():
        before = evaluator.to_bytes()
        merged = sync(evaluator)
        report[name] = same(merged, whole[name])
        report[name + " untouched"] = evaluator.to_bytes() == before
    only = sync(mine["grouped"], dst=0)
    report["dst"] = (only.to_bytes() == whole["grouped"].to_bytes()) if rank == 0 else (
        only is None)
    metric = Metric()
    part = slice(start, start + sizes[rank])
    for chunk in np.array_split(np.arange(part.start, part.stop), 3):
        metric.update(torch.tensor(data["scores"][chunk]),
                      torch.tensor(data["labels"][chunk].astype(np.int64)))
    want = whole["grouped"].compute()
    got = metric.compute()
    report["metric"] = list(got) == list(want) and all(
        got[k] == want[k] or (got[k] != got[k] and want[k] != want[k]) for k in want)
    weighted = Metric()
    for chunk in np.array_split(np.arange(part.start, part.stop), 3):
        weighted.update(torch.tensor(data["scores"][chunk]),
                        torch.tensor(data["labels"][chunk].astype(np.int64)),
                        torch.tensor(data["weights"][chunk]))
    want = whole["weighted"].compute()
    got = weighted.compute()
    report["weighted metric"] = list(got) == list(want) and all(
        got[k] == want[k] or (got[k] != got[k] and want[k] != want[k]) for k in want)
    dist.barrier()
    dist.destroy_process_group()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
