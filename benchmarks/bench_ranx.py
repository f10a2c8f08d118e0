"""Many queries from every input form: rankeval against ranx and pytrec_eval, 10^6 and 10^7 lines.

Question: from each form IR users hold (pytrec_eval's dicts, pandas tables with object ids,
TREC files, NumPy columns), how long does each library take to build its inputs, to
evaluate, and end to end; and how does each scale from one thread or worker to all of them?

Data: ``bench_ranking.make_data`` (queries x 100 documents, 30 judged documents a query,
scores with 6 decimals, measures MAP, reciprocal rank, nDCG@10 and P@10). Every form is made
from the same rows before any timing:

* dicts: ``{qid: {docid: score}}`` and ``{qid: {docid: rel}}``, what pytrec_eval takes;
* pandas: ``query_id``/``doc_id`` object columns and ``score``/``relevance``; ranx builds its
  typed ``Run``/``Qrels`` from these same frames (``from_df``);
* TREC files: a run and a qrels file in a temporary directory;
* arrays: NumPy string columns (rankeval only: neither peer takes them).

Each contender's build is its own reading of the form (rankeval ``Qrels``/``Run``, ranx's
``from_df``/``from_file``/constructor, pytrec_eval's ``RelevanceEvaluator`` and, from a file,
``parse_qrel``/``parse_run``); its evaluation computes the four measures per query. ranx
evaluates with NUMBA threads 1 and all (``evaluate(threads=)``). rankeval evaluates on one
core and with ``workers=`` all CPUs (forked workers evaluating blocks of queries; the inputs
are built in the parent, so only the evaluation is shared out). Values: rankeval's per-query
values against pytrec_eval's (identical expected) and ranx's, at the first size. ranx orders
tied scores otherwise than trec_eval: at 10,000 queries its MAP differs on 4 queries and its
reciprocal rank on 1, each a query with a tie; nDCG@10 and P@10 agree everywhere.

Repeats are interleaved (rotating the order each round) and medians reported: the machine's
two cores are shared.
"""

from __future__ import annotations

import os
import statistics
import tempfile
from collections.abc import Callable
from typing import Any

import _common as common
from bench_ranking import (
    MEASURES,
    PYTREC_MEASURES,
    RANX_METRICS,
    check_agreement,
    make_data,
    write_files,
)

from rankeval.ranking import Qrels, Run, evaluate_run

DOCS = 100
CPUS = os.cpu_count() or 1
ALL_THREADS = f"ranx, {CPUS} threads"
ALL_WORKERS = f"rankeval, {CPUS} workers"


Step = Callable[[], Any]


def contenders(data: dict[str, Any], run_path: str, qrels_path: str
               ) -> dict[tuple[str, str], tuple[Step, Callable[[Any], Any]]]:
    """``(form, contender) -> (build, evaluate)``: ``evaluate(build())`` is end to end."""
    import pandas as pd
    import pytrec_eval
    import ranx

    run_frame = pd.DataFrame({"query_id": data["qid"].astype(object),
                              "doc_id": data["docid"].astype(object), "score": data["score"]})
    qrels_frame = pd.DataFrame({"query_id": data["qrels_qid"].astype(object),
                                "doc_id": data["qrels_docid"].astype(object),
                                "relevance": data["qrels_rel"]})
    run_dict, qrels_dict = data["run_dict"], data["qrels_dict"]
    metrics = list(RANX_METRICS.values())

    def ours_with(workers: int) -> Callable[[Any], Any]:
        return lambda built: evaluate_run(built[0], built[1], MEASURES, workers=workers)

    ours = ours_with(1)

    def ranx_with(threads: int) -> Callable[[Any], Any]:
        return lambda built: ranx.evaluate(built[0], built[1], metrics, threads=threads)

    def pytrec(built: tuple[Any, Any]) -> Any:
        return built[0].evaluate(built[1])

    def ranx_frames() -> Any:
        return (ranx.Qrels.from_df(qrels_frame, "query_id", "doc_id", "relevance"),
                ranx.Run.from_df(run_frame, "query_id", "doc_id", "score"))

    def ranx_dicts() -> Any:
        return ranx.Qrels(qrels_dict), ranx.Run(run_dict)

    def ranx_files() -> Any:
        return ranx.Qrels.from_file(qrels_path, kind="trec"), ranx.Run.from_file(run_path,
                                                                                  kind="trec")

    def pytrec_files() -> Any:
        with open(qrels_path) as q, open(run_path) as r:
            return (pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(q), PYTREC_MEASURES),
                    pytrec_eval.parse_run(r))

    table: dict[tuple[str, str], tuple[Step, Callable[[Any], Any]]] = {
        ("arrays", "rankeval"): (
            lambda: (Qrels.from_arrays(data["qrels_qid"], data["qrels_docid"], data["qrels_rel"]),
                     Run.from_arrays(data["qid"], data["docid"], data["score"])), ours),
        ("dicts", "rankeval"): (
            lambda: (Qrels.from_dict(qrels_dict), Run.from_dict(run_dict)), ours),
        ("dicts", "pytrec_eval"): (
            lambda: (pytrec_eval.RelevanceEvaluator(qrels_dict, PYTREC_MEASURES), run_dict),
            pytrec),
        ("pandas", "rankeval"): (
            lambda: (Qrels.from_frame(qrels_frame), Run.from_frame(run_frame)), ours),
        ("TREC file", "rankeval"): (
            lambda: (Qrels.from_file(qrels_path), Run.from_file(run_path)), ours),
        ("TREC file", "pytrec_eval"): (pytrec_files, pytrec),
    }
    for form, who in list(table):  # rankeval on every CPU: the same build, forked workers
        if who == "rankeval":
            table[(form, ALL_WORKERS)] = (table[(form, who)][0], ours_with(CPUS))
    for form, build in (("dicts", ranx_dicts), ("pandas", ranx_frames),
                        ("TREC file", ranx_files)):
        table[(form, "ranx, 1 thread")] = (build, ranx_with(1))
        table[(form, ALL_THREADS)] = (build, ranx_with(CPUS))
    return table


def measure(table: dict[tuple[str, str], tuple[Step, Callable[[Any], Any]]], repeat: int
            ) -> dict[tuple[str, str], tuple[float, float]]:
    """Median build and evaluate seconds of each contender, repeats interleaved."""
    names = list(table)
    times: dict[tuple[str, str], tuple[list[float], list[float]]] = {
        name: ([], []) for name in names}
    for r in range(repeat):
        for name in names[r % len(names):] + names[: r % len(names)]:
            build, evaluate = table[name]
            seconds, built = common.timed(build)
            times[name][0].append(seconds)
            seconds, _ = common.timed(lambda built=built, evaluate=evaluate: evaluate(built))
            times[name][1].append(seconds)
    return {name: (statistics.median(b), statistics.median(e))
            for name, (b, e) in times.items()}


def agreement(data: dict[str, Any]) -> list[str]:
    """rankeval's per-query values against pytrec_eval's and ranx's."""
    import pytrec_eval
    import ranx

    expected = pytrec_eval.RelevanceEvaluator(data["qrels_dict"], PYTREC_MEASURES).evaluate(
        data["run_dict"])
    got = evaluate_run(data["qrels_dict"], data["run_dict"], MEASURES).to_dict()
    run = ranx.Run(data["run_dict"])
    ranx.evaluate(ranx.Qrels(data["qrels_dict"]), run, list(RANX_METRICS.values()))
    theirs = {q: {name: float(run.scores[metric][q]) for name, metric in RANX_METRICS.items()}
              for q in expected}
    return [f"rankeval vs pytrec_eval, per query: "
            f"{check_agreement(data, expected, got, 'rankeval', True)}",
            f"ranx vs pytrec_eval, per query: "
            f"{check_agreement(data, expected, theirs, 'ranx', False)}"]


def main() -> int:
    parser = common.parser(__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [(2_000, 2)] if args.quick else [(10_000, 5), (100_000, args.repeat)]
    common.header("bench_ranx: many queries from every input form", "pytrec-eval-terrier",
                  "ranx", "numba", "pandas")
    for number, (queries, repeat) in enumerate(sizes):
        lines = queries * DOCS
        data = make_data(queries, DOCS)
        with tempfile.TemporaryDirectory() as folder:
            run_path, qrels_path = write_files(data, DOCS, folder, " ")
            table = contenders(data, run_path, qrels_path)
            for name in table:  # warm-up: numba compiles, first touches
                build, evaluate = table[name]
                evaluate(build())
            medians = measure(table, repeat)
        print(f"{number + 1}. {lines:,} lines ({queries:,} queries x {DOCS} documents), "
              f"median of {repeat} interleaved repeats")
        if number == 0:
            for line in agreement(data):
                print(f"   {line}")
        print()
        rows = []
        for (form, who), (build, evaluate) in medians.items():
            mine = medians[(form, "rankeval")]
            total = build + evaluate
            rows.append([form, who, common.fmt_seconds(build), common.fmt_seconds(evaluate),
                         common.fmt_seconds(total),
                         "1.00x" if who == "rankeval" else f"{total / sum(mine):.2f}x"])
        common.print_table(["input form", "contender", "build", "evaluate", "end to end",
                            "end to end / rankeval's"], rows)
        print()
        for form in ("dicts", "pandas", "TREC file"):
            mine = sum(medians[(form, "rankeval")])
            for (other, who), times in medians.items():
                if other == form and not who.startswith("rankeval"):
                    print(f"   from {form}: rankeval {sum(times) / mine:.2f}x faster than {who} "
                          "end to end")
        for form in ("dicts", "pandas", "TREC file"):
            one, every = medians[(form, "ranx, 1 thread")][1], medians[(form, ALL_THREADS)][1]
            print(f"   ranx's evaluation from {form}: {one / every:.2f}x faster with {CPUS} "
                  "threads than with one")
        # The targets: from dicts, built and evaluated, against pytrec_eval's build and
        # evaluation; from pandas, end to end, against ranx's evaluation alone of its
        # prebuilt Run (all its threads).
        dicts = sum(medians[("dicts", "pytrec_eval")]) / sum(medians[("dicts", "rankeval")])
        frames = medians[("pandas", ALL_THREADS)][1] / sum(medians[("pandas", "rankeval")])
        print(f"   target: from dicts >= 1.5x faster than pytrec_eval: {dicts:.2f}x "
              f"({common.verdict(dicts >= 1.5)})")
        print(f"   target: from pandas, end to end, >= 2x faster than ranx's evaluate of its "
              f"prebuilt Run: {frames:.2f}x ({common.verdict(frames >= 2.0)})")
        for form in ("arrays", "dicts", "pandas", "TREC file"):
            one, every = sum(medians[(form, "rankeval")]), sum(medians[(form, ALL_WORKERS)])
            fastest_ranx = min((sum(t) for (f, who), t in medians.items()
                                if f == form and who.startswith("ranx")), default=None)
            against = ("" if fastest_ranx is None else
                       f"; {fastest_ranx / every:.2f}x faster than ranx with all its threads")
            print(f"   rankeval end to end from {form}: {one / every:.2f}x faster with {CPUS} "
                  f"workers than with one (target >= 1.7x: {common.verdict(one / every >= 1.7)})"
                  f"{against}")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
