"""Write ``tests/data/trec_eval_quirks.json``: minimised cases with the real binaries' output.

Each case (qrels text, run text, arguments) is run through the three trec_eval builds of
``trec_builds.py``; the file records, per profile, the exit status and standard output.
``tests/test_trec_quirks.py`` then checks ``rankeval trec --profile P`` against them without
needing a compiler. Rerun after adding a case:

    python trec_curated.py
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import trec_builds

TARGET = trec_builds.REPO_ROOT / "tests" / "data" / "trec_eval_quirks.json"

CASES = [
    {"name": "scores equal as float, not as double (the 9.0.8 release compares doubles)",
     "qrels": "q1 0 a 1\n", "run": "q1 Q0 a 1 0.5000000001 r\nq1 Q0 b 2 0.5 r\n",
     "args": ["-m", "map"]},
    {"name": "num_rel's -c summary counts every judgment above 0, whatever -l",
     "qrels": "q1 0 a 1\nq1 0 b 2\n", "run": "q1 Q0 a 1 1 r\n",
     "args": ["-c", "-l2", "-m", "num_rel"]},
    {"name": "num_rel's -c summary with a query the run lacks",
     "qrels": "q1 0 a 1\nq1 0 b 2\nq2 0 c 3\nq2 0 d 1\n", "run": "q1 Q0 a 1 1 r\n",
     "args": ["-q", "-c", "-l", "3", "-m", "num_rel", "-m", "map"]},
    {"name": "-nan: a query left with no retrieved document under -J",
     "qrels": "q1 0 d1 1\nq2 0 d1 1\n", "run": "q1 Q0 x 1 1 r\nq2 Q0 d1 1 1 r\n",
     "args": ["-q", "-J", "-m", "iprec_at_recall.0,0.5", "-m", "11pt_avg", "-m", "map"]},
    {"name": "-nan under -M 0, with all_trec",
     "qrels": "q1 0 d1 1\nq1 0 d2 0\n", "run": "q1 Q0 d1 1 1 r\nq1 Q0 d2 2 0.5 r\n",
     "args": ["-M", "0", "-m", "all_trec"]},
    {"name": "cutoffs read with C's atol (trec_eval's own test suite has ndcg_cut.10,20,23.4)",
     "qrels": "q1 0 a 1\nq1 0 b 1\nq1 0 c 0\n",
     "run": "q1 Q0 c 1 3 r\nq1 Q0 a 2 2 r\nq1 Q0 b 3 1 r\n",
     "args": ["-m", "ndcg_cut.1,2.7", "-m", "P.3x"]},
    {"name": "a query id starting with # is a query in 9.x",
     "qrels": "q1 0 a 1\n#q 0 a 1\n", "run": "q1 Q0 a 1 1 r\n#q Q0 b 1 1 r\n#q Q0 a 2 0.5 r\n",
     "args": ["-q", "-m", "map", "-m", "num_q"]},
    {"name": "a negative -l: unjudged documents never count in num_rel_ret and the set measures",
     "qrels": "q1 0 a 1\nq1 0 b 0\n", "run": "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n",
     "args": ["-l-1", "-m", "num_rel_ret", "-m", "set_P", "-m", "set_recall", "-m", "set_F",
              "-m", "utility", "-m", "P.3", "-m", "map"]},
    {"name": "a negative -l with -q and -c",
     "qrels": "q1 0 a 1\nq1 0 b 0\nq2 0 a 2\n",
     "run": "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\n",
     "args": ["-q", "-c", "-l", "-2", "-m", "num_rel_ret", "-m", "set_map", "-m", "num_rel"]},
    {"name": "a negative -l in iprec_at_recall, 11pt_avg and Rprec_mult (trec_eval's loops)",
     "qrels": "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\n",
     "run": "q1 Q0 x 1 3 r\nq1 Q0 a 2 2 r\nq1 Q0 y 3 1 r\nq1 Q0 b 4 0.5 r\n",
     "args": ["-l", "-1", "-m", "iprec_at_recall", "-m", "11pt_avg", "-m", "Rprec_mult"]},
    {"name": "a negative -l with R = 0: map and binG divide by 0",
     "qrels": "q0 0 b 1\nq1 0 a -1\n",  # q0 first: trec_eval fails on q1 as the first query
     "run": "q1 Q0 x 1 3 r\nq0 Q0 b 1 1 r\n",
     "args": ["-q", "-l", "-1", "-m", "map", "-m", "gm_map", "-m", "binG", "-m", "P.1"]},
    {"name": "10.0 ranks a query the run lacks (-c) as one unjudged document",
     "qrels": "q1 0 a 1\nq2 0 b 1\nq3 0 c 0\n", "run": "q1 Q0 a 1 1 r\n",
     "args": ["-q", "-c", "-m", "iprec_at_recall.0,0.5", "-m", "num_ret", "-m", "relstring.4",
              "-m", "relstring", "-m", "P.1"]},
    {"name": "10.0's placeholder document, dropped by -J: 0/0",
     "qrels": "q1 0 a 1\nq2 0 b 1\nq3 0 c 0\n", "run": "q1 Q0 a 1 1 r\n",
     "args": ["-q", "-c", "-J", "-m", "iprec_at_recall.0,0.5", "-m", "11pt_avg"]},
    {"name": "10.0's placeholder document is relevant at -l -1",
     "qrels": "q1 0 a 1\nq2 0 b 1\n", "run": "q1 Q0 a 1 1 r\n",
     "args": ["-q", "-c", "-l", "-1", "-m", "P.1", "-m", "map", "-m", "num_rel_ret"]},
    {"name": "a document listed twice for a query without judgments is never seen",
     "qrels": "q1 0 a 1\n", "run": "q1 Q0 a 1 1 r\nq9 Q0 b 1 1 r\nq9 Q0 b 2 0.5 r\n",
     "args": ["-q", "-m", "map", "-m", "num_ret"]},
    {"name": "a document listed twice below the -M cutoff is never seen",
     "qrels": "q1 0 a 1\nq1 0 b 0\n",
     "run": "q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 c 3 1 r\nq1 Q0 c 4 0.5 r\n",
     "args": ["-M", "2", "-m", "map", "-m", "num_ret", "-m", "P.2"]},
    {"name": "a document judged twice for a query the run lacks, counted by -c's num_rel",
     "qrels": "q1 0 a 1\nq2 0 b 1\nq2 0 b 2\n", "run": "q1 Q0 a 1 1 r\n",
     "args": ["-c", "-m", "num_rel", "-m", "num_q", "-m", "map"]},
    {"name": "num_q alone never forms a ranking, so it meets no duplicate",
     "qrels": "q1 0 a 1\n", "run": "q1 Q0 a 1 1 r\nq1 Q0 a 2 0.5 r\n",
     "args": ["-m", "num_q", "-m", "runid"]},
    {"name": "-q: the queries before a duplicate are printed before trec_eval fails",
     "qrels": "q1 0 a 1\nq1 0 b 0\nq2 0 a 1\nq3 0 c 1\nq3 0 d 0\n",
     "run": "q1 Q0 a 1 0.9 r\nq1 Q0 b 2 0.5 r\nq2 Q0 a 1 0.9 r\nq3 Q0 c 1 0.9 r\n"
            "q3 Q0 c 2 0.8 r\nq3 Q0 d 3 0.1 r\n",
     "args": ["-q", "-m", "map", "-m", "P.1"]},
    {"name": "-q -c: a duplicate judgment stops trec_eval at its query, in id order",
     "qrels": "q1 0 a 1\nq2 0 a 1\nq2 0 a 0\nq3 0 c 1\n",
     "run": "q3 Q0 c 1 0.9 r\nq3 Q0 c 2 0.8 r\nq1 Q0 a 1 0.9 r\nq2 Q0 a 1 0.9 r\n",
     "args": ["-q", "-c", "-m", "map"]},
    {"name": "-c with no query in common: 10.0 evaluates the qrels queries, 9.x refuses",
     "qrels": "q1 0 a 1\nq1 0 b 0\nq3 0 c 2\n", "run": "q4 Q0 a 1 1 r\nq2 Q0 a 1 1 s\n",
     "args": ["-q", "-c", "-m", "runid", "-m", "map", "-m", "num_ret", "-m", "P.1",
              "-m", "relstring.2", "-m", "num_q"]},
]


def main() -> None:
    binaries = {profile: trec_builds.build(profile) for profile in trec_builds.ARCHIVES}
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = Path(tmp, "qrels"), Path(tmp, "run")
        for case in CASES:
            qrels.write_text(case["qrels"])
            run.write_text(case["run"])
            results = {}
            for profile, binary in binaries.items():
                done = subprocess.run([str(binary), *case["args"], str(qrels), str(run)],
                                      capture_output=True)
                results[profile] = {"status": done.returncode,
                                    "stdout": done.stdout.decode("utf-8")}
            out.append({**case, "trec_eval": results})
    TARGET.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(out)} cases to {TARGET}")


if __name__ == "__main__":
    main()
