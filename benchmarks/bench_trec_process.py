"""``rankeval trec`` against the C trec_eval, whole processes: wall time and peak memory.

Question: how long does a fresh ``rankeval trec`` process take on a run file, and how much
memory does it hold at most, against trec_eval built from source (``-O2``, and its
Makefile's own ``-g``) and a pytrec_eval script (parse both files, evaluate) in the same
run? Each command runs ``--repeat`` times, interleaved; the table shows medians and the
ratio to trec_eval ``-O2`` (below 1: rankeval is faster). Peak memory is the child's
maximum resident set (``wait4``).

    python bench_trec_process.py                      # 1M-line run and a 5-line one
    python bench_trec_process.py --lines 10000000     # the 10M-line run (337 MB)

The run has ``--per-query`` documents a query (100), one space between fields (as most
systems write), scores in [0, 10) with 4 decimals and 30 judged documents a query; the
"ties" run has 2 decimals (1,000 distinct scores, so about one document in ten ties with
another of its query) and 40 judged documents a query. trec_eval looks each query's
judgments up by a linear scan, so its time grows with the square of the query count:
10M lines as 100,000 queries take it 40 s, as 10,000 queries of 1,000 documents a few
seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common as common
import numpy as np
import trec_builds

FOUR = ["-m", "map", "-m", "recip_rank", "-m", "ndcg_cut.10", "-m", "P.10"]
PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = set(sys.argv[3].split())
pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
"""


def write_files(folder: Path, lines: int, per_query: int = 100, seed: int = 7,
                judged: int = 30, decimals: int = 4) -> tuple[Path, Path]:
    """A run of ``lines`` lines (``per_query`` a query, scores rounded to ``decimals``)
    and qrels judging ``judged`` documents a query."""
    rng = np.random.default_rng(seed)
    queries = max(lines // per_query, 1)
    name = f"{lines}_{judged}_{decimals}"
    run, qrels = folder / f"run_{name}.txt", folder / f"qrels_{name}.txt"
    with open(run, "w") as out:
        for start in range(0, queries, 1000):
            chunk = []
            for q in range(start, min(start + 1000, queries)):
                scores = np.round(rng.random(per_query) * 10, decimals)
                order = np.argsort(-scores, kind="stable")
                chunk.append("".join(f"{q} Q0 doc{q}_{d} {r + 1} {scores[d]} bench\n"
                                     for r, d in enumerate(order.tolist())))
            out.write("".join(chunk))
    with open(qrels, "w") as out:
        for q in range(queries):
            docs = rng.choice(2 * per_query, judged, replace=False)
            rels = rng.integers(0, 3, judged)
            out.write("".join(f"{q} 0 doc{q}_{d} {r}\n" for d, r in zip(docs, rels, strict=True)))
    return qrels, run


def measure(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident bytes of one run of ``command``.

    Started through GNU time when present: a child forked from this Python process would
    count this process's pages in its peak until it execs.
    """
    gnu_time = "/usr/bin/time"
    wrapped = [gnu_time, "-f", "%M", *command] if os.path.exists(gnu_time) else command
    started = time.perf_counter()
    # Bytecode is cached, as an installed package has it (pip compiles on install).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(wrapped, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed: {done.stderr.decode()}")
    if wrapped is command:
        return elapsed, 0
    return elapsed, int(done.stderr.decode().strip().splitlines()[-1]) * 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="100,000 lines, one repeat")
    p.add_argument("--per-query", type=int, default=100,
                   help="documents per query (trec_eval's time grows with the query count)")
    args = p.parse_args(argv)
    if args.quick:
        args.lines, args.repeat = 100_000, 1
    python = sys.executable
    rankeval = [python, "-m", "rankeval", "trec"]
    builds = {"trec_eval -O2": trec_builds.build("9.0.8-2020", "-O2"),
              "trec_eval (Makefile -g)": trec_builds.build("9.0.8-2020", None)}
    try:
        import pytrec_eval  # noqa: F401
        have_pytrec = True
    except ImportError:
        have_pytrec = False
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, run = write_files(folder, args.lines, args.per_query)
        tied_qrels, tied_run = write_files(folder, args.lines, args.per_query, judged=40,
                                           decimals=2)
        small_qrels, small_run = write_files(folder, 5)
        size = run.stat().st_size
        workloads = {
            f"{args.lines:,}-line run, 4 measures": (qrels, run, FOUR),
            f"{args.lines:,}-line run, -m all_trec": (qrels, run, ["-m", "all_trec"]),
            f"{args.lines:,}-line run, default measures": (qrels, run, []),
            "same, ties, 40 judged, default": (tied_qrels, tied_run, []),
            "same, ties, 40 judged, -m all_trec": (tied_qrels, tied_run, ["-m", "all_trec"]),
            "5-line run, default measures": (small_qrels, small_run, []),
        }
        rows = []
        for workload, (q, r, flags) in workloads.items():
            commands = {name: [str(path), *flags, str(q), str(r)]
                        for name, path in builds.items()}
            commands["rankeval trec"] = [*rankeval, *flags, str(q), str(r)]
            if have_pytrec and flags != ["-m", "all_trec"]:
                wanted = "map recip_rank ndcg_cut.10 P.10" if flags else "official"
                if wanted == "official":
                    wanted = " ".join(["map", "gm_map", "Rprec", "bpref", "recip_rank",
                                       "iprec_at_recall", "P", "num_q", "num_ret",
                                       "num_rel", "num_rel_ret"])
                commands["pytrec_eval (parse + evaluate)"] = [python, "-c", PYTREC, str(q),
                                                              str(r), wanted]
            times: dict[str, list[float]] = {name: [] for name in commands}
            peaks: dict[str, list[int]] = {name: [] for name in commands}
            for _ in range(args.repeat):
                for name, command in commands.items():
                    seconds, peak = measure(command)
                    times[name].append(seconds)
                    peaks[name].append(peak)
            base_t = statistics.median(times["trec_eval -O2"])
            base_m = statistics.median(peaks["trec_eval -O2"])
            for name in commands:
                t, m = statistics.median(times[name]), statistics.median(peaks[name])
                rows.append((workload, name, t, m, t / base_t, m / base_m))
    common.header("rankeval trec against trec_eval: whole processes", "pytrec-eval-terrier")
    print(f"run file: {size / 1e6:.0f} MB, {args.per_query} documents a query; "
          f"median of {args.repeat} interleaved runs; "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print(f"{'workload':38} {'command':32} {'seconds':>8} {'peak MB':>8} "
          f"{'time / C':>9} {'mem / C':>8}")
    for workload, name, t, m, rt, rm in rows:
        print(f"{workload:38} {name:32} {t:8.3f} {m / 1e6:8.0f} {rt:8.2f}x {rm:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
