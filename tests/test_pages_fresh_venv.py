"""Every page that runs code (the README, the guides, the docs), run as a reader runs it: in a
fresh venv holding the wheel built from this tree and exactly what the page says to install
(its ``pip install`` lines: the extras of ``rankeval-exact[...]`` and any other package
named), from an empty directory. The suite's own venv holds every extra, so there a page that
forgets one still passes; here it fails.

The venvs install offline from ``.venv/wheelhouse``, which ``make test`` fills (every extra's
wheels and the build backend); nothing is written outside the temporary directory (HOME,
caches and the JVM's files are pointed inside it).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs_examples import PAGES, ROOT, _console, run_console

WHEELHOUSE = ROOT / ".venv" / "wheelhouse"
DISTRIBUTION = "rankeval-exact"
RUNNER = """
import doctest, os, sys
import rankeval
here = os.path.dirname(rankeval.__file__)
assert here.startswith(sys.prefix), f"rankeval imported from {here}, not from the venv"
result = doctest.testfile(sys.argv[1], module_relative=False, optionflags=doctest.ELLIPSIS)
sys.exit(1 if result.failed or not result.attempted else 0)
"""


def named_install(page: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The extras of ``rankeval-exact[...]`` and the other packages the page's ``pip install``
    lines name (``pip install -U rankeval``, the other project's name, is a warning, not an
    install)."""
    text = (ROOT / page).read_text("utf-8")
    extras: set[str] = set()
    others: set[str] = set()
    for line in re.findall(r"pip install ([^`\n#]+)", text):
        for word in shlex.split(line):
            if word.startswith("-") or word in ("rankeval", ".", "here"):
                continue
            found = re.fullmatch(re.escape(DISTRIBUTION) + r"(?:\[([\w,]+)\])?", word)
            if found:
                extras.update(filter(None, (found.group(1) or "").split(",")))
            elif re.fullmatch(r"[A-Za-z][\w.-]*", word):
                others.add(word)
    return frozenset(extras), tuple(sorted(others))


def _runs_code(page: str) -> bool:
    text = (ROOT / page).read_text("utf-8")
    return ">>> " in text or bool(_console(page))


RUNNING = [page for page in PAGES if _runs_code(page)]


def _isolated_env(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV", "SPARK_", "JAVA_"))}
    env.update(HOME=str(home), PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               MPLCONFIGDIR=str(home / "mpl"), XDG_CACHE_HOME=str(home / "cache"),
               TMPDIR=str(home / "tmp"))
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    return env


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          check=False)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this tree, built offline from a copy (the build writes next to its
    sources)."""
    if not (WHEELHOUSE / ".complete").exists():
        pytest.fail("no .venv/wheelhouse: `make test` (or `make .venv/wheelhouse/.complete`) "
                    "builds it")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    ignored = shutil.ignore_patterns(".venv", ".git", "build", "dist", "site", "*.egg-info",
                                     "__pycache__", ".pytest_cache", ".mypy_cache",
                                     ".hypothesis", ".dist-check", "demo-output")
    shutil.copytree(ROOT, source, ignore=ignored, symlinks=True)
    env = _isolated_env(work / "home")
    done = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
                 "--find-links", str(WHEELHOUSE), "--wheel-dir", str(work / "dist"),
                 str(source)], work, env)
    assert done.returncode == 0, done.stderr
    (built,) = (work / "dist").glob("rankeval_exact-*.whl")
    return built


@pytest.fixture(scope="module")
def venvs() -> dict[object, Path]:
    """One venv for each distinct install a page names, made when first asked for."""
    return {}


def _venv(venvs: dict[object, Path], wheel: Path, install: tuple[frozenset[str],
          tuple[str, ...]], root: Path) -> Path:
    if install in venvs:
        return venvs[install]
    extras, others = install
    where = root / f"venv{len(venvs)}"
    env = _isolated_env(root / "home")
    done = _run([sys.executable, "-m", "venv", str(where)], root, env)
    assert done.returncode == 0, done.stderr
    spec = f"{DISTRIBUTION}[{','.join(sorted(extras))}] @ {wheel.as_uri()}" if extras else (
        str(wheel))
    done = _run([str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index",
                 "--find-links", str(WHEELHOUSE), spec, *others], root, env)
    assert done.returncode == 0, done.stderr
    venvs[install] = where
    return where


@pytest.mark.slow
@pytest.mark.parametrize("page", RUNNING)
def test_the_page_runs_with_exactly_what_it_names(
        page: str, wheel: Path, venvs: dict[object, Path],
        tmp_path_factory: pytest.TempPathFactory) -> None:
    install = named_install(page)
    venv = _venv(venvs, wheel, install, tmp_path_factory.getbasetemp())
    empty = tmp_path_factory.mktemp("cwd")
    env = _isolated_env(tmp_path_factory.mktemp("home"))
    where = f"{page} with only {DISTRIBUTION}[{','.join(sorted(install[0]))}] {install[1]}"
    if ">>> " in (ROOT / page).read_text("utf-8"):
        done = _run([str(venv / "bin" / "python"), "-c", RUNNER, str(ROOT / page)], empty, env)
        assert done.returncode == 0, f"{where}:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    for commands, output in _console(page):
        done = run_console(commands, venv / "bin", empty, env)
        assert (done.returncode, done.stderr) == (0, ""), where
        assert done.stdout == output, where


def test_the_pages_name_what_they_install() -> None:
    """The parse this module relies on, on the pages' own words."""
    assert named_install("docs/guide/ir-researcher.md") == (frozenset({"stats", "frames"}),
                                                           ("pandas",))
    assert named_install("docs/guide/data-lake.md")[0] == {"spark", "dask", "frames"}
    assert named_install("README.md")[0] >= {"plot", "stats"}
