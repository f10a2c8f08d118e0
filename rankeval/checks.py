"""Argument checks: every public entry point validates here, once, before touching state.

One message style everywhere: ``"{name} must be {what is expected}, got {type} {value!r}"``
(the type only where it helps), ``TypeError`` for a wrong type and ``ValueError`` for a wrong
value. The one exception is on purpose: the streaming evaluator's negative miss counts and
ranks raise LingPipe's own messages (``"Miss count must be non-negative. Found count=-3"``),
which the LingPipe reference data checks.

Every check returns the value converted to the plain Python type the code stores, so a caller
writes ``beta = check_beta(beta)`` and never converts twice.
"""

from __future__ import annotations

import math
import numbers
import struct
import sys
from collections.abc import Callable, Collection
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from rankeval._deprecation import deprecated
from rankeval.formulas import TIE_POLICIES, TiePolicy

_Choice = TypeVar("_Choice")


def _shown(value: object) -> str:
    return f"{type(value).__name__} {value!r}"


def check_choice(value: object, name: str, allowed: Collection[_Choice]) -> _Choice:
    """``value`` if it is one of ``allowed`` (a Literal's values), else ``ValueError``.

    Like every validator here: the value first, then its name for the message.

    >>> check_choice("exp", "gain", ("linear", "exp"))
    'exp'
    """
    for choice in allowed:
        # A NumPy string (np.str_, a str subclass) is its text; a bool is never 1 or 0.
        same_kind = type(value) is type(choice) or (
            isinstance(value, str) and isinstance(choice, str))
        if same_kind and value == choice:
            return choice
    raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")


def check_flag(value: object, name: str) -> bool:
    """A yes/no option: ``bool`` or NumPy bool only (``1`` is not a flag)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be a bool, got {_shown(value)}")


def check_int(value: object, name: str, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """An integer (Python or NumPy, never a bool), at least ``minimum`` and at most
    ``maximum`` if given."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_shown(value)}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {number}")
    if maximum is not None and number > maximum:
        shown = number if abs(number) < 10**30 else f"about 10**{len(str(abs(number))) - 1}"
        raise ValueError(f"{name} must be an integer <= {maximum:,}, got {shown}")
    return number


def check_real(value: object, name: str) -> float:
    """A real number (never a bool) as a double; NaN and infinities pass."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_shown(value)}")
    return _to_double(value, name)


def check_threshold(value: object) -> float:
    """A score threshold: a real number, not NaN (it would count no case or every one)."""
    threshold = check_real(value, "threshold")
    if threshold != threshold:
        raise ValueError("threshold must not be NaN (it would count no case or every one)")
    return threshold


def check_hashable(value: object, name: str) -> None:
    """Refuse a value that cannot be a dictionary key (a class label)."""
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"{name} must be hashable to be a label, got {_shown(value)}") from None


def check_ties(ties: object) -> TiePolicy:
    """Return ``ties`` if it names a tie policy."""
    return check_choice(ties, "ties", TIE_POLICIES)


def check_window(window: object) -> int | None:
    """None, or a positive integer window length."""
    if window is None:
        return None
    if isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, np.integer)):
        raise TypeError(f"window must be a positive integer or None, got {window!r}")
    if window <= 0:
        raise ValueError(f"window must be a positive integer or None, got {window!r}")
    return int(window)


SCORE_DTYPES = ("float64", "float32")


def check_score_dtype(value: object) -> str:
    """``"float64"`` or ``"float32"`` (a NumPy dtype or type of those accepted)."""
    if not isinstance(value, str):
        try:
            value = np.dtype(value).name  # type: ignore[call-overload]
        except TypeError:
            raise TypeError(f"score_dtype must be one of {SCORE_DTYPES}, got {value!r}") from None
    return check_choice(value, "score_dtype", SCORE_DTYPES)


_FLOAT32 = struct.Struct("<f")


def float32_rounded(score: float) -> float:
    """``score`` rounded to the nearest float32, as C does (beyond its range: ±inf)."""
    try:
        return float(_FLOAT32.unpack(_FLOAT32.pack(score))[0])
    except OverflowError:  # finite, beyond float32's range
        return math.copysign(math.inf, score)


def fits_float32(score: float) -> bool:
    """Whether a float32 holds ``score`` exactly (±inf and ±0.0 included; not NaN)."""
    return float32_rounded(score) == score


def float32_error(score: float, name: str = "score") -> ValueError:
    """The refusal of a score a float32 cannot hold, for ``score_dtype="float32"``."""
    with np.errstate(over="ignore"):
        nearest = float(np.float32(score))
    return ValueError(
        f"{name} {score!r} is not a float32 value (float32 would store {nearest!r}): "
        "score_dtype='float32' keeps scores exactly, so it takes only scores a float32 "
        "holds; use score_dtype='float64' for these")


def check_float32_scores(values: NDArray[np.float64], name: str = "scores") -> None:
    """Refuse, naming the first, any score a float32 cannot hold exactly. O(n)."""
    with np.errstate(over="ignore"):
        narrowed = values.astype(np.float32)
    wrong = narrowed != values
    if wrong.any():
        i = _first_bad(wrong)
        raise float32_error(float(values[i]), f"{name}[{i}]")


def check_correct(correct: object, name: str = "correct") -> bool:
    """A case label: bool, NumPy bool, or the integer 0 or 1."""
    if correct is True or correct is False:
        return correct
    if isinstance(correct, (bool, np.bool_)):
        return bool(correct)
    if isinstance(correct, (int, np.integer)):
        if correct in (0, 1):
            return bool(correct)
        raise ValueError(f"{name} must be a bool or 0/1, got {correct!r}")
    if is_null(correct):  # a float NaN or a data frame's NA: a null in a label column
        raise ValueError(f"{name} is missing (a null or NaN label)")
    raise TypeError(f"{name} must be a bool or 0/1, got {type(correct).__name__} {correct!r}")


def is_null(value: object) -> bool:
    """A null in a column (``None`` is for the caller to judge): a float NaN, pandas' NA or
    NaT (by type name: pandas is not imported here), or any value unequal to itself, a
    Decimal NaN included (a signalling one refuses to compare: null too).

    >>> [is_null(v) for v in (float("nan"), 1.0, "nan", None)]
    [True, False, False, False]

    Complexity: O(1).
    """
    if isinstance(value, (float, np.floating)):
        return bool(value != value)
    if type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return bool(value != value)
    except ArithmeticError:  # decimal's InvalidOperation: a signalling NaN
        return True
    except (TypeError, ValueError):  # no truth value (an array): not a null
        return False


def check_score(score: object, name: str = "score") -> float:
    """A finite or infinite real score; NaN, bools, strings and None are rejected."""
    if type(score) is float:
        if score != score:
            raise ValueError(f"{name} must not be NaN (NaN scores cannot be ranked)")
        return score
    value = check_real(score, name)
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN (NaN scores cannot be ranked)")
    return value


def _to_double(number: numbers.Real, name: str) -> float:
    """``float(number)``, refusing a finite number a double cannot hold."""
    try:
        with np.errstate(over="ignore"):
            value = float(number)
    except OverflowError:
        raise ValueError(f"{name} {number!r} is too large for a double") from None
    if math.isinf(value) and isinstance(number, np.floating) and np.isfinite(number):
        raise ValueError(f"{name} {number!r} is too large for a double")
    return value


# Counts stay exact in the int64 arithmetic of the curves.
MAX_COUNT = 2**63 - 1


def check_total(total: int, name: str) -> None:
    """Refuse a reference count (R or N) the int64 curve arithmetic cannot hold."""
    if total > MAX_COUNT:
        # A loaded count may have thousands of digits, more than str(int) allows.
        shown = str(total) if total.bit_length() <= 256 else "more than 2**256"
        raise ValueError(f"{name} would reach {shown}, beyond the supported 2**63 - 1")


def _non_negative_int(value: object, name: str, negative_message: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    number = int(value)
    if number < 0:
        raise ValueError(f"{negative_message}. Found {name}={number}")
    return number


def check_count(count: object, name: str = "count") -> int:
    """A non-negative integer count (LingPipe's message for negative counts)."""
    return _non_negative_int(count, name, "Miss count must be non-negative")


def check_rank(rank: object) -> int:
    """A non-negative integer rank."""
    return _non_negative_int(rank, "rank", "Rank must be non-negative")


def check_beta(beta: object, where: str | None = None) -> float:
    """The F-measure weight β: finite, > 0, with a finite non-zero square.

    Every F in rankeval (the function, the confusion matrix's, the maximum over a PR curve,
    trec_eval's ``set_F``, ir_measures' ``SetF``) computes β², so β outside about
    [1.5e-154, 1.3e154] would turn into 0 or infinity there; all of them refuse it here,
    with the same message (after ``where``, the text that gave it, when there is one).

    >>> check_beta(0.5)
    0.5
    >>> check_beta(0, "set_F.0")
    Traceback (most recent call last):
    ...
    ValueError: set_F.0: beta must be finite and > 0, got 0
    """
    value = check_real(beta, "beta")
    lead = "" if where is None else f"{where}: "
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{lead}beta must be finite and > 0, got {beta!r}")
    if not 0.0 < value * value < math.inf:
        raise ValueError(f"{lead}beta must have a finite, non-zero square, got {beta!r}")
    return value


def betas_of(beta: object, betas: object = None) -> tuple[float, ...]:
    """The β asked for as one value or several (``beta=2.0`` or ``beta=(1.0, 2.0)``), each
    checked; ``betas``, the earlier keyword for several, is taken with a
    ``DeprecationWarning`` (the package's rule: an option is named for one value, and takes a
    sequence where several may be asked, as ``precision_at`` does).

    >>> betas_of(2.0), betas_of((1.0, 0.5))
    ((2.0,), (1.0, 0.5))
    """
    if betas is not None:

        deprecated("betas= is now beta= (one value or a sequence)", stacklevel=3)
        beta = betas
    if isinstance(beta, (str, bytes)) or not hasattr(beta, "__iter__"):
        return (check_beta(beta),)
    return tuple(check_beta(b) for b in beta)


def _first_bad(mask: NDArray[np.bool_]) -> int:
    return int(np.argmax(mask))


def listed_keys(given: Any, name: str, noun: str) -> list[Any]:
    """Keys as given, one per case, as a list: never through ``np.asarray``, which would make
    ``["0", 1]`` two texts or drop a trailing NUL. A string is refused (it is one key, not a
    sequence of them); a NumPy array is read by ``tolist`` (an object array as it holds).

    >>> listed_keys((1, "1"), "segments", "key")
    [1, '1']
    """
    if isinstance(given, (str, bytes)):
        raise TypeError(f"{name} must hold one {noun} per case, got one "
                        f"{type(given).__name__} ({given!r:.40})")
    if isinstance(given, np.ndarray):
        if given.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {given.shape}")
        return list(given) if given.dtype.kind == "O" else list(given.tolist())
    try:
        return list(given)
    except TypeError:
        raise TypeError(f"{name} must be a sequence, one {noun} per case, got "
                        f"{type(given).__name__}") from None


def check_case_arrays(
    correct: Any, scores: Any
) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """Validate bulk input; errors name the first bad index.

    ``correct``: a sequence or 1-D array of bools or 0/1 integers.
    ``scores``: a sequence or 1-D array of real numbers, no NaN.
    """
    labels_in = _as_1d(correct, "correct")
    scores_in = _as_1d(scores, "scores")
    if labels_in.shape[0] != scores_in.shape[0]:
        raise ValueError(
            f"correct and scores must have the same length, got {labels_in.shape[0]} "
            f"and {scores_in.shape[0]}"
        )
    labels = _labels_array(labels_in)
    values = _scores_array(scores_in)
    return labels, values


def check_weight(weight: object, name: str = "weight") -> float:
    """A case's weight: a finite, non-negative real number (0: the case counts for nothing)."""
    value = check_real(weight, name)
    if not math.isfinite(value) or value < 0.0:
        raise ValueError(f"{name} must be finite and non-negative, got {value!r}")
    return value


def check_weight_array(weights: Any, cases: int, name: str = "weights") -> NDArray[np.float64]:
    """One weight a case (see :func:`check_weight`) as a new float64 array; errors name the
    first bad index."""
    array = _as_1d(weights, name)
    if array.shape[0] != cases:
        raise ValueError(f"{name} has {array.shape[0]} entries, scores {cases}")
    if array.dtype.kind == "b":
        raise TypeError(f"{name} must hold real numbers, got dtype bool")
    if array.dtype.kind in "fiu":
        with np.errstate(over="ignore"):
            values = array.astype(np.float64)
    elif array.dtype.kind == "O" or array.size == 0:
        values = _item_by_item(array, np.float64, check_weight, name)
    else:
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    bad = ~(np.isfinite(values) & (values >= 0.0))
    if bad.any():
        i = _first_bad(bad)
        raise ValueError(f"{name}[{i}] must be finite and non-negative, got {array[i]!r}")
    return values


def check_scores(scores: Any) -> NDArray[np.float64]:
    """A score or scores (see :func:`check_score`) as a new 1-D float64 array."""
    if np.ndim(scores) == 0 and not isinstance(scores, (str, bytes)) and scores is not None:
        return np.array([check_score(scores, "score")], dtype=np.float64)
    return _scores_array(_as_1d(scores, "scores"))


def check_count_arrays(
    scores: Any, positives: Any, negatives: Any
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """Validate cases grouped by score: three scalars, or three arrays of one length.

    Each score needs a real number (no NaN), each count a non-negative integer; errors name
    the first bad index.
    """
    scalars = [np.ndim(value) == 0 and not isinstance(value, (str, bytes)) and value is not None
               for value in (scores, positives, negatives)]
    if all(scalars):
        score = check_score(scores, "score")
        return (np.array([score], dtype=np.float64),
                np.array([check_count(positives, "positives")], dtype=np.int64),
                np.array([check_count(negatives, "negatives")], dtype=np.int64))
    arrays = [_as_1d(value, name) for value, name in
              ((scores, "scores"), (positives, "positives"), (negatives, "negatives"))]
    lengths = {array.shape[0] for array in arrays}
    if len(lengths) > 1:
        raise ValueError("scores, positives and negatives must have the same length, got "
                         + ", ".join(str(array.shape[0]) for array in arrays))
    return (_scores_array(arrays[0]), _counts_array(arrays[1], "positives"),
            _counts_array(arrays[2], "negatives"))


def _counts_array(array: NDArray[Any], name: str) -> NDArray[np.int64]:
    if array.dtype.kind == "u" and array.size and int(array.max()) > MAX_COUNT:
        i = _first_bad(array > MAX_COUNT)
        raise ValueError(f"{name}[{i}] {int(array[i])} is beyond the supported 2**63 - 1")
    if array.dtype.kind in "iu":
        if array.dtype.kind == "i" and array.size:
            negative = array < 0
            if negative.any():
                i = _first_bad(negative)
                raise ValueError(f"{name}[{i}] must be non-negative, got {int(array[i])}")
        return array.astype(np.int64)
    if array.dtype.kind == "O" or array.size == 0:
        return _item_by_item(array, np.int64, _count_item, name)
    raise TypeError(f"{name} must hold non-negative integers, got dtype {array.dtype}")


def _count_item(item: object, where: str) -> int:
    number = _non_negative_int(item, where, f"{where} must be non-negative")
    if number > MAX_COUNT:
        raise ValueError(f"{where} {number} is beyond the supported 2**63 - 1")
    return number


def _item_by_item(array: NDArray[Any], dtype: type[np.generic],
                  convert: Callable[[Any, str], Any], name: str) -> NDArray[Any]:
    """An object (or empty) array converted one element at a time; errors name the index."""
    out = np.empty(array.shape[0], dtype=dtype)
    for i, item in enumerate(array.tolist()):
        out[i] = convert(item, f"{name}[{i}]")
    return out


# torch float types without a NumPy counterpart (exact in float32).
_TORCH_NARROW_FLOATS = frozenset({
    "torch.bfloat16", "torch.float8_e4m3fn", "torch.float8_e4m3fnuz", "torch.float8_e5m2",
    "torch.float8_e5m2fnuz",
})


def _as_1d(values: Any, name: str) -> NDArray[Any]:
    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError(f"{name} must be a sequence or 1-D array, got {type(values).__name__}")
    if hasattr(values, "detach") and hasattr(values, "cpu"):
        # A PyTorch tensor: detached and copied to the host once for the whole batch (a
        # GPU tensor cannot be read in place). NumPy has no bfloat16 (nor torch's float8
        # kinds): those widen to float32 first, which holds each of their values exactly.
        values = values.detach().cpu()
        if str(values.dtype) in _TORCH_NARROW_FLOATS:
            values = values.float()
        values = values.numpy()
    elif hasattr(values, "__dlpack__") and not hasattr(values, "__array__"):
        # An array-API array that offers only DLPack: read in place when on the host.
        try:
            values = np.from_dlpack(values)
        except (BufferError, RuntimeError, TypeError, ValueError) as error:
            raise TypeError(f"{name} cannot be read on the host through DLPack ({error}); "
                            "copy it to the CPU first") from None
    ma = sys.modules.get("numpy.ma")  # no masked array exists until NumPy imported it
    if ma is not None and isinstance(values, ma.MaskedArray):
        # np.asarray would silently use the masked entries' hidden values.
        masked = ma.getmaskarray(values)
        if masked.any():
            first = _first_bad(masked.ravel())
            raise ValueError(
                f"{name} is a masked array with masked entries ({name}[{first}] first): drop "
                "them from both arrays (e.g. with np.ma.mask_or and .compressed()) or fill them"
            )
        values = values.data
    try:
        array = np.asarray(values)
    except (ValueError, TypeError) as error:
        raise TypeError(f"{name} must be a sequence or 1-D array: {error}") from None
    if array.ndim != 1:
        if array.ndim == 0:
            raise TypeError(f"{name} must be a sequence or 1-D array, got {values!r}")
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    return array


def _labels_array(array: NDArray[Any]) -> NDArray[np.bool_]:
    if array.dtype == np.bool_:
        return array
    if array.dtype.kind in "iu":
        bad = (array != 0) & (array != 1)
        if bad.any():
            i = _first_bad(bad)
            raise ValueError(f"correct[{i}] must be a bool or 0/1, got {array[i]!r}")
        return array.astype(np.bool_)
    if array.dtype.kind == "O" or array.size == 0:
        return _item_by_item(array, np.bool_, check_correct, "correct")
    if array.dtype.kind == "f":
        # A nullable integer or boolean column with nulls arrives as floats with NaN.
        missing = np.isnan(array)
        if missing.any():
            raise ValueError(f"correct[{_first_bad(missing)}] is missing (a null or NaN "
                             "label)")
    raise TypeError(f"correct must hold bools or 0/1 integers, got dtype {array.dtype}")


def _scores_array(array: NDArray[Any]) -> NDArray[np.float64]:
    if array.dtype.kind in "fiu":
        with np.errstate(over="ignore"):
            values = array.astype(np.float64)
        if array.dtype.kind == "f" and array.dtype.itemsize > 8:
            too_large = np.isinf(values) & np.isfinite(array)
            if too_large.any():
                i = _first_bad(too_large)
                raise ValueError(f"scores[{i}] {array[i]!r} is too large for a double")
    elif array.dtype.kind == "O" or array.size == 0:
        values = _item_by_item(array, np.float64, check_score, "scores")
    else:
        raise TypeError(f"scores must hold real numbers, got dtype {array.dtype}")
    nan = np.isnan(values)
    if nan.any():
        raise ValueError(f"scores[{_first_bad(nan)}] must not be NaN (NaN scores cannot be ranked)")
    return values


def check_curve(curve: Any, width: int) -> NDArray[np.float64]:
    """A curve to print: rows of at least ``width`` real numbers a double can hold."""
    try:
        rows = np.asarray(curve)
    except (TypeError, ValueError) as error:
        raise ValueError(f"curve must be rows of {width} numbers: {error}") from None
    if rows.size == 0:
        return np.zeros((0, width))
    if rows.dtype.kind not in "biuf":
        raise TypeError(f"curve must hold real numbers, got dtype {rows.dtype}")
    if rows.ndim != 2 or rows.shape[1] < width:
        raise ValueError(
            f"curve must have rows of at least {width} numbers, got shape {rows.shape}"
        )
    with np.errstate(over="ignore"):
        values = rows.astype(np.float64)
    if rows.dtype.kind == "f" and (np.isinf(values) & np.isfinite(rows)).any():
        raise ValueError("curve holds a number too large for a double")
    return values


def check_file(file: object) -> None:
    """Something with a ``write`` method (and ``flush``, if it has one, is called later)."""
    if not callable(getattr(file, "write", None)):
        raise TypeError(f"file must have a write method, got {type(file).__name__}")


def check_horizon(horizon: object) -> float | None:
    """None, or a positive number of seconds (a ``timedelta`` is converted).

    >>> from datetime import timedelta
    >>> check_horizon(timedelta(minutes=2)), check_horizon(None)
    (120.0, None)
    """
    from datetime import timedelta

    if horizon is None:
        return None
    if isinstance(horizon, timedelta):
        seconds = horizon.total_seconds()
    else:
        seconds = check_real(horizon, "horizon")
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"horizon must be a positive, finite time, got {horizon!r}")
    return seconds
