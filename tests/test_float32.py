"""``score_dtype="float32"``: on scores a float32 holds, every value equals the float64
store's bit for bit; any other score is refused, naming it, with nothing changed."""

from __future__ import annotations

import json
import os
import pickle
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import PersistenceError, ScoredPrecisionRecallEvaluation
from tests.conftest import same, snapshot
from tests.helpers import small_buffer

Evaluation = ScoredPrecisionRecallEvaluation

# Scores a float32 holds: ties, both zeros, infinities, subnormals, the extremes.
float32_scores = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.0, float("inf"), float("-inf"),
                     float(np.finfo(np.float32).max), float(np.finfo(np.float32).tiny),
                     float(np.float32(1e-45))]),
    st.floats(width=32, allow_nan=False),
)


def bits(ev: Evaluation) -> list[bytes]:
    """The curves' bytes (so that -0.0 and 0.0 differ) and every value."""
    out = []
    for flag in (False, True):
        out += [ev.pr_curve(flag).tobytes(), ev.pr_score_curve(flag).tobytes(),
                ev.roc_curve(flag).tobytes()]
    return out


@settings(max_examples=200, deadline=None)
@given(cases=st.lists(st.tuples(st.booleans(), float32_scores), max_size=40),
       batch=st.lists(st.tuples(st.booleans(), float32_scores), max_size=40),
       counts=st.lists(st.tuples(float32_scores, st.integers(0, 3), st.integers(0, 3)),
                       max_size=5),
       ties=st.sampled_from(["insertion", "grouped"]), misses=st.integers(0, 2))
def test_equals_the_float64_store_bit_for_bit(
        cases: list[tuple[bool, float]], batch: list[tuple[bool, float]],
        counts: list[tuple[float, int, int]], ties: Any, misses: int) -> None:
    narrow, wide = Evaluation(ties=ties, score_dtype="float32"), Evaluation(ties=ties)
    with small_buffer(4):
        for ev in (narrow, wide):
            for correct, score in cases:
                ev.add_case(correct, score)
            ev.add_cases([c for c, _ in batch], np.array([s for _, s in batch]))
            if ties == "grouped" and counts:
                scores, positives, negatives = zip(*counts, strict=True)
                ev.add_counts(positives=positives, negatives=negatives, scores=scores)
            ev.add_misses(misses)
        assert same(snapshot(narrow), snapshot(wide))
        assert bits(narrow) == bits(wide)
        assert narrow == wide
        narrow._store._check()
    assert narrow._store._main.keys.dtype == np.float32


class TestRefuses:
    @pytest.mark.parametrize("score", [0.1, 1e300, -1e-300, 2.0**-150 * 3])
    def test_a_score_float32_cannot_hold(self, score: float) -> None:
        ev = Evaluation(score_dtype="float32")
        ev.add_cases([True, False], [0.5, 0.25])
        before = {**snapshot(ev), "repr": repr(ev)}
        with pytest.raises(ValueError, match="is not a float32 value"):
            ev.add_case(True, score)
        with pytest.raises(ValueError, match=r"scores\[1\] .* is not a float32 value"):
            ev.add_cases([True, True], [0.75, score])
        assert same({**snapshot(ev), "repr": repr(ev)}, before)

    def test_counts_and_a_merge(self) -> None:
        ev = Evaluation(ties="grouped", score_dtype="float32")
        with pytest.raises(ValueError, match=r"scores\[1\] 0.3 is not a float32"):
            ev.add_counts(positives=[1, 1], negatives=[0, 0], scores=[0.5, 0.3])
        other = Evaluation(ties="grouped")
        other.add_cases([True, False], [0.5, 0.3])
        with pytest.raises(ValueError, match=r"0\.3 is not a float32"):
            ev.merge(other)
        assert ev.num_cases() == 0
        held = Evaluation(ties="grouped")
        held.add_cases([True, False], [0.5, 0.25])
        ev.merge(held)  # scores a float32 holds merge, either way
        held.merge(ev)
        assert ev.num_cases() == 2
        assert held.num_cases() == 4

    @pytest.mark.parametrize(("kwargs", "error", "message"), [
        ({"score_dtype": "float16"}, ValueError, "score_dtype must be one of"),
        ({"score_dtype": 32}, TypeError, "score_dtype must be one of"),
        ({"score_dtype": "float32", "window": 10}, ValueError, "unbounded evaluator"),
        ({"score_dtype": "float32", "horizon": 5.0}, ValueError, "unbounded evaluator"),
    ])
    def test_settings(self, kwargs: dict[str, Any], error: type[Exception],
                      message: str) -> None:
        with pytest.raises(error, match=message):
            Evaluation(**kwargs)

    def test_numpy_names(self) -> None:
        assert Evaluation(score_dtype=np.float32).score_dtype == "float32"
        assert Evaluation(score_dtype=np.dtype("float64")).score_dtype == "float64"


def test_saved_pickled_reset_and_copied_as_float32(tmp_path: Path) -> None:
    ev = Evaluation(ties="grouped", score_dtype="float32")
    ev.add_cases([True, False, True], [0.5, 0.25, float("-inf")])
    ev.add_misses(2)
    path = tmp_path / "state"
    ev.save(path)
    for other in (Evaluation.load(path), pickle.loads(pickle.dumps(ev)), ev.snapshot()):
        assert other.score_dtype == "float32"
        assert other == ev
        assert "score_dtype='float32'" in repr(other)
    # The metadata says so in a version 3 file; the keys section stays float64.
    data = path.read_bytes()
    version, meta_len = struct.unpack_from("<IQ", data, 8)
    meta = json.loads(data[20:20 + meta_len])
    assert (version, meta["score_dtype"], meta["blobs"][0]) == (3, "float32", 8 * 3)
    ev.reset()
    assert ev.score_dtype == "float32"


def test_a_file_claiming_float32_with_a_wider_key_is_refused(tmp_path: Path) -> None:
    import hashlib

    ev = Evaluation(score_dtype="float32")
    ev.add_cases([True], [0.5])
    path = tmp_path / "state"
    ev.save(path)
    data = bytearray(path.read_bytes())
    key_at = data.index(struct.pack("<d", -0.5))
    data[key_at:key_at + 8] = struct.pack("<d", -0.1)
    data[-32:] = hashlib.sha256(bytes(data[:-32])).digest()
    path.write_bytes(bytes(data))
    with pytest.raises(PersistenceError, match="is not a float32 value"):
        Evaluation.load(os.fspath(path))
