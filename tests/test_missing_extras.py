"""Importing an adapter without its extra says which extra to install, in a child
process whose import system cannot find the engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Block())
try:
    import {module}
except ModuleNotFoundError as error:
    print(error)
"""


@pytest.mark.parametrize(("module", "blocked", "extra"), [
    ("rankeval.spark", ("pyspark",), "rankeval-exact[spark]"),
    ("rankeval.spark", ("pyarrow",), "rankeval-exact[spark]"),
    ("rankeval.dask", ("dask",), "rankeval-exact[dask]"),
])
def test_an_adapter_names_its_extra(module: str, blocked: tuple[str, ...], extra: str) -> None:
    done = subprocess.run([sys.executable, "-c", BLOCK.format(blocked=set(blocked),
                                                               module=module)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"pip install '{extra}'" in done.stdout
    assert blocked[0] in done.stdout
