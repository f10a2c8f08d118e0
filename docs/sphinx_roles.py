"""A griffe extension for the documentation build: Sphinx roles become live links.

The docstrings cross-reference in Sphinx's roles (``:meth:`save```,
``:class:`~rankeval.Qrels```), which mkdocstrings would print as literal text. When the
package is loaded, every role is rewritten into an autorefs link (``[`save`][path]``) to the
object the API reference renders, found as Sphinx would look it up (the object's own class,
its module, the names it imports, the package's public names); a target the reference does
not render becomes plain code. ``mkdocs build --strict`` then fails on any link that does not
resolve, and ``tests/test_api_docs.py`` fails on a role left literal in the built site.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(meth|class|func|attr|mod|data|exc|obj|const):`(~?)([^`]+)`")
_DIRECTIVE = re.compile(r"^:::\s*(\S+)", re.M)
_DOCS = Path(__file__).resolve().parent


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring of the package, once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader,
                   **kwargs: Any) -> None:
        if pkg.path != "rankeval":
            return
        rendered = _rendered(loader)
        for obj in _walk(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = ROLE.sub(
                    lambda m, obj=obj: _link(m, obj, loader, rendered), obj.docstring.value)


def _walk(obj: Any, seen: set[int] | None = None) -> Any:
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield obj
    for member in list(obj.members.values()):
        if member.is_alias:
            continue
        yield from _walk(member, seen)


def _get(loader: griffe.GriffeLoader, path: str) -> Any:
    try:
        return loader.modules_collection.get_member(path)
    except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError,
            griffe.CyclicAliasError):
        return None


def _rendered(loader: griffe.GriffeLoader) -> set[str]:
    """Every path the API reference renders: each ``:::`` object and its public members,
    inherited ones under the class that inherits them."""
    paths: set[str] = set()
    for page in _DOCS.rglob("*.md"):
        for target in _DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            obj = _get(loader, target)
            if obj is not None:
                _add(obj, target, paths)
    return paths


def _add(obj: Any, path: str, paths: set[str]) -> None:
    paths.add(path)
    try:
        members = obj.all_members if obj.is_class else obj.members
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return
    if obj.is_module:  # a module's page renders its own members, not what it imports
        members = {n: m for n, m in members.items() if not m.is_alias}
    for name, member in members.items():
        if name.startswith("_"):
            continue
        if obj.is_class or obj.is_module:
            try:
                _add(member, f"{path}.{name}", paths)
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                paths.add(f"{path}.{name}")


def _candidates(target: str, obj: Any) -> list[str]:
    """Where Sphinx would look ``target`` up from ``obj``'s docstring, in its order."""
    found = []
    scope = obj
    while scope is not None:  # the object itself, its class, its module, the package
        found.append(f"{scope.path}.{target}")
        head, dot, rest = target.partition(".")
        with contextlib.suppress(griffe.NameResolutionError, AttributeError, ValueError,
                                 KeyError):
            found.append(scope.resolve(head) + dot + rest)
        scope = scope.parent
    found += [target, f"rankeval.{target}"]
    return found


def _link(match: re.Match[str], obj: Any, loader: griffe.GriffeLoader,
          rendered: set[str]) -> str:
    role, short, target = match.groups()
    target = target.strip().removesuffix("()")
    shown = target.rsplit(".", 1)[-1] if short else target
    if role in ("meth", "func"):
        shown += "()"
    for path in _candidates(target, obj):
        if path in rendered:
            return f"[`{shown}`][{path}]"
        found = _get(loader, path)
        if found is not None:
            try:
                canonical = found.canonical_path if not found.is_alias else found.target_path
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
            if canonical in rendered:
                return f"[`{shown}`][{canonical}]"
    return f"`{shown}`"
