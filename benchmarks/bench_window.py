"""Sliding window: updates per second of a W = 100,000 window read after every 1,000th add.

Question: does ``ScoredPrecisionRecallEvaluation(window=100_000)``, fed one case per
``add_case`` with ``area_under_roc_curve()`` read after every 1,000th add, beat river's
``metrics.RollingROCAUC(window_size=100_000)`` on updates per second, while giving the exact
ROC AUC of the last W cases? river's rolling metric is exact too and runs in Rust behind a
Python-side buffer, so this is a like-for-like race of exact sliding-window AUCs.

Also shown: the same stream fed to rankeval in micro-batches of 1,000 via ``add_cases`` (what
a service that already batches its scores would do), a second table that varies how often
the AUC is read (every add ... never until the end) on a window already full, because the two
designs pay at different moments: rankeval ranks each case when the next read (or enough
waiting adds) folds it in, river's Python wrapper only appends and does all its work in
``get()``; and a third table with the resident memory each holds per windowed case (W =
1,000,000 filled twice over, each contender in a fresh process).
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
from collections.abc import Callable, Iterator

import _common as common
from bench_streaming import READ_EVERY, run_stream

MEMORY_WINDOW = 1_000_000


def rankeval_contender(ties: str, window: int, labels: list[bool],
                       scores: list[float]) -> Callable[[], float]:
    from rankeval import ScoredPrecisionRecallEvaluation

    def run() -> float:
        ev = ScoredPrecisionRecallEvaluation(ties=ties, window=window)  # type: ignore[arg-type]
        return float(run_stream(ev.add_case, ev.area_under_roc_curve, labels, scores))
    return run


def rankeval_batched(ties: str, window: int, labels: list[bool],
                     scores: list[float]) -> Callable[[], float]:
    from rankeval import ScoredPrecisionRecallEvaluation

    def run() -> float:
        ev = ScoredPrecisionRecallEvaluation(ties=ties, window=window)  # type: ignore[arg-type]
        value = 0.0
        for start in range(0, len(labels), READ_EVERY):
            ev.add_cases(labels[start:start + READ_EVERY], scores[start:start + READ_EVERY])
            value = ev.area_under_roc_curve()
        return value
    return run


def river_contender(window: int, labels: list[bool], scores: list[float]) -> Callable[[], float]:
    from river import metrics

    def run() -> float:
        metric = metrics.RollingROCAUC(window_size=window)
        return float(run_stream(metric.update, metric.get, labels, scores))
    return run


CADENCES = ((1, 2_000), (10, 20_000), (100, 100_000), (1_000, 300_000), (10_000, 300_000),
            (None, 300_000))  # (read every, adds timed); None: one read at the end


def cadence_run(update: Callable[[bool, float], object], read: Callable[[], float],
                labels: list[bool], scores: list[float], every: int | None) -> float:
    step = every or len(labels)
    value = 0.0
    for start in range(0, len(labels), step):
        for correct, score in zip(labels[start:start + step], scores[start:start + step],
                                  strict=True):
            update(correct, score)
        value = read()
    return value


def cadence_table(window: int, repeat: int, scale: float) -> None:
    """Updates per second against read cadence, both evaluators holding a full window."""
    from river import metrics

    from rankeval import ScoredPrecisionRecallEvaluation

    rows = []
    y, s = common.make_cases(window + int(300_000 * scale) + 1)
    labels, scores = y.tolist(), s.tolist()

    def ours(policy: str) -> tuple[Callable[[bool, float], object], Callable[[], float]]:
        ev = ScoredPrecisionRecallEvaluation(ties=policy, window=window)  # type: ignore[arg-type]
        ev.add_cases(y[:window], s[:window])
        ev.area_under_roc_curve()
        return ev.add_case, ev.area_under_roc_curve

    def river() -> tuple[Callable[[bool, float], object], Callable[[], float]]:
        metric = metrics.RollingROCAUC(window_size=window)
        for correct, score in zip(labels[:window], scores[:window], strict=True):
            metric.update(correct, score)
        metric.get()
        return metric.update, metric.get

    full = {"rankeval ties=grouped": lambda: ours("grouped"),
            "rankeval ties=insertion": lambda: ours("insertion"), "river RollingROCAUC": river}
    for every, count in CADENCES:
        count = max(int(count * scale), 100)
        feed_l, feed_s = labels[window:window + count], scores[window:window + count]

        def prepare(name: str, every: int | None = every, feed_l: list[bool] = feed_l,
                    feed_s: list[float] = feed_s) -> Callable[[], Callable[[], float]]:
            def timed_feed() -> Callable[[], float]:
                update, read = full[name]()  # untimed: the window fills first
                return lambda: cadence_run(update, read, feed_l, feed_s, every)
            return timed_feed

        times = common.interleaved_prepared({name: prepare(name) for name in full}, repeat)
        rate = {name: count / common.median(t) for name, t in times.items()}
        river_rate = rate["river RollingROCAUC"]
        for name in ("rankeval ties=grouped", "rankeval ties=insertion"):
            rows.append([f"{every:,}" if every else "end only", f"{count:,}", name, rate[name],
                         river_rate, common.ratio(rate[name], river_rate)])
    common.print_table(["read every", "adds timed", "contender", "updates/s", "river updates/s",
                        "vs river"], rows)
    print(f"W = {window:,}, continuous scores, window full before timing (untimed); median of"
          f" {repeat} interleaved runs.")


def memory_child(kind: str, window: int) -> dict[str, float]:
    """Stream 2W cases (a read every 1,000th add) into one contender; RSS growth per W."""
    from bench_memory import rss_bytes

    y, s = common.make_cases(2 * window)
    labels, scores = y.tolist(), s.tolist()
    del y, s
    if kind == "river":
        from river import metrics

        metric = metrics.RollingROCAUC(window_size=window)
        add, read = metric.update, metric.get
    else:
        from rankeval import ScoredPrecisionRecallEvaluation

        ev = ScoredPrecisionRecallEvaluation(ties=kind, window=window)  # type: ignore[arg-type]
        add, read = ev.add_case, ev.area_under_roc_curve
    gc.collect()
    base = rss_bytes()
    value = run_stream(add, read, labels, scores)
    gc.collect()
    return {"per_case": (rss_bytes() - base) / window, "auc": float(value)}


def memory_table(window: int) -> None:
    rows = []
    for kind, name in (("insertion", "rankeval window ties=insertion"),
                       ("grouped", "rankeval window ties=grouped"),
                       ("river", "river RollingROCAUC")):
        out = subprocess.run([sys.executable, __file__, "--memory-child", kind,
                              "--window", str(window)],
                             capture_output=True, text=True, check=True)
        result = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append([name, window, result["per_case"], result["auc"]])
    common.print_table(["contender", "window", "B per windowed case", "final ROC AUC"], rows)
    print(f"RSS growth over a stream of {2 * window:,} cases (read every {READ_EVERY:,}th add) /"
          " W, each contender in a fresh process; continuous scores; no target. rankeval stores"
          " about 20 B a case (sorted key, label and positive counts 9.25 B; arrival ring 9 B;"
          " batch sort orders 2 B); the rest is merge temporaries and the allocator's slack.")


def window_streams(args: argparse.Namespace) -> Iterator[tuple[str, list[bool], list[float],
                                                               float]]:
    """Per data variant: its name, the stream, and the exact ROC AUC of the last window."""
    from sklearn.metrics import roc_auc_score

    for data_name, ties in common.data_variants(args.data):
        y, s = common.make_cases(args.n, ties=ties)
        exact = float(roc_auc_score(y[-args.window:], s[-args.window:]))
        yield data_name, y.tolist(), s.tolist(), exact


def window_parser(doc: str) -> argparse.ArgumentParser:
    """The window benchmarks' options: stream length, window, repeats (and --quick, --data)."""
    p = common.parser(doc.splitlines()[0], data=common.DATA_HELP)
    p.add_argument("--n", type=int, default=1_000_000, help="stream length")
    p.add_argument("--window", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    return p


def quick_window(args: argparse.Namespace) -> None:
    """``--quick``: the smoke-test sizes."""
    if args.quick:
        args.n, args.window, args.repeat = 30_000, 5_000, 2


def main(argv: list[str] | None = None) -> int:
    p = window_parser(__doc__)
    p.add_argument("--memory-child", choices=("insertion", "grouped", "river"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child, args.window)))
        return 0
    quick_window(args)

    common.header("Sliding window: add_case + area_under_roc_curve() every 1,000th add",
                  "river", "scikit-learn")
    common.require_rankeval()
    rows = []
    for data_name, labels, scores, exact in window_streams(args):
        contenders: dict[str, Callable[[], float]] = {}
        for policy in common.TIE_POLICIES:
            contenders[f"rankeval window ties={policy}"] = rankeval_contender(
                policy, args.window, labels, scores)
        contenders["rankeval window, add_cases of 1,000"] = rankeval_batched(
            "grouped", args.window, labels, scores)
        contenders["river RollingROCAUC"] = river_contender(args.window, labels, scores)
        times = common.interleaved(contenders, args.repeat)
        rate = {name: args.n / common.median(t) for name, t in times.items()}
        river = rate["river RollingROCAUC"]
        for name, fn in contenders.items():
            final = fn()
            is_rankeval = name.startswith("rankeval")
            rows.append([data_name, name, rate[name], final, abs(final - exact),
                         common.ratio(rate[name], river) if is_rankeval else "",
                         "> 1x" if is_rankeval else "",
                         common.verdict(rate[name] > river) if is_rankeval else ""])
    common.print_table(["data", "contender", "updates/s", "final ROC AUC", "|err| vs sklearn",
                        "vs river", "target", "verdict"], rows)
    print(f"W = {args.window:,}, stream of {args.n:,}; median of {args.repeat} interleaved runs."
          " |err| is against scikit-learn on the last W cases (ties=insertion differs by design"
          " on tied data).")
    print()
    title = "Read cadence: updates/s of a full window read every k adds"
    print(title)
    print("=" * len(title))
    cadence_table(args.window, args.repeat, 0.1 if args.quick else 1.0)
    print()
    title = "Memory: resident bytes per windowed case"
    print(title)
    print("=" * len(title))
    memory_table(20_000 if args.quick else MEMORY_WINDOW)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
