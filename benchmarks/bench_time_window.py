"""Time window: a window of time holding ~W cases, against the count window and river.

Question: how fast does ``ScoredPrecisionRecallEvaluation(horizon=W seconds)`` take a
stream of n cases, one per second of an injected clock (so the window holds W cases), with
``area_under_roc_curve()`` read every 1,000th add, against the count window of W cases and
river's ``RollingROCAUC(window_size=W)`` in the same run? All three give the exact ROC AUC
of the last W cases. No target was set; both windows append an add without a lock (the
time window's add also reads the clock and carries its time).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import _common as common
from bench_streaming import READ_EVERY
from bench_window import (
    quick_window,
    rankeval_contender,
    river_contender,
    window_parser,
    window_streams,
)


class Clock:
    """One second per add: the benchmark moves it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def time_window_contender(ties: str, window: int, labels: list[bool],
                          scores: list[float]) -> Callable[[], float]:
    from rankeval import ScoredPrecisionRecallEvaluation

    def run() -> float:
        clock = Clock()
        # A case added at time t is inside while now - t < horizon: W - 0.5 keeps W of them.
        ev = ScoredPrecisionRecallEvaluation(ties=ties, horizon=window - 0.5,  # type: ignore[arg-type]
                                             clock=clock)
        add, read = ev.add_case, ev.area_under_roc_curve
        value = 0.0
        for i, (correct, score) in enumerate(zip(labels, scores, strict=True)):
            clock.now = float(i)
            add(correct, score)
            if i % READ_EVERY == READ_EVERY - 1:
                value = read()
        return value
    return run


def main(argv: list[str] | None = None) -> int:
    args = window_parser(__doc__).parse_args(argv)
    quick_window(args)
    common.header("Time window: add_case + area_under_roc_curve() every 1,000th add",
                  "river", "scikit-learn")
    common.require_rankeval()
    rows = []
    for data_name, labels, scores, exact in window_streams(args):
        contenders: dict[str, Callable[[], float]] = {
            "rankeval time window, grouped": time_window_contender(
                "grouped", args.window, labels, scores),
            "rankeval count window, grouped": rankeval_contender(
                "grouped", args.window, labels, scores),
            "river RollingROCAUC": river_contender(args.window, labels, scores),
        }
        times = common.interleaved(contenders, args.repeat)
        rate = {name: args.n / common.median(t) for name, t in times.items()}
        for name, fn in contenders.items():
            final = fn()
            rows.append([data_name, name, rate[name], final, abs(final - exact),
                         common.ratio(rate[name], rate["river RollingROCAUC"]),
                         common.ratio(rate[name], rate["rankeval count window, grouped"])])
    common.print_table(["data", "contender", "updates/s", "final ROC AUC", "|err| vs sklearn",
                        "vs river", "vs count window"], rows)
    print(f"median of {args.repeat} interleaved runs; n = {args.n:,}, window = {args.window:,} "
          "(time: one case per second of an injected clock)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
