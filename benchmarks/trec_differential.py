"""Differential test of ``rankeval trec`` against the real trec_eval binaries, built from source.

For random small qrels/run pairs and random option sets, runs each of the three trec_eval
builds (see ``trec_builds.py``) and ``rankeval trec --profile P`` with the same arguments,
and compares. Where trec_eval prints results (exit status 0), rankeval must print the same
bytes and exit 0, except where trec_eval 10's output comes from undefined behaviour (counted
apart: files with comment lines, which it miscounts and then reads past its buffer; ``rbp``,
which reads two uninitialised variables). Where trec_eval fails (an error exit, or a
crash), rankeval may refuse too or answer; the answers it gives there are documented in
``docs/semantics.md`` (trec_eval 10 refusing a qrels query the run lacks without ``-c``; a
query whose judgments are all negative, which trec_eval fails on when it is the first
evaluated; 10.0's crash on comments).
Prints the counts and the first mismatches.

    python trec_differential.py --cases 2000          # about a minute
    python trec_differential.py --cases 300 --seed 7  # another sample

Needs ``make`` and a C compiler to build the binaries (once; cached).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import trec_builds

sys.path.insert(0, str(trec_builds.REPO_ROOT))
from rankeval.ranking import trec_cli

QUERIES = ["q1", "q2", "q10", "301", "#7"]  # "#7": a query in 9.x, a comment in 10.0
DOCS = [f"d{i}" for i in range(8)]
SCORES = ["0.5", "0.5000000001", "1", "2", "0.25", "-1", "1e-8", "3.0000001", "3", "0.1"]
RELS = [0, 0, 1, 1, 2, 3, -1]
MEASURES = [
    "map", "P.1,3", "recall.2,5", "ndcg", "ndcg_cut.2,5", "Rprec", "recip_rank", "bpref",
    "iprec_at_recall", "11pt_avg", "num_rel", "num_ret", "num_rel_ret", "num_q", "gm_map",
    "success.1,5", "map_cut.3", "set_P", "set_recall", "set_F", "set_map", "set_relative_P",
    "relative_P.2", "infAP", "gm_bpref", "utility", "Rndcg", "binG", "G", "Rprec_mult",
    "ndcg_rel", "relstring.4", "runid", "num_nonrel_judged_ret", "official", "all_trec", "set",
    "ndcg_cut.1,3.7", "P.2x",  # cutoffs read with C's atol
]


@dataclass
class Case:
    qrels: str
    run: str
    args: list[str]

    def show(self) -> str:
        return (f"args: {' '.join(self.args)}\n--- qrels\n{self.qrels}--- run\n{self.run}")


def random_case(rng: random.Random) -> Case:
    queries = rng.sample(QUERIES, rng.randint(1, 3))
    qrels_lines = []
    for q in queries:
        for d in rng.sample(DOCS, rng.randint(1, 5)):
            qrels_lines.append(f"{q} 0 {d} {rng.choice(RELS)}")
    run_queries = [q for q in queries if rng.random() < 0.85] or queries[:1]
    if rng.random() < 0.15:
        run_queries.append(rng.choice([q for q in QUERIES if q not in queries] or QUERIES))
    run_lines = []
    for q in run_queries:
        for rank, d in enumerate(rng.sample(DOCS, rng.randint(1, 6))):
            run_lines.append(f"{q} Q0 {d} {rank + 1} {rng.choice(SCORES)} r")
    if rng.random() < 0.1:  # a document listed twice; trec_eval only sees it if evaluated
        run_lines.append(rng.choice(run_lines).replace(" r", " r", 1))
    if rng.random() < 0.1:  # a document judged twice (maybe differently)
        q, _, d, _ = rng.choice(qrels_lines).split()
        qrels_lines.append(f"{q} 0 {d} {rng.choice(RELS)}")
    rng.shuffle(run_lines)
    args: list[str] = []
    for flag in ("-q", "-c", "-n", "-J"):
        if rng.random() < 0.3:
            args.append(flag)
    if rng.random() < 0.3:
        args += ["-l", str(rng.choice([-2, -1, 0, 1, 2, 3]))]
    if rng.random() < 0.25:
        args += ["-M", str(rng.choice([0, 1, 2, 4, 100]))]
    if rng.random() < 0.1:
        args += ["-N", str(rng.choice([10, 50]))]
    for measure in rng.sample(MEASURES, rng.randint(0, 3)):
        args += ["-m", measure]
    return Case("\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n", args)


def run_binary(binary: Path, case: Case, qrels: str, run: str) -> tuple[int, bytes]:
    """The exit status and output; a run that printed bytes of no text (garbage read past
    a buffer) counts as failed."""
    done = subprocess.run([str(binary), *case.args, qrels, run], capture_output=True)
    try:
        done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return 255, done.stdout
    return done.returncode, done.stdout


def undefined_in_10(case: Case, theirs: bytes, ours: bytes) -> bool:
    """Whether trec_eval 10's output comes from its undefined behaviour (docs/semantics.md):
    files with comment lines (it miscounts their lines and reads past its buffer), or only
    ``rbp`` lines differing (it reads two uninitialised variables)."""
    if any(line.startswith("#") for text in (case.qrels, case.run)
           for line in text.splitlines()):
        return True
    a, b = theirs.decode().splitlines(), ours.decode().splitlines()
    return len(a) == len(b) and all(x.split()[0] == "rbp" for x, y in zip(a, b, strict=True)
                                    if x != y)


def run_ours(profile: str, case: Case, qrels: str, run: str) -> tuple[int, bytes]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = trec_cli.main([*case.args, "--profile", profile, qrels, run])
    return status, out.getvalue().encode()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--show", type=int, default=5, help="mismatches to print per profile")
    p.add_argument("--no-hash-ids", action="store_true",
                   help="leave out the query id '#7' (10.0 mishandles comment lines)")
    args = p.parse_args(argv)
    if args.no_hash_ids:
        QUERIES.remove("#7")
    binaries = {profile: trec_builds.build(profile) for profile in trec_builds.ARCHIVES}
    rng = random.Random(args.seed)
    counts = {profile: {"compared": 0, "identical": 0, "both refused": 0,
                        "trec_eval fails, rankeval answers": 0,
                        "10.0 undefined behaviour": 0, "differ": 0}
              for profile in binaries}
    shown = {profile: 0 for profile in binaries}
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
        for _ in range(args.cases):
            case = random_case(rng)
            Path(qrels_path).write_text(case.qrels)
            Path(run_path).write_text(case.run)
            for profile, binary in binaries.items():
                theirs = run_binary(binary, case, qrels_path, run_path)
                ours = run_ours(profile, case, qrels_path, run_path)
                tally = counts[profile]
                tally["compared"] += 1
                if theirs[0] == 0 and ours == theirs:
                    tally["identical"] += 1
                elif theirs[0] != 0 and ours[0] != 0:
                    tally["both refused"] += 1
                elif theirs[0] != 0:
                    tally["trec_eval fails, rankeval answers"] += 1
                elif profile == "10.0" and undefined_in_10(case, theirs[1], ours[1]):
                    tally["10.0 undefined behaviour"] += 1
                else:
                    tally["differ"] += 1
                    if shown[profile] < args.show:
                        shown[profile] += 1
                        print(f"=== {profile}: trec_eval exit {theirs[0]}, rankeval exit "
                              f"{ours[0]}\n{case.show()}--- trec_eval\n"
                              f"{theirs[1].decode()}--- rankeval\n{ours[1].decode()}")
    names = list(next(iter(counts.values())))
    print(" | ".join(["profile", *names]))
    for profile, tally in counts.items():
        print(" | ".join([profile, *(str(tally[name]) for name in names)]))
    return 1 if any(t["differ"] for t in counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
