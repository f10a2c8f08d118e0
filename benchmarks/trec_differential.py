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

Before the random cases, a sweep runs every measure of the catalogue alone, bare and with
random parameters, and every nickname; the random cases then mix 0 to 3 ``-m`` arguments
drawn from the whole catalogue (never from a hand list).

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
from rankeval.ranking import catalogue, trec_cli

QUERIES = ["q1", "q2", "q10", "301", "#7"]  # "#7": a query in 9.x, a comment in 10.0
DOCS = [f"d{i}" for i in range(8)]
SCORES = ["0.5", "0.5000000001", "1", "2", "0.25", "-1", "1e-8", "3.0000001", "3", "0.1"]
RELS = [0, 0, 1, 1, 2, 3, -1]
# Cutoffs past C's long (saturated), at it, past int32, and in exponent form (atol: 1).
HUGE_CUTOFFS = ["99999999999999999999", "9223372036854775807", "2147483648", "1e3", "1e400"]
# Malformed parameters trec_eval reads with C's atol (a cutoff 3.7 is 3, "2x" is 2).
ATOL_SPECS = ["ndcg_cut.1,3.7", "P.2x"]


def measure_params(rng: random.Random, measure: catalogue.MeasureDef) -> str | None:
    """A random parameter text for ``measure`` in trec_eval's ``-m name.params`` syntax, or
    None for a measure that takes none. Drawn by the parameter style the catalogue
    declares, so that every measure is tried with parameters."""
    kind = measure.params
    if kind == "none":
        return None
    if kind == "cutoffs":
        cutoffs = [str(k) for k in rng.sample(range(1, 13), rng.randint(1, 3))]
        if rng.random() < 0.15:  # read with atol: saturated at 2**63 - 1, or cut at the "e"
            cutoffs.append(rng.choice(HUGE_CUTOFFS))
        return ",".join(cutoffs)
    if kind == "levels":
        top = 2.0 if measure.name == "Rprec_mult" else 1.0
        levels = sorted(rng.sample(range(0, 11), rng.randint(1, 3)))
        return ",".join(f"{top * level / 10:g}" for level in levels)
    if kind == "pairs":
        if measure.name.startswith("rbp"):
            return f"p={rng.choice(['0.5', '0.8', '0.95'])}"
        rels = sorted(rng.sample(range(-1, 4), rng.randint(1, 3)))
        return ",".join(f"{r}={rng.choice(['0', '1', '2.5', '9'])}" for r in rels)
    # values: by what each measure reads
    if measure.name == "utility":
        return ",".join(rng.choice(["1", "-1", "0", "2", "0.5"]) for _ in range(4))
    if measure.name == "11pt_avg":
        levels = sorted(rng.sample(range(0, 11), rng.randint(1, 4)))
        return ",".join(f"{level / 10:g}" for level in levels)
    if measure.name == "set_F":
        return rng.choice(["0.5", "1", "2", "0.25"])
    return str(rng.randint(1, 12))  # relstring's length


def all_specs(rng: random.Random) -> list[str]:
    """Every measure of every profile's catalogue, bare and with parameters, and every
    nickname: each ``-m`` argument trec_eval can be given, once."""
    specs: list[str] = []
    for measure in catalogue.MEASURES:
        specs.append(measure.name)
        params = measure_params(rng, measure)
        if params is not None:
            specs.append(f"{measure.name}.{params}")
    nicknames = {n for profile in catalogue.PROFILES for n in catalogue.NICKNAMES[profile]}
    return [*specs, *sorted(nicknames), *ATOL_SPECS]


def random_spec(rng: random.Random) -> str:
    """One ``-m`` argument drawn from the whole catalogue: a measure bare or with random
    parameters, a nickname, or one of the atol-read malformed parameter lists."""
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(sorted({n for p in catalogue.PROFILES for n in catalogue.NICKNAMES[p]}))
    if roll < 0.13:
        return rng.choice(ATOL_SPECS)
    measure = rng.choice(catalogue.MEASURES)
    params = measure_params(rng, measure) if roll < 0.6 else None
    return measure.name if params is None else f"{measure.name}.{params}"


@dataclass
class Case:
    qrels: str
    run: str
    args: list[str]

    def show(self) -> str:
        return (f"args: {' '.join(self.args)}\n--- qrels\n{self.qrels}--- run\n{self.run}")


def random_case(rng: random.Random, specs: list[str] | None = None) -> Case:
    """Random small files and options; ``-m`` arguments ``specs`` if given, else 0 to 3
    drawn from the catalogue (:func:`random_spec`)."""
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
    if specs is None:
        specs = [random_spec(rng) for _ in range(rng.randint(0, 3))]
    for spec in specs:
        args += ["-m", spec]
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
    files with comment lines (it miscounts their lines and reads past its buffer), a query
    whose judgments are all negative (it reads past a zero-length array when that query is
    not the first evaluated, which -c's placeholder queries make common in 10), or only
    ``rbp`` lines differing (it reads two uninitialised variables)."""
    if any(line.startswith("#") for text in (case.qrels, case.run)
           for line in text.splitlines()):
        return True
    if all_negative_query(case):
        return True
    a, b = theirs.decode().splitlines(), ours.decode().splitlines()
    return len(a) == len(b) and all(x.split()[0].partition("_")[0] == "rbp"
                                    for x, y in zip(a, b, strict=True) if x != y)


def all_negative_query(case: Case) -> bool:
    """Whether a qrels query has only negative judgments: trec_eval reads past a zero-length
    array for it when it is not the first query evaluated (docs/semantics.md), so its values
    there are whatever memory held."""
    grades: dict[str, list[int]] = {}
    for line in case.qrels.splitlines():
        q, _, _, rel = line.split()
        grades.setdefault(q, []).append(int(rel))
    return any(all(r < 0 for r in rels) for rels in grades.values())


def run_ours(profile: str, case: Case, qrels: str, run: str) -> tuple[int, bytes]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = trec_cli.main([*case.args, "--profile", profile, qrels, run])
    return status, out.getvalue().encode()


def cases(rng: random.Random, count: int) -> list[Case]:
    """The sweep (every ``-m`` argument of :func:`all_specs` alone, once each), then ``count``
    random cases whose ``-m`` arguments mix 0 to 3 drawn from the catalogue."""
    return ([random_case(rng, [spec]) for spec in all_specs(rng)]
            + [random_case(rng) for _ in range(count)])


Outcome = tuple[str, tuple[int, bytes], tuple[int, bytes]]


def compare(binaries: dict[str, Path], case: Case, tmp: str) -> dict[str, Outcome]:
    """Each profile's outcome on ``case`` (files written in ``tmp``): "identical", "both
    refused", "trec_eval fails, rankeval answers", "10.0 undefined behaviour" or "differ",
    with trec_eval's and rankeval's (exit status, output)."""
    qrels_path, run_path = os.path.join(tmp, "qrels"), os.path.join(tmp, "run")
    Path(qrels_path).write_text(case.qrels)
    Path(run_path).write_text(case.run)
    out: dict[str, Outcome] = {}
    for profile, binary in binaries.items():
        theirs = run_binary(binary, case, qrels_path, run_path)
        ours = run_ours(profile, case, qrels_path, run_path)
        if theirs[0] == 0 and ours == theirs:
            outcome = "identical"
        elif theirs[0] != 0 and ours[0] != 0:
            outcome = "both refused"
        elif theirs[0] != 0:
            outcome = "trec_eval fails, rankeval answers"
        elif profile == "10.0" and undefined_in_10(case, theirs[1], ours[1]):
            outcome = "10.0 undefined behaviour"
        else:
            outcome = "differ"
        out[profile] = (outcome, theirs, ours)
    return out


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
        for case in cases(rng, args.cases):
            for profile, (outcome, theirs, ours) in compare(binaries, case, tmp).items():
                tally = counts[profile]
                tally["compared"] += 1
                tally[outcome] += 1
                if outcome == "differ" and shown[profile] < args.show:
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
