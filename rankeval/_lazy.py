"""Names a package imports when first used (PEP 562), shared by its ``__init__`` modules."""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable
from typing import Any

from rankeval._deprecation import deprecated


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

            deprecated(f"{package}.{name} is now {package}.{renamed[name]}")
            return getattr_(renamed[name])
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        """The public names (``__all__``) and the public submodules loaded so far: never
        the package's own helpers (``TYPE_CHECKING``, ``lazy_names``, ``_WHERE``)."""
        public = set(namespace.get("__all__", where))
        loaded = {name for name, value in namespace.items()
                  if isinstance(value, types.ModuleType) and not name.startswith("_")
                  and value.__name__ == f"{package}.{name}"}
        return sorted(public | loaded)

    return getattr_, dir_
