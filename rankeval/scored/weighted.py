"""Storage of weighted cases: the store an evaluator takes on when it is first given a weight.

An evaluator that never saw a weight keeps :class:`~rankeval.scored.store.CaseStore` (9.25
bytes a case). Its first weight (``add_case(..., weight=)``, ``add_cases(..., weights=)``,
non-integer counts) moves its cases into a :class:`WeightedStore`, each with weight 1: keys,
labels and a float64 weight a case, 17 bytes (13 with ``score_dtype="float32"``).

A weight is a finite, non-negative number; a case of weight 0 counts for nothing, so it is
not kept. Weights need the grouped tie policy, under which a case of integer weight ``w`` is
exactly ``w`` copies of it: equal scores form one operating point whatever their order.

**One order of summation.** The cases are held in one canonical order: by key, then label,
then weight (:func:`canonical_order`), whatever order they arrived in or merged in. Every sum
of weights (the totals R and N, the true and false positives at each operating point) adds
them in an order fixed by their positions in it (:func:`rankeval.points.weight_sums`: blocks
of 4,096 positions), so float weights give the same bits whatever the arrival order, the
merges, the batches or an engine's buckets (:mod:`rankeval.scored.weighted_parts`); integer
weights (below 2^53 in total) give exact sums, so the same bits as the repeated cases.

Pending adds: ``add_case`` without a weight appends one complex number to :attr:`pending`, as
for the unweighted store (score as real part, the label as imaginary part, 0 or 1); with a
weight, the evaluator appends two under its lock in one ``list.extend``: the score with the
label plus :data:`WEIGHTED_PART` as imaginary part, then the weight.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from rankeval.points import BoolArray, FloatArray, weight_sums
from rankeval.scored.accumulation import Accumulation
from rankeval.scored.sorting import id_order, run_starts
from rankeval.scored.store import (
    _VERSIONS,
    BATCH_STAGE_LIMIT,
    PENDING_LIMIT,
    CaseStore,
    merge_columns,
    search_left_and_right,
)

if TYPE_CHECKING:
    from rankeval.scored.state_file import EvaluatorState

__all__ = [
    "NO_WEIGHTED_MEANING",
    "WEIGHTED_PART",
    "WeightParts",
    "WeightedArrival",
    "WeightedStore",
    "WeightedTimeWindowStore",
    "WeightedWindowStore",
    "canonical_order",
    "unweighted_read",
]

#: Added to a pending weighted case's imaginary part (its label, 0 or 1): the entry after it
#: is its weight.
WEIGHTED_PART = 2.0

Batch = tuple[BoolArray, FloatArray, FloatArray]  # labels, keys, weights


#: The reads that count cases by rank, with no weighted meaning (scikit-learn has none).
NO_WEIGHTED_MEANING = frozenset({"precision_at", "r_precision", "reciprocal_rank",
                                 "pr_breakeven_point"})


def unweighted_read(read: str) -> NoReturn:
    """Refuse, on an evaluator holding weighted cases, a read it does not give weighted:
    one with no weighted meaning (:data:`NO_WEIGHTED_MEANING`), or one not weighted yet."""
    if read in NO_WEIGHTED_MEANING:
        raise ValueError(
            f"{read} has no weighted meaning (a rank counts cases, not weights; scikit-learn "
            "has none either): this evaluator holds weighted cases")
    raise ValueError(f"{read} is not computed on weighted cases yet: this evaluator holds "
                     "weighted cases (its curves, areas, average precision, maximum F, "
                     "decision and calibration reads and bootstrap intervals are weighted)")


def canonical_order(keys: FloatArray, labels: BoolArray, weights: FloatArray) -> NDArray[Any]:
    """An order that sorts cases by key, then label, then weight: the one order in which a
    weighted store sums its weights (see the module text). Cases equal in all three may come
    in any order: they are the same case.

    >>> canonical_order(np.array([-1.0, -2.0, -1.0]), np.array([True, False, False]),
    ...                 np.array([1.0, 1.0, 0.5])).tolist()
    [1, 2, 0]

    One unstable sort of the keys (NumPy's vectorised sort); then, among the cases whose key
    ties another, an unstable sort by (label, weight) packed in one uint64 and a stable sort by
    tie block (:func:`~rankeval.scored.sorting.id_order`: radix passes while there are fewer
    than 2^32 blocks). Complexity: O(n log n).
    """
    order = np.argsort(keys)
    if keys.shape[0] < 2:
        return order
    starts = run_starts(keys[order])
    if starts.all():
        return order
    # The rows (in key order) in a block of two or more, and each one's block.
    tied = ~starts
    tied[:-1] |= tied[1:]
    rows = np.flatnonzero(tied)
    block = np.cumsum(starts, dtype=np.int64)[rows]
    block -= block[0]
    cases = order[rows]
    # Weights are >= 0, so their bits sort as they do; the label goes above them.
    second = weights[cases].view(np.uint64) | (labels[cases].astype(np.uint64) << np.uint64(63))
    by_second = np.argsort(second)
    by_block = id_order(block[by_second])
    order[rows] = cases[by_second[by_block]]
    return order


def in_canonical_order(keys: FloatArray, labels: BoolArray, weights: FloatArray) -> bool:
    """Whether cases are sorted by key, then label, then weight (for the store's checks)."""
    later, same = keys[1:] > keys[:-1], keys[1:] == keys[:-1]
    label_up = labels[1:] > labels[:-1]
    label_same = labels[1:] == labels[:-1]
    weight_up = weights[1:] >= weights[:-1]
    return bool((later | (same & (label_up | (label_same & weight_up)))).all())


class WeightedStore(CaseStore):
    """Weighted cases in their canonical order (see the module text): the interface of
    :class:`~rankeval.scored.store.CaseStore`, with weighted totals.

    :attr:`pos_added` and :attr:`neg_added` are the sums of the positives' and negatives'
    weights (floats); :attr:`size` is the number of cases held. Reads by rank (precision at a
    rank, the reciprocal rank) have no weighted meaning and raise. A fold sorts the new cases
    and merges them in: O(n + m log m), or O((n + m) log(n + m)) when a new score equals one
    held (the merged tie block is sorted again into the canonical order).
    """

    __slots__ = ("_cases", "_weights")

    COUNTS_PENDING = False
    KEEPS_ARRIVAL = False
    TAKES_COUNTS = True
    STAGES_BATCHES = True

    def __init__(self, key_dtype: Any = np.float64) -> None:
        super().__init__("grouped", key_dtype)
        self._weights = np.zeros(0, dtype=np.float64)
        self._cases = 0
        self.pos_added: float = 0.0  # type: ignore[assignment]
        self.neg_added: float = 0.0  # type: ignore[assignment]

    @classmethod
    def of(cls, store: CaseStore) -> WeightedStore:
        """The cases of a folded unweighted store, each of weight 1, sharing its pending
        list (a racing unweighted add lands in it and is kept). Complexity: O(n log n)."""
        weighted = cls(store.key_dtype)
        weighted.pending, weighted.taken = store.pending, store.taken
        store.merge_tiers()
        keys, labels = store.ranking()
        weighted._set(labels, keys, np.ones(keys.shape[0], dtype=np.float64), sort=True)
        return weighted

    @property
    def size(self) -> int:
        """Number of cases held (folded ones)."""
        return self._cases

    def total(self) -> float:  # type: ignore[override]
        """R + N of the folded cases: the sum of every weight."""
        return self.pos_added + self.neg_added

    def counts(self) -> tuple[float, float]:  # type: ignore[override]
        """(positive, negative) weight of the folded cases. Complexity: O(1)."""
        return self.pos_added, self.neg_added

    def successor(self) -> WeightedStore:
        clone = super().successor()
        clone._weights, clone._cases = self._weights, self._cases
        return clone

    # ------------------------------------------------------------- mutation
    def add_batch(self, labels: BoolArray, keys: FloatArray,
                  weights: FloatArray | None = None) -> None:
        """Stage cases with their weights (1 each if None) until the next read."""
        if weights is None:
            weights = np.ones(keys.shape[0], dtype=np.float64)
        if not keys.shape[0]:
            return
        if len(self.pending) > self.taken:  # older than the batch: staged first
            self._push_weighted(self._take_weighted())
        self._push_weighted((labels, keys, weights))
        if self._staged_count >= self._stage_limit():
            self.fold()

    def stage(self) -> None:
        """Move the pending adds into arrays, and fold if enough are staged. O(p)."""
        self._push_weighted(self._take_weighted())
        if self._staged_count >= self._stage_limit():
            self.fold()

    def _stage_limit(self) -> int:
        # As the unweighted store's batches: staged until a read, at most this many.
        return BATCH_STAGE_LIMIT

    def fold(self) -> bool:
        """Sort the pending and staged cases in. Complexity: see the class text."""
        if not self.unfolded():
            return False
        batches: list[Any] = [*self._staged, self._take_weighted()]
        self._staged, self._staged_count = [], 0
        labels, keys, weights = (np.concatenate([batch[i] for batch in batches])
                                 for i in range(3))
        kept = weights > 0.0
        if not kept.all():
            labels, keys, weights = labels[kept], keys[kept], weights[kept]
        if not keys.shape[0]:
            return True
        order = canonical_order(keys, labels, weights)
        labels, keys, weights = labels[order], keys[order], weights[order]
        if self._cases == 0:
            self._set(labels, keys, weights, sort=False)
            return True
        held = self._main.keys
        narrow = keys.astype(held.dtype, copy=False)  # float32 keys: checked to fit
        lt, le = search_left_and_right(held, narrow, tied=False)
        if (lt != le).any():  # a new score ties a held one: the merged block is sorted again
            self._set(np.concatenate((self._main.labels, labels)),
                      np.concatenate((held, keys)),
                      np.concatenate((self._weights, weights)), sort=True)
            return True
        merged = merge_columns(held, keys, ((held, narrow), (self._main.labels, labels),
                                            (self._weights, weights)), slots=le)
        self._set(merged[1], merged[0], merged[2], sort=False)
        return True

    def _set(self, labels: BoolArray, keys: FloatArray, weights: FloatArray, sort: bool) -> None:
        """Hold these cases (in canonical order, or sorted into it first); count the totals."""
        from rankeval.scored.store import _Run

        if sort:
            order = canonical_order(keys, labels, weights)
            labels, keys, weights = labels[order], keys[order], weights[order]
        if keys.dtype != self.key_dtype:
            keys = keys.astype(self.key_dtype)
        self.version = next(_VERSIONS)
        self._main = _Run(keys, labels)
        self._weights = weights
        self._cases = int(keys.shape[0])
        positive, negative = weight_sums(labels, weights)
        self.pos_added = float(positive[-1]) if self._cases else 0.0
        self.neg_added = float(negative[-1]) if self._cases else 0.0

    def _push_weighted(self, batch: Batch) -> None:
        if batch[1].shape[0]:
            self._staged.append(batch)  # type: ignore[arg-type]
            self._staged_count += batch[1].shape[0]

    def _take_weighted(self) -> Batch:
        """The pending adds as (labels, keys, weights), counted off the list (see the module
        text for the weighted ones' two entries)."""
        pending = self.pending
        count = len(pending)
        batch = np.array(pending[self.taken : count], dtype=np.complex128)
        self.taken = count
        part = batch.imag
        heads = part >= WEIGHTED_PART
        if not heads.any():
            return part != 0.0, np.negative(batch.real), np.ones(batch.shape[0])
        weights = np.ones(batch.shape[0])
        after = np.flatnonzero(heads) + 1
        weights[heads] = batch.real[after]
        keep = np.ones(batch.shape[0], dtype=np.bool_)
        keep[after] = False
        return (part[keep] % WEIGHTED_PART != 0.0, np.negative(batch.real[keep]),
                weights[keep])

    def merge_tiers(self) -> None:
        """Nothing to do: the cases are one tier."""

    def one_tier(self) -> bool:
        return not self._staged

    def copy(self) -> WeightedStore:
        clone = self.successor()
        clone.pending, clone.taken = self.pending[self.taken :], 0
        return clone

    # ---------------------------------------------------------------- reads
    def weighted_ranking(self) -> tuple[FloatArray, BoolArray, FloatArray]:
        """Keys, labels and weights in the canonical order (of a folded store)."""
        return self._main.keys, self._main.labels, self._weights

    def replay(self) -> tuple[FloatArray, BoolArray]:
        unweighted_read("an unweighted replay")

    def to_state(self, pos_missed: int, neg_missed: int) -> EvaluatorState:
        """The saved state: the cases in canonical order with their weights (flag 4)."""
        from rankeval.scored.state_file import EvaluatorState

        keys, labels, weights = self.weighted_ranking()
        return EvaluatorState("grouped", keys.astype(np.float64, copy=False), labels,
                              pos_missed, neg_missed, None, None, keys.shape[0],
                              score_dtype=str(self.key_dtype.name), weights=weights)

    def restore(self, state: EvaluatorState) -> None:
        """Take a saved state's weighted cases (validated: in canonical order)."""
        assert state.weights is not None
        self._set(state.labels, state.keys.copy(), state.weights, sort=False)

    def precision_at(self, rank: int) -> float:
        unweighted_read("precision_at")

    def reciprocal_rank(self) -> float:
        unweighted_read("reciprocal_rank")

    def _check(self) -> None:
        keys, labels, weights = self.weighted_ranking()
        assert keys.shape == labels.shape == weights.shape == (self._cases,)
        assert bool((weights > 0).all())
        assert bool(np.isfinite(weights).all())
        assert in_canonical_order(keys, labels, weights)
        positive, negative = weight_sums(labels, weights)
        assert self.pos_added == (float(positive[-1]) if self._cases else 0.0)
        assert self.neg_added == (float(negative[-1]) if self._cases else 0.0)


class WeightedArrival(WeightedStore):
    """A window's weighted cases in arrival order (``_arrival``: labels, keys, weights, a
    weight of 0 included) beside those of positive weight in canonical order."""

    __slots__ = ("_arrival",)

    def __init__(self, key_dtype: Any = np.float64) -> None:
        super().__init__(key_dtype)
        self._arrival: Batch = (np.zeros(0, dtype=np.bool_), np.zeros(0), np.zeros(0))

    def successor(self) -> Any:
        clone = super().successor()
        assert isinstance(clone, WeightedArrival)
        clone._arrival = self._arrival
        return clone

    def _settle(self) -> None:
        """Hold the window's cases of positive weight, in canonical order."""
        labels, keys, weights = self._arrival
        kept = weights > 0.0
        self._set(labels[kept], keys[kept], weights[kept], sort=True)

    def weighted_arrival(self) -> tuple[FloatArray, BoolArray, FloatArray]:
        """Keys, labels and weights of the window's cases, oldest first (of a folded store)."""
        labels, keys, weights = self._arrival
        return keys, labels, weights

    def replay(self) -> tuple[FloatArray, BoolArray]:
        unweighted_read("an unweighted replay")

    def to_state(self, pos_missed: int, neg_missed: int) -> EvaluatorState:
        """The saved state: the window's cases in rank order with their ages (0 the oldest)
        and weights, as :mod:`rankeval.scored.state_file` lays a window out (a time window's
        times and clock too, :meth:`_saved_times`)."""
        from rankeval.scored.state_file import EvaluatorState

        labels, keys, weights = self._arrival
        n = keys.shape[0]
        order = np.argsort(keys, kind="stable")
        return EvaluatorState("grouped", keys[order], labels[order], pos_missed, neg_missed,
                              self.extent()[0], np.arange(n, dtype=np.int64)[order], n,
                              weights=weights[order], **self._saved_times(order))

    def _saved_times(self, order: NDArray[Any]) -> dict[str, Any]:
        """A time window's fields of its saved state, its cases in ``order``: none here."""
        return {}

    def restore(self, state: EvaluatorState) -> None:
        """Take a saved window's weighted cases, in arrival order (by age)."""
        assert state.weights is not None
        assert state.ages is not None
        order = np.argsort(state.ages, kind="stable")
        self._arrival = (state.labels[order], state.keys[order], state.weights[order])
        self._restore_times(state, order)
        self._settle()

    def _restore_times(self, state: EvaluatorState, order: NDArray[Any]) -> None:
        """Take a saved time window's times and clock (its cases in ``order``): none here."""

    def _check(self) -> None:
        super()._check()
        labels, keys, weights = self._arrival
        assert labels.shape == keys.shape == weights.shape
        assert self._cases == int(np.count_nonzero(weights))


class WeightedWindowStore(WeightedArrival):
    """The ``window`` most recent weighted cases: a :class:`WeightedStore` of the cases in
    the window, beside the window's cases in arrival order.

    The window counts cases as they were given, a case of weight 0 too (it takes its place in
    the window and counts for nothing). A fold appends the new cases to the arrival arrays,
    keeps the last ``window`` and sorts those of positive weight into the canonical order
    again: O(W log W) a read after a change (the unweighted window's reads are O(log W)).
    """

    __slots__ = ("window",)

    COUNTS_PENDING = False
    KEEPS_ARRIVAL = True
    TAKES_COUNTS = False  # a window lets its oldest cases go; counts have no arrival order
    STAGES_BATCHES = True

    def __init__(self, window: int, key_dtype: Any = np.float64) -> None:
        super().__init__(key_dtype)
        self.window = window

    @classmethod
    def of_window(cls, store: CaseStore, window: int) -> WeightedWindowStore:
        """The cases of a folded unweighted window, each of weight 1, in arrival order,
        sharing its pending list."""
        weighted = cls(window, store.key_dtype)
        weighted.pending, weighted.taken = store.pending, store.taken
        keys, labels = store.replay()
        weighted._arrival = (labels, keys.astype(np.float64),
                             np.ones(keys.shape[0], dtype=np.float64))
        weighted._settle()
        return weighted

    def extent(self) -> tuple[int | None, float | None]:
        return self.window, None

    def successor(self) -> WeightedWindowStore:
        clone = super().successor()
        assert isinstance(clone, WeightedWindowStore)
        clone.window = self.window
        return clone

    def fold(self) -> bool:
        """Append the pending and staged cases, keep the last ``window``, sort them."""
        if not self.unfolded():
            return False
        batches: list[Any] = [self._arrival, *self._staged, self._take_weighted()]
        self._staged, self._staged_count = [], 0
        labels, keys, weights = (np.concatenate([batch[i] for batch in batches])[-self.window:]
                                 for i in range(3))
        self._arrival = (labels, keys, weights)
        self._settle()
        return True

    def _stage_limit(self) -> int:
        # A fold sorts the window again (O(W log W)): stage a window's worth between folds.
        return max(self.window, PENDING_LIMIT)

    def _check(self) -> None:
        super()._check()
        assert self._arrival[1].shape[0] <= self.window


class WeightedTimeWindowStore(WeightedArrival):
    """The weighted cases of the last ``horizon`` seconds: the time window's rules (see
    :mod:`rankeval.scored.time_window`: each time raised to the latest before it and to the
    window's time, cases leaving at ``now - horizon``) over a :class:`WeightedStore` of the
    cases held, sorted into the canonical order again at each fold that changes them.

    A pending add is ``(case, time)`` (weight 1) or ``(case + WEIGHTED_PART·i, time,
    weight)``, appended whole.
    """

    __slots__ = ("_times", "horizon", "latest", "now")

    COUNTS_PENDING = False
    KEEPS_ARRIVAL = True
    TAKES_COUNTS = False
    STAGES_BATCHES = False

    def __init__(self, horizon: float, key_dtype: Any = np.float64) -> None:
        super().__init__(key_dtype)
        self.horizon = horizon
        self.now = -math.inf
        self.latest = -math.inf
        self._times: FloatArray = np.zeros(0)

    @classmethod
    def of_time_window(cls, store: Any) -> WeightedTimeWindowStore:
        """The cases of a folded unweighted time window, each of weight 1, with their times
        and the window's two times, sharing its pending list."""
        weighted = cls(store.horizon, store.key_dtype)
        weighted.pending, weighted.taken = store.pending, store.taken
        keys, labels, times, now, latest = store.timed_cases()
        weighted._arrival = (labels, keys.astype(np.float64), np.ones(keys.shape[0]))
        weighted._times = times
        weighted.now, weighted.latest = now, latest
        weighted._settle()
        return weighted

    def extent(self) -> tuple[int | None, float | None]:
        return None, self.horizon

    def successor(self) -> WeightedTimeWindowStore:
        clone = super().successor()
        assert isinstance(clone, WeightedTimeWindowStore)
        clone.horizon, clone.now, clone.latest = self.horizon, self.now, self.latest
        clone._times = self._times
        return clone

    def _expired(self, now: float) -> int:
        """How many of the oldest cases have a time at or before ``now - horizon``."""
        return int(np.searchsorted(self._times, now - self.horizon, side="right"))

    def due(self, now: float) -> bool:
        return len(self.pending) > self.taken or self._expired(now) > 0

    def unfolded(self) -> bool:
        return self.due(self.now)

    def stage(self) -> None:
        """No staging: the times stay with their cases in the pending list."""
        self.fold()

    def add_batch(self, labels: BoolArray, keys: FloatArray,
                  weights: FloatArray | None = None) -> None:
        raise AssertionError("a time window takes timed cases (see add_timed)")

    def fold(self, now: float | None = None) -> bool:
        """Take in the pending adds, move the window's time to ``now`` if later, and let the
        cases older than the horizon go."""
        changed = False
        labels, keys, weights, times = (*self._arrival, self._times)
        if len(self.pending) > self.taken:
            new_labels, new_keys, new_weights, new_times = self._take_timed()
            labels = np.concatenate((labels, new_labels))
            keys = np.concatenate((keys, new_keys))
            weights = np.concatenate((weights, new_weights))
            times = np.concatenate((times, new_times))
            changed = True
        if now is not None:
            self.now = max(self.now, now)
        expired = int(np.searchsorted(times, self.now - self.horizon, side="right"))
        if expired:
            labels, keys = labels[expired:], keys[expired:]
            weights, times = weights[expired:], times[expired:]
            changed = True
        if changed:
            self._arrival, self._times = (labels, keys, weights), times
            self._settle()
        return changed

    def _take_timed(self) -> tuple[BoolArray, FloatArray, FloatArray, FloatArray]:
        """The pending adds as arrays with their times, raised as the time window's are."""
        pending = self.pending
        count = len(pending)
        entries: list[Any] = pending[self.taken : count]
        batch = np.array([entry[0] for entry in entries], dtype=np.complex128)
        weights = np.array([entry[2] if len(entry) > 2 else 1.0 for entry in entries],
                           dtype=np.float64)
        times = np.array([max(self.latest, self.now), *(entry[1] for entry in entries)],
                         dtype=np.float64)
        np.maximum.accumulate(times, out=times)
        self.latest = float(times[-1])
        self.taken = count
        return (batch.imag % WEIGHTED_PART != 0.0, np.negative(batch.real), weights,
                times[1:])

    def timed_cases(self) -> tuple[FloatArray, BoolArray, FloatArray, float, float]:
        labels, keys, _ = self._arrival
        return keys, labels, self._times, self.now, self.latest

    def merged_by_time(self, theirs: tuple[FloatArray, BoolArray, FloatArray, FloatArray,
                                           float, float]) -> WeightedTimeWindowStore:
        """A new store: this window's cases and ``theirs`` (keys, labels, weights, times,
        now, latest) in time order, this one's first among equal times."""
        their_keys, their_labels, their_weights, their_times, their_now, their_latest = theirs
        labels, keys, weights = self._arrival
        times = np.concatenate((self._times, their_times))
        order = np.argsort(times, kind="stable")
        merged = WeightedTimeWindowStore(self.horizon, self.key_dtype)
        merged.pending, merged.taken = self.pending, self.taken
        merged.now, merged.latest = max(self.now, their_now), max(self.latest, their_latest)
        merged._arrival = (np.concatenate((labels, their_labels))[order],
                           np.concatenate((keys, their_keys))[order],
                           np.concatenate((weights, their_weights))[order])
        merged._times = times[order]
        merged.fold()  # the pending adds, then what the merged time lets go
        merged._settle()
        return merged

    def timeline(self) -> tuple[NDArray[Any], ...]:
        labels, keys, weights = self._arrival
        order = np.lexsort((weights, labels, keys, self._times))
        return self._times[order], keys[order], labels[order], weights[order]

    def _saved_times(self, order: NDArray[Any]) -> dict[str, Any]:
        return {"horizon": self.horizon, "times": self._times[order], "now": self.now,
                "last_time": self.latest}

    def _restore_times(self, state: EvaluatorState, order: NDArray[Any]) -> None:
        assert state.times is not None
        self._times = state.times[order]
        self.now, self.latest = state.now, state.last_time

    def _check(self) -> None:
        super()._check()
        assert self._times.shape == self._arrival[1].shape
        assert bool(np.all(self._times[1:] >= self._times[:-1]))
        assert not self._times.size or self._times[0] > self.now - self.horizon


class WeightParts(Accumulation):
    """The weights of an accumulator that keeps its cases as a list of arrays (the
    multi-category and paired evaluations): ``_weights``, aligned with the cases
    (``_labels``), is None until a weight is given."""

    _weights: list[FloatArray] | None
    _labels: list[NDArray[Any]]

    def _aligned(self, mine: dict[str, Any], theirs: dict[str, Any]
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Both parts, the weights aligned: when one side is weighted, the other's cases
        weigh 1 each."""
        if (mine["_weights"] is None) != (theirs["_weights"] is None):
            for view in (mine, theirs):
                if view["_weights"] is None:
                    view["_weights"] = [np.ones(sum(part.shape[0] for part in view["_labels"]))]
        return mine, theirs

    @property
    def weighted(self) -> bool:
        """Whether the cases carry weights (a weight was given since it was made or reset)."""
        return self._weights is not None

    def _weight_array(self) -> FloatArray | None:
        """Each case's weight (one array from now on), or None when unweighted."""
        if self._weights is None:
            return None
        if len(self._weights) != 1:
            self._weights = [np.concatenate(self._weights) if self._weights else np.zeros(0)]
        return self._weights[0]
