"""Sketch mode: error, stated bound and memory of SketchEvaluation on a 10M-case stream.

Question: on 10,000,000 cases (1 % and 30 % positives, continuous and tied scores), how far
are the sketch's ROC area and AP from the exact values, how wide are the intervals it
states, how much memory does it hold, and how fast does it take cases next to the exact
evaluator in the same run? Every exact value must lie inside its interval (the verdict).
The exact values are the grouped evaluator's on the scores rounded to float32.

A second table measures why the bounds widen DataSketches' rank bounds (``WIDEN``): over
``--coverage`` sketches of adversarial streams (normal, two spikes, Cauchy, two-decimal
scores; k from 8 to 200; up to 200,000 cases), how often some retained score's true rank
falls outside the plain 3-sigma bound, and by how much at worst.
"""

from __future__ import annotations

import time

import _common as common
import numpy as np


def stream(n: int, rate: float, ties: bool, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < rate
    logits = rng.normal(-1.0, 1.2, n)
    logits[labels] += 2.0
    scores = 1.0 / (1.0 + np.exp(-logits))
    if ties:
        scores = np.round(scores, 2)
    return labels, scores.astype(np.float32).astype(np.float64)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__.splitlines()[0], data="continuous scores, tied ones, or both")
    p.add_argument("--n", type=int, default=10_000_000)
    p.add_argument("--chunk", type=int, default=100_000)
    p.add_argument("--k", default="12,50,200")
    p.add_argument("--coverage", type=int, default=600, help="sketches for the second table")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.coverage = 200_000, 40
    common.header(f"SketchEvaluation on {args.n:,} cases", "datasketches")
    common.require_rankeval()
    from rankeval import ScoredPrecisionRecallEvaluation, SketchEvaluation

    rows = []
    for data_name, ties in common.data_variants(args.data):
        for rate in (0.01, 0.3):
            labels, scores = stream(args.n, rate, ties, common.SEED)
            exact = ScoredPrecisionRecallEvaluation(ties="grouped")
            began = time.perf_counter()
            for at in range(0, args.n, args.chunk):
                exact.add_cases(labels[at:at + args.chunk], scores[at:at + args.chunk])
            auc, ap = exact.area_under_roc_curve(), exact.average_precision()
            exact_seconds = time.perf_counter() - began
            for k in (int(v) for v in args.k.split(",")):
                ev = SketchEvaluation(sketch_size=k, exact_until=0)
                began = time.perf_counter()
                for at in range(0, args.n, args.chunk):
                    ev.add_cases(labels[at:at + args.chunk], scores[at:at + args.chunk])
                got = ev.summary()
                seconds = time.perf_counter() - began
                a, b = got["roc_auc"], got["average_precision"]
                inside = a.low <= auc <= a.high and b.low <= ap <= b.high
                rows.append([data_name, f"{rate:.0%}", k, f"{abs(a.value - auc):.1e}",
                             f"{a.error:.1e}", f"{abs(b.value - ap):.1e}", f"{b.error:.1e}",
                             f"{ev.memory_bytes() / 1024:.0f}",
                             common.ratio(seconds, exact_seconds), common.verdict(inside)])
    common.print_table(["data", "positives", "k", "|AUC err|", "AUC bound", "|AP err|",
                        "AP bound", "KiB held", "time vs exact", "exact inside"], rows)
    print(f"cases in chunks of {args.chunk:,} through add_cases, then one summary(); 'time vs"
          " exact' is against the exact grouped evaluator doing the same in the same run; the"
          f" exact evaluator holds {9.25 * args.n / 2**20:,.0f} MiB. Bounds: DataSketches' rank"
          " bounds at 3 standard deviations, widened by WIDEN (docs/semantics.md, sketch mode).")
    coverage(args.coverage)
    return 0


def coverage(sketches: int) -> None:
    """How far true ranks fall outside DataSketches' plain 3-sigma bounds (see the text)."""
    import datasketches

    from rankeval.scored import sketch as sketch_module

    rng = np.random.default_rng(common.SEED)
    worst: dict[int, list[float]] = {}
    for trial in range(sketches):
        n = int(rng.integers(1000, 200_000))
        kind = trial % 4
        if kind == 0:
            scores = rng.normal(size=n)
        elif kind == 1:
            scores = rng.choice([0.2, 0.7], n)
        elif kind == 2:
            scores = rng.standard_cauchy(n)
        else:
            scores = np.round(rng.random(n), 2)
        scores = scores.astype(np.float32)
        k = int(rng.choice([8, 12, 50, 200]))
        sketch = datasketches.req_floats_sketch(k, True)
        for at in range(0, n, 7000):
            sketch.update(scores[at:at + 7000])
        items, weights = sketch_module._weighted(sketch)
        total = int(weights.sum())
        cumulative = np.concatenate(([0], np.cumsum(weights)))
        ordered = np.sort(scores.astype(np.float64))
        ratios = []
        for side in ("left", "right"):
            estimated = cumulative[np.searchsorted(items, items, side=side)]
            true = np.searchsorted(ordered, items, side=side)
            rank = estimated / total
            half = np.array([max(r - sketch.get_rank_lower_bound(r, sketch_module.STD_DEVS),
                                 sketch.get_rank_upper_bound(r, sketch_module.STD_DEVS) - r)
                             for r in rank.tolist()]) * total
            error = np.abs(true - estimated)
            ratios.append(np.where(half > 0, error / np.maximum(half, 1e-300),
                                   np.where(error > 0, np.inf, 0.0)).max())
        worst.setdefault(k, []).append(max(ratios))
    rows = []
    for k, values in sorted(worst.items()):
        v = np.array(values)
        rows.append([k, v.shape[0], f"{(v > 1).mean():.0%}", f"{np.percentile(v, 99):.2f}",
                     f"{v.max():.2f}", common.verdict(bool(v.max() < sketch_module.WIDEN))])
    every = np.concatenate([np.array(v) for v in worst.values()])
    rows.append(["all", every.shape[0], f"{(every > 1).mean():.0%}",
                 f"{np.percentile(every, 99):.2f}", f"{every.max():.2f}",
                 common.verdict(bool(every.max() < sketch_module.WIDEN))])
    print()
    common.print_table(["k", "sketches", "some rank outside 3-sigma", "p99 worst/half-width",
                        "max worst/half-width", f"< WIDEN ({sketch_module.WIDEN:g})"], rows)
    print("worst/half-width: the largest |true - estimated| cases below a retained score,"
          " over its sketch's scores, in units of DataSketches' 3-sigma half-width there.")


if __name__ == "__main__":
    raise SystemExit(main())
