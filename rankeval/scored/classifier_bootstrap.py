"""The bootstrap of :class:`~rankeval.ScoredClassifierEvaluation`'s reads, per category and for
the averages.

A resample draws the cases with replacement, each category's cases among themselves (one
category per case: every category keeps its count of cases, as the binary evaluator's
bootstrap keeps its positives and negatives) or all cases together (``multi_label``). It is a
vector of counts over the cases; a resample cannot change the order of any ranking, so every
ranking (a category's column against the rest, a one-vs-one pair's, the micro average's cells)
is sorted once, and each resample's value is one weighted pass over each ranking, read by the
binary bootstrap's own weighted reads (:func:`rankeval.scored.uncertainty.weighted_value`).
A case drawn several times ties with its copies (they share its scores).

Memory: O(n·C) for the rankings (O(n·C²) one-vs-one), whatever the number of resamples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rankeval import intervals
from rankeval.intervals import Interval
from rankeval.scored.uncertainty import draws, percentile_interval, weighted_value

__all__ = ["Ranking", "resample_counts", "resampled_reads", "weighted_reads"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class Ranking:
    """One binary ranking over (a subset of) the cases: which case stands at each place, which
    places hold positives, and where each block of tied places starts."""

    cases: IntArray
    members: BoolArray
    starts: IntArray

    @classmethod
    def of(cls, cases: IntArray, scores: FloatArray, members: BoolArray,
           grouped: bool) -> Ranking:
        """The ranking of ``cases`` by ``scores`` (highest first, equal scores in the cases'
        order) with ``members`` the positives; O(n log n)."""
        keys = -scores
        order = np.argsort(keys, kind="stable")
        starts = intervals.blocks(keys[order], members[order], grouped)[0]
        return cls(cases[order], members[order], starts)

    def counts(self, weights: IntArray) -> tuple[IntArray, IntArray]:
        """Each block's positives and negatives when each case counts ``weights[case]``."""
        w = weights[self.cases]
        pos = np.where(self.members, w, 0)
        neg = w - pos
        if self.starts.shape[0] == self.cases.shape[0] or self.cases.shape[0] == 0:
            return pos, neg
        return np.add.reduceat(pos, self.starts), np.add.reduceat(neg, self.starts)

    def value(self, measure: str, weights: IntArray) -> tuple[float, int]:
        """``measure`` of the weighted ranking, and its positives."""
        pos, neg = self.counts(weights)
        return weighted_value(measure, pos, neg, 0, 0, None), int(pos.sum())


Read = Callable[[IntArray], FloatArray]


def weighted_reads(labels: NDArray[Any], scores: FloatArray, *, multi_label: bool,
                   grouped: bool, measure: str, multi_class: str, average: str | None,
                   k: int) -> Read:
    """The function that reads ``measure`` (averaged as ``average``; per category, a vector,
    when None) of the cases each counted ``weights[case]`` times; every value equals the
    evaluator's read of the cases repeated that many times.

    Complexity: O(C·n log n) (O(C²·n log n) one-vs-one) here, O(C·n) (O(C²·n)) a call.
    """
    n, c = scores.shape
    every = np.arange(n, dtype=np.int64)
    if measure == "top_k_accuracy":
        order = np.argsort(scores, axis=1, kind="mergesort")[:, ::-1][:, :k]
        correct = ((order == labels[:, None]).any(axis=1) if k < c
                   else np.ones(n, dtype=np.bool_)).astype(np.int64)

        def accuracy(weights: IntArray) -> FloatArray:
            total = int(weights.sum())
            return np.array([int(np.dot(weights, correct)) / total if total else math.nan])

        return accuracy
    onehot: BoolArray = (labels.astype(np.bool_) if multi_label
                         else np.equal(labels[:, None], np.arange(c)[None, :]))
    if multi_class == "ovo":
        pairs: list[tuple[Ranking, Ranking, IntArray]] = []
        present: BoolArray = np.asarray(onehot.any(axis=0), dtype=np.bool_)
        for a in range(c):
            for b in range(a + 1, c):
                if not (present[a] and present[b]):
                    continue
                inside = np.flatnonzero(onehot[:, a] | onehot[:, b])
                pairs.append((Ranking.of(inside, scores[inside, a], onehot[inside, a], grouped),
                              Ranking.of(inside, scores[inside, b], onehot[inside, b], grouped),
                              inside))

        def one_vs_one(weights: IntArray) -> FloatArray:
            values, shares = [], []
            total = int(weights.sum())
            for first, second, inside in pairs:
                values.append((first.value(measure, weights)[0]
                               + second.value(measure, weights)[0]) / 2)
                shares.append(int(weights[inside].sum()) / total if total else math.nan)
            return np.array([_averaged(values, shares, average)])

        return one_vs_one
    if average == "micro":
        cells = Ranking.of(np.arange(n * c, dtype=np.int64), scores.ravel(), onehot.ravel(),
                           grouped)
        cells = Ranking(cells.cases // c, cells.members, cells.starts)  # a cell's case
        return lambda weights: np.array([cells.value(measure, weights)[0]])
    columns = [Ranking.of(every, scores[:, j], onehot[:, j], grouped) for j in range(c)]

    def one_vs_rest(weights: IntArray) -> FloatArray:
        read = [column.value(measure, weights) for column in columns]
        values = np.array([value for value, _ in read])
        if average is None:
            return values
        return np.array([_averaged(values.tolist(), [float(p) for _, p in read], average)])

    return one_vs_rest


def _averaged(values: Sequence[float], weights: Sequence[float], average: str | None) -> float:
    """The macro (plain) or weighted mean of the defined values; NaN when none is."""
    kept = [i for i, value in enumerate(values) if value == value]
    if not kept:
        return math.nan
    chosen = [weights[i] for i in kept] if average == "weighted" else None
    return float(np.average([values[i] for i in kept], weights=chosen))


def resample_counts(labels: NDArray[Any], multi_label: bool
                    ) -> Callable[[np.random.Generator], IntArray]:
    """A resample's counts over the cases: each category's cases drawn among themselves, in
    the categories' order (one category per case), or all the cases at once (multi-label).
    """
    n = int(labels.shape[0])
    if multi_label:
        return lambda rng: draws(rng, n)
    groups = [np.flatnonzero(labels == j) for j in range(int(labels.max()) + 1 if n else 0)]

    def counts(rng: np.random.Generator) -> IntArray:
        out = np.zeros(n, dtype=np.int64)
        for members in groups:
            if members.shape[0]:
                out[members] = draws(rng, members.shape[0])
        return out

    return counts


def resampled_reads(read: Read, counts: Callable[[np.random.Generator], IntArray],
                    values: FloatArray, level: float, resamples: int, seed: int
                    ) -> list[Interval]:
    """The percentile interval of each of ``values`` (the evaluator's reads) over
    ``resamples`` resamples from ``seed``: R's type-7 quantiles of the finite resampled
    values, and their standard deviation; NaN bounds with fewer than two."""
    rng = np.random.default_rng(seed)
    found = np.empty((resamples, values.shape[0]), dtype=np.float64)
    for b in range(resamples):
        found[b] = read(counts(rng))
    return [percentile_interval(value, found[:, j], level)
            for j, value in enumerate(values.tolist())]
