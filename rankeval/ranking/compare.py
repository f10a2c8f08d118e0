"""Deprecated module path: the significance tests live in :mod:`rankeval.ranking.significance`.

The module was named ``compare``, like the function it holds, so importing it made
``rankeval.ranking.compare`` (and ``rankeval.compare``) the module instead of the function.
This shim keeps old imports working with a ``DeprecationWarning``, and is itself callable as
the function, so that name works whichever was imported first.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from rankeval._deprecation import deprecated
from rankeval.ranking.significance import Comparison, PairTest, compare

__all__ = ["Comparison", "PairTest", "compare"]

deprecated("the module rankeval.ranking.compare is now rankeval.ranking.significance "
           "(the function rankeval.compare is unchanged)")


class _CallableModule(types.ModuleType):
    """This module, callable as :func:`rankeval.ranking.significance.compare`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Comparison:
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
