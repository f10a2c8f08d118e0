"""Helpers shared by test modules: the slow reference's snapshot and small merge buffers."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import astuple, dataclass, field
from typing import Any
from unittest import mock

import numpy as np

import rankeval.scored.store
import rankeval.scored.window
from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.confusion import CostMatrix, PrecisionRecallEvaluation
from rankeval.intervals import PROPORTION_METHODS
from rankeval.scored.decisions import (
    ASKABLE,
    METHODS,
    RULES,
    STANDARDIZE,
    DecisionReads,
    OperatingPoint,
    ask,
)
from tests.conftest import close, snapshot
from tests.reference import Reference


def store_tiers(min_buffer: int, pending_limit: int) -> AbstractContextManager[Any]:
    """The store's tier sizes for a ``with`` block (tests shrink them to hit every merge path);
    every run then keeps its positive counts in the compact form, whatever its size."""
    return mock.patch.multiple(
        rankeval.scored.store, MIN_BUFFER=min_buffer, PENDING_LIMIT=pending_limit,
        DENSE_CASES=0,
    )


def small_buffer(size: int = 2) -> AbstractContextManager[Any]:
    """Merge the add buffer into the arrays every few adds, to exercise both paths."""
    return store_tiers(size, max(1, size // 2))


def ordered_batches(smallest: int) -> AbstractContextManager[Any]:
    """Let a window remember the sort order of batches from ``smallest`` cases up."""
    return mock.patch.object(rankeval.scored.window, "_MIN_ORDERED_BATCH", smallest)


def reference_snapshot(cases: list[tuple[bool, float]], misses: int, negative_misses: int,
                       ties: str) -> dict[str, Any]:
    """What tests.conftest.snapshot should return, from the slow reference."""
    ref = Reference(cases, misses, negative_misses, ties)
    out: dict[str, Any] = {}
    for flag in (False, True):
        out[f"pr{flag}"] = ref.pr_curve(flag)
        out[f"prs{flag}"] = ref.pr_score_curve(flag)
        out[f"roc{flag}"] = ref.roc_curve(flag)
        out[f"aupr{flag}"] = ref.area(ref.pr_curve(flag))
    out["aurocTrue"] = ref.area(ref.roc_curve(True))
    out["aurocFalse"] = ref.roc_auc_pairs(misses, negative_misses)
    out["eleven"] = ref.eleven_point()
    out["ap"] = ref.average_precision()
    out["maxf"] = [ref.maximum_f(b) for b in (0.5, 1.0, 2.0)]
    out["p_at"] = [ref.precision_at(k) for k in (0, 1, 2, 3, 5, 10, 50)]
    out["rprec"] = ref.r_precision()
    out["rr"] = ref.reciprocal_rank()
    return out


def assert_matches_reference(ev: ScoredPrecisionRecallEvaluation, cases: list[tuple[bool, float]],
                             misses: int, negative_misses: int) -> None:
    got = snapshot(ev)
    expected = reference_snapshot(cases, misses, negative_misses, ev.ties)
    for key, value in expected.items():
        assert close(got[key], value, 1e-12), key


@dataclass
class Stream:
    """What a sequence of operations fed an evaluator, for the reference to replay."""

    cases: list[tuple[bool, float]] = field(default_factory=list)
    misses: int = 0
    negative_misses: int = 0

    def apply(self, ev: ScoredPrecisionRecallEvaluation, op: Any) -> None:
        """Apply one ``tests.strategies.operations`` item to ``ev`` and record it."""
        if op[0] == "case":
            ev.add_case(op[1], op[2])
            self.cases.append((op[1], op[2]))
        elif op[0] == "cases":
            ev.add_cases([c for c, _ in op[1]], [s for _, s in op[1]])
            self.cases.extend(op[1])
        elif op[0] == "misses":
            ev.add_misses(op[1])
            self.misses += op[1]
        else:
            ev.add_negative_misses(op[1])
            self.negative_misses += op[1]


def race(writers: list[threading.Thread], watch: Callable[[], None]) -> None:
    """Run ``watch`` in a thread of its own while the ``writers`` run, then stop it.

    ``watch`` is called again and again until every writer has finished (at least once).
    """
    done = threading.Event()

    def watcher() -> None:
        while True:
            watch()
            if done.is_set():
                return

    thread = threading.Thread(target=watcher)
    thread.start()
    try:
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join()
    finally:
        done.set()
        thread.join()


def evaluator_of(labels: Any, scores: Any, ties: str = "grouped", misses: int = 0,
                 negative_misses: int = 0) -> ScoredPrecisionRecallEvaluation:
    """An evaluator holding these cases and misses (the local side of many comparisons)."""
    ev = ScoredPrecisionRecallEvaluation(ties=ties)
    ev.add_cases(labels, scores)
    ev.add_misses(misses)
    ev.add_negative_misses(negative_misses)
    return ev


def same_bits(a: object, b: object) -> bool:
    """Floats or float arrays equal bit for bit (NaN equals NaN; -0.0 differs from 0.0)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        return False
    return bool(np.all((x.view(np.int64) == y.view(np.int64)) | (np.isnan(x) & np.isnan(y))))


#: The values each argument of a decision read takes in the partitioned tests: every rule,
#: method and standardisation, bounds at the ends and inside, both foci.
DECISION_ARGUMENTS: dict[str, tuple[Any, ...]] = {
    "threshold": (0.25, 0.0, -1.0, 5.0),
    "rule": RULES,
    "beta": (1.0, 0.5),
    "costs": (None, (1.0, 4.0), CostMatrix(tp=-1.0, fn=3.0, fp=1.0, tn=0.5)),
    "prevalence": (None, 0.2),
    "specificity": (0.0, 0.5, 0.9, 1.0),
    "sensitivity": (0.0, 0.5, 0.9, 1.0),
    "recall": (0.0, 0.5, 0.9, 1.0),
    "precision": (0.0, 0.5, 0.9, 1.0),
    "method": METHODS,
    "fpr": (None, (0.0, 0.1), (0.25, 1.0), (0.0, 1.0)),
    "tpr": (None, (0.0, 0.1), (0.25, 1.0), (0.0, 1.0)),
    "standardize": (None, *STANDARDIZE),
    "fraction": (0.1, 0.5, 1.0),
    "bins": (1, 3, 10),
    "thresholds": ((0.0, 0.25, 0.5, 0.9),),
}


def decision_calls() -> list[tuple[str, dict[str, Any]]]:
    """Every decision read a partitioned report gives (the registry's list,
    :data:`~rankeval.scored.decisions.ASKABLE`) with every combination of the argument values
    above that the read accepts: its signature names the arguments, so a new read or argument
    without values here fails (KeyError)."""
    import inspect
    import itertools

    calls = []
    for read in ASKABLE:
        names = [name for name in inspect.signature(getattr(DecisionReads, read)).parameters
                 if name != "self"]
        for values in itertools.product(*(DECISION_ARGUMENTS[name] for name in names)):
            arguments = dict(zip(names, values, strict=True))
            try:
                ask(read, **arguments)
            except ValueError:  # a combination the read refuses (costs for "youden", ...)
                continue
            calls.append((read, arguments))
    assert {read for read, _ in calls} == set(ASKABLE)
    return calls


def _outcome(reader: Any, read: str, arguments: dict[str, Any]) -> Any:
    """A read's result as plain values to compare bit for bit, or its error."""
    try:
        result = getattr(reader, read)(**arguments)
    except (ValueError, TypeError) as error:
        return ("error", type(error).__name__, str(error))
    if isinstance(result, PrecisionRecallEvaluation):
        return np.array([result.true_positive, result.false_positive,
                         result.true_negative, result.false_negative])
    if isinstance(result, OperatingPoint):
        return (result.rule, np.array([result.threshold, result.tp, result.fp, result.tn,
                                       result.fn, result.value]))
    if isinstance(result, np.ndarray) and result.dtype.names:
        return tuple(np.asarray(result[name], dtype=np.float64) for name in result.dtype.names)
    return np.asarray(result, dtype=np.float64)


def _same_outcome(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_outcome(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return same_bits(a, b)


def assert_decisions_match(report: Any, ev: ScoredPrecisionRecallEvaluation,
                           calls: list[tuple[str, dict[str, Any]]]) -> None:
    """Every decision read asked of the report equals the local evaluator's, bit for bit
    (an error the same error)."""
    wrong = {}
    for read, arguments in calls:
        mine = _outcome(report, read, arguments)
        local = _outcome(ev, read, arguments)
        if not _same_outcome(mine, local):
            wrong[f"{read}({arguments})"] = (mine, local)
    assert not wrong, wrong


def assert_report_matches(report: Any, ev: ScoredPrecisionRecallEvaluation,
                          ranks: tuple[int, ...], curve_points: int) -> None:
    """Every value of a partitioned report equals the local evaluator's, bit for bit."""
    assert report.num_cases() == ev.num_cases()
    assert report.num_positive_ref() == ev.num_positive_ref()
    assert report.num_negative_ref() == ev.num_negative_ref()
    pairs = {
        "roc_auc": (report.area_under_roc_curve(), ev.area_under_roc_curve()),
        "ap": (report.average_precision(), ev.average_precision()),
        "pr_auc": (report.area_under_pr_curve(), ev.area_under_pr_curve()),
        "pr_auc_interpolated": (report.area_under_pr_curve(True), ev.area_under_pr_curve(True)),
        "max_f": (report.maximum_f_measure(), ev.maximum_f_measure()),
        "r_precision": (report.r_precision(), ev.r_precision()),
        "reciprocal_rank": (report.reciprocal_rank(), ev.reciprocal_rank()),
        "eleven": (report.eleven_point_interpolated_precision(),
                   ev.eleven_point_interpolated_precision()),
        "pr_interpolated": (report.pr_curve(True), ev.pr_curve(True, max_points=curve_points)),
        "pr_score_interpolated": (report.pr_score_curve(True),
                                  ev.pr_score_curve(True, max_points=curve_points)),
        "pr": (report.pr_curve(), ev.pr_curve(max_points=curve_points)),
        "pr_score": (report.pr_score_curve(), ev.pr_score_curve(max_points=curve_points)),
        "roc": (report.roc_curve(), ev.roc_curve(max_points=curve_points)),
    }
    pairs.update({f"p@{k}": (report.precision_at(k), ev.precision_at(k)) for k in ranks})
    # every registered read the report has (the registry's list, not a hand one)
    from rankeval.scored.reads import READS

    asked = bool(report._layout.request.decisions)
    for read in READS.values():
        if "report" in read.readers and read.parameter is None and not read.options:
            if read.method in ASKABLE and not asked:  # compared below when asked for
                continue
            pairs[f"read {read.name}"] = (read.read(report), read.read(ev))
    mine_ks, local_ks = report.ks_statistic(), ev.ks_statistic()  # the whole point
    pairs["ks point"] = (np.array([mine_ks.threshold, mine_ks.tp, mine_ks.fp, mine_ks.value]),
                         np.array([local_ks.threshold, local_ks.tp, local_ks.fp,
                                   local_ks.value]))
    if ev.num_positive_ref() == 0:
        # Every recall is NaN: the report keeps one row per bucket, not per point (all NaN).
        del pairs["pr_interpolated"], pairs["pr_score_interpolated"]
        assert np.isnan(report.pr_curve(True)[1:-1, 0]).all()
    # Every interval the report gives (all but the bootstrap's and the thresholds').
    reads: list[tuple[str, str, int | None]] = [("roc_auc", "delong", None)]
    reads += [("average_precision", method, None) for method in ("logit", "binomial")]
    for method in PROPORTION_METHODS:
        reads.append(("r_precision", method, None))
        reads += [("precision_at", method, k) for k in ranks if k > 0]
    for measure, method, k in reads:
        mine_i = report.interval(measure, 0.9, method, k=k)
        local_i = ev.interval(measure, 0.9, method, k=k)
        pairs[f"{measure} {method} {k}"] = (np.array(astuple(mine_i)[:3] + astuple(mine_i)[5:]),
                                            np.array(astuple(local_i)[:3] + astuple(local_i)[5:]))
    wrong = [name for name, (mine, local) in pairs.items() if not same_bits(mine, local)]
    assert not wrong, {name: pairs[name] for name in wrong}
    if asked:  # asked with DECISIONS: every decision read too
        assert_decisions_match(report, ev, DECISIONS)


class Clock:
    """A clock the test moves by hand (a module-level class, so a time window holding it
    pickles)."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def materialised_draws(rng: np.random.Generator, ranked: int, missed: int) -> np.ndarray:
    """The bootstrap's draws of one class, case by case: ``ranked + missed`` draws among its
    ranked cases and misses (an index ``>= ranked`` is a miss); with misses, first how many
    draws fall on them (a binomial count), then the rest among the ranked cases, as the
    evaluator's bootstrap draws them."""
    total = ranked + missed
    if missed == 0:
        return rng.integers(0, total, size=total)
    on_misses = int(rng.binomial(total, missed / total))
    return np.concatenate([rng.integers(0, ranked, size=total - on_misses),
                           np.full(on_misses, ranked)])


#: A value for the first option of each scored read that declares options (the others are
#: alternatives or defaults: ``tpr=`` for ``fpr=``, ``standardize=``).
OPTION_VALUES: dict[str, Any] = {"fpr": (0.0, 0.4), "specificity": 0.5, "sensitivity": 0.5,
                                 "recall": 0.5, "precision": 0.5, "fraction": 0.25, "bins": 5}


def read_options(name: str) -> dict[str, Any]:
    """Options for the registered scored read ``name``: its first option's value, if any."""
    from rankeval.scored.reads import READS

    options = READS[name].options
    return {options[0]: OPTION_VALUES[options[0]]} if options else {}


#: :func:`decision_calls`, once: pass ``decisions=DECISIONS`` to a request and
#: :func:`assert_report_matches` compares every one.
DECISIONS = decision_calls()
