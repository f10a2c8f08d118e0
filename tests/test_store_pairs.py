"""The store's pair count is exact when newer cases are counted block by block."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

import rankeval.scored.store
from rankeval import ScoredPrecisionRecallEvaluation
from tests import strategies
from tests.reference import Reference


@contextlib.contextmanager
def tiny_blocks() -> Iterator[None]:
    """Count pairs against older cases two newer cases at a time."""
    saved = rankeval.scored.store.PAIR_BLOCK
    rankeval.scored.store.PAIR_BLOCK = 2
    try:
        yield
    finally:
        rankeval.scored.store.PAIR_BLOCK = saved


class TestPairCountBlocks:
    @given(st.lists(strategies.cases, min_size=1, max_size=4), strategies.ties)
    def test_batches_against_older_cases(self, batches: list[list[tuple[bool, float]]],
                                         ties: str) -> None:
        """Several add_cases calls, each counted in blocks of two: the reference's ROC area."""
        with tiny_blocks():
            ev = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
            seen: list[tuple[bool, float]] = []
            for batch in batches:
                ev.add_cases([c for c, _ in batch], [s for _, s in batch])
                seen += batch
                ev._store._check()
                want = Reference(seen, 0, 0, ties).roc_auc_pairs(0, 0)
                got = ev.area_under_roc_curve()
                assert got == want or (got != got and want != want)
