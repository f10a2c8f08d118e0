"""Java-compatible number formatting for LingPipe-exact text output.

LingPipe prints summary values with Java 17 ``Double.toString`` and curve rows with
``String.format("%8.6f", x)``. Neither matches Python's own formatting: ``Double.toString``
switches to ``d.dddE<exp>`` outside ``[1e-3, 1e7)``, and ``%8.6f`` rounds the *decimal*
digits of ``Double.toString`` half-up, where Python rounds the exact binary value half-even
(1/128 = 0.0078125 prints ``0.007813`` in Java, ``0.007812`` in Python).

Both functions here start from the shortest round-tripping digits that Python's ``repr``
gives, which is what JDK 17 produces for every double except some rare ones of magnitude
below 1e-3 or at least 1e16 (see :func:`java_double_to_string`).
"""

from __future__ import annotations

import decimal
import math
import sys
from collections.abc import Iterable
from typing import IO

import numpy as np
from numpy.typing import NDArray

__all__ = ["java_double_to_string", "java_f6", "java_f6_many", "print_roc_curve"]

# Rows a curve printer formats at a time (bounds the text held at once).
_PRINTED_ROWS = 1 << 16

_INF = math.inf

# Why the fast path of java_f6 is exact. Let y = fl(x * 1e6). For |y| >= 0.25 (x normal) the
# shortest decimal s of x is within ulp(x)/2 of x, so s * 1e6 is within ulp(y) of x * 1e6, which
# is within ulp(y)/2 of y; y - floor(y) adds at most ulp(y) more (only for -1 < y < 0). If
# y - floor(y) is more than 4 ulp(y) from 0.5, s * 1e6 and x * 1e6 therefore round to the same
# integer, with no tie, so Java's half-up on s and Python's half-even on x print the same
# multiple of 1e-6, sign included. For |y| < 0.25 both are far from any midpoint. Above 2**50
# the test could not pass anyway (4 ulp(y) >= 0.5); the limit also keeps NaN and inf out.
_MIDPOINT_ULPS = 4.0
_FAST_LIMIT = 2.0**50

# Largest finite double has 309 integer digits; 6 more after the point fit easily.
_F6_CONTEXT = decimal.Context(prec=400, rounding=decimal.ROUND_HALF_UP)
_F6_QUANTUM = decimal.Decimal("0.000001")


def java_double_to_string(x: float) -> str:
    """Format ``x`` as Java 17 ``Double.toString(double)`` does (rare exceptions in Notes).

    * ``NaN``, ``Infinity``, ``-Infinity``, ``0.0``, ``-0.0``;
    * for ``1e-3 <= |x| < 1e7``: plain decimal with at least one fractional digit
      (``0.5``, ``9999999.0``, ``0.001``);
    * otherwise ``d.dddE<exp>``, with at least one digit after the point and no ``+`` in the
      exponent (``1.0E7``, ``1.8626451500983188E-9``).

    The significant digits are the shortest ones that round-trip (Python's ``repr``), merely
    re-laid out.

    Parameters
    ----------
    x : float
        Any double, including NaN, infinities and signed zeros.

    Returns
    -------
    str
        The text Java's ``Double.toString`` would print.

    Notes
    -----
    Known divergence: JDK 17 (like every JDK before 19) does not always print the shortest
    digits. A cross-check against OpenJDK 17.0.15 on about 310,000 doubles (random bit
    patterns, ratios k/n, F1 values, decimal midpoints, all powers of two and of ten) found
    differences only outside ``[1e-3, 1e7)``, i.e. never in the plain-decimal form:

    * some values of magnitude ``>= 1e16``, e.g. ``1.0E23`` prints as ``9.999999999999999E22``
      and integers between 2**53 and 2**63 often print 17 to 19 digits
      (``8.5632169865139251E17`` for ``8.563216986513925E17``);
    * some powers of two, e.g. 2**-24 prints as ``5.9604644775390625E-8``;
    * some subnormals, e.g. ``Double.MIN_VALUE`` prints as ``4.9E-324``, not ``5.0E-324``.

    These are ignored on purpose (the spec allows it: the shortest digits match every
    ``toString`` in the LingPipe oracle); every result still parses back to ``x``.

    Undefined when: never; every double has a text.

    Complexity: O(d) for a result of d characters (at most 24).

    Examples
    --------
    >>> [java_double_to_string(v) for v in (0.5, 9999999.0, 0.001, 1e7, 4 / 2147483647, -0.0)]
    ['0.5', '9999999.0', '0.001', '1.0E7', '1.8626451500983188E-9', '-0.0']
    """
    if x != x:
        return "NaN"
    if x == _INF:
        return "Infinity"
    if x == -_INF:
        return "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0.0 else "0.0"
    x = float(x)
    magnitude = -x if x < 0.0 else x
    if 1e-3 <= magnitude < 1e7:
        # repr is in fixed notation over this whole range and always has a '.': the same
        # text Java prints.
        return repr(x)
    sign = "-" if x < 0.0 else ""
    digits, exponent = _shortest_digits(magnitude)
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _shortest_digits(magnitude: float) -> tuple[str, int]:
    """Return the shortest round-trip digits of a positive finite double and its exponent.

    The value is ``digits[0].digits[1:] * 10**exponent``; ``digits`` has no leading or
    trailing zeros.

    Complexity: O(d) for d characters of ``repr``.

    Examples
    --------
    >>> _shortest_digits(0.00012), _shortest_digits(1.5e300), _shortest_digits(12345678.0)
    (('12', -4), ('15', 300), ('12345678', 7))
    """
    text = repr(magnitude)
    mantissa, has_exponent, exponent_text = text.partition("e")
    if has_exponent:
        return mantissa.replace(".", ""), int(exponent_text)
    integer_part, _, fraction_part = text.partition(".")
    if integer_part != "0":
        return (integer_part + fraction_part).rstrip("0"), len(integer_part) - 1
    significant = fraction_part.lstrip("0")
    return significant, len(significant) - len(fraction_part) - 1


def java_f6(x: float) -> str:
    """Format ``x`` exactly as Java's ``String.format("%8.6f", x)`` (default ``.`` locale).

    * NaN gives ``"     NaN"``, +inf ``"Infinity"``, -inf ``"-Infinity"``;
    * a finite ``x`` is taken as its ``Double.toString`` decimal digits (the shortest
      round-trip digits), rounded to 6 decimals **half-up on those decimal digits** (never on
      the binary value), keeping the minus sign even when the result is zero
      (``-0.0`` and ``-1e-7`` give ``-0.000000``), then right-justified in width 8; wider
      results are not cut (``1e300`` prints all 301 integer digits).

    Parameters
    ----------
    x : float
        Any double.

    Returns
    -------
    str
        At least 8 characters.

    Notes
    -----
    Python's ``f"{x:8.6f}"`` rounds the exact binary value half-even, so it can only differ
    from Java when ``x * 1e6`` lies within a few ulps of a rounding midpoint ``k + 0.5``
    (the shortest digits and the binary value are at most about one ulp of ``x * 1e6``
    apart), or when ``|x|`` is so large that Python prints binary digits Java does not have.
    Those values take the exact ``decimal`` path; all others take Python's fast formatting.

    For the rare doubles where JDK 17's digits are not the shortest ones (see
    :func:`java_double_to_string`) the result can differ in the trailing integer digits
    (Java prints 1e23 as ``99999999999999990000000.000000``); that only happens for
    ``|x| >= 1e16``, since below that the differing digits lie past the sixth decimal.

    Undefined when: never.

    Complexity: O(d) for a result of d characters.

    Examples
    --------
    >>> [java_f6(v) for v in (0.0078125, 1.0000005, -5e-7, 2.0 / 3.0, -0.0)]
    ['0.007813', '1.000001', '-0.000001', '0.666667', '-0.000000']
    >>> java_f6(float("nan")), java_f6(123456789.0)
    ('     NaN', '123456789.000000')
    """
    value = float(x)
    scaled = value * 1e6
    if -_FAST_LIMIT < scaled < _FAST_LIMIT:  # also false for NaN and infinities
        distance = abs(scaled - math.floor(scaled) - 0.5)
        if distance > _MIDPOINT_ULPS * math.ulp(scaled):
            return f"{value:8.6f}"
    return _java_f6_exact(value)


def _java_f6_exact(x: float) -> str:
    """Exact general path of :func:`java_f6`: ``decimal`` half-up on the shortest digits.

    Complexity: O(d) for a result of d characters (at most about 320).

    Examples
    --------
    >>> _java_f6_exact(1e-5), _java_f6_exact(-float("inf")), _java_f6_exact(1e16)
    ('0.000010', '-Infinity', '10000000000000000.000000')
    """
    if x != x:
        return "     NaN"
    if x == _INF:
        return "Infinity"
    if x == -_INF:
        return "-Infinity"
    rounded = decimal.Decimal(repr(float(x))).quantize(_F6_QUANTUM, context=_F6_CONTEXT)
    # Decimal keeps the sign of a negative value that rounds to zero, as Java does.
    return f"{rounded:f}".rjust(8)


def java_f6_many(values: Iterable[float]) -> list[str]:
    """Format every value as :func:`java_f6` does, about ten times faster for long curves.

    The midpoint test of :func:`java_f6` is done for all values at once with NumPy; the
    values that pass are formatted by Python's ``%8.6f``, the others by the exact path.

    Parameters
    ----------
    values : iterable of float
        Any iterable of numbers, or a NumPy array of any shape (flattened in C order).

    Returns
    -------
    list of str
        ``[java_f6(v) for v in values]``.

    Undefined when: never.

    Complexity: O(n) for n values (plus O(d) per value of d characters).

    Examples
    --------
    >>> java_f6_many([0.5, float("nan"), 1.0 / 128.0, -5e-7])
    ['0.500000', '     NaN', '0.007813', '-0.000001']
    """
    if isinstance(values, np.ndarray):
        array = values.astype(np.float64, copy=False).ravel()
    else:
        array = np.fromiter(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # inf and signalling NaN inputs
        scaled = array * 1e6
    fast = np.abs(scaled) < _FAST_LIMIT  # false for NaN and infinities
    scaled = np.where(fast, scaled, 0.5)
    distance = np.abs(scaled - np.floor(scaled) - 0.5)
    fast &= distance > _MIDPOINT_ULPS * np.abs(np.spacing(scaled))
    floats: list[float] = array.tolist()
    texts = [f"{value:8.6f}" for value in floats]
    for index in np.flatnonzero(~fast).tolist():
        texts[index] = _java_f6_exact(floats[index])
    return texts


def print_roc_curve(curve: NDArray[np.float64], file: IO[str] | None = None) -> None:
    """Write a ROC curve in the style of LingPipe's curve printers.

    LingPipe has no ROC printer; this one writes the header ``" 1-SPEC.    SENS."`` (``%8s
    %8s``) and one row ``F6(1 - specificity) F6(sensitivity)`` per point, with LingPipe's
    ``%8.6f`` (half-up on the decimal digits; NaN as ``"     NaN"``).

    Complexity: O(m) for m rows.

    Examples
    --------
    >>> print_roc_curve(np.array([[0.0, 0.0], [1.0 / 6.0, 0.2], [1.0, 1.0]]))
     1-SPEC.    SENS.
    0.000000 0.000000
    0.166667 0.200000
    1.000000 1.000000
    """
    out = sys.stdout if file is None else file
    out.write(f"{'1-SPEC.':>8} {'SENS.':>8}\n")
    f6 = java_f6
    for start in range(0, curve.shape[0], _PRINTED_ROWS):
        block = curve[start : start + _PRINTED_ROWS].tolist()
        out.write("".join(f"{f6(x)} {f6(y)}\n" for x, y in block))
    out.flush()
