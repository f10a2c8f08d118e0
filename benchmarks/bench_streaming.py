"""Streaming: updates per second of one-case adds with a ROC AUC read after every 1,000th add.

Question (issue 3): does a stream of 1,000,000 ``add_case`` calls, reading
``area_under_roc_curve()`` after every 1,000th, run at >= 1.5x the updates/s of river's
approximate ``metrics.ROCAUC()`` (defaults) and >= 30x torchmetrics' exact ``BinaryAUROC``
(``thresholds=None``) fed one case per ``update`` -- while giving the exact value?

Every contender consumes the same Python ``bool``/``float`` stream through the same loop. River and
rankeval run the whole stream, interleaved, ``--repeat`` times (median reported). torchmetrics
needs tens of microseconds per update and an ever longer ``compute()``, so it runs only the first
``--torch-prefix`` cases (same read points) and its updates/s there is extrapolated to the whole
stream; since its ``compute()`` grows with the stream, the real full-stream rate would be lower,
so the torchmetrics ratio is conservative.  Its one-case tensors are built before the clock starts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import _common as common

READ_EVERY = 1_000


def run_stream(update: Callable[[Any, Any], Any], read: Callable[[], Any],
               labels: list[Any], scores: list[Any]) -> Any:
    """Feed the stream one case at a time, reading after every READ_EVERY-th add."""
    value = None
    for start in range(0, len(labels), READ_EVERY):
        for correct, score in zip(labels[start:start + READ_EVERY],
                                  scores[start:start + READ_EVERY], strict=True):
            update(correct, score)
        value = read()
    return value


def rankeval_contender(ties: str, labels: list[bool], scores: list[float]) -> Callable[[], float]:
    def run() -> float:
        ev = common.new_evaluator(ties)
        return float(run_stream(ev.add_case, ev.area_under_roc_curve, labels, scores))
    return run


def river_contender(labels: list[bool], scores: list[float]) -> Callable[[], float]:
    from river import metrics

    def run() -> float:
        metric = metrics.ROCAUC()
        return float(run_stream(metric.update, metric.get, labels, scores))
    return run


def torchmetrics_contender(labels: list[bool], scores: list[float]) -> Callable[[], float]:
    import torch
    from torchmetrics.classification import BinaryAUROC

    preds = [torch.tensor([s], dtype=torch.float64) for s in scores]
    target = [torch.tensor([int(c)]) for c in labels]

    def run() -> float:
        metric = BinaryAUROC(thresholds=None)
        return float(run_stream(metric.update, metric.compute, preds, target))
    return run


def speedups(rankeval_rates: list[float], peer_rate: float, target: float) -> list[Any]:
    """Table cells: each tie policy's rate over the peer's, the target, the verdict."""
    cells: list[Any] = [common.ratio(r, peer_rate) for r in rankeval_rates]
    cells += [""] * (2 - len(cells))
    if not rankeval_rates:
        return [*cells, f">= {target:g}x", ""]
    ok = all(r / peer_rate >= target for r in rankeval_rates)
    return [*cells, f">= {target:g}x", common.verdict(ok)]


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000, help="stream length")
    p.add_argument("--torch-prefix", type=int, default=50_000,
                   help="cases of the stream fed to torchmetrics")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--data", choices=("continuous", "ties", "both"), default="both")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.torch_prefix, args.repeat = 20_000, 5_000, 2

    common.header("Streaming add_case + area_under_roc_curve() every 1,000th add",
                  "river", "torch", "torchmetrics", "scikit-learn")
    have_rankeval = common.require_rankeval()
    from sklearn.metrics import roc_auc_score

    rows = []
    notes = []
    for data_name, ties in common.data_variants(args.data):
        y, s = common.make_cases(args.n, ties=ties)
        labels, scores = y.tolist(), s.tolist()
        prefix = min(args.torch_prefix, args.n)
        exact = roc_auc_score(y, s)
        exact_prefix = roc_auc_score(y[:prefix], s[:prefix])

        contenders: dict[str, Callable[[], float]] = {}
        if have_rankeval:
            for policy in common.TIE_POLICIES:
                contenders[f"rankeval ties={policy}"] = rankeval_contender(policy, labels, scores)
        contenders["river ROCAUC()"] = river_contender(labels, scores)
        times = common.interleaved(contenders, args.repeat)
        finals = {name: fn() for name, fn in contenders.items()}

        torch_run = torchmetrics_contender(labels[:prefix], scores[:prefix])
        torch_times = [common.timed(torch_run)[0] for _ in range(args.repeat)]
        torch_final = torch_run()

        rate = {name: args.n / common.median(t) for name, t in times.items()}
        rate_torch = prefix / common.median(torch_times)
        ranks = [name for name in rate if name.startswith("rankeval")]

        rankeval_rates = [rate[r] for r in ranks]
        for name in ranks:
            rows.append([data_name, name, args.n, rate[name], finals[name],
                         abs(finals[name] - exact), "", "", "", ""])
        rows.append([data_name, "river ROCAUC()", args.n, rate["river ROCAUC()"],
                     finals["river ROCAUC()"], abs(finals["river ROCAUC()"] - exact),
                     *speedups(rankeval_rates, rate["river ROCAUC()"], 1.5)])
        rows.append([data_name, f"torchmetrics BinaryAUROC (first {prefix:,}, extrapolated)",
                     prefix, rate_torch, torch_final, abs(torch_final - exact_prefix),
                     *speedups(rankeval_rates, rate_torch, 30.0)])
        notes.append(f"{data_name}: exact ROC AUC (scikit-learn) {exact:.12f} on all {args.n:,},"
                     f" {exact_prefix:.12f} on the first {prefix:,}; median of"
                     f" {args.repeat} interleaved runs")

    print_headers = ["data", "contender", "cases", "updates/s", "final ROC AUC",
                     "|err| vs sklearn", "insertion is", "grouped is", "target", "verdict"]
    common.print_table(print_headers, rows)
    for note in notes:
        print(note)
    print("'insertion is' / 'grouped is' = rankeval updates/s (whole stream) / that peer's"
          " updates/s.")
    print("With tied scores only ties=grouped is defined to equal scikit-learn; ties=insertion"
          " resolves ties by arrival order.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
