"""Shared pieces of the benchmark scripts: data, timing, the NumPy reference, table printing.

Every benchmark compares rankeval against a peer measured in the same run, because the project
machine has two cores shared with other work: absolute times drift, ratios taken from
interleaved repeats drift much less.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

SEED = 20240607

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if importlib.util.find_spec("rankeval") is None:
    sys.path.insert(0, REPO_ROOT)  # a plain checkout: measure the source tree beside this folder
try:
    from rankeval import ScoredPrecisionRecallEvaluation
except ImportError:  # the scripts stay runnable (peers only) until the evaluator exists
    ScoredPrecisionRecallEvaluation = None

TIE_POLICIES = ("insertion", "grouped")


# ---------------------------------------------------------------------------------------------
# data


def make_cases(n: int, *, ties: bool = False, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores of a plausible probabilistic classifier.

    30 % positives; logits are N(+1, 1.2) for positives and N(-1, 1.2) for negatives, squashed
    into (0, 1) so that river's [0, 1] thresholds and torchmetrics' probability check both see
    what they expect (ROC AUC about 0.88).  ``ties=True`` rounds the probabilities to two
    decimals, the tie-heavy variant (at most 101 distinct scores).
    """
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.3
    logits = rng.normal(-1.0, 1.2, n)
    logits[labels] += 2.0
    scores = 1.0 / (1.0 + np.exp(-logits))
    if ties:
        scores = np.round(scores, 2)
    return labels, scores


DATA_HELP = "continuous scores, scores rounded to 2 decimals (ties), or both"


def data_variants(choice: str) -> list[tuple[str, bool]]:
    """``--data`` option -> [(name, ties)]."""
    variants = {"continuous": False, "ties": True}
    if choice == "both":
        return list(variants.items())
    return [(choice, variants[choice])]


# ---------------------------------------------------------------------------------------------
# the NumPy reference (one argsort + one cumsum)


@dataclass(frozen=True)
class Reference:
    roc_auc: float
    average_precision: float
    precision: np.ndarray  # at each distinct threshold, highest score first
    recall: np.ndarray
    thresholds: np.ndarray


def numpy_reference(labels: np.ndarray, scores: np.ndarray) -> Reference:
    """ROC AUC, AP and the PR curve from one argsort and one cumsum, grouping tied scores.

    Same definitions as scikit-learn (trapezoidal ROC AUC; AP = sum of precision times recall
    step over the distinct thresholds), written as lean as NumPy allows.
    """
    order = np.argsort(scores)[::-1]
    sorted_scores = scores[order]
    # index of the last case of every block of equal scores
    ends = np.flatnonzero(sorted_scores[1:] != sorted_scores[:-1])
    ends = np.append(ends, sorted_scores.size - 1)
    # float64 counts are exact below 2**53; einsum is a single-threaded SIMD dot: OpenBLAS's
    # threaded ddot waits for a free core on a busy two-core machine (7 ms instead of 0.5 at 1M)
    tp = np.cumsum(labels[order], dtype=np.float64)[ends]
    return _reference_from_counts(tp, ends + 1.0, sorted_scores[ends])


def _reference_from_counts(tp: np.ndarray, cut: np.ndarray, thresholds: np.ndarray) -> Reference:
    """ROC AUC, AP and the PR curve from true positives among the top ``cut`` cases."""
    fp = cut - tp
    num_pos = tp[-1]
    num_neg = fp[-1]
    # trapezoids between consecutive ROC points, starting at (0, 0)
    fp_step = np.diff(fp, prepend=0.0)
    tp_sum = tp.copy()
    tp_sum[1:] += tp[:-1]
    roc_auc = float(np.einsum("i,i->", fp_step, tp_sum)) / (2.0 * num_pos * num_neg)
    precision = tp / cut
    tp_step = np.diff(tp, prepend=0.0)
    average_precision = float(np.einsum("i,i->", tp_step, precision)) / num_pos
    return Reference(roc_auc, average_precision, precision, tp / num_pos, thresholds)


def numpy_reference_per_case(labels: np.ndarray, scores: np.ndarray) -> Reference:
    """The same values with one operating point per case, ties kept in input order.

    What ``ties="insertion"`` asks for (LingPipe's stable sort): with tied scores every case is
    still its own point, so a tie-heavy ranking yields n points where the grouped reference
    yields one per distinct score.  A stable argsort, then the same cumsum arithmetic.
    """
    order = np.argsort(-scores, kind="stable")
    tp = np.cumsum(labels[order], dtype=np.float64)
    return _reference_from_counts(tp, np.arange(1.0, tp.size + 1.0), scores[order])


def check_reference_against_sklearn(labels: np.ndarray, scores: np.ndarray) -> None:
    """Raise unless the NumPy reference gives scikit-learn's values on these arrays."""
    from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score

    ref = numpy_reference(labels, scores)
    precision, recall, thresholds = precision_recall_curve(labels, scores)
    checks = {
        "roc_auc": np.isclose(ref.roc_auc, roc_auc_score(labels, scores), rtol=1e-12, atol=0),
        "ap": np.isclose(
            ref.average_precision, average_precision_score(labels, scores), rtol=1e-12, atol=0
        ),
        "precision": np.allclose(ref.precision, precision[-2::-1], rtol=1e-12, atol=0),
        "recall": np.allclose(ref.recall, recall[-2::-1], rtol=1e-12, atol=0),
        "thresholds": np.array_equal(ref.thresholds, thresholds[::-1]),
    }
    failed = [name for name, ok in checks.items() if not ok]
    if failed:
        raise AssertionError(f"NumPy reference differs from scikit-learn in {failed}")


# ---------------------------------------------------------------------------------------------
# rankeval


def require_rankeval() -> bool:
    """True when rankeval's scored evaluator is importable; otherwise say so once."""
    if ScoredPrecisionRecallEvaluation is None:
        print("NOTE: rankeval.ScoredPrecisionRecallEvaluation is not importable yet;"
              " rankeval rows are skipped.\n")
        return False
    return True


def new_evaluator(ties: str, score_dtype: str = "float64") -> Any:
    return ScoredPrecisionRecallEvaluation(ties=ties, score_dtype=score_dtype)


def full_report(ev: Any) -> dict[str, Any]:
    """Every curve of the spec in both interpolation settings and every summary value."""
    n = ev.num_cases()
    report: dict[str, Any] = {
        "num_cases": n,
        "num_positive_ref": ev.num_positive_ref(),
        "num_negative_ref": ev.num_negative_ref(),
        "eleven_point": ev.eleven_point_interpolated_precision(),
        "average_precision": ev.average_precision(),
        "maximum_f_measure": ev.maximum_f_measure(),
        "precision_at_10": ev.precision_at(10),
        "precision_at_100": ev.precision_at(100),
        "precision_at_half": ev.precision_at(max(1, n // 2)),
        "pr_breakeven_point": ev.pr_breakeven_point(),
        "r_precision": ev.r_precision(),
        "reciprocal_rank": ev.reciprocal_rank(),
    }
    for interpolate in (False, True):
        suffix = "_interp" if interpolate else ""
        report["pr_curve" + suffix] = ev.pr_curve(interpolate)
        report["pr_score_curve" + suffix] = ev.pr_score_curve(interpolate)
        report["roc_curve" + suffix] = ev.roc_curve(interpolate)
        report["auc_pr" + suffix] = ev.area_under_pr_curve(interpolate)
        report["auc_roc" + suffix] = ev.area_under_roc_curve(interpolate)
    return report


# ---------------------------------------------------------------------------------------------
# timing


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds one call of ``fn`` takes (after a collection, with the collector left on)."""
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def interleaved(contenders: dict[str, Callable[[], Any]], repeat: int) -> dict[str, list[float]]:
    """Run every contender once per round, ``repeat`` rounds, rotating the order each round."""
    return interleaved_prepared({name: (lambda fn=fn: fn) for name, fn in contenders.items()},
                                repeat)


def interleaved_prepared(prepare: dict[str, Callable[[], Callable[[], Any]]],
                         repeat: int) -> dict[str, list[float]]:
    """:func:`interleaved`, where each run first calls ``prepare[name]()`` untimed to get the
    callable it times (state built afresh for every run, such as an evaluator already full)."""
    names = list(prepare)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        rotated = names[r % len(names):] + names[: r % len(names)]
        for name in rotated:
            seconds, _ = timed(prepare[name]())
            times[name].append(seconds)
    return times


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


# ---------------------------------------------------------------------------------------------
# output


def parser(description: str, *, data: str | None = None) -> argparse.ArgumentParser:
    """The scripts' options: ``--quick``, and ``--data`` (see :func:`data_variants`) when
    ``data`` gives its help text."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help="smoke-test size (seconds, not minutes)")
    if data is not None:
        p.add_argument("--data", choices=("continuous", "ties", "both"), default="both",
                       help=data)
    return p


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"machine: {os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()},"
            f" NumPy {np.__version__}, load average {load}")


def versions(*modules: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    import rankeval

    parts = [f"rankeval {rankeval.__version__} ({os.path.dirname(rankeval.__file__)})"]
    for name in modules:
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} (missing)")
    return "versions: " + ", ".join(parts)


def git_commit() -> str:
    import subprocess

    try:
        out = subprocess.run(["git", "-C", REPO_ROOT, "log", "-1", "--format=%h %s"],
                             capture_output=True, text=True, check=True, timeout=10)
        dirty = subprocess.run(["git", "-C", REPO_ROOT, "status", "--porcelain",
                                "--untracked-files=no", "rankeval"],
                               capture_output=True, text=True, check=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() + (" (+ uncommitted changes in rankeval/)" if dirty.stdout else "")


def header(title: str, *modules: str) -> None:
    print(title)
    print("=" * len(title))
    print(machine_line())
    print(versions(*modules))
    import rankeval

    here = os.path.dirname(os.path.abspath(rankeval.__file__))
    if here == os.path.join(REPO_ROOT, "rankeval"):
        print(f"commit: {git_commit()}")
    else:
        print(f"commit: none (rankeval imported from {here}, outside this checkout)")
    print(f"command: {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    print(flush=True)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Plain-text table; numbers right-aligned, text left-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(row[i]) for row in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    numeric = [all(_is_number(row[i]) for row in rows) if rows else False
               for i in range(len(headers))]

    def fmt(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    print(fmt(list(headers)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print(fmt(row))
    print()


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _cell(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{v:,}"
    if isinstance(v, (float, np.floating)):
        if v != v:
            return "nan"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        if abs(v) >= 1:
            return f"{v:.2f}"
        return f"{v:.4g}"
    return str(v)


def ratio(numerator: float, denominator: float) -> str:
    return f"{numerator / denominator:.2f}x" if denominator else "n/a"


def verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


def fmt_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} us"
