"""The store's stable sort (scored/sorting.py) equals NumPy's stable argsort, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval.scored.sorting import id_order, sort_cases
from tests import strategies

# Signed zeros and infinities are the keys a SIMD sort may mix up.
_GRID = [-np.inf, -2.0, -1.0, -0.0, 0.0, 0.5, 1.0, np.inf]


def stable_reference(keys: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(keys, kind="stable")
    return keys[order], labels[order]


def assert_sorted_like_reference(keys: np.ndarray, labels: np.ndarray) -> None:
    got_keys, got_labels = sort_cases(keys, labels)
    want_keys, want_labels = stable_reference(keys, labels)
    assert got_keys.dtype == np.float64
    assert got_labels.dtype == np.bool_
    assert got_keys.tobytes() == want_keys.tobytes()  # -0.0 and 0.0 stay apart
    assert np.array_equal(got_labels, want_labels)


class TestSortCases:
    @given(st.lists(st.tuples(st.booleans(), strategies.scores), max_size=60))
    def test_equals_stable_argsort(self, cases: list[tuple[bool, float]]) -> None:
        """Any keys, ties and signed zeros included: the stable argsort's result."""
        keys = np.array([score for _, score in cases], dtype=np.float64)
        labels = np.array([correct for correct, _ in cases], dtype=np.bool_)
        assert_sorted_like_reference(keys, labels)

    @settings(max_examples=50)
    @given(
        st.integers(min_value=0, max_value=2**32 - 1),
        st.integers(min_value=1, max_value=6000),
        st.sampled_from(["grid", "distinct", "few_ties", "zeros"]),
    )
    def test_large_inputs(self, seed: int, n: int, kind: str) -> None:
        """Past the sampled tie check: the merge path, its fallback, and the zero block."""
        rng = np.random.default_rng(seed)
        if kind in ("few_ties", "zeros"):
            n += 2048  # the ties come after the sample that sort_cases checks first
        labels = rng.random(n) < rng.random()
        if kind == "grid":
            keys = rng.choice(np.array(_GRID), n)
        elif kind == "distinct":
            keys = rng.normal(size=n)
        elif kind == "few_ties":
            keys = rng.normal(size=n)
            keys[2048:] = np.round(keys[2048:], 2)
        else:  # distinct keys, then signed zeros, all with one label
            keys = rng.normal(size=n)
            zeros = (rng.random(n) < 0.1) & (np.arange(n) >= 2048)
            keys[zeros] = np.where(rng.random(int(zeros.sum())) < 0.5, -0.0, 0.0)
            labels[zeros] = bool(rng.random() < 0.5)
        assert_sorted_like_reference(keys, labels)

    def test_empty(self) -> None:
        """No cases: empty arrays of the right types."""
        assert_sorted_like_reference(np.zeros(0), np.zeros(0, dtype=np.bool_))


class TestIdOrder:
    """``id_order`` (radix passes over 8 or 16 bits) is NumPy's stable argsort of the ids."""

    @given(st.sampled_from([1, 2**8, 2**16, 2**16 + 1, 2**32, 2**40]),
           st.lists(st.integers(min_value=0, max_value=2**40), max_size=80),
           st.integers(min_value=0, max_value=3))
    def test_equals_stable_argsort(self, width: int, drawn: list[int], repeats: int) -> None:
        """Ids of every width (one pass, two passes, NumPy's own), many repeated: equal ids
        keep input order, so the low pass's order must survive the high pass."""
        ids = np.array([d % width for d in drawn] * (repeats + 1), dtype=np.int64)
        got = id_order(ids)
        assert got.dtype == np.int64
        assert got.tolist() == np.argsort(ids, kind="stable").tolist()

    def test_two_passes_on_a_large_array(self) -> None:
        """Ids above 2**16 sharing their low halves, in a few hundred thousand rows: the
        high pass must be stable over the low pass's order."""
        rng = np.random.default_rng(3)
        ids = (rng.integers(0, 4, 300_000) << 16) | rng.integers(0, 3, 300_000)
        assert np.array_equal(id_order(ids), np.argsort(ids, kind="stable"))

    def test_negative_ids_take_numpys_sort(self) -> None:
        ids = np.array([3, -1, 3, -1, 0])
        assert id_order(ids).tolist() == [1, 3, 4, 0, 2]
