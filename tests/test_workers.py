"""``workers=``: blocks of queries evaluated in forked processes give one worker's bytes, and a
failure or an interrupt leaves no worker running and raises once.

The measure names and options are drawn from the whole surface: every trec_eval measure of
the catalogue bare and with parameters (``benchmarks/trec_differential.py``'s sweep), every
ir_measures spelling of the registry, every option of ``evaluate_run`` with each of its
values.
"""

from __future__ import annotations

import dataclasses
import inspect
import io
import os
import random
import signal
import sys
import threading
import time
import typing
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rankeval import workers as workers_module
from rankeval.ranking import evaluate_run, registry, trec_cli
from rankeval.ranking import options as options_module
from rankeval.ranking import parallel as parallel_module
from rankeval.workers import WorkerError, can_fork, forked_map, split_evenly, workers_for

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import trec_differential  # noqa: E402

TREC_SPECS = trec_differential.all_specs(random.Random(7))
IR_SPECS = sorted({name + ("@3" if ir.cutoff in ("required", "optional:msmarco", "optional:own")
                           else "@0.5" if ir.cutoff == "recall" else "")
                   for measure in registry.MEASURES for ir in measure.ir
                   for name in (ir.name, *ir.aliases)})


#: The interpreter's own count of threads (the fixture below stands in for it).
THREADS = threading.active_count


@pytest.fixture(autouse=True)
def _forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test here must really fork. Earlier tests of the suite leave threads running
    (Spark's gateway, Dask's pools), which would make every call one worker unseen: here the
    count of threads reads 1 (the children run only our code, which takes no lock another
    thread may hold). ``test_the_blocks_really_ran_in_other_processes`` checks a fork."""
    monkeypatch.setattr(workers_module.threading, "active_count", lambda: 1)
    assert can_fork()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


# -- forked_map --------------------------------------------------------------------------------


def test_results_come_back_in_order() -> None:
    assert forked_map(lambda k: (k, os.getpid()), 3)[1][0] == 1
    pids = {pid for _, pid in forked_map(lambda k: (k, os.getpid()), 3)}
    assert len(pids) == 3
    assert os.getpid() not in pids


def test_a_childs_exception_is_raised_once_as_raised_and_no_child_is_left(tmp_path: Path
                                                                          ) -> None:
    def task(k: int) -> int:
        (tmp_path / f"pid{k}").write_text(str(os.getpid()))
        if k == 1:
            raise KeyError("block 1 went wrong")
        time.sleep(60)
        return k

    started = time.monotonic()
    with pytest.raises(KeyError, match="block 1 went wrong"):
        forked_map(task, 3)
    assert time.monotonic() - started < 30  # the sleepers were killed, not waited for
    pids = [int((tmp_path / f"pid{k}").read_text()) for k in range(3)
            if (tmp_path / f"pid{k}").exists()]
    assert pids
    assert all(_gone(pid) for pid in pids)


def test_a_child_killed_by_a_signal_is_a_worker_error() -> None:
    def task(k: int) -> int:
        if k == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        return k

    with pytest.raises(WorkerError, match="worker 0 was killed by signal 9 \\(SIGKILL\\)"):
        forked_map(task, 2)


def test_an_exception_that_does_not_pickle_still_arrives() -> None:
    class LocalError(Exception):  # a local class does not pickle
        pass

    def task(k: int) -> int:
        raise LocalError("not picklable")

    with pytest.raises(WorkerError, match="LocalError: not picklable"):
        forked_map(task, 1)


def test_an_interrupt_kills_every_child_and_raises_once(tmp_path: Path) -> None:
    def task(k: int) -> int:
        (tmp_path / f"pid{k}").write_text(str(os.getpid()))
        time.sleep(60)
        return k

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        with pytest.raises(KeyboardInterrupt):
            forked_map(task, 2)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    pids = [int((tmp_path / f"pid{k}").read_text()) for k in range(2)]
    assert all(_gone(pid) for pid in pids)


def test_children_ignore_the_terminals_interrupt() -> None:
    """Ctrl-C reaches the whole process group; the parent alone decides."""
    def task(k: int) -> str:
        os.kill(os.getpid(), signal.SIGINT)
        return "finished"

    assert forked_map(task, 2) == ["finished", "finished"]


def test_blocks_split_by_weight() -> None:
    assert split_evenly(np.array([5, 1, 1, 1, 1, 1]), 2).tolist() == [0, 1, 1, 1, 1, 1]
    assert split_evenly(np.array([1] * 8), 4).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert split_evenly(np.array([100, 1, 1]), 3).tolist() == [1, 2, 2]  # 0 left empty


def test_the_worker_count_rules() -> None:
    cpus = workers_module.available_cpus()
    assert workers_for(None, 10, minimum=100) == 1  # too small to fork
    assert workers_for(None, 10**12, minimum=100) == cpus
    assert workers_for(3, 0, minimum=100) == min(3, 4 * cpus)
    assert workers_for(10**6, 0, minimum=100) == 4 * cpus
    for bad, kind in ((0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError),
                      ("2", TypeError)):
        with pytest.raises(kind, match="workers must be a positive integer or None"):
            workers_for(bad, 1, minimum=1)  # type: ignore[arg-type]
        with pytest.raises(kind, match="workers must be a positive integer or None"):
            evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, "map", workers=bad)  # type: ignore[arg-type]


def test_with_another_thread_running_one_worker_evaluates(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(workers_module.threading, "active_count", lambda: 2)
    assert not can_fork()
    monkeypatch.setattr(parallel_module, "forked_map", _no_fork)
    queries = [f"q{i}" for i in range(4)]  # enough for blocks: only the thread keeps one
    report = evaluate_run({q: {"a": 1} for q in queries}, {q: {"a": 1.0} for q in queries},
                          "map", workers=2)
    assert report["map"] == 1.0


def _no_fork(*args: Any) -> Any:
    raise AssertionError("forked although a thread runs")


# -- evaluate_run: the bytes of one worker -----------------------------------------------------

OPTION_VALUES: dict[str, list[Any]] = {
    "profile": ["9.0.8-2020", "9.0.8", "10.0", "trec_eval9", "trec_eval10"],
    "relevance_level": [-1, 0, 1, 2],
    "complete": [False, True],
    "max_docs": [None, 0, 2],
    "judged_only": [False, True],
    "ties": ["docid_desc", "docid_asc", "input", "average"],
    "score_precision": [None, "float32", "double"],
    "iprec_rule": [None, "trec9", "lround", "ceil", "lingpipe"],
    "ap_denominator": ["relevant", "retrieved", "min_k_r"],
    "precision_denominator": ["k", "retrieved"],
    "capped_recall": [False, True],
    "gain": ["linear", "exp"],
    "discount": ["log2", "jk2002"],
    "ideal": ["judged", "retrieved"],
    "no_relevant": ["zero", "skip"],
    "num_docs": [0, 50],
    "first_params_win": [False, True],
    "trec_quirks": [True, False],
}


def test_the_option_values_are_every_value() -> None:
    """The table above is the whole surface: every keyword, every value of its literal."""
    fields = {f.name: f for f in dataclasses.fields(options_module.RunOptions)}
    assert set(OPTION_VALUES) == set(fields)
    hints = typing.get_type_hints(options_module.RunOptions)
    for name, values in OPTION_VALUES.items():
        literals = [a for a in typing.get_args(hints[name]) if a is not type(None)]
        choices = {v for a in literals for v in typing.get_args(a)} or set(
            typing.get_args(hints[name]))
        if choices and all(isinstance(c, str) for c in choices):
            assert choices <= set(values), name
        assert fields[name].default in values, name
    assert inspect.signature(evaluate_run).parameters["workers"].default == 1


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels and a run over a few queries: tied scores, unjudged (-1) and graded documents,
    queries only judged, only retrieved, and listed without any document."""
    queries = draw(st.lists(st.sampled_from([f"q{i}" for i in range(12)]), min_size=1,
                            max_size=12, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in queries:
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(15)]), max_size=10,
                             unique=True))
        kind = draw(st.sampled_from(["both", "both", "both", "judged", "retrieved", "empty"]))
        if kind in ("both", "judged") and docs:
            qrels[q] = {d: draw(st.integers(-1, 3)) for d in docs[: max(1, len(docs) - 2)]}
        if kind in ("both", "retrieved"):
            run[q] = {d: float(draw(st.integers(0, 3))) for d in docs[1:]}
        if kind == "empty":
            run[q] = {}
    if not qrels:
        qrels["q0"] = {"d0": 1}
    return qrels, run


def _outcome(qrels: Any, run: Any, measures: list[str], options: dict[str, Any],
             workers: int) -> tuple[str, ...]:
    try:
        report = evaluate_run(qrels, run, measures, workers=workers, **options)
    except (ValueError, TypeError) as problem:
        return ("error", type(problem).__name__, str(problem))
    values = tuple(f"{name}={report.aggregates[name].hex()}" for name in report.aggregates)
    per_query = tuple(f"{name}:{np.asarray(report.values[name]).tobytes().hex()}"
                      for name in report.values)
    return (report.to_text(per_query=True), *values, *per_query, repr(report.queries),
            repr(report.texts))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(),
       st.lists(st.sampled_from(TREC_SPECS) | st.sampled_from(IR_SPECS), min_size=1,
                max_size=4),
       st.fixed_dictionaries({}, optional={name: st.sampled_from(values)
                                           for name, values in OPTION_VALUES.items()}))
@example(({"q1": {"a": 1, "b": 0}, "q2": {"a": 2}}, {"q1": {"a": 1.0, "b": 1.0}, "q3": {}}),
         ["map", "relstring", "num_q", "gm_map"], {"complete": True})
@example(({"q1": {"a": 1}}, {"q2": {"a": 1.0}}), ["map"], {"profile": "10.0", "complete": True})
@example(({"q1": {"a": 1}}, {"q2": {"a": 1.0}}), ["map"], {})  # no shared query
def test_workers_give_one_workers_bytes(collection: tuple[dict, dict], measures: list[str],
                                         options: dict[str, Any]) -> None:
    qrels, run = collection
    one = _outcome(qrels, run, measures, options, 1)
    assert _outcome(qrels, run, measures, options, 2) == one
    assert _outcome(qrels, run, measures, options, 4) == one


def test_the_blocks_really_ran_in_other_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = parallel_module.forked_map

    def spy(task: Any, count: int) -> Any:
        seen.append(count)
        return real(task, count)

    monkeypatch.setattr(parallel_module, "forked_map", spy)
    qrels = {f"q{i}": {"a": 1, "b": 0} for i in range(8)}
    run = {f"q{i}": {"a": 0.5, "b": 0.7, "c": 0.1} for i in range(8)}
    evaluate_run(qrels, run, "map", workers=4)
    assert seen == [4]


def test_a_measure_a_block_refuses_is_one_workers_error() -> None:
    qrels = {f"q{i}": {"a": 1} for i in range(4)}
    run = {f"q{i}": {"a": 1.0} for i in range(4)}
    with pytest.raises(ValueError, match="unknown measure") as one:
        evaluate_run(qrels, run, "no_such_measure", workers=1)
    with pytest.raises(ValueError, match="unknown measure") as two:
        evaluate_run(qrels, run, "no_such_measure", workers=2)
    assert str(one.value) == str(two.value)


def test_query_weights_apply_to_the_merged_report() -> None:
    qrels = {f"q{i}": {"a": 1, "b": i % 2} for i in range(6)}
    run = {f"q{i}": {"a": 0.1 * i, "b": 0.5} for i in range(6)}
    weights = {f"q{i}": float(i + 1) for i in range(6)}
    one = evaluate_run(qrels, run, ["map", "P.2"], query_weights=weights, workers=1)
    two = evaluate_run(qrels, run, ["map", "P.2"], query_weights=weights, workers=3)
    assert one.to_text(per_query=True) == two.to_text(per_query=True)
    assert one.aggregates == two.aggregates


# -- rankeval trec --workers -------------------------------------------------------------------

@st.composite
def trec_files(draw: st.DrawFn) -> tuple[str, str]:
    """A qrels and a run file: tied scores, duplicate lines, a query only judged."""
    qrels_lines, run_lines = [], []
    for q in range(draw(st.integers(1, 6))):
        docs = draw(st.lists(st.integers(0, 12), max_size=8, unique=True))
        for d in docs[:5]:
            qrels_lines.append(f"{q} 0 D{d} {draw(st.integers(-1, 2))}")
        for rank, d in enumerate(docs[1:]):
            run_lines.append(f"{q} Q0 D{d} {rank} {draw(st.integers(0, 3))} r")
    if run_lines and draw(st.booleans()):  # a line given twice
        run_lines.append(draw(st.sampled_from(run_lines)))
    if qrels_lines and draw(st.booleans()):
        qrels_lines.append(draw(st.sampled_from(qrels_lines)))
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = trec_cli.main(args)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(trec_files(), st.lists(st.sampled_from(TREC_SPECS), min_size=1, max_size=3),
       st.sampled_from([[], ["-q"], ["-q", "-c"], ["-J", "-q"], ["--profile", "10.0", "-c"],
                        ["-M", "2", "-q"], ["-l", "2", "-n", "-q"]]))
def test_trec_workers_print_one_workers_bytes(tmp_path: Path, files: tuple[str, str],
                                              measures: list[str], flags: list[str]) -> None:
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text(files[0])
    run_path.write_text(files[1])
    args = [*flags, *[a for m in measures for a in ("-m", m)], str(qrels_path), str(run_path)]
    one = _cli(args)
    assert _cli(["--workers", "2", *args]) == one
    assert _cli(["--workers", "4", *args]) == one


def test_the_progress_bar_starts_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal ``rankeval trec`` evaluates inside its progress bar: a monitor thread
    there would turn ``--workers`` into one worker."""
    from rankeval import terminal

    monkeypatch.setattr(terminal, "_isatty", lambda stream: True)
    before = THREADS()
    with terminal.progress_bar("reading", 100) as bar:
        bar.update(10)
        assert THREADS() == before


def test_trec_refuses_a_worker_count_that_is_not_positive(tmp_path: Path) -> None:
    code, _, err = _cli(["--workers", "0", "q", "r"])
    assert code == 2
    assert err.endswith("rankeval: error: --workers expects a positive integer, found '0'\n")
    code, _, err = _cli(["--workers", "two", "q", "r"])
    assert code == 2
    assert "--workers expects an integer, found 'two'" in err
