"""Decisions: the best threshold and the gains table at 10^7 cases, against one ROC read and
against the peer code that gives the same answer.

Questions, each on an evaluator freshly filled with the same cases (so every contender pays
the sort):

1. ``best_threshold("youden")`` and ``gains_table(10)`` against one ``roc_curve()`` read:
   target within 2x (the decision reads are O(distinct scores) after the sort they share).
2. The same answers from the peers: scikit-learn's ``roc_curve`` and NumPy's
   ``argmax(tpr - fpr)`` for Youden's threshold; a pandas decile table (sort, equal-count
   groups by rank, ``groupby`` sums) for the gains table. Target: rankeval >= 5x faster,
   its time including ``add_cases``.

Continuous scores, and scores rounded to 2 decimals (ties). ``--quick``: 10^5 cases.
"""

from __future__ import annotations

from typing import Any

import _common as common
import numpy as np

from rankeval import ScoredPrecisionRecallEvaluation


def filled(labels: np.ndarray, scores: np.ndarray) -> ScoredPrecisionRecallEvaluation:
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(labels, scores)
    return ev


def sklearn_youden(labels: np.ndarray, scores: np.ndarray) -> float:
    from sklearn.metrics import roc_curve

    fpr, tpr, thresholds = roc_curve(labels, scores)
    return float(thresholds[int(np.argmax(tpr - fpr))])


def pandas_deciles(labels: np.ndarray, scores: np.ndarray) -> Any:
    import pandas as pd

    frame = pd.DataFrame({"label": labels, "score": scores}).sort_values(
        "score", ascending=False, kind="stable")
    n = len(frame)
    frame["group"] = np.ceil(np.arange(1, n + 1) * 10 / n).astype(np.int64)
    table = frame.groupby("group").agg(cases=("label", "size"), positives=("label", "sum"),
                                       threshold=("score", "min"))
    table["cumulative_capture"] = table["positives"].cumsum() / labels.sum()
    table["lift"] = table["positives"] / table["cases"] / labels.mean()
    return table


def main() -> None:
    args = common.parser(__doc__.splitlines()[0], data="both").parse_args()
    n = 100_000 if args.quick else 10_000_000
    repeat = 1 if args.quick else 5
    common.header(f"Decisions at {n:,} cases: best threshold and gains table",
                  "scikit-learn", "pandas")
    rows = []
    for label, ties in common.data_variants(args.data):
        labels, scores = common.make_cases(n, ties=ties)
        # the same answer: Youden's threshold (the peer's roc_curve drops collinear points,
        # which never holds the maximum alone)
        ours_j = filled(labels, scores).best_threshold("youden")
        assert abs(ours_j.value - _j_at(labels, scores, sklearn_youden(labels, scores))) < 1e-12
        def fresh(read: str, labels: np.ndarray = labels,
                  scores: np.ndarray = scores) -> Any:
            return getattr(filled(labels, scores), read)

        def added(read: str, labels: np.ndarray = labels, scores: np.ndarray = scores) -> Any:
            return lambda: getattr(filled(labels, scores), read)()

        def theirs(function: Any, labels: np.ndarray = labels,
                 scores: np.ndarray = scores) -> Any:
            return lambda: function(labels, scores)

        times = common.interleaved_prepared({
            "roc_curve()": lambda: fresh("roc_curve"),
            "best_threshold": lambda: fresh("best_threshold"),
            "gains_table": lambda: fresh("gains_table"),
            "add + best_threshold": lambda: added("best_threshold"),
            "add + gains_table": lambda: added("gains_table"),
            "scikit-learn roc_curve + argmax": lambda: theirs(sklearn_youden),
            "pandas decile table": lambda: theirs(pandas_deciles),
        }, repeat)
        t = {name: common.median(values) for name, values in times.items()}
        roc = t["roc_curve()"]
        for name, peer in (("best_threshold", "scikit-learn roc_curve + argmax"),
                           ("gains_table", "pandas decile table")):
            rows.append([label, name, common.fmt_seconds(t[name]), common.ratio(t[name], roc),
                         "<= 2x", common.verdict(t[name] <= 2 * roc),
                         common.fmt_seconds(t["add + " + name]), peer,
                         common.fmt_seconds(t[peer]), common.ratio(t[peer], t["add + " + name]),
                         ">= 5x", common.verdict(t[peer] >= 5 * t["add + " + name])])
    common.print_table(
        ["data", "read", "read (sort incl.)", "vs roc_curve()", "target", "verdict",
         "add_cases + read", "peer", "peer time", "speed-up", "target", "verdict"], rows)
    print("median of interleaved repeats; every read on a freshly filled evaluator (its sort "
          "included); the speed-up compares add_cases + the read with the peer's call.")


def _j_at(labels: np.ndarray, scores: np.ndarray, threshold: float) -> float:
    predicted = scores >= threshold
    return float(np.mean(predicted[labels]) - np.mean(predicted[~labels]))


if __name__ == "__main__":
    main()
