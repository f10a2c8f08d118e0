"""Read after add: latency of one add_case followed by one read, at 10,000 vs 1,000,000 cases.

Question: is a read right after an add O(log n)?  For ``area_under_roc_curve(False)``,
``reciprocal_rank()``, ``precision_at(10)``, ``precision_at(n // 2)`` and ``num_cases()`` the
latency of one ``add_case`` + one read at n = 1,000,000 must be at most 3x that at n = 10,000.

Each evaluator is prefilled with ``add_cases``, warmed up with a few hundred unmeasured pairs,
then every add+read pair is timed on its own with ``perf_counter_ns``.  The small and large
evaluators are measured in alternating blocks so that machine noise hits both alike.  The median
shows the typical pair; the mean also charges any periodic O(n) work (a buffer merge, a cache
rebuild) to the pairs that trigger it, so both are reported and both are held to the target.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np

TARGET = 3.0


def _precision_at_half(n: int) -> Callable[[Any], Any]:
    k = n // 2
    return lambda ev: ev.precision_at(k)


# read name -> (prefill size n -> the read); precision_at(n // 2) depends on n
READS: dict[str, Callable[[int], Callable[[Any], Any]]] = {
    "area_under_roc_curve(False)": lambda n: lambda ev: ev.area_under_roc_curve(False),
    "reciprocal_rank()": lambda n: lambda ev: ev.reciprocal_rank(),
    "precision_at(10)": lambda n: lambda ev: ev.precision_at(10),
    "precision_at(n//2)": _precision_at_half,
    "num_cases()": lambda n: lambda ev: ev.num_cases(),
}


def time_pairs(ev: Any, read: Callable[[Any], Any], labels: list[bool], scores: list[float],
               out: list[int]) -> None:
    """Append the nanoseconds of each add_case + read pair to ``out``."""
    add = ev.add_case
    clock = time.perf_counter_ns
    for correct, score in zip(labels, scores, strict=True):
        start = clock()
        add(correct, score)
        read(ev)
        out.append(clock() - start)


def prefilled(n: int, policy: str, prefill: tuple[np.ndarray, np.ndarray],
              read: Callable[[Any], Any], warm: tuple[list[bool], list[float]]) -> Any:
    """An evaluator bulk-loaded with the first n cases, then warmed by unmeasured pairs."""
    ev = common.new_evaluator(policy)
    ev.add_cases(prefill[0][:n], prefill[1][:n])
    time_pairs(ev, read, warm[0], warm[1], [])  # one-off work of the bulk load
    return ev


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], data=common.DATA_HELP)
    p.add_argument("--small", type=int, default=10_000)
    p.add_argument("--large", type=int, default=1_000_000)
    p.add_argument("--pairs", type=int, default=20_000, help="timed pairs per read and size")
    p.add_argument("--block", type=int, default=1_000, help="pairs per alternation block")
    args = p.parse_args(argv)
    if args.quick:
        args.small, args.large, args.pairs, args.block = 1_000, 20_000, 400, 100

    common.header(f"Latency of add_case + one read, n = {args.small:,} vs n = {args.large:,}")
    if not common.require_rankeval():
        return 0

    sizes = (args.small, args.large)
    warmup = 300
    # the small evaluator is rebuilt every block so that it stays within 10 % of its size
    block = max(1, min(args.block, args.small // 10))
    rows = []
    for data_name, ties in common.data_variants(args.data):
        prefill_y, prefill_s = common.make_cases(args.large, ties=ties)
        # the stream added during the measurement comes from the same classifier, another seed
        extra_y, extra_s = common.make_cases(args.pairs + warmup, ties=ties, seed=common.SEED + 1)
        warm_y, warm_s = extra_y[:warmup].tolist(), extra_s[:warmup].tolist()
        timed_y, timed_s = extra_y[warmup:].tolist(), extra_s[warmup:].tolist()
        prefill, warm = (prefill_y, prefill_s), (warm_y, warm_s)

        for policy in common.TIE_POLICIES:
            for name, make_read in READS.items():
                read = {n: make_read(n) for n in sizes}
                ns: dict[int, list[int]] = {n: [] for n in sizes}
                large_ev = prefilled(args.large, policy, prefill, read[args.large], warm)
                gc.collect()
                for start in range(0, args.pairs, block):
                    stop = min(start + block, args.pairs)
                    small_ev = prefilled(args.small, policy, prefill, read[args.small], warm)
                    evaluators = {args.small: small_ev,
                                  args.large: large_ev}
                    order = sizes if (start // block) % 2 == 0 else sizes[::-1]
                    for n in order:
                        time_pairs(evaluators[n], read[n], timed_y[start:stop],
                                   timed_s[start:stop], ns[n])
                small = np.array(ns[args.small]) / 1e3
                large = np.array(ns[args.large]) / 1e3
                med_ratio = float(np.median(large) / np.median(small))
                mean_ratio = float(large.mean() / small.mean())
                rows.append([data_name, policy, name,
                             float(np.median(small)), float(small.mean()),
                             float(np.median(large)), float(large.mean()), float(large.max()),
                             f"{med_ratio:.2f}x", f"{mean_ratio:.2f}x",
                             common.verdict(max(med_ratio, mean_ratio) <= TARGET)])

    s, lg = f"{args.small // 1000:,}k", f"{args.large // 1000:,}k"
    common.print_table(
        ["data", "tie policy", "read after add_case", f"median us {s}", f"mean us {s}",
         f"median us {lg}", f"mean us {lg}", f"max us {lg}", "median ratio", "mean ratio",
         f"target <= {TARGET:g}x"],
        rows)
    print(f"{args.pairs:,} timed add+read pairs per row and size, in alternating blocks of"
          f" {block:,}; each evaluator was prefilled with add_cases and warmed by {warmup}"
          " unmeasured pairs.")
    print(f"The small evaluator is rebuilt for every block (so it holds {args.small:,} to"
          f" {args.small + warmup + block:,} cases); the large one is built once per row and"
          f" grows to {args.large + warmup + args.pairs:,}.")
    print("The mean charges the periodic folds and merges to the pairs that trigger them; timer"
          " overhead (~0.1 us) is in every pair.")
    print(f"precision_at(n//2) uses k = {args.small // 2:,} at the small size and"
          f" k = {args.large // 2:,} at the large one.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
