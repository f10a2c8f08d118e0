"""Intervals: their coverage on simulated data, and their speed against the usual code.

Questions:

1. **Coverage.** On binormal data (negatives N(0, 1), positives N(mu, 1), 30 % positives;
   true ROC area Phi(mu / sqrt 2)), does each 95 % interval contain the true value in
   95 +- 1.5 % of 2,000 datasets, at n = 200 and n = 20,000 cases? Measured: DeLong (ROC
   area), the stratified bootstrap (ROC area; fewer datasets and resamples, it is slow by
   nature), Wilson and Jeffreys for precision and recall at a threshold (true values in
   closed form), and Boyd et al.'s logit and binomial intervals for AP (the true AP from one
   sample of 10^7 cases).
2. **Speed, same run.** The DeLong interval and the paired test at 10^6 and 10^7 cases
   against the NumPy implementation of Sun & Xu's fast DeLong that is widely copied
   (``compare_auc_delong_xu.py``: mid-ranks by sorting, written out here): target >= 3x
   faster (rankeval's time includes adding the cases). 2,000 bootstrap resamples of AP at
   10^6 cases against resampling and calling scikit-learn's ``average_precision_score``:
   target >= 10x faster, memory independent of the resample count.

``--quick``: small sizes and counts (seconds), for the smoke run.
"""

from __future__ import annotations

import math
import time
import tracemalloc
from statistics import NormalDist

import _common as common
import numpy as np

from rankeval import PairedEvaluation, ScoredPrecisionRecallEvaluation

Z = NormalDist()


# ---------------------------------------------------------------------------------------------
# the NumPy fast DeLong everyone copies (Sun & Xu 2014), written out


def _midrank(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x)
    z = x[order]
    n = len(x)
    t = np.zeros(n, dtype=float)
    i = 0
    while i < n:
        j = i
        while j < n and z[j] == z[i]:
            j += 1
        t[i:j] = 0.5 * (i + j - 1)
        i = j
    out = np.empty(n, dtype=float)
    out[order] = t + 1
    return out


def _fast_delong(predictions_sorted_transposed: np.ndarray, m: int) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    n = predictions_sorted_transposed.shape[1] - m
    positive = predictions_sorted_transposed[:, :m]
    negative = predictions_sorted_transposed[:, m:]
    k = predictions_sorted_transposed.shape[0]
    tx, ty, tz = np.empty([k, m]), np.empty([k, n]), np.empty([k, m + n])
    for r in range(k):
        tx[r, :] = _midrank(positive[r, :])
        ty[r, :] = _midrank(negative[r, :])
        tz[r, :] = _midrank(predictions_sorted_transposed[r, :])
    aucs = tz[:, :m].sum(axis=1) / m / n - (m + 1.0) / 2.0 / n
    v01 = (tz[:, :m] - tx[:, :]) / n
    v10 = 1.0 - (tz[:, m:] - ty[:, :]) / m
    sx = np.atleast_2d(np.cov(v01))
    sy = np.atleast_2d(np.cov(v10))
    return aucs, sx / m + sy / n


def reference_interval(labels: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    order = np.argsort(~labels, kind="stable")  # positives first, as the script wants
    m = int(labels.sum())
    auc, cov = _fast_delong(scores[order][np.newaxis, :], m)
    return float(auc[0]), float(math.sqrt(cov[0, 0]))


def reference_paired(labels: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    order = np.argsort(~labels, kind="stable")
    m = int(labels.sum())
    aucs, cov = _fast_delong(np.vstack((a[order], b[order])), m)
    sigma = math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    z = (aucs[0] - aucs[1]) / sigma
    return 2 * Z.cdf(-abs(z))


# ---------------------------------------------------------------------------------------------
# coverage


def binormal(rng: np.random.Generator, n: int, mu: float) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.random(n) < 0.3
    return labels, rng.normal(np.where(labels, mu, 0.0), 1.0)


def coverage_rows(n: int, datasets: int, boot_datasets: int, resamples: int,
                  true_ap: float, mu: float, threshold: float) -> list[list[object]]:
    rng = np.random.default_rng(n)
    auc = Z.cdf(mu / math.sqrt(2))
    tpr, fpr = 1 - Z.cdf(threshold - mu), 1 - Z.cdf(threshold)
    true_precision = 0.3 * tpr / (0.3 * tpr + 0.7 * fpr)
    checks = {
        "roc_auc, delong": (auc, lambda ev: ev.interval("roc_auc")),
        "average_precision, logit": (true_ap, lambda ev: ev.interval("average_precision")),
        "average_precision, binomial": (true_ap, lambda ev: ev.interval(
            "average_precision", method="binomial")),
        "precision at a threshold, wilson": (true_precision, lambda ev: ev.interval(
            "precision", threshold=threshold)),
        "precision at a threshold, jeffreys": (true_precision, lambda ev: ev.interval(
            "precision", threshold=threshold, method="jeffreys")),
        "recall at a threshold, wilson": (tpr, lambda ev: ev.interval(
            "recall", threshold=threshold)),
    }
    hits = dict.fromkeys(checks, 0)
    boot_hits = {"roc_auc": 0, "average_precision": 0}
    for d in range(datasets):
        labels, scores = binormal(rng, n, mu)
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        ev.add_cases(labels, scores)
        for name, (truth, read) in checks.items():
            hits[name] += truth in read(ev)
        if d < boot_datasets:
            for measure, truth in (("roc_auc", auc), ("average_precision", true_ap)):
                boot_hits[measure] += truth in ev.interval(measure, method="bootstrap",
                                                           resamples=resamples, seed=d)
    rows: list[list[object]] = []
    for name in checks:
        share = hits[name] / datasets
        se = math.sqrt(0.95 * 0.05 / datasets)
        rows.append([n, name, datasets, f"{100 * share:.1f} %",
                     common.verdict(abs(share - 0.95) <= 0.015), f"+-{100 * 2 * se:.1f} %"])
    for measure, count in boot_hits.items():
        share = count / max(boot_datasets, 1)
        rows.append([n, f"{measure}, bootstrap ({resamples} resamples)", boot_datasets,
                     f"{100 * share:.1f} %", common.verdict(abs(share - 0.95) <= 0.015),
                     f"+-{100 * 2 * math.sqrt(0.95 * 0.05 / max(boot_datasets, 1)):.1f} %"])
    return rows


def true_average_precision(mu: float, n: int) -> float:
    labels, scores = binormal(np.random.default_rng(12345), n, mu)
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev.add_cases(labels, scores)
    return ev.average_precision()


# ---------------------------------------------------------------------------------------------
# speed


def speed_rows(sizes: list[int], repeat: int) -> list[list[object]]:
    return [row for n in sizes for row in _speed_at(n, repeat)]


def _speed_at(n: int, repeat: int) -> list[list[object]]:
    rng = np.random.default_rng(n)
    labels, a = binormal(rng, n, 1.0)
    b = a + rng.normal(0.0, 0.5, n)

    def ours_interval() -> float:
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        ev.add_cases(labels, a)
        return ev.interval("roc_auc").std_error

    def ours_test() -> float:
        paired = PairedEvaluation()
        paired.add_cases(labels, a, b)
        return paired.roc_test().p_value

    times = common.interleaved({
        "rankeval interval": ours_interval,
        "NumPy Sun-Xu interval": lambda: reference_interval(labels, a)[1],
        "rankeval paired test": ours_test,
        "NumPy Sun-Xu paired test": lambda: reference_paired(labels, a, b),
    }, repeat)
    se_ours, se_ref = ours_interval(), reference_interval(labels, a)[1]
    p_ours, p_ref = ours_test(), reference_paired(labels, a, b)
    rows: list[list[object]] = []
    for what, ours, ref, agree in (
            ("DeLong interval", "rankeval interval", "NumPy Sun-Xu interval",
             abs(se_ours - se_ref)),
            ("paired test", "rankeval paired test", "NumPy Sun-Xu paired test",
             abs(p_ours - p_ref))):
        mine, theirs = common.median(times[ours]), common.median(times[ref])
        rows.append([n, what, common.fmt_seconds(mine), common.fmt_seconds(theirs),
                     common.ratio(theirs, mine), common.verdict(theirs >= 3 * mine),
                     f"{agree:.1e}"])
    return rows


def bootstrap_rows(n: int, resamples: int, sklearn_resamples: int) -> list[list[object]]:
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(7)
    labels, scores = binormal(rng, n, 1.0)
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev.add_cases(labels, scores)
    ev.average_precision()
    peaks = {}
    for count in (resamples // 10, resamples):
        tracemalloc.start()
        start = time.perf_counter()
        ev.interval("average_precision", method="bootstrap", resamples=count, seed=1)
        seconds = time.perf_counter() - start
        peaks[count] = (seconds, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    pos, neg = np.flatnonzero(labels), np.flatnonzero(~labels)
    start = time.perf_counter()
    for _ in range(sklearn_resamples):  # stratified, as ours
        take = np.concatenate((rng.choice(pos, pos.size), rng.choice(neg, neg.size)))
        average_precision_score(labels[take], scores[take])
    theirs = (time.perf_counter() - start) / sklearn_resamples * resamples
    ours = peaks[resamples][0]
    return [[n, f"{resamples:,} resamples of AP", common.fmt_seconds(ours),
             f"{common.fmt_seconds(theirs)} (from {sklearn_resamples} resamples)",
             common.ratio(theirs, ours), common.verdict(theirs >= 10 * ours),
             f"{peaks[resamples // 10][1] / 2**20:.1f} MiB / {peaks[resamples][1] / 2**20:.1f} "
             f"MiB at {resamples // 10:,} / {resamples:,} resamples"]]


def misses_rows(misses: int, resamples: int) -> list[list[object]]:
    """The bootstrap of 3 ranked cases and ``misses`` positive and negative misses each,
    against the same bootstrap of 3 cases and no miss (the misses should cost nothing)."""
    def evaluator(count: int) -> ScoredPrecisionRecallEvaluation:
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        ev.add_cases([True, False, True], [0.9, 0.5, 0.1])
        ev.add_misses(count)
        ev.add_negative_misses(count)
        return ev

    rows: list[list[object]] = []
    plain, many = evaluator(0), evaluator(misses)
    for measure in ("roc_auc", "average_precision"):
        times = []
        for ev in (plain, many):
            start = time.perf_counter()
            ev.interval(measure, method="bootstrap", resamples=resamples, seed=1)
            times.append(time.perf_counter() - start)
        rows.append([f"3 cases + {misses:,} misses", f"{resamples:,} resamples of {measure}",
                     common.fmt_seconds(times[1]), common.fmt_seconds(times[0]),
                     common.ratio(times[1], times[0]), common.verdict(times[1] < 2.0)])
    return rows


def main() -> None:
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--misses-only", action="store_true",
                   help="only the bootstrap with 10^7 misses (target: under 2 s)")
    args = p.parse_args()
    if args.misses_only:
        common.header("Intervals: the bootstrap with misses", "scikit-learn")
        print("The bootstrap with 10^7 misses of each class (target: under 2 s at the default "
              "2,000 resamples), beside the same cases with no miss")
        common.print_table(["data", "what", "with misses", "no miss", "ratio", "verdict"],
                           misses_rows(10**5 if args.quick else 10**7, 2000))
        return
    common.header("Intervals: coverage and speed", "scikit-learn")
    quick = args.quick
    mu = 1.0
    true_ap = true_average_precision(mu, 10**5 if quick else 10**7)
    print(f"binormal data, mu = {mu}: true ROC area {Z.cdf(mu / math.sqrt(2)):.6f}, "
          f"true AP {true_ap:.6f} (one sample of {10**5 if quick else 10**7:,} cases)\n")
    rows = []
    for n in ((200,) if quick else (200, 20_000)):
        datasets = 100 if quick else 2000
        boot = 20 if quick else (400 if n == 200 else 100)
        rows += coverage_rows(n, datasets, boot, 100 if quick else 500, true_ap, mu, 1.0)
    print("Coverage of 95 % intervals (target 95 +- 1.5 %; last column: two standard errors "
          "of the estimate)")
    common.print_table(["n", "interval", "datasets", "coverage", "verdict", "2 SE"], rows)
    print("Speed against the NumPy fast DeLong (target >= 3x faster; rankeval adds the cases "
          "too)")
    common.print_table(["n", "what", "rankeval", "NumPy Sun-Xu", "speed-up", "verdict",
                        "|difference|"],
                       speed_rows([10**5] if quick else [10**6, 10**7], 1 if quick else 3))
    print("Bootstrap of AP against resampling and calling scikit-learn (target >= 10x faster; "
          "peak traced memory at a tenth of the resamples and at all of them)")
    common.print_table(["n", "what", "rankeval", "scikit-learn", "speed-up", "verdict",
                        "memory"],
                       bootstrap_rows(10**4 if quick else 10**6, 200 if quick else 2000,
                                      10 if quick else 20))


if __name__ == "__main__":
    main()
