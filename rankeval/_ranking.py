"""The ranking kernel: a sorted ranking becomes cumulative true/false positive counts.

Every curve and summary value in rankeval is a pure function of the
:class:`OperatingPoints` built here, for the single-query evaluator and the
multi-query one alike. Nothing else in the package decides what an operating
point is.

A ranking is held as *keys* (``-score``, ascending, so the best case comes
first) and boolean *labels*, with ties already in the order the tie policy
wants (insertion order for ``"insertion"``; any order for ``"grouped"``, which
only looks at whole tie blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

TiePolicy = Literal["insertion", "grouped"]
TIE_POLICIES: tuple[TiePolicy, ...] = ("insertion", "grouped")

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True)
class OperatingPoints:
    """Cumulative counts after each operating point of a ranking.

    With ``ties="insertion"`` every ranked case is an operating point; with
    ``ties="grouped"`` every block of equal scores is one (its last row).

    Attributes
    ----------
    tp, fp : ndarray of int64
        True and false positives among the cases ranked at or above the point.
    scores : ndarray of float64
        The score at the point.
    num_pos : int
        ``R``: positive reference cases, misses included.
    num_neg : int
        ``N``: negative reference cases, negative misses included.
    """

    tp: IntArray
    fp: IntArray
    scores: FloatArray
    num_pos: int
    num_neg: int

    @property
    def size(self) -> int:
        """Number of operating points."""
        return int(self.tp.shape[0])


def tie_block_ends(keys: FloatArray) -> IntArray:
    """Index of the last row of every block of equal keys in a sorted array.

    ``-0.0`` and ``0.0`` tie, as do equal infinities.

    >>> tie_block_ends(np.array([-3.0, -3.0, -1.0, 0.0, -0.0]))
    array([1, 2, 4])

    Complexity: O(n).
    """
    n = keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.flatnonzero(keys[1:] != keys[:-1])
    return np.append(ends, n - 1).astype(np.int64, copy=False)


def operating_points(
    keys: FloatArray,
    labels: BoolArray,
    num_pos: int,
    num_neg: int,
    ties: TiePolicy,
    cum_pos: IntArray | None = None,
) -> OperatingPoints:
    """Build the operating points of a sorted ranking.

    Parameters
    ----------
    keys : ndarray of float64
        ``-score`` of each ranked case, ascending (best first).
    labels : ndarray of bool
        Whether each ranked case is a positive, aligned with ``keys``.
    num_pos, num_neg : int
        Reference counts including misses.
    ties : {"insertion", "grouped"}
        ``"insertion"``: one point per case. ``"grouped"``: one per tie block.
    cum_pos : ndarray of int64, optional
        Precomputed ``concat([0], cumsum(labels))``; saves one pass.

    >>> pts = operating_points(np.array([-2.0, -1.0, -1.0]), np.array([True, False, True]),
    ...                        2, 1, "grouped")
    >>> pts.tp.tolist(), pts.fp.tolist(), pts.scores.tolist()
    ([1, 2], [0, 1], [2.0, 1.0])

    Complexity: O(n).
    """
    n = keys.shape[0]
    tp = np.cumsum(labels, dtype=np.int64) if cum_pos is None else cum_pos[1:]
    if ties == "grouped" and n:
        ends = tie_block_ends(keys)
        tp = tp[ends]
        fp = (ends + 1) - tp
        scores = -keys[ends]
    else:
        fp = np.arange(1, n + 1, dtype=np.int64) - tp
        scores = -keys
    return OperatingPoints(tp, fp, scores, int(num_pos), int(num_neg))
