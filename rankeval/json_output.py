"""JSON output: strict JSON (non-finite numbers as strings), NumPy arrays streamed by rows."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "write_json",
]


_NON_FINITE = {math.inf: '"Infinity"', -math.inf: '"-Infinity"'}
_ROWS_PER_WRITE = 4096


def _json_float(value: float) -> str:
    """JSON text of a float; non-finite values become the strings NaN, Infinity, -Infinity.

    Examples
    --------
    >>> [_json_float(v) for v in (0.5, 1e-9, float("nan"), float("-inf"))]
    ['0.5', '1e-09', '"NaN"', '"-Infinity"']
    """
    if value != value:
        return '"NaN"'
    return _NON_FINITE.get(value) or repr(value)


def write_json(value: object, out: IO[str], *, indent: int = 2) -> None:
    """Write ``value`` as JSON, streaming NumPy arrays a block of rows at a time.

    Non-finite floats, which JSON cannot express, are written as the strings ``"NaN"``,
    ``"Infinity"`` and ``"-Infinity"`` (the convention of the LingPipe reference data).
    Dicts, lists, tuples, strings, ints, floats, bools, None and NumPy arrays (of any
    dimension, written as nested lists with each innermost row on one line) are supported.

    Complexity: O(size of the output); memory O(one block of rows) for arrays.

    Examples
    --------
    >>> import io, numpy as np
    >>> out = io.StringIO()
    >>> write_json({"auc": float("nan"), "curve": np.array([[0.0, 1.0], [1.0, 0.5]])}, out)
    >>> print(out.getvalue(), end="")
    {
      "auc": "NaN",
      "curve": [
        [0.0, 1.0],
        [1.0, 0.5]
      ]
    }
    """
    _write_json(value, out, indent, 0)
    out.write("\n")


def _write_json(value: object, out: IO[str], indent: int, depth: int) -> None:
    pad = " " * (indent * (depth + 1))
    if isinstance(value, np.ndarray):
        _write_json_array(value, out, indent, depth)
    elif isinstance(value, Mapping):
        if not value:
            out.write("{}")
            return
        out.write("{")
        for number, (key, item) in enumerate(value.items()):
            out.write(("," if number else "") + f"\n{pad}{json.dumps(str(key))}: ")
            _write_json(item, out, indent, depth + 1)
        out.write(f"\n{pad[:-indent] if indent else ''}}}")
    elif isinstance(value, (list, tuple)):
        if all(not isinstance(item, (Mapping, list, tuple, np.ndarray)) for item in value):
            out.write("[" + ", ".join(_json_scalar(item) for item in value) + "]")
            return
        out.write("[")
        for number, item in enumerate(value):
            out.write(("," if number else "") + f"\n{pad}")
            _write_json(item, out, indent, depth + 1)
        out.write(f"\n{pad[:-indent] if indent else ''}]")
    else:
        out.write(_json_scalar(value))


def _json_scalar(value: object) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _json_float(float(value))
    if value is None or isinstance(value, str):
        return json.dumps(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON: {value!r}")


def _write_json_array(array: NDArray[Any], out: IO[str], indent: int, depth: int) -> None:
    if array.ndim <= 1:
        out.write("[" + ", ".join(_json_scalar(item) for item in array.tolist()) + "]")
        return
    if len(array) == 0:
        out.write("[]")
        return
    pad = " " * (indent * (depth + 1))
    out.write("[")
    if array.ndim == 2 and array.dtype.kind == "f":
        fmt = _json_float
        for start in range(0, len(array), _ROWS_PER_WRITE):
            block = array[start : start + _ROWS_PER_WRITE].tolist()
            text = f",\n{pad}".join("[" + ", ".join(map(fmt, row)) + "]" for row in block)
            out.write(("," if start else "") + f"\n{pad}" + text)
    else:
        for number, item in enumerate(array):
            out.write(("," if number else "") + f"\n{pad}")
            _write_json_array(item, out, indent, depth + 1)
    out.write(f"\n{pad[:-indent] if indent else ''}]")
