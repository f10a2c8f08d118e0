r"""Saved evaluator state: a versioned, self-checking binary file, written atomically.

:func:`save_state` writes an :class:`EvaluatorState` and :func:`load_state` reads
it back; ``ScoredPrecisionRecallEvaluation.save`` / ``.load`` are thin wrappers.
The format is simple enough to read without rankeval (a dozen lines of Python
with ``struct``, ``json`` and ``numpy.frombuffer``, or any language).

File format, version 3
----------------------
Every accumulator saves the one container of :mod:`rankeval.container` (magic, version,
JSON metadata listing its sections' sizes, the sections, SHA-256); the evaluator's has the
magic ``89 52 4B 56 0D 0A 1A 0A`` (``b"\x89RKV\r\n\x1a\n"``) and version ``3``. ``n`` is the
number of ranked cases. The metadata object has exactly these members (besides the
container's ``"blobs"``):

- ``"ties"``: ``"insertion"`` or ``"grouped"``;
- ``"cases"``: ``n``, a JSON integer;
- ``"pos_missed"``, ``"neg_missed"``: the miss counts as *decimal strings*
  (``"0"``, ``"12"``; no sign, no leading zeros), since they may exceed 2**63;
- ``"window"``: ``null``, or the window length, a positive JSON integer ``>= n``;
- ``"next_age"``: the sequence number the next case will get, a JSON integer
  in ``[n, 2**63)``, above every age;
- ``"score_dtype"``: ``"float64"``, or ``"float32"`` for an evaluator that stores its scores
  as float32 (every key is then a value a float32 holds exactly; never with a window);
- ``"weighted"``: ``true`` for an evaluator holding weighted cases (ties ``"grouped"``),
  else ``false``;
- a time window only: ``"horizon"``, the seconds of cases kept, a positive finite JSON
  number (``"window"`` is then ``null``); ``"now"``, the clock's time at the last eviction,
  and ``"last_time"``, the latest time a case was given: each a finite JSON number, or
  ``null`` before the first one.

The sections, in this order, each with one value a case in the same (rank) order:

======================  ========  ==================================================
section                 type      present
======================  ========  ==================================================
keys                    float64   always: ``-score`` in rank order (ascending; equal
                                  keys in insertion order); never NaN
ages                    int64     with a window of cases or of time: each case's
                                  insertion sequence number
times                   float64   with a time window: each case's time in the clock's
                                  seconds
weights                 float64   with ``"weighted": true``: each case's weight
labels                  uint8     always: ``1`` positive, ``0`` negative
======================  ========  ==================================================

Without a window each weight is finite and positive, and the cases are in the weighted
store's canonical order: by key, then label (a negative first), then weight. In a window of
cases or of time the cases are in rank order with their ages, as any window's, and a weight
may be 0 (a case that holds its place in the window and counts for nothing).

Ages are unique, non-negative, and increase along each run of equal keys. Times are finite
and never decrease in age order; each is above ``now - horizon`` (the older ones have left)
and at most ``last_time``.

Versions 1 and 2 (rankeval 0.2 and earlier) load as before; nothing writes them any more.
Their header is ``magic, version, flags, M, K, A, L`` (``<8sIIQQQQ``: flags ``1`` a time
window, ``2`` float32 scores, ``4`` weighted cases; M the metadata's length, space-padded to
8-byte alignment; K, A, L the keys', ages' and labels' lengths in bytes), then the
metadata (the members above without ``"score_dtype"`` and ``"weighted"``, which the flags
said), the same sections, and the SHA-256.

The magic is built like PNG's: the high-bit first byte catches 7-bit
transfers, ``\r\n`` and the final ``\n`` catch newline translation, and
``\x1a`` stops a DOS ``type``. A reader checks, in this order: magic, version, the metadata
(one JSON object whose members and section sizes agree with each other, with the file's
size — "truncated" / "trailing data" — and with this machine's memory), the SHA-256, then
every invariant above. Any failure raises :class:`PersistenceError` naming the file
and the problem; nothing is returned half-filled.

Atomic saves
------------
:func:`save_state` writes a temporary file in the target's directory, named
``.<target name>.<16 hex digits>.rankeval-tmp``, flushes and ``fsync``\ s it,
renames it onto the target with :func:`os.replace` (atomic on POSIX and
Windows), then ``fsync``\ s the directory. A crash or ``SIGKILL`` at any moment
leaves the target either as it was or completely new. A save that fails with
an exception removes its temporary file; a killed one may leave it behind.
:func:`load_state` only ever opens the path it is given, so a leftover
temporary file is never read; it is safe to delete any file matching
``.*.rankeval-tmp`` that no process is writing.

The checksum detects corruption, not tampering; loading a file never executes
code (unlike :mod:`pickle`).

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> state = EvaluatorState(ties="insertion", keys=np.array([-0.9, -0.5, -0.5]),
...                        labels=np.array([True, False, True]), pos_missed=1,
...                        neg_missed=0, window=None, ages=None, next_age=3)
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "eval.rankeval")
...     save_state(path, state)
...     size = os.path.getsize(path)
...     loaded = load_state(path)
>>> loaded == state, size
(True, 227)
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import numbers
import os
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from rankeval import container
from rankeval.checks import check_float32_scores
from rankeval.container import open_regular
from rankeval.errors import PersistenceError
from rankeval.files import TEMP_SUFFIX
from rankeval.formulas import TIE_POLICIES, TiePolicy

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "TEMP_SUFFIX",
    "EvaluatorState",
    "PersistenceError",
    "load_state",
    "open_regular",
    "save_state",
    "state_bytes",
    "state_from_bytes",
]

MAGIC = b"\x89RKV\r\n\x1a\n"
FORMAT_VERSION = 3  # what save_state writes (the container); versions 1 and 2 are read too
_TIMED = 1  # header flag: a time window, with a times section
_FLOAT32 = 2  # header flag: scores stored as float32 (an unbounded evaluator)
_WEIGHTED = 4  # header flag: weighted cases, with a weights section

_HEADER = struct.Struct("<8sIIQQQQ")  # versions 1, 2: magic, version, flags, M, K, A, L
_VERSIONED = struct.Struct("<8sI")  # what every version starts with: magic, version
_DIGEST_SIZE = hashlib.sha256().digest_size
_MAX_AGE = 2**63 - 1
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]*)\Z")
_META_MEMBERS = frozenset({"ties", "cases", "pos_missed", "neg_missed", "window", "next_age"})
_TIMED_MEMBERS = _META_MEMBERS | {"horizon", "now", "last_time"}
_V3_MEMBERS = frozenset({"score_dtype", "weighted"})  # version 3 says these in its metadata
# Bitmap uniqueness check for ages when their span is at most this many times n;
# past that, sorting is cheaper in memory.
_BITMAP_SPAN_FACTOR = 8
_CHUNK = 1 << 20


@dataclass(frozen=True, eq=False)
class EvaluatorState:
    """Everything needed to rebuild a scored evaluator, validated on construction.

    Parameters
    ----------
    ties : {"insertion", "grouped"}
        The tie policy.
    keys : ndarray of float64, shape (n,)
        ``-score`` of each case in rank order (ascending), equal keys in
        insertion order; no NaN.
    labels : ndarray of bool, shape (n,)
        Whether each case (same order) is a positive.
    pos_missed, neg_missed : int
        Positives and negatives declared missed; non-negative, unbounded.
    window : int or None
        The sliding-window length (>= n), or None for an unbounded evaluator.
    ages : ndarray of int64, shape (n,), or None
        Insertion sequence number of each case (same order): unique,
        non-negative, below ``next_age``, increasing along equal keys. Present
        exactly when ``window`` is not None.
    next_age : int
        The sequence number the next case will get; ``n <= next_age < 2**63``.
    horizon : float or None
        A time window's length in seconds (then ``window`` is None and ``ages`` and
        ``times`` are given), or None.
    times : ndarray of float64, shape (n,), or None
        A time window only: each case's time (same order), finite, non-decreasing in age
        order, above ``now - horizon`` and at most ``last_time``.
    now, last_time : float
        A time window only: the clock's time at the last eviction, and the latest time
        given to a case; ``-inf`` before the first one.
    score_dtype : {"float64", "float32"}
        How the evaluator stores scores; ``"float32"`` only without a window, and then every
        key is a value a float32 holds exactly.
    weights : ndarray of float64, shape (n,), or None
        Weighted cases only (ties ``"grouped"``): each case's weight, finite. Without a window
        each is positive and the cases are sorted by key, then label, then weight; in a window
        a weight may be 0 (a case holding its place).

    Raises
    ------
    TypeError
        A field has the wrong type, dtype or dimension.
    ValueError
        A field has a wrong value or the fields disagree.

    Notes
    -----
    Equality compares every field, keys bit for bit (so ``-0.0 != 0.0``).
    The arrays are not copied; do not change them while the state is in use.
    Complexity: construction is O(n) (O(n log n) for ages spread over a
    range much wider than n).

    Examples
    --------
    >>> import numpy as np
    >>> EvaluatorState("grouped", np.array([-1.0]), np.array([True]), 0, 2,
    ...                None, None, 1).neg_missed
    2
    >>> EvaluatorState("grouped", np.array([-1.0, -2.0]), np.array([True, False]),
    ...                0, 0, None, None, 2)
    Traceback (most recent call last):
    ...
    ValueError: keys must be sorted ascending (rank order); keys[1] = -2.0 < keys[0] = -1.0
    """

    ties: TiePolicy
    keys: NDArray[np.float64]
    labels: NDArray[np.bool_]
    pos_missed: int
    neg_missed: int
    window: int | None
    ages: NDArray[np.int64] | None
    next_age: int
    horizon: float | None = None
    times: NDArray[np.float64] | None = None
    now: float = -math.inf
    last_time: float = -math.inf
    score_dtype: str = "float64"
    weights: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        _validate(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EvaluatorState):
            return NotImplemented
        return (
            self.ties == other.ties
            and self.pos_missed == other.pos_missed
            and self.neg_missed == other.neg_missed
            and self.window == other.window
            and self.next_age == other.next_age
            and (self.horizon, self.now, self.last_time, self.score_dtype)
            == (other.horizon, other.now, other.last_time, other.score_dtype)
            and np.array_equal(self.keys.view(np.int64), other.keys.view(np.int64))
            and np.array_equal(self.labels, other.labels)
            and _same_optional(self.ages, other.ages)
            and _same_optional(self.times, other.times)
            and _same_optional(self.weights, other.weights)
        )

    __hash__ = None  # type: ignore[assignment]  # holds mutable arrays

    @property
    def num_cases(self) -> int:
        """n, the number of ranked cases."""
        return int(self.keys.shape[0])


def _same_optional(mine: NDArray[Any] | None, theirs: NDArray[Any] | None) -> bool:
    if mine is None or theirs is None:
        return mine is None and theirs is None
    return np.array_equal(mine, theirs)


# ---------------------------------------------------------------- validation
def _count(name: str, value: object) -> int:
    """A non-negative Python-int field (NumPy integers accepted)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    number = int(value)
    if number < 0:
        raise ValueError(f"{name} must be non-negative, got {number}")
    return number


def _array(name: str, value: object, dtype: type[np.generic]) -> None:
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a NumPy array, got {type(value).__name__}")
    if value.dtype != np.dtype(dtype) or value.ndim != 1:
        raise TypeError(
            f"{name} must be a 1-d array of {np.dtype(dtype)}, "
            f"got {value.ndim}-d array of {value.dtype}"
        )


def _validate(state: EvaluatorState) -> None:
    """Check every invariant of the format; normalise integer fields to ``int``."""
    if not isinstance(state.ties, str):
        raise TypeError(f"ties must be a str, got {type(state.ties).__name__} {state.ties!r}")
    if state.ties not in TIE_POLICIES:
        raise ValueError(f"ties must be one of {TIE_POLICIES}, got {state.ties!r}")
    _array("keys", state.keys, np.float64)
    _array("labels", state.labels, np.bool_)
    if state.score_dtype not in ("float64", "float32"):
        raise ValueError(f"score_dtype must be 'float64' or 'float32', got {state.score_dtype!r}")
    if state.score_dtype == "float32":
        if state.window is not None or state.horizon is not None:
            raise ValueError("score_dtype 'float32' applies to an unbounded evaluator only")
        check_float32_scores(-state.keys, "-keys")
    n = state.keys.shape[0]
    if state.labels.shape[0] != n:
        raise ValueError(f"labels has {state.labels.shape[0]} entries, keys has {n}")
    for name in ("pos_missed", "neg_missed", "next_age"):
        object.__setattr__(state, name, _count(name, getattr(state, name)))
    if state.window is not None:
        window = _count("window", state.window)
        if window < 1:
            raise ValueError("window must be positive, got 0")
        if n > window:
            raise ValueError(f"{n} cases do not fit in a window of {window}")
        object.__setattr__(state, "window", window)
    if state.next_age > _MAX_AGE:
        raise ValueError(f"next_age must be below 2**63, got {state.next_age}")
    if state.next_age < n:
        raise ValueError(f"next_age {state.next_age} is below the number of cases {n}")
    keys = state.keys
    if n:
        nan = np.isnan(keys)
        if nan.any():
            raise ValueError(f"keys must not be NaN; keys[{int(np.argmax(nan))}] is NaN")
        down = keys[1:] < keys[:-1]
        if down.any():
            i = int(np.argmax(down)) + 1
            raise ValueError(
                "keys must be sorted ascending (rank order); "
                f"keys[{i}] = {float(keys[i])!r} < keys[{i - 1}] = {float(keys[i - 1])!r}"
            )
    _validate_time(state)
    if (state.window is None and state.horizon is None) != (state.ages is None):
        raise ValueError("ages must be given exactly when window or horizon is not None")
    if state.ages is not None:
        _validate_ages(state.ages, keys, state.next_age)
    if state.times is not None:
        assert state.ages is not None
        assert state.horizon is not None
        _validate_times(state.times, state.ages, state.horizon, state.now, state.last_time)
    if state.weights is not None:
        _validate_weights(state)


def _validate_weights(state: EvaluatorState) -> None:
    """Weighted cases: grouped ties; finite weights, positive and in canonical order without
    a window, at least 0 in a window (a case of weight 0 holds its place there)."""
    from rankeval.scored.weighted import in_canonical_order

    if state.ties != "grouped":
        raise ValueError("weights need ties 'grouped'")
    windowed = state.window is not None or state.horizon is not None
    weights = _beside_keys("weights", state.weights, np.float64, state.num_cases)
    bad = ~(np.isfinite(weights) & ((weights >= 0.0) if windowed else (weights > 0.0)))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"weights must be finite and {'>= 0' if windowed else 'positive'}; "
                         f"weights[{i}] is {float(weights[i])!r}")
    if not windowed and not in_canonical_order(state.keys, state.labels, weights):
        raise ValueError("weighted cases must be sorted by key, then label, then weight")


def _time(name: str, value: object, finite: bool) -> float:
    """A float field (``-inf`` allowed unless ``finite``), never NaN or ``+inf``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a float, got {type(value).__name__} {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        raise ValueError(f"{name} must be finite, got an integer of "
                         f"{len(str(value).lstrip('-'))} digits") from None
    if not (math.isfinite(number) or (number == -math.inf and not finite)):
        raise ValueError(f"{name} must be finite{'' if finite else ' or -inf'}, got {number!r}")
    return number


def _validate_time(state: EvaluatorState) -> None:
    """The time window's fields: all given (horizon, times) or all left at their defaults."""
    if state.horizon is None:
        if state.times is not None or state.now != -math.inf or state.last_time != -math.inf:
            raise ValueError("times, now and last_time belong to a time window: give horizon")
        return
    horizon = _time("horizon", state.horizon, finite=True)
    if horizon <= 0:
        raise ValueError(f"horizon must be positive, got {horizon!r}")
    if state.window is not None:
        raise ValueError("a state has a window of cases or a horizon of time, not both")
    if state.times is None:
        raise ValueError("a time window's state needs times")
    object.__setattr__(state, "horizon", horizon)
    for name in ("now", "last_time"):
        object.__setattr__(state, name, _time(name, getattr(state, name), finite=False))


def _beside_keys(name: str, value: object, dtype: type[np.generic], n: int) -> NDArray[Any]:
    """A 1-d array of ``dtype`` with one entry per case (``TypeError``/``ValueError``)."""
    _array(name, value, dtype)
    assert isinstance(value, np.ndarray)
    if value.shape[0] != n:
        raise ValueError(f"{name} has {value.shape[0]} entries, keys has {n}")
    return value


def _validate_times(value: object, ages: NDArray[np.int64], horizon: float, now: float,
                    last_time: float) -> None:
    n = ages.shape[0]
    times = _beside_keys("times", value, np.float64, n)
    if not n:
        return
    bad = ~np.isfinite(times)
    if bad.any():
        raise ValueError(f"times must be finite; times[{int(np.argmax(bad))}] is not")
    in_age_order = times[np.argsort(ages, kind="stable")]
    if (in_age_order[1:] < in_age_order[:-1]).any():
        raise ValueError("times must not decrease in age (arrival) order")
    if not in_age_order[0] > now - horizon:
        raise ValueError(f"time {float(in_age_order[0])!r} has left the window "
                         f"(now {now!r}, horizon {horizon!r})")
    if in_age_order[-1] > last_time:
        raise ValueError(f"time {float(in_age_order[-1])!r} is after last_time {last_time!r}")


def _validate_ages(value: object, keys: NDArray[np.float64], next_age: int) -> None:
    n = keys.shape[0]
    ages = _beside_keys("ages", value, np.int64, n)
    if not n:
        return
    lo, hi = int(ages.min()), int(ages.max())
    if lo < 0:
        raise ValueError(f"ages must be non-negative, found {lo}")
    if hi >= next_age:
        raise ValueError(f"ages must be below next_age {next_age}, found {hi}")
    if not _all_unique(ages, lo, hi):
        raise ValueError("ages must be unique")
    backwards = (keys[1:] == keys[:-1]) & (ages[1:] <= ages[:-1])
    if backwards.any():
        i = int(np.argmax(backwards)) + 1
        raise ValueError(
            f"equal keys must be in insertion order; ages[{i}] = {int(ages[i])} "
            f"follows ages[{i - 1}] = {int(ages[i - 1])}"
        )


def _all_unique(values: NDArray[np.int64], lo: int, hi: int) -> bool:
    """Whether ``values`` (all in ``[lo, hi]``) are distinct. O(n), or O(n log n) if sparse."""
    n = int(values.shape[0])
    span = hi - lo + 1
    if span < n:
        return False  # pigeonhole
    if span > _BITMAP_SPAN_FACTOR * n:
        ordered = np.sort(values)
        return not (ordered[1:] == ordered[:-1]).any()
    seen = np.zeros(span, dtype=np.bool_)
    for start in range(0, n, _CHUNK):
        seen[values[start : start + _CHUNK] - lo] = True
    return int(np.count_nonzero(seen)) == n


# --------------------------------------------------------------------- save
def _metadata(state: EvaluatorState) -> dict[str, object]:
    """The JSON metadata of format version 3 (the container adds the sections' sizes)."""
    meta: dict[str, object] = {
        "ties": state.ties,
        "cases": state.num_cases,
        # str(int) refuses more than 4300 digits; Decimal has no such limit.
        "pos_missed": str(Decimal(state.pos_missed)),
        "neg_missed": str(Decimal(state.neg_missed)),
        "window": state.window,
        "next_age": state.next_age,
        "score_dtype": state.score_dtype,
        "weighted": state.weights is not None,
    }
    if state.horizon is not None:
        meta["horizon"] = state.horizon  # json writes repr: the double round-trips
        meta["now"] = None if state.now == -math.inf else state.now
        meta["last_time"] = None if state.last_time == -math.inf else state.last_time
    return meta


def _sections(state: EvaluatorState) -> list[NDArray[Any]]:
    """The arrays in file order, little-endian and contiguous (copied only if not already)."""
    parts: list[NDArray[Any]] = [np.ascontiguousarray(state.keys, dtype="<f8")]
    if state.ages is not None:
        parts.append(np.ascontiguousarray(state.ages, dtype="<i8"))
    if state.times is not None:
        parts.append(np.ascontiguousarray(state.times, dtype="<f8"))
    if state.weights is not None:
        parts.append(np.ascontiguousarray(state.weights, dtype="<f8"))
    parts.append(np.ascontiguousarray(state.labels).view(np.uint8))
    return parts


def save_state(path: str | os.PathLike[str], state: EvaluatorState) -> None:
    """Write ``state`` to ``path`` atomically, in format version 3 (the container).

    Parameters
    ----------
    path : str or os.PathLike
        The target file; its directory must exist. An existing file is
        replaced (a symbolic link is replaced by a regular file).
    state : EvaluatorState
        Validated again before anything is written (its arrays may have
        changed since it was built), so a saved file always loads.

    Raises
    ------
    TypeError
        ``state`` is not an :class:`EvaluatorState`, or ``path`` is not a path.
    ValueError
        The state breaks an invariant (see :class:`EvaluatorState`).
    OSError
        The file could not be written; the target is then unchanged. As with
        :func:`open`: ``FileNotFoundError`` for ``""`` or a missing directory,
        ``IsADirectoryError`` for a directory or a path ending in a separator
        (checked before anything is written).

    Notes
    -----
    The temporary file ``.<name>.<16 hex digits>.rankeval-tmp`` is removed on
    any failure except a kill. Memory: no copy of the arrays on little-endian
    machines; the SHA-256 is computed as the sections are written.
    Complexity: O(n) time and I/O, plus two ``fsync`` calls.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> state = EvaluatorState("grouped", np.array([-2.0, 1.5]), np.array([True, False]),
    ...                        0, 0, window=4, ages=np.array([1, 0]), next_age=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_state(os.path.join(tmp, "s"), state)
    ...     sorted(os.listdir(tmp))
    ['s']
    """
    if not isinstance(state, EvaluatorState):
        raise TypeError(f"state must be an EvaluatorState, got {type(state).__name__}")
    target = os.fspath(path)
    if not isinstance(target, str):
        raise TypeError(f"path must be a str or os.PathLike[str], got {target!r}")
    _validate(state)
    container.save_parts(target, MAGIC, FORMAT_VERSION, _metadata(state), _sections(state))


def state_bytes(state: EvaluatorState) -> bytes:
    """The bytes :func:`save_state` writes for ``state`` (the same format, in memory).

    Complexity: O(n).
    """
    if not isinstance(state, EvaluatorState):
        raise TypeError(f"state must be an EvaluatorState, got {type(state).__name__}")
    _validate(state)
    return container.pack(MAGIC, FORMAT_VERSION, _metadata(state), _sections(state))


# --------------------------------------------------------------------- load
def load_state(path: str | os.PathLike[str]) -> EvaluatorState:
    """Read a state saved by :func:`save_state`, checking everything.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Temporary files of interrupted saves are never read.

    Returns
    -------
    EvaluatorState
        A fully validated state whose arrays are freshly allocated and owned by
        it (an evaluator may adopt them without copying).

    Raises
    ------
    FileNotFoundError
        No such file (other ``OSError``\\ s likewise propagate).
    PersistenceError
        The file is not a complete, intact state file (version 1, 2 or 3); the message
        names the file and the problem, e.g. ``"checksum mismatch"``,
        ``"truncated: expected 203 bytes, found 100"``, ``"not a rankeval
        state file (bad magic)"``, ``"unsupported format version 7 (this
        rankeval reads 1, 2 and 3)"``.

    Notes
    -----
    Memory: the arrays are read straight into their final buffers and hashed
    in place; nothing else of size n is kept. Complexity: O(n) time and I/O
    (O(n log n) for ages spread over a range much wider than n).

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "not-state.json")
    ...     with open(path, "w") as f:
    ...         _ = f.write('{"ties": "insertion"}')
    ...     load_state(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankeval.errors.PersistenceError: ...not-state.json: not a rankeval state file (bad magic)
    """
    name = os.fspath(path)
    if not isinstance(name, str):
        raise TypeError(f"path must be a str or os.PathLike[str], got {name!r}")

    def fail(problem: str) -> NoReturn:
        raise PersistenceError(name, problem)

    with open_regular(name, fail) as stream:
        return _read_state(stream, os.fstat(stream.fileno()).st_size, name, fail,
                           on_disk=True)


def state_from_bytes(data: bytes, name: str = "<bytes>") -> EvaluatorState:
    """The state :func:`state_bytes` (or :func:`save_state`) wrote, from memory; every check
    of :func:`load_state`, :class:`~rankeval.PersistenceError` naming ``name``.

    Complexity: O(n).
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")

    def fail(problem: str) -> NoReturn:
        raise PersistenceError(name, problem)

    return _read_state(io.BytesIO(bytes(data)), len(data), name, fail, on_disk=False)


def _read_state(stream: Any, size: int, name: str, fail: Callable[[str], NoReturn], *,
                on_disk: bool) -> EvaluatorState:
    """Read and check one state of ``size`` bytes from ``stream``; ``on_disk``: a file, which
    may be sparse (bytes in memory cannot be)."""
    head = stream.read(_VERSIONED.size)
    if len(head) < len(MAGIC):
        if not head:
            fail("empty file; not a rankeval state file")
        if MAGIC.startswith(head):
            fail(f"truncated: expected at least {_VERSIONED.size} bytes, found {len(head)}")
        fail("not a rankeval state file (bad magic)")
    if head[: len(MAGIC)] != MAGIC:
        fail("not a rankeval state file (bad magic)")
    if len(head) < _VERSIONED.size:
        fail(f"truncated: expected at least {_VERSIONED.size} bytes, found {len(head)}")
    version = _VERSIONED.unpack(head)[1]
    if version == FORMAT_VERSION:
        return _read_container(stream, size, head, name, fail, on_disk)
    if version not in (1, 2):
        fail(f"unsupported format version {version} (this rankeval reads 1, 2 and 3)")
    return _read_legacy(stream, size, head, name, fail, on_disk)


def _read_container(stream: Any, size: int, head: bytes, name: str,
                    fail: Callable[[str], NoReturn], on_disk: bool) -> EvaluatorState:
    """Read a state of format version 3 (the container) after its first ``head`` bytes."""
    meta, arrays = container.read_parts(stream, size, head, "state", name, on_disk=on_disk,
                                        dtypes=_section_types)
    labels = arrays[-1]
    n = labels.shape[0]
    if any(array.shape[0] != n for array in arrays):
        fail(f"invalid state: sections of {[array.shape[0] for array in arrays]} values "
             "do not describe one number of cases")
    if meta["cases"] != n:
        fail(f"metadata says {meta['cases']} cases, the sections {n}")
    if n and int(labels.max()) > 1:
        fail(f"label bytes must be 0 or 1, found {int(labels.max())}")
    windowed = meta["window"] is not None or "horizon" in meta
    ages = arrays[1] if windowed else None
    times = arrays[2] if "horizon" in meta else None
    weights = arrays[-2] if meta["weighted"] else None
    return _state_of(meta, arrays[0], labels, ages, times, weights, meta["score_dtype"], fail)


def _section_types(meta: dict[str, Any]) -> list[np.dtype[Any]]:
    """Check version 3's metadata members (in place) and name its sections' types: keys,
    then ages (a window of cases or time), times (a window of time), weights (weighted
    cases), labels."""
    timed = "horizon" in meta
    _check_members(meta, (_TIMED_MEMBERS if timed else _META_MEMBERS) | _V3_MEMBERS)
    if meta["score_dtype"] not in ("float64", "float32"):
        raise ValueError(f"score_dtype {meta['score_dtype']!r} is not float64 or float32")
    if type(meta["weighted"]) is not bool:
        raise ValueError(f"weighted must be true or false, got {meta['weighted']!r}")
    f8, i8 = np.dtype("<f8"), np.dtype("<i8")
    return [f8, *([i8] if meta["window"] is not None or timed else []),
            *([f8] if timed else []), *([f8] if meta["weighted"] else []), np.dtype(np.uint8)]


def _read_legacy(stream: Any, size: int, head: bytes, name: str,
                 fail: Callable[[str], NoReturn], on_disk: bool) -> EvaluatorState:
    """Read a state of format version 1 or 2 (written by rankeval 0.2 and earlier) after its
    first ``head`` bytes."""
    head += stream.read(_HEADER.size - len(head))
    if len(head) < _HEADER.size:
        fail(f"truncated: expected at least {_HEADER.size} bytes, found {len(head)}")
    _, version, flags, meta_len, keys_len, ages_len, labels_len = _HEADER.unpack(head)
    if (flags & ~(_TIMED | _FLOAT32 | _WEIGHTED if version == 2 else 0)
            or (flags & _TIMED and flags & _FLOAT32)):
        fail(f"unknown header flags {flags:#x} (version {version} defines "
             f"{'0x1, 0x2 and 0x4, not 0x1 with 0x2' if version == 2 else 'none'})")
    n = labels_len
    timed = bool(flags & _TIMED)
    times_len = 8 * n if timed else 0
    weights_len = 8 * n if flags & _WEIGHTED else 0
    if keys_len != 8 * n or ages_len not in (0, 8 * n) or (timed and ages_len != 8 * n):
        fail(
            f"inconsistent header: {keys_len} key bytes, {ages_len} age bytes "
            f"and {labels_len} label bytes do not describe one number of cases"
        )
    expected = (_HEADER.size + meta_len + keys_len + ages_len + times_len + weights_len
                + labels_len + _DIGEST_SIZE)
    if size < expected:
        fail(f"truncated: expected {expected} bytes, found {size}")
    if size > expected:
        fail(f"trailing data: expected {expected} bytes, found {size}")

    # keys and labels, then ages, times and weights
    container.check_room(9 * n + ages_len + times_len + weights_len, f"declares {n} cases",
                         fail)
    if on_disk and container._has_holes(stream):
        # A file of mostly holes (a crafted sparse file) can claim any size
        # on no disk: prove the checksum before allocating anything for it.
        container._verify_digest(stream, head, expected, fail)
    digest = hashlib.sha256(head)
    meta_raw = stream.read(meta_len)
    digest.update(meta_raw)
    try:
        keys = np.empty(n, dtype="<f8")
        ages = np.empty(n, dtype="<i8") if ages_len else None
        times = np.empty(n, dtype="<f8") if timed else None
        weights = np.empty(n, dtype="<f8") if weights_len else None
        labels = np.empty(n, dtype=np.uint8)
    except MemoryError:
        fail(f"not enough memory to load {n} cases")
    got = len(meta_raw) + sum(container._read_into(stream, array, digest)
                              for array in (keys, ages, times, weights, labels)
                              if array is not None)
    stored = stream.read(_DIGEST_SIZE)
    if got + len(stored) != expected - _HEADER.size:  # the file shrank while we read
        fail(f"truncated: expected {expected} bytes, found {_HEADER.size + got + len(stored)}")
    if stored != digest.digest():
        fail("checksum mismatch (the file is corrupted)")

    meta = _parse_metadata(meta_raw, timed, fail)
    if meta["cases"] != n:
        fail(f"metadata says {meta['cases']} cases, the header {n}")
    windowed = meta["window"] is not None or timed
    if windowed and ages is None and n == 0:
        ages = np.empty(0, dtype="<i8")  # an empty ages section is indistinguishable from none
    if windowed != (ages is not None):
        fail("ages section must be present exactly when the metadata has a window")
    if n and int(labels.max()) > 1:
        fail(f"label bytes must be 0 or 1, found {int(labels.max())}")
    return _state_of(meta, keys, labels, ages, times, weights,
                     "float32" if flags & _FLOAT32 else "float64", fail)


def _state_of(meta: dict[str, Any], keys: NDArray[Any], labels: NDArray[np.uint8],
              ages: NDArray[Any] | None, times: NDArray[Any] | None,
              weights: NDArray[Any] | None, score_dtype: str,
              fail: Callable[[str], NoReturn]) -> EvaluatorState:
    """The state of checked metadata and sections, every invariant checked (any version)."""
    try:
        return EvaluatorState(
            ties=meta["ties"],
            keys=keys.astype(np.float64, copy=False),
            labels=labels.view(np.bool_),
            pos_missed=meta["pos_missed"],
            neg_missed=meta["neg_missed"],
            window=meta["window"],
            ages=None if ages is None else ages.astype(np.int64, copy=False),
            next_age=meta["next_age"],
            horizon=meta.get("horizon"),
            times=None if times is None else times.astype(np.float64, copy=False),
            now=-math.inf if meta.get("now") is None else meta["now"],
            last_time=-math.inf if meta.get("last_time") is None else meta["last_time"],
            score_dtype=score_dtype,
            weights=None if weights is None else weights.astype(np.float64, copy=False),
        )
    except (TypeError, ValueError) as error:
        fail(f"invalid state: {error}")


def _reject_constant(token: str) -> NoReturn:
    raise ValueError(f"JSON constant {token} is not allowed")


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("duplicate member in metadata")
    return out


def _parse_metadata(raw: bytes, timed: bool, fail: Callable[[str], NoReturn]) -> dict[str, Any]:
    """Decode and type-check the metadata object of versions 1 and 2 (values are checked by
    EvaluatorState)."""
    try:
        meta = json.loads(
            raw.decode("utf-8"),
            parse_constant=_reject_constant,
            object_pairs_hook=_unique_members,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        fail(f"bad metadata: {error}")
    if not isinstance(meta, dict):
        fail(f"bad metadata: expected a JSON object, got {type(meta).__name__}")
    try:
        _check_members(meta, _TIMED_MEMBERS if timed else _META_MEMBERS)
    except ValueError as error:
        fail(f"bad metadata: {error}")
    return meta


def _check_members(meta: dict[str, Any], members: frozenset[str]) -> None:
    """Type-check the metadata's members (any version; ``ValueError`` names the first
    fault), and read the miss counts' decimal strings as integers in place."""
    if set(meta) != members:
        raise ValueError(f"members {sorted(meta)}, expected {sorted(members)}")
    if "horizon" in meta and type(meta["horizon"]) not in (int, float):
        raise ValueError(f"horizon must be a number, got {meta['horizon']!r}")
    for member in ("now", "last_time"):
        value = meta.get(member)
        if not (value is None or type(value) in (int, float)):
            raise ValueError(f"{member} must be a number or null, got {value!r}")
    if meta["ties"] not in TIE_POLICIES:
        raise ValueError(f"ties {meta['ties']!r} is not one of {TIE_POLICIES}")
    for member in ("cases", "next_age"):
        if type(meta[member]) is not int:
            raise ValueError(f"{member} must be an integer, got {meta[member]!r}")
    if meta["window"] is not None and type(meta["window"]) is not int:
        raise ValueError(f"window must be an integer or null, got {meta['window']!r}")
    for member in ("pos_missed", "neg_missed"):
        text = meta[member]
        if not isinstance(text, str) or not _DECIMAL.match(text):
            raise ValueError(f"{member} must be a decimal string, got {text!r}")
        meta[member] = int(Decimal(text))
