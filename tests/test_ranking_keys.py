"""Keys of (query, document) pairs: hashes only propose, exact ids decide."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rankeval.ranking import join, trec_sort
from rankeval.ranking.join import PairIndex, doc_hash, first_duplicate

# Tiny id alphabets make repeats likely; the widths differ between arrays on purpose.
text_ids = st.text(alphabet="ab\u00e9\u4e2d\U0001f600", min_size=0, max_size=9)
byte_ids = st.binary(min_size=0, max_size=11).map(lambda b: b.rstrip(b"\0"))
int_ids = st.integers(min_value=-(2**63), max_value=2**63 - 1)
id_kinds = st.sampled_from(["U", "S", "i"])

# Adversarial hashes: all equal, equal high bits with different low bits, a few values, or
# high bits all set.
hash_modes = st.sampled_from(["real", "constant", "low_bits_only", "few", "last_slot"])


def _ids(draw: Any, kind: str, size: int) -> list[Any]:
    element = {"U": text_ids, "S": byte_ids, "i": int_ids}[kind]
    drawn: list[Any] = draw(st.lists(element, min_size=size, max_size=size))
    return drawn


def _array(ids: list[Any], kind: str) -> np.ndarray[Any, Any]:
    if kind == "i":
        return np.array(ids, dtype=np.int64)
    return np.array(ids, dtype=str if kind == "U" else bytes)


def _hashes(docid: np.ndarray[Any, Any], mode: str) -> np.ndarray[Any, np.dtype[np.uint64]]:
    real = doc_hash(docid)
    if mode == "constant":
        return np.full(real.shape, 0x0123456789ABCDEF, dtype=np.uint64)
    if mode == "low_bits_only":
        # Same high bits: one first slot for all, and tags that differ in the low bits only.
        return (real & np.uint64(0xFF)) | np.uint64(0xABCD << 48)
    if mode == "last_slot":
        # The high 32 bits choose the slot: all set, every document starts at its table's
        # last slot, so placing and probing wrap around to the first.
        return real | np.uint64(0xFFFFFFFF << 32)
    if mode == "few":
        return real % np.uint64(3)
    return real


@st.composite
def joins(draw: Any) -> tuple[Any, ...]:
    """Distinct judged pairs, probe pairs (many judged, some not), one id kind, a hash mode."""
    kind = draw(id_kinds)
    pool = list(dict.fromkeys(_ids(draw, kind, draw(st.integers(1, 12)))))
    queries = draw(st.integers(1, 4))
    judged = sorted(draw(st.sets(st.tuples(st.integers(0, queries - 1),
                                           st.sampled_from(pool)), max_size=30)),
                    key=repr)
    probes = draw(st.lists(st.tuples(st.integers(-1, queries), st.sampled_from(pool)),
                           max_size=40))
    return kind, judged, probes, draw(hash_modes)


class TestPairIndex:
    """PairIndex.lookup agrees with a dict of the judged pairs, whatever the hashes."""

    @given(joins(), st.sampled_from([1, 2, 5, 1 << 16]))
    @settings(max_examples=300, deadline=None)
    def test_lookup_equals_dict(self, case: tuple[Any, ...], build_rows: int) -> None:
        """Each probe finds the row of its pair, or -1, even under forced hash collisions,
        whatever the number of pairs placed at a time while building."""
        kind, judged, probes, mode = case
        jq = np.array([q for q, _ in judged], dtype=np.int64)
        jd = _array([d for _, d in judged], kind)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(join, "_BUILD_ROWS", build_rows)
            index = PairIndex(jq, jd, _hashes(jd, mode))
        pq = np.array([q for q, _ in probes], dtype=np.int64)
        pd = _array([d for _, d in probes], kind)
        expected = {pair: row for row, pair in enumerate(judged)}
        got = index.lookup(pq, pd, _hashes(pd, mode)).tolist()
        assert got == [expected.get(pair, -1) for pair in probes]

    @given(joins(), st.integers(1, 5), st.sampled_from([1, 3, 1 << 17]))
    @settings(max_examples=200, deadline=None)
    def test_grid_lookup_equals_dict(
        self, case: tuple[Any, ...], width: int, probe_rows: int
    ) -> None:
        """lookup_grid (one query per matrix row) finds the same rows as lookup, whatever
        the number of pairs probed at a time."""
        kind, judged, probes, mode = case
        docs = [d for _, d in probes][:width]
        assume(judged and docs)
        queries = max(q for q, _ in judged) + 1  # lookup_grid takes known queries only
        jq = np.array([q for q, _ in judged], dtype=np.int64)
        jd = _array([d for _, d in judged], kind)
        index = PairIndex(jq, jd, _hashes(jd, mode))
        grid_docs = _array(docs * queries, kind)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(join, "_PROBE_ROWS", probe_rows)
            got = index.lookup_grid(np.arange(queries), grid_docs, _hashes(grid_docs, mode))
        expected = {pair: row for row, pair in enumerate(judged)}
        assert got.tolist() == [expected.get((q, d), -1) for q in range(queries) for d in docs]

    def test_empty_index(self) -> None:
        """An index without pairs finds nothing."""
        index = PairIndex(np.zeros(0, dtype=np.int64), np.zeros(0, dtype="U1"))
        docs = np.array(["a", "b"])
        assert index.lookup(np.array([0, 3]), docs, doc_hash(docs)).tolist() == [-1, -1]


@st.composite
def rows(draw: Any) -> tuple[Any, ...]:
    """Rows of (query, docid), grouped by query or shuffled, with repeats likely."""
    kind = draw(id_kinds)
    pool = list(dict.fromkeys(_ids(draw, kind, draw(st.integers(1, 6)))))
    pairs = draw(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(pool)), max_size=40))
    if draw(st.booleans()):
        pairs.sort(key=lambda pair: pair[0])
    return kind, pairs, draw(hash_modes)


class TestFirstDuplicate:
    """first_duplicate names the earliest repeated (query, docid) pair, like a set scan."""

    @given(rows(), st.sampled_from([1, 2, 5, 1 << 15]))
    @settings(max_examples=300, deadline=None)
    def test_equals_scan(self, case: tuple[Any, ...], block: int) -> None:
        """Same answer as a left-to-right scan, under forced hash collisions too, whatever
        the number of rows hashed and sorted at a time."""
        kind, pairs, mode = case
        seen: dict[Any, int] = {}
        expected = None
        for row, pair in enumerate(pairs):
            if pair in seen:
                expected = (seen[pair], row)
                break
            seen[pair] = row
        q = np.array([p for p, _ in pairs], dtype=np.int64)
        d = _array([d for _, d in pairs], kind)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(join, "_BLOCK", block)
            assert first_duplicate(q, d, _hashes(d, mode)) == expected

    @pytest.mark.parametrize("width", [1, 7, 100])
    def test_grid_without_repeats(self, width: int) -> None:
        """Equal-length query blocks with distinct documents have no duplicate."""
        docs = np.array([f"doc{i}" for i in range(width)] * 50)
        assert first_duplicate(np.repeat(np.arange(50), width), docs) is None

    @pytest.mark.parametrize("block", [7, 8, 64, 1 << 15])
    def test_grid_repeat_in_a_later_block(self, block: int) -> None:
        """A repeat in query 37 of 50 equal-length queries is found, in any block size."""
        docs = np.array([f"doc{i}" for i in range(7)] * 50)
        docs[37 * 7 + 5] = "doc2"
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(join, "_BLOCK", block)
            assert first_duplicate(np.repeat(np.arange(50), 7), docs) == (37 * 7 + 2, 37 * 7 + 5)


    @pytest.mark.parametrize("block", [7, 8, 64, 1 << 15])
    def test_ragged_repeat_in_a_later_block(self, block: int) -> None:
        """A repeat in query 37 of 50 queries of unequal lengths (3 to 7 documents) is
        found, in any block size."""
        lengths = [3 + q % 5 for q in range(50)]
        docs = np.array([f"doc{i}" for n in lengths for i in range(n)])
        start = sum(lengths[:37])  # query 37 holds 3 + 37 % 5 = 5 documents
        docs[start + 4] = "doc1"
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(join, "_BLOCK", block)
            assert first_duplicate(np.repeat(np.arange(50), lengths), docs) == (
                start + 1, start + 4)


class TestDocHash:
    """doc_hash depends on the id only, not on the array's width or neighbours."""

    @given(id_kinds.flatmap(lambda kind: st.tuples(
        st.just(kind), st.lists({"U": text_ids, "S": byte_ids, "i": int_ids}[kind],
                                min_size=1, max_size=8))), st.sampled_from([1, 3, 1 << 15]))
    @settings(max_examples=200, deadline=None)
    def test_alone_equals_in_array(self, case: tuple[str, list[Any]], block: int) -> None:
        """Each id hashes the same alone as inside a wider array (hashed in blocks or not)."""
        kind, ids = case
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(join, "_BLOCK", block)
            together = doc_hash(_array(ids, kind))
        alone = [int(doc_hash(_array([i], kind))[0]) for i in ids]
        assert together.tolist() == alone


class TestTiePieces:
    """Tied rows are put in docid order a piece of whole tie blocks at a time: the rankings
    do not depend on the piece size."""

    @given(st.data(), st.sampled_from([1, 2, 3, 7, 1 << 18]),
           st.sampled_from(["docid_desc", "docid_asc"]), st.booleans())
    @settings(max_examples=200, deadline=None)
    def test_rankings_equal_a_sort(self, data: Any, piece: int, ties: str, grid: bool) -> None:
        """Every query ranked by score descending, ties by document id (bytes) as asked,
        checked against Python's sort, whatever the piece size."""
        queries = data.draw(st.integers(1, 4))
        fixed = data.draw(st.integers(1, 12))
        lengths = [fixed if grid else data.draw(st.integers(1, 12)) for _ in range(queries)]
        query = np.repeat(np.arange(queries), lengths)
        n = int(query.size)
        docid = np.array([f"d{data.draw(st.integers(0, 9))}{i:02d}".encode() for i in range(n)])
        # Scores from a few values: long tie blocks, several in a query.
        score = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n,
                                            max_size=n)))
        rel = np.arange(n, dtype=np.int64)  # each row judged with its own value
        run = trec_sort.RunRows(query, docid, score, doc_hash(docid), queries)
        judgments = trec_sort.JudgmentRows(query, rel, PairIndex(query, docid), queries)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(trec_sort, "_TIE_ROWS", piece)
            ranked = trec_sort.rank_queries(run, judgments, np.arange(queries),
                                            np.arange(queries), trec_sort.RankingRules(ties=ties))
        got = {int(p): ranked.rels[ranked.offsets[k]:ranked.offsets[k + 1]].tolist()
               for k, p in enumerate(ranked.positions)}
        reverse_ids = ties == "docid_desc"
        for q in range(queries):
            rows = np.flatnonzero(query == q).tolist()
            by_id = sorted(rows, key=lambda r: bytes(docid[r]), reverse=reverse_ids)
            expected = sorted(by_id, key=lambda r: -score[r])  # stable: ids order ties
            assert got[q] == expected
