"""The API reference documents every public name: each name of ``rankeval.__all__`` and of
the public modules' ``__all__`` has a ``::: path`` directive in ``docs/api/``, whose path
leads to that very object."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

import rankeval

ROOT = Path(__file__).resolve().parent.parent
DIRECTIVES = sorted({path for page in (ROOT / "docs" / "api").glob("*.md")
                     for path in re.findall(r"^::: (\S+)$", page.read_text(), re.M)})
# Public modules whose names are documented one by one (the adapters' short names are the
# same module objects as rankeval.adapters.*).
MODULES = ("rankeval", "rankeval.spark", "rankeval.dask", "rankeval.prometheus",
           "rankeval.plotting")


def _resolve(path: str) -> Any:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _public() -> list[tuple[str, str]]:
    names = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names += [(module_name, name) for name in module.__all__ if not name.startswith("_")]
    return names


@pytest.mark.parametrize(("module", "name"), _public())
def test_every_public_name_is_in_the_api_reference(module: str, name: str) -> None:
    obj = getattr(importlib.import_module(module), name)
    documented = [path for path in DIRECTIVES if _resolve(path) is obj]
    assert documented, f"{module}.{name} has no ::: directive in docs/api/"


@pytest.mark.parametrize("path", DIRECTIVES)
def test_every_directive_names_a_real_object(path: str) -> None:
    assert _resolve(path) is not None


def test_the_version_is_public() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", rankeval.__version__)
