"""Batch: add_cases of 1,000,000 cases + the full report, against NumPy, scikit-learn, torchmetrics.

Question: does a fresh evaluator fed 1,000,000 cases with one ``add_cases`` call and
then asked for the full report take <= 1.5x the plain NumPy reference (one argsort + cumsum giving
ROC AUC, AP and the PR curve), and run >= 5x faster than scikit-learn (``roc_auc_score`` +
``average_precision_score`` + ``precision_recall_curve``) and >= 3x faster than torchmetrics'
exact functional metrics (``binary_auroc``, ``binary_average_precision``,
``binary_precision_recall_curve``, ``thresholds=None``) on the same arrays?

Second question: fed in 100 batches (``add_cases`` of n/100 each, then one ROC area read),
is the evaluator at least as fast as torchmetrics' stateful ``BinaryAUROC(thresholds=None)``
(``update`` per batch, one ``compute``) on the same batches?

The peers compute less than rankeval's full report (three values or curves, not every curve in
both interpolation settings), so the comparison leans their way.  All contenders get the same
NumPy arrays (torch gets zero-copy ``torch.from_numpy`` views, made inside the timed call);
repeats are interleaved and the median is reported.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np

REFERENCE = "NumPy reference (argsort + cumsum)"
PER_CASE = "NumPy per-case reference (stable argsort)"
SKLEARN = "scikit-learn roc_auc + AP + PR curve"
TORCH = "torchmetrics binary_auroc + AP + PR curve"
# peer -> (largest allowed rankeval time / peer time, how the issue words it)
TARGETS = {REFERENCE: (1.5, "<= 1.5"), SKLEARN: (1 / 5, "<= 0.2 (5x faster)"),
           TORCH: (1 / 3, "<= 0.33 (3x faster)")}


def contenders(have_rankeval: bool) -> Callable[[np.ndarray, np.ndarray],
                                                dict[str, Callable[[], float]]]:
    """For the cases ``y``, ``s``: name -> call returning the ROC AUC it computed (to show
    that everyone agrees)."""
    return functools.partial(_contenders, have_rankeval=have_rankeval)


def _contenders(y: np.ndarray, s: np.ndarray, have_rankeval: bool
                ) -> dict[str, Callable[[], float]]:
    import torch
    from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score
    from torchmetrics.functional.classification import (
        binary_auroc,
        binary_average_precision,
        binary_precision_recall_curve,
    )

    def reference() -> float:
        return common.numpy_reference(y, s).roc_auc

    def per_case() -> float:
        return common.numpy_reference_per_case(y, s).roc_auc

    def sklearn() -> float:
        auc = roc_auc_score(y, s)
        average_precision_score(y, s)
        precision_recall_curve(y, s)
        return float(auc)

    def torchmetrics() -> float:
        preds, target = torch.from_numpy(s), torch.from_numpy(y)
        auc = binary_auroc(preds, target, thresholds=None)
        binary_average_precision(preds, target, thresholds=None)
        binary_precision_recall_curve(preds, target, thresholds=None)
        return float(auc)

    def rankeval(policy: str) -> Callable[[], float]:
        def run() -> float:
            ev = common.new_evaluator(policy)
            ev.add_cases(y, s)
            return float(common.full_report(ev)["auc_roc"])
        return run

    runs: dict[str, Callable[[], float]] = {}
    if have_rankeval:
        for policy in common.TIE_POLICIES:
            runs[f"rankeval ties={policy}: add_cases + full report"] = rankeval(policy)
    runs.update({REFERENCE: reference, PER_CASE: per_case, SKLEARN: sklearn,
                 TORCH: torchmetrics})
    return runs


BATCHES = 100
STATEFUL = "torchmetrics BinaryAUROC: update per batch + compute"


def batched_contenders(have_rankeval: bool) -> Callable[[np.ndarray, np.ndarray],
                                                        dict[str, Callable[[], float]]]:
    """The same cases in :data:`BATCHES` batches: name -> call returning its ROC AUC."""
    return functools.partial(_batched, have_rankeval=have_rankeval)


def _batched(y: np.ndarray, s: np.ndarray, have_rankeval: bool
             ) -> dict[str, Callable[[], float]]:
    import torch
    from torchmetrics.classification import BinaryAUROC

    parts = list(zip(np.array_split(y, BATCHES), np.array_split(s, BATCHES), strict=True))
    tensors = [(torch.from_numpy(l_), torch.from_numpy(s_)) for l_, s_ in parts]

    def stateful() -> float:
        metric = BinaryAUROC(thresholds=None)
        for labels, scores in tensors:
            metric.update(scores, labels)
        return float(metric.compute())

    def rankeval(policy: str) -> Callable[[], float]:
        def run() -> float:
            ev = common.new_evaluator(policy)
            for labels, scores in parts:
                ev.add_cases(labels, scores)
            return float(ev.area_under_roc_curve())
        return run

    runs: dict[str, Callable[[], float]] = {}
    if have_rankeval:
        for policy in common.TIE_POLICIES:
            runs[f"rankeval ties={policy}: {BATCHES} add_cases + ROC area"] = rankeval(policy)
    runs[STATEFUL] = stateful
    return runs


def table(args: Any, runs_of: Callable[[np.ndarray, np.ndarray], dict[str, Callable[[], float]]],
          targets: dict[str, tuple[float, str]], untargeted: tuple[str, ...] = ()) -> None:
    """One table: every contender on each data variant, its median time and its ratio to each
    peer with a target (``untargeted`` peers get the ratio alone)."""
    from sklearn.metrics import roc_auc_score

    rows = []
    for data_name, ties in common.data_variants(args.data):
        y, s = common.make_cases(args.n, ties=ties)
        common.check_reference_against_sklearn(y, s)
        exact = roc_auc_score(y, s)
        runs = runs_of(y, s)
        aucs = {name: run() for name, run in runs.items()}
        repeats = common.interleaved(runs, args.repeat)
        times = {name: common.median(t) for name, t in repeats.items()}
        ranks = [name for name in runs if name.startswith("rankeval")]
        for name, seconds in times.items():
            row: list[Any] = [data_name, name, common.fmt_seconds(seconds), aucs[name],
                              abs(aucs[name] - exact)]
            if name in targets or name in untargeted:
                cells = [f"{times[r] / seconds:.3f}" for r in ranks]
                row += [*cells, *[""] * (2 - len(cells))]
                if name in targets:
                    limit, wording = targets[name]
                    row += [wording, common.verdict(all(times[r] <= limit * seconds
                                                        for r in ranks)) if ranks else ""]
                else:
                    row += ["(no target)", ""]
            else:
                row += ["", "", "", ""]
            rows.append(row)
    common.print_table(["data", "contender", "median time", "ROC AUC", "|err| vs sklearn",
                        "insertion/peer", "grouped/peer", "target (time ratio)", "verdict"], rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], data=common.DATA_HELP)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.repeat = 20_000, 3

    common.header(f"Batch add_cases({args.n:,}) + full report vs NumPy, scikit-learn, torchmetrics",
                  "scikit-learn", "torch", "torchmetrics")
    have_rankeval = common.require_rankeval()
    import torch

    table(args, contenders(have_rankeval), TARGETS, (PER_CASE,))
    print(f"\nIn {BATCHES} batches of {args.n // BATCHES:,} (the same cases), one ROC area read:")
    table(args, batched_contenders(have_rankeval), {STATEFUL: (1.0, "<= 1")})
    print(f"median of {args.repeat} interleaved repeats; 'insertion/peer' = rankeval ties=insertion"
          " time / that peer's time (lower is better).")
    print(f"torch threads: {torch.get_num_threads()}; torchmetrics computes in float32 (its"
          " AUC error); the NumPy reference is checked equal to scikit-learn.")
    print("With tied scores only ties=grouped is defined to equal scikit-learn; ties=insertion"
          " resolves ties by arrival order, one operating point per case (LingPipe), which is what"
          " the per-case reference computes (its ROC AUC error on tied data is that difference).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
