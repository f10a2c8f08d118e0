"""The README's headline figures and the docs' benchmarks page are generated from
benchmarks/results/: a rerun that changes a result file must change them too."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("figures", ROOT / "benchmarks" / "figures.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["figures"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_readme_figures_are_the_result_files() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _figures().readme_with_figures(readme) == readme


def test_the_benchmarks_page_is_the_result_files() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert _figures().benchmarks_page() == page


def test_every_figure_reads_a_number_from_its_file() -> None:
    for figure in _figures().FIGURES:
        assert re.search(r"\d", figure.value()), figure.question
        assert (ROOT / "benchmarks" / figure.command().split()[1]).exists(), figure.command()


def test_a_changed_result_changes_the_readme(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A figure follows its file: edit the number in a copy of the results, and the README
    no longer matches."""
    figures = _figures()
    copy = tmp_path / "results"
    copy.mkdir()
    for path in (ROOT / "benchmarks" / "results").glob("*.txt"):
        (copy / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    text = (copy / "bench_categories.txt").read_text(encoding="utf-8")
    (copy / "bench_categories.txt").write_text(
        re.sub(r"(add_cases \+ 8 summaries.*?\s)(\d+\.\d+)x", r"\g<1>99.99x", text),
        encoding="utf-8")
    monkeypatch.setattr(figures, "RESULTS", copy)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "99.99x faster" in figures.figures_table()
    assert figures.readme_with_figures(readme) != readme
