"""Ranking over many queries: rankeval vs pytrec_eval-terrier and ranx, API and command line.

Question:

1. 10,000 queries x 100 documents, measures ``map``, ``recip_rank``, ``ndcg_cut_10``,
   ``P_10``: is rankeval, starting from columnar NumPy arrays, at least 4x faster than
   pytrec_eval-terrier and ranx in steady state (ranx's numba functions compiled)?
2. ``rankeval trec`` on a 1,000,000-line run file, end to end (read both files, evaluate,
   format trec_eval's report): faster than pytrec_eval's own ``parse_qrel`` / ``parse_run`` +
   ``RelevanceEvaluator.evaluate`` (same measures, no report)?
3. From arrays, is the cost per query flat as the queries grow from 10^5 to 10^6 (within
   1.25x)? The first call of the process is shown beside the best, since large fresh
   arrays cost their first touch of memory.

Inputs each library takes natively, built outside the timed calls: pytrec_eval gets its
evaluator (built from the qrels) and the run dict; ranx gets its ``Qrels`` and a ``Run`` built
from the same dict (ranx sorts a ``Run`` on first use and keeps it sorted, so both a fresh
``Run`` and an already sorted one are timed); rankeval gets its ``Qrels`` (built once, like
pytrec_eval's evaluator) and the run as three columns. The rankeval rows time
``Run.from_arrays`` (validation, hashing, duplicate check) *and* ``evaluate_run``; one row
times ``evaluate_run`` alone on a prebuilt ``Run``, the fully symmetric comparison. Two more
rows start from what IR users pass: pytrec_eval's two dicts (targets: >= 1.5x pytrec_eval),
and pandas tables with object-dtype ids (>= 2x ranx's ``evaluate`` on its sorted ``Run``).

Every contender's per-query values are compared with pytrec_eval's before timing. Repeats are
interleaved (rotating the order each round) and medians reported, because the machine's two
cores are shared with other work.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import _common as common
import numpy as np

from rankeval.ranking import Qrels, Run, evaluate_run, trec_cli

MEASURES = ["map", "recip_rank", "ndcg_cut.10", "P.10"]
PYTREC_MEASURES = {"map", "recip_rank", "ndcg_cut_10", "P_10"}
RANX_METRICS = {"map": "map", "recip_rank": "mrr", "ndcg_cut_10": "ndcg@10", "P_10": "precision@10"}
OFFICIAL_PYTREC = {"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
                   "num_ret", "num_rel", "num_rel_ret"}
TARGET = 4.0


def make_data(queries: int, docs: int, seed: int = common.SEED) -> dict[str, Any]:
    """A run (queries x docs, scores with 6 decimals) and qrels (30 judged docs per query,
    10 of them retrieved, relevance 0-2), as columns and as pytrec_eval dicts."""
    rng = np.random.default_rng(seed)
    collection = 1_000_000
    retrieved = np.stack([rng.choice(collection, docs, replace=False) for _ in range(queries)])
    scores = np.round(rng.random((queries, docs)), 6)
    judged = [np.unique(np.concatenate((retrieved[q, :10], rng.choice(collection, 20))))
              for q in range(queries)]
    rels = [rng.integers(0, 3, j.size) for j in judged]
    qids = np.array([f"q{q}" for q in range(queries)])
    data: dict[str, Any] = {
        "qid": np.repeat(qids, docs),
        "docid_int": retrieved.ravel(),
        "docid": np.array([f"doc{d}" for d in retrieved.ravel()]),
        "score": scores.ravel(),
        "qrels_qid": np.repeat(qids, [j.size for j in judged]),
        "qrels_docid_int": np.concatenate(judged),
        "qrels_rel": np.concatenate(rels),
    }
    data["qrels_docid"] = np.array([f"doc{d}" for d in data["qrels_docid_int"]])
    run_dict: dict[str, dict[str, float]] = {}
    for q, d, s in zip(data["qid"].tolist(), data["docid"].tolist(), data["score"].tolist(),
                       strict=True):
        run_dict.setdefault(q, {})[d] = s
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in zip(data["qrels_qid"].tolist(), data["qrels_docid"].tolist(),
                       data["qrels_rel"].tolist(), strict=True):
        qrels_dict.setdefault(q, {})[d] = r
    data["run_dict"], data["qrels_dict"] = run_dict, qrels_dict
    return data


def rounds(contenders: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]],
           repeat: int) -> dict[str, list[float]]:
    """Time ``fn(setup())`` per contender, ``repeat`` interleaved rounds (setup untimed)."""
    names = list(contenders)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        for name in names[r % len(names):] + names[: r % len(names)]:
            setup, fn = contenders[name]
            prepared = setup()
            seconds, _ = common.timed(lambda prepared=prepared, fn=fn: fn(prepared))
            times[name].append(seconds)
    return times


def check_agreement(data: dict[str, Any], expected: dict[str, dict[str, float]],
                    got: dict[str, dict[str, float]], label: str, exact: bool) -> str:
    worst = 0.0
    for qid, values in expected.items():
        for name, value in values.items():
            worst = max(worst, abs(got[qid][name] - value))
    if exact and worst != 0.0:
        raise AssertionError(f"{label} differs from pytrec_eval by {worst}")
    return "identical" if worst == 0.0 else f"max |diff| {worst:.1e}"


def api_benchmark(data: dict[str, Any], repeat: int) -> list[list[Any]]:
    import pytrec_eval
    from ranx import Qrels as RanxQrels
    from ranx import Run as RanxRun
    from ranx import evaluate as ranx_evaluate

    qrels_str = Qrels.from_arrays(data["qrels_qid"], data["qrels_docid"], data["qrels_rel"])
    qrels_int = Qrels.from_arrays(data["qrels_qid"], data["qrels_docid_int"], data["qrels_rel"])
    evaluator = pytrec_eval.RelevanceEvaluator(data["qrels_dict"], PYTREC_MEASURES)
    ranx_qrels = RanxQrels(data["qrels_dict"])
    metrics = list(RANX_METRICS.values())

    def rankeval_str(_: Any) -> Any:
        run = Run.from_arrays(data["qid"], data["docid"], data["score"])
        return evaluate_run(qrels_str, run, MEASURES)

    def rankeval_int(_: Any) -> Any:
        run = Run.from_arrays(data["qid"], data["docid_int"], data["score"])
        return evaluate_run(qrels_int, run, MEASURES)

    prebuilt = Run.from_arrays(data["qid"], data["docid"], data["score"])
    sorted_ranx = RanxRun(data["run_dict"])
    import pandas as pd

    # The forms IR users pass: pytrec_eval's dicts (both of them, as pytrec_eval is given
    # them), and pandas tables with object-dtype ids.
    run_frame = pd.DataFrame({"query_id": data["qid"].astype(object),
                              "doc_id": data["docid"].astype(object), "score": data["score"]})
    qrels_frame = pd.DataFrame({"query_id": data["qrels_qid"].astype(object),
                                "doc_id": data["qrels_docid"].astype(object),
                                "relevance": data["qrels_rel"]})

    def rankeval_dicts(_: Any) -> Any:
        return evaluate_run(data["qrels_dict"], data["run_dict"], MEASURES)

    def rankeval_frames(_: Any) -> Any:
        return evaluate_run(qrels_frame, run_frame, MEASURES)

    def ranx_run(run: Any) -> Any:
        return ranx_evaluate(ranx_qrels, run, metrics)

    contenders: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
        "rankeval, str ids: Run.from_arrays + evaluate_run": (lambda: None, rankeval_str),
        "rankeval, int ids: Run.from_arrays + evaluate_run": (lambda: None, rankeval_int),
        "rankeval, prebuilt Run: evaluate_run": (
            lambda: prebuilt, lambda run: evaluate_run(qrels_str, run, MEASURES)),
        "rankeval from dicts: evaluate_run(qrels dict, run dict)": (lambda: None,
                                                                    rankeval_dicts),
        "rankeval from pandas (object ids): evaluate_run": (lambda: None, rankeval_frames),
        "pytrec_eval-terrier: evaluate(run dict)": (
            lambda: data["run_dict"], evaluator.evaluate),
        "ranx: evaluate(fresh Run)": (lambda: RanxRun(data["run_dict"]), ranx_run),
        "ranx: evaluate(sorted Run)": (lambda: sorted_ranx, ranx_run),
    }
    # Warm-up (numba compilation, qrels indexes) and agreement check.
    expected = evaluator.evaluate(data["run_dict"])
    agreement = {
        "rankeval, str ids: Run.from_arrays + evaluate_run":
            check_agreement(data, expected, rankeval_str(None).to_dict(), "rankeval", True),
        "rankeval, int ids: Run.from_arrays + evaluate_run":
            check_agreement(data, expected, rankeval_int(None).to_dict(), "rankeval int", True),
        "rankeval, prebuilt Run: evaluate_run": "identical",
        "rankeval from dicts: evaluate_run(qrels dict, run dict)":
            check_agreement(data, expected, rankeval_dicts(None).to_dict(), "dicts", True),
        "rankeval from pandas (object ids): evaluate_run":
            check_agreement(data, expected, rankeval_frames(None).to_dict(), "pandas", True),
        "pytrec_eval-terrier: evaluate(run dict)": "(reference)",
    }
    warm = RanxRun(data["run_dict"])
    ranx_evaluate(ranx_qrels, warm, metrics)
    ranx_values = {q: {name: float(warm.scores[metric][q]) for name, metric in
                       RANX_METRICS.items()} for q in expected}
    ranx_note = check_agreement(data, expected, ranx_values, "ranx", False)
    agreement["ranx: evaluate(fresh Run)"] = ranx_note
    agreement["ranx: evaluate(sorted Run)"] = ranx_note
    ranx_evaluate(ranx_qrels, sorted_ranx, metrics)

    times = rounds(contenders, repeat)
    main = common.median(times["rankeval, str ids: Run.from_arrays + evaluate_run"])
    rows = []
    for name, values in times.items():
        t = common.median(values)
        rows.append([name, common.fmt_seconds(t), common.fmt_seconds(min(values)),
                     common.ratio(t, main), agreement[name]])
    return rows


def write_files(data: dict[str, Any], docs: int, folder: str, sep: str) -> tuple[str, str]:
    """The run (``docs`` a query, fields separated by ``sep``) and qrels of ``data`` as TREC
    files in ``folder``: their paths."""
    run_path, qrels_path = os.path.join(folder, "run.txt"), os.path.join(folder, "qrels.txt")
    rank = np.tile(np.arange(1, docs + 1), data["qid"].size // docs)
    with open(run_path, "w") as out:
        out.writelines(sep.join((q, "Q0", d, str(r), f"{s:.6f}", "STANDARD")) + "\n"
                       for q, d, r, s in zip(data["qid"].tolist(), data["docid"].tolist(),
                                             rank.tolist(), data["score"].tolist(),
                                             strict=True))
    with open(qrels_path, "w") as out:
        out.writelines(f"{q} 0 {d} {r}\n" for q, d, r in zip(
            data["qrels_qid"].tolist(), data["qrels_docid"].tolist(),
            data["qrels_rel"].tolist(), strict=True))
    return run_path, qrels_path


def cli_benchmark(queries: int, docs: int, repeat: int) -> list[list[Any]]:
    import pytrec_eval

    data = make_data(queries, docs, seed=common.SEED + 1)
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = write_files(data, docs, tmp, "\t")
        lines = queries * docs
        size_mb = os.path.getsize(run_path) / 1e6

        def rankeval_cli(_: Any) -> str:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                status = trec_cli.main([qrels_path, run_path])
            assert status == 0
            return out.getvalue()

        def pytrec(_: Any) -> Any:
            with open(qrels_path) as f:
                qrels = pytrec_eval.parse_qrel(f)
            with open(run_path) as f:
                run = pytrec_eval.parse_run(f)
            return pytrec_eval.RelevanceEvaluator(qrels, OFFICIAL_PYTREC).evaluate(run)

        rankeval_cli(None)
        report = {line.split("\t")[0].strip(): line.split("\t")[2]
                  for line in rankeval_cli(None).splitlines()}
        values = pytrec(None)
        mean_map = statistics.fmean(v["map"] for v in values.values())
        agree = f"{float(report['map']):.4f}" == f"{mean_map:.4f}"
        contenders: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
            f"rankeval trec (in-process, {lines:,} lines, {size_mb:.0f} MB)": (
                lambda: None, rankeval_cli),
            "pytrec_eval parse_qrel + parse_run + evaluate": (lambda: None, pytrec),
        }
        times = rounds(contenders, repeat)
        # The same two, each in a fresh interpreter (imports, first-touch memory included).
        fresh = {
            "rankeval": "import sys; from rankeval.ranking.trec_cli import main; "
                        "sys.exit(main(sys.argv[1:]))",
            "pytrec_eval": "import sys, pytrec_eval; q = pytrec_eval.parse_qrel(open(sys.argv[1]));"
                           " r = pytrec_eval.parse_run(open(sys.argv[2]));"
                           f" pytrec_eval.RelevanceEvaluator(q, {sorted(OFFICIAL_PYTREC)!r})"
                           ".evaluate(r)",
        }
        process_times: dict[str, list[float]] = {name: [] for name in fresh}
        for r in range(max(2, repeat // 2)):
            for name in list(fresh)[r % 2:] + list(fresh)[: r % 2]:
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", fresh[name], qrels_path, run_path],
                               check=True, stdout=subprocess.DEVNULL)
                process_times[name].append(time.perf_counter() - start)
    main = common.median(times[next(iter(times))])
    rows = []
    for name, values in times.items():
        t = common.median(values)
        rows.append([name, common.fmt_seconds(t), common.fmt_seconds(min(values)),
                     common.ratio(t, main), "map agrees to 4 decimals" if agree else "MAP DIFFERS"])
    labels = {"rankeval": "rankeval trec (new process each time)",
              "pytrec_eval": "pytrec_eval parse + evaluate (new process each time)"}
    for name, values in process_times.items():
        t = common.median(values)
        rows.append([labels[name], common.fmt_seconds(t), common.fmt_seconds(min(values)),
                     common.ratio(t, main), ""])
    return rows


def main() -> int:
    parser = common.parser(__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    queries, docs = (500, 100) if args.quick else (10_000, 100)
    repeat = 3 if args.quick else args.repeat
    common.header("bench_ranking: many queries, trec_eval measures", "pytrec-eval-terrier",
                  "ranx", "numba")

    print(f"1. Python API: {queries:,} queries x {docs} documents, measures {MEASURES}")
    print(f"   median of {repeat} interleaved repeats; ratio = time / rankeval (str ids)\n")
    data = make_data(queries, docs)
    rows = api_benchmark(data, repeat)
    common.print_table(["contender", "median", "best", "vs rankeval", "values vs pytrec_eval"],
                       rows)
    medians = {row[0]: row for row in rows}
    ours = [r for r in rows if r[0].startswith("rankeval,")]
    for peer in ("pytrec_eval-terrier: evaluate(run dict)", "ranx: evaluate(fresh Run)",
                 "ranx: evaluate(sorted Run)"):
        for mine in ours:
            speedup = _seconds(medians[peer][1]) / _seconds(mine[1])
            print(f"   {mine[0]:<52} vs {peer:<40} {speedup:5.2f}x faster "
                  f"(target >= {TARGET:.0f}x: {common.verdict(speedup >= TARGET)})")
    # The input forms users pass, each against the peer it replaces, with its own target.
    for mine, peer, target in (
            ("rankeval from dicts: evaluate_run(qrels dict, run dict)",
             "pytrec_eval-terrier: evaluate(run dict)", 1.5),
            ("rankeval from pandas (object ids): evaluate_run", "ranx: evaluate(sorted Run)",
             2.0)):
        speedup = _seconds(medians[peer][1]) / _seconds(medians[mine][1])
        print(f"   {mine:<52} vs {peer:<40} {speedup:5.2f}x faster "
              f"(target >= {target:g}x: {common.verdict(speedup >= target)})")
    print()

    cli_queries = 500 if args.quick else 10_000
    print(f"2. Command line: {cli_queries * docs:,}-line run file, trec_eval's default "
          "(official) measures, end to end\n")
    cli_rows = cli_benchmark(cli_queries, docs, repeat)
    common.print_table(["contender", "median", "best", "vs rankeval", "check"], cli_rows)
    speedup = _seconds(cli_rows[1][1]) / _seconds(cli_rows[0][1])
    fresh_speedup = _seconds(cli_rows[3][1]) / _seconds(cli_rows[2][1])
    print(f"   rankeval trec is {speedup:.2f}x faster end to end than pytrec_eval's parse + "
          f"evaluate in-process, {fresh_speedup:.2f}x in fresh processes "
          f"(target > 1x: {common.verdict(min(speedup, fresh_speedup) > 1)})")
    print()

    sizes = [1_000, 10_000] if args.quick else [10_000, 100_000, 1_000_000]
    print(f"3. Cost per query as the queries grow: {sizes} queries x 10 documents (10 judged, "
          "5 of them retrieved), NumPy arrays with str ids, the same measures; first call "
          f"and best of {min(repeat, 3)}\n")
    growth(sizes, 10, min(repeat, 3))
    return 0


def growth_data(queries: int, docs: int, seed: int = common.SEED) -> dict[str, Any]:
    """Columns only (no dicts): ``docs`` retrieved a query and as many judged, half of them
    retrieved."""
    rng = np.random.default_rng(seed)
    qids = np.char.add("q", np.arange(queries).astype(str))
    retrieved = rng.integers(0, 10**9, (queries, docs))
    judged = np.concatenate((retrieved[:, : docs // 2],
                             rng.integers(10**9, 2 * 10**9, (queries, docs - docs // 2))),
                            axis=1)
    return {"qid": np.repeat(qids, docs),
            "docid": np.char.add("doc", retrieved.ravel().astype(str)),
            "score": np.round(rng.random(queries * docs), 6),
            "qrels_docid": np.char.add("doc", judged.ravel().astype(str)),
            "qrels_rel": rng.integers(0, 3, queries * docs)}


def growth(sizes: list[int], docs: int, repeat: int) -> None:
    """Cost per query from arrays as the queries grow: build (Qrels and Run) and evaluate,
    the first call of the process and the best of ``repeat``."""
    rows, per_query = [], {}
    for queries in sizes:
        data = growth_data(queries, docs)
        times: dict[str, list[float]] = {"build": [], "evaluate": []}
        for _ in range(repeat):
            gc.collect()
            start = time.perf_counter()
            qrels = Qrels.from_arrays(data["qid"], data["qrels_docid"], data["qrels_rel"])
            run = Run.from_arrays(data["qid"], data["docid"], data["score"])
            built = time.perf_counter()
            evaluate_run(qrels, run, MEASURES)
            times["build"].append(built - start)
            times["evaluate"].append(time.perf_counter() - built)
            del qrels, run
        best = {step: min(values) / queries * 1e6 for step, values in times.items()}
        first = {step: values[0] / queries * 1e6 for step, values in times.items()}
        per_query[queries] = best["build"] + best["evaluate"]
        rows.append([f"{queries:,}", f"{first['build']:.2f}", f"{best['build']:.2f}",
                     f"{first['evaluate']:.2f}", f"{best['evaluate']:.2f}"])
        del data
    common.print_table(["queries", "build, first (us/query)", "build, best",
                        "evaluate, first", "evaluate, best"], rows)
    small, large = sizes[-2], sizes[-1]
    ratio = per_query[large] / per_query[small]
    print(f"   best build + evaluate per query at {large:,} queries / at {small:,}: "
          f"{ratio:.2f}x (target <= 1.25x, flat: {common.verdict(ratio <= 1.25)})")


def _seconds(text: str) -> float:
    value, unit = text.split()
    return float(value) * {"s": 1.0, "ms": 1e-3, "us": 1e-6}[unit]


if __name__ == "__main__":
    sys.exit(main())
