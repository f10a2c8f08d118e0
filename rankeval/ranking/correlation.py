"""Rank correlation between two orderings of the same items (Kendall's tau).

Used to compare two systems' orderings of queries or of documents; it shares no state with the
evaluators.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["KendallTau", "kendall_tau", "kendall_tau_counts"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True)
class KendallTau:
    """Pair counts of two paired rankings and both Kendall coefficients.

    Attributes
    ----------
    n : int
        Items.
    concordant, discordant : int
        Pairs ordered the same way / the opposite way by both.
    ties_x, ties_y, ties_both : int
        Pairs tied in x, in y, in both.
    tau_a : float
        (C - D) / C(n, 2). NaN when n < 2.
    tau_b : float
        (C - D) / sqrt((C(n,2) - ties_x)(C(n,2) - ties_y)) (scipy's ``kendalltau``). NaN
        when either side is constant or n < 2.
    """

    n: int
    concordant: int
    discordant: int
    ties_x: int
    ties_y: int
    ties_both: int
    tau_a: float
    tau_b: float

    def to_text(self, digits: int = 4) -> str:
        """The counts and both coefficients, one line."""
        from rankeval._text import number

        return (f"Kendall tau-a {number(self.tau_a, digits)}, tau-b "
                f"{number(self.tau_b, digits)} ({self.n} items: {self.concordant} concordant, "
                f"{self.discordant} discordant pairs; ties {self.ties_x} in x, {self.ties_y} "
                f"in y, {self.ties_both} in both)\n")


def kendall_tau_counts(x: ArrayLike, y: ArrayLike) -> KendallTau:
    """Concordant/discordant pair counts and Kendall's tau-a and tau-b of paired values.

    ``x[i]`` and ``y[i]`` are item i's scores (or ranks) under the two orderings; only their
    order matters.

    Undefined when: n < 2 (both NaN); x or y constant (tau-b NaN).

    >>> k = kendall_tau_counts([1, 2, 3, 4, 5], [2, 1, 5, 3, 4])
    >>> k.concordant, k.discordant, k.tau_a, k.tau_b
    (7, 3, 0.4, 0.4)

    Complexity: O(n log² n).
    """
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ys = np.asarray(y, dtype=np.float64).reshape(-1)
    if xs.shape != ys.shape:
        raise ValueError(f"x and y must have the same length, got {xs.size} and {ys.size}")
    if np.isnan(xs).any() or np.isnan(ys).any():
        raise ValueError("x and y must not contain NaN")
    n = int(xs.size)
    pairs = n * (n - 1) // 2
    order = np.lexsort((ys, xs))
    xo, yo = xs[order], ys[order]
    ties_x = _tied_pairs(xo)
    ties_both = _tied_pairs_joint(xo, yo)
    ties_y = _tied_pairs(np.sort(ys))
    # Discordant pairs: inversions of y after sorting by (x, y); pairs tied in x are sorted
    # by y so they add none.
    discordant = _inversions(_dense_ranks(yo))
    concordant = pairs - discordant - ties_x - ties_y + ties_both
    if n < 2:
        return KendallTau(n, 0, 0, 0, 0, 0, math.nan, math.nan)
    diff = concordant - discordant
    tau_a = diff / pairs
    den = math.sqrt(float(pairs - ties_x) * float(pairs - ties_y))
    tau_b = diff / den if den else math.nan
    return KendallTau(n, concordant, discordant, ties_x, ties_y, ties_both, tau_a, tau_b)


def kendall_tau(x: ArrayLike, y: ArrayLike, variant: Literal["a", "b"] = "b") -> float:
    """Kendall's rank correlation of paired values; ``variant`` ``"b"`` (default) or ``"a"``.

    Without ties both equal (C - D) / C(n, 2).

    Undefined when n < 2, or (tau-b) when x or y is constant: NaN.

    >>> kendall_tau([1, 2, 3, 4, 5], [2, 1, 5, 3, 4])
    0.4

    Complexity: O(n log² n).
    """
    counts = kendall_tau_counts(x, y)
    if variant == "a":
        return counts.tau_a
    if variant == "b":
        return counts.tau_b
    raise ValueError(f"variant must be 'a' or 'b', got {variant!r}")


def _tied_pairs(sorted_values: FloatArray) -> int:
    if sorted_values.size == 0:
        return 0
    _, counts = np.unique(sorted_values, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def _tied_pairs_joint(xo: FloatArray, yo: FloatArray) -> int:
    if xo.size == 0:
        return 0
    change = np.ones(xo.size, dtype=bool)
    change[1:] = (xo[1:] != xo[:-1]) | (yo[1:] != yo[:-1])
    counts = np.diff(np.concatenate((np.flatnonzero(change), [xo.size])))
    return int((counts * (counts - 1) // 2).sum())


def _dense_ranks(values: FloatArray) -> IntArray:
    _, inverse = np.unique(values, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1)


def _inversions(ranks: IntArray) -> int:
    """Pairs i < j with ranks[i] > ranks[j], by bottom-up merging of sorted blocks."""
    n = int(ranks.size)
    if n < 2:
        return 0
    size = 1
    while size < n:
        size *= 2
    width = 1
    big = n + 1
    blocks = np.full(size, big, dtype=np.int64)
    blocks[:n] = ranks
    total = 0
    while width < size:
        pairs = blocks.reshape(-1, 2, width)
        left, right = pairs[:, 0, :], pairs[:, 1, :]
        count = left.shape[0]
        offset = (np.arange(count, dtype=np.int64) * (big + 1))[:, None]
        # Each left block is sorted; shifting block b by b*(big+1) keeps the flat array sorted.
        flat_left = (left + offset).ravel()
        keys = (right + offset).ravel()
        valid = (right < big).ravel()
        not_greater = np.searchsorted(flat_left, keys, side="right")
        row_start = np.repeat(np.arange(count, dtype=np.int64) * width, width)
        real_left = np.repeat((left < big).sum(axis=1), width)
        greater = real_left - (not_greater - row_start)
        total += int(greater[valid].sum())
        blocks = np.sort(pairs.reshape(count, 2 * width), axis=1).ravel()
        width *= 2
    return total
