"""Vectorised keys for ``(query, document)`` pairs: hashing, an exact hash join, duplicates.

Joining a run with its qrels means finding, for every retrieved ``(query, docid)``, the
judgment of the same pair, if any. Sorting a million string pairs (``np.unique``,
``np.lexsort``) costs about a third of a second; hashing them costs a few milliseconds. The
hash only *proposes* a match: every candidate is confirmed by comparing the actual query code
and document id, so a collision can never produce a wrong judgment.

Document ids may be byte strings (``S`` arrays, what the file reader produces), text (``U``
arrays) or integers. Both sides of a join must use the same kind; :func:`common_docids`
converts them.

Examples
--------
>>> qrels_q = np.array([0, 0, 1]); qrels_d = np.array([b"d1", b"d2", b"d1"])
>>> index = PairIndex(qrels_q, qrels_d)
>>> index.lookup(np.array([1, 0, 0]), np.array([b"d1", b"d9", b"d2"])).tolist()
[2, -1, 1]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "PairIndex",
    "common_docids",
    "doc_hash",
    "first_duplicate",
    "pair_hash",
]

IntArray = NDArray[np.int64]
UIntArray = NDArray[np.uint64]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


def _mix(z: UIntArray) -> UIntArray:
    """splitmix64's finaliser (a bijection on 64-bit words), elementwise, in place."""
    z ^= z >> _S30
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


def _words(docid: NDArray[np.generic]) -> UIntArray:
    """Document ids as rows of 64-bit words; zero words only appear as trailing padding."""
    n = int(docid.shape[0])
    kind = docid.dtype.kind
    if kind in "iu":
        return docid.astype(np.int64).view(np.uint64).reshape(n, 1)
    if kind not in "SU":
        raise TypeError(f"document ids must be strings, bytes or integers, got dtype {docid.dtype}")
    data = np.ascontiguousarray(docid)
    width = data.dtype.itemsize
    raw = data.view(np.uint8).reshape(n, width)
    pad = (-width) % 8
    if pad:
        raw = np.concatenate((raw, np.zeros((n, pad), dtype=np.uint8)), axis=1)
    return np.ascontiguousarray(raw).view(np.uint64).reshape(n, -1)


def doc_hash(docid: NDArray[np.generic]) -> UIntArray:
    """A 64-bit hash per document id, independent of the array's string width.

    >>> a = doc_hash(np.array([b"doc1", b"x"]))
    >>> b = doc_hash(np.array([b"doc1", b"a much longer id"]))
    >>> bool(a[0] == b[0]), bool(a[0] == a[1])
    (True, False)

    Complexity: O(n·w) for n ids of w bytes.
    """
    words = _words(docid)
    h = np.full(words.shape[0], _GOLDEN, dtype=np.uint64)
    for column in range(words.shape[1]):
        word = words[:, column]
        mixed = _mix(h ^ word)
        h = mixed if column == 0 else np.where(word != 0, mixed, h)
    return h


def pair_hash(query: IntArray, hashes: UIntArray) -> UIntArray:
    """Combine query codes with document hashes into one 64-bit hash per pair.

    Complexity: O(n).
    """
    q = query.astype(np.int64).view(np.uint64) * _GOLDEN
    return _mix(hashes ^ _mix(q + _M2))


def _same(a: NDArray[np.generic], b: NDArray[np.generic]) -> NDArray[np.bool_]:
    return np.asarray(a == b, dtype=bool)


def common_docids(
    left: NDArray[np.generic], right: NDArray[np.generic]
) -> tuple[NDArray[np.generic], NDArray[np.generic]]:
    """Bring two document-id arrays to one comparable kind (bytes, text or integers).

    Integers stay integers only if both sides are integers; otherwise everything becomes UTF-8
    bytes (``S``), whose byte order is trec_eval's ``strcmp`` order.

    >>> common_docids(np.array(["d1"]), np.array([b"d1"]))[0].dtype.kind
    'S'

    Complexity: O(n) (text is encoded only when the kinds differ).
    """
    lk, rk = left.dtype.kind, right.dtype.kind
    if lk == rk or (lk in "iu" and rk in "iu"):
        return left, right
    return as_bytes(left), as_bytes(right)


def as_bytes(values: NDArray[np.generic]) -> NDArray[np.bytes_]:
    """Ids as UTF-8 byte strings (integers in decimal).

    Complexity: O(n).
    """
    kind = values.dtype.kind
    if kind == "S":
        return values  # type: ignore[return-value]
    if kind in "iu":
        return values.astype(np.int64).astype("U").astype("S")  # ASCII digits
    if kind == "U":
        codes = np.ascontiguousarray(values).view(np.uint32)
        if values.size == 0 or int(codes.max(initial=0)) < 128:
            return values.astype("S")
        return np.array([str(v).encode("utf-8", "surrogatepass") for v in values], dtype="S")
    return np.array([str(v).encode("utf-8", "surrogatepass") for v in values], dtype="S")


class PairIndex:
    """An exact hash index of distinct ``(query code, document id)`` pairs.

    Open addressing with linear probing in a table of at least twice as many slots as pairs,
    built and queried with whole-array operations.

    Parameters
    ----------
    query : ndarray of int64
        Query code of each pair.
    docid : ndarray
        Document id of each pair (``S``, ``U`` or integer dtype). Pairs must be distinct.

    Complexity: O(m) expected to build for m pairs; ``lookup`` is O(n) expected.
    """

    def __init__(self, query: IntArray, docid: NDArray[np.generic]) -> None:
        self.query = np.asarray(query, dtype=np.int64)
        self.docid = docid
        m = int(self.query.shape[0])
        size = 16
        while size < 2 * m:
            size *= 2
        self._mask = np.uint64(size - 1)
        self._table = np.full(size, -1, dtype=np.int64)
        pending = np.arange(m, dtype=np.int64)
        slots = (pair_hash(self.query, doc_hash(docid)) & self._mask).astype(np.int64)
        while pending.size:
            free = self._table[slots] == -1
            cand, cand_slots = pending[free], slots[free]
            taken_slots, first = np.unique(cand_slots, return_index=True)
            self._table[taken_slots] = cand[first]
            placed = np.zeros(pending.size, dtype=bool)
            placed[np.flatnonzero(free)[first]] = True
            pending = pending[~placed]
            slots = (slots[~placed] + 1) & (size - 1)

    def lookup(self, query: IntArray, docid: NDArray[np.generic]) -> IntArray:
        """Row of each ``(query, docid)`` in the index, or -1 when absent.

        Complexity: O(n) expected.
        """
        n = int(query.shape[0])
        found = np.full(n, -1, dtype=np.int64)
        if n == 0 or self.query.size == 0:
            return found
        size = self._table.size
        active = np.arange(n, dtype=np.int64)
        slots = (pair_hash(query, doc_hash(docid)) & self._mask).astype(np.int64)
        q = query
        d = docid
        while active.size:
            row = self._table[slots]
            empty = row == -1
            safe = np.where(empty, 0, row)
            hit = ~empty & (self.query[safe] == q) & _same(self.docid[safe], d)
            found[active[hit]] = row[hit]
            going = ~empty & ~hit
            active, slots, q, d = active[going], (slots[going] + 1) & (size - 1), q[going], d[going]
        return found


def first_duplicate(query: IntArray, docid: NDArray[np.generic]) -> tuple[int, int] | None:
    """Rows ``(first, second)`` of the first repeated ``(query, docid)`` pair, or ``None``.

    ``second`` is the earliest row repeating an earlier one, ``first`` that earlier row.

    >>> first_duplicate(np.array([0, 0, 1, 0]), np.array([b"a", b"b", b"a", b"a"]))
    (0, 3)

    Complexity: O(n log n) for the sort of the 64-bit pair hashes.
    """
    n = int(query.shape[0])
    if n < 2:
        return None
    q = np.asarray(query, dtype=np.int64)
    h = pair_hash(q, doc_hash(docid))
    # Rows whose hash shares a bucket with another row are the only duplicate candidates.
    size = 1 << max(4, int(4 * n - 1).bit_length())
    bucket = (h & np.uint64(size - 1)).astype(np.int64)
    crowded = np.bincount(bucket, minlength=size)[bucket] > 1
    if not crowded.any():
        return None
    rows = np.flatnonzero(crowded)
    order = rows[np.lexsort((rows, h[rows]))]
    hs = h[order]
    equal = np.flatnonzero(hs[1:] == hs[:-1])
    best: tuple[int, int] | None = None
    for pos in equal:
        block_start = int(pos)
        while block_start > 0 and hs[block_start - 1] == hs[pos]:
            block_start -= 1
        later = int(order[pos + 1])
        for earlier in order[block_start : pos + 1]:
            e = int(earlier)
            if q[e] == q[later] and docid[e] == docid[later]:
                if best is None or later < best[1]:
                    best = (e, later)
                break
    return best
