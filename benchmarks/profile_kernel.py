"""Where a full report spends its time: each read, in report order, on a fresh cache.

Question (diagnostic, no target): after ``add_cases`` of n cases, which reads of
the full report cost what, and how does their sum compare with the NumPy reference and
with ``add_cases`` itself, measured in the same run?

Each repeat clears the evaluator's cache and times every read of ``_common.full_report``
in the order it issues them, so a read is charged for the shared work it triggers first
(the per-point recall and precision land on the first PR curve, the recall steps on the
first interpolated one). CPU time (``time.process_time``): on the shared two-core
machine it ignores time spent waiting for a core but keeps the page faults of fresh
arrays, which are part of the cost. Minimum over repeats.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

import _common as common


def reads(ev: Any, n: int) -> list[tuple[str, Callable[[], Any]]]:
    """The reads of ``_common.full_report``, in its order, one callable each."""
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("counts", lambda: (ev.num_cases(), ev.num_positive_ref(), ev.num_negative_ref())),
        ("eleven_point_interpolated_precision", ev.eleven_point_interpolated_precision),
        ("average_precision", ev.average_precision),
        ("maximum_f_measure", ev.maximum_f_measure),
        ("precision_at (10, 100, n/2)",
         lambda: [ev.precision_at(k) for k in (10, 100, max(1, n // 2))]),
        ("pr_breakeven_point, r_precision", lambda: (ev.pr_breakeven_point(), ev.r_precision())),
        ("reciprocal_rank", ev.reciprocal_rank),
    ]
    for flag in (False, True):
        steps += [
            (f"pr_curve({flag})", lambda f=flag: ev.pr_curve(f)),
            (f"pr_score_curve({flag})", lambda f=flag: ev.pr_score_curve(f)),
            (f"roc_curve({flag})", lambda f=flag: ev.roc_curve(f)),
            (f"area_under_pr_curve({flag})", lambda f=flag: ev.area_under_pr_curve(f)),
            (f"area_under_roc_curve({flag})", lambda f=flag: ev.area_under_roc_curve(f)),
        ]
    return steps


def cpu(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], data=common.DATA_HELP)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.repeat = 20_000, 2

    common.header(f"Full report, read by read, after add_cases({args.n:,})")
    if not common.require_rankeval():
        return 0
    for data_name, ties in common.data_variants(args.data):
        y, s = common.make_cases(args.n, ties=ties)
        rows = []
        for policy in common.TIE_POLICIES:
            ev = common.new_evaluator(policy)
            ev.add_cases(y, s)
            best: dict[str, float] = {}
            best_total = best_add = best_ref = float("inf")
            for _ in range(args.repeat):
                gc.collect()
                best_ref = min(best_ref, cpu(lambda y=y, s=s: common.numpy_reference(y, s)))
                fresh = common.new_evaluator(policy)
                gc.collect()
                best_add = min(best_add, cpu(lambda e=fresh, y=y, s=s: e.add_cases(y, s)))
                ev._cache.clear()
                gc.collect()
                total = 0.0
                for name, read in reads(ev, args.n):
                    seconds = cpu(read)
                    total += seconds
                    best[name] = min(best.get(name, float("inf")), seconds)
                best_total = min(best_total, total)
            rows += [[data_name, policy, name, common.fmt_seconds(t), f"{t / best_ref:.3f}"]
                     for name, t in best.items()]
            rows += [[data_name, policy, "= full report", common.fmt_seconds(best_total),
                      f"{best_total / best_ref:.3f}"],
                     [data_name, policy, "add_cases", common.fmt_seconds(best_add),
                      f"{best_add / best_ref:.3f}"],
                     [data_name, policy, "NumPy reference (argsort + cumsum)",
                      common.fmt_seconds(best_ref), "1.000"]]
        common.print_table(["data", "ties", "read", "CPU time (min)", "vs reference"], rows)
        print()
    print(f"min of {args.repeat} repeats, CPU time; each read on a fresh cache, in report order.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
