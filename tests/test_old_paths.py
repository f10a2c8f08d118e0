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
    """``RunReport.format()`` became ``to_text()`` (the name results render with, as
    ``Comparison.to_text()``); the old name warns and gives the same text."""
    import pytest

    from rankeval import evaluate_run

    ev = evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 2.0}}, ["map", "P.1"])
    with pytest.warns(DeprecationWarning, match=r"now RunReport\.to_text\(\)"):
        old = ev.format(per_query=True)
    assert old == ev.to_text(per_query=True)
    assert ev.to_text().splitlines()[0].split()[:2] == ["map", "all"]


# Old module path -> the names it must still give, and what its warning says.
OLD_MODULES = {
    "rankeval.scored.kernel": (
        ("OperatingPoints", "operating_points", "sort_cases", "run_starts",
         "small_stable_order", "tie_block_ends"),
        "rankeval.scored.kernel is now rankeval.points"),
    "rankeval.engines": (("ScoredTableOptions", "check_order", "scored_parts", "run_batch"),
                         "rankeval.engines is now rankeval.adapters.common"),
    "rankeval.correlation": (("KendallTau", "kendall_tau", "kendall_tau_counts"),
                             "rankeval.correlation is now rankeval.ranking.correlation"),
}


def test_the_adapters_short_names_are_the_adapters_modules() -> None:
    """``rankeval.spark``, ``rankeval.dask`` and ``rankeval.prometheus`` stay the public names
    (no warning); the code lives in the adapters wing, and both names give one module."""
    code = """
import warnings
warnings.simplefilter("error")
import rankeval.spark, rankeval.dask, rankeval.prometheus
import rankeval.adapters.spark, rankeval.adapters.dask, rankeval.adapters.prometheus
print(rankeval.spark is rankeval.adapters.spark, rankeval.dask is rankeval.adapters.dask,
      rankeval.prometheus is rankeval.adapters.prometheus)
from rankeval.spark import evaluate
from rankeval.prometheus import EvaluationCollector
print(evaluate is rankeval.adapters.spark.evaluate)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"] * 4


def _import_in_child(module: str, names: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    code = f"""
import warnings
warnings.simplefilter("error")
try:
    import {module}
except DeprecationWarning as warning:
    print("warned:", warning)
warnings.simplefilter("ignore")
import importlib
old = importlib.import_module({module!r})
missing = [n for n in {names!r} if not hasattr(old, n)]
print("missing:", missing)
"""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_old_module_paths_warn_and_still_work() -> None:
    for module, (names, message) in OLD_MODULES.items():
        done = _import_in_child(module, names)
        assert done.returncode == 0, done.stderr
        assert f"warned: the module {message}" in done.stdout, (module, done.stdout)
        assert "missing: []" in done.stdout, (module, done.stdout)


def test_the_moved_kernel_names_are_the_new_ones() -> None:
    import warnings

    from rankeval import points
    from rankeval.scored import sorting

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from rankeval.scored import kernel
    assert kernel.operating_points is points.operating_points
    assert kernel.sort_cases is sorting.sort_cases


def test_the_library_code_that_left_the_command_line() -> None:
    """``summarize_queries``, ``QuerySummary``, ``Mean`` and ``print_roc_curve`` moved out of
    ``rankeval.cli``; the old names warn and are the new objects."""
    import pytest

    from rankeval import cli
    from rankeval.scored import lingpipe_text, queries

    for name, home in (("summarize_queries", queries), ("QuerySummary", queries),
                       ("Mean", queries), ("print_roc_curve", lingpipe_text)):
        with pytest.warns(DeprecationWarning, match=rf"rankeval\.cli\.{name} is now"):
            assert getattr(cli, name) is getattr(home, name)
    with pytest.raises(AttributeError):
        cli.no_such_name  # noqa: B018


def test_run_evaluation_is_now_run_report() -> None:
    """Results are Reports, accumulators Evaluations: ``RunEvaluation`` became ``RunReport``;
    the old name warns wherever it was importable and is the same class."""
    import pytest

    import rankeval
    import rankeval.ranking
    from rankeval.ranking import evaluate

    for home in (rankeval, rankeval.ranking, evaluate):
        with pytest.warns(DeprecationWarning, match="RunEvaluation is now"):
            old = home.RunEvaluation
        assert old is evaluate.RunReport


def test_add_counts_names_its_arguments_truth_first() -> None:
    """``add_counts`` takes ``positives=, negatives=, scores=`` by name; the earlier positional
    ``(scores, positives, negatives)`` warns and gives the same evaluator."""
    import pytest

    from rankeval import ScoredPrecisionRecallEvaluation

    new = ScoredPrecisionRecallEvaluation(ties="grouped")
    new.add_counts(positives=[2, 1], negatives=[0, 3], scores=[0.9, 0.5])
    old = ScoredPrecisionRecallEvaluation(ties="grouped")
    with pytest.warns(DeprecationWarning, match="name them"):
        old.add_counts([0.9, 0.5], [2, 1], [0, 3])
    assert old == new
    assert new.area_under_roc_curve() == 5 / 6  # (2·3 wins + 1·3 ties / 2) / 9 pairs
    with pytest.raises(TypeError, match="needs scores"):
        new.add_counts(positives=[1], negatives=[0])
    with pytest.raises(TypeError, match="by name"):
        new.add_counts([0.5], positives=[1], negatives=[0])


def test_betas_is_now_beta() -> None:
    """One rule for options: named for one value, a sequence where several may be asked
    (``precision_at``, ``beta``); ``report(betas=)`` warns and gives the same report."""
    import pytest

    from rankeval import ScoredPrecisionRecallEvaluation

    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases([True, False, True], [0.9, 0.5, 0.1])
    new = ev.report(beta=(1.0, 2.0))
    with pytest.warns(DeprecationWarning, match="betas= is now beta="):
        old = ev.report(betas=(1.0, 2.0))
    assert old.maximum_f_measure(2.0) == new.maximum_f_measure(2.0) == ev.maximum_f_measure(2.0)
    assert ev.report(beta=0.5).maximum_f_measure(0.5) == ev.maximum_f_measure(0.5)


def test_every_deprecation_names_its_removal_release() -> None:
    """Every old name warns through one rule (rankeval._deprecation), which names the release
    that removes it; no module warns a DeprecationWarning of its own (PySpark's, which the
    Spark adapter silences, aside)."""
    import re
    import warnings

    from rankeval._deprecation import REMOVED_IN

    sites = 0
    for path in sorted((ROOT / "rankeval").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        own = [m for m in re.finditer(r"warnings\.warn\((.{0,400}?)\)\n", text, re.S)
               if "DeprecationWarning" in m.group(1)]
        assert not own or path.name in ("spark.py", "_deprecation.py"), path
        sites += len(re.findall(r"^\s*deprecated\(", text, re.M))
    assert sites >= 10
    for module in OLD_MODULES:
        done = _import_in_child(module, ())
        assert f"will be removed in rankeval {REMOVED_IN}" in done.stdout, module
    import rankeval

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert rankeval.RunEvaluation is rankeval.RunReport  # type: ignore[attr-defined]
    assert f"will be removed in rankeval {REMOVED_IN}" in str(caught[0].message)


def test_rankeval_io_gives_each_jobs_names() -> None:
    """rankeval.io, split by job (case files, output files, the terminal, JSON), still gives
    every name it gave, each the job module's own object."""
    import rankeval.io
    from rankeval import case_files, files, json_output, terminal

    owners = (case_files, files, json_output, terminal)
    for name in rankeval.io.__all__:
        value = getattr(rankeval.io, name)
        if name == "DataError":
            continue
        assert any(getattr(module, name, None) is value for module in owners), name


def test_the_engines_evaluate_run_takes_buckets_as_evaluate_does() -> None:
    """``batches=`` became ``buckets=`` (one word for the pieces a table is cut into); the
    old name warns with its removal release, and both at once are refused."""
    import pandas as pd
    import pytest

    from rankeval.adapters import common

    table = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]})
    with pytest.warns(DeprecationWarning, match="removed in rankeval 1.0"), \
            pytest.raises(TypeError, match="Spark or a Dask DataFrame"):
        common.evaluate_run(table, table, "map", batches=2)
    with pytest.raises(ValueError, match="not both"):
        common.evaluate_run(table, table, "map", batches=2, buckets=2)
