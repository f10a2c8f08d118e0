"""Old import paths keep working, with a DeprecationWarning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_old_compare_module_path() -> None:
    """``rankeval.ranking.compare`` the module moved to ``significance``; importing it warns,
    and afterwards ``rankeval.compare`` is still callable (it used to become the module)."""
    code = """
import warnings
warnings.simplefilter("error")
import rankeval
try:
    import rankeval.ranking.compare
except DeprecationWarning as warning:
    print("warned:", warning)
warnings.simplefilter("ignore")
import rankeval.ranking.compare as old
from rankeval.ranking.compare import Comparison, compare
import rankeval.ranking
result = rankeval.ranking.compare({"q": {"a": 1}}, {"x": {"q": {"a": 1.0}}, "y": {"q": {"a": 0.5}}},
                                  "map", test="t-test")
print(type(result).__name__, isinstance(result, Comparison), callable(rankeval.compare))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "warned: the module rankeval.ranking.compare is now rankeval.ranking.significance" \
        in done.stdout
    assert "Comparison True True" in done.stdout


def test_run_evaluation_format_is_to_text() -> None:
    """``RunEvaluation.format()`` became ``to_text()`` (the name results render with, as
    ``Comparison.to_text()``); the old name warns and gives the same text."""
    import pytest

    from rankeval import evaluate_run

    ev = evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 2.0}}, ["map", "P.1"])
    with pytest.warns(DeprecationWarning, match=r"now RunEvaluation\.to_text\(\)"):
        old = ev.format(per_query=True)
    assert old == ev.to_text(per_query=True)
    assert ev.to_text().splitlines()[0].split()[:2] == ["map", "all"]
