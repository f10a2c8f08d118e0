"""Bounded memory for unbounded streams: one quantile sketch per class, every value bounded.

:class:`SketchEvaluation` starts exact (a grouped :class:`ScoredPrecisionRecallEvaluation`)
and, past ``exact_until`` cases, moves to two REQ quantile sketches from Apache DataSketches
(``datasketches`` on PyPI, the ``sketch`` extra), one for the positives' scores and one for
the negatives', in high-rank-accuracy mode: the error of a rank is relative to the number
of cases *above* it, so the top of the ranking, where average precision lives, is the most
accurate. Memory is O(k log(n / k)) a class (tens of KiB), whatever n.

Every value comes as an :class:`Estimate` ``(value, low, high)``; while the evaluator is
exact, ``low == value == high``. The values are those of the scores **rounded to float32**
from the first case on (the sketches hold float32, and the held cases are rounded alike, so
the switch changes nothing but the precision; a float32 classifier's scores are unchanged,
float64 scores closer than one float32 step become ties, and beyond float32's range a score
becomes ±inf), with ties grouped. The bounds:

* Each sketch gives, for an estimated normalized rank r̂, an interval that holds the true
  rank with the confidence of three standard deviations (DataSketches'
  ``get_rank_lower_bound`` / ``get_rank_upper_bound``) at that one rank; over all the ranks
  of a sketch at once it does not, so its half-width is widened :data:`WIDEN` (3) times
  (measured: exceeded by up to about 1.5-1.6 times, in a third of 600 sketches). An
  estimated rank only takes the values its retained items give, so ``ε`` = the widest
  half-interval over those values bounds the class's rank error at every score.
* **ROC area**: it is ∫ F⁻ dF⁺ (mid-ranks for ties); integrating by parts, an error of at
  most ε⁺ in F⁺ and ε⁻ in F⁻ moves it by at most ε⁺ + ε⁻, scaled by the share of the
  pairs that are between ranked cases (pairs with a miss are known exactly).
* **Average precision**: between two consecutive retained scores the number of positives
  and, at each of them, the true and false positives above lie in intervals read from the
  rank bounds; so each positive's precision lies in an interval, and AP in
  ``[min, max]`` of Σ cᵢ pᵢ over the counts cᵢ allowed (a box with a fixed total, solved
  greedily), divided by R.

The tests check on adversarial streams (all tied, two spikes, heavy tails, 0.1 % positives)
that the exact value of the rounded scores always lies in ``[low, high]``.
"""

from __future__ import annotations

import math
import struct
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rankeval import container
from rankeval._deprecation import deprecated
from rankeval.checks import (
    MAX_COUNT,
    check_case_arrays,
    check_correct,
    check_count,
    check_int,
    check_score,
    check_total,
    float32_rounded,
)
from rankeval.errors import PersistenceError
from rankeval.scored.accumulation import Accumulation, Part, added, by_merge, new_list, zero
from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation
from rankeval.scored.partitioned import Layout, Request, assemble, bucket_part_from_counts

__all__ = ["MAX_K", "Estimate", "SketchEvaluation"]

# Standard deviations of DataSketches' rank bounds (1, 2 or 3): 3 is about 99.7 %.
STD_DEVS = 3
# Those bounds hold at one rank at a time; over every retained score of a sketch they do not:
# in 600 sketches of adversarial streams (k from 8 to 200, up to 200,000 cases; the second
# table of benchmarks/bench_sketch.py) some rank fell outside them in about a third of the
# sketches, by up to 1.5-1.6 times the half-width (it varies from run to run: the sketches'
# randomness cannot be seeded). So the half-widths used here are WIDEN times DataSketches'.
WIDEN = 3.0
# The largest k: the Python binding of DataSketches stores k in one byte (k=256 becomes 4).
MAX_K = 254
# Adds a sketch takes at once; add_case's wait in a list until then (or a read).
_PENDING = 4096
_MAGIC = b"\x89RKQ\r\n\x1a\n"
_VERSION = 1


class Estimate(NamedTuple):
    """A value with the interval that holds the exact one: ``low <= exact <= high``."""

    value: float
    low: float
    high: float

    def to_text(self, digits: int = 4) -> str:
        """One line: the value and the interval that holds the exact one.

        >>> Estimate(0.5, 0.25, 0.75).to_text()
        '0.5000 [0.2500, 0.7500] (holds the exact value)'
        """
        from rankeval._text import number

        return (f"{number(self.value, digits)} [{number(self.low, digits)}, "
                f"{number(self.high, digits)}] (holds the exact value)")

    @property
    def error(self) -> float:
        """The largest distance from ``value`` to the exact value the interval allows."""
        if math.isnan(self.value):
            return math.nan
        return max(self.value - self.low, self.high - self.value)


def _exact_evaluator() -> ScoredPrecisionRecallEvaluation:
    """Where the cases wait until the budget: grouped, scores as float32 (5.25 B a case)."""
    return ScoredPrecisionRecallEvaluation(ties="grouped", score_dtype="float32")


def _round_scores(values: NDArray[np.float64]) -> NDArray[np.float64]:
    with np.errstate(over="ignore"):
        return values.astype(np.float32).astype(np.float64)


def _req() -> Any:
    try:
        import datasketches
    except ImportError:
        raise ImportError("SketchEvaluation needs Apache DataSketches: "
                          "pip install 'rankeval-exact[sketch]'") from None
    return datasketches.req_floats_sketch


#: The counts of the state, merged by their declared rule (added).
_COUNTS = ("_pos", "_neg", "_pos_missed", "_neg_missed")


class SketchEvaluation(Accumulation):
    """ROC area and average precision of an unbounded stream in bounded memory, with bounds.

    Parameters
    ----------
    sketch_size : int
        The sketches' accuracy parameter (DataSketches' ``k``), an even number from 8 to
        254: a larger one keeps more scores and tightens the bounds (memory grows about
        linearly with it). (REQ allows 4, where DataSketches' rank bounds can have zero
        width around a wrong rank; and up to 1024, but the Python binding keeps it in one
        byte, so 256 would silently become 4.) ``k=`` is its deprecated earlier name: ``k``
        is a rank everywhere else in rankeval.
    exact_until : int
        Keep the cases themselves, and exact values, until there are more than this many;
        then move them into the sketches (default 100,000: about a megabyte).

    Notes
    -----
    Thread safety: every method holds one lock. See the module text for the bounds.

    Examples
    --------
    >>> ev = SketchEvaluation(exact_until=2)
    >>> ev.add_cases([True, False, True], [0.9, 0.5, 0.25])
    >>> ev.exact, ev.area_under_roc_curve().value
    (False, 0.5)
    """

    def __init__(self, sketch_size: int | None = None, exact_until: int = 100_000, *,
                 k: int | None = None) -> None:
        if k is not None:
            if sketch_size is not None:
                raise ValueError("give sketch_size= (k= is its deprecated earlier name), "
                                 "not both")
            deprecated("SketchEvaluation(k=) is now sketch_size= (k is a rank elsewhere)")
            sketch_size = k
        self._k = check_int(50 if sketch_size is None else sketch_size, "sketch_size",
                            minimum=8)
        if self._k % 2 or self._k > MAX_K:
            raise ValueError(f"sketch_size must be an even number from 8 to {MAX_K}, "
                             f"got {self._k}")
        self._exact_until = check_int(exact_until, "exact_until", minimum=0)
        _req()  # the extra is needed from the first case on, so say so now, not at the switch
        self._start()

    # The state, declared once (rankeval.scored.accumulation). The cases are held exactly
    # (an evaluator) until exact_until, then in two sketches (positives', negatives'); merge()
    # moves both sides to the later phase, so those parts are merged by it; the counts of
    # cases held or sketched (not the pending ones) and of misses add.
    _STATE: ClassVar[dict[str, Part]] = {
        "_exact": Part(lambda ev: _exact_evaluator() if ev._exact_until else None, by_merge),
        "_sketches": Part(lambda ev: None if ev._exact_until
                          else (ev._new_sketch(), ev._new_sketch()), by_merge),
        "_pending": Part(new_list, by_merge),
        "_pos": Part(zero, added),
        "_neg": Part(zero, added),
        "_pos_missed": Part(zero, added),
        "_neg_missed": Part(zero, added),
    }
    _exact: ScoredPrecisionRecallEvaluation | None
    _sketches: tuple[Any, Any] | None
    _pending: list[tuple[bool, float]]
    _pos: int
    _neg: int
    _pos_missed: int
    _neg_missed: int

    def _settings(self) -> dict[str, Any]:
        return {"sketch_size": self._k, "exact_until": self._exact_until}

    def _new_sketch(self) -> Any:
        sketch = _req()(self._k, True)
        if sketch.k != self._k:  # pragma: no cover - the binding changed its k type
            raise RuntimeError(f"DataSketches made a sketch with k={sketch.k}, not {self._k}")
        return sketch

    # ------------------------------------------------------------ mutators
    @property
    def exact(self) -> bool:
        """Whether the cases are still held (every value exact)."""
        with self._lock:
            return self._sketches is None

    def add_case(self, correct: bool, score: float) -> None:
        """Add one scored case (NaN refused). O(1) amortised: cases wait in a list, and go
        into the held cases or the sketches a few thousand at a time (or at a read)."""
        label = check_correct(correct)
        value = float32_rounded(check_score(score))
        with self._lock:
            if len(self._pending) >= _PENDING:
                self._fold()  # all or nothing, before this case is added
            self._pending.append((label, value))  # the add: one call, the last thing done

    def add_cases(self, correct: ArrayLike, scores: ArrayLike) -> None:
        """Add many cases; all or nothing, errors name the first bad index."""
        labels, values = check_case_arrays(correct, scores)
        with self._lock:
            self._add(labels, _round_scores(values))

    def _add(self, labels: NDArray[np.bool_], values: NDArray[np.float64],
             missed: tuple[int, int] = (0, 0)) -> None:
        """Add validated cases after the pending ones. All or nothing: the new state is built
        aside (a copy of the held evaluator, which shares its arrays, or copies of the
        sketches) and published by one assignment that makes no call."""
        pending = self._pending
        if pending:
            labels = np.concatenate((np.array([c for c, _ in pending], dtype=np.bool_), labels))
            values = np.concatenate((np.array([s for _, s in pending], dtype=np.float64),
                                     values))
        added_pos = int(np.count_nonzero(labels))
        pos, neg = self._pos + added_pos, self._neg + labels.shape[0] - added_pos
        exact, sketches = self._exact, self._sketches
        if sketches is None and pos + neg <= self._exact_until:
            assert exact is not None
            exact = exact._copy()
            exact.add_cases(labels, values)
        else:
            if sketches is None:  # past the budget: the held cases move into the sketches
                assert exact is not None
                keys, held = exact._merged().ranking()
                sketches = self._updated((self._new_sketch(), self._new_sketch()),
                                         held, np.negative(keys))
            sketches = self._updated(sketches, labels, values)
            exact = None
        pos_missed, neg_missed = self._pos_missed + missed[0], self._neg_missed + missed[1]
        (self._exact, self._sketches, self._pending, self._pos, self._neg, self._pos_missed,
         self._neg_missed) = (exact, sketches, [], pos, neg, pos_missed, neg_missed)

    @staticmethod
    def _updated(sketches: tuple[Any, Any], labels: NDArray[np.bool_],
                 values: NDArray[np.float64]) -> tuple[Any, Any]:
        """Copies of the two sketches with the cases added (the originals are untouched)."""
        out = []
        for sketch, mine in zip(sketches, (labels, ~labels), strict=True):
            fresh = type(sketch).deserialize(sketch.serialize())  # O(k log n): a few KiB
            chosen = values[mine]
            if chosen.shape[0]:
                fresh.update(chosen.astype(np.float32))  # already float32 values (exact)
            out.append(fresh)
        return out[0], out[1]

    def _fold(self) -> None:
        if self._pending:
            self._add(np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.float64))

    def add_misses(self, count: int) -> None:
        """Declare positives never returned: they count in R (AP's denominator) only."""
        value = check_count(count)
        with self._lock:
            check_total(self._counts()[0] + self._pos_missed + value, "numPositiveRef")
            self._pos_missed += value

    def add_negative_misses(self, count: int) -> None:
        """Declare negatives never returned: they count in N only."""
        value = check_count(count)
        with self._lock:
            check_total(self._counts()[1] + self._neg_missed + value, "numNegativeRef")
            self._neg_missed += value

    def merge(self, other: SketchEvaluation) -> None:
        """Add every case and miss of ``other`` (same ``k``); sketches merge, exact cases add."""
        if not isinstance(other, SketchEvaluation):
            raise TypeError(f"can only merge a SketchEvaluation, got {type(other).__name__}")
        if other._k != self._k:
            raise ValueError(f"cannot merge sketch_size={other._k} into sketch_size={self._k}")
        with other._lock:
            other._fold()
            theirs_exact = other._exact
            theirs = other._sketches
            counts = tuple(getattr(other, name) for name in _COUNTS)
            if theirs_exact is not None:
                keys, held = theirs_exact._merged().ranking()
                their_labels, their_values = held.copy(), np.negative(keys)
        with self._lock:
            mine_pos, mine_neg = self._counts()
            check_total(mine_pos + self._pos_missed + counts[0] + counts[2], "numPositiveRef")
            check_total(mine_neg + self._neg_missed + counts[1] + counts[3], "numNegativeRef")
            if theirs is None:
                self._add(their_labels, their_values, (counts[2], counts[3]))
            else:
                self._fold()
                mine = self._sketches
                if mine is None:
                    assert self._exact is not None
                    keys, held = self._exact._merged().ranking()
                    mine = self._updated((self._new_sketch(), self._new_sketch()), held,
                                         np.negative(keys))
                else:
                    mine = self._updated(mine, np.zeros(0, np.bool_), np.zeros(0))
                for sketch, their in zip(mine, theirs, strict=True):
                    sketch.merge(their)
                merged = {name: self._STATE[name].merge(getattr(self, name), theirs_count)
                          for name, theirs_count in zip(_COUNTS, counts, strict=True)}
                vars(self).update(merged, _sketches=mine, _exact=None)  # one call

    # ---------------------------------------------------------------- reads
    def _counts(self) -> tuple[int, int]:
        """(positives, negatives) added, pending ones included. O(pending)."""
        waiting = sum(c for c, _ in self._pending)
        return self._pos + waiting, self._neg + len(self._pending) - waiting

    def num_cases(self) -> int:
        """R + N: cases and misses (exact counts)."""
        return self.num_positive_ref() + self.num_negative_ref()

    def num_positive_ref(self) -> int:
        with self._lock:
            return self._counts()[0] + self._pos_missed

    def num_negative_ref(self) -> int:
        with self._lock:
            return self._counts()[1] + self._neg_missed

    def area_under_roc_curve(self) -> Estimate:
        """The ROC area (ties count one half) with its interval (module text)."""
        return self.summary()["roc_auc"]

    def average_precision(self) -> Estimate:
        """Average precision (grouped ties, misses as precision 0) with its interval."""
        return self.summary()["average_precision"]

    def to_text(self, digits: int = 4) -> str:
        """Each value with its bounds, under a line naming the sketch's settings (grouped
        ties, always)."""
        from rankeval._text import summary_text

        return summary_text(f"SketchEvaluation (ties=grouped, sketch_size={self._k}, "
                            f"{'exact' if self.exact else 'sketched'})",
                            [(name, value.to_text(digits))
                             for name, value in self.summary().items()])

    def summary(self) -> dict[str, Estimate]:
        """``roc_auc`` and ``average_precision``, read from one state."""
        with self._lock:
            self._fold()
            if self._sketches is None:
                assert self._exact is not None
                ev = self._exact
                if self._pos_missed or self._neg_missed:  # the held evaluator has no misses
                    ev = ev._copy()  # shares the sorted arrays: O(pending)
                    ev.add_misses(self._pos_missed)
                    ev.add_negative_misses(self._neg_missed)
                pairs = [("roc_auc", ev.area_under_roc_curve()),
                         ("average_precision", ev.average_precision())]
                return {name: Estimate(value, value, value) for name, value in pairs}
            return _bounded(self._sketches, self._pos_missed, self._neg_missed)

    def memory_bytes(self) -> int:
        """Bytes of the held state: the sketches serialised, or the held cases (5.25 a case)."""
        with self._lock:
            if self._sketches is None:
                return (21 * sum(self._counts())) // 4  # float32 keys, labels, counts
            return sum(len(sketch.serialize()) for sketch in self._sketches)

    def __repr__(self) -> str:
        with self._lock:
            state = "exact" if self._sketches is None else "sketched"
            return (f"SketchEvaluation(sketch_size={self._k}, exact_until={self._exact_until}) "
                    f"{state}, "
                    f"{sum(self._counts())} cases, {self._pos_missed} misses, "
                    f"{self._neg_missed} negative misses")

    # ---------------------------------------------------------------- files
    def to_bytes(self) -> bytes:
        """The whole state: header, JSON metadata, the sketches or held cases, SHA-256."""
        with self._lock:
            self._fold()
            meta: dict[str, Any] = {
                "k": self._k, "exact_until": self._exact_until,
                "positives": str(self._pos), "negatives": str(self._neg),
                "pos_missed": str(self._pos_missed), "neg_missed": str(self._neg_missed),
            }
            if self._sketches is None:
                assert self._exact is not None
                keys, labels = self._exact._merged().ranking()
                blobs = [np.ascontiguousarray(keys, dtype="<f8").tobytes(),
                         labels.astype(np.uint8).tobytes()]
                meta["phase"] = "exact"
            else:
                blobs = [sketch.serialize() for sketch in self._sketches]
                meta["phase"] = "sketch"
        return container.pack(_MAGIC, _VERSION, meta, blobs)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>") -> SketchEvaluation:
        """The evaluator :meth:`to_bytes` wrote; :class:`PersistenceError` names any fault."""
        meta, blobs = container.unpack(data, _MAGIC, _VERSION, "sketch", name)
        try:
            ev, counts = _checked_meta(meta, blobs)
            if meta["phase"] == "exact":
                held = ev._load_exact(blobs)
            else:
                held = (_check_req_blob(blobs[0], ev._k), _check_req_blob(blobs[1], ev._k))
                sketch_type = _req()
                ev._sketches = (sketch_type.deserialize(blobs[0]),
                                sketch_type.deserialize(blobs[1]))
                ev._exact = None
            if held != tuple(counts[:2]):
                raise ValueError(f"the counts {counts[:2]} do not match the state {held}")
        except PersistenceError:
            raise
        except (ValueError, KeyError, TypeError, IndexError, RuntimeError, OverflowError,
                RecursionError) as error:
            raise PersistenceError(name, f"invalid sketch state: {error}") from None
        ev._pos, ev._neg, ev._pos_missed, ev._neg_missed = counts
        return ev

    def _load_exact(self, blobs: list[bytes]) -> tuple[int, int]:
        """Adopt the held cases of an exact-phase file: scores (negated, float64, float32
        values) and labels (bytes 0 or 1). Returns (positives, negatives)."""
        if len(blobs[0]) != 8 * len(blobs[1]):
            raise ValueError(f"{len(blobs[0])} bytes of scores for {len(blobs[1])} labels")
        keys = np.frombuffer(blobs[0], dtype="<f8").astype(np.float64)
        codes = np.frombuffer(blobs[1], dtype=np.uint8)
        if codes.shape[0] and int(codes.max()) > 1:
            raise ValueError("a label byte is neither 0 nor 1")
        labels = codes.astype(np.bool_)
        if codes.shape[0] > self._exact_until:
            raise ValueError(f"{codes.shape[0]} held cases, more than exact_until "
                             f"({self._exact_until})")
        scores = np.negative(keys)
        if not np.array_equal(_round_scores(scores), scores, equal_nan=True):
            raise ValueError("a held score is not a float32 value")
        self._exact = _exact_evaluator()
        self._exact.add_cases(labels, scores)  # refuses NaN
        self._sketches = None
        positives = int(np.count_nonzero(labels))
        return positives, labels.shape[0] - positives


def _checked_meta(meta: dict[str, Any], blobs: list[bytes]
                  ) -> tuple[SketchEvaluation, list[int]]:
    """A fresh evaluator with the metadata's ``k`` and ``exact_until``, and the four counts;
    every field checked (``ValueError`` names the first fault)."""
    expected = {"k", "exact_until", "positives", "negatives", "pos_missed", "neg_missed",
                "phase"}
    if set(meta) != expected:
        raise ValueError(f"metadata fields {sorted(meta)}, expected {sorted(expected)}")
    for key in ("k", "exact_until"):
        if type(meta[key]) is not int:
            raise ValueError(f"{key} is {meta[key]!r}, not an integer")
    counts = []
    for key in ("positives", "negatives", "pos_missed", "neg_missed"):
        text = meta[key]
        if not (isinstance(text, str) and text.isascii() and text.isdigit()
                and len(text) <= 19 and int(text) <= MAX_COUNT):
            raise ValueError(f"{key} is {text!r}, not a count from 0 to 2**63 - 1")
        counts.append(int(text))
    check_total(counts[0] + counts[2], "numPositiveRef")
    check_total(counts[1] + counts[3], "numNegativeRef")
    if meta["phase"] not in ("exact", "sketch"):
        raise ValueError(f"unknown phase {meta['phase']!r}")
    if len(blobs) != 2:
        raise ValueError(f"{len(blobs)} sections, not two")
    ev = SketchEvaluation(sketch_size=meta["k"], exact_until=meta["exact_until"])
    if meta["phase"] == "exact" and counts[0] + counts[1] > ev._exact_until:
        raise ValueError(f"an exact phase of {counts[0] + counts[1]} cases, more than "
                         f"exact_until ({ev._exact_until})")
    return ev, counts


# ------------------------------------------------------------ reading a REQ blob
# DataSketches' deserializer trusts its input: a count, a section size or a NaN it is handed
# reaches code that allocates, sorts or shifts by it, and can end the process. So a blob read
# from a file is parsed here first, every field checked against what a sketch built by
# ``update`` and ``merge`` can hold (datasketches-cpp 5.x, floats, high-rank mode), and only
# then handed over.
_REQ_HEADER = struct.Struct("<BBBBHBB")  # preamble ints, serial version, family, flags, k,
                                        # levels, raw items
_REQ_COMPACTOR = struct.Struct("<QfBBxxI")  # state, raw section size, lg weight, sections, items
_REQ_FAMILY, _REQ_VERSION = 17, 1
_EMPTY, _HIGH_RANK, _RAW, _SORTED = 1 << 2, 1 << 3, 1 << 4, 1 << 5
_MIN_K = 4  # req_constants::MIN_K
_MAX_LEVELS = 62  # a level's weight, 2**level, and n stay below 2**63


def _section_pairs(k: int) -> dict[int, float]:
    """Number of sections -> raw section size, for every pair a level of a k sketch can
    reach: from (3, k), each step divides the size by sqrt(2) in float32 and doubles the
    sections while the size's nearest even number stays at least 4 (``ensure_enough_sections``;
    96 sections at most, since 192 would need 2**95 compactions)."""
    pairs, size, sections = {3: float(np.float32(k))}, np.float32(k), 3
    while sections < 96:
        size = np.float32(size / np.sqrt(np.float32(2.0)))
        if _nearest_even(float(size)) < _MIN_K:
            break
        sections *= 2
        pairs[sections] = float(size)
    return pairs


def _nearest_even(value: float) -> int:
    """``req_compactor::nearest_even``: C's ``round`` of half (halves away from zero), times 2."""
    half = value / 2
    return 2 * int(math.floor(half + 0.5) if half >= 0 else math.ceil(half - 0.5))


def _check_req_blob(blob: bytes, k: int) -> int:
    """Check that ``blob`` is a REQ sketch of floats in high-rank mode with this ``k`` that
    DataSketches 5.x wrote, field by field; return its n. ``ValueError`` names the first
    fault."""
    if len(blob) < _REQ_HEADER.size:
        raise ValueError(f"a sketch section of {len(blob)} bytes is shorter than its header")
    fields: tuple[int, ...] = _REQ_HEADER.unpack_from(blob)
    preamble, version, family, flags, their_k, levels, raw = fields
    if (version, family) != (_REQ_VERSION, _REQ_FAMILY):
        raise ValueError(f"not a REQ sketch (family {family}, version {version})")
    if their_k != k:
        raise ValueError(f"a sketch section has k={their_k}, the file says {k}")
    if flags & ~(_EMPTY | _HIGH_RANK | _RAW | _SORTED) or not flags & _HIGH_RANK:
        raise ValueError(f"unexpected sketch flags {flags:#04x}")
    if preamble != (4 if levels > 1 else 2):
        raise ValueError(f"sketch preamble of {preamble} ints for {levels} levels")
    if flags & _EMPTY:
        if (levels, raw, len(blob)) != (0, 0, _REQ_HEADER.size):
            raise ValueError("an empty sketch section holds data")
        return 0
    if not 1 <= levels <= _MAX_LEVELS:
        raise ValueError(f"a sketch of {levels} levels")
    at = _REQ_HEADER.size
    if flags & _RAW:
        if levels != 1 or not 1 <= raw <= _MIN_K:
            raise ValueError(f"{raw} raw items in a sketch of {levels} levels")
        items = _floats(blob, at, raw)
        padding = blob[at + 4 * raw:]
        if len(padding) != (0 if raw == 1 else _REQ_COMPACTOR.size) or any(padding):
            raise ValueError("a sketch section's length does not match its items")
        if raw > 1 and flags & _SORTED and np.any(items[1:] < items[:-1]):
            raise ValueError("a sketch's level 0 is marked sorted but is not")
        return raw
    if raw:
        raise ValueError(f"{raw} raw items in a sketch of compactors")
    n = low = high = None
    if levels > 1:
        if len(blob) < at + 16:
            raise ValueError("a sketch section ends inside its header")
        n, low, high = struct.unpack_from("<Qff", blob, at)
        at += 16
        if math.isnan(low) or math.isnan(high) or low > high:
            raise ValueError(f"a sketch's bounds {low}, {high} are not an interval")
    sections = _section_pairs(k)
    weight = 0
    for level in range(levels):
        if len(blob) < at + _REQ_COMPACTOR.size:
            raise ValueError(f"a sketch section ends inside level {level}")
        state, size, lg_weight, count, num_items = _compactor_fields(blob, at)
        at += _REQ_COMPACTOR.size
        if lg_weight != level or sections.get(count) != size:
            raise ValueError(f"sketch level {level} has weight 2**{lg_weight}, {count} sections "
                             f"of {size}")
        items = _floats(blob, at, num_items)
        at += 4 * num_items
        if (level or flags & _SORTED) and np.any(items[1:] < items[:-1]):
            raise ValueError(f"sketch level {level} is not sorted")
        if low is not None and num_items and (items.min() < low or items.max() > high):
            raise ValueError(f"sketch level {level} holds items outside its bounds")
        weight += num_items << level
        if state > (n if n is not None else num_items) or weight >= 2**63:
            raise ValueError(f"sketch level {level} claims {state} compactions")
    if at != len(blob):
        raise ValueError("a sketch section's length does not match its levels")
    if n is not None and n != weight:
        raise ValueError(f"a sketch section says n={n}, its levels hold {weight}")
    return weight


def _compactor_fields(blob: bytes, at: int) -> tuple[int, float, int, int, int]:
    state, size, lg_weight, count, num_items = _REQ_COMPACTOR.unpack_from(blob, at)
    return int(state), float(size), int(lg_weight), int(count), int(num_items)


def _floats(blob: bytes, at: int, count: int) -> NDArray[np.float32]:
    """``count`` little-endian float32 items at ``at``, none NaN."""
    if len(blob) < at + 4 * count:
        raise ValueError(f"a sketch section ends inside its {count} items")
    items = np.frombuffer(blob, dtype="<f4", count=count, offset=at)
    if np.isnan(items).any():
        raise ValueError("a sketch section holds NaN")
    return items


# ------------------------------------------------------------------- the bounds
def _weighted(sketch: Any) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The sketch's retained scores (ascending, distinct) and the cases each stands for."""
    if sketch.is_empty():  # iterating an empty REQ sketch crashes datasketches 5.2
        return np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.int64)
    pairs = list(sketch)
    items = np.array([item for item, _ in pairs], dtype=np.float64)
    weights = np.array([weight for _, weight in pairs], dtype=np.int64)
    order = np.argsort(items, kind="stable")
    items, weights = items[order], weights[order]
    if items.shape[0] == 0:
        return items, weights
    starts = np.flatnonzero(np.concatenate(([True], items[1:] != items[:-1])))
    return items[starts], np.add.reduceat(weights, starts)


def _tail_bounds(sketch: Any, items: NDArray[np.float64], weights: NDArray[np.int64],
                 at: NDArray[np.float64], strict: bool
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """Bounds of the cases scoring at least (``strict``: above) each of ``at``, and ε."""
    total = int(weights.sum())
    if total == 0:
        zeros = np.zeros(at.shape[0])
        return zeros, zeros, 0.0
    cumulative = np.concatenate(([0], np.cumsum(weights)))
    below = cumulative[np.searchsorted(items, at, side="right" if strict else "left")]
    ranks = below / total  # the estimated normalized rank: the share of cases below
    distinct = {float(r) for r in ranks} | {float(r) for r in cumulative / total}
    low = {r: max(0.0, r - WIDEN * (r - sketch.get_rank_lower_bound(r, STD_DEVS)))
           for r in distinct}
    high = {r: min(1.0, r + WIDEN * (sketch.get_rank_upper_bound(r, STD_DEVS) - r))
            for r in distinct}
    low |= {r: min(low[r], r) for r in distinct}
    high |= {r: max(high[r], r) for r in distinct}
    epsilon = max(max(r - low[r], high[r] - r) for r in distinct)
    # Counts are integers: round the bounds inwards, past the float error of total * (1 - r),
    # and never past the estimate itself (total - below, exact).
    slack = 1e-9 * (total + 1)
    estimate = (total - below).astype(np.float64)
    count_low = np.ceil(total * (1.0 - np.array([high[float(r)] for r in ranks])) - slack)
    count_high = np.floor(total * (1.0 - np.array([low[float(r)] for r in ranks])) + slack)
    count_low = np.clip(np.minimum(count_low, estimate), 0.0, total)
    count_high = np.clip(np.maximum(count_high, estimate), 0.0, total)
    return count_low, count_high, epsilon


def _sum_low(a: int, b: int, f: float) -> float:
    """A lower bound of Σ_{i=a..b} i / (i + f): the sum of an increasing function is at
    least its integral from a - 1 to b, ``[i - f ln(i + f)]``."""
    if f <= 0.0:
        return float(b - a + 1)
    return (b - f * math.log(b + f)) - (a - 1 - f * math.log(a - 1 + f))


def _ap_bounds(cells: dict[str, NDArray[np.float64]], p: int) -> tuple[float, float]:
    """Bounds of Σ over the ranked positives of their precision (see the module text).

    The scores are cut into cells, best first: above the top retained score, then each
    retained score and the open interval below it. Per cell: ``low``/``high`` bound the
    positives at or above its lower edge, ``f_lo`` the negatives above any score in it,
    ``f_hi`` the negatives at or above any score in it, ``t_hi`` the positives at or above
    any score in it. The i-th best positive (1-based) lies in the first cell whose count
    reaches i: between the first whose upper bound does and the first whose lower bound
    does. Its precision is at least i / (i + the most negatives above it) and at most
    t / (t + the fewest), over those cells. The positives fall into runs of i where both
    cells stay the same: one closed form a run.
    """
    low, high = np.maximum.accumulate(cells["low"]), np.minimum.accumulate(
        cells["high"][::-1])[::-1]
    f_hi, t_hi = np.maximum.accumulate(cells["f_hi"]), np.maximum.accumulate(cells["t_hi"])
    f_lo = np.minimum.accumulate(cells["f_lo"][::-1])[::-1]  # the fewest from a cell on
    last_cell = low.shape[0] - 1
    cuts = np.concatenate(([1, p + 1], np.floor(high) + 1, np.floor(low) + 1))
    cuts = np.unique(np.clip(cuts, 1, p + 1).astype(np.int64))
    total_low = total_high = 0.0
    for a, after in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        b = after - 1
        first = min(int(np.searchsorted(high, a, side="left")), last_cell)
        last = min(int(np.searchsorted(low, a, side="left")), last_cell)
        total_low += _sum_low(a, b, float(f_hi[last]))
        t, f = max(float(t_hi[last]), float(b)), float(f_lo[first])
        total_high += (b - a + 1) * (min(1.0, t / (t + f)) if t + f > 0 else 1.0)
    return total_low, total_high


def _bounded(sketches: tuple[Any, Any], pos_missed: int,
             neg_missed: int) -> dict[str, Estimate]:
    """The point values of the sketches' weighted scores and their intervals."""
    (pos_items, pos_w), (neg_items, neg_w) = (_weighted(s) for s in sketches)
    p, n = int(pos_w.sum()), int(neg_w.sum())
    scores = np.concatenate((pos_items, neg_items))
    layout = Layout(np.array([[n, p]], dtype=np.int64), "grouped", pos_missed, neg_missed,
                    Request((), (1.0,), 2))
    part, points = bucket_part_from_counts(
        0, scores, np.concatenate((pos_w, np.zeros_like(neg_w))),
        np.concatenate((np.zeros_like(pos_w), neg_w)), layout)
    report = assemble(layout, [part] if p + n else [], [points] if p + n else [])
    auc, ap = report.area_under_roc_curve(), report.average_precision()
    big_p, big_n = p + pos_missed, n + neg_missed

    x = np.unique(scores)[::-1]  # every retained score, best first
    lp, up, eps_p = _tail_bounds(sketches[0], pos_items, pos_w, x, strict=False)
    ln, un, eps_n = _tail_bounds(sketches[1], neg_items, neg_w, x, strict=False)
    lp_gt, up_gt, _ = _tail_bounds(sketches[0], pos_items, pos_w, x, strict=True)
    _, un_gt, _ = _tail_bounds(sketches[1], neg_items, neg_w, x, strict=True)
    if big_p and big_n:
        spread = (eps_p + eps_n) * p * n / (big_p * big_n)
        auc_bounds = (max(0.0, min(auc, auc - spread)), min(1.0, max(auc, auc + spread)))
    else:
        auc_bounds = (auc, auc)
    if big_p and p:
        # Cells: above x[0]; then x[j] and the open interval (x[j+1], x[j]) for each j, the
        # last one reaching -inf, where every count is known.
        m = x.shape[0]
        below_low, below_high = np.append(lp_gt[1:], p), np.append(up_gt[1:], p)
        below_un = np.append(un_gt[1:], n)

        def cells_of(top: float, at_x: NDArray[np.float64],
                     below: NDArray[np.float64]) -> NDArray[np.float64]:
            out = np.empty(2 * m + 1)
            out[0], out[1::2], out[2::2] = top, at_x, below
            return out

        cells = {
            "low": cells_of(lp_gt[0], lp, below_low),
            "high": cells_of(up_gt[0], up, below_high),
            "f_lo": cells_of(0.0, ln, ln),
            "f_hi": cells_of(un_gt[0], un, below_un),
            "t_hi": cells_of(up_gt[0], up, below_high),
        }
        low, high = _ap_bounds(cells, p)
        low, high = low / big_p, high / big_p
        ap_bounds = (max(0.0, min(ap, low)), min(1.0, max(ap, high)))
    else:
        ap_bounds = (ap, ap)
    return {"roc_auc": Estimate(auc, *auc_bounds),
            "average_precision": Estimate(ap, *ap_bounds)}
