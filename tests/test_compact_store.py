"""The compact store: positive counts without a running count a case, and counts per score.

:class:`~rankeval.scored.store.PositiveCounts` answers ``cum[i]`` from a quarter byte a
case; it is checked against a plain ``cumsum`` at every rank. ``add_counts`` must give
exactly what adding every case one by one gives, bit for bit, and refuse what it cannot do.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankeval.scored.store
from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.scored.store import PositiveCounts, expand_counts
from tests import strategies
from tests.conftest import same, snapshot
from tests.helpers import small_buffer

Evaluation = ScoredPrecisionRecallEvaluation


def plain_cum(labels: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.concatenate(([0], np.cumsum(labels, dtype=np.int64)))


@pytest.fixture(params=["compact", "dense"], autouse=False)
def counts_form(request: pytest.FixtureRequest) -> Any:
    """Both forms of PositiveCounts: compact at every size, or the plain running count."""
    limit = 0 if request.param == "compact" else 1 << 30
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rankeval.scored.store, "DENSE_CASES", limit)
        yield request.param


@pytest.mark.usefixtures("counts_form")
class TestPositiveCounts:
    # Around the word (8) and superblock (4,096) edges, and a few blocks of the build loop.
    SIZES = (0, 1, 7, 8, 9, 15, 16, 17, 4095, 4096, 4097, 4103, 4104, 8192, 8199,
             3 * 4096 * 16 + 11)

    @pytest.mark.parametrize("n", SIZES)
    @pytest.mark.parametrize("rate", [0.0, 0.03, 0.5, 1.0])
    def test_every_rank_and_every_positive(self, n: int, rate: float) -> None:
        labels = np.random.default_rng(n).random(n) < rate
        counts = PositiveCounts(labels)
        cum = plain_cum(labels)
        assert counts.size == n
        assert counts.total == int(cum[-1])
        ranks = np.arange(n + 1, dtype=np.int64)
        assert np.array_equal(counts.take(ranks), cum)
        shuffled = np.random.default_rng(1).permutation(ranks)
        assert np.array_equal(counts.take(shuffled), cum[shuffled])
        for i in range(0, n + 1, max(1, n // 97)):
            assert counts[i] == cum[i]
        assert counts[-1] == cum[-1]
        positions = np.flatnonzero(labels)
        for m in range(1, positions.shape[0] + 1, max(1, positions.shape[0] // 53)):
            assert counts.select(m) == positions[m - 1]

    @given(st.lists(st.booleans(), max_size=300))
    def test_any_labels(self, labels_list: list[bool]) -> None:
        labels = np.array(labels_list, dtype=np.bool_)
        counts = PositiveCounts(labels)
        assert np.array_equal(counts.take(np.arange(labels.shape[0] + 1)), plain_cum(labels))

    def test_a_view_of_a_larger_array(self) -> None:
        """Labels that are a slice (the words start mid-array) count the same."""
        whole = np.random.default_rng(3).random(10_000) < 0.4
        for start in (1, 3, 8, 13):
            labels = whole[start:start + 5000]
            counts = PositiveCounts(labels)
            assert np.array_equal(counts.take(np.arange(5001)), plain_cum(labels))


counted_scores = st.sampled_from([-2.0, -0.0, 0.0, 0.25, 0.5, 1.0, 7.5, float("inf")])
groups = st.lists(
    st.tuples(counted_scores, st.integers(0, 6), st.integers(0, 6)), max_size=12
)


def one_by_one(ev: Evaluation, rows: list[tuple[float, int, int]]) -> None:
    """The cases the counts stand for, added one at a time: positives, then negatives."""
    for score, positives, negatives in rows:
        for _ in range(positives):
            ev.add_case(True, score)
        for _ in range(negatives):
            ev.add_case(False, score)


class TestAddCounts:
    @settings(max_examples=150, deadline=None)
    @given(groups, groups, strategies.cases, st.integers(1, 7), st.booleans())
    def test_equals_adding_the_cases_one_by_one(
        self, rows: list[tuple[float, int, int]], more: list[tuple[float, int, int]],
        cases: list[tuple[bool, float]], block: int, arrays: bool
    ) -> None:
        """Bit for bit, whatever the expansion block, with cases added before and after."""
        want = Evaluation(ties="grouped")
        got = Evaluation(ties="grouped")
        with small_buffer(4), pytest.MonkeyPatch.context() as patch:
            patch.setattr(rankeval.scored.store, "EXPAND_BLOCK", block)
            for ev, counted in ((want, False), (got, True)):
                for correct, score in cases:
                    ev.add_case(correct, score)
                for batch in (rows, more):
                    if not counted:
                        one_by_one(ev, batch)
                    elif arrays:
                        ev.add_counts(
                            positives=np.array([r[1] for r in batch], dtype=np.int64),
                            negatives=[r[2] for r in batch],
                            scores=np.array([r[0] for r in batch], dtype=np.float64))
                    else:
                        for score, positives, negatives in batch:
                            ev.add_counts(positives=positives, negatives=negatives, scores=score)
                ev.add_misses(1)
                ev._store.fold()
            got._store._check()
        assert same(snapshot(got), snapshot(want))
        assert got == want

    def test_large_counts_arrive_in_blocks(self) -> None:
        """A count larger than a block is cut in blocks of its own; nothing is lost."""
        blocks = list(expand_counts(np.array([0.5, 0.25]), np.array([10, 0]),
                                    np.array([3, 25]), block=4))
        assert [labels.shape[0] for labels, _ in blocks] == [4, 4, 2, 3, 4, 4, 4, 4, 4, 4, 1]
        labels = np.concatenate([labels for labels, _ in blocks])
        keys = np.concatenate([keys for _, keys in blocks])
        assert labels.tolist() == [True] * 10 + [False] * 28
        assert keys.tolist() == [-0.5] * 13 + [-0.25] * 25

    def test_the_documented_area(self) -> None:
        """0.9: two positives; 0.5: one positive, three negatives. By hand: pairs
        (positive above negative) 2*3 + ties 1*3/2 = 7.5 of 3*3 = 9."""
        ev = Evaluation(ties="grouped")
        ev.add_counts(positives=[2, 1], negatives=[0, 3], scores=[0.9, 0.5])
        assert ev.area_under_roc_curve() == 7.5 / 9


def settled(ev: Evaluation) -> dict[str, Any]:
    return {**snapshot(ev), "repr": repr(ev)}


class TestAddCountsRefuses:
    @pytest.mark.parametrize(
        ("ties", "window", "message"),
        [("insertion", None, "needs ties='grouped'"),
         ("grouped", 5, "does not apply to a window")],
    )
    def test_where_counts_have_no_meaning(self, ties: Any, window: int | None,
                                          message: str) -> None:
        ev = Evaluation(ties=ties, window=window)
        ev.add_cases([True, False], [0.5, 0.25])
        before = settled(ev)
        with pytest.raises(ValueError, match=message):
            ev.add_counts(positives=[1], negatives=[1], scores=[0.5])
        assert same(settled(ev), before)

    def test_a_time_window(self) -> None:
        ev = Evaluation(ties="grouped", horizon=10.0)
        with pytest.raises(ValueError, match="does not apply to a window"):
            ev.add_counts(positives=1, negatives=1, scores=0.5)

    @pytest.mark.parametrize(
        ("args", "error", "message"),
        [(([0.5, float("nan")], [1, 1], [0, 0]), ValueError, r"scores\[1\] must not be NaN"),
         (([0.5, 0.2], [1, -2], [0, 0]), ValueError, r"positives\[1\] must be non-negative"),
         (([0.5], [1], ["1"]), TypeError, "negatives must hold non-negative integers"),
         (([0.5], [True], [1]), TypeError, "positives must hold non-negative integers"),
         (([0.5, 0.2], [1], [1, 1]), ValueError, "same length, got 2, 1, 2"),
         ((0.5, -1, 0), ValueError, "positives"),
         ((0.5, 1, 1j), TypeError, "negatives must be an integer"),
         ((float("nan"), 1, 0), ValueError, "NaN"),
         (([0.5], np.array([2**63], dtype=np.uint64), [0]), ValueError, "beyond"),
         (([0.5], [[1]], [0]), ValueError, "one-dimensional"),
         (("0.5", 1, 1), TypeError, "scores must be a sequence")],
    )
    def test_bad_input_names_the_problem(self, args: tuple[Any, Any, Any],
                                         error: type[Exception], message: str) -> None:
        ev = Evaluation(ties="grouped")
        ev.add_counts(positives=[1, 2], negatives=[3, 0], scores=[0.75, 0.5])
        before = settled(ev)
        with pytest.raises(error, match=message):
            ev.add_counts(scores=args[0], positives=args[1], negatives=args[2])
        assert same(settled(ev), before)

    def test_a_total_beyond_int64(self) -> None:
        ev = Evaluation(ties="grouped")
        ev.add_counts(positives=1, negatives=0, scores=0.5)
        with pytest.raises(ValueError, match="numPositiveRef would reach"):
            ev.add_counts(positives=[2**62, 2**62], negatives=[0, 0], scores=[0.5, 0.25])
        assert ev.num_cases() == 1

    def test_a_failure_midway_adds_nothing(self) -> None:
        """A MemoryError in the third block leaves the evaluator as it was."""
        ev = Evaluation(ties="grouped")
        ev.add_counts(positives=[1, 2], negatives=[3, 0], scores=[0.75, 0.5])
        before = settled(ev)
        real = rankeval.scored.store.CaseStore.add_batch
        calls = []

        def failing(store: Any, labels: Any, keys: Any) -> None:
            calls.append(labels.shape[0])
            if len(calls) == 3:
                raise MemoryError("injected")
            real(store, labels, keys)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(rankeval.scored.store, "EXPAND_BLOCK", 2)
            patch.setattr(rankeval.scored.store.CaseStore, "add_batch", failing)
            with pytest.raises(MemoryError):
                ev.add_counts(positives=[3, 1], negatives=[2, 4], scores=[0.9, 0.1])
        assert calls == [2, 1, 2]  # 3 positives at 0.9 in blocks of 2, then its 2 negatives
        assert same(settled(ev), before)
        ev.add_counts(positives=[3, 1], negatives=[2, 4], scores=[0.9, 0.1])
        assert ev.num_cases() == 16

    def test_a_snapshot_is_read_only(self) -> None:
        ev = Evaluation(ties="grouped")
        with pytest.raises(TypeError, match="read-only"):
            ev.snapshot().add_counts(positives=1, negatives=1, scores=0.5)


@pytest.mark.parametrize("score_dtype", ["float64", "float32"])
def test_add_counts_past_memory_is_refused_at_once(score_dtype: str) -> None:
    """10**15 cases of one score: refused before any case is expanded (it used to run five
    minutes holding the lock before the system refused), and nothing changes."""
    ev = ScoredPrecisionRecallEvaluation(ties="grouped", score_dtype=score_dtype)
    ev.add_counts(positives=[2, 1], negatives=[1, 3], scores=[0.25, 0.75])
    before = (ev.num_cases(), ev.area_under_roc_curve())
    with pytest.raises(MemoryError, match="1,000,000,000,000,000 cases need about"):
        ev.add_counts(positives=10**15, negatives=0, scores=0.5)
    assert (ev.num_cases(), ev.area_under_roc_curve()) == before


def test_batches_wait_for_a_read_and_are_sorted_together() -> None:
    # add_cases batches are staged (no merge into the sorted tier each) until a read, in
    # order behind single adds; the read gives the bits of the cases added in one batch.
    rng = np.random.default_rng(4)
    batches = [(rng.random(700) < 0.3, np.round(rng.random(700), 2)) for _ in range(11)]
    for ties in ("insertion", "grouped"):
        ev = ScoredPrecisionRecallEvaluation(ties=ties)
        whole = ScoredPrecisionRecallEvaluation(ties=ties)
        for i, (labels, scores) in enumerate(batches):
            ev.add_cases(labels, scores)
            ev.add_case(bool(i % 2), 0.5)  # a pending add between batches keeps its place
            whole.add_cases(np.append(labels, bool(i % 2)), np.append(scores, 0.5))
        store = ev._store
        assert store._staged_count > 0  # not all merged yet
        assert store.size < 11 * 701
        assert ev.num_cases() == 11 * 701  # counts without folding
        assert ev.pr_curve().tolist() == whole.pr_curve().tolist()
        assert ev.area_under_roc_curve() == whole.area_under_roc_curve()
        assert ev._store._staged_count == 0
        ev._store._check()


def test_staged_batches_stay_within_the_limit() -> None:
    rng = np.random.default_rng(5)
    ev = ScoredPrecisionRecallEvaluation()
    staged = []
    with mock.patch.object(rankeval.scored.store, "BATCH_STAGE_LIMIT", 3000):
        for _ in range(40):
            ev.add_cases(rng.random(500) < 0.5, rng.random(500))
            staged.append(ev._store._staged_count)
    # folded when the staged cases reach the limit: staged 500, 1000, ... 2500, then folded
    assert staged == [500, 1000, 1500, 2000, 2500, 0] * 6 + [500, 1000, 1500, 2000]
    assert ev.num_cases() == 20_000
    ev.area_under_roc_curve()
    ev._store._check()
