"""The house in figures: every module of ``rankeval/`` with its lines, the five largest modules
and the five largest classes (lines, methods), at a git revision.

``python benchmarks/house_facts.py REV [--tree]`` (``REV`` defaults to ``HEAD``). Not a timing:
the figures of the architecture's closing notes come from here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout


def main(argv: list[str]) -> int:
    rev = next((a for a in argv if not a.startswith("--")), "HEAD")
    files = [f for f in _git("ls-tree", "-r", "--name-only", rev, "rankeval").split()
             if f.endswith(".py")]
    sizes: dict[str, int] = {}
    classes: list[tuple[int, str, int]] = []
    for name in files:
        text = _git("show", f"{rev}:{name}")
        sizes[name] = text.count("\n")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                methods = sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                              for n in node.body)
                classes.append((node.end_lineno - node.lineno + 1, f"{name}:{node.name}",
                                methods))
    if "--tree" in argv:
        for name in sorted(files):
            print(f"{sizes[name]:6d}  {name}")
    print(f"modules: {len(files)}, lines: {sum(sizes.values())}")
    print("largest modules:")
    for name, lines in sorted(sizes.items(), key=lambda kv: -kv[1])[:5]:
        print(f"  {lines:5d}  {name}")
    print("largest classes (lines, methods):")
    for lines, name, methods in sorted(classes, reverse=True)[:5]:
        print(f"  {lines:5d}  {methods:3d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
