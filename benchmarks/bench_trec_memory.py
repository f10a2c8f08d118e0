"""Memory for reading TREC files with adversarial id lengths and query counts.

Question: is the peak memory of reading a run file at most 8 times the file's size plus
64 MB (the temporaries of one parsing chunk), whatever the document-id lengths and the number
of queries? And what does a whole ``rankeval trec -m all_trec`` cost, against pytrec_eval
reading and evaluating the same files?

Each file is generated once into a temporary folder; each contender reads or evaluates it in
a fresh subprocess of this script, which reports the high-water mark of its resident memory
(``ru_maxrss``) above the memory it had after its imports (the "baseline"). The ratio column is
that growth divided by the file's size (run plus qrels for evaluations).

Files (the run; the qrels judge one document of every query):

* ``long-id``: 200,000 lines over 50 queries; one document id is 100 KB long. Fixed-width
  string arrays pad every id to the longest one.
* ``many-queries``: 600,000 queries with 2 documents each.
* ``long-query-ids``: 50,000 queries whose ids are 200 to 2,000 bytes long.
* ``plain``: 1,000,000 lines, 1,000 queries, short ids (the common case, for scale).
* ``huge-grade``: 100,000 lines over 100 queries; one judgment has the grade 10**8 (once a
  4 GB, 27 s evaluation: judged counts had a column per grade value up to the largest).
* ``1mb-id``: 100,000 lines over 100 queries; one document id, in the run and the qrels, is
  1 MB long (once a false "out of memory": rows x the longest id).

For the last two the whole evaluation (``trec``) has a target too: at most 8 times the input
plus 64 MB, whatever the grade or the id. A peer that has not finished in 120 s is reported
as such (trec_eval's own code allocates and sorts one entry per grade value up to the
largest).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile

import _common as common

# Reading: peak growth at most TARGET times the file's size plus FIXED bytes (the
# temporaries of one parsing chunk, whatever the file's size).
TARGET = 8.0
FIXED = 64 * 2**20


def write_files(folder: str, name: str) -> tuple[str, str]:
    """The run and qrels of one adversarial case; returns their paths."""
    rng = random.Random(common.SEED)
    run, qrels = os.path.join(folder, f"{name}.run"), os.path.join(folder, f"{name}.qrels")
    with open(run, "w") as r, open(qrels, "w") as q:
        if name == "long-id":
            for i in range(200_000):
                doc = "x" * 100_000 if i == 7 else f"d{i}"
                r.write(f"q{i % 50} Q0 {doc} {i} {rng.random():.6f} r\n")
            for i in range(0, 200_000, 9):
                q.write(f"q{i % 50} 0 d{i} 1\n")
        elif name == "many-queries":
            for i in range(600_000):
                r.write(f"q{i} Q0 a 1 0.9 r\nq{i} Q0 b 2 0.5 r\n")
                q.write(f"q{i} 0 b 1\n")
        elif name == "long-query-ids":
            for i in range(50_000):
                qid = f"{i}-" + "q" * rng.randrange(200, 2000)
                r.write(f"{qid} Q0 a 1 0.9 r\n{qid} Q0 b 2 0.5 r\n")
                q.write(f"{qid} 0 a 1\n")
        elif name in ("huge-grade", "1mb-id"):
            long_id = "x" * 2**20
            for i in range(100_000):
                doc = long_id if name == "1mb-id" and i == 7 else f"d{i}"
                r.write(f"q{i % 100} Q0 {doc} {i} {rng.random():.6f} r\n")
            for i in range(0, 100_000, 7):
                doc = long_id if name == "1mb-id" and i == 7 else f"d{i}"
                grade = 10**8 if name == "huge-grade" and i == 7 else i % 3
                q.write(f"q{i % 100} 0 {doc} {grade}\n")
        else:
            for i in range(1_000_000):
                r.write(f"q{i % 1000} Q0 doc{i} {i} {rng.random():.6f} r\n")
            for i in range(0, 1_000_000, 13):
                q.write(f"q{i % 1000} 0 doc{i} {i % 3}\n")
    return run, qrels


# What a child does: (imports, work) as source text, run by `python bench_trec_memory.py --child`.
CHILD_JOBS = {
    "rankeval read": (
        "from rankeval.ranking import Run",
        "Run.from_file(RUN)",
    ),
    "rankeval trec": (
        "from rankeval.ranking.trec_cli import main",
        "import io, contextlib\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['-m', 'all_trec', QRELS, RUN]) == 0",
    ),
    "pytrec_eval read": (
        "import pytrec_eval",
        "with open(RUN) as f: pytrec_eval.parse_run(f)",
    ),
    "pytrec_eval evaluate": (
        "import pytrec_eval",
        "with open(RUN) as f: run = pytrec_eval.parse_run(f)\n"
        "with open(QRELS) as f: qrels = pytrec_eval.parse_qrel(f)\n"
        "pytrec_eval.RelevanceEvaluator(qrels, {'all_trec'}).evaluate(run)",
    ),
}


def child(job: str, run: str, qrels: str) -> None:
    imports, work = CHILD_JOBS[job]
    exec(imports, globals())  # our own fixed source text
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    exec(work, {**globals(), "RUN": run, "QRELS": qrels})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"growth": (peak - base) * 1024}))


# Seconds a contender may take before it is reported as not finished.
TIMEOUT = 120


def measure(job: str, run: str, qrels: str) -> float | None:
    """Peak growth in bytes, or None if the job did not finish in TIMEOUT seconds."""
    path = common.REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")
    env = {**os.environ, "PYTHONPATH": path}
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", job, run, qrels],
            capture_output=True, text=True, env=env, check=True, timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return None
    return float(json.loads(done.stdout.splitlines()[-1])["growth"])


def megabytes(growth: float | None) -> str:
    return f"not done in {TIMEOUT} s" if growth is None else f"{growth / 2**20:.0f} MB"


def per_input(growth: float | None, size: int) -> str:
    return "-" if growth is None else f"{growth / size:.1f}x"


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    args = common.parser(__doc__.splitlines()[0]).parse_args()
    common.header("TREC files: peak memory against the file's size", "numpy", "pytrec_eval")
    names = ["long-id", "many-queries", "long-query-ids", "plain", "huge-grade", "1mb-id"]
    if args.quick:
        names = ["long-id", "plain", "huge-grade", "1mb-id"]
    rows = []
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            run, qrels = write_files(folder, name)
            sizes = {"read": os.path.getsize(run),
                     "trec": os.path.getsize(run) + os.path.getsize(qrels)}
            growth = {job: measure(job, run, qrels) for job in CHILD_JOBS}
            for ours, peer, kind in (("rankeval read", "pytrec_eval read", "read"),
                                     ("rankeval trec", "pytrec_eval evaluate", "trec")):
                size = sizes[kind]
                mine, theirs = growth[ours], growth[peer]
                assert mine is not None, f"rankeval did not finish {kind} of {name}"
                bounded = mine <= TARGET * size + FIXED
                targeted = kind == "read" or name in ("huge-grade", "1mb-id")
                if targeted:
                    ok &= bounded
                rows.append([name, kind, f"{size / 2**20:.1f} MB", megabytes(mine),
                             per_input(mine, size), megabytes(theirs), per_input(theirs, size),
                             "-" if theirs is None else common.ratio(theirs, mine),
                             common.verdict(bounded) if targeted else "(no target)"])
    common.print_table(
        ["file", "job", "input", "rankeval peak", "/ input", "pytrec_eval peak", "/ input",
         "pytrec_eval / rankeval", f"<= {TARGET:g}x input + 64 MB"],
        rows,
    )
    print("\ntrec rows evaluate all_trec: every query keeps its ~150 values (8 bytes each), as")
    print("trec_eval itself does, so many queries cost about 1.2 KB each beyond the file.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
