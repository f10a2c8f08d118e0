"""Block-wise in-order sums equal the plain left-to-right sum, bit for bit.

The summary kernels (trapezoid areas, average precision, maximum F) work on
blocks of rows and skip zero terms; these tests pin them to the one-pass
formulas they replace on inputs longer than one block, and the in-order sum to
a Python loop on terms chosen to trip it: signed zeros, NaN, infinities,
subnormals.
"""

from __future__ import annotations

import itertools
import math
import struct

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rankeval import formulas
from rankeval.formulas import _BLOCK, _in_order_sum
from rankeval.points import operating_points

_TERMS = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, math.inf, -math.inf, math.nan]),
    st.floats(allow_nan=True, allow_infinity=True),
)


def bits(value: float) -> bytes | str:
    return "nan" if math.isnan(value) else struct.pack("<d", value)


def loop_sum(terms: list[float]) -> float:
    """np.cumsum's last element: the first term, then each later one added in order."""
    if not terms:
        return 0.0
    total = terms[0]
    for term in terms[1:]:
        total += term
    return total


def one_pass_area(curve: np.ndarray) -> float:
    x, y = curve[:, 0], curve[:, 1]
    terms = (y[:-1] + y[1:]) * (x[1:] - x[:-1]) / 2.0
    return float(np.cumsum(terms)[-1]) if terms.shape[0] else 0.0


def one_pass_ap(tp: np.ndarray, fp: np.ndarray, num_pos: int) -> float:
    delta = np.diff(tp, prepend=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.cumsum(delta * (tp / (tp + fp)))[-1] / np.float64(num_pos))


class TestInOrderSum:
    @given(st.lists(_TERMS, max_size=40), st.lists(st.integers(0, 40), max_size=5))
    def test_equals_loop(self, terms: list[float], cuts: list[int]) -> None:
        """Any terms, cut into any blocks: the loop's bits."""
        edges = sorted({0, len(terms), *(min(c, len(terms)) for c in cuts)})
        blocks = [np.array(terms[a:b], dtype=np.float64) for a, b in itertools.pairwise(edges)]
        with np.errstate(all="ignore"):  # inf - inf and overflow are the point here
            got = _in_order_sum(blocks)
        assert bits(got) == bits(loop_sum(terms))

    def test_zeros_alone_keep_their_sign(self) -> None:
        """All -0.0 sums to -0.0; one +0.0 among them makes +0.0; nothing sums to 0.0."""
        assert bits(_in_order_sum([np.array([-0.0, -0.0])])) == bits(-0.0)
        assert bits(_in_order_sum([np.array([-0.0]), np.array([0.0, -0.0])])) == bits(0.0)
        assert bits(_in_order_sum([])) == bits(0.0)


class TestLongInputs:
    """Several blocks long, with the zero terms a ranking produces."""

    n = 2 * _BLOCK + 123

    def setup_method(self) -> None:
        self.rng = np.random.default_rng(7)

    def ranking(self, grid: bool) -> tuple[np.ndarray, np.ndarray]:
        labels = self.rng.random(self.n) < 0.3
        tp = np.cumsum(labels)
        fp = np.arange(1, self.n + 1) - tp
        if grid:  # one point per tie block of a coarse grid
            ends = np.flatnonzero(self.rng.random(self.n) < 0.01)
            tp, fp = tp[ends], fp[ends]
        return tp, fp

    def test_area(self) -> None:
        """PR-like (many vertical drops) and ROC-like curves: the one-pass area."""
        for grid in (False, True):
            tp, fp = self.ranking(grid)
            pr = np.column_stack((tp / tp[-1], tp / (tp + fp)))
            roc = np.column_stack((fp / fp[-1], tp / tp[-1]))
            for curve in (pr, roc, np.asfortranarray(pr)):
                assert bits(formulas.area_under_curve(curve)) == bits(one_pass_area(curve))

    def test_average_precision(self) -> None:
        """1-D over several blocks, from the points' steps, row by row of a 2-D batch: same bits."""
        tp, fp = self.ranking(False)
        for num_pos in (int(tp[-1]), int(tp[-1]) + 17, 0):
            want = one_pass_ap(tp, fp, num_pos)
            assert bits(formulas.average_precision(tp, fp, num_pos)) == bits(want)
        for ties in ("insertion", "grouped"):
            keys = np.sort(np.round(self.rng.normal(size=self.n), 2))
            labels = self.rng.random(self.n) < 0.3
            points = operating_points(keys, labels, int(labels.sum()) + 3, self.n, ties)
            want = formulas.average_precision(points.tp, points.fp, points.num_pos)
            assert bits(points.average_precision) == bits(want)
        batch = np.stack((tp[:5000], tp[5000:10000]))
        cases = np.arange(1, 5001)
        got = formulas.average_precision(batch, cases - batch, 9)
        assert [bits(v) for v in got] == [bits(one_pass_ap(t, cases - t, 9)) for t in batch]

    def test_maximum_f_measure(self) -> None:
        """Largest F over several blocks, and NaN from a NaN row in a late block."""
        tp, fp = self.ranking(False)
        hit = tp > 0  # rows above the first positive would make every F NaN
        pr = np.column_stack((tp[hit] / tp[-1], tp[hit] / (tp[hit] + fp[hit])))
        for beta in (0.5, 1.0, 3.0):
            f = formulas.f_measure_array(beta, pr[:, 0], pr[:, 1])
            assert bits(formulas.maximum_f_measure(pr, beta)) == bits(max(0.0, float(f.max())))
        pr[-3, 0] = math.nan
        assert math.isnan(formulas.maximum_f_measure(pr, 1.0))
