"""Weighted cases: add_cases(weights=) + every weighted summary vs scikit-learn's sample_weight.

Question 1 (speed): a fresh evaluator fed 1,000,000 weighted cases with one ``add_cases`` call
and then read for every value scikit-learn computes with ``sample_weight`` (ROC area, average
precision, the ROC and PR curves, the Brier score, log loss) and maximum F: is it >= 5x faster
than those scikit-learn calls on the same arrays (``roc_auc_score``,
``average_precision_score``, ``roc_curve``, ``precision_recall_curve``, ``brier_score_loss``,
``log_loss``, each with ``sample_weight``)? Interleaved repeats, the median reported.

Question 2 (memory): at 10,000,000 cases, what does the evaluator hold a case (tracemalloc's
traced bytes after the adds and one read that sorts them in, the caller's arrays excluded)?
Targets: an evaluator never given a weight <= 9.3 B; a weighted one <= 17.5 B (float64 scores
and weights), <= 13.5 B with ``score_dtype="float32"``.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np

SKLEARN = "scikit-learn, sample_weight: 6 calls"
TARGET_SPEED = 5.0
MEMORY_TARGETS = {"never weighted": 9.3, "weighted, float64": 17.5,
                  "weighted, score_dtype=float32": 13.5}


def weights_for(n: int, seed: int = 5) -> np.ndarray:
    """Down-sampled negatives' weights: 1 or 20, with a few zeros and some fractions."""
    rng = np.random.default_rng(seed)
    weights = np.where(rng.random(n) < 0.5, 20.0, 1.0) * rng.choice([1.0, 0.5, 1.5], n)
    weights[rng.random(n) < 0.02] = 0.0
    return weights


def contenders(y: np.ndarray, s: np.ndarray, w: np.ndarray) -> dict[str, Callable[[], float]]:
    from sklearn import metrics

    def sklearn() -> float:
        auc = metrics.roc_auc_score(y, s, sample_weight=w)
        metrics.average_precision_score(y, s, sample_weight=w)
        metrics.roc_curve(y, s, sample_weight=w)
        metrics.precision_recall_curve(y, s, sample_weight=w)
        metrics.brier_score_loss(y, s, sample_weight=w)
        metrics.log_loss(y, s, sample_weight=w)
        return float(auc)

    def rankeval() -> float:
        ev = common.new_evaluator("grouped")
        ev.add_cases(y, s, weights=w)
        auc = ev.area_under_roc_curve()
        ev.average_precision()
        ev.roc_curve()
        ev.pr_curve()
        ev.maximum_f_measure()
        ev.brier_score()
        ev.log_loss()
        return float(auc)

    return {"rankeval: add_cases(weights=) + 7 reads": rankeval, SKLEARN: sklearn}


def speed(args: Any) -> None:
    rows = []
    for data_name, ties in common.data_variants(args.data):
        y, s = common.make_cases(args.n, ties=ties)
        w = weights_for(args.n)
        runs = contenders(y, s, w)
        aucs = {name: run() for name, run in runs.items()}
        times = {name: common.median(t)
                 for name, t in common.interleaved(runs, args.repeat).items()}
        mine = times["rankeval: add_cases(weights=) + 7 reads"]
        for name, seconds in times.items():
            peer = name == SKLEARN
            rows.append([data_name, name, common.fmt_seconds(seconds), aucs[name],
                         abs(aucs[name] - aucs[SKLEARN]),
                         f"{seconds / mine:.2f}" if peer else "",
                         f">= {TARGET_SPEED:g}" if peer else "",
                         common.verdict(seconds / mine >= TARGET_SPEED) if peer else ""])
    common.print_table(["data", "contender", "median time", "ROC AUC", "|diff| vs sklearn",
                        "peer/rankeval", "target", "verdict"], rows)


def held_bytes(n: int, weighted: bool, score_dtype: str) -> float:
    """Traced bytes the evaluator holds a case after the adds and one read."""
    import rankeval

    y, s = common.make_cases(n)
    if score_dtype == "float32":
        s = s.astype(np.float32)
    w = weights_for(n) if weighted else None
    w_nonzero = int(np.count_nonzero(w)) if w is not None else n
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    ev = rankeval.ScoredPrecisionRecallEvaluation(score_dtype=score_dtype)
    for start in range(0, n, 1_000_000):
        stop = start + 1_000_000
        if w is None:
            ev.add_cases(y[start:stop], s[start:stop])
        else:
            ev.add_cases(y[start:stop], s[start:stop], weights=w[start:stop])
    ev.num_positive_ref()  # sorts every case in
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del ev
    return held / w_nonzero  # zero-weight cases are not held


def memory(args: Any) -> None:
    rows = []
    for name, weighted, dtype in (("never weighted", False, "float64"),
                                  ("weighted, float64", True, "float64"),
                                  ("weighted, score_dtype=float32", True, "float32")):
        per_case = held_bytes(args.memory_n, weighted, dtype)
        target = MEMORY_TARGETS[name]
        rows.append([name, f"{args.memory_n:,}", f"{per_case:.2f}", f"<= {target}",
                     common.verdict(per_case <= target)])
    common.print_table(["evaluator", "cases", "held B/case", "target", "verdict"], rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], data=common.DATA_HELP)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--memory-n", type=int, default=10_000_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.memory_n, args.repeat = 20_000, 200_000, 3
    common.header(f"Weighted add_cases({args.n:,}) + every weighted read vs scikit-learn",
                  "scikit-learn")
    common.require_rankeval()
    speed(args)
    print(f"median of {args.repeat} interleaved repeats; peer/rankeval = scikit-learn's time "
          "/ rankeval's (higher is better). rankeval also reads maximum F, which scikit-learn "
          "does not compute.\n")
    memory(args)
    print("held B/case: tracemalloc's traced bytes after the adds and one read, over the "
          "cases held (a zero weight is not held); the caller's arrays are made before.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
