"""``ScoredPrecisionRecallEvaluation``: state, lock and cache; no formulas, no text.

The formulas live in :mod:`rankeval.scored.curves` and :mod:`rankeval.formulas`, the
storage (and what differs between a plain store and the windows) in
:mod:`rankeval.scored.store` and its subclasses, LingPipe's spellings and report text in
:mod:`rankeval.scored.lingpipe`; this module validates input, guards state with a lock and
caches derived values until the next mutation.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any, ClassVar, NoReturn, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike

from rankeval import formulas
from rankeval._deprecation import deprecated
from rankeval.checks import (
    betas_of,
    check_beta,
    check_case_arrays,
    check_choice,
    check_correct,
    check_count,
    check_count_arrays,
    check_flag,
    check_float32_scores,
    check_horizon,
    check_int,
    check_rank,
    check_real,
    check_score,
    check_score_dtype,
    check_scores,
    check_ties,
    check_total,
    check_weight,
    check_weight_array,
    check_window,
    fits_float32,
    float32_error,
)
from rankeval.formulas import TiePolicy
from rankeval.points import (
    BoolArray,
    FloatArray,
    IntArray,
    OperatingPoints,
    operating_points,
)
from rankeval.scored import curves
from rankeval.scored import store as _store_module
from rankeval.scored.accumulation import Accumulation, Part, added, kept, zero
from rankeval.scored.calibration import CalibrationReads
from rankeval.scored.decisions import (
    Asks,
    Cuts,
    DecisionReads,
    asks_of,
    cuts,
    davis_goadrich_area,
)
from rankeval.scored.lingpipe import LingPipeSpellings
from rankeval.scored.metric_names import MetricSpellings
from rankeval.scored.partitioned import PartitionedReport, Request, ranking_report
from rankeval.scored.readers import summary_of
from rankeval.scored.store import LABEL_PART as _LABEL_PART
from rankeval.scored.store import CaseStore, expand_counts
from rankeval.scored.time_window import TimeWindowStore
from rankeval.scored.uncertainty import IntervalReads
from rankeval.scored.weighted import (
    WEIGHTED_PART,
    WeightedArrival,
    WeightedStore,
    WeightedTimeWindowStore,
    WeightedWindowStore,
    unweighted_read,
)
from rankeval.scored.weighted_parts import WeightedReport, weighted_roc_auc
from rankeval.scored.window import WindowStore

__all__ = ["ScoredPrecisionRecallEvaluation"]

_T = TypeVar("_T")

_PRECISION_AT_RANKS = formulas.PRECISION_AT_RANKS
# Above this many ranked cases, the values derived from the curves (AP, the PR areas, the
# eleven points, maximum F, downsampled curves) are read bucket by bucket (see report()),
# never from full operating points: ~40 bytes a case that a billion cases could not spare.
LARGE_CASES = 1 << 24
# Bytes a case of the full operating points and one curve built from them (tp, fp, score,
# recall, precision and two curve columns), and the share of free memory they may take.
_POINT_BYTES = 56
_FREE_SHARE = 0.8
_READ_ONLY = "this evaluation is a read-only snapshot; add to the live evaluator"


class _RefusingList(list[complex]):
    """A snapshot's pending list: an add's append raises, so add_case need not check."""

    __slots__ = ()

    def append(self, case: complex, /) -> None:
        raise TypeError(_READ_ONLY)

Self = TypeVar("Self", bound="ScoredPrecisionRecallEvaluation")

# A weighted add_case's pending entry: the case with WEIGHTED_PART added to its label part.
_WEIGHTED_HEAD = complex(0.0, WEIGHTED_PART)


def _never(evaluation: object) -> float:
    """A time before any: no clock reading or stamp yet."""
    return -math.inf


class ScoredPrecisionRecallEvaluation(LingPipeSpellings, MetricSpellings, IntervalReads,
                                      CalibrationReads, DecisionReads, Accumulation):
    """Incremental evaluation of scored binary decisions, exact at every step.

    Cases arrive one at a time (:meth:`add_case`) or in bulk
    (:meth:`add_cases`); relevant items the system never returned are declared
    with :meth:`add_misses`, negatives it never saw with
    :meth:`add_negative_misses`. Curves and summary values follow LingPipe
    4.1.0's ``ScoredPrecisionRecallEvaluation`` exactly (see
    ``docs/semantics.md``), with the documented fixes: R-precision is
    precision at rank R, ``beta`` must be positive, NaN scores are refused.

    Parameters
    ----------
    ties : {"grouped", "insertion"}
        ``"grouped"`` (the default, as scikit-learn, pROC and torchmetrics): equal
        scores form one block that enters the ranking at once; every result is
        independent of arrival order (ROC area = the Mann-Whitney statistic with ties
        counted one half; rank-based values are expectations over the orders inside a
        block). ``"insertion"``: LingPipe's compatibility mode, among equal scores the
        case added first ranks first, so results can depend on arrival order (LingPipe's
        values bit for bit). Without tied scores the two agree.
    window : int, optional
        Keep only the ``window`` most recent cases; every derived value is then
        exact over those cases (misses are counts, not cases, and are kept).

    Notes
    -----
    Complexity: adding a case is O(1) amortised; counts, the uninterpolated
    ROC area, :meth:`precision_at`, :meth:`r_precision` and
    :meth:`reciprocal_rank` are O(log n) reads at any time; curves and the
    values derived from them cost O(n) after a change and O(1) when cached.
    Memory: about 9.25 bytes a case (5.25 with ``score_dtype="float32"``); a change that
    merges the whole store briefly needs twice that. :meth:`report` reads every value of a
    store of any size in bounded memory.

    Thread safety: share one evaluator between any number of threads.
    :meth:`add_case` takes no lock (it appends one tuple to a list, which is
    atomic); every other method holds one re-entrant lock, and every read
    first sorts in the cases added so far. So concurrent adds never lose a
    case, and every read is computed from one consistent state, as if the
    calls had happened in some order (an add racing with a read may or may not
    be included in it). Returned arrays are read-only and never change
    afterwards.

    Examples
    --------
    LingPipe's documented running example, 10 cases and one miss:

    >>> ev = ScoredPrecisionRecallEvaluation()
    >>> for correct, score in [(False, -1.21), (True, -1.27), (False, -1.39),
    ...                        (True, -1.47), (True, -1.6), (False, -1.65),
    ...                        (False, -1.79), (False, -1.8), (True, -2.01),
    ...                        (False, -3.7)]:
    ...     ev.add_case(correct, score)
    >>> ev.add_misses(1)
    >>> ev.average_precision(), ev.reciprocal_rank(), ev.r_precision()
    (0.40888888888888886, 0.5, 0.6)
    >>> ev.area_under_roc_curve(), ev.area_under_roc_curve(interpolate=True)
    (0.4666666666666667, 0.55)
    """

    def __init__(
        self,
        ties: TiePolicy = "grouped",
        window: int | None = None,
        *,
        horizon: float | timedelta | None = None,
        clock: Callable[[], float] | None = None,
        score_dtype: str | type | np.dtype[Any] = "float64",
    ) -> None:
        seconds = check_horizon(horizon)
        dtype = check_score_dtype(score_dtype)
        if dtype == "float32" and (window is not None or seconds is not None):
            raise ValueError("score_dtype='float32' applies to the unbounded evaluator: a "
                             "window holds a bounded number of cases already")
        if seconds is not None and window is not None:
            raise ValueError("give a window of cases or a horizon of time, not both")
        if clock is not None and seconds is None:
            raise ValueError("clock applies to a time window: give horizon too")
        if clock is not None and not callable(clock):
            raise TypeError(f"clock must be a function returning seconds, got {clock!r}")
        # The wall clock by default: its times mean the same in the next process (a
        # saved window), and in a log's timestamps. It may step back: see _folded and _add_timed.
        self._clock: Callable[[], float] | None = (
            None if seconds is None else (clock or time.time))
        self._attach(_new_store(check_ties(ties), check_window(window), seconds, dtype),
                     read_only=False)
        for name, part in self._STATE.items():
            setattr(self, name, part.empty(self))
        self._fresh_derived()

    # ------------------------------------------------- the declared state
    # Besides the store (cases; made by _new_store, attached by _attach, merged by merge()
    # in arrival or time order) and the settings (ties, window or horizon, score dtype,
    # clock, read-only), an evaluator's state is these parts (rankeval.scored.accumulation),
    # each with its value when new and after reset() and its merge rule. __init__, pickling,
    # snapshots and copies go through this one list, and merge() merges the miss counts by
    # their rules (_merged_misses); _publish and reset set them with the store in one
    # call-free assignment (see _publish), which a loop could not be.
    _STATE: ClassVar[dict[str, Part]] = {
        "_pos_missed": Part(zero, added),  # positives declared missed
        "_neg_missed": Part(zero, added),  # negatives declared missed
        # The latest time add_case took from this evaluator's clock: its own reading, which
        # a merge keeps (the merged cases' times are in the store).
        "_clock_latest": Part(_never, kept),
        # The latest time _add_timed stamped. Apart from _clock_latest on purpose: add_case
        # writes that one without the lock, and could overwrite a later stamp with its own.
        "_time_high": Part(_never, kept),
    }
    _pos_missed: int
    _neg_missed: int
    _clock_latest: float
    _time_high: float

    def _fresh_derived(self) -> None:
        """What is derived from the state, never saved: the cache, summary()'s pin, the lock."""
        self._cache: dict[object, Any] = {}
        self._cache_state: tuple[int, int, int] | None = None
        self._pinned: CaseStore | None = None  # the one state summary() reads
        self._lock = threading.RLock()

    @property
    def ties(self) -> TiePolicy:
        """The tie policy, ``"insertion"`` or ``"grouped"``."""
        return self._store.ties

    @property
    def window(self) -> int | None:
        """How many of the most recent cases are kept (None: all of them)."""
        return self._store.extent()[0]

    @property
    def score_dtype(self) -> str:
        """How scores are stored: ``"float64"``, or ``"float32"`` (exact for float32 scores)."""
        return str(self._store.key_dtype.name)

    @property
    def horizon(self) -> float | None:
        """Seconds of cases kept by a time window (None: not a time window)."""
        return self._store.extent()[1]

    def __repr__(self) -> str:
        with self._lock:
            cases = sum(self._folded().counts())
            pos_missed, neg_missed = self._pos_missed, self._neg_missed
            weighted = self.weighted
        held = f"cases of total weight {cases!r}" if weighted else f"{cases} cases"
        return (
            f"{type(self).__name__}(ties={self.ties!r}, {self._extent()}{self._dtype_text()}) with "
            f"{held}, {pos_missed} misses, {neg_missed} negative misses"
        )

    # ------------------------------------------------- the one mutable state
    # Every change is built aside (a store successor, new miss counts) and
    # then published by _publish, whose assignments make no call: CPython runs
    # signal handlers (KeyboardInterrupt) only at calls and loop back-edges, so
    # a failure anywhere in a change, a MemoryError or an interrupt included,
    # leaves the evaluator exactly as it was. Callers hold the lock.
    def _publish(self, store: CaseStore, pos_missed: int, neg_missed: int) -> None:
        self._store, self._pos_missed, self._neg_missed = store, pos_missed, neg_missed
        taken = store.taken
        if taken:
            try:
                del store.pending[:taken]  # the cases now in the store
                store.taken = 0
            except MemoryError:
                pass  # they stay counted off; the next publish deletes them
        _store_module.release_heap(only_if_due=True)  # after a large merge (see there)

    def _folded(self) -> CaseStore:
        """The store with every pending add sorted in (published if that changed it).

        A time window also lets the cases older than the horizon go, by the clock.
        """
        if self._pinned is not None:  # summary() reads one state
            return self._pinned
        store = self._store
        if self._clock is not None:
            store = _timed(store)
            now = self._now()
            if store.due(now):
                store = store.successor()
                store.fold(now)
                self._publish(store, self._pos_missed, self._neg_missed)
            elif now > store.now:
                # Nothing to take in or let go, but the window's time moves on: a case
                # added after a clock steps back takes it (one assignment, under the lock).
                store.now = now
            return store
        if store.unfolded():
            store = store.successor()
            store.fold()
            self._publish(store, self._pos_missed, self._neg_missed)
        return store

    def _merged(self) -> CaseStore:
        """The store folded and in one tier, so that its ranking can be read."""
        store = self._folded()
        if not store.one_tier():  # an add racing in stays pending
            store = store.successor()
            store.merge_tiers()
            self._publish(store, self._pos_missed, self._neg_missed)
            if self._pinned is not None:
                self._pinned = store  # the same cases, in one tier
        return store

    # ------------------------------------------------------------ mutators
    def add_case(self, correct: bool, score: float, timestamp: float | None = None, *,
                 weight: float | None = None) -> None:
        """Add one scored case.

        Parameters
        ----------
        correct : bool
            Whether the case is a positive (a bool, NumPy bool, or 0/1).
        score : float
            Any real number except NaN; ±inf sort normally.
        timestamp : float, optional
            A time window only: the case's time in the clock's seconds (default: the clock
            now), for replaying logs; never earlier than the previous case's.
        weight : float, optional
            The case's weight: finite and non-negative, 0 counting for nothing. Given once,
            the evaluator holds weighted cases from then on (:attr:`weighted`; its earlier
            cases weigh 1): every read with a weighted meaning has it, the others raise
            (``docs/semantics.md#weighted-cases``). Needs ``ties="grouped"``.

        Raises
        ------
        TypeError, ValueError
            On bad input, without changing anything.

        Notes
        -----
        Complexity: O(1) amortised; the case is sorted in by the next read.
        """
        if (correct is True or correct is False) and type(score) is float and score == score:
            case = score - _LABEL_PART[correct]  # the common case, validated inline for speed
        else:
            case = check_score(score) - _LABEL_PART[check_correct(correct)]
        if self._float32 and not fits_float32(case.real):
            raise float32_error(case.real)
        if weight is not None:
            self._add_weighted_case(case, check_weight(weight), timestamp)
            return
        clock = self._clock
        now = 0.0
        if clock is not None or timestamp is not None:
            if timestamp is not None or clock is None:
                self._add_timed([case], [timestamp])
                return
            # A time window's pending add is the pair (case, time). Racing adds may append
            # their times out of order; the fold raises each time to the latest before it.
            now = clock()
            if type(now) is not float or now - now != 0.0:  # not a finite float: check it
                now = self._checked_time(now)
        # No lock: list.append is atomic, and folds consume the pending list by
        # prefix under the lock, so a racing add is never lost. A snapshot's
        # list refuses the append (see _attach). The append comes last: if
        # staging fails, nothing was added.
        pending = self._pending
        if len(pending) >= self._stage_at and not self._read_only:
            with self._lock:
                store = self._store
                if store.unfolded():
                    store = store.successor()
                    store.stage()
                    self._publish(store, self._pos_missed, self._neg_missed)
        if clock is None:
            pending.append(case)
            return
        pending.append((case, now))  # type: ignore[arg-type]
        if now > self._clock_latest:  # for timestamps given later (see _latest_time)
            self._clock_latest = now

    def add_cases(self, correct: ArrayLike, scores: ArrayLike,
                  timestamps: ArrayLike | None = None, *,
                  weights: ArrayLike | None = None) -> None:
        """Add many cases at once, in the given order (which settles ties).

        ``timestamps`` (a time window only) gives each case's time, as in :meth:`add_case`;
        ``weights`` each case's weight, as ``weight=`` there.

        All or nothing: if any element is invalid (or the lengths differ),
        nothing is added and the error names the first bad index.

        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True], [0.9, 0.8, 0.1])
        >>> ev.num_cases(), ev.precision_at(2)
        (3, 0.5)

        Complexity: O((n + m) + m log m) for m new cases.
        """
        labels, values = check_case_arrays(correct, scores)
        if self._float32:
            check_float32_scores(values)
        weight_array = None if weights is None else check_weight_array(weights,
                                                                         values.shape[0])
        if self._clock is not None or timestamps is not None:
            cases = (values - _LABEL_PART[1] * labels).tolist()  # as add_case makes them
            given = None if timestamps is None else list(np.asarray(timestamps).tolist())
            if given is not None and len(given) != len(cases):
                raise ValueError(f"timestamps has {len(given)} entries, scores {len(cases)}")
            self._add_timed(cases, given,
                            None if weight_array is None else weight_array.tolist())
            return
        if weight_array is not None:
            with self._lock:
                weighted = self._weighted_successor()
                weighted.add_batch(labels, np.negative(values, out=values), weight_array)
                self._publish(weighted, self._pos_missed, self._neg_missed)
            return
        keys = np.negative(values, out=values)  # values is our own copy: no second array
        with self._lock:
            if self._read_only:
                self._refuse()
            store = self._store.successor()
            store.add_batch(labels, keys)
            del labels, keys, values  # our copies: freed before the heap is released
            self._publish(store, self._pos_missed, self._neg_missed)

    @property
    def weighted(self) -> bool:
        """Whether this evaluator holds weighted cases: it has been given a weight
        (``weight=``, ``weights=``, counts of a float dtype) since it was made or reset."""
        return isinstance(self._store, WeightedStore)

    def _weights_need(self, what: str) -> NoReturn:
        raise ValueError(f"weighted cases need {what} (this evaluator: ties={self.ties!r}, "
                         f"{self._extent()})")

    def _weighted_successor(self) -> WeightedStore:
        """A weighted successor of the store: this one's, or the unweighted one's cases, each
        of weight 1. Callers hold the lock."""
        if self._read_only:
            self._refuse()
        if self.ties != "grouped":
            self._weights_need("ties='grouped' (a case of weight w is w tied copies of it, "
                               "which have no insertion order)")
        store = self._store
        if isinstance(store, WeightedStore):
            return store.successor()
        folded = store.successor()
        folded.fold()
        if self.horizon is not None:
            return WeightedTimeWindowStore.of_time_window(folded)
        if self.window is not None:
            return WeightedWindowStore.of_window(folded, self.window)
        return WeightedStore.of(folded)

    def _add_weighted_case(self, case: complex, weight: float, timestamp: object) -> None:
        """add_case with a weight: two pending entries, appended under the lock (see
        :mod:`rankeval.scored.weighted`); a time window's one triple."""
        if timestamp is not None or self._clock is not None:
            self._add_timed([case], None if timestamp is None else [timestamp], [weight])
            return
        with self._lock:
            if self._read_only:
                self._refuse()
            if not isinstance(self._store, WeightedStore):
                self._publish(self._weighted_successor(), self._pos_missed, self._neg_missed)
            if len(self._pending) >= self._stage_at:
                store = self._weighted_successor()
                store.stage()
                self._publish(store, self._pos_missed, self._neg_missed)
            self._pending.extend((case + _WEIGHTED_HEAD, complex(weight)))

    def add_counts(self, *old_order: ArrayLike, positives: ArrayLike | None = None,
                   negatives: ArrayLike | None = None, scores: ArrayLike | None = None) -> None:
        """Add cases already grouped by score: ``positives`` and ``negatives`` cases at each score.

        The arguments are named (truth first, as everywhere:
        ``add_counts(positives=..., negatives=..., scores=...)``). The earlier positional form
        ``add_counts(scores, positives, negatives)`` still works, with a
        ``DeprecationWarning``; a positional truth-first form is not offered, so that no
        earlier call can be read the other way.

        For data counted per score upstream (a ``GROUP BY score`` in SQL, Spark or DuckDB,
        a histogram): three scalars, or three arrays of one length; a score may come more
        than once. The result is exactly that of adding every case one by one, so it needs
        ``ties="grouped"``, where the order of equal scores does not matter: under the
        insertion policy a tie's order is its arrival order, which counts do not have, and a
        window evicts its cases by arrival order too, so both refuse.

        All or nothing: if any element is invalid, nothing is added and the error names the
        first bad index; cases are expanded a million at a time, never all at once.

        >>> ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        >>> ev.add_counts(positives=[2, 1], negatives=[0, 3], scores=[0.9, 0.5])
        >>> ev.num_cases(), ev.area_under_roc_curve()
        (6, 0.8333333333333334)

        Complexity: O(c log c) for c cases, like :meth:`add_cases` of them.
        """
        if old_order:
            if len(old_order) != 3 or (positives, negatives, scores) != (None, None, None):
                raise TypeError("add_counts takes positives=, negatives= and scores= by name "
                                "(or, deprecated, the three positionally as scores, positives, "
                                "negatives)")
            deprecated("add_counts(scores, positives, negatives) is deprecated: name them, "
                       "add_counts(positives=..., negatives=..., scores=...)")
            scores, positives, negatives = old_order
        if positives is None or negatives is None or scores is None:
            missing = [n for n, v in (("positives", positives), ("negatives", negatives),
                                      ("scores", scores)) if v is None]
            raise TypeError(f"add_counts needs {', '.join(missing)}")
        if self.weighted or _float_counts(positives, negatives):
            self._add_weighted_counts(scores, positives, negatives)
            return
        values, positives_in, negatives_in = check_count_arrays(scores, positives, negatives)
        if self._float32:
            check_float32_scores(values)
        if self.ties != "grouped":
            raise ValueError(
                "add_counts needs ties='grouped': under the insertion policy tied cases rank "
                "in arrival order, which counts per score do not have")
        if not self._store.TAKES_COUNTS:
            raise ValueError(
                "add_counts does not apply to a window: a window lets its oldest cases go, "
                "and counts per score have no arrival order")
        added_pos = _count_sum(positives_in)
        added_neg = _count_sum(negatives_in)
        with self._lock:
            if self._read_only:
                self._refuse()
            store = self._store.successor()
            store.fold()
            check_total(store.pos_added + added_pos + self._pos_missed, "numPositiveRef")
            check_total(store.neg_added + added_neg + self._neg_missed, "numNegativeRef")
            _check_cases_fit(added_pos + added_neg, 21 / 4 if self._float32 else 37 / 4)
            for labels, keys in expand_counts(values, positives_in, negatives_in):
                store.add_batch(labels, keys)
            self._publish(store, self._pos_missed, self._neg_missed)

    def _add_weighted_counts(self, scores: ArrayLike, positives: ArrayLike,
                             negatives: ArrayLike) -> None:
        """add_counts of weights: one positive and one negative case a score, weighing the
        positives' and the negatives' count (exactly those counts of unit cases, tied)."""
        if not self._store.TAKES_COUNTS:
            raise ValueError(
                "add_counts does not apply to a window: a window lets its oldest cases go, "
                "and counts per score have no arrival order")
        values = check_scores(scores)
        count = values.shape[0]
        pos = check_weight_array(np.atleast_1d(np.asarray(positives)), count, "positives")
        neg = check_weight_array(np.atleast_1d(np.asarray(negatives)), count, "negatives")
        if self._float32:
            check_float32_scores(values)
        labels = np.zeros(2 * count, dtype=np.bool_)
        labels[:count] = True
        keys = np.negative(np.concatenate((values, values)))
        with self._lock:
            store = self._weighted_successor()
            store.add_batch(labels, keys, np.concatenate((pos, neg)))
            self._publish(store, self._pos_missed, self._neg_missed)

    def _now(self) -> float:
        """The clock's time, checked (a time window only)."""
        assert self._clock is not None
        return self._checked_time(self._clock())

    @staticmethod
    def _checked_time(now: object) -> float:
        value = check_real(now, "the clock's time")
        if not math.isfinite(value):
            raise ValueError(f"the clock returned {now!r}; a time needs a finite number")
        return value

    def _latest_time(self) -> float:
        """The latest time given to a case so far. Callers hold the lock.

        Exact for adds made one after another. add_case updates ``_clock_latest`` without
        the lock, so a racing add may lose an update; the fold then still raises each time
        to the latest before it.
        """
        store = _timed(self._store)
        pending = self._pending
        last = pending[-1][1] if pending else -math.inf  # type: ignore[index]
        return max(store.latest, store.now, last, self._clock_latest, self._time_high)

    def _add_timed(self, cases: list[complex], times: list[Any] | None,
                   weights: list[float] | None = None) -> None:
        """A time window's adds given timestamps, or many at once: pairs (with ``weights``,
        triples ``(case, time, weight)``), under the lock."""
        if self._clock is None:
            raise TypeError("timestamps apply to a time window (horizon=...)")
        with self._lock:
            if self._read_only:
                self._refuse()
            if weights is not None and not self.weighted:
                self._publish(self._weighted_successor(), self._pos_missed, self._neg_missed)
            if times is None:
                stamped = [self._now()] * len(cases)  # the fold raises it if the clock stepped back
            else:
                stamped = [check_real(t, "timestamp") for t in times]
                previous = self._latest_time()
                for i, t in enumerate(stamped):
                    if not math.isfinite(t):
                        raise ValueError(f"timestamp {t!r} (case {i}) is not finite")
                    if not t >= previous:
                        raise ValueError(
                            f"timestamp {t!r} (case {i}) is earlier than the one before it "
                            f"or the window's time ({previous!r}); a time window takes "
                            "cases in time order")
                    previous = t
            pairs: list[Any] = list(zip(cases, stamped, strict=True))
            if weights is not None:
                pairs = [(case + _WEIGHTED_HEAD, t, w)
                         for case, t, w in zip(cases, stamped, weights, strict=True)]
            if stamped:
                self._time_high = max(self._time_high, max(stamped))
            # One C call: all of them or none. A time window's pending list holds pairs.
            self._pending.extend(pairs)

    def add_misses(self, count: int) -> None:
        """Declare ``count`` positives that were never returned (0 allowed).

        They enlarge R: recall, average precision (as precision 0), R-precision
        and the ROC y values. R may grow to 2**63 - 1 (a larger total is a
        ``ValueError``: the curves count in int64). Complexity: O(1).
        """
        self._add_missed(check_count(count), positive=True)

    def add_negative_misses(self, count: int) -> None:
        """Declare ``count`` negatives that were never returned (0 allowed).

        They enlarge N: ROC x values and ROC areas only. Complexity: O(1).
        """
        self._add_missed(check_count(count), positive=False)

    def _add_missed(self, count: int, positive: bool) -> None:
        with self._lock:
            if self._read_only:
                self._refuse()
            store = self._folded()
            pos_missed, neg_missed = self._pos_missed, self._neg_missed
            if positive:
                pos_missed += count
                check_total(store.pos_added + pos_missed, "numPositiveRef")
            else:
                neg_missed += count
                check_total(store.neg_added + neg_missed, "numNegativeRef")
            self._publish(store, pos_missed, neg_missed)

    # ---------------------------------------------------------------- counts
    def num_cases(self) -> int:
        """R + N: every case added plus every miss of either kind.

        Complexity: O(1) (O(p log W) with a window, to settle evictions).
        """
        with self._lock:
            if self._pinned is not None:
                return sum(self._pinned.counts()) + self._pos_missed + self._neg_missed
            store = self._store if self._store.COUNTS_PENDING else self._folded()
            return store.total() + self._pos_missed + self._neg_missed

    def num_positive_ref(self) -> int:
        """R: positive cases added plus misses.

        Complexity: O(1) after a read; O(p log n) to sort in p cases added since.
        """
        with self._lock:
            return self._folded().counts()[0] + self._pos_missed

    def num_negative_ref(self) -> int:
        """N: negative cases added plus negative misses.

        Complexity: O(1) after a read; O(p log n) to sort in p cases added since.
        """
        with self._lock:
            return self._folded().counts()[1] + self._neg_missed

    def _ranked_count(self) -> int:
        """Cases ranked (misses not counted). Callers hold the lock."""
        return sum(self._folded().counts())

    # ----------------------------------------------------------- derivation
    def _cached(self, key: object, compute: Callable[[], _T]) -> _T:
        with self._lock:
            state = (self._folded().version, self._pos_missed, self._neg_missed)
            if state != self._cache_state:
                self._cache = {}
                self._cache_state = state
            cache = self._cache
            try:
                return cache[key]  # type: ignore[no-any-return]
            except KeyError:
                value = cache[key] = compute()
                return value

    def _points(self) -> OperatingPoints:
        def compute() -> OperatingPoints:
            store = self._merged()
            if isinstance(store, WeightedStore):
                keys, labels, weights = store.weighted_ranking()
                _check_points_fit(keys.shape[0], weighted=True)
                return operating_points(keys, labels, store.pos_added + self._pos_missed,
                                        store.neg_added + self._neg_missed, "grouped", weights)
            keys, labels = store.ranking()
            _check_points_fit(keys.shape[0])
            return operating_points(
                keys,
                labels,
                store.pos_added + self._pos_missed,
                store.neg_added + self._neg_missed,
                self.ties,
            )

        return self._cached("points", compute)

    def _cuts(self) -> Cuts:
        """The cuts of the ranking (one per distinct score; the decision reads'), cached."""
        return self._cached("cuts", lambda: cuts(self._points()))

    def _large(self) -> bool:
        """Whether curve-derived values are read bucket by bucket (see :data:`LARGE_CASES`)."""
        with self._lock:
            store = self._folded()
            return store.size > LARGE_CASES and not isinstance(store, WeightedStore)

    def report(self, precision_at: Iterable[int] = _PRECISION_AT_RANKS,
               beta: float | Iterable[float] = 1.0, curve_points: int = 1000, *,
               betas: Iterable[float] | None = None, decisions: Asks = ()
               ) -> PartitionedReport | WeightedReport:
        """Every summary value and downsampled curve, in bounded memory: a read-only report.

        The ranking is read in buckets of a million consecutive cases, twice, so this needs
        O(a bucket + ``curve_points``) memory beyond the cases however many there are: the
        way to read a store of 10^9 cases, whose full curves would not fit. Each of the
        report's read methods has the name and the bits of this evaluator's own
        (:class:`~rankeval.scored.partitioned.PartitionedReport`): precision at the ranks
        ``precision_at``, maximum F for ``beta`` (one value or several; ``betas=`` is its
        deprecated earlier name), and the curves as
        ``pr_curve(interpolate, max_points=curve_points)`` would give them; their error as
        a downsampled curve is stated in ``docs/semantics.md``. ``decisions`` asks for decision
        reads beyond the KS statistic (read names, ``(name, {argument: value})`` pairs or
        :func:`rankeval.scored.decisions.ask`'s): the report gives them with these bits.

        On weighted cases: a :class:`~rankeval.scored.weighted_parts.WeightedReport` of this
        evaluator's operating points (what an engine's ``evaluate(weight_col=)`` of the same
        rows gives, bit for bit), which holds the points: not bounded memory.

        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True], [0.9, 0.8, 0.1])
        >>> r = ev.report(precision_at=(1, 2))
        >>> r.average_precision() == ev.average_precision(), r.precision_at(2)
        (True, 0.5)

        Complexity: O(n), cached until the next change.
        """
        request = Request(tuple(precision_at), betas_of(beta, betas), curve_points,
                          asks_of(decisions))
        if self.weighted:
            # The weighted reads of the points, as an engine's report of the same rows gives
            # them (not in bounded memory: the points are held, 24 bytes a distinct score).
            def weighted() -> WeightedReport:
                with self._lock:
                    pos, neg = self._folded().counts()
                    return WeightedReport(self._points(), pos, neg, self._pos_missed,
                                          self._neg_missed,
                                          check_int(curve_points, "curve_points", minimum=2))

            return self._cached(("weighted_report", curve_points), weighted)

        def compute() -> PartitionedReport:
            store = self._merged()
            keys, labels = store.ranking()
            report = ranking_report(keys, labels, self.ties, self._pos_missed,
                                    self._neg_missed, request)
            _store_module.release_heap()  # the buckets' temporaries, back to the system
            return report

        return self._cached(("report", request), compute)

    def _large_report(self, beta: float = 1.0, curve_points: int = 1000) -> PartitionedReport:
        report = self.report((), (beta,), curve_points)
        assert isinstance(report, PartitionedReport)  # large stores are unweighted
        return report

    # ---------------------------------------------------------------- curves
    def pr_curve(self, interpolate: bool = False, max_points: int | None = None) -> FloatArray:
        """Precision-recall curve, rows ``[recall, precision]`` (read-only array).

        Uninterpolated: ``[0, 1]``, one row per case (per tie block when
        grouped) except those above the first positive, then ``[1, 0]``.
        Interpolated: precision = max precision at equal or higher recall,
        first row of each equal-recall run.

        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True], [3.0, 2.0, 1.0])
        >>> ev.pr_curve().tolist()
        [[0.0, 1.0], [0.5, 1.0], [0.5, 0.5], [1.0, 0.6666666666666666], [1.0, 0.0]]

        ``max_points`` downsamples: the uninterpolated curve to the points holding that many
        evenly spaced ranks (:func:`rankeval.scored.curves.downsampled`), limit rows kept;
        the interpolated one to that many evenly spaced rows, first and last kept
        (:func:`rankeval.scored.curves.rows_at`).

        Undefined when R = 0: recalls are NaN. Complexity: O(n), cached.
        """
        flag = check_flag(interpolate, "interpolate")
        if max_points is not None:
            count = check_int(max_points, "max_points", minimum=2)
            if self._large():
                return self._large_report(curve_points=count).pr_curve(flag)
            if flag:
                return curves.rows_at(self.pr_curve(True), count)
            return curves.pr_curve(curves.downsampled(self._points(), count))
        return self._cached(("pr", flag), lambda: curves.pr_curve(self._points(), flag))

    def pr_score_curve(self, interpolate: bool = False,
                       max_points: int | None = None) -> FloatArray:
        """Rows ``[recall, precision, score]``, one per case; no limit points.

        Interpolated, the first row is ``[0, 1, +inf]``. ``max_points`` downsamples as in
        :meth:`pr_curve`. Complexity: O(n), cached.
        """
        flag = check_flag(interpolate, "interpolate")
        if max_points is not None:
            count = check_int(max_points, "max_points", minimum=2)
            if self._large():
                return self._large_report(curve_points=count).pr_score_curve(flag)
            if flag:
                return curves.rows_at(self.pr_score_curve(True), count)
            return curves.pr_score_curve(curves.downsampled(self._points(), count))
        return self._cached(
            ("pr_score", flag), lambda: curves.pr_score_curve(self._points(), flag)
        )

    def roc_curve(self, interpolate: bool = False, max_points: int | None = None) -> FloatArray:
        """ROC curve, rows ``[1 - specificity, sensitivity]`` (read-only array).

        ``max_points`` downsamples as in :meth:`pr_curve`.
        Undefined when N = 0 (x NaN) or R = 0 (y NaN). Complexity: O(n), cached.
        """
        flag = check_flag(interpolate, "interpolate")
        if max_points is not None:
            count = check_int(max_points, "max_points", minimum=2)
            if self._large() and not flag:
                return self._large_report(curve_points=count).roc_curve()
            if flag:
                return curves.rows_at(self.roc_curve(True), count)
            return curves.roc_curve(curves.downsampled(self._points(), count))
        return self._cached(("roc", flag), lambda: curves.roc_curve(self._points(), flag))

    # ---------------------------------------------------------------- values
    def eleven_point_interpolated_precision(self) -> FloatArray:
        """Interpolated precision at recall 0, 0.1, ..., 1.0 (LingPipe: 1.0 at recall 0).

        Complexity: O(n), cached.
        """
        if self._large():
            return self._large_report().eleven_point_interpolated_precision()
        return self._cached(
            "eleven",
            lambda: formulas.eleven_point_interpolated_precision(self.pr_curve(True)),
        )

    def average_precision(self) -> float:
        """Mean of the precision at each positive's rank, misses counting 0.

        Grouped ties: Σ ΔR·P over tie blocks (sklearn's definition, with R
        including misses). Undefined when R = 0 (NaN). Complexity: O(n), cached.
        """
        if self._large():
            return self._large_report().average_precision()
        return self._cached("ap", lambda: self._points().average_precision)

    def maximum_f_measure(self, beta: float = 1.0) -> float:
        """Largest F_β over the uninterpolated PR curve, limit points included.

        ``beta`` must be finite and > 0. Undefined when R = 0 and a case has
        been added (NaN). Complexity: O(n), cached per beta.
        """
        value = check_beta(beta)
        if self._large():
            return self._large_report(beta=value).maximum_f_measure(value)
        return self._cached(
            ("max_f", value), lambda: formulas.maximum_f_measure(self.pr_curve(), value)
        )

    def precision_at(self, rank: int) -> float:
        """Positives among the top ``rank`` cases, divided by ``rank``.

        Rank 0 gives 1.0; ranks past the last case count as errors. Grouped
        ties: the expected value over the orders inside the tie block at the
        cut. Misses do not matter. Complexity: O(log² n), no merge.
        """
        value = check_rank(rank)
        with self._lock:
            if self.weighted:
                unweighted_read("precision_at")
            return self._folded().precision_at(value)

    def r_precision(self) -> float:
        """Precision at rank R (misses included in R); 1.0 when R = 0.

        LingPipe's version indexes the PR curve instead and is right only by
        coincidence; this is precision@R. Complexity: O(log² n).
        """
        with self._lock:
            if self.weighted:
                unweighted_read("r_precision")
            store = self._folded()
            num_pos = store.counts()[0] + self._pos_missed
            # Precision at rank R (1.0 at R = 0), through the same formula as trec_eval's Rprec;
            # grouped ties need the expected value over the block at the cut, so no hit count.
            return store.precision_at(num_pos)

    def pr_breakeven_point(self) -> float:
        """The precision-recall break-even point, equal to :meth:`r_precision`."""
        if self.weighted:
            unweighted_read("pr_breakeven_point")
        return self.r_precision()

    def reciprocal_rank(self) -> float:
        """1 / rank of the first positive, 0.0 if none; misses are ignored.

        Grouped ties: the exact expectation over the orders of the top tie
        block holding a positive. Complexity: O(log n) (+ O(m) for m negatives
        tied with that positive, grouped).
        """
        with self._lock:
            if self.weighted:
                unweighted_read("reciprocal_rank")
            return self._folded().reciprocal_rank()

    def area_under_pr_curve(self, interpolate: bool = False,
                            method: str = "trapezoid") -> float:
        """Trapezoid area under :meth:`pr_curve` (not the step-function area).

        ``method="davis_goadrich"``: the area under the PR curve interpolated between the
        thresholds as Davis & Goadrich (2006) do, each intermediate true positive with its
        share of the false positives
        (:func:`rankeval.scored.decisions.davis_goadrich_area`); uninterpolated only.

        Undefined when R = 0 and a case has been added. Complexity: O(n), cached.
        """
        flag = check_flag(interpolate, "interpolate")
        if check_choice(method, "method", ("trapezoid", "davis_goadrich")) != "trapezoid":
            if flag:
                raise ValueError("method='davis_goadrich' interpolates its own way: "
                                 "interpolate=True does not apply")
            if self.weighted:
                raise ValueError("method='davis_goadrich' interpolates one positive case at a "
                                 "time, which weighted cases do not have: read the trapezoid "
                                 "area")
            return self._cached("pr_auc_dg", lambda: davis_goadrich_area(self._cuts()))
        if self._large():
            return self._large_report().area_under_pr_curve(flag)
        return self._cached(
            ("pr_auc", flag), lambda: formulas.area_under_curve(self.pr_curve(flag))
        )

    def area_under_roc_curve(self, interpolate: bool = False) -> float:
        """Area under :meth:`roc_curve`; 0.5 with no case added.

        Uninterpolated, this is the Mann-Whitney statistic (ties broken by
        insertion order, or counted one half when grouped), computed exactly
        from a pair count kept up to date on every add and rounded once: O(1).
        LingPipe sums trapezoids instead, which can differ in the last digit
        (``str()`` prints LingPipe's sum, to stay byte-identical). Interpolated:
        the trapezoid area of the interpolated curve, O(n), cached.
        """
        flag = check_flag(interpolate, "interpolate")
        if flag:
            return self._cached(
                ("roc_auc", True), lambda: formulas.area_under_curve(self.roc_curve(True))
            )
        with self._lock:
            store = self._folded()
            pos, neg = store.counts()
            if isinstance(store, WeightedStore):
                # The same rational value from the sums of weights (the pair count in weights)
                return weighted_roc_auc(self._points(), pos, self._pos_missed, neg,
                                        self._neg_missed)
            return formulas.roc_auc_from_pairs(
                store.doubled_pairs, pos, self._pos_missed, neg, self._neg_missed
            )

    def read(self, name: str, argument: Any = None, **options: Any) -> Any:
        """The registered scored read ``name`` (:mod:`rankeval.scored.reads`), with its
        argument (a rank, a beta) where it takes one: ``ev.read("precision_at", 10)``, and
        its options where it declares them: ``ev.read("partial_roc_auc", fpr=(0, 0.1))``.

        Complexity: that of the read.
        """
        from rankeval.scored.reads import read_value

        with self._lock:
            return read_value(self, name, argument, **options)

    def to_text(self, precision_at: tuple[int, ...] = (10,), beta: float = 1.0,
                digits: int = 4) -> str:
        """:meth:`summary` as text under a line naming the evaluator's settings (its tie
        policy first); ``str()`` is LingPipe's report instead.

        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True], [0.9, 0.8, 0.1])
        >>> print(ev.to_text().splitlines()[0])
        ScoredPrecisionRecallEvaluation (ties=grouped)
        """
        from rankeval._text import summary_text

        extent = ("" if self.window is None else f", window={self.window}") + (
            "" if self.horizon is None else f", horizon={self.horizon!r}s") + (
            ", weighted" if self.weighted else "")
        return summary_text(f"ScoredPrecisionRecallEvaluation (ties={self.ties}{extent})",
                            self.summary(precision_at, beta), digits)

    def summary(self, precision_at: tuple[int, ...] = (10,), beta: float = 1.0) -> dict[str, float]:
        """The main values read together, from one state (one lock hold), as a dict.

        Keys: ``cases``, ``positives`` (R), ``negatives`` (N), ``roc_auc``, ``pr_auc``,
        ``average_precision``, ``max_f``, ``r_precision``, ``reciprocal_rank`` and
        ``precision_at_<k>`` for each rank asked for. What a metrics exporter or a log line
        wants: concurrent adds can never make two of these values disagree.

        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False, True], [0.9, 0.8, 0.1])
        >>> ev.summary()["precision_at_10"], ev.summary()["roc_auc"]
        (0.2, 0.5)

        Complexity: that of the reads (O(n) after a change, for AP and the curves).
        """
        ranks = [check_rank(k) for k in precision_at]
        value = check_beta(beta)
        with self._lock:
            # One state: fold once (a time window reads its clock once), then every value
            # reads that store, whatever add_case appends meanwhile without the lock.
            self._pinned = self._folded()
            try:
                return summary_of(self, ranks, value)
            finally:
                self._pinned = None

    # ------------------------------------------------------ service features
    def _refuse(self) -> None:
        raise TypeError(_READ_ONLY)

    def _attach(self, store: CaseStore, read_only: bool) -> None:
        """Use ``store``, read-only or not, with add_case's shortcuts to it."""
        pending = store.pending
        if read_only != isinstance(pending, _RefusingList):
            store.pending = pending = (_RefusingList if read_only else list)(pending)
        self._store = store
        self._read_only = read_only
        self._pending = pending  # add_case appends here directly
        self._stage_at = _store_module.PENDING_LIMIT
        self._float32 = store.key_dtype == np.float32  # add_case checks each score

    def reset(self) -> None:
        """Forget every case and miss, keeping the settings. Complexity: O(1)."""
        with self._lock:
            if self._read_only:
                self._refuse()
            store = _new_store(self.ties, self.window, self.horizon, self.score_dtype)
            # One block of assignments, call-free (see _publish), of every attribute of
            # _STATE (a test holds the two lists together); an add racing with the reset
            # lands in the old list and goes with it.
            (self._store, self._pending, self._pos_missed, self._neg_missed,
             self._clock_latest, self._time_high) = (
                store, store.pending, 0, 0, -math.inf, -math.inf)

    def snapshot(self) -> ScoredPrecisionRecallEvaluation:
        """A read-only copy that later adds to this evaluator do not change.

        Cheap: the sorted arrays are shared (they are never written in place),
        only cases added since the last read are copied. Mutating the snapshot
        raises ``TypeError``.

        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_case(True, 1.0)
        >>> frozen = ev.snapshot()
        >>> ev.add_case(False, 2.0)
        >>> frozen.num_cases(), ev.num_cases()
        (1, 2)

        Complexity: O(p) for p cases added since the last read.
        """
        with self._lock:
            clone = self._copy()
        clone._attach(clone._store, read_only=True)
        return clone

    def _copy(self) -> ScoredPrecisionRecallEvaluation:
        clone = type(self).__new__(type(self))
        clone.__setstate__(self.__getstate__())
        return clone

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            state = {name.lstrip("_"): getattr(self, name) for name in self._STATE}
            state.update(store=self._store.copy(), read_only=self._read_only, clock=self._clock)
            return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._attach(state["store"], state["read_only"])
        self._clock = state.get("clock")
        for name, part in self._STATE.items():  # a pickle of an older version lacks some
            setattr(self, name, state.get(name.lstrip("_"), part.empty(self)))
        self._fresh_derived()

    def _arrival_order(self) -> tuple[FloatArray, BoolArray]:
        """Cases in an order that, replayed, rebuilds this evaluator (ties included)."""
        store = self._folded() if self._store.KEEPS_ARRIVAL else self._merged()
        return store.replay()

    def _canonical(self) -> tuple[Any, ...]:
        """Settings, counts and the ranking; tie blocks sorted when their order is moot."""
        with self._lock:
            store = self._merged()
            if isinstance(store, WeightedStore):  # held in one canonical order already
                return ((self.ties, self.window, self.horizon), self._pos_missed,
                        self._neg_missed, *store.weighted_ranking(), *store.timeline())
            keys, labels = store.ranking()
            if self.ties == "grouped":
                order = np.lexsort((labels, keys))
                keys, labels = keys[order], labels[order]
            settings = (self.ties, self.window, self.horizon)
            # A time window's future depends on each case's time too.
            return (settings, self._pos_missed, self._neg_missed, keys, labels,
                    *self._store.timeline())

    def __eq__(self, other: object) -> bool:
        """Same settings, misses and ranked cases (equal derived values follow).

        Time windows must also hold the same cases at the same times.
        """
        if not isinstance(other, ScoredPrecisionRecallEvaluation):
            return NotImplemented
        mine, theirs = self._canonical(), other._canonical()
        # Not np.array_equal: it answers False when comparing fails (a MemoryError).
        return mine[:3] == theirs[:3] and len(mine) == len(theirs) and all(
            a.shape == b.shape and bool((a == b).all())
            for a, b in zip(mine[3:], theirs[3:], strict=True)
        )

    __hash__ = None  # type: ignore[assignment]

    def merge(self, other: ScoredPrecisionRecallEvaluation) -> None:
        """Add every case and miss of ``other``, as if its adds had followed ours.

        Insertion policy: the result equals one evaluator that saw this one's
        cases, then ``other``'s, in order. Grouped: any order. Evaluators with
        different settings cannot be merged (``ValueError``).

        Time windows (equal horizons) merge by time: the result holds both windows'
        cases in time order (this one's first among equal times), with the later of the
        two clocks' last evictions, so it equals one time window that saw the cases of
        both in that order.

        >>> a = ScoredPrecisionRecallEvaluation(ties="insertion")
        >>> b = ScoredPrecisionRecallEvaluation(ties="insertion")
        >>> a.add_case(True, 1.0); b.add_case(False, 1.0); b.add_misses(1)
        >>> a.merge(b); a.num_cases(), a.reciprocal_rank()
        (3, 1.0)

        Complexity: O(n + m log m).
        """
        if not isinstance(other, ScoredPrecisionRecallEvaluation):
            raise TypeError(
                f"can only merge a ScoredPrecisionRecallEvaluation, got {type(other).__name__}"
            )
        if (other.ties, other.window, other.horizon) != (self.ties, self.window, self.horizon):
            raise ValueError(
                f"cannot merge ties={other.ties!r}, {other._extent()} into "
                f"ties={self.ties!r}, {self._extent()}"
            )
        if self.horizon is not None:
            self._merge_timed(other)
            return
        if self.weighted or other.weighted:
            self._merge_weighted(other)
            return
        with other._lock:
            keys, labels = other._arrival_order()
            their_pos_missed, their_neg_missed = other._pos_missed, other._neg_missed
        if self._float32 and keys.dtype != np.float32:
            check_float32_scores(np.negative(keys), "the merged evaluator's score")
        with self._lock:
            if self._read_only:
                self._refuse()
            # other's ranking lists its equal scores in its own arrival order, and
            # the batch path sorts stably, so that order survives the merge.
            store = self._store.successor()
            store.add_batch(labels, keys)
            store.fold()  # the totals below count the merged cases
            pos_missed, neg_missed = self._merged_misses(their_pos_missed, their_neg_missed)
            check_total(store.pos_added + pos_missed, "numPositiveRef")
            check_total(store.neg_added + neg_missed, "numNegativeRef")
            self._publish(store, pos_missed, neg_missed)

    def _merge_weighted(self, other: ScoredPrecisionRecallEvaluation) -> None:
        """merge() when either holds weighted cases: the result holds weighted cases."""
        with other._lock:
            keys, labels, weights = other._weighted_cases()
            their_pos_missed, their_neg_missed = other._pos_missed, other._neg_missed
        if self._float32 and keys.dtype != np.float32:
            check_float32_scores(np.negative(keys), "the merged evaluator's score")
        with self._lock:
            store = self._weighted_successor()
            store.add_batch(labels, keys.astype(np.float64), weights)
            store.fold()
            self._publish(store, *self._merged_misses(their_pos_missed, their_neg_missed))

    def _merged_misses(self, pos_missed: int, neg_missed: int) -> tuple[int, int]:
        """Our miss counts merged with another's by their declared rules (added)."""
        return (self._STATE["_pos_missed"].merge(self._pos_missed, pos_missed),
                self._STATE["_neg_missed"].merge(self._neg_missed, neg_missed))

    def _settings(self) -> dict[str, Any]:
        return {"ties": self.ties, "window": self.window, "horizon": self.horizon,
                "clock": self._clock, "score_dtype": self.score_dtype}

    def _weighted_cases(self) -> tuple[FloatArray, BoolArray, FloatArray]:
        """Keys, labels and weights of every case (weight 1 each if unweighted), in an order
        that, added again, rebuilds this evaluator: arrival order for a window."""
        if self._store.KEEPS_ARRIVAL:  # a window: its cases in arrival order
            store = self._folded()
            if isinstance(store, WeightedArrival):
                return store.weighted_arrival()
            keys, labels = store.replay()
            return keys, labels, np.ones(keys.shape[0], dtype=np.float64)
        store = self._merged()
        if isinstance(store, WeightedStore):
            return store.weighted_ranking()
        keys, labels = store.ranking()
        return keys, labels, np.ones(keys.shape[0], dtype=np.float64)

    def merge_state(self, others: Iterable[ScoredPrecisionRecallEvaluation]) -> None:
        """TorchEval's spelling of :meth:`merge`, for each of ``others`` in turn.

        All or nothing: ``others`` are first merged into a new evaluator, which then
        merges into this one.
        """
        if self._read_only:
            self._refuse()
        combined = type(self)(**self._settings())
        for other in others:
            combined.merge(other)
        self.merge(combined)

    def _dtype_text(self) -> str:
        return ", score_dtype='float32'" if self._float32 else ""

    def _extent(self) -> str:
        horizon = self.horizon
        return f"window={self.window!r}" if horizon is None else f"horizon={horizon!r}"

    def _merge_timed(self, other: ScoredPrecisionRecallEvaluation) -> None:
        """Merge two time windows by time (see :meth:`merge`), into a new store."""
        if self.weighted or other.weighted:
            with other._lock:
                folded = other._folded()  # one fold: the cases, times and weights agree
                keys, labels, times, now, latest = _timed(folded).timed_cases()
                weights = (folded.weighted_arrival()[2] if isinstance(folded, WeightedArrival)
                           else np.ones(keys.shape[0]))
                their_pos_missed, their_neg_missed = other._pos_missed, other._neg_missed
            with self._lock:
                mine = self._weighted_successor()
                assert isinstance(mine, WeightedTimeWindowStore)
                mine.fold()
                merged = mine.merged_by_time((keys, labels, weights, times, now, latest))
                self._publish(merged, *self._merged_misses(their_pos_missed,
                                                           their_neg_missed))
            return
        with other._lock:
            theirs = _timed(other._folded()).timed_cases()
            their_pos_missed, their_neg_missed = other._pos_missed, other._neg_missed
        with self._lock:
            if self._read_only:
                self._refuse()
            store = _timed(self._folded()).merged_by_time(theirs)
            pos_missed, neg_missed = self._merged_misses(their_pos_missed, their_neg_missed)
            check_total(store.pos_added + pos_missed, "numPositiveRef")
            check_total(store.neg_added + neg_missed, "numNegativeRef")
            self._publish(store, pos_missed, neg_missed)

    def __add__(self, other: object) -> ScoredPrecisionRecallEvaluation:
        """A new evaluator: this one's cases, then ``other``'s (see :meth:`merge`)."""
        if not isinstance(other, ScoredPrecisionRecallEvaluation):
            return NotImplemented
        with self._lock:
            result = self._copy()
        result._attach(result._store, read_only=False)
        result.merge(other)
        return result

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write every case, the misses and the settings to ``path``, atomically.

        The file format is documented in :mod:`rankeval.scored.state_file`: versioned,
        checksummed; a crash at any moment leaves the old file or the new one.
        A time window saves each case's time, the time of its last eviction and the
        latest time given (the clock itself is code: :meth:`load` takes it again).
        Complexity: O(n).
        """
        from rankeval.scored.state_file import save_state

        with self._lock:
            state = self._merged().to_state(self._pos_missed, self._neg_missed)
        save_state(path, state)

    @classmethod
    def load(cls: type[Self], path: str | os.PathLike[str], *,
             clock: Callable[[], float] | None = None) -> Self:
        """Read an evaluator written by :meth:`save`.

        A time window reads its cases' times back and goes on by ``clock`` (default the
        wall clock, ``time.time``): a window saved with ``time.time`` and loaded an hour
        later has lost the cases older than its horizon at the first read. A window whose
        times run ahead of ``clock`` is kept, new cases taking its time until the clock
        catches up; one more than its horizon ahead is refused (it was kept by another
        clock). ``clock`` is refused for a file that holds no time window.

        Raises :class:`rankeval.PersistenceError` (a ``ValueError``) naming the
        file and the problem for a truncated, corrupted, foreign or
        wrong-version file; never returns a partly filled evaluator.
        Complexity: O(n).
        """
        from rankeval.scored.state_file import load_state

        return cls._from_state(load_state(path), os.fspath(path), clock)

    def to_bytes(self) -> bytes:
        """The bytes :meth:`save` writes (:mod:`rankeval.scored.state_file`'s format: versioned,
        checksummed), in memory: for a database, a message, a checkpoint in another store.

        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.add_cases([True, False], [0.9, 0.2])
        >>> ScoredPrecisionRecallEvaluation.from_bytes(ev.to_bytes()) == ev
        True

        Complexity: O(n).
        """
        from rankeval.scored.state_file import state_bytes

        with self._lock:
            state = self._merged().to_state(self._pos_missed, self._neg_missed)
        return state_bytes(state)

    @classmethod
    def from_bytes(cls: type[Self], data: bytes, name: str = "<bytes>", *,
                   clock: Callable[[], float] | None = None) -> Self:
        """The evaluator :meth:`to_bytes` (or :meth:`save`) wrote; every check of :meth:`load`,
        :class:`~rankeval.PersistenceError` naming ``name``. Complexity: O(n)."""
        from rankeval.scored.state_file import state_from_bytes

        return cls._from_state(state_from_bytes(data, name), name, clock)

    @classmethod
    def _from_state(cls: type[Self], state: Any, path: str,
                    clock: Callable[[], float] | None) -> Self:
        """A new evaluator holding a checked ``state`` read from ``path``."""
        from rankeval.errors import PersistenceError

        # The file format holds counts of any size; an evaluator holds what
        # add_misses would accept (R and N within 2**63 - 1).
        positives = int(np.count_nonzero(state.labels))
        try:
            check_total(positives + state.pos_missed, "numPositiveRef")
            check_total(state.num_cases - positives + state.neg_missed, "numNegativeRef")
        except ValueError as error:
            raise PersistenceError(path, str(error)) from None
        if clock is not None and state.horizon is None:
            raise ValueError(f"clock applies to a time window; {path!r} holds none")
        evaluation = cls(ties=state.ties, window=state.window, horizon=state.horizon,
                         clock=clock, score_dtype=state.score_dtype)
        if state.weights is not None:
            dtype = evaluation._store.key_dtype
            weighted: WeightedStore = (
                WeightedTimeWindowStore(state.horizon, dtype) if state.horizon is not None
                else WeightedWindowStore(state.window, dtype) if state.window is not None
                else WeightedStore(dtype))
            evaluation._attach(weighted, read_only=False)
        if state.horizon is not None:
            # New cases take the window's time if the clock is behind it (clocks of two
            # machines differ a little); a window far in this clock's future was kept by
            # another clock, and would keep every new case forever: refused.
            now = evaluation._now()
            ahead = max(state.now, state.last_time) - now
            if ahead > state.horizon:
                raise PersistenceError(
                    path,
                    f"its times run to {max(state.now, state.last_time)!r}, {ahead:g} s after "
                    f"this evaluator's clock ({now!r}), more than its horizon "
                    f"({state.horizon:g} s): was it kept by another clock?")
        evaluation._store.restore(state)
        evaluation._pos_missed = state.pos_missed
        evaluation._neg_missed = state.neg_missed
        return evaluation


def _float_counts(*counts: ArrayLike) -> bool:
    """Whether counts given to add_counts are weights: of a float dtype (see add_counts; an
    empty list, a float array to NumPy, holds no weight)."""
    for count in counts:
        if isinstance(count, (str, bytes)) or count is None:
            continue
        array = np.asarray(count)
        if array.dtype.kind == "f" and array.size:
            return True
    return False


def _timed(store: CaseStore) -> TimeWindowStore:
    """The store of an evaluator with a clock: a time window."""
    return cast(TimeWindowStore, store)


def _count_sum(counts: IntArray) -> int:
    """The sum of non-negative int64 counts, exact however large."""
    if float(counts.sum(dtype=np.float64)) < 2.0**62:
        return int(counts.sum(dtype=np.int64))
    return sum(int(count) for count in counts.tolist())


def _check_points_fit(cases: int, weighted: bool = False) -> None:
    """Refuse, before allocating, full operating points that free memory could not hold."""
    if cases <= LARGE_CASES:
        return
    free = _available_memory()
    if free is None:
        return  # unknown: let the allocation decide
    need = cases * _POINT_BYTES
    if need > _FREE_SHARE * free:
        if weighted:  # no bounded report of weighted cases yet
            raise ValueError(
                f"the curves of {cases:,} weighted cases need about {need / 2**20:,.0f} MiB, "
                f"more than the {free / 2**20:,.0f} MiB available; weighted cases have no "
                "bounded report() yet")
        raise ValueError(
            f"the full curves of {cases:,} cases need about {need / 2**20:,.0f} MiB, more than "
            f"the {free / 2**20:,.0f} MiB available: read them downsampled (max_points=) or "
            f"through report(), which need a few hundred MB whatever the number of cases")


def _check_cases_fit(cases: int, bytes_per_case: float) -> None:
    """Refuse, before expanding anything, counts whose cases the store could never hold:
    more than the machine's memory (10**15 cases once ran five minutes, holding the lock,
    before the system refused). Physical memory, from ``sysconf``: no file is opened, so
    nothing is left to the garbage collector if this call is interrupted."""
    from rankeval.files import physical_memory

    memory = physical_memory()
    if memory is None:  # not a POSIX system: the allocation decides
        return
    need = cases * bytes_per_case
    if need > memory:
        raise MemoryError(
            f"add_counts: {cases:,} cases need about {need / 2**30:,.1f} GiB, more than this "
            f"machine's {memory / 2**30:,.1f} GiB; nothing was added (a sketch, "
            "SketchEvaluation, holds any number of cases in bounded memory)")


def _available_memory() -> int | None:
    """Bytes the system can give without swapping (Linux's MemAvailable), None if unknown."""
    try:
        with open("/proc/meminfo", "rb") as meminfo:
            for line in meminfo:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def _new_store(ties: TiePolicy, window: int | None, horizon: float | None = None,
               score_dtype: str = "float64") -> CaseStore:
    if horizon is not None:
        return TimeWindowStore(ties, horizon)
    return CaseStore(ties, score_dtype) if window is None else WindowStore(ties, window)


