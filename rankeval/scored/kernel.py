"""Deprecated module path: the kernel is now two modules.

* :mod:`rankeval.points` — the one operating-points contract (:class:`OperatingPoints`,
  :func:`operating_points`, :func:`confusion_at_thresholds`, :func:`tie_block_ends`), shared
  by the single-ranking evaluator, the many-query batches and the partitioned report;
* :mod:`rankeval.scored.sorting` — sorting cases for the store (:func:`sort_cases`,
  :func:`run_starts`, :func:`small_stable_order`).

This module keeps old imports working, with a ``DeprecationWarning``.
"""

from __future__ import annotations

from rankeval._deprecation import deprecated
from rankeval.points import (
    BoolArray,
    FloatArray,
    IntArray,
    OperatingPoints,
    confusion_at_thresholds,
    operating_points,
    tie_block_ends,
)
from rankeval.scored.sorting import _SMALL_SORT, run_starts, small_stable_order, sort_cases

__all__ = [
    "_SMALL_SORT",
    "BoolArray",
    "FloatArray",
    "IntArray",
    "OperatingPoints",
    "confusion_at_thresholds",
    "operating_points",
    "run_starts",
    "small_stable_order",
    "sort_cases",
    "tie_block_ends",
]

deprecated("the module rankeval.scored.kernel is now rankeval.points (operating points) "
           "and rankeval.scored.sorting (sorting cases)")
