"""Old import paths keep working, with a DeprecationWarning (issue 26's rule)."""

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
