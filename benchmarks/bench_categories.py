"""Many categories: ScoredClassifierEvaluation against the scikit-learn calls that give the
same numbers, in the same run.

Question: at 10^6 cases x 10 categories, is ``add_cases`` + every summary (one-vs-rest ROC
area macro, weighted and micro; one-vs-one macro; AP macro and micro; top-1 and top-3
accuracy) at least 2x faster than scikit-learn's ``roc_auc_score`` / ``average_precision_score``
/ ``top_k_accuracy_score`` calls for the same values, and how much memory does the evaluator
hold per (case, category) cell (target <= 10 bytes)?

``--quick``: 20,000 cases x 5 categories.
"""

from __future__ import annotations

import gc
import tracemalloc

import _common as common
import numpy as np

from rankeval import ScoredClassifierEvaluation


def data(n: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    labels = rng.integers(0, c, n)
    raw = rng.random((n, c)) + 0.8 * np.eye(c)[labels]
    return labels, raw / raw.sum(axis=1, keepdims=True)


def ours(labels: np.ndarray, scores: np.ndarray) -> list[float]:
    names = [f"c{i}" for i in range(scores.shape[1])]
    ev = ScoredClassifierEvaluation(names)
    ev.add_cases(labels, scores)
    values = [ev.roc_auc(average=a) for a in ("macro", "weighted", "micro")]
    values.append(ev.roc_auc("ovo"))
    values += [ev.average_precision(a) for a in ("macro", "micro")]
    values += [ev.top_k_accuracy(1), ev.top_k_accuracy(3)]
    return [float(v) for v in values]  # type: ignore[arg-type]


def theirs(labels: np.ndarray, scores: np.ndarray) -> list[float]:
    from sklearn.metrics import average_precision_score, roc_auc_score, top_k_accuracy_score

    c = scores.shape[1]
    onehot = np.eye(c, dtype=bool)[labels]
    values = [roc_auc_score(labels, scores, multi_class="ovr", average=a)
              for a in ("macro", "weighted")]
    values.append(roc_auc_score(onehot, scores, average="micro"))
    values.append(roc_auc_score(labels, scores, multi_class="ovo"))
    values += [average_precision_score(onehot, scores, average=a) for a in ("macro", "micro")]
    values += [top_k_accuracy_score(labels, scores, k=k, labels=range(c)) for k in (1, 3)]
    return [float(v) for v in values]


def resident_bytes(labels: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """Traced bytes per cell held by an evaluator after add_cases, and after the reads
    (which cache numbers, not evaluations)."""
    names = [f"c{i}" for i in range(scores.shape[1])]
    gc.collect()
    tracemalloc.start()
    ev = ScoredClassifierEvaluation(names)
    ev.add_cases(labels, scores)
    added = tracemalloc.get_traced_memory()[0]
    ev.roc_auc()
    ev.average_precision()
    read = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    cells = scores.size
    return added / cells, read / cells


def main() -> None:
    args = common.parser(__doc__.splitlines()[0]).parse_args()
    n, c = (20_000, 5) if args.quick else (1_000_000, 10)
    common.header(f"Categories: {n:,} cases x {c} categories vs scikit-learn", "scikit-learn")
    labels, scores = data(n, c)
    times = common.interleaved({"rankeval": lambda: ours(labels, scores),
                                "scikit-learn": lambda: theirs(labels, scores)},
                               1 if args.quick else 3)
    mine, peer = common.median(times["rankeval"]), common.median(times["scikit-learn"])
    worst = max(abs(a - b) for a, b in zip(ours(labels, scores), theirs(labels, scores),
                                            strict=True))
    added, read = resident_bytes(labels, scores)
    common.print_table(
        ["what", "rankeval", "scikit-learn", "speed-up", "target", "verdict", "max |diff|"],
        [["add_cases + 8 summaries", common.fmt_seconds(mine), common.fmt_seconds(peer),
          common.ratio(peer, mine), ">= 2x", common.verdict(peer >= 2 * mine),
          f"{worst:.1e}"]])
    common.print_table(
        ["held", "bytes per (case, category)", "target", "verdict"],
        [["after add_cases", f"{added:.2f}", "<= 10", common.verdict(added <= 10)],
         ["after every read (the numbers cached)", f"{read:.2f}", "<= 10",
          common.verdict(read <= 10)]])
    print("median of interleaved repeats; memory is tracemalloc's (NumPy arrays included).")


if __name__ == "__main__":
    main()
