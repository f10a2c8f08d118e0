"""The saved-state file format: round trips, the documented layout, and every way a file can be bad.

Round trips are hypothesis properties over random states; damage (truncation at
every offset, every byte flipped, foreign files, forged files with a valid
checksum but broken content) must always raise :class:`PersistenceError` naming
the file, never return a state.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import struct
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankeval.scored.state_file import (
    MAGIC,
    TEMP_SUFFIX,
    EvaluatorState,
    PersistenceError,
    load_state,
    save_state,
    state_from_bytes,
)
from tests import strategies

HEADER = struct.Struct("<8sIIQQQQ")  # versions 1 and 2 (rankeval 0.2 and earlier)
CONTAINER = struct.Struct("<8sIQ")  # version 3: the container (magic, version, M)


@st.composite
def states(draw: st.DrawFn) -> EvaluatorState:
    """A valid state as an evaluator would hold it: cases sorted stably by -score."""
    cases = draw(st.lists(st.tuples(st.booleans(), strategies.scores), max_size=30))
    n = len(cases)
    kind = draw(st.sampled_from(["all", "window", "time"]))
    windowed = kind != "all"
    first_age = draw(st.integers(0, 2**40)) if windowed else 0
    next_age = first_age + n + draw(st.integers(0, 5))
    keys = -np.array([s for _, s in cases], dtype=np.float64)
    order = np.argsort(keys, kind="stable")
    ages = first_age + np.arange(n, dtype=np.int64)
    big = st.one_of(st.integers(0, 5), st.integers(0, 2**70), st.just(10**5000))
    timed: dict[str, Any] = {}
    if kind == "time":  # times in arrival order, none older than now - horizon
        steps = draw(st.lists(st.sampled_from([0.0, 0.25, 3.0]), min_size=n, max_size=n))
        start = draw(st.sampled_from([-5.5, 0.0, 1.7e9]))
        times = start + np.cumsum(np.array(steps, dtype=np.float64))
        horizon = draw(st.sampled_from([0.5, 10.0, 3600.0]))
        latest = float(times[-1]) if n else start
        timed = {
            "horizon": horizon, "times": times[order],
            "now": draw(st.sampled_from([-np.inf, start - 1.0, start])),
            "last_time": latest + draw(st.sampled_from([0.0, 2.0])),
        }
    return EvaluatorState(
        ties=draw(strategies.ties),
        keys=keys[order],
        labels=np.array([c for c, _ in cases], dtype=np.bool_)[order],
        pos_missed=draw(big),
        neg_missed=draw(big),
        window=n + draw(st.integers(0 if n else 1, 10)) if kind == "window" else None,
        ages=ages[order] if windowed else None,
        next_age=next_age,
        **timed,
    )


def small_state(window: int | None = None) -> EvaluatorState:
    """Three cases with a tie, one miss; windowed if ``window`` is given."""
    return EvaluatorState(
        ties="insertion",
        keys=np.array([-0.9, -0.5, -0.5]),
        labels=np.array([True, False, True]),
        pos_missed=1,
        neg_missed=2,
        window=window,
        ages=None if window is None else np.array([2, 0, 1]),
        next_age=3,
    )


def forge(path: Path, meta: dict[str, Any], keys: bytes, ages: bytes, labels: bytes,
          version: int = 2, flags: int = 0, times: bytes = b"") -> None:
    """Write a file of version 1 or 2 with any content but a correct header and checksum."""
    raw = json.dumps(meta).encode()
    head = HEADER.pack(MAGIC, version, flags, len(raw), len(keys), len(ages), len(labels))
    body = head + raw + keys + ages + times + labels
    path.write_bytes(body + hashlib.sha256(body).digest())


def forge3(path: Path, meta: dict[str, Any], sections: list[bytes]) -> None:
    """Write a file of version 3 (the container) with any metadata and sections, but a
    correct header, section sizes and checksum, as the documented layout says."""
    raw = json.dumps({**meta, "blobs": [len(part) for part in sections]}).encode()
    body = CONTAINER.pack(MAGIC, 3, len(raw)) + raw + b"".join(sections)
    path.write_bytes(body + hashlib.sha256(body).digest())


def good_meta3(**changes: Any) -> dict[str, Any]:
    """Version 3's metadata of :func:`small_state` (no window), with ``changes`` applied."""
    return good_meta(**{"score_dtype": "float64", "weighted": False, **changes})


def good_meta(**changes: Any) -> dict[str, Any]:
    """Metadata of :func:`small_state` (no window), with ``changes`` applied."""
    meta: dict[str, Any] = {"ties": "insertion", "cases": 3, "pos_missed": "1",
                            "neg_missed": "2", "window": None, "next_age": 3}
    meta.update(changes)
    return meta


KEYS = np.array([-0.9, -0.5, -0.5], dtype="<f8").tobytes()
LABELS = bytes([1, 0, 1])
AGES = np.array([2, 0, 1], dtype="<i8").tobytes()
TIMES = np.array([20.0, 10.0, 15.0], dtype="<f8").tobytes()  # by age: 10, 15, 20


def timed_state() -> EvaluatorState:
    """:func:`small_state` as a time window of 30 s: ages 0, 1, 2 at times 10, 15, 20."""
    return EvaluatorState("insertion", np.array([-0.9, -0.5, -0.5]),
                          np.array([True, False, True]), 1, 2, None, np.array([2, 0, 1]), 3,
                          horizon=30.0, times=np.array([20.0, 10.0, 15.0]), now=12.0,
                          last_time=21.0)


def timed_meta(**changes: Any) -> dict[str, Any]:
    """Metadata of :func:`timed_state`, with ``changes`` applied."""
    return good_meta(**{"horizon": 30.0, "now": 12.0, "last_time": 21.0, **changes})


def load_error(path: Path) -> str:
    """Load ``path`` expecting a PersistenceError; return its message."""
    with pytest.raises(PersistenceError) as info:
        load_state(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert info.value.path == str(path)
    return info.value.problem


class TestRoundTrip:
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(state=states())
    def test_random_states_round_trip(self, state: EvaluatorState, tmp_path_factory: Any) -> None:
        """save -> load gives an equal state, keys bit for bit, for random states."""
        path = tmp_path_factory.mktemp("rt") / "state.rankeval"
        save_state(path, state)
        loaded = load_state(path)
        assert loaded == state
        assert loaded.keys.tobytes() == state.keys.tobytes()
        assert type(loaded.pos_missed) is int
        assert type(loaded.next_age) is int
        assert os.listdir(path.parent) == ["state.rankeval"]

    def test_empty_state_round_trips(self, tmp_path: Path) -> None:
        """An evaluator with no case and no miss saves and loads."""
        empty = EvaluatorState("grouped", np.zeros(0), np.zeros(0, dtype=bool), 0, 0, None, None, 0)
        save_state(tmp_path / "e", empty)
        assert load_state(tmp_path / "e") == empty

    def test_saving_twice_gives_identical_bytes(self, tmp_path: Path) -> None:
        """The file is a deterministic function of the state (no timestamps, sorted metadata)."""
        save_state(tmp_path / "a", small_state(window=5))
        save_state(tmp_path / "b", small_state(window=5))
        assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()

    def test_overwrites_and_accepts_str_paths(self, tmp_path: Path) -> None:
        """Saving over an existing file replaces it; str and PathLike paths both work."""
        target = tmp_path / "s"
        save_state(str(target), small_state())
        save_state(target, small_state(window=3))
        assert load_state(str(target)) == small_state(window=3)
        assert os.listdir(tmp_path) == ["s"]

    def test_loaded_arrays_are_fresh_and_typed(self, tmp_path: Path) -> None:
        """Loaded arrays are native float64/bool/int64, writeable, and not views of one buffer."""
        save_state(tmp_path / "s", small_state(window=3))
        loaded = load_state(tmp_path / "s")
        assert loaded.ages is not None
        assert (loaded.keys.dtype, loaded.labels.dtype, loaded.ages.dtype) == (
            np.float64, np.bool_, np.int64)
        assert not np.shares_memory(loaded.keys, loaded.ages)
        assert loaded.keys.flags.writeable
        assert loaded.keys.flags.c_contiguous

    def test_state_equality_is_exact(self) -> None:
        """States differ when any field differs, including -0.0 against 0.0."""
        a = EvaluatorState("insertion", np.array([0.0]), np.array([True]), 0, 0, None, None, 1)
        b = EvaluatorState("insertion", np.array([-0.0]), np.array([True]), 0, 0, None, None, 1)
        same = EvaluatorState("insertion", np.array([0.0]), np.array([True]), 0, 0, None, None,
                              1)
        assert a == same  # equal fields, other arrays
        assert a != b
        assert a != "state"
        assert small_state() != small_state(window=3)


class TestLayout:
    def read3(self, path: Path) -> tuple[dict[str, Any], list[bytes]]:
        """An independent reader of version 3 (struct, json, hashlib), as documented."""
        data = path.read_bytes()
        magic, version, m = CONTAINER.unpack_from(data)
        assert (magic, version) == (b"\x89RKV\r\n\x1a\n", 3)
        assert (20 + m) % 8 == 0  # the sections start aligned
        meta = json.loads(data[20 : 20 + m])
        sizes = meta.pop("blobs")
        assert len(data) == 20 + m + sum(sizes) + 32
        assert data[-32:] == hashlib.sha256(data[:-32]).digest()
        at, sections = 20 + m, []
        for size in sizes:
            sections.append(data[at : at + size])
            at += size
        return meta, sections

    def test_file_matches_the_documented_layout(self, tmp_path: Path) -> None:
        """A window: the container's header, metadata and sections keys, ages, labels."""
        save_state(tmp_path / "s", small_state(window=4))
        meta, sections = self.read3(tmp_path / "s")
        assert meta == {"ties": "insertion", "cases": 3, "pos_missed": "1", "neg_missed": "2",
                        "window": 4, "next_age": 3, "score_dtype": "float64",
                        "weighted": False}
        assert np.frombuffer(sections[0], "<f8").tolist() == [-0.9, -0.5, -0.5]
        assert np.frombuffer(sections[1], "<i8").tolist() == [2, 0, 1]
        assert list(sections[2]) == [1, 0, 1]
        assert len(sections) == 3

    def test_time_window_file_has_times_after_the_ages(self, tmp_path: Path) -> None:
        save_state(tmp_path / "s", timed_state())
        meta, sections = self.read3(tmp_path / "s")
        assert meta == {"ties": "insertion", "cases": 3, "pos_missed": "1", "neg_missed": "2",
                        "window": None, "next_age": 3, "horizon": 30.0, "now": 12.0,
                        "last_time": 21.0, "score_dtype": "float64", "weighted": False}
        assert [len(part) for part in sections] == [24, 24, 24, 3]
        assert np.frombuffer(sections[2], "<f8").tolist() == [20.0, 10.0, 15.0]
        assert list(sections[3]) == [1, 0, 1]

    def test_weighted_float32_file_has_weights_before_the_labels(self, tmp_path: Path) -> None:
        state = EvaluatorState("grouped", np.array([-0.75, -0.5, -0.5]),
                               np.array([True, False, True]), 0, 0, None, None, 3,
                               score_dtype="float32", weights=np.array([2.5, 1.0, 0.5]))
        save_state(tmp_path / "s", state)
        meta, sections = self.read3(tmp_path / "s")
        assert (meta["score_dtype"], meta["weighted"]) == ("float32", True)
        assert [len(part) for part in sections] == [24, 24, 3]
        assert np.frombuffer(sections[1], "<f8").tolist() == [2.5, 1.0, 0.5]
        assert load_state(tmp_path / "s") == state

    def test_unwindowed_file_has_no_ages_section(self, tmp_path: Path) -> None:
        """Without a window the labels follow the keys."""
        save_state(tmp_path / "s", small_state())
        assert [len(part) for part in self.read3(tmp_path / "s")[1]] == [24, 3]

    def test_huge_miss_counts_are_decimal_strings(self, tmp_path: Path) -> None:
        """Counts past 2**63 (even past Python's 4300-digit str limit) are stored exactly."""
        huge = 10**5000 + 7
        state = EvaluatorState("grouped", np.zeros(0), np.zeros(0, bool), huge, 2**64,
                               None, None, 0)
        save_state(tmp_path / "s", state)
        loaded = load_state(tmp_path / "s")
        assert loaded.pos_missed == huge
        assert loaded.neg_missed == 2**64


class TestDamage:
    def test_truncation_at_every_offset_is_refused(self, tmp_path: Path) -> None:
        """A file cut at any byte offset raises PersistenceError naming the file."""
        save_state(tmp_path / "s", small_state(window=3))
        data = (tmp_path / "s").read_bytes()
        cut = tmp_path / "cut"
        for size in range(len(data)):
            cut.write_bytes(data[:size])
            problem = load_error(cut)
            assert "truncated" in problem or "empty" in problem, (size, problem)
        assert load_error(cut).startswith(f"truncated: expected {len(data)} bytes, found")

    def test_flipping_any_byte_is_refused(self, tmp_path: Path) -> None:
        """Changing any single byte (all bits, or only the lowest) raises PersistenceError."""
        save_state(tmp_path / "s", small_state(window=3))
        data = (tmp_path / "s").read_bytes()
        bad = tmp_path / "bad"
        for offset in range(len(data)):
            for mask in (0xFF, 0x01):
                damaged = bytearray(data)
                damaged[offset] ^= mask
                bad.write_bytes(bytes(damaged))
                load_error(bad)

    def test_payload_corruption_is_a_checksum_mismatch(self, tmp_path: Path) -> None:
        """A flipped bit inside the arrays is reported as a checksum mismatch."""
        save_state(tmp_path / "s", small_state())
        data = bytearray((tmp_path / "s").read_bytes())
        data[-40] ^= 0x10
        (tmp_path / "s").write_bytes(bytes(data))
        assert load_error(tmp_path / "s").startswith("checksum mismatch")

    def test_trailing_data_is_refused(self, tmp_path: Path) -> None:
        """Bytes after the checksum are an error, not ignored."""
        save_state(tmp_path / "s", small_state())
        with open(tmp_path / "s", "ab") as f:
            f.write(b"\0")
        assert load_error(tmp_path / "s").startswith("trailing data: expected")

    def test_future_version_is_refused_by_number(self, tmp_path: Path) -> None:
        """A file of format version 7 is refused as unsupported, naming both versions."""
        save_state(tmp_path / "s", small_state())
        data = bytearray((tmp_path / "s").read_bytes())
        data[8:12] = struct.pack("<I", 7)
        (tmp_path / "s").write_bytes(bytes(data))
        assert load_error(tmp_path / "s") == (
            "unsupported format version 7 (this rankeval reads 1, 2 and 3)")

    @pytest.mark.parametrize(
        ("content", "problem"),
        [
            (b"", "empty file; not a rankeval state file"),
            (b"\x89PNG\r\n\x1a\n" + bytes(100), "not a rankeval state file (bad magic)"),
            (b'{"ties": "insertion", "cases": 0}\n', "not a rankeval state file (bad magic)"),
            (b"\x80\x04\x95", "not a rankeval state file (bad magic)"),  # a pickle's start
            (MAGIC[:5], "truncated: expected at least 12 bytes, found 5"),
        ],
        ids=["empty", "png", "json", "pickle", "magic-prefix"],
    )
    def test_foreign_files_are_refused(self, tmp_path: Path, content: bytes, problem: str) -> None:
        """Empty, PNG, JSON and pickle files are not mistaken for state files."""
        (tmp_path / "f").write_bytes(content)
        assert load_error(tmp_path / "f") == problem

    @settings(max_examples=200, deadline=None)
    @given(blob=st.binary(max_size=300), keep_magic=st.booleans())
    def test_random_bytes_are_refused(self, blob: bytes, keep_magic: bool,
                                      tmp_path_factory: Any) -> None:
        """Random bytes, with or without the right magic in front, raise PersistenceError."""
        path = tmp_path_factory.mktemp("rand") / "f"
        path.write_bytes(MAGIC + blob if keep_magic else blob)
        load_error(path)

    def test_missing_file_is_file_not_found(self, tmp_path: Path) -> None:
        """A path that does not exist raises the usual FileNotFoundError."""
        with pytest.raises(FileNotFoundError):
            load_state(tmp_path / "absent")

    def test_error_is_a_picklable_value_error(self) -> None:
        """PersistenceError is a ValueError and survives pickling with its fields."""
        error = PersistenceError("/x/y", "checksum mismatch")
        copy = pickle.loads(pickle.dumps(error))
        assert isinstance(copy, ValueError)
        assert (str(copy), copy.path, copy.problem) == (
            "/x/y: checksum mismatch", "/x/y", "checksum mismatch")


class TestForgedContent:
    """Files with a correct checksum whose content breaks an invariant (a buggy writer)."""

    def test_forge_helper_writes_a_loadable_file(self, tmp_path: Path) -> None:
        """The forging helper itself produces a valid file from valid content."""
        forge(tmp_path / "f", good_meta(), KEYS, b"", LABELS)
        assert load_state(tmp_path / "f") == small_state()

    @pytest.mark.parametrize(
        ("meta", "keys", "ages", "labels", "problem"),
        [
            (good_meta(), KEYS[::-1], b"", LABELS, "invalid state: keys must be sorted"),
            (good_meta(), np.array([np.nan, 1, 2]).tobytes(), b"", LABELS,
             "invalid state: keys must not be NaN"),
            (good_meta(), KEYS, b"", bytes([1, 2, 0]), "label bytes must be 0 or 1"),
            (good_meta(cases=4), KEYS, b"", LABELS, "metadata says 4 cases"),
            (good_meta(pos_missed="-1"), KEYS, b"", LABELS, "pos_missed must be a decimal"),
            (good_meta(neg_missed=2), KEYS, b"", LABELS, "neg_missed must be a decimal"),
            (good_meta(pos_missed="01"), KEYS, b"", LABELS, "pos_missed must be a decimal"),
            (good_meta(ties="random"), KEYS, b"", LABELS, "ties 'random'"),
            (good_meta(extra=1), KEYS, b"", LABELS, "bad metadata: members"),
            (good_meta(next_age=2), KEYS, b"", LABELS, "invalid state: next_age 2"),
            (good_meta(next_age=True), KEYS, b"", LABELS, "next_age must be an integer"),
            (good_meta(window=3), KEYS, b"", LABELS, "ages section must be present"),
            (good_meta(window=2), KEYS, np.array([0, 1, 2]).tobytes(), LABELS,
             "do not fit in a window of 2"),
            (good_meta(window=3), KEYS, np.array([0, 1, 1]).tobytes(), LABELS,
             "ages must be unique"),
            (good_meta(window=3), KEYS, np.array([0, 2, 1]).tobytes(), LABELS,
             "equal keys must be in insertion order"),
            (good_meta(window=3), KEYS, np.array([0, 1, 3]).tobytes(), LABELS,
             "ages must be below next_age 3"),
            (good_meta(window=3), KEYS, np.array([-1, 0, 1]).tobytes(), LABELS,
             "ages must be non-negative"),
            (good_meta(window=3), KEYS[:8], b"", LABELS, "inconsistent header"),
        ],
    )
    def test_broken_content_is_refused(self, tmp_path: Path, meta: dict[str, Any], keys: bytes,
                                       ages: bytes, labels: bytes, problem: str) -> None:
        """Each broken invariant is reported by name, despite the valid checksum."""
        forge(tmp_path / "f", meta, keys, ages, labels)
        assert problem in load_error(tmp_path / "f")

    @pytest.mark.parametrize(
        "raw",
        [b"[1, 2]", b"{\"ties\": NaN}", b"\xff\xfe", b"{\"a\": 1, \"a\": 2}", b"[" * 100000],
        ids=["array", "nan", "not-utf8", "duplicate", "deep"],
    )
    def test_malformed_metadata_is_refused(self, tmp_path: Path, raw: bytes) -> None:
        """Metadata that is not one well-formed JSON object is a PersistenceError."""
        head = HEADER.pack(MAGIC, 1, 0, len(raw), 0, 0, 0)
        body = head + raw
        (tmp_path / "f").write_bytes(body + hashlib.sha256(body).digest())
        assert load_error(tmp_path / "f").startswith("bad metadata")

    def test_unknown_flags_are_refused(self, tmp_path: Path) -> None:
        """Version 1 defines no header flag, version 2 0x1, 0x2 and 0x4 (0x1 not with 0x2);
        another flag is refused."""
        forge(tmp_path / "f", good_meta(), KEYS, b"", LABELS, flags=8)
        assert load_error(tmp_path / "f").startswith("unknown header flags 0x8 (version 2")
        forge(tmp_path / "f", timed_meta(), KEYS, AGES, LABELS, flags=1 | 2, times=TIMES)
        assert load_error(tmp_path / "f").startswith("unknown header flags 0x3 (version 2")
        forge(tmp_path / "f", timed_meta(), KEYS, AGES, LABELS, version=1, flags=1,
              times=TIMES)
        assert load_error(tmp_path / "f").startswith("unknown header flags 0x1 (version 1")

    def test_forged_time_window_loads(self, tmp_path: Path) -> None:
        forge(tmp_path / "f", timed_meta(), KEYS, AGES, LABELS, flags=1, times=TIMES)
        assert load_state(tmp_path / "f") == timed_state()

    @pytest.mark.parametrize(
        ("meta", "times", "problem"),
        [
            (good_meta(), TIMES, "bad metadata: members"),
            (timed_meta(horizon=None), TIMES, "horizon must be a number"),
            (timed_meta(now="12"), TIMES, "now must be a number or null"),
            (timed_meta(horizon=-1.0), TIMES, "invalid state: horizon must be positive"),
            (timed_meta(window=3), TIMES, "window of cases or a horizon of time"),
            (timed_meta(), np.array([20.0, 15.0, 10.0]).tobytes(), "must not decrease"),
            (timed_meta(), np.array([20.0, np.inf, 15.0]).tobytes(), "times must be finite"),
            (timed_meta(now=40.0), TIMES, "time 10.0 has left the window"),
            (timed_meta(last_time=19.0), TIMES, "time 20.0 is after last_time 19.0"),
        ],
    )
    def test_broken_time_window_is_refused(self, tmp_path: Path, meta: dict[str, Any],
                                           times: bytes, problem: str) -> None:
        forge(tmp_path / "f", meta, KEYS, AGES, LABELS, flags=1, times=times)
        assert problem in load_error(tmp_path / "f")


class TestStateValidation:
    @pytest.mark.parametrize(
        ("changes", "error"),
        [
            ({"ties": "best"}, ValueError),
            ({"ties": 1}, TypeError),
            ({"keys": [-1.0, 0.0, 0.0]}, TypeError),
            ({"keys": np.array([-1, 0, 0])}, TypeError),
            ({"keys": np.zeros((3, 1))}, TypeError),
            ({"labels": np.array([1, 0, 1])}, TypeError),
            ({"labels": np.array([True, False])}, ValueError),
            ({"pos_missed": -1}, ValueError),
            ({"neg_missed": 1.0}, TypeError),
            ({"neg_missed": True}, TypeError),
            ({"window": 0, "ages": np.zeros(0, np.int64)}, ValueError),
            ({"window": 5}, ValueError),
            ({"ages": np.array([0, 1, 2])}, ValueError),
            ({"window": 5, "ages": np.array([0.0, 1.0, 2.0])}, TypeError),
            ({"next_age": 2**63}, ValueError),
            ({"times": np.zeros(3)}, ValueError),  # times without a horizon
            ({"horizon": 5.0}, ValueError),  # a horizon without ages and times
            ({"horizon": 5.0, "ages": np.array([0, 1, 2]), "times": [0.0, 1.0, 2.0]},
             TypeError),
            ({"horizon": "5", "ages": np.array([0, 1, 2]), "times": np.zeros(3)}, TypeError),
            ({"horizon": 5.0, "ages": np.array([0, 1, 2]), "times": np.zeros(3),
              "now": np.nan}, ValueError),
        ],
    )
    def test_bad_fields_are_refused(self, changes: dict[str, Any], error: type) -> None:
        """Wrong types raise TypeError, wrong values ValueError, at construction."""
        fields: dict[str, Any] = {
            "ties": "grouped", "keys": np.array([-1.0, 0.0, 0.0]),
            "labels": np.array([True, False, True]), "pos_missed": 0, "neg_missed": 0,
            "window": None, "ages": None, "next_age": 3,
        }
        fields.update(changes)
        with pytest.raises(error):
            EvaluatorState(**fields)

    def test_numpy_integers_become_python_ints(self) -> None:
        """Integer fields given as NumPy integers are stored as Python ints."""
        state = EvaluatorState("grouped", np.zeros(0), np.zeros(0, bool), np.int64(3),
                               np.uint8(1), np.int32(4), np.zeros(0, np.int64), np.int64(0))
        assert [type(v) for v in (state.pos_missed, state.neg_missed, state.window,
                                  state.next_age)] == [int] * 4

    def test_sparse_ages_are_checked_for_duplicates(self) -> None:
        """Ages spread far wider than n are still checked for uniqueness (sorting path)."""
        keys = np.array([-1.0, 0.0])
        with pytest.raises(ValueError, match="unique"):
            EvaluatorState("grouped", keys, np.array([1, 0], bool), 0, 0, 2,
                           np.array([10**12, 10**12]), 10**12 + 1)
        EvaluatorState("grouped", keys, np.array([1, 0], bool), 0, 0, 2,
                       np.array([5, 10**12]), 10**12 + 1)

    def test_save_revalidates_mutated_arrays(self, tmp_path: Path) -> None:
        """A state whose arrays were changed after construction is refused before writing."""
        state = small_state()
        state.keys[0] = 5.0  # now unsorted
        with pytest.raises(ValueError, match="sorted"):
            save_state(tmp_path / "s", state)
        assert os.listdir(tmp_path) == []

    def test_save_refuses_non_states(self, tmp_path: Path) -> None:
        """save_state takes an EvaluatorState and a path, nothing else."""
        with pytest.raises(TypeError):
            save_state(tmp_path / "s", {"ties": "grouped"})  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            save_state(b"/tmp/s", small_state())  # type: ignore[arg-type]


class TestAtomicSave:
    def test_failed_save_keeps_the_old_file_and_no_temp(self, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
        """If writing fails midway, the old file is untouched and the temp file is removed."""
        target = tmp_path / "s"
        save_state(target, small_state())
        before = target.read_bytes()

        def broken_fsync(fd: int) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", broken_fsync)
        with pytest.raises(OSError, match="No space"):
            save_state(target, small_state(window=3))
        assert target.read_bytes() == before
        assert os.listdir(tmp_path) == ["s"]

    def test_leftover_temp_file_is_ignored(self, tmp_path: Path) -> None:
        """A temp file left by a killed save does not affect loading the target."""
        save_state(tmp_path / "s", small_state())
        (tmp_path / f".s.0123456789abcdef{TEMP_SUFFIX}").write_bytes(MAGIC + b"half")
        assert load_state(tmp_path / "s") == small_state()

    def test_missing_directory_raises_and_leaves_nothing(self, tmp_path: Path) -> None:
        """Saving into a directory that does not exist is a FileNotFoundError."""
        with pytest.raises(FileNotFoundError):
            save_state(tmp_path / "no" / "s", small_state())
        assert os.listdir(tmp_path) == []

    @pytest.mark.parametrize("make", [lambda d: d, lambda d: f"{d}/new/", lambda d: d / "x" / "..",
                                      lambda d: ""], ids=["dir", "slash", "dotdot", "empty"])
    def test_paths_that_cannot_be_files_fail_before_writing(self, tmp_path: Path,
                                                            make: Any) -> None:
        """A directory, a trailing separator or "" fail as open() would, before writing."""
        (tmp_path / "x").mkdir()
        with pytest.raises((IsADirectoryError, FileNotFoundError)):
            save_state(make(tmp_path), small_state())
        assert sorted(os.listdir(tmp_path)) == ["x"]
        assert os.listdir(tmp_path / "x") == []

    def test_relative_path_saves_in_the_working_directory(self, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
        """A bare file name is saved in (and its temp file made in) the current directory."""
        monkeypatch.chdir(tmp_path)
        save_state("s", small_state())
        assert os.listdir(tmp_path) == ["s"]
        assert load_state("s") == small_state()


class TestForgedContainer:
    """Files of version 3 with a correct checksum and section sizes whose content breaks an
    invariant (a buggy writer): each refused by name."""

    def test_forge3_writes_a_loadable_file(self, tmp_path: Path) -> None:
        forge3(tmp_path / "f", good_meta3(), [KEYS, LABELS])
        assert load_state(tmp_path / "f") == small_state()
        forge3(tmp_path / "f", good_meta3(horizon=30.0, now=12.0, last_time=21.0),
               [KEYS, AGES, TIMES, LABELS])
        assert load_state(tmp_path / "f") == timed_state()

    @pytest.mark.parametrize(
        ("meta", "sections", "problem"),
        [
            (good_meta3(), [KEYS[::-1], LABELS], "invalid state: keys must be sorted"),
            (good_meta3(), [np.array([np.nan, 1, 2]).tobytes(), LABELS],
             "invalid state: keys must not be NaN"),
            (good_meta3(), [KEYS, bytes([1, 2, 0])], "label bytes must be 0 or 1"),
            (good_meta3(cases=4), [KEYS, LABELS], "metadata says 4 cases"),
            (good_meta3(), [KEYS[:16], LABELS], "do not describe one number of cases"),
            (good_meta3(), [KEYS[:20], LABELS], "do not hold its 2 arrays"),
            (good_meta3(), [KEYS, AGES, LABELS], "do not hold its 2 arrays"),
            (good_meta3(window=3), [KEYS, LABELS], "do not hold its 3 arrays"),
            (good_meta3(pos_missed="-1"), [KEYS, LABELS], "pos_missed must be a decimal"),
            (good_meta3(ties="random"), [KEYS, LABELS], "ties 'random'"),
            (good_meta3(extra=1), [KEYS, LABELS], "members"),
            (good_meta(), [KEYS, LABELS], "members"),  # version 3 says score_dtype, weighted
            (good_meta3(score_dtype="float16"), [KEYS, LABELS], "score_dtype 'float16'"),
            (good_meta3(score_dtype="float32"), [np.array([-0.1, 0, 1]).tobytes(), LABELS],
             "invalid state: "),
            (good_meta3(weighted=1), [KEYS, LABELS], "weighted must be true or false"),
            (good_meta3(weighted=True), [KEYS, np.array([1.0, -1.0, 1.0]).tobytes(), LABELS],
             "invalid state: "),
            (good_meta3(next_age=2), [KEYS, LABELS], "invalid state: next_age 2"),
            (good_meta3(window=3), [KEYS, np.array([0, 1, 1]).tobytes(), LABELS],
             "ages must be unique"),
            (good_meta3(window=3), [KEYS, np.array([0, 2, 1]).tobytes(), LABELS],
             "equal keys must be in insertion order"),
            (good_meta3(horizon=30.0, now=40.0, last_time=21.0), [KEYS, AGES, TIMES, LABELS],
             "time 10.0 has left the window"),
            (good_meta3(horizon=None, now=12.0, last_time=21.0), [KEYS, AGES, TIMES, LABELS],
             "horizon must be a number"),
        ],
    )
    def test_broken_content_is_refused(self, tmp_path: Path, meta: dict[str, Any],
                                       sections: list[bytes], problem: str) -> None:
        forge3(tmp_path / "f", meta, sections)
        assert problem in load_error(tmp_path / "f")

    @pytest.mark.parametrize(
        "raw",
        [b"[1, 2]", b"{\"blobs\": NaN}", b"\xff\xfe", b"{\"a\": 1, \"a\": 2}",
         b"[" * 100000, b"{\"blobs\": [-1]}", b"{\"blobs\": 3}"],
        ids=["array", "nan", "not-utf8", "duplicate", "deep", "negative", "not-a-list"],
    )
    def test_malformed_metadata_is_refused(self, tmp_path: Path, raw: bytes) -> None:
        body = CONTAINER.pack(MAGIC, 3, len(raw)) + raw
        (tmp_path / "f").write_bytes(body + hashlib.sha256(body).digest())
        assert load_error(tmp_path / "f").startswith("invalid state metadata")


class TestOldFiles:
    """Files rankeval 0.2 wrote (format versions 1 and 2, ``tests/data/state-files``, made
    by that release's ``save_state`` from these states) still load, to these states and to
    evaluators equal to ones fed the same cases."""

    FOLDER = Path(__file__).parent / "data" / "state-files"
    STATES: ClassVar[dict[str, EvaluatorState]] = {
        "v1-insertion": small_state(),
        "v1-window": EvaluatorState("grouped", np.array([-0.9, -0.5, -0.5]),
                                    np.array([True, False, True]), 0, 0, 4,
                                    np.array([2, 0, 1]), 3),
        "v2-time-window": timed_state(),
        "v2-float32": EvaluatorState("grouped", np.array([-0.75, -0.5, 0.25]),
                                     np.array([False, True, True]), 0, 1, None, None, 3,
                                     score_dtype="float32"),
        "v2-weighted": EvaluatorState("grouped", np.array([-0.9, -0.5, -0.5]),
                                      np.array([True, False, True]), 0, 0, None, None, 3,
                                      weights=np.array([2.5, 1.0, 0.5])),
        "v2-weighted-window": EvaluatorState("grouped", np.array([-0.9, -0.5, -0.5]),
                                             np.array([True, False, True]), 0, 0, 5,
                                             np.array([2, 0, 1]), 3,
                                             weights=np.array([2.5, 0.0, 0.5])),
    }

    @pytest.mark.parametrize("name", sorted(STATES))
    def test_each_loads_to_its_state_and_saves_again_as_version_3(self, name: str,
                                                                 tmp_path: Path) -> None:
        path = self.FOLDER / f"{name}.rankeval"
        data = path.read_bytes()
        assert (data[:8], struct.unpack_from("<I", data, 8)[0]) == (MAGIC, int(name[1]))
        loaded = load_state(path)
        assert loaded == self.STATES[name]
        save_state(tmp_path / "s", loaded)
        assert struct.unpack_from("<I", (tmp_path / "s").read_bytes(), 8)[0] == 3
        assert load_state(tmp_path / "s") == loaded

    def test_an_evaluator_loads_them(self) -> None:
        from rankeval import ScoredPrecisionRecallEvaluation

        ev = ScoredPrecisionRecallEvaluation.load(self.FOLDER / "v1-insertion.rankeval")
        fed = ScoredPrecisionRecallEvaluation(ties="insertion")
        for correct, score in [(True, 0.9), (False, 0.5), (True, 0.5)]:  # ties in arrival order
            fed.add_case(correct, score)
        fed.add_misses(1)
        fed.add_negative_misses(2)
        assert ev.summary() == fed.summary()
        weighted = ScoredPrecisionRecallEvaluation.load(self.FOLDER / "v2-weighted.rankeval")
        fed = ScoredPrecisionRecallEvaluation()
        fed.add_cases([True, False, True], [0.9, 0.5, 0.5], weights=[2.5, 1.0, 0.5])
        assert weighted == fed


class TestHostileFiles:
    """Files whose header claims more than they hold: refused before allocating for the claim."""

    version = 3

    def claim(self, path: Path, cases: int, digest: bytes) -> None:
        """A header and metadata claiming ``cases`` cases; the rest of the file is a hole."""
        if self.version == 3:
            raw = json.dumps(good_meta3(cases=cases, blobs=[8 * cases, cases])).encode()
            head = CONTAINER.pack(MAGIC, 3, len(raw))
        else:
            raw = json.dumps(good_meta(cases=cases)).encode()
            head = HEADER.pack(MAGIC, self.version, 0, len(raw), 8 * cases, 0, cases)
        size = len(head) + len(raw) + 9 * cases + 32
        with path.open("wb") as out:
            out.write(head + raw)
            out.truncate(size - 32)
            out.seek(size - 32)
            out.write(digest)

    def peak_while(self, action: Any) -> int:
        """Peak bytes allocated (Python and NumPy) while ``action`` runs."""
        import tracemalloc

        tracemalloc.start()
        try:
            action()
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        return peak

    @pytest.mark.parametrize("digest", [bytes(32), bytes(range(32))])
    def test_a_claim_of_10_to_the_12_cases_allocates_nothing(self, tmp_path: Path,
                                                            digest: bytes) -> None:
        path = tmp_path / "huge.rankeval"
        try:
            self.claim(path, 10**12, digest)
        except OSError:  # a file system without 9 TB sparse files: claim what it allows
            self.claim(path, 10**11, digest)
        problem: list[str] = []
        peak = self.peak_while(lambda: problem.append(load_error(path)))
        assert "more than this machine's memory" in problem[0], problem
        assert peak < 1 << 20

    @pytest.mark.parametrize("digest", [bytes(32), bytes(range(32))])
    def test_a_sparse_claim_that_fits_is_checked_before_allocating(self, tmp_path: Path,
                                                                  digest: bytes) -> None:
        """10**7 cases (90 MB) of holes: the checksum fails before 90 MB is allocated."""
        path = tmp_path / "sparse.rankeval"
        self.claim(path, 10**7, digest)
        problem: list[str] = []
        peak = self.peak_while(lambda: problem.append(load_error(path)))
        assert problem == ["checksum mismatch (the file is corrupted)"]
        assert peak < 8 << 20

    def test_a_fifo_is_refused_without_waiting_for_a_writer(self, tmp_path: Path) -> None:
        import threading

        path = tmp_path / "pipe.rankeval"
        os.mkfifo(path)
        problem: list[str] = []
        reader = threading.Thread(target=lambda: problem.append(load_error(path)), daemon=True)
        reader.start()
        reader.join(timeout=30)
        assert not reader.is_alive(), "load is waiting on a FIFO"
        assert problem == ["not a regular file"]

    def test_a_directory_is_refused(self, tmp_path: Path) -> None:
        with pytest.raises((PersistenceError, IsADirectoryError, PermissionError)):
            load_state(tmp_path)


class TestHostileOldFiles(TestHostileFiles):
    """The same claims in a file of version 2 (read by the legacy reader)."""

    version = 2


def _saved_kinds() -> list[bytes]:
    """Version 3 files of a weighted time window, a count window and float32 scores."""
    from rankeval import ScoredPrecisionRecallEvaluation as Evaluation

    timed = Evaluation(horizon=30.0, clock=lambda: 100.0)
    timed.add_cases([True, False, True], [0.5, 0.2, 0.9], weights=[1.0, 2.0, 0.5])
    window = Evaluation(window=5)
    window.add_cases([True, False, True], [0.5, 0.2, 0.9])
    narrow = Evaluation(score_dtype="float32")
    narrow.add_cases([True, False], [0.5, 0.25])
    narrow.add_misses(3)
    return [timed.to_bytes(), window.to_bytes(), narrow.to_bytes()]


SAVED = _saved_kinds()
JSON_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2**65), st.floats(allow_nan=False),
    st.sampled_from(["0", "1", "x", "float32", "float64", "grouped", "insertion"]),
    st.lists(st.integers(-8, 64), max_size=6), st.dictionaries(st.text(max_size=3),
                                                                st.integers(), max_size=2))


@settings(max_examples=400, deadline=None)
@given(which=st.integers(0, len(SAVED) - 1), member=st.sampled_from(
    ["ties", "cases", "pos_missed", "neg_missed", "window", "next_age", "score_dtype",
     "weighted", "horizon", "now", "last_time", "blobs", "extra"]),
       value=JSON_VALUES, drop=st.booleans(), flip=st.integers(-1, 200))
def test_a_crafted_version_3_file_is_refused_by_name_or_loads(
        which: int, member: str, value: Any, drop: bool, flip: int) -> None:
    """A saved file whose metadata member is changed or dropped (and a section byte flipped),
    then checksummed again as a careful forger would: loading it gives a state that passes
    every check, or raises PersistenceError; never another exception."""
    data = SAVED[which]
    _, version, size = CONTAINER.unpack_from(data)
    meta = json.loads(data[20 : 20 + size])
    if drop:
        meta.pop(member, None)
    else:
        meta[member] = value
    sections = bytearray(data[20 + size : -32])
    if 0 <= flip < len(sections):
        sections[flip] ^= 0x5A
    raw = json.dumps(meta).encode()
    body = CONTAINER.pack(MAGIC, version, len(raw)) + raw + bytes(sections)
    try:
        state = state_from_bytes(body + hashlib.sha256(body).digest())
    except PersistenceError:
        return
    assert isinstance(state, EvaluatorState)  # constructed, so every invariant held
