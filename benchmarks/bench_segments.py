"""Many segments: SegmentedEvaluation in one process, and per-group evaluation on Spark, each
against what users write today, in the same run.

Questions:

* one process: 10^6 cases in 10^4 and 10^5 segments. How long do ``add_cases`` and every
  segment's ROC area and AP take, against pandas ``groupby`` and scikit-learn's
  ``roc_auc_score`` / ``average_precision_score`` per group? Is the memory held O(cases +
  segments) (the same bytes a segment and a case at both sizes)?
* Spark: 10^7 rows in 1,000 groups. ``rankeval.spark.evaluate(df, group_col=)`` (exact
  reports, no group collected) against ``groupBy(...).applyInPandas`` with scikit-learn.

``--quick``: 10^5 cases in 10^3 segments; Spark 10^5 rows in 20 groups.
"""

from __future__ import annotations

import gc
import math
import tempfile
import tracemalloc
import warnings
from typing import Any

import _common as common
import numpy as np

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.scored.segments import SegmentedEvaluation


def data(n: int, segments: int, seed: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, segments, n)
    labels = rng.random(n) < 0.3
    scores = np.round(rng.normal(labels.astype(float), 1.0), 3)  # ties
    return keys, labels, scores


def ours(keys: np.ndarray, labels: np.ndarray, scores: np.ndarray) -> dict[Any, tuple[float, ...]]:
    seg = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
    seg.add_cases(keys, labels, scores)
    return {key: (ev.area_under_roc_curve(), ev.average_precision()) for key, ev in seg.items()}


def theirs(keys: np.ndarray, labels: np.ndarray, scores: np.ndarray
           ) -> dict[Any, tuple[float, ...]]:
    import pandas as pd
    from sklearn.metrics import average_precision_score, roc_auc_score

    frame = pd.DataFrame({"segment": keys, "label": labels, "score": scores})
    out = {}
    for key, group in frame.groupby("segment", sort=False):
        y, s = group["label"].to_numpy(), group["score"].to_numpy()
        if y.all() or not y.any():  # scikit-learn raises (one class): NaN, as ours
            out[key] = (math.nan, average_precision_score(y, s) if y.any() else math.nan)
            continue
        out[key] = (roc_auc_score(y, s), average_precision_score(y, s))
    return out


def worst_difference(a: dict[Any, tuple[float, ...]], b: dict[Any, tuple[float, ...]]) -> float:
    assert set(a) == set(b)
    worst = 0.0
    for key, values in a.items():
        for x, y in zip(values, b[key], strict=True):
            if not (math.isnan(x) and math.isnan(y)):
                worst = max(worst, abs(x - y))
    return worst


def held_bytes(keys: np.ndarray, labels: np.ndarray, scores: np.ndarray) -> int:
    gc.collect()
    tracemalloc.start()
    seg = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="grouped"))
    seg.add_cases(keys, labels, scores)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del seg
    return held


def one_process(n: int, sizes: list[int]) -> None:
    rows, memory = [], []
    for segments in sizes:
        cases = data(n, segments)
        times = common.interleaved({"rankeval": lambda c=cases: ours(*c),
                                    "pandas + scikit-learn": lambda c=cases: theirs(*c)}, 1)
        mine = common.median(times["rankeval"])
        peer = common.median(times["pandas + scikit-learn"])
        worst = worst_difference(ours(*cases), theirs(*cases))
        rows.append([f"{n:,}", f"{segments:,}", common.fmt_seconds(mine),
                     common.fmt_seconds(peer), common.ratio(peer, mine), f"{worst:.1e}"])
        memory.append((segments, held_bytes(*cases)))
    print("add_cases + each segment's ROC area and AP, against pandas groupby + scikit-learn")
    common.print_table(["cases", "segments", "rankeval", "pandas + scikit-learn", "speed-up",
                        "max |diff|"], rows)
    (s1, m1), (s2, m2) = memory[0], memory[-1]
    per_segment = (m2 - m1) / (s2 - s1)  # the same cases: the difference is the segments'
    per_case = (m1 - per_segment * s1) / n
    print("Memory held after add_cases (tracemalloc): the same cases in more segments")
    common.print_table(["segments", "bytes held", "bytes per segment (fit)",
                        "bytes per case (fit)"],
                       [[f"{s:,}", f"{m:,}", f"{per_segment:,.0f}", f"{per_case:,.1f}"]
                        for s, m in memory])


SPARK_ROUNDS = 5


def spark_groups(n: int, groups: int) -> None:
    import pandas as pd
    from pyspark.sql import functions as F  # noqa: N812

    from rankeval import spark as rs

    session = rs.session("local[2]", "bench", **{"spark.driver.memory": "8g",
                                                  "spark.sql.shuffle.partitions": "8",
                                                  "spark.ui.showConsoleProgress": "false"})
    session.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as folder:
        label = F.rand(2) < 0.3
        (session.range(n, numPartitions=8)
         .select((F.col("id") % groups).alias("g"), label.alias("label"))
         .withColumn("score", F.round(F.randn(3) + F.col("label").cast("double"), 3))
         .write.parquet(folder + "/t"))
        df = session.read.parquet(folder + "/t")

        def ours_spark() -> dict[Any, float]:
            reports = rs.evaluate(df, group_col="g")
            return {g: r.area_under_roc_curve() for g, r in reports.items()}

        def theirs_spark() -> dict[Any, float]:
            def per_group(frame: pd.DataFrame) -> pd.DataFrame:
                from sklearn.metrics import average_precision_score, roc_auc_score

                y, s = frame["label"].to_numpy(), frame["score"].to_numpy()
                return pd.DataFrame({"g": [frame["g"].iloc[0]],
                                     "auc": [roc_auc_score(y, s)],
                                     "ap": [average_precision_score(y, s)]})

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = (df.groupBy("g").applyInPandas(per_group, "g long, auc double, ap double")
                       .collect())
            return {row["g"]: row["auc"] for row in out}

        # One untimed run each first: the first job of a session pays the JVM's warm-up,
        # whichever contender it is.
        a, b = ours_spark(), theirs_spark()
        times = common.interleaved({"rankeval": ours_spark, "applyInPandas": theirs_spark},
                                   SPARK_ROUNDS)
        worst = max(abs(a[g] - b[g]) for g in b)
    mine, peer = common.median(times["rankeval"]), common.median(times["applyInPandas"])
    print("Spark, local[2]: every group's report against groupBy + applyInPandas with "
          "scikit-learn (ROC area and AP a group)")
    common.print_table(["rows", "groups", "rankeval.spark evaluate(group_col=)",
                        "applyInPandas + scikit-learn", "speed-up", "max |diff| (ROC area)"],
                       [[f"{n:,}", f"{groups:,}", common.fmt_seconds(mine),
                         common.fmt_seconds(peer), common.ratio(peer, mine), f"{worst:.1e}"]])
    session.stop()


def main() -> None:
    args = common.parser(__doc__.splitlines()[0]).parse_args()
    common.header("Segments: one process and Spark groups", "scikit-learn", "pandas", "pyspark")
    if args.quick:
        one_process(100_000, [100, 1_000])
        spark_groups(100_000, 20)
    else:
        one_process(1_000_000, [10_000, 100_000])
        spark_groups(10_000_000, 1_000)
    print(f"Spark: one untimed run each, then the median of {SPARK_ROUNDS} interleaved rounds; "
          "the rankeval reports are exact, bit for bit a local evaluator's per group.")


if __name__ == "__main__":
    main()
