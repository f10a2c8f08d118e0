"""Names a package imports when first used (PEP 562), shared by its ``__init__`` modules."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, namespace: dict[str, Any], where: dict[str, str],
               renamed: dict[str, str] | None = None,
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``where`` maps a name to its module.

    A name is imported on first access and then kept in the package's ``namespace``. An old
    name of ``renamed`` (old -> new) gives the new name's object with a
    ``DeprecationWarning``, each time.
    """

    def getattr_(name: str) -> Any:
        if renamed and name in renamed:
            import warnings

            warnings.warn(f"{package}.{name} is now {package}.{renamed[name]}",
                          DeprecationWarning, stacklevel=2)
            return getattr_(renamed[name])
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *where})

    return getattr_, dir_
