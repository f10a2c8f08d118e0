"""The one way an optional extra is imported: the module, or an error naming the extra.

>>> optional("math", "this example", "math").sqrt(4.0)
2.0
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["optional"]


def optional(module: str, who: str, extra: str, what: str | None = None) -> Any:
    """``import module``, or ``ModuleNotFoundError("{who} needs {what}: pip install
    'rankeval-exact[{extra}]'")`` when it is not installed (``what`` defaults to the
    module's top-level name)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        needed = what or module.split(".")[0]
        raise ModuleNotFoundError(f"{who} needs {needed}: pip install "
                                  f"'rankeval-exact[{extra}]'") from None
