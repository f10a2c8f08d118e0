"""Streaming: updates per second of one-case adds with a ROC AUC read after every 1,000th add.

Question: does a stream of 1,000,000 ``add_case`` calls, reading
``area_under_roc_curve()`` after every 1,000th, run at >= 1.5x the updates/s of river's
approximate ``metrics.ROCAUC()`` (defaults) and >= 30x torchmetrics' exact ``BinaryAUROC``
(``thresholds=None``) fed one case per ``update`` -- while giving the exact value?

Every contender consumes the same Python ``bool``/``float`` stream through the same loop, and the
contenders advance side by side: each takes the next ``--slice`` cases (reads included) in turn,
the order rotating, and only its own slices are timed.  A burst of load from other work on the
shared cores therefore lands on every contender alike instead of on whichever ran at that moment.
Each run starts fresh objects; the table gives the median of ``--repeat`` runs.

torchmetrics needs tens of microseconds per update and an ever longer ``compute()``, so it takes
part only in the first ``--torch-prefix`` cases (same read points), and its rate there stands in
for the whole stream ("extrapolated").  Its ``compute()`` grows with the stream, so its real
full-stream rate would be lower and that ratio understates rankeval's lead; the rankeval rate
over the same prefix is printed below the table for comparison.  Its one-case tensors are built
before the clock starts.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import _common as common

READ_EVERY = 1_000


@dataclass
class Contender:
    """A fresh metric per run: ``make()`` -> (update(correct, score), read())."""

    make: Callable[[], tuple[Callable[[Any, Any], Any], Callable[[], Any]]]
    labels: list[Any]
    scores: list[Any]

    @property
    def length(self) -> int:
        return len(self.labels)


def run_slice(update: Callable[[Any, Any], Any], read: Callable[[], Any],
              labels: list[Any], scores: list[Any], start: int, stop: int) -> Any:
    """Feed cases [start, stop) one at a time, reading after every READ_EVERY-th add overall."""
    value = None
    for block in range(start, stop, READ_EVERY):
        end = min(block + READ_EVERY, stop)
        for correct, score in zip(labels[block:end], scores[block:end], strict=True):
            update(correct, score)
        if end % READ_EVERY == 0:
            value = read()
    return value


def run_stream(update: Callable[[Any, Any], Any], read: Callable[[], Any],
               labels: list[Any], scores: list[Any]) -> Any:
    """Feed a whole stream one case at a time, reading after each READ_EVERY-th add and at the end.

    Returns the last value read.  bench_window.py streams through this, so it stays.
    """
    value = None
    for start in range(0, len(labels), READ_EVERY):
        for correct, score in zip(labels[start:start + READ_EVERY],
                                  scores[start:start + READ_EVERY], strict=True):
            update(correct, score)
        value = read()
    return value


def side_by_side(contenders: dict[str, Contender], slice_size: int, prefix: int
                 ) -> tuple[dict[str, float], dict[str, float], dict[str, Any]]:
    """One run: (seconds for the whole stream, seconds for the first ``prefix``, last value)."""
    live = {name: c.make() for name, c in contenders.items()}
    total = dict.fromkeys(contenders, 0.0)
    head = dict.fromkeys(contenders, 0.0)
    value: dict[str, Any] = dict.fromkeys(contenders)
    names = list(contenders)
    longest = max(c.length for c in contenders.values())
    gc.collect()
    for turn, start in enumerate(range(0, longest, slice_size)):
        shift = turn % len(names)
        for name in names[shift:] + names[:shift]:
            c = contenders[name]
            stop = min(start + slice_size, c.length)
            if start >= stop:
                continue
            update, read = live[name]
            t0 = time.perf_counter()
            v = run_slice(update, read, c.labels, c.scores, start, stop)
            seconds = time.perf_counter() - t0
            total[name] += seconds
            if stop <= prefix:
                head[name] += seconds
            if v is not None:
                value[name] = v
    return total, head, value


def rankeval_contender(ties: str, labels: list[bool], scores: list[float]) -> Contender:
    def make() -> tuple[Callable[[Any, Any], Any], Callable[[], Any]]:
        ev = common.new_evaluator(ties)
        return ev.add_case, ev.area_under_roc_curve
    return Contender(make, labels, scores)


def river_contender(labels: list[bool], scores: list[float]) -> Contender:
    from river import metrics

    def make() -> tuple[Callable[[Any, Any], Any], Callable[[], Any]]:
        metric = metrics.ROCAUC()
        return metric.update, metric.get
    return Contender(make, labels, scores)


def torchmetrics_contender(labels: list[bool], scores: list[float]) -> Contender:
    import torch
    from torchmetrics.classification import BinaryAUROC

    preds = [torch.tensor([s], dtype=torch.float64) for s in scores]
    target = [torch.tensor([int(c)]) for c in labels]

    def make() -> tuple[Callable[[Any, Any], Any], Callable[[], Any]]:
        metric = BinaryAUROC(thresholds=None)
        return metric.update, metric.compute
    return Contender(make, preds, target)


def speedups(rankeval_rates: list[float], peer_rate: float, target: float) -> list[Any]:
    """Table cells: each tie policy's rate over the peer's, the target, the verdict."""
    cells: list[Any] = [common.ratio(r, peer_rate) for r in rankeval_rates]
    cells += [""] * (2 - len(cells))
    if not rankeval_rates:
        return [*cells, f">= {target:g}x", ""]
    ok = all(r / peer_rate >= target for r in rankeval_rates)
    return [*cells, f">= {target:g}x", common.verdict(ok)]


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], data=common.DATA_HELP)
    p.add_argument("--n", type=int, default=1_000_000, help="stream length")
    p.add_argument("--torch-prefix", type=int, default=50_000,
                   help="cases of the stream fed to torchmetrics")
    p.add_argument("--slice", type=int, default=10_000,
                   help="cases a contender takes per turn (a multiple of 1,000)")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.torch_prefix, args.slice, args.repeat = 20_000, 5_000, 5_000, 2
    if args.slice % READ_EVERY or args.torch_prefix % args.slice:
        p.error("--slice must be a multiple of 1,000 dividing --torch-prefix")

    common.header("Streaming add_case + area_under_roc_curve() every 1,000th add",
                  "river", "torch", "torchmetrics", "scikit-learn")
    have_rankeval = common.require_rankeval()
    from sklearn.metrics import roc_auc_score

    river_name = "river ROCAUC()"
    torch_name = f"torchmetrics BinaryAUROC (first {args.torch_prefix:,}, extrapolated)"
    rows = []
    notes = []
    for data_name, ties in common.data_variants(args.data):
        y, s = common.make_cases(args.n, ties=ties)
        labels, scores = y.tolist(), s.tolist()
        prefix = min(args.torch_prefix, args.n)
        exact = roc_auc_score(y, s)
        exact_prefix = roc_auc_score(y[:prefix], s[:prefix])

        contenders: dict[str, Contender] = {}
        if have_rankeval:
            for policy in common.TIE_POLICIES:
                contenders[f"rankeval ties={policy}"] = rankeval_contender(policy, labels, scores)
        contenders[river_name] = river_contender(labels, scores)
        contenders[torch_name] = torchmetrics_contender(labels[:prefix], scores[:prefix])

        runs = [side_by_side(contenders, args.slice, prefix) for _ in range(args.repeat)]
        finals = runs[-1][2]
        rate = {name: c.length / common.median(run[0][name] for run in runs)
                for name, c in contenders.items()}
        prefix_rate = {name: prefix / common.median(run[1][name] for run in runs)
                       for name in contenders}
        ranks = [name for name in contenders if name.startswith("rankeval")]
        rankeval_rates = [rate[r] for r in ranks]

        for name in ranks:
            rows.append([data_name, name, args.n, rate[name], finals[name],
                         abs(finals[name] - exact), "", "", "", ""])
        rows.append([data_name, river_name, args.n, rate[river_name], finals[river_name],
                     abs(finals[river_name] - exact),
                     *speedups(rankeval_rates, rate[river_name], 1.5)])
        rows.append([data_name, torch_name, prefix, rate[torch_name], float(finals[torch_name]),
                     abs(float(finals[torch_name]) - exact_prefix),
                     *speedups(rankeval_rates, rate[torch_name], 30.0)])
        notes.append(f"{data_name}: exact ROC AUC (scikit-learn) {exact:.12f} on all {args.n:,},"
                     f" {exact_prefix:.12f} on the first {prefix:,}.")
        same_prefix = ", ".join(f"{name} {prefix_rate[name]:,.0f}/s"
                                f" ({prefix_rate[name] / rate[torch_name]:.0f}x torchmetrics)"
                                for name in ranks)
        if same_prefix:
            notes.append(f"{data_name}: over the same first {prefix:,} cases: {same_prefix}.")

    common.print_table(["data", "contender", "cases", "updates/s", "final ROC AUC",
                        "|err| vs sklearn", "insertion is", "grouped is", "target", "verdict"],
                       rows)
    print(f"median of {args.repeat} runs; contenders advance side by side in turns of"
          f" {args.slice:,} cases. 'insertion is' / 'grouped is' = rankeval updates/s over the"
          " whole stream / that peer's updates/s.")
    for note in notes:
        print(note)
    print("With tied scores only ties=grouped is defined to equal scikit-learn (|err| ~1e-16 is"
          " the last bit of a float64); ties=insertion resolves ties by arrival order, as LingPipe"
          " does. torchmetrics computes in float32.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
