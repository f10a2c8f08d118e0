"""Fuzzing every public method of ScoredPrecisionRecallEvaluation with garbage.

Contract under test: a call either succeeds or raises a documented exception
(``TypeError``, ``ValueError`` including ``PersistenceError``, and for
``save``/``load`` an ``OSError``: a missing file or directory, a directory, a
name too long); a rejected
call, and every successful read, leaves the evaluator exactly as it was. "As it
was" is checked without pickle: every derived value (``tests.conftest.snapshot``),
the repr, and the bytes ``save`` writes.

The gaps this fuzzer found (astronomical counts, huge beta, printing to a
non-file, numbers a double cannot hold) are closed, and the focused tests at
the end keep them closed.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import math
import operator
import os
import pickle
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.scored.state_file import PersistenceError
from tests import strategies
from tests.conftest import same, snapshot

Evaluation = ScoredPrecisionRecallEvaluation

MUTATORS = frozenset({
    "add_case", "add_cases", "add_counts", "add_misses", "add_negative_misses", "merge",
    "reset", "addCase", "addMisses", "addNegativeMisses", "update", "merge_state",
})
READS = frozenset({
    "area_under_pr_curve", "area_under_roc_curve", "average_precision",
    "eleven_point_interpolated_precision", "load", "maximum_f_measure", "num_cases",
    "num_negative_ref", "num_positive_ref", "pr_breakeven_point", "pr_curve",
    "pr_score_curve", "precision_at", "print_precision_recall_curve",
    "print_score_precision_recall_curve", "r_precision", "reciprocal_rank", "roc_curve",
    "save", "snapshot", "toString", "summary", "compute", "report",
    "areaUnderPrCurve", "areaUnderRocCurve", "averagePrecision", "elevenPtInterpPrecision",
    "maximumFMeasure", "numCases", "numNegativeRef", "numPositiveRef", "prBreakevenPoint",
    "prCurve", "prScoreCurve", "precisionAt", "printPrecisionRecallCurve",
    "printScorePrecisionRecallCurve", "rPrecision", "reciprocalRank", "rocCurve",
    "interval", "brier_score", "brier_decomposition", "log_loss", "reliability_curve",
    "calibration_error", "to_bytes", "from_bytes", "read", "to_text", "best_threshold",
    "confusion_at", "ks_statistic", "partial_roc_auc", "precision_at_recall",
    "recall_at_precision", "sensitivity_at", "specificity_at", "det_curve", "gains_curve",
    "roc_band", "net_benefit", "decision_curve", "cost_curve", "min_expected_cost",
    "pr_gain_curve", "area_under_pr_gain_curve", "thresholds_table",
    "lift_curve", "lift_at", "gains_table", "roc_convex_hull", "area_under_roc_convex_hull",
})
# Reads that are not methods: operators and the copy protocols.
OPERATORS = ("+", "==", "!=", "str", "repr", "deepcopy", "pickle")
PUBLIC = sorted(
    name for name in dir(Evaluation)
    if not name.startswith("_") and callable(getattr(Evaluation, name))
)
# Every name once; files, merging and bulk adds, where most can go wrong, more often.
CALL_NAMES = [*PUBLIC, *OPERATORS, *["save", "load"] * 5, *["merge", "+", "add_cases"] * 2]

# ------------------------------------------------------------------ garbage
SPECIAL_FLOATS = [math.nan, math.inf, -math.inf, -0.0, 0.0, 5e-324, 1.7976931348623157e308]
HUGE_INTS = [2**63, -(2**63) - 1, 2**64, 10**30, 10**400, -(10**400)]
ODD_SCALARS = [
    np.float16(1.5), np.float32("nan"), np.longdouble("1e4000"), np.int8(-1),
    np.uint64(2**64 - 1), np.int64(-(2**63)), np.bool_(True), np.complex128(1j),
    np.datetime64("2020-01-01"), np.timedelta64(1, "D"), np.str_("x"), np.bytes_(b"x"),
    np.void(b"ab"), Fraction(1, 3), complex(1, 0),
]
ODD_ARRAYS = [
    lambda: np.array([None, 1.0, "a"], dtype=object),
    lambda: np.array([True, False], dtype=object),
    lambda: np.array(["1.0", "2"]),
    lambda: np.array([b"1", b"0"]),
    lambda: np.array(["2020-01-01", "2021-01-01"], dtype="datetime64[D]"),
    lambda: np.array([1, 2], dtype="m8[s]"),
    lambda: np.zeros(2, dtype=[("a", "i4"), ("b", "f8")]),
    lambda: np.array([1.0, 2.0, 3.0], dtype=">f8"),
    lambda: np.array([True, False, True], dtype=">i2"),
    lambda: np.arange(6.0)[::2],
    lambda: np.ma.masked_array([1.0, 2.0], mask=[True, False]),
    lambda: np.zeros((2, 0)),
    lambda: np.array(3.0),
    lambda: np.array([1.0, 2.0], dtype=np.longdouble),
    lambda: np.array([[1.0, 0.5], [0.5, 0.5]]),
]
numeric_arrays = hnp.arrays(
    dtype=st.sampled_from([np.bool_, np.int8, np.uint64, np.int64, np.float16, np.float32,
                           np.float64, np.complex64]),
    shape=hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
)
odd_arrays = st.one_of(numeric_arrays, st.sampled_from(ODD_ARRAYS).map(lambda make: make()))
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 60), st.integers(),
    st.sampled_from(HUGE_INTS), st.floats(), st.sampled_from(SPECIAL_FLOATS),
    st.text(max_size=4), st.binary(max_size=4), st.sampled_from(ODD_SCALARS),
    st.decimals(allow_nan=True, places=2), st.just(object()), st.just(print),
)
garbage = st.recursive(
    st.one_of(scalars, odd_arrays),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=2), inner, max_size=2),
        st.frozensets(st.integers(), max_size=3),
    ),
    max_leaves=6,
)


@st.composite
def equal_length_cases(draw: st.DrawFn) -> tuple[Any, Any]:
    """A plausible (correct, scores) pair, lists or arrays, scores possibly NaN or inf."""
    n = draw(st.integers(0, 6))
    labels = draw(st.lists(st.one_of(st.booleans(), st.sampled_from([0, 1, 2, -1])),
                           min_size=n, max_size=n))
    scores = draw(st.lists(st.one_of(strategies.scores, st.just(math.nan)),
                           min_size=n, max_size=n))
    if draw(st.booleans()):
        return np.array(labels), np.array(scores)
    return labels, scores


@dataclass(frozen=True)
class OtherSpec:
    """An evaluator argument for ``merge`` and ``+``, built inside the test.

    Its tie policy is the target's unless ``same_ties`` is false, so that merges
    succeed often enough to matter.
    """

    cases: tuple[tuple[bool, float], ...]
    misses: int
    same_ties: bool
    read_only: bool

    def build(self, like: ScoredPrecisionRecallEvaluation) -> ScoredPrecisionRecallEvaluation:
        ties = like.ties if self.same_ties else {"insertion": "grouped"}.get(like.ties,
                                                                            "insertion")
        ev = Evaluation(ties=ties)  # type: ignore[arg-type]
        for correct, score in self.cases:
            ev.add_case(correct, score)
        ev.add_misses(self.misses)
        return ev.snapshot() if self.read_only else ev


evaluators = st.builds(
    OtherSpec,
    strategies.cases.map(lambda cs: tuple(cs[:6])),
    strategies.miss_counts,
    st.sampled_from([True, True, True, False]),
    st.booleans(),
)


@dataclass(frozen=True)
class PathSpec:
    """A path argument, made real inside the test's scratch directory."""

    kind: str
    data: Any = None


path_specs = st.one_of(
    st.just(PathSpec("valid")),
    st.builds(PathSpec, st.just("name"), st.text(
        alphabet=st.characters(blacklist_characters="/"), min_size=1, max_size=6)),
    st.builds(PathSpec, st.just("bytes"), st.binary(max_size=120)),
    st.builds(PathSpec, st.just("damaged"), st.tuples(st.integers(0, 10**6), st.integers(1, 255))),
    st.builds(PathSpec, st.just("truncated"), st.integers(0, 10**6)),
    st.builds(PathSpec, st.sampled_from(
        ["missing", "missing-dir", "directory", "trailing-slash", "valid", "file-as-dir"])),
)

PARAMETERS: dict[str, st.SearchStrategy[Any]] = {
    "correct": st.one_of(st.booleans(), st.sampled_from([0, 1, 2, -1])),
    "score": st.one_of(strategies.scores, st.sampled_from(SPECIAL_FLOATS)),
    "count": st.integers(0, 5),
    "scores": st.one_of(strategies.scores, st.lists(strategies.tied_scores, max_size=3)),
    "positives": st.one_of(st.integers(-1, 3), st.lists(st.integers(-1, 3), max_size=3)),
    "negatives": st.one_of(st.integers(-1, 3), st.lists(st.integers(-1, 3), max_size=3)),
    "rank": st.integers(0, 60),
    "beta": st.one_of(st.floats(0.1, 10.0), st.sampled_from(SPECIAL_FLOATS)),
    "interpolate": st.booleans(),
    "other": evaluators,
    "path": path_specs,
    "curve": st.lists(st.lists(st.floats(), min_size=2, max_size=3), max_size=3),
    "file": st.builds(io.StringIO),
    "ties": strategies.ties,
    "window": st.one_of(st.none(), st.integers(-2, 8)),
    "measure": st.sampled_from(["roc_auc", "average_precision", "precision_at", "r_precision",
                                "precision", "recall", "reciprocal_rank", "auc"]),
    "level": st.one_of(st.floats(0.0, 1.0), st.sampled_from(SPECIAL_FLOATS)),
    "method": st.one_of(st.none(), st.sampled_from(["delong", "bootstrap", "wilson", "beta",
                                                    "jeffreys", "logit", "binomial", "x"])),
    "k": st.one_of(st.none(), st.integers(-1, 12)),
    "threshold": st.one_of(st.none(), st.floats(-1.0, 2.0)),
    "resamples": st.integers(-1, 30),
    "seed": st.integers(-1, 5),
    "bins": st.one_of(st.none(), st.integers(-1, 20)),
    "strategy": st.sampled_from(["uniform", "quantile", "x"]),
    "norm": st.sampled_from(["l1", "l2", "max", "x"]),
}


def argument(name: str) -> st.SearchStrategy[Any]:
    """Plausible values for parameter ``name`` half the time, garbage the rest."""
    plausible = PARAMETERS.get(name, st.integers(-2, 8))
    if name == "path":  # garbage paths stay inside the scratch directory
        return st.one_of(plausible, st.one_of(st.none(), st.integers(), st.binary(max_size=3),
                                              st.lists(st.integers(), max_size=2)))
    return st.one_of(plausible, garbage)


@dataclass
class Call:
    """One fuzzed call: ``target`` 0 is the live evaluator, 1 a snapshot of it."""

    target: int
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


@st.composite
def calls(draw: st.DrawFn) -> Call:
    """A call of a public method or operator, arguments fitted to its signature or not."""
    target = draw(st.sampled_from([0, 0, 0, 1]))
    name = draw(st.sampled_from(CALL_NAMES))
    if name in ("+", "==", "!="):
        return Call(target, name, (draw(argument("other")),))
    if name in OPERATORS:
        return Call(target, name, ())
    if name == "add_cases" and draw(st.booleans()):
        labels, scores = draw(equal_length_cases())
        return Call(target, name, (labels, scores))
    params = [p for p in inspect.signature(getattr(Evaluation, name)).parameters.values()
              if p.name != "self"]
    shape = draw(st.sampled_from(["fit", "fit", "fit", "keywords", "extra", "fewer"]))
    values = [draw(argument(p.name)) for p in params]
    if shape == "keywords":
        return Call(target, name, (), {p.name: v for p, v in zip(params, values, strict=True)})
    if shape == "extra":
        return Call(target, name, (*values, draw(garbage)))
    if shape == "fewer" and values:
        return Call(target, name, tuple(values[: draw(st.integers(0, len(values) - 1))]))
    return Call(target, name, tuple(values))


# ------------------------------------------------------------------ harness
@contextlib.contextmanager
def scratch_directory() -> Iterator[Path]:
    """A temporary directory, in RAM when possible: evidence is a save per call."""
    shm = "/dev/shm"
    base = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    with tempfile.TemporaryDirectory(dir=base, prefix="rankeval-fuzz-") as name:
        yield Path(name)


def evidence(ev: ScoredPrecisionRecallEvaluation, scratch: Path) -> tuple[Any, ...]:
    """Everything observable about ``ev``: settings, repr, every derived value, saved bytes."""
    target = scratch / "evidence.rankeval"
    ev.save(target)
    return ev.ties, getattr(ev, "window", None), repr(ev), snapshot(ev), target.read_bytes()


def resolve(value: Any, scratch: Path, ev: ScoredPrecisionRecallEvaluation) -> Any:
    """Turn a PathSpec into a real path under ``scratch``, an OtherSpec into an evaluator."""
    if isinstance(value, OtherSpec):
        return value.build(ev)
    if not isinstance(value, PathSpec):
        return value
    area = scratch / "paths"
    area.mkdir(exist_ok=True)
    kind, data = value.kind, value.data
    if kind == "name":
        return str(area / data)
    if kind in ("bytes", "damaged", "truncated", "valid"):
        path = area / f"file-{kind}"
        if kind == "bytes":
            path.write_bytes(data)
        else:
            ev.save(path)
            raw = bytearray(path.read_bytes())
            if kind == "damaged":
                raw[data[0] % len(raw)] ^= data[1]
            elif kind == "truncated":
                del raw[data % len(raw):]
            path.write_bytes(bytes(raw))
        return path
    if kind == "directory":
        return area
    if kind == "trailing-slash":
        return f"{area / 'fresh'}/"
    if kind == "file-as-dir":
        (area / "plain").write_bytes(b"x")
        return area / "plain" / "inner"
    if kind == "missing-dir":
        return area / "no-such-dir" / "state"
    return area / "no-such-file"


def perform(call: Call, ev: ScoredPrecisionRecallEvaluation, args: tuple[Any, ...],
            kwargs: dict[str, Any]) -> Any:
    """Run ``call`` on ``ev``, sending printed text to a throwaway buffer."""
    if call.name == "+":
        return operator.add(ev, *args)
    if call.name in ("==", "!="):
        result = (operator.eq if call.name == "==" else operator.ne)(ev, *args)
        if not isinstance(args[0], np.ndarray):  # arrays answer elementwise, by NumPy's rules
            assert isinstance(result, bool)
        return result
    if call.name == "str":
        return str(ev)
    if call.name == "repr":
        return repr(ev)
    if call.name == "deepcopy":
        clone = copy.deepcopy(ev)
        assert clone == ev
        return clone
    if call.name == "pickle":
        clone = pickle.loads(pickle.dumps(ev))
        assert clone == ev
        return clone
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        # A deprecated spelling (positional add_counts, betas=) warns and then works: the
        # contract checked here is about errors and state (tests/test_old_paths.py checks
        # the warnings).
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(ev, call.name)(*args, **kwargs)


def allowed(call: Call) -> tuple[type[BaseException], ...]:
    """The documented exceptions of ``call``."""
    if call.name in ("save", "load"):
        return (TypeError, ValueError, OSError)
    return (TypeError, ValueError)


def run_session(ties: str, window: int | None, cases: list[tuple[bool, float]],
                session: list[Call]) -> None:
    """Apply ``session`` and check the contract after every call."""
    ev = Evaluation(ties=ties, window=window) if window else Evaluation(ties=ties)  # type: ignore[arg-type]
    for correct, score in cases:
        ev.add_case(correct, score)
    targets = [ev, ev.snapshot()]
    with scratch_directory() as scratch:
        before = [evidence(t, scratch) for t in targets]
        for call in session:
            target = targets[call.target]
            args = tuple(resolve(a, scratch, target) for a in call.args)
            kwargs = {k: resolve(v, scratch, target) for k, v in call.kwargs.items()}
            try:
                result = perform(call, target, args, kwargs)
            except allowed(call):
                after = evidence(target, scratch)
                assert same(after, before[call.target]), f"rejected {call} changed the evaluator"
                continue
            if isinstance(result, Evaluation):
                evidence(result, scratch)  # any evaluator a call returns is fully readable
            after = evidence(target, scratch)
            if call.name in MUTATORS:
                assert call.target == 0, f"read-only snapshot accepted {call}"
                before[call.target] = after
                store_check = getattr(target._store, "_check", None)
                if store_check is not None:
                    store_check()
            else:
                assert same(after, before[call.target]), f"read {call} changed the evaluator"
        # The snapshot never follows the live evaluator's later changes.
        assert same(evidence(targets[1], scratch), before[1])


# -------------------------------------------------------------------- tests
def test_every_public_method_is_classified() -> None:
    """Every public method is known as a mutator or a read, so the fuzz checks the right thing."""
    unclassified = set(PUBLIC) - MUTATORS - READS
    assert not unclassified, f"classify {sorted(unclassified)} in MUTATORS or READS"


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ties=strategies.ties, cases=strategies.cases.map(lambda cs: cs[:10]),
       session=st.lists(calls(), min_size=1, max_size=12))
def test_garbage_never_escapes_or_changes_state(ties: str, cases: list[tuple[bool, float]],
                                                session: list[Call]) -> None:
    """Random calls raise only documented errors and leave the evaluator intact when rejected."""
    run_session(ties, None, cases, session)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=st.integers(1, 6), ties=strategies.ties,
       cases=strategies.cases.map(lambda cs: cs[:10]),
       session=st.lists(calls(), min_size=1, max_size=8))
def test_garbage_on_a_windowed_evaluator(window: int, ties: str,
                                         cases: list[tuple[bool, float]],
                                         session: list[Call]) -> None:
    """The same contract holds for a sliding-window evaluator."""
    run_session(ties, window, cases, session)


@settings(max_examples=300, deadline=None)
@given(args=st.lists(st.one_of(argument("ties"), argument("window")), max_size=3),
       kwargs=st.dictionaries(st.sampled_from(["ties", "window", "bogus"]), garbage, max_size=2))
def test_constructor_rejects_garbage(args: list[Any], kwargs: dict[str, Any]) -> None:
    """The constructor raises only TypeError or ValueError, and what it builds is readable."""
    try:
        ev = Evaluation(*args, **kwargs)
    except (TypeError, ValueError):
        return
    snapshot(ev)


@settings(max_examples=200, deadline=None)
@given(blob=st.binary(max_size=400), keep_header=st.integers(0, 200))
def test_load_of_random_bytes_is_a_persistence_error(blob: bytes, keep_header: int) -> None:
    """Random bytes, alone or after the start of a real file, load as PersistenceError only."""
    with scratch_directory() as scratch:
        real = scratch / "real"
        ev = Evaluation()
        ev.add_cases([True, False, True], [0.5, 0.25, 0.5])
        ev.save(real)
        path = scratch / "blob"
        path.write_bytes(real.read_bytes()[:keep_header] + blob)
        with pytest.raises(PersistenceError, match="blob"):
            Evaluation.load(path)


# ------------------------------------------------ gaps found by fuzzing, now closed
@pytest.mark.parametrize("method", ["add_misses", "add_negative_misses"])
def test_astronomical_counts_are_refused_or_readable(method: str) -> None:
    """A miss count beyond the double range is refused, or every read still works."""
    ev = Evaluation()
    ev.add_cases([True, False], [1.0, 0.0])
    try:
        getattr(ev, method)(10**400)
    except (TypeError, ValueError):
        return
    snapshot(ev)


def test_huge_beta_is_a_value_error() -> None:
    """maximum_f_measure(10**400) raises ValueError, like any other non-finite beta."""
    with pytest.raises(ValueError, match="beta"):
        Evaluation().maximum_f_measure(10**400)


@pytest.mark.parametrize("file", [5, object(), "out.txt"])
def test_printing_to_a_non_file_is_a_type_error(file: Any) -> None:
    """Printing a curve to something without ``write`` raises TypeError."""
    with pytest.raises(TypeError):
        Evaluation.print_precision_recall_curve([[0.5, 0.5]], file=file)


@pytest.mark.parametrize("method", ["add_case", "add_cases_list", "add_cases_array"])
def test_scores_beyond_the_double_range_are_value_errors(method: str) -> None:
    """A finite score a double cannot hold is refused, as a huge int already is."""
    score = np.longdouble("1e4000")
    ev = Evaluation()
    add = {
        "add_case": lambda: ev.add_case(True, score),
        "add_cases_list": lambda: ev.add_cases([True], [score]),
        "add_cases_array": lambda: ev.add_cases([True], np.array([score])),
    }[method]
    with pytest.raises(ValueError, match="double"):
        add()
    assert ev.num_cases() == 0


@pytest.mark.parametrize("curve", [[[10**400, 0.5]], np.array([[0.5 + 1j, 0.5]]),
                                   np.array([[np.longdouble("1e4000"), 0.5]], dtype=np.longdouble)],
                         ids=["huge-int", "complex", "long-double"])
def test_printing_a_curve_a_double_cannot_hold_is_refused(curve: Any) -> None:
    """Printing a curve holding a number a double cannot represent raises TypeError/ValueError."""
    with pytest.raises((TypeError, ValueError)):
        Evaluation.print_precision_recall_curve(curve, file=io.StringIO())
