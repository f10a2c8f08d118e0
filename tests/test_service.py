"""Living inside a service: threads, merging, copies, snapshots, reset, save/load."""

from __future__ import annotations

import copy
import math
import pickle
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval import ScoredPrecisionRecallEvaluation
from tests import strategies
from tests.conftest import RUNNING_EXAMPLE, close, evaluation_of, same, snapshot
from tests.helpers import Stream, assert_matches_reference, ordered_batches, small_buffer
from tests.reference import Reference


def evaluate_shard(seed: int) -> ScoredPrecisionRecallEvaluation:
    """A worker process: evaluate one shard of a classifier's output."""
    rng = np.random.default_rng(seed)
    labels = rng.random(5_000) < 0.3
    ev = ScoredPrecisionRecallEvaluation(ties="grouped")
    ev.add_cases(labels, np.round(rng.normal(labels * 1.0, 1.0), 2))
    return ev


class TestThreads:
    """Many writers and readers share one evaluator safely."""

    def test_stress(self) -> None:
        """8 threads x 25,000 adds with 2 readers: exact counts, metrics equal a serial run."""
        rng = np.random.default_rng(7)
        shards = []
        for _ in range(8):
            labels = rng.random(25_000) < 0.3
            shards.append((labels.tolist(), np.round(rng.normal(labels * 1.0, 1.0), 2).tolist()))
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        stop = threading.Event()
        errors: list[BaseException] = []
        reads = [0, 0]

        def writer(labels: list[bool], scores: list[float]) -> None:
            try:
                for i, (correct, score) in enumerate(zip(labels, scores, strict=True)):
                    ev.add_case(correct, score)
                    if i % 5000 == 4999:
                        ev.add_misses(1)
            except BaseException as error:  # pragma: no cover - reported below
                errors.append(error)

        def reader(slot: int) -> None:
            try:
                while not stop.is_set():
                    auc = ev.area_under_roc_curve()
                    assert math.isnan(auc) or 0.0 <= auc <= 1.0  # NaN until R, N > 0
                    ev.precision_at(10)
                    ev.reciprocal_rank()
                    if reads[slot] % 50 == 0:
                        curve = ev.pr_curve()
                        assert curve[0].tolist() == [0.0, 1.0]
                    reads[slot] += 1
            except BaseException as error:  # pragma: no cover - reported below
                errors.append(error)

        readers = [threading.Thread(target=reader, args=(i,)) for i in range(2)]
        writers = [threading.Thread(target=writer, args=shard) for shard in shards]
        for thread in readers + writers:
            thread.start()
        for thread in writers:
            thread.join(timeout=120)
        stop.set()
        for thread in readers:
            thread.join(timeout=30)
        assert not errors
        assert min(reads) > 0
        assert ev.num_cases() == 8 * 25_000 + 8 * 5
        serial = ScoredPrecisionRecallEvaluation(ties="grouped")
        for labels, scores in shards:
            serial.add_cases(labels, scores)
        serial.add_misses(8 * 5)
        assert ev == serial
        assert same(snapshot(ev), snapshot(serial))


    @pytest.mark.parametrize("window", [None, 50])
    def test_an_add_landing_between_the_fold_and_the_ranking(
            self, monkeypatch: pytest.MonkeyPatch, window: int | None) -> None:
        """add_case appends without the lock, so a case may arrive after a read folded and
        before it reads the ranking (found once by the Prometheus test's 8 writers). The
        read must use the ranking it folded; the late case waits for the next read."""
        from rankeval.scored.store import CaseStore

        ev = ScoredPrecisionRecallEvaluation(window=window)
        ev.add_cases([True, False, True], [0.9, 0.5, 0.1])
        ev.add_case(False, 0.3)  # pending, and the buffer unmerged: the read merges
        original = CaseStore.ranking
        late = [(True, 0.95)]

        def ranking(store: CaseStore) -> Any:
            while late:  # what another thread's add_case does, at the worst moment
                ev.add_case(*late.pop())
            return original(store)

        monkeypatch.setattr(CaseStore, "ranking", ranking)
        assert ev.average_precision() == (1 + 2 / 4) / 2  # the four cases before the late one
        assert ev.num_cases() == 5  # the next read takes it in
        assert (ev.precision_at(1), ev.average_precision()) == (1.0, (1 + 1 + 3 / 5) / 3)


class TestMerge:
    """merge and + equal one evaluator that saw both streams."""

    @settings(max_examples=50, deadline=None)
    @given(a=strategies.cases, b=strategies.cases, ties=strategies.ties,
           misses=strategies.miss_counts)
    def test_merge_equals_sequential(self, a: list[Any], b: list[Any], ties: str,
                                     misses: int) -> None:
        """a.merge(b) equals one evaluator fed a's cases then b's (and a + b too)."""
        left = evaluation_of(a, ties)
        right = evaluation_of(b, ties, misses=misses, negative_misses=1)
        combined = left + right
        left.merge(right)
        expected = evaluation_of(a + b, ties, misses=misses, negative_misses=1)
        assert left == expected == combined
        assert same(snapshot(left), snapshot(expected))

    @settings(max_examples=40, deadline=None)
    @given(a=strategies.cases, b=strategies.cases, c=strategies.cases, ties=strategies.ties)
    def test_associative(self, a: list[Any], b: list[Any], c: list[Any], ties: str) -> None:
        """(a + b) + c == a + (b + c)."""
        x = evaluation_of(a, ties)
        y = evaluation_of(b, ties, misses=1)
        z = evaluation_of(c, ties, negative_misses=2)
        assert (x + y) + z == x + (y + z)
        assert same(snapshot((x + y) + z), snapshot(x + (y + z)))

    @settings(max_examples=40, deadline=None)
    @given(a=strategies.tied_cases, b=strategies.tied_cases)
    def test_grouped_commutative(self, a: list[Any], b: list[Any]) -> None:
        """Under grouped ties the merge order does not matter."""
        assert evaluation_of(a, "grouped") + evaluation_of(b, "grouped") == (
            evaluation_of(b, "grouped") + evaluation_of(a, "grouped")
        )

    def test_settings_mismatch(self) -> None:
        """Merging evaluators with different tie policies is a ValueError, nothing changes."""
        a, b = evaluation_of(RUNNING_EXAMPLE), evaluation_of(RUNNING_EXAMPLE, "grouped")
        before = snapshot(a)
        with pytest.raises(ValueError, match="cannot merge"):
            a.merge(b)
        with pytest.raises(TypeError):
            a.merge([1, 2])  # type: ignore[arg-type]
        assert same(snapshot(a), before)

    def test_process_pool_shards(self) -> None:
        """Shards evaluated in worker processes merge into the whole-data result."""
        with ProcessPoolExecutor(max_workers=2) as pool:
            parts = list(pool.map(evaluate_shard, range(4)))
        total = ScoredPrecisionRecallEvaluation(ties="grouped")
        for part in parts:
            total.merge(part)
        serial = ScoredPrecisionRecallEvaluation(ties="grouped")
        for seed in range(4):
            serial.merge(evaluate_shard(seed))
        assert total == serial
        assert total.num_cases() == 20_000
        assert total.area_under_roc_curve() == serial.area_under_roc_curve()


class TestCopies:
    """pickle, deepcopy, snapshot, reset."""

    @settings(max_examples=40, deadline=None)
    @given(cases=strategies.cases, ties=strategies.ties, misses=strategies.miss_counts)
    def test_pickle_and_deepcopy(self, cases: list[Any], ties: str, misses: int) -> None:
        """pickle and deepcopy round-trip to an equal, independent evaluator."""
        ev = evaluation_of(cases, ties, misses=misses)
        for clone in (pickle.loads(pickle.dumps(ev)), copy.deepcopy(ev)):
            assert clone == ev
            assert same(snapshot(clone), snapshot(ev))
            clone.add_case(True, 0.0)
            assert clone.num_cases() == ev.num_cases() + 1

    def test_snapshot_is_frozen(self) -> None:
        """A snapshot keeps its values when the live evaluator changes, and refuses adds."""
        ev = evaluation_of(RUNNING_EXAMPLE, misses=1)
        ev.add_case(True, -1.0)  # still pending when the snapshot is taken
        frozen = ev.snapshot()
        before = snapshot(frozen)
        ev.add_case(True, 10.0)
        ev.add_cases([False] * 5, [5.0] * 5)
        ev.add_misses(3)
        assert same(snapshot(frozen), before)
        for call in (lambda: frozen.add_case(True, 1.0), lambda: frozen.add_misses(1),
                     lambda: frozen.add_cases([True], [1.0]), frozen.reset,
                     lambda: frozen.merge(ev)):
            with pytest.raises(TypeError, match="read-only"):
                call()
        assert same(snapshot(frozen), before)
        for copied in (pickle.loads(pickle.dumps(frozen)), copy.deepcopy(frozen)):
            with pytest.raises(TypeError, match="read-only"):
                copied.add_case(True, 1.0)
            assert same(snapshot(copied), before)
        combined = frozen + ev  # a live evaluator
        combined.add_case(False, 0.5)
        assert combined.num_cases() == frozen.num_cases() + ev.num_cases() + 1

    def test_reset(self) -> None:
        """reset() returns to the empty evaluation and keeps the tie policy."""
        ev = evaluation_of(RUNNING_EXAMPLE, "grouped", misses=2)
        ev.reset()
        assert ev == ScoredPrecisionRecallEvaluation(ties="grouped")
        assert same(snapshot(ev), snapshot(ScoredPrecisionRecallEvaluation(ties="grouped")))


class TestSaveLoad:
    """save -> load gives an equal evaluator."""

    @settings(max_examples=40, deadline=None)
    @given(cases=strategies.cases, ties=strategies.ties, misses=strategies.miss_counts,
           huge=st.booleans())
    def test_round_trip(self, tmp_path_factory: pytest.TempPathFactory, cases: list[Any],
                        ties: str, misses: int, huge: bool) -> None:
        """Every case, miss count (even beyond 64 bits) and the tie policy survive."""
        ev = evaluation_of(cases, ties, misses=misses)
        if huge:
            ev.add_negative_misses(2**62)
        path = tmp_path_factory.mktemp("state") / "ev.rankeval"
        ev.save(path)
        loaded = ScoredPrecisionRecallEvaluation.load(path)
        assert loaded == ev
        assert same(snapshot(loaded), snapshot(ev))

    def test_overwrite_and_garbage(self, tmp_path: Path) -> None:
        """Saving replaces the file whole; a foreign file is refused with its name."""
        path = tmp_path / "ev.rankeval"
        evaluation_of(RUNNING_EXAMPLE).save(path)
        bigger = evaluation_of(RUNNING_EXAMPLE * 3, misses=2)
        bigger.save(path)
        assert ScoredPrecisionRecallEvaluation.load(path) == bigger
        path.write_bytes(b"not a state file")
        with pytest.raises(ValueError, match=r"ev\.rankeval"):
            ScoredPrecisionRecallEvaluation.load(path)


class TestWindow:
    """window=W: every value exact over the W most recent cases."""

    @settings(max_examples=80, deadline=None)
    @given(ops=strategies.operations, ties=strategies.ties, window=st.integers(1, 12),
           buffer=st.sampled_from([1, 2, 5, 1024]))
    def test_equals_reference_on_last_w(self, ops: list[Any], ties: str, window: int,
                                        buffer: int) -> None:
        """After every operation the window equals a fresh evaluator of the last W cases."""
        with small_buffer(buffer):
            ev = ScoredPrecisionRecallEvaluation(ties=ties, window=window)  # type: ignore[arg-type]
            stream = Stream()
            for step, op in enumerate(ops):
                stream.apply(ev, op)
                cases, misses, negative_misses = stream.cases, stream.misses, stream.negative_misses
                live = cases[-window:]
                ref = Reference(live, misses, negative_misses, ties)
                assert ev.num_cases() == len(live) + misses + negative_misses
                assert close(ev.area_under_roc_curve(), ref.roc_auc_pairs(misses, negative_misses))
                for k in (1, 2, 5, len(live) + 1):
                    assert close(ev.precision_at(k), ref.precision_at(k)), k
                assert close(ev.reciprocal_rank(), ref.reciprocal_rank())
                ev._store._check()
                if step % 3 == 2:
                    assert_matches_reference(ev, live, misses, negative_misses)

    @settings(max_examples=40, deadline=None)
    @given(batches=st.lists(st.lists(st.tuples(st.booleans(), strategies.scores), max_size=9),
                            min_size=1, max_size=40),
           ties=strategies.ties, window=st.integers(8, 60), buffer=st.sampled_from([4, 16]),
           ordered_from=st.sampled_from([1, 3, 32]))
    def test_dead_cases_between_rebuilds(self, batches: list[list[Any]], ties: str, window: int,
                                         buffer: int, ordered_from: int) -> None:
        """Evicted cases that still sit in the main tier are counted out of every read.

        Windows larger than the buffer keep a main tier that evictions hit
        fold after fold before a rebuild drops them: the live-case view
        (counts, the i-th live case, the first live positive) must equal the
        slow reference on the last W cases after every fold. Batches that
        remember their sort order are evicted whole, in part, or several at
        once (``_check`` verifies the remembered orders and pair counts).
        """
        with small_buffer(buffer), ordered_batches(ordered_from):
            ev = ScoredPrecisionRecallEvaluation(ties=ties, window=window)  # type: ignore[arg-type]
            cases: list[tuple[bool, float]] = []
            for batch in batches:
                for correct, score in batch:
                    ev.add_case(correct, score)
                cases += batch
                live = cases[-window:]
                ref = Reference(live, 0, 0, ties)
                assert close(ev.area_under_roc_curve(), ref.roc_auc_pairs(0, 0))
                ev._store._check()
                for k in range(1, len(live) + 2, 3):
                    assert close(ev.precision_at(k), ref.precision_at(k)), k
                assert close(ev.reciprocal_rank(), ref.reciprocal_rank())
            assert_matches_reference(ev, cases[-window:], 0, 0)

    @pytest.mark.parametrize("ties", ["insertion", "grouped"])
    def test_staged_adds_survive_copies_and_files(self, tmp_path: Path, ties: str) -> None:
        """Adds a window staged between reads are in every copy, snapshot, file and merge."""
        cases = [(i % 3 == 0, float(i % 7)) for i in range(27)]
        with small_buffer(4):  # an add stages every 2 cases, a window of 40 folds at 10
            ev = ScoredPrecisionRecallEvaluation(ties=ties, window=40)  # type: ignore[arg-type]
            for correct, score in cases:
                ev.add_case(correct, score)
            assert ev._store._staged_count == 6
            assert len(ev._store.pending) == 1
            copies = [ev.snapshot(), copy.deepcopy(ev), pickle.loads(pickle.dumps(ev)),
                      ScoredPrecisionRecallEvaluation(ties=ties, window=40) + ev]  # type: ignore[arg-type]
            ev.save(tmp_path / "ev.rankeval")
            copies.append(ScoredPrecisionRecallEvaluation.load(tmp_path / "ev.rankeval"))
            expected = ScoredPrecisionRecallEvaluation(ties=ties, window=40)  # type: ignore[arg-type]
            expected.add_cases([c for c, _ in cases], [x for _, x in cases])
            for clone in [ev, *copies]:
                assert clone == expected
                assert clone.num_cases() == 27
                assert clone.area_under_roc_curve() == expected.area_under_roc_curve()
                clone._store._check()

    def test_ring_grows_with_the_cases_held(self) -> None:
        """A huge window costs memory for the cases held, not for the window asked for."""
        ev = ScoredPrecisionRecallEvaluation(window=10**15)
        assert ev._store._ring_keys.nbytes == 0
        ev.add_cases([True, False] * 1500, [float(i) for i in range(3000)])
        assert 3000 <= ev._store._ring_keys.shape[0] < 8192
        assert ev.num_cases() == 3000
        ref = Reference([(i % 2 == 0, float(i)) for i in range(3000)], 0, 0, "insertion")
        assert close(ev.area_under_roc_curve(), ref.roc_auc_pairs(0, 0))

    @settings(max_examples=30, deadline=None)
    @given(a=strategies.cases, b=strategies.cases, ties=strategies.ties, window=st.integers(1, 30))
    def test_copies_merge_and_files(self, tmp_path_factory: pytest.TempPathFactory,
                                    a: list[Any], b: list[Any], ties: str, window: int) -> None:
        """merge = one stream, and save/load, pickle keep the window and its arrival order."""
        x = evaluation_of(a, ties, window=window)
        y = evaluation_of(b, ties, window=window)
        assert x + y == evaluation_of(a + b, ties, window=window)
        path = tmp_path_factory.mktemp("window") / "w.rankeval"
        x.save(path)
        loaded = ScoredPrecisionRecallEvaluation.load(path)
        assert loaded == x
        assert loaded.window == window
        for clone in (loaded, pickle.loads(pickle.dumps(x))):
            clone.add_cases([c for c, _ in b], [s for _, s in b])
            assert clone == evaluation_of(a + b, ties, window=window)

    def test_window_settings(self) -> None:
        """Bad windows are refused; different windows do not merge."""
        with pytest.raises(ValueError, match="window"):
            ScoredPrecisionRecallEvaluation(window=0)
        with pytest.raises(TypeError, match="window"):
            ScoredPrecisionRecallEvaluation(window=2.5)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="cannot merge"):
            ScoredPrecisionRecallEvaluation(window=3).merge(ScoredPrecisionRecallEvaluation())
