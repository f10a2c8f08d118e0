"""A billion cases in one process: ``add_cases`` in chunks, then the full report.

Question: can one evaluator hold 10^9 exact cases on a 24 GiB machine without swapping, and
report every value (ROC and PR areas, AP, maximum F, precision at k, the eleven points, the
curves downsampled to 1,000 rows with their stated error)? The physical limit of an exact
float64 store is 9 bytes a case (a float64 score and a one-byte label, as bare NumPy arrays
hold them); the table prints the resident memory against it.

This is a benchmark, not a test: it needs ~20 GB free and ~15 minutes. ``--quick`` runs
10^7 cases. The process reads its own resident set (``/proc/self/statm``) after each chunk
and its high-water mark (``ru_maxrss``, ``VmHWM``) at the end; ``VmSwap`` must stay 0.
"""

from __future__ import annotations

import gc
import os
import resource
import sys
import time

import _common as common
import numpy as np

PHYSICAL = 9.0  # bytes a case: a float64 score and a bool label


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def status(field: str) -> int:
    """A ``kB`` line of ``/proc/self/status``, in bytes (0 if absent)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1_000_000_000)
    p.add_argument("--chunk", type=int, default=20_000_000)
    p.add_argument("--ties", choices=common.TIE_POLICIES, default="insertion")
    p.add_argument("--score-dtype", choices=("float64", "float32"), default="float64")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.chunk = 10_000_000, 1_000_000
    common.header(f"{args.n:,} cases in one process (ties={args.ties}, "
                  f"score_dtype={args.score_dtype})")
    common.require_rankeval()

    ev = common.new_evaluator(args.ties, args.score_dtype)
    gc.collect()
    base = rss_bytes()
    start = time.perf_counter()
    adding = 0.0
    for index, at in enumerate(range(0, args.n, args.chunk)):
        labels, scores = common.make_cases(min(args.chunk, args.n - at),
                                           seed=common.SEED + index)
        if args.score_dtype == "float32":
            scores = scores.astype(np.float32).astype(np.float64)
        began = time.perf_counter()
        ev.add_cases(labels, scores)
        adding += time.perf_counter() - began
        del labels, scores
        done = at + min(args.chunk, args.n - at)
        if index % 10 == 9 or done == args.n:
            print(f"  {done:>13,} cases  {time.perf_counter() - start:7.1f} s  "
                  f"{(rss_bytes() - base) / done:5.2f} B/case resident", file=sys.stderr)
    fill = time.perf_counter() - start
    gc.collect()
    stored = rss_bytes() - base
    peak_fill = status("VmHWM") - base

    began = time.perf_counter()
    auc = ev.area_under_roc_curve()
    auc_seconds = time.perf_counter() - began
    began = time.perf_counter()
    report = ev.report(precision_at=(10, 1000, args.n // 2), curve_points=1000)
    report_seconds = time.perf_counter() - began
    values = {
        "ROC AUC": auc,
        "average precision": report.average_precision(),
        "PR area (uninterpolated)": report.area_under_pr_curve(),
        "PR area (interpolated)": report.area_under_pr_curve(True),
        "maximum F1": report.maximum_f_measure(),
        "R-precision": report.r_precision(),
        "reciprocal rank": report.reciprocal_rank(),
        "precision at 1000": report.precision_at(1000),
        f"precision at {args.n // 2:,}": report.precision_at(args.n // 2),
        "eleven-point precision at recall 0.5": float(
            report.eleven_point_interpolated_precision()[5]),
    }
    curves = {"pr_curve": report.pr_curve(), "pr_curve interpolated": report.pr_curve(True),
              "roc_curve": report.roc_curve()}
    gap = report.curve_gap()
    peak = status("VmHWM") - base
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base
    swapped = status("VmSwap")

    n = args.n
    common.print_table(
        ["cases", "fill s", "cases/s (add_cases)", "B/case resident", "vs 9 B/case",
         "B/case peak (fill)", "ROC AUC read s", "report() s", "B/case peak (all)",
         "VmSwap"],
        [[n, f"{fill:.0f}", f"{n / adding:,.0f}", stored / n, common.ratio(stored / n, PHYSICAL),
          peak_fill / n, f"{auc_seconds:.4f}", f"{report_seconds:.0f}", max(peak, maxrss) / n,
          swapped]])
    print()
    for name, value in values.items():
        print(f"  {name:<40} {value!r}")
    for name, curve in curves.items():
        print(f"  {name:<40} {curve.shape[0]} rows")
    print(f"  downsampled curves: every omitted point lies fewer than {gap:,} cases below the "
          f"kept one before it: within {gap / ev.num_negative_ref():.2e} in false positive rate"
          f" and {gap / ev.num_positive_ref():.2e} in recall")
    print(f"chunks of {args.chunk:,} cases from make_cases (30 % positives, continuous scores)"
          f"; fill includes making them. Resident and peak are above the empty evaluator's "
          f"process ({base / 2**20:.0f} MiB).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
