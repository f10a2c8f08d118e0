"""``to_text()`` of the results and evaluators: one small renderer, so every result reads
the same way (a title line stating the settings that made it, then ``name: value`` lines)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["number", "summary_text"]


def number(value: Any, digits: int = 4) -> str:
    """A value for a text: integers as they are, floats to ``digits`` places, NaN as ``nan``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "nan"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}f}"


def summary_text(title: str, values: Mapping[str, Any] | Iterable[tuple[str, Any]],
                 digits: int = 4) -> str:
    """``title``, then one ``  name: value`` line per value.

    >>> print(summary_text("X (ties=grouped)", {"cases": 3.0, "roc_auc": 0.5}), end="")
    X (ties=grouped)
      cases: 3
      roc_auc: 0.5000
    """
    pairs = values.items() if isinstance(values, Mapping) else values
    lines = [title] + [f"  {name}: {number(value, digits)}" for name, value in pairs]
    return "\n".join(lines) + "\n"
