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


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documentation site, built strict into a temporary directory."""
    import os
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(out)], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return out


def test_no_sphinx_role_is_left_literal_in_the_site(site: Path) -> None:
    """Fixed: about 70 roles (:meth:, :class:) rendered as literal text."""
    role = re.compile(r":(?:meth|class|func|attr|mod|data|exc|obj):(?:`|<code>)")
    literal = {str(page.relative_to(site)): role.findall(page.read_text(encoding="utf-8"))
               for page in site.rglob("*.html")}
    assert not {page: found for page, found in literal.items() if found}


def _api_classes() -> list[str]:
    found = []
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for path in re.findall(r"^:::\s*(\S+)", page.read_text(encoding="utf-8"), re.M):
            if isinstance(_resolve(path), type):
                found.append(path)
    return found


@pytest.mark.parametrize("path", _api_classes())
def test_every_public_method_is_on_its_class_page(site: Path, path: str) -> None:
    """Fixed: the reference left out inherited reads (interval, brier_score, ... live in
    mixins). Every public attribute of the class, inherited ones too, has its entry."""
    cls = _resolve(path)
    html = "".join(page.read_text(encoding="utf-8") for page in (site / "api").rglob("*.html"))

    def ours(name: str) -> bool:  # defined by rankeval, not inherited from Python's own
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        return owner is not None and owner.__module__.startswith("rankeval")

    public = sorted(name for name in dir(cls) if not name.startswith("_") and ours(name))
    missing = [name for name in public if f'id="{path}.{name}"' not in html]
    assert not missing, f"{path}: no entry for {missing}"


def test_the_packages_show_exactly_their_public_names() -> None:
    """``__all__`` lists what the package gives (each name resolves), and ``dir()`` shows it
    and the public submodules, never the package's helpers (``TYPE_CHECKING``,
    ``lazy_names``, ``_WHERE``). The engines' report, ``PartitionedReport``, is public."""
    import types

    import rankeval
    import rankeval.ranking

    assert "PartitionedReport" in rankeval.__all__
    for package in (rankeval, rankeval.ranking):
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)
        shown = set(dir(package))
        modules = {n for n in shown if isinstance(getattr(package, n), types.ModuleType)}
        assert shown - modules == set(package.__all__), package.__name__
        assert not {"TYPE_CHECKING", "lazy_names", "_WHERE", "annotations"} & shown
