"""SegmentedEvaluation under attack: saves stopped at every write (by an error and by a kill),
crafted indexes, keys that NumPy would change, failed merges. Each case failed before its
fix."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import PersistenceError, ScoredPrecisionRecallEvaluation
from rankeval.scored.segments import SegmentedEvaluation

ROOT = Path(__file__).resolve().parent.parent


def _factory() -> ScoredPrecisionRecallEvaluation:
    return ScoredPrecisionRecallEvaluation(ties="grouped")


def _state(which: str) -> SegmentedEvaluation:
    """State "old" and state "new": different keys (one dropped, one added) and cases."""
    seg = SegmentedEvaluation(_factory)
    rng = np.random.default_rng(0 if which == "old" else 1)
    keys: list[Any] = (["a", "b", 3, ("t", 1)] if which == "old" else ["b", "a", "c", ("t", 1)])
    for key in keys:
        n = int(rng.integers(2, 9))
        seg.add_cases([key] * n, rng.random(n) < 0.5, rng.random(n).round(2))
    return seg


def _as_data(seg: SegmentedEvaluation) -> dict[Any, Any]:
    return {key: (ev.num_cases(), ev.roc_curve().tolist()) for key, ev in seg.items()}


# The calls that change what is on disk: a kill or an error may strike before any of them.
_WRITES = ("replace", "rename", "remove", "unlink", "fsync", "makedirs", "mkdir")


@contextmanager
def _stop_at(point: int, stop: Callable[[], None]) -> Iterator[list[int]]:
    """Call ``stop`` instead of the ``point``-th write (counting from 0); yields the count."""
    count = [0]
    originals = {name: getattr(os, name) for name in _WRITES}

    def wrap(name: str) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if count[0] == point:
                stop()
            count[0] += 1
            return originals[name](*args, **kwargs)
        return wrapped

    for name in _WRITES:
        setattr(os, name, wrap(name))
    try:
        yield count
    finally:
        for name, original in originals.items():
            setattr(os, name, original)


class _StoppedError(Exception):
    pass


def _raise() -> None:
    raise _StoppedError


def _writes_in_a_save(tmp: Path) -> int:
    _state("old").save(tmp / "count")
    new = _state("new")
    with _stop_at(-1, _raise) as count:
        new.save(tmp / "count")
    return count[0]


def test_a_save_stopped_by_an_error_at_every_write_leaves_old_or_new(tmp_path: Path) -> None:
    old, new = _as_data(_state("old")), _as_data(_state("new"))
    assert old != new
    writes = _writes_in_a_save(tmp_path)
    assert writes >= 10  # 4 segments, an index, the removals: enough points to mean something
    seen = set()
    for point in range(writes + 1):
        folder = tmp_path / f"at-{point}"
        _state("old").save(folder)
        stopped = pytest.raises(_StoppedError) if point < writes else _nothing()
        with _stop_at(point, _raise), stopped:
            _state("new").save(folder)
        got = _as_data(SegmentedEvaluation.load(folder, _factory))
        assert got in (old, new), f"stopped at write {point}: neither the old nor the new state"
        seen.add("old" if got == old else "new")
    assert seen == {"old", "new"}


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _child(folder: str, point: int) -> None:
    """Run in a child process: save the new state over the old, killed at write ``point``."""
    with _stop_at(point, lambda: os._exit(9)):
        _state("new").save(folder)


@pytest.mark.slow
def test_a_save_killed_at_every_write_leaves_old_or_new(tmp_path: Path) -> None:
    old, new = _as_data(_state("old")), _as_data(_state("new"))
    writes = _writes_in_a_save(tmp_path)
    for point in range(writes + 1):
        folder = tmp_path / f"at-{point}"
        _state("old").save(folder)
        code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
                f"from tests.test_segments_hostile import _child; _child({str(folder)!r}, {point})")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                              check=False)
        assert done.returncode == (9 if point < writes else 0), done.stderr.decode()
        got = _as_data(SegmentedEvaluation.load(folder, _factory))
        assert got in (old, new), f"killed at write {point}: neither the old nor the new state"


def test_a_reader_during_saves_reads_old_or_new(tmp_path: Path) -> None:
    import threading

    old, new = _as_data(_state("old")), _as_data(_state("new"))
    states = [_state("old"), _state("new")]
    states[0].save(tmp_path)
    stop = threading.Event()
    failures: list[BaseException] = []

    def writer() -> None:
        try:
            for i in range(40):
                states[i % 2].save(tmp_path)
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)
        finally:
            stop.set()

    thread = threading.Thread(target=writer)
    thread.start()
    reads = 0
    while not stop.is_set() or reads == 0:
        assert _as_data(SegmentedEvaluation.load(tmp_path, _factory)) in (old, new)
        reads += 1
    thread.join()
    assert not failures
    # Nothing of earlier saves is left: one file a segment, and the index.
    assert len(os.listdir(tmp_path)) == len(states[1]) + 1


def test_a_key_that_cannot_be_saved_is_refused_before_any_write(tmp_path: Path) -> None:
    seg = _state("old")
    seg.save(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    seg.add_case(frozenset({1}), True, 0.5)
    with pytest.raises(TypeError, match="frozenset; nothing was written"):
        seg.save(tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


# ------------------------------------------------------------------ crafted indexes
def _index(tmp_path: Path, document: Any) -> Path:
    _state("old").save(tmp_path)
    path = tmp_path / "segments.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def _saved_entries(tmp_path: Path) -> list[dict[str, Any]]:
    _state("old").save(tmp_path)
    entries: list[dict[str, Any]] = json.loads((tmp_path / "segments.json").read_text())[
        "segments"]
    return entries


def _crafted(tmp_path: Path, change: Callable[[list[dict[str, Any]]], Any]) -> None:
    entries = _saved_entries(tmp_path)
    document = {"format": "rankeval segments", "version": 1, "segments": entries}
    result = change(entries)
    if result is not None:
        document = result
    (tmp_path / "segments.json").write_text(json.dumps(document))


CRAFTED: dict[str, tuple[Callable[[list[dict[str, Any]]], Any], str]] = {
    "duplicate keys": (lambda e: e.__setitem__(1, {**e[1], "key": e[0]["key"]}),
                       "the same key"),
    "one file for two keys": (lambda e: e.__setitem__(1, {**e[1], "file": e[0]["file"]}),
                              "named for two keys"),
    "a tuple of text": (lambda e: e.__setitem__(0, {**e[0], "key": {"tuple": "abc"}}),
                        "unknown segment key"),
    "version true": (lambda e: {"format": "rankeval segments", "version": True,
                                "segments": e}, "version True is not 1"),
    "segments not a list": (lambda e: {"format": "rankeval segments", "version": 1,
                                       "segments": {"a": 1}}, "not a list"),
    "a file outside": (lambda e: e.__setitem__(0, {**e[0], "file": "../x.rankeval"}),
                       "not a segment file"),
    "an extra field": (lambda e: e.__setitem__(0, {**e[0], "extra": 1}), "entry 0"),
    "an int key that is not a number": (
        lambda e: e.__setitem__(0, {**e[0], "key": {"int": "1e9999"}}), "unknown segment key"),
    "a NaN key": (lambda e: e.__setitem__(0, {**e[0], "key": {"float": "nan"}}), "NaN"),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_index_is_refused_naming_the_file(tmp_path: Path, name: str) -> None:
    change, message = CRAFTED[name]
    _crafted(tmp_path, change)
    with pytest.raises(PersistenceError, match=message) as caught:
        SegmentedEvaluation.load(tmp_path, _factory)
    assert caught.value.path == str(tmp_path / "segments.json")


def test_a_deeply_nested_index_is_refused(tmp_path: Path) -> None:
    _index(tmp_path, "[" * 100_000 + "]" * 100_000)
    with pytest.raises(PersistenceError, match=r"segments.json.*(nested too deeply|malformed)"):
        SegmentedEvaluation.load(tmp_path, _factory)
    key: Any = "x"
    for _ in range(40):
        key = {"tuple": [key]}
    _crafted(tmp_path, lambda e: e.__setitem__(0, {**e[0], "key": key}))
    with pytest.raises(PersistenceError, match="nests tuples more than 32 deep"):
        SegmentedEvaluation.load(tmp_path, _factory)


def test_a_fifo_index_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "segments.json")
    with pytest.raises(PersistenceError, match="not a regular file"):
        SegmentedEvaluation.load(tmp_path, _factory)


def test_a_fifo_or_missing_segment_file_is_refused_naming_it(tmp_path: Path) -> None:
    entries = _saved_entries(tmp_path)
    victim = tmp_path / entries[1]["file"]
    victim.unlink()
    with pytest.raises(PersistenceError, match="cannot read it") as caught:
        SegmentedEvaluation.load(tmp_path, _factory)
    assert caught.value.path == str(victim)
    os.mkfifo(victim)
    with pytest.raises(PersistenceError, match="not a regular file"):
        SegmentedEvaluation.load(tmp_path, _factory)


def test_datetime_and_numpy_keys_round_trip(tmp_path: Path) -> None:
    seg = SegmentedEvaluation(_factory)
    days = np.array(["2024-01-01", "2024-01-02", "2024-01-01"], dtype="datetime64[D]")
    seg.add_cases(days, [True, False, False], [0.3, 0.2, 0.1])
    seg.add_case(np.int64(5), True, 0.5)
    seg.add_case(("x\x00", 2.5, None, True), False, 0.5)
    seg.save(tmp_path)
    back = SegmentedEvaluation.load(tmp_path, _factory)
    assert list(back) == list(seg)
    assert [type(k) for k in back][:2] == [np.datetime64, np.datetime64]
    for key in seg:
        assert back[key] == seg[key]


# ------------------------------------------------------------------ keys keep their identity
def test_keys_keep_their_identity() -> None:
    cases = [True, False, True, False]
    scores = [0.9, 0.8, 0.7, 0.6]
    for keys, expected in [
        ((1, "1", 1, "1"), [1, "1"]),
        (["a\x00", "a", "a\x00", "a"], ["a\x00", "a"]),
        (np.array(["2024-01-01", "2024-01-02"] * 2, dtype="datetime64[ns]"),
         [np.datetime64("2024-01-01", "ns"), np.datetime64("2024-01-02", "ns")]),
        (np.array([("a", 1), ("a", 2), ("a", 1), ("a", 2)], dtype=object)[:, 0], ["a"]),
    ]:
        seg = SegmentedEvaluation(_factory)
        seg.add_cases(keys, cases, scores)
        assert list(seg) == expected, keys
        assert [type(k) for k in seg] == [type(k) for k in expected]
    seg = SegmentedEvaluation(_factory)
    with pytest.raises(TypeError, match="one key per case, got one str"):
        seg.add_cases("abcd", cases, scores)
    with pytest.raises(ValueError, match="NaT"):
        seg.add_cases(np.array(["NaT", "2024-01-01"] * 2, dtype="datetime64[s]"), cases, scores)
    with pytest.raises(ValueError, match="tuple holding NaN"):
        seg.add_cases([("a", float("nan"))] * 4, cases, scores)
    with pytest.raises(ValueError, match="tuple holding NaN"):
        seg.add_case(("a", float("nan")), True, 0.5)
    assert len(seg) == 0


KEYS = st.one_of(
    st.integers(-3, 3), st.booleans(), st.sampled_from(["a", "a\x00", "1", "", "\x00"]),
    st.floats(-2, 2).map(lambda x: round(x, 1)), st.none(),
    st.tuples(st.sampled_from([1, "1", 1.5]), st.sampled_from(["x", "x\x00", 0])),
    st.sampled_from([np.datetime64("2024-01-01"), datetime.date(2024, 1, 1)]),
)


@settings(max_examples=150, deadline=None)
@given(keys=st.lists(KEYS, min_size=1, max_size=30),
       form=st.sampled_from(["list", "tuple", "object array"]), data=st.data())
def test_add_cases_groups_as_a_dict_of_the_keys_would(keys: list[Any], form: str,
                                                      data: st.DataObject) -> None:
    """Whatever the container, each case lands in the segment that ``add_case`` of its own key
    gives (Python's dict equality: 1, 1.0 and True are one key)."""
    n = len(keys)
    labels = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    scores = data.draw(st.lists(st.sampled_from([0.1, 0.5, 0.9]), min_size=n, max_size=n))
    given_keys: Any = {"list": list, "tuple": tuple,
                       "object array": lambda k: np.array([*k, object()], dtype=object)[:-1]
                       }[form](keys)
    bulk = SegmentedEvaluation(_factory)
    bulk.add_cases(given_keys, labels, scores)
    one = SegmentedEvaluation(_factory)
    for key, label, score in zip(keys, labels, scores, strict=True):
        one.add_case(key, label, score)
    assert list(bulk) == list(one)
    assert [type(k) for k in bulk] == [type(k) for k in one]
    for key in one:
        assert bulk[key] == one[key]


def test_a_failed_merge_changes_nothing() -> None:
    ours = _state("old")
    before = _as_data(ours)
    theirs = SegmentedEvaluation(lambda: ScoredPrecisionRecallEvaluation(ties="insertion"))
    theirs.add_cases(["zz", "a"], [True, False], [0.2, 0.1])
    with pytest.raises(ValueError, match="cannot merge"):
        ours.merge(theirs)
    assert _as_data(ours) == before
    assert "zz" not in ours
