"""Past one machine: rankeval.spark and rankeval.dask against the engines' own evaluators.

Question: on a table in Parquet (the data lake), how long does an exact evaluation take on
Spark (local[2]) and Dask (a LocalCluster of 2 workers), how much memory does the Python
driver hold, and how far from the exact value is each engine's own evaluator?

Contenders, each in a fresh process (the time is the evaluation call alone, after the
engine has started; the first job of a fresh JVM included, as a batch job pays it). Each
contender runs ``--repeat`` times (default 3), the rounds interleaved with the order rotated,
and its median time is shown; a contender whose first run takes over a minute runs once
(its ratio is far from 1 either way). The memory columns are the highest of its runs.

* scored table (``--rows``, 10 % positives; scores rounded to 3 decimals, and continuous
  scores, ``--data``): rankeval.spark ``evaluate`` (ROC
  area, AP and a 1,000-point PR curve), Spark ML's ``BinaryClassificationEvaluator``
  (default: 1,000 bins; ROC area and its ``areaUnderPR``), MLlib's
  ``BinaryClassificationMetrics`` as PySpark's class builds it (1,000 bins) and in its
  exact mode (numBins=0, which only the Scala constructor offers; JVM only, no Python rows),
  rankeval.dask ``evaluate``, and scikit-learn on one machine (``roc_auc_score`` and
  ``average_precision_score`` on the arrays read from the Parquet file);
* run table (``--queries`` times 1,000 documents, 200 judgments a query): rankeval.spark
  ``evaluate_run`` (map, ndcg_cut_10, P_10), MLlib's ``RankingMetrics`` (lists built in
  Spark SQL, JVM only), rankeval.dask ``evaluate_run``, and the local ``evaluate_run``.

The exact values come from the local ``ScoredPrecisionRecallEvaluation(ties="grouped")``
and ``evaluate_run`` on the same arrays; the error column is each contender's distance
from them (Spark's ``areaUnderPR`` is a trapezoid over its PR curve, not AP: its error is
measured against AP, which is what it is used for). ``driver MB`` is the peak resident set
of the Python driver process; ``engine MB`` the peak of its child processes together (the
JVM, driver and executors in local mode, and Spark's Python workers or Dask's workers).

    python bench_engines.py                       # 10M-row scored table, 10M-row run
    python bench_engines.py --scaling 1000000,10000000,100000000 --only rankeval.spark
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import git_commit, machine_line, make_cases  # noqa: E402

SCORED = ("rankeval.spark", "spark BinaryClassificationEvaluator",
          "spark BinaryClassificationMetrics (pyspark)",
          "spark BinaryClassificationMetrics (numBins=0)", "rankeval.dask", "sklearn (one machine)")
RANKING = ("rankeval.spark evaluate_run", "spark RankingMetrics", "rankeval.dask evaluate_run",
           "rankeval evaluate_run (one machine)")
MEASURES = ["map", "ndcg_cut.10", "P.10"]


# ---------------------------------------------------------------------------------------------
# data


def write_scored(path: Path, rows: int, ties: bool) -> None:
    """Scores of a classifier, 10 % positives, in 1M-row groups; ``ties``: three decimals."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    for start in range(0, rows, 1_000_000):
        count = min(1_000_000, rows - start)
        labels, scores = make_cases(count, seed=start + 1)
        labels = np.random.default_rng(start).random(count) < np.where(labels, 0.25, 0.04)
        table = pa.table({"score": np.round(scores, 3) if ties else scores, "label": labels})
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    assert writer is not None
    writer.close()


def write_run(qrels_path: Path, run_path: Path, queries: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    docs = np.array([f"d{i}" for i in range(5000)])
    q_ids = np.array([f"q{i}" for i in range(queries)])
    run_q = np.repeat(q_ids, 1000)
    run_d = np.concatenate([docs[rng.choice(5000, 1000, replace=False)] for _ in range(queries)])
    qrels_d = np.concatenate([rng.choice(run_d[i * 1000:(i + 1) * 1000], 200, replace=False)
                              for i in range(queries)])
    pq.write_table(pa.table({"query_id": np.repeat(q_ids, 200), "doc_id": qrels_d,
                             "relevance": rng.choice(4, 200 * queries, p=[0.7, 0.15, 0.1,
                                                                            0.05])}),
                   qrels_path)
    pq.write_table(pa.table({"query_id": run_q, "doc_id": run_d,
                             "score": np.round(rng.random(1000 * queries), 4)}), run_path)


# ---------------------------------------------------------------------------------------------
# children


def _spark() -> Any:
    from rankeval.spark import session

    spark = session("local[2]", "bench", **{"spark.driver.memory": "8g",
                                             "spark.sql.shuffle.partitions": "8"})
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _dask() -> Any:
    from dask.distributed import Client, LocalCluster

    return Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                               memory_limit="8GiB"))


def scored_child(name: str, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if name.startswith("spark") or name == "rankeval.spark":
        spark = _spark()
        df = spark.read.parquet(path)
        start = time.perf_counter()
        if name == "rankeval.spark":
            from rankeval import spark as rs

            report = rs.evaluate(df)
            out = {"auc": report.area_under_roc_curve(), "ap": report.average_precision(),
                   "curve_rows": int(report.pr_curve().shape[0])}
        elif name == "spark BinaryClassificationEvaluator":
            from pyspark.ml.evaluation import BinaryClassificationEvaluator
            from pyspark.sql import functions as F  # noqa: N812

            table = df.select("score", F.col("label").cast("double").alias("label"))
            ev = BinaryClassificationEvaluator(rawPredictionCol="score", labelCol="label")
            out = {"auc": ev.evaluate(table, {ev.metricName: "areaUnderROC"}),
                   "ap": ev.evaluate(table, {ev.metricName: "areaUnderPR"})}
        else:
            from pyspark.sql import functions as F  # noqa: N812

            table = df.select("score", F.col("label").cast("double").alias("label"))
            jvm = spark.sparkContext._jvm
            metrics_class = jvm.org.apache.spark.mllib.evaluation.BinaryClassificationMetrics
            if name.endswith("(pyspark)"):
                # What pyspark.mllib's wrapper makes (its Dataset constructor: 1,000 bins),
                # without first sending every row through Python.
                metrics = metrics_class(table._jdf)
            else:
                # The exact mode, numBins=0, which PySpark does not offer: the Scala
                # constructor on an RDD of (score, label) tuples from a typed Dataset.
                encoders = jvm.org.apache.spark.sql.Encoders
                pairs = table._jdf.__getattr__("as")(
                    encoders.tuple(encoders.scalaDouble(), encoders.scalaDouble())).rdd()
                metrics = metrics_class(pairs, 0)
            out = {"auc": metrics.areaUnderROC(), "ap": metrics.areaUnderPR()}
        out["seconds"] = time.perf_counter() - start
        spark.stop()
    elif name == "rankeval.dask":
        import dask.dataframe as dd

        from rankeval import dask as rd

        client = _dask()
        df = dd.read_parquet(path, split_row_groups=True)
        start = time.perf_counter()
        report = rd.evaluate(df)
        out = {"auc": report.area_under_roc_curve(), "ap": report.average_precision(),
               "curve_rows": int(report.pr_curve().shape[0]),
               "seconds": time.perf_counter() - start}
        client.close()
    else:
        import pyarrow.parquet as pq
        from sklearn.metrics import average_precision_score, roc_auc_score

        start = time.perf_counter()
        table = pq.read_table(path)
        scores, labels = table["score"].to_numpy(), table["label"].to_numpy()
        out = {"auc": float(roc_auc_score(labels, scores)),
               "ap": float(average_precision_score(labels, scores)),
               "seconds": time.perf_counter() - start}
    return out


def ranking_child(name: str, qrels_path: str, run_path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if name in ("rankeval.spark evaluate_run", "spark RankingMetrics"):
        spark = _spark()
        qrels, run = spark.read.parquet(qrels_path), spark.read.parquet(run_path)
        start = time.perf_counter()
        if name == "rankeval.spark evaluate_run":
            from rankeval import spark as rs

            result = rs.evaluate_run(qrels, run, MEASURES)
            out = {k: result[k] for k in ("map", "ndcg_cut_10", "P_10")}
        else:
            from pyspark.mllib.common import callMLlibFunc
            from pyspark.sql import functions as F  # noqa: N812

            predicted = run.groupBy("query_id").agg(
                F.sort_array(F.collect_list(F.struct((-F.col("score")).alias("s"),
                                                     F.col("doc_id").alias("d"))))
                .alias("ranked")).select("query_id", F.expr("transform(ranked, x -> x.d)")
                                         .alias("predicted"))
            relevant = qrels.where("relevance > 0").groupBy("query_id").agg(
                F.collect_list("doc_id").alias("relevant"))
            table = predicted.join(relevant, "query_id").select("predicted", "relevant")
            metrics = callMLlibFunc("newRankingMetrics", table._jdf)
            out = {"map": metrics.meanAveragePrecision(), "ndcg_cut_10": metrics.ndcgAt(10),
                   "P_10": metrics.precisionAt(10)}
        out["seconds"] = time.perf_counter() - start
        spark.stop()
    elif name == "rankeval.dask evaluate_run":
        import dask.dataframe as dd

        from rankeval import dask as rd

        client = _dask()
        start = time.perf_counter()
        result = rd.evaluate_run(dd.read_parquet(qrels_path), dd.read_parquet(run_path),
                                 MEASURES, buckets=8)
        out = {k: result[k] for k in ("map", "ndcg_cut_10", "P_10")}
        out["seconds"] = time.perf_counter() - start
        client.close()
    else:
        out = dict(_local_run(qrels_path, run_path))
    return out


def _local_run(qrels_path: str, run_path: str) -> dict[str, float]:
    import pyarrow.parquet as pq

    from rankeval.ranking import Qrels, Run, evaluate_run

    start = time.perf_counter()
    q, r = pq.read_table(qrels_path), pq.read_table(run_path)
    result = evaluate_run(
        Qrels.from_arrays(*(q[c].to_numpy() for c in ("query_id", "doc_id", "relevance"))),
        Run.from_arrays(*(r[c].to_numpy() for c in ("query_id", "doc_id", "score"))), MEASURES)
    out = {k: result[k] for k in ("map", "ndcg_cut_10", "P_10")}
    out["seconds"] = time.perf_counter() - start
    return out


def exact_scored(path: str) -> dict[str, float]:
    import pyarrow.parquet as pq

    from rankeval import ScoredPrecisionRecallEvaluation

    table = pq.read_table(path)
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev.add_cases(table["label"].to_numpy(), table["score"].to_numpy())
    return {"auc": ev.area_under_roc_curve(), "ap": ev.average_precision()}


class _PeakOfChildren:
    """Peak resident memory of this process's children (the JVM and the engine's workers)."""

    def __init__(self) -> None:
        import threading

        import psutil

        self.peak = 0
        self._me = psutil.Process()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.05):
            total = 0
            for child in self._me.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except Exception:  # a worker that just ended
                    continue
            self.peak = max(self.peak, total)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak / 2**20


def _peak_resident_mb() -> float:
    """This process's peak resident set (VmHWM): unlike ru_maxrss, it starts afresh at exec,
    so the parent's memory at fork time does not count."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def child_main(args: argparse.Namespace) -> None:
    watcher = _PeakOfChildren()
    if args.kind == "scored":
        out = scored_child(args.child, args.paths[0])
    elif args.kind == "ranking":
        out = ranking_child(args.child, args.paths[0], args.paths[1])
    else:
        out = exact_scored(args.paths[0])
    out["driver_mb"] = _peak_resident_mb()
    out["children_mb"] = watcher.stop()
    print("RESULT " + json.dumps(out))


def run_child(kind: str, name: str, paths: list[str]) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", name, "--kind", kind, *paths]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(json.loads(line[7:]))
    raise RuntimeError(f"{name} failed:\n{done.stderr[-3000:]}")


# ---------------------------------------------------------------------------------------------
# the parent

#: A contender whose first run takes longer runs once.
ONCE_AFTER = 60.0


def repeated(run: Callable[[str], dict[str, Any]], names: list[str], repeat: int
             ) -> dict[str, dict[str, Any]]:
    """Each contender's result over ``repeat`` rounds (the order rotated each round): the
    median seconds, the highest memory, and how many runs."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for r in range(repeat):
        for name in names[r % len(names):] + names[:r % len(names)]:
            if runs[name] and runs[name][0]["seconds"] > ONCE_AFTER:
                continue
            runs[name].append(run(name))
    out = {}
    for name, found in runs.items():
        out[name] = {**found[0], "seconds": statistics.median(r["seconds"] for r in found),
                     "driver_mb": max(r["driver_mb"] for r in found),
                     "children_mb": max(r["children_mb"] for r in found), "runs": len(found)}
    return out


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [_row(header, widths), _row(["-" * w for w in widths], widths)]
    return "\n".join(lines + [_row(r, widths) for r in rows])


def scored_section(rows: int, ties: bool, only: list[str] | None, folder: Path,
                   repeat: int) -> str:
    path = folder / f"scored_{rows}_{'ties' if ties else 'continuous'}.parquet"
    if not path.exists():
        write_scored(path, rows, ties)
    exact = run_child("exact", "exact", [str(path)])
    results = repeated(lambda name: run_child("scored", name, [str(path)]),
                       [name for name in SCORED if only is None or name in only], repeat)
    base = results.get("rankeval.spark")
    body = []
    for name, r in results.items():
        body.append([
            name, f"{r['seconds']:.1f}", str(r["runs"]),
            f"{r['seconds'] / base['seconds']:.2f}" if base else "",
            f"{r['driver_mb']:.0f}", f"{r['children_mb']:.0f}",
            f"{abs(r['auc'] - exact['auc']):.1e}", f"{abs(r['ap'] - exact['ap']):.1e}",
        ])
    kind = "scores rounded to 3 decimals (ties)" if ties else "continuous scores"
    return (f"scored table: {rows:,} rows, {kind}; exact ROC area {exact['auc']!r}, "
            f"AP {exact['ap']!r}\n"
            + _table(["contender", "seconds", "runs", "/ rankeval.spark", "driver MB",
                      "engine MB", "|ROC area - exact|", "|AP - exact|"], body))


def ranking_section(queries: int, only: list[str] | None, folder: Path, repeat: int) -> str:
    qrels, run = folder / f"qrels_{queries}.parquet", folder / f"run_{queries}.parquet"
    if not run.exists():
        write_run(qrels, run, queries)
    results = repeated(lambda name: run_child("ranking", name, [str(qrels), str(run)]),
                       [name for name in RANKING if only is None or name in only], repeat)
    exact = results.get("rankeval evaluate_run (one machine)") or run_child(
        "ranking", RANKING[-1], [str(qrels), str(run)])
    base = results.get("rankeval.spark evaluate_run")
    body = []
    for name, r in results.items():
        body.append([name, f"{r['seconds']:.1f}", str(r["runs"]),
                     f"{r['seconds'] / base['seconds']:.2f}" if base else "",
                     f"{r['driver_mb']:.0f}", f"{r['children_mb']:.0f}"]
                    + [f"{abs(r[m] - exact[m]):.1e}" for m in ("map", "ndcg_cut_10", "P_10")])
    return (f"run table: {queries * 1000:,} rows ({queries:,} queries), {queries * 200:,} "
            f"judgments; trec_eval values map {exact['map']:.6f}, ndcg_cut_10 "
            f"{exact['ndcg_cut_10']:.6f}, P_10 {exact['P_10']:.6f}\n"
            + _table(["contender", "seconds", "runs", "/ rankeval.spark", "driver MB",
                      "engine MB", "|map - exact|",
                      "|ndcg_cut_10 - exact|", "|P_10 - exact|"], body))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--scaling", default="", help="comma-separated row counts")
    parser.add_argument("--only", default="", help="comma-separated contender names")
    parser.add_argument("--no-ranking", action="store_true")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each contender (the median shown)")
    parser.add_argument("--data", choices=("ties", "continuous", "both"), default="both")
    parser.add_argument("--quick", action="store_true", help="smoke size: 200,000 rows, 200 "
                        "queries")
    parser.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(),
                                                           "rankeval-bench-engines"))
    parser.add_argument("--child")
    parser.add_argument("--kind")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    if args.child:
        child_main(args)
        return
    if args.quick:
        args.rows, args.queries = 200_000, 200
    folder = Path(args.data_dir)
    folder.mkdir(parents=True, exist_ok=True)
    only = [name.strip() for name in args.only.split(",")] if args.only else None
    print(f"commit: {git_commit()}")
    print(machine_line())
    print(f"command: python {' '.join(sys.argv)}")
    print(f"each contender: a fresh process, the median of {args.repeat} runs (rounds "
          f"interleaved); over {ONCE_AFTER:.0f} s at its first run, one run\n")
    variants = [True, False] if args.data == "both" else [args.data == "ties"]
    for rows in [int(r) for r in args.scaling.split(",")] if args.scaling else [args.rows]:
        for ties in variants:
            print(scored_section(rows, ties, only, folder, args.repeat) + "\n", flush=True)
    if not args.no_ranking and not args.scaling:
        print(ranking_section(args.queries, only, folder, args.repeat), flush=True)


if __name__ == "__main__":
    main()
