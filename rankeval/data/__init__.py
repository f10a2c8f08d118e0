"""The example data shipped inside the package: its files, wherever rankeval is installed.

>>> from rankeval import data
>>> data.path("example.qrels").name
'example.qrels'
>>> "bm25.run" in data.names()
True

``rankeval data`` on the command line prints the folder, for shell use:
``rankeval trec -m map "$(rankeval data)/example.qrels" "$(rankeval data)/bm25.run"``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["folder", "names", "path"]

_HERE = Path(__file__).resolve().parent
_SUFFIXES = (".qrels", ".run", ".tsv")


def folder() -> Path:
    """The folder that holds the example files (inside the installed package)."""
    return _HERE


def names() -> list[str]:
    """The example files' names, sorted: the TREC qrels and runs and the scored TSV files."""
    return sorted(p.name for p in _HERE.iterdir() if p.suffix in _SUFFIXES)


def path(name: str) -> Path:
    """The path of the example file ``name`` (one of :func:`names`); ``FileNotFoundError``
    naming the files there for any other name."""
    known = names()
    if name not in known:
        raise FileNotFoundError(f"no example file {name!r}; there are {', '.join(known)}")
    return _HERE / name
