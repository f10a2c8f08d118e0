"""Many-query evaluation over blocks of queries on forked workers (``workers=``).

Every query is evaluated on its own, so the queries are split into blocks of about equal
rows, each block is read and evaluated in a forked child (:func:`rankeval.workers.
forked_map`) and the per-query values are merged as the partitioned engines merge theirs
(:func:`rankeval.ranking.evaluate.merge_evaluations`: aggregates computed again over all
queries, in trec_eval's order). The result is bit for bit one worker's.

The inputs are read here, once; each child takes its block's rows (views when the run lists
its queries one after another). Reading dicts in the children instead, each its own queries,
was slower: reading a Python object writes its reference count, so every page of the
parent's dicts a child reads is copied (290,000 page faults and 2 s of system time a child
at 10^7 rows, measured). A block a child refuses is evaluated again here in one worker, so
the error is the one a single worker raises.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from rankeval.ranking.inputs import Qrels, QrelsLike, Run, RunLike, as_qrels, qrels_and_run
from rankeval.workers import forked_map, split_evenly, workers_for

if TYPE_CHECKING:
    from rankeval.ranking.evaluate import RunReport
    from rankeval.ranking.options import RunOptions

__all__ = ["MIN_ROWS", "evaluate_in_blocks"]

#: Run rows a worker must have before ``workers=None`` forks another: on a 2-CPU machine two
#: workers gave 1.17x at 10^7 rows in a small process and 0.5x at 10^6 (a fork of a large
#: process and the children's first touch of their memory cost tens of milliseconds).
MIN_ROWS = 2_000_000


class _Blocks:
    """The queries of built inputs, their weights, and each block's rows."""

    def __init__(self, qrels: Qrels, run: Run) -> None:
        self.qrels, self.run = qrels, run
        # The run's queries first, in its order: a block is then a range of its rows when
        # they come query by query (views, not copies).
        index = {name: i for i, name in
                 enumerate(dict.fromkeys(run.query_ids + qrels.query_ids))}
        self.names = list(index)
        self._run_at = np.fromiter(map(index.__getitem__, run.query_ids), dtype=np.int64,
                                   count=len(run.query_ids))
        self._qrels_at = np.fromiter(map(index.__getitem__, qrels.query_ids), dtype=np.int64,
                                     count=len(qrels.query_ids))
        # Each query's run rows and judgments (and one): what its evaluation costs.
        self.weights = np.ones(len(index), dtype=np.int64)
        self.weights[self._run_at] += np.bincount(run.query, minlength=len(run.query_ids))
        self.weights[self._qrels_at] += np.bincount(qrels.query,
                                                    minlength=len(qrels.query_ids))

    def part(self, block: NDArray[np.int64], k: int) -> tuple[Qrels, Run]:
        """Block k's inputs (``block``: each name's block)."""
        return (self.qrels._select(block[self._qrels_at] == k),
                self.run._select(block[self._run_at] == k))


def evaluate_in_blocks(
    qrels: QrelsLike, run: RunLike, measures: str | Iterable[str], options: RunOptions,
    known: QrelsLike | None, workers: int | None,
) -> RunReport:
    """:func:`rankeval.ranking.evaluate_run` on ``workers`` forked workers (None: chosen
    from the machine and the run's size, see :func:`rankeval.workers.workers_for`).

    Complexity: that of one worker over the workers used, plus a fork per worker and
    O(Q log Q) for the merge.
    """
    from rankeval.ranking.evaluate import _evaluate_run, _merged

    qrels_obj, run_obj = qrels_and_run(qrels, run)
    count = workers_for(workers, int(run_obj.query.shape[0]), minimum=MIN_ROWS)
    if count > 1:
        blocks = _Blocks(qrels_obj, run_obj)
        count = min(count, len(blocks.names))
    if count <= 1:
        return _evaluate_run(qrels_obj, run_obj, measures, options, known)
    known_obj = None if known is None else as_qrels(known)
    # Blocks of about equal rows; one a heavy query leaves empty is dropped.
    used, block = np.unique(split_evenly(blocks.weights, count), return_inverse=True)
    count = int(used.size)

    def evaluate_block(k: int) -> RunReport:
        part_qrels, part_run = blocks.part(block, k)
        return _evaluate_run(part_qrels, part_run, measures, options, known_obj, part=True)

    try:
        parts = forked_map(evaluate_block, count)
    except (ValueError, TypeError):
        # What a child refused (a measure, an option, the known set): one worker's error.
        _evaluate_run(qrels_obj, run_obj, measures, options, known_obj)
        raise
    return _merged(parts, run_obj.query_ids,
                   require_shared=not options.trec_ten_complete)
