"""Memory: resident memory growth per stored case at 10,000,000 cases (``--n`` for more).

Question: does the evaluator hold 10,000,000 cases in at most 10 bytes per case of
resident memory growth (6 with ``score_dtype="float32"``), against 9 for bare NumPy arrays
(float64 score + bool label) and about 75 for a ``sortedcontainers.SortedList`` of
``(score, label)`` tuples?

Each contender runs in a fresh subprocess of this script.  The child imports what it needs,
generates every chunk of data from a fixed seed (as Python lists for the one-case adds) and keeps
it, so that the caller's data and the heap its making leaves are in the baseline; reads its
resident set size (``/proc/self/statm``, else psutil), stores the cases chunk by chunk, collects
garbage and reads the RSS again.  rankeval children then read ROC AUC and the full report and
record the RSS after each, because derived arrays that the evaluator caches are memory a
long-lived service holds too.
"Peak" is the high-water mark (``ru_maxrss``) above the baseline: what the machine must have free.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

import _common as common
import numpy as np

TARGET = 10.0
TARGET_FLOAT32 = 6.0
LARGE_CASES = 1 << 24  # full curves are read only below this (see the evaluator)


def rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import psutil

        return int(psutil.Process().memory_info().rss)


def peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def trim_heap() -> None:
    """Give glibc's free heap pages back to the system (nothing elsewhere)."""
    import ctypes

    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except OSError:
        return
    if trim is not None:
        trim(0)


def chunks(n: int, chunk: int, ties: bool) -> Any:
    for index, start in enumerate(range(0, n, chunk)):
        yield common.make_cases(min(chunk, n - start), ties=ties, seed=common.SEED + index)


def child(kind: str, n: int, chunk: int, ties: bool) -> dict[str, Any]:
    """Store n cases the way ``kind`` says and measure; runs in its own process."""
    narrow = "float32" in kind  # float32 scores, stored with score_dtype="float32"
    if kind.startswith("rankeval"):
        policy = kind.split("-")[-1]
        ev = common.new_evaluator(policy, "float32" if narrow else "float64")
    elif kind == "sortedlist":
        from sortedcontainers import SortedList

        store = SortedList()
    # Every chunk is made before the baseline and kept to the end: the caller's data (and the
    # heap its temporaries leave) is in the baseline, and only what storing adds is measured.
    python_objects = kind.startswith(("rankeval-stream", "rankeval-float32-stream",
                                      "sortedlist"))
    data: list[Any] = []
    for y, s in chunks(n, chunk, ties):
        if narrow:
            s = s.astype(np.float32).astype(np.float64)  # a float32 classifier's outputs
        data.append((y.tolist(), s.tolist()) if python_objects else (y, s))
    del y, s
    gc.collect()
    trim_heap()  # the data's making left free heap that storing could reuse unseen
    base = rss_bytes()
    start = time.perf_counter()
    result: dict[str, Any] = {}

    if kind == "numpy":
        labels = np.empty(n, dtype=bool)
        scores = np.empty(n, dtype=np.float64)
        at = 0
        for y, s in data:
            labels[at:at + y.size] = y
            scores[at:at + s.size] = s
            at += y.size
    elif kind == "sortedlist":
        for y, s in data:
            store.update(zip(s, y, strict=True))
    elif kind.startswith(("rankeval-batch", "rankeval-float32-batch")):
        for y, s in data:
            ev.add_cases(y, s)
    elif kind.startswith(("rankeval-stream", "rankeval-float32-stream")):
        for y, s in data:
            add = ev.add_case
            for correct, score in zip(y, s, strict=True):
                add(correct, score)
    else:
        raise ValueError(f"unknown contender {kind!r}")

    gc.collect()
    result["seconds"] = time.perf_counter() - start
    result["stored"] = rss_bytes() - base
    if kind.startswith("rankeval"):
        assert ev.num_cases() == n
        ev.area_under_roc_curve()
        gc.collect()
        result["after_auc"] = rss_bytes() - base
        start = time.perf_counter()
        bounded = ev.report()  # every value and downsampled curve, read bucket by bucket
        bounded.average_precision()
        result["report_seconds"] = time.perf_counter() - start
        del bounded
        gc.collect()
        result["after_bounded"] = rss_bytes() - base
        result["peak_bounded"] = peak_bytes() - base
        if n <= LARGE_CASES:  # the full curves, cached: what a service reading them holds
            report = common.full_report(ev)
            del report
            gc.collect()
            result["after_report"] = rss_bytes() - base
    result["peak"] = max(peak_bytes() - base, result["stored"])
    return result


# glibc returns a freed block to the system at once only if it was mmap-ed; its threshold starts
# at 128 KiB but climbs (up to 32 MiB) as such blocks are freed, so freed mid-size temporaries stay
# resident. Pinning the threshold shows how much of a contender's growth is that retention.
PINNED_MMAP = {"MALLOC_MMAP_THRESHOLD_": str(1 << 20)}


def run_child(kind: str, n: int, chunk: int, ties: bool,
              env: dict[str, str] | None = None) -> dict[str, Any]:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--n", str(n),
           "--chunk", str(chunk)] + (["--ties"] if ties else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=False,
                         env={**os.environ, **(env or {})})
    if out.returncode != 0:
        raise RuntimeError(f"{kind} child failed:\n{out.stderr}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0],
                      data="data for the rankeval runs (the peers store continuous scores)")
    p.add_argument("--n", type=int, default=10_000_000, help="cases for NumPy and rankeval batch")
    p.add_argument("--stream-n", type=int, default=10_000_000,
                   help="cases for the rankeval add_case runs (0 skips them)")
    p.add_argument("--sortedlist-n", type=int, default=10_000_000)
    p.add_argument("--chunk", type=int, default=1_000_000)
    p.add_argument("--no-peers", action="store_true",
                   help="rankeval rows only (no NumPy or SortedList rows)")
    p.add_argument("--no-allocator-check", action="store_true",
                   help="skip the rows rerun with glibc's mmap threshold pinned at 1 MiB")
    p.add_argument("--child", help=argparse_hidden())
    p.add_argument("--ties", action="store_true", help=argparse_hidden())
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.n, args.chunk, args.ties)))
        return 0
    if args.quick:
        args.n, args.stream_n, args.sortedlist_n, args.chunk = 200_000, 50_000, 200_000, 50_000

    common.header(f"Resident memory per stored case at {args.n:,} cases", "sortedcontainers",
                  "psutil")
    have_rankeval = common.require_rankeval()

    # (data, contender, cases, tie-heavy data, pin glibc's mmap threshold)
    plan: list[tuple[str, str, int, bool, bool]] = [] if args.no_peers else [
        ("continuous", "numpy", args.n, False, False),
        ("continuous", "sortedlist", args.sortedlist_n, False, False),
    ]
    if have_rankeval:
        for data_name, ties in common.data_variants(args.data):
            for store in ("rankeval", "rankeval-float32"):
                for policy in common.TIE_POLICIES:
                    plan.append((data_name, f"{store}-batch-{policy}", args.n, ties, False))
                if args.stream_n:
                    for policy in common.TIE_POLICIES:
                        plan.append((data_name, f"{store}-stream-{policy}", args.stream_n, ties,
                                     False))
        if not args.no_allocator_check:
            plan.append(("continuous", "rankeval-batch-insertion", args.n, False, True))
            if args.stream_n:
                plan.append(("continuous", "rankeval-stream-insertion", args.stream_n, False,
                             True))

    labels = {
        "numpy": "bare NumPy arrays (float64 + bool)",
        "sortedlist": "SortedList of (score, label) tuples",
        "rankeval-batch-insertion": "rankeval ties=insertion, add_cases",
        "rankeval-batch-grouped": "rankeval ties=grouped, add_cases",
        "rankeval-stream-insertion": "rankeval ties=insertion, add_case",
        "rankeval-stream-grouped": "rankeval ties=grouped, add_case",
    }
    labels.update({f"rankeval-float32-{way}-{policy}": f"rankeval float32 ties={policy}, {add}"
                   for way, add in (("batch", "add_cases"), ("stream", "add_case"))
                   for policy in common.TIE_POLICIES})
    rows = []
    for data_name, kind, n, ties, pinned in plan:
        r = run_child(kind, n, args.chunk, ties, PINNED_MMAP if pinned else None)
        keys = ("stored", "after_auc", "after_bounded", "peak_bounded", "after_report", "peak")
        per = {key: r[key] / n for key in keys if key in r}
        is_rankeval = kind.startswith("rankeval")
        worst = max(per.get("stored", 0.0), per.get("after_auc", 0.0))
        label = labels[kind] + (" [mmap threshold 1 MiB]" if pinned else "")
        target = TARGET_FLOAT32 if "float32" in kind else TARGET
        rows.append([data_name, label, n, per["stored"], per.get("after_auc", ""),
                     per.get("after_bounded", ""), per.get("peak_bounded", ""),
                     per.get("after_report", ""), per["peak"], f"{r['seconds']:.1f}",
                     f"{r['report_seconds']:.1f}" if "report_seconds" in r else "",
                     f"<= {target:g}" if is_rankeval else "",
                     ("(diagnostic)" if pinned else common.verdict(worst <= target))
                     if is_rankeval else ""])
        print(f"  measured {label} ({data_name}, {n:,} cases)", file=sys.stderr)

    common.print_table(["data", "contender", "cases", "B/case stored", "B/case after AUC read",
                        "B/case after report()", "B/case peak by report()",
                        "B/case after full curves", "B/case peak", "fill s", "report() s",
                        "target", "verdict"], rows)
    print("B/case = resident memory growth / cases, each contender in a fresh process; the"
          " verdict holds 'stored' and 'after AUC read' to the target.")
    print(f"cases arrive in chunks of {args.chunk:,}, all generated in the child before its"
          " baseline; 'after report()' and 'after full curves' (every curve of the spec, read"
          f" only up to {LARGE_CASES:,} cases) keep what the evaluator caches, not the values.")
    if have_rankeval and not args.no_allocator_check:
        print("[mmap threshold 1 MiB] rows rerun a contender with MALLOC_MMAP_THRESHOLD_=1048576"
              " (glibc): freed temporaries then leave the resident set at once, so the gap to the"
              " plain row is allocator retention, not stored data. Diagnostic only.")
    return 0


def argparse_hidden() -> str:
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    raise SystemExit(main())
