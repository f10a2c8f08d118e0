"""Vectorised keys for ``(query, document)`` pairs: hashing, an exact hash join, duplicates.

Joining a run with its qrels means finding, for every retrieved ``(query, docid)``, the
judgment of the same pair, if any. Sorting a million string pairs (``np.unique``,
``np.lexsort``) costs about a third of a second; hashing them costs a few milliseconds. The
hash only *proposes* a match: every candidate is confirmed on the actual query code and
document id, so a collision can never produce a wrong judgment.

Document ids may be byte strings (``S`` arrays, what the file reader produces), text (``U``
arrays) or integers. Both sides of a join must use the same kind; :func:`common_docids`
converts them.

Everything is whole-array NumPy. Large inputs go through in blocks of rows whose temporaries
stay in cache (``_BLOCK``, ``_PROBE_ROWS``), and the hot loops select with index arrays and
``ndarray.take``: on these sizes boolean-mask indexing, ``nonzero`` of integers and fancy
indexing of fixed-width strings each cost several times more.

Examples
--------
>>> qrels_q = np.array([0, 0, 1]); qrels_d = np.array([b"d1", b"d2", b"d1"])
>>> index = PairIndex(qrels_q, qrels_d)
>>> run_d = np.array([b"d1", b"d9", b"d2"])
>>> index.lookup(np.array([1, 0, 0]), run_d, doc_hash(run_d)).tolist()
[2, -1, 1]
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Matches",
    "PairIndex",
    "as_bytes",
    "common_docids",
    "doc_hash",
    "first_duplicate",
    "pair_hash",
    "sorted_distinct",
]

IntArray = NDArray[np.int64]
UIntArray = NDArray[np.uint64]
BoolArray = NDArray[np.bool_]
_Item = TypeVar("_Item", bound=np.generic)

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_LITTLE = sys.byteorder == "little"
# Rows hashed at a time: a block's word columns (a few hundred KB) stay in cache while
# every column pass and the final mix run over them.
_BLOCK = 1 << 15
# Pairs probed at a time by PairIndex.matches_grid, for the same reason.
_PROBE_ROWS = 1 << 17
# Pairs placed at a time when a PairIndex is built.
_BUILD_ROWS = 1 << 16


def _mix(z: UIntArray, scratch: UIntArray) -> UIntArray:
    """splitmix64's finaliser (a bijection on 64-bit words), elementwise, in place."""
    for shift, factor in ((30, _M1), (27, _M2)):
        np.right_shift(z, np.uint64(shift), out=scratch)
        np.bitwise_xor(z, scratch, out=z)
        np.multiply(z, factor, out=z)
    np.right_shift(z, np.uint64(31), out=scratch)
    np.bitwise_xor(z, scratch, out=z)
    return z


def sorted_distinct(values: NDArray[_Item]) -> NDArray[_Item]:
    """The distinct values, sorted: ``np.unique`` without its import of ``numpy.ma`` (6 ms
    of a 5-line ``rankeval trec``).

    >>> sorted_distinct(np.array([3, 1, 3])).tolist()
    [1, 3]

    Complexity: O(n log n).
    """
    ordered = np.sort(values)
    if ordered.shape[0] < 2:
        return ordered
    keep = np.empty(ordered.shape[0], dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _column_factors(count: int) -> UIntArray:
    """An odd 64-bit multiplier per word position c < ``count``: golden * (2c + 1), modulo
    2**64, with its low bit set."""
    columns = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):  # products wrap modulo 2**64
        return (np.uint64(0x9E3779B97F4A7C15) * (np.uint64(2) * columns + np.uint64(1))
                ) | np.uint64(1)


# One 64-bit word of every row: little-endian pieces of the rows, each with a shift (bits;
# negative: to the right) that puts its bytes where they sit in the zero-padded word.
_Word = list[tuple[NDArray[np.unsignedinteger[Any]], int]]


def _words(raw: NDArray[np.uint8]) -> list[_Word]:
    """Rows of bytes as zero-padded little-endian 64-bit words, without copying the rows.

    Full words are strided views into the rows. A partial last word (``w % 8`` bytes) is
    read as the row's last 8 bytes shifted right past the previous word's bytes; rows
    shorter than 8 bytes are read as 4-, 2- and 1-byte pieces shifted into place. Either
    way a word equals the zero-padded one, so ids hash alike in arrays of any width.
    """
    width = int(raw.shape[1])
    words: list[_Word] = [
        [(raw[:, 8 * c : 8 * c + 8].view("<u8")[:, 0], 0)] for c in range(width // 8)
    ]
    rest = width % 8
    if rest and width >= 8:
        words.append([(raw[:, width - 8 :].view("<u8")[:, 0], -8 * (8 - rest))])
    elif rest:
        pieces: _Word = []
        offset = 0
        for size in (4, 2, 1):
            if rest & size:
                pieces.append((raw[:, offset : offset + size].view(f"<u{size}")[:, 0],
                                8 * offset))
                offset += size
        words.append(pieces)
    return words


def _read_word(word: _Word, rows: slice, out: UIntArray) -> NDArray[np.unsignedinteger[Any]]:
    """One word column of a block of rows: the strided view itself when the word is one
    whole piece, else assembled into ``out``."""
    first, shift = word[0]
    if shift == 0 and len(word) == 1:
        return first[rows]
    out[...] = first[rows]
    if shift < 0:
        out >>= np.uint64(-shift)
    for piece, left in word[1:]:
        out |= piece[rows].astype(np.uint64) << np.uint64(left)
    return out


def doc_hash(docid: NDArray[np.generic]) -> UIntArray:
    """A 64-bit hash per document id, independent of the array's string width.

    An id's bytes (UTF-32 code units for text, ``U``; the bytes for ``S``; the value for
    integers) are read as little-endian 64-bit words; word c is multiplied by its own odd
    constant, the products are XORed (zero padding adds nothing) and the result is mixed
    with splitmix64's finaliser. Text and bytes hash differently; a join first brings both
    sides to one kind (:func:`common_docids`).

    >>> a = doc_hash(np.array([b"doc1", b"x"]))
    >>> b = doc_hash(np.array([b"doc1", b"a much longer id"]))
    >>> bool(a[0] == b[0]), bool(a[0] == a[1])
    (True, False)

    Complexity: O(n·w) for n ids of w bytes, in cache-sized blocks of rows.
    """
    n = int(docid.shape[0])
    kind = docid.dtype.kind
    out = np.empty(n, dtype=np.uint64)
    scratch = np.empty(min(n, _BLOCK), dtype=np.uint64)
    if kind in "iu":
        values = docid.astype(np.int64, copy=False).view(np.uint64)
        for lo in range(0, n, _BLOCK):
            h = out[lo : lo + _BLOCK]
            np.bitwise_xor(values[lo : lo + _BLOCK], _GOLDEN, out=h)
            _mix(h, scratch[: h.size])
        return out
    if kind == "O":  # bytes of very unequal lengths (see trec_files.compact_ids)
        items = docid.tolist()
        if not all(isinstance(v, bytes) for v in items):
            raise TypeError("an object array of document ids must hold bytes only")
        # Python's hash of bytes (SipHash) is consistent within the process, which is
        # all an in-memory join needs; the index compares the ids themselves too.
        out[:] = np.fromiter(map(hash, items), dtype=np.int64, count=n).view(np.uint64)
        out ^= _GOLDEN
        return _mix(out, np.empty_like(out))
    if kind not in "SU":
        raise TypeError(f"document ids must be strings, bytes or integers, got dtype {docid.dtype}")
    width = int(docid.dtype.itemsize)
    if n == 0 or width == 0:
        out.fill(_GOLDEN)
        return _mix(out, np.empty_like(out))
    raw = np.ascontiguousarray(docid).view(np.uint8).reshape(n, width)
    if width > _WIDE:
        return _wide_hash(raw, out)
    words = _words(raw)
    factors = _column_factors(len(words))
    for lo in range(0, n, _BLOCK):
        rows = slice(lo, lo + _BLOCK)
        h = out[rows]
        word = scratch[: h.size]
        started = False
        # Last word first (XOR does not mind the order): trailing words that are padding in
        # every row of the block add nothing and are skipped.
        for c in range(len(words) - 1, -1, -1):
            value = _read_word(words[c], rows, word)
            if started:
                np.multiply(value, factors[c], out=word)
                h ^= word
            elif c == 0 or value.any():
                np.multiply(value, factors[c], out=h)
                started = True
        h ^= _GOLDEN
        _mix(h, word)
    return out


# Ids wider than this many bytes hash by whole matrices of words (one loop step a word
# column would cost seconds for a 1 MB id).
_WIDE = 256


def _wide_hash(raw: NDArray[np.uint8], out: UIntArray) -> UIntArray:
    """:func:`doc_hash` of wide ids, the same values: the whole words of a block of rows
    times their factors, XORed along the row; then the partial last word as ``_words``
    reads it. Blocks hold about 2**16 words."""
    n, width = raw.shape
    full = width // 8
    factors = _column_factors(full + 1)  # the last for a partial word
    words = raw[:, : 8 * full].view("<u8")
    partial = _words(raw)[full:] if width % 8 else []
    step = max(1, (1 << 16) // max(full, 1))
    scratch = np.empty(min(n, step), dtype=np.uint64)
    for lo in range(0, n, step):
        rows = slice(lo, lo + step)
        h = out[rows]
        np.bitwise_xor.reduce(words[rows] * factors[:full], axis=1, out=h)
        for word in partial:
            value = _read_word(word, rows, scratch[: h.size])
            h ^= value * factors[full]
        h ^= _GOLDEN
        _mix(h, scratch[: h.size])
    return out


def pair_hash(query: IntArray, hashes: UIntArray) -> UIntArray:
    """Combine query codes with (already mixed) document hashes: one 64-bit key per pair.

    For a fixed query this is a bijection of the document hash, so two pairs of one query
    share a key exactly when their documents share a hash.

    >>> h = doc_hash(np.array([b"d1", b"d1"]))
    >>> k = pair_hash(np.array([0, 1]), h)
    >>> bool(k[0] != k[1])
    True

    Complexity: O(n).
    """
    key = np.asarray(query, dtype=np.int64).view(np.uint64) * _GOLDEN
    key ^= hashes
    return key


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
    if "O" in (lk, rk):  # one side holds bytes of very unequal lengths: both become that
        return as_objects(as_bytes(left)), as_objects(as_bytes(right))
    return as_bytes(left), as_bytes(right)


def as_objects(values: NDArray[np.generic]) -> NDArray[np.object_]:
    """Byte-string ids as an object array of ``bytes`` (for joins with one, see doc_hash)."""
    if values.dtype.kind == "O":
        return values  # type: ignore[return-value]
    out = np.empty(values.shape[0], dtype=object)
    out[:] = values.tolist()
    return out


def as_bytes(values: NDArray[np.generic]) -> NDArray[np.bytes_]:
    """Ids as UTF-8 byte strings (integers in decimal).

    >>> as_bytes(np.array([10, 9])).tolist()
    [b'10', b'9']

    Complexity: O(n).
    """
    kind = values.dtype.kind
    if kind in "SO":  # an object array here holds bytes already (see doc_hash)
        return values  # type: ignore[return-value]
    if kind in "iu":
        return values.astype(np.int64).astype("U").astype("S")  # ASCII digits
    if kind == "U":
        codes = np.ascontiguousarray(values).view(np.uint32)
        if values.size == 0 or int(codes.max(initial=0)) < 128:
            return values.astype("S")
    return np.array([str(v).encode("utf-8", "surrogatepass") for v in values], dtype="S")


@dataclass(frozen=True)
class Matches:
    """Probed pairs found in a :class:`PairIndex`: pair ``position[i]`` is row ``row[i]``.

    Positions come in no particular order.
    """

    position: IntArray
    row: IntArray

    def found(self, n: int) -> IntArray:
        """Row of each of ``n`` probed pairs, -1 for the pairs not found.

        >>> Matches(np.array([2]), np.array([5])).found(3).tolist()
        [-1, -1, 5]

        Complexity: O(n).
        """
        out = np.full(n, -1, dtype=np.int64)
        out[self.position] = self.row
        return out


def _same_ids(a: NDArray[np.generic], b: NDArray[np.generic]) -> BoolArray:
    """Elementwise equality of two id arrays of one kind."""
    if a.dtype == b.dtype and a.dtype.kind in "SU" and a.size:
        # Raw words: one flat integer comparison instead of a string comparison per id
        # (equal strings of one dtype have equal padded bytes).
        size = next(w for w in (8, 4, 2, 1) if a.dtype.itemsize % w == 0)
        differs = np.flatnonzero(np.ascontiguousarray(a).view(f"u{size}")
                                 != np.ascontiguousarray(b).view(f"u{size}"))
        same = np.ones(a.shape[0], dtype=bool)
        same[differs // (a.dtype.itemsize // size)] = False
        return same
    return np.asarray(a == b, dtype=bool)


class PairIndex:
    """An exact hash index of distinct ``(query code, document id)`` pairs.

    Each query owns a small open-addressing table (twice as many slots as judgments, at
    least 16) inside one array, so the lookups of one query's documents stay within a few
    cache lines; twice, not the four times a power of two would round to, keeps the index
    of a large qrels (a few hundred thousand judgments) megabytes smaller for a few percent
    of its probing time. A slot is one 64-bit word: the document hash's bits above the
    low ``row_bits`` with the row (plus one; 0 marks an empty slot) in those low bits, so a
    probe is one plain integer gather (a gather of 16-byte structured slots is several
    times slower). The hash's high 32 bits choose the slot; documents sharing one still
    differ in the bits below, which the word keeps; every match is confirmed on the
    actual ids anyway. Built and queried with whole-array operations.

    Parameters
    ----------
    query : ndarray of int64
        Query code of each pair (codes are small non-negative integers).
    docid : ndarray
        Document id of each pair (``S``, ``U`` or integer dtype). Pairs must be distinct.
    hashes : ndarray of uint64, optional
        ``doc_hash(docid)``, when already known.

    Complexity: O(m) expected to build for m pairs; ``lookup`` is O(n) expected.
    """

    def __init__(
        self, query: IntArray, docid: NDArray[np.generic], hashes: UIntArray | None = None
    ) -> None:
        self.query = np.asarray(query, dtype=np.int64)
        self.docid = docid
        m = int(self.query.shape[0])
        doc = doc_hash(docid) if hashes is None else hashes
        queries = int(self.query.max(initial=-1)) + 1
        per_query = np.bincount(self.query, minlength=queries)
        # Per-query table sizes: twice the judgments (at least 16 slots), so a table is at
        # most half full and a probe for an absent document (most of a run) meets an empty
        # slot within two or three slots.
        self._size = np.maximum(2 * per_query, 16)
        self._base = np.zeros(queries + 1, dtype=np.int64)
        np.cumsum(self._size, out=self._base[1:])
        self._row_mask = np.int64((1 << m.bit_length()) - 1)
        self._table = np.zeros(int(self._base[-1]), dtype=np.int64)
        # In blocks of rows (a block's rows see the earlier blocks' slots as taken): the
        # temporaries stay a few MB whatever m is.
        for lo in range(0, m, _BUILD_ROWS):
            self._insert(lo, min(lo + _BUILD_ROWS, m), doc)

    def _insert(self, lo: int, hi: int, doc: UIntArray) -> None:
        """Place rows ``lo:hi`` (linear probing within each query's table)."""
        keys = doc[lo:hi].view(np.int64)
        words = (keys & ~self._row_mask) | np.arange(lo + 1, hi + 1, dtype=np.int64)
        query = self.query[lo:hi]
        base, size = self._base[query], self._size[query]
        slots = base + _slot_offset(keys, size)
        table = self._table
        while words.size:
            # Every row writes its word into its slot if free; of rows sharing one, the
            # write that stays wins (words are distinct: each holds its row). The others,
            # and rows whose slot was taken, go on to their next slot. A row is placed only
            # where it found its slot free, after every taken slot before it: what a lookup
            # walks.
            free = np.flatnonzero(table.take(slots) == 0)
            free_slots, free_words = slots.take(free), words.take(free)
            table[free_slots] = free_words
            lost = np.ones(words.size, dtype=bool)
            lost[free] = table.take(free_slots) != free_words
            going = np.flatnonzero(lost)
            words, slots = words.take(going), slots.take(going)
            base, size = base.take(going), size.take(going)
            slots = _next_slot(slots, base, size)

    def lookup(
        self,
        query: IntArray,
        docid: NDArray[np.generic],
        hashes: UIntArray,
        *,
        take: IntArray | None = None,
    ) -> IntArray:
        """Row of each pair in the index, or -1 when absent.

        Pair i is ``(query[i], docid[take[i]])`` (``docid[i]`` without ``take``) and
        ``hashes[i]`` its document's :func:`doc_hash`. Document ids are only read where the
        hashes match, to confirm the match.

        >>> index = PairIndex(np.array([0, 1]), np.array(["a", "b"]))
        >>> docs = np.array(["b", "a", "b"])
        >>> index.lookup(np.array([1, 1, 0]), docs, doc_hash(docs)).tolist()
        [1, -1, -1]

        Complexity: O(n) expected.
        """
        return self.matches(query, docid, hashes, take=take).found(int(hashes.shape[0]))

    def matches(
        self,
        query: IntArray,
        docid: NDArray[np.generic],
        hashes: UIntArray,
        *,
        take: IntArray | None = None,
    ) -> Matches:
        """The pairs of :meth:`lookup` that are in the index, with their rows.

        >>> index = PairIndex(np.array([0, 1]), np.array(["a", "b"]))
        >>> docs = np.array(["b", "a", "b"])
        >>> m = index.matches(np.array([1, 1, 0]), docs, doc_hash(docs))
        >>> m.position.tolist(), m.row.tolist()
        ([0], [1])

        Complexity: O(n) expected.
        """
        q = np.asarray(query, dtype=np.int64)
        known = (q >= 0) & (q < self._size.size)
        if not known.all():
            # Queries the index has never seen: nothing of theirs can be found.
            inside = np.flatnonzero(known)
            found = self.matches(q[inside], docid, hashes[inside],
                                 take=inside if take is None else take[inside])
            return Matches(inside[found.position], found.row)
        return self._probe(q, docid, hashes, take)

    def lookup_grid(
        self, query: IntArray, docid: NDArray[np.generic], hashes: UIntArray
    ) -> IntArray:
        """Like :meth:`lookup` for rows laid out as a matrix with one query per matrix row.

        ``query`` has one code per matrix row, each below the largest code indexed plus
        one; ``docid`` and ``hashes`` have ``len(query) * L`` entries, row after row.

        >>> index = PairIndex(np.array([0, 1]), np.array([7, 8]))
        >>> docs = np.array([7, 8, 7, 8])
        >>> index.lookup_grid(np.array([0, 1]), docs, doc_hash(docs)).tolist()
        [0, -1, -1, 1]

        Complexity: O(n) expected.
        """
        return self.matches_grid(query, docid, hashes).found(int(hashes.shape[0]))

    def matches_grid(
        self, query: IntArray, docid: NDArray[np.generic], hashes: UIntArray
    ) -> Matches:
        """The pairs of :meth:`lookup_grid` that are in the index, with their rows.

        >>> index = PairIndex(np.array([0, 1]), np.array([7, 8]))
        >>> docs = np.array([7, 8, 7, 8])
        >>> m = index.matches_grid(np.array([0, 1]), docs, doc_hash(docs))
        >>> sorted(zip(m.position.tolist(), m.row.tolist()))
        [(0, 0), (3, 1)]

        Complexity: O(n) expected.
        """
        q = np.asarray(query, dtype=np.int64)
        width = int(hashes.shape[0]) // max(int(q.size), 1)
        # A few hundred queries at a time: their temporaries stay in cache (and the tables
        # they probe are one stretch of the table).
        per = max(1, _PROBE_ROWS // max(width, 1))
        if q.size <= per:
            return self._probe(q, docid, hashes, None, width)
        positions: list[IntArray] = []
        rows: list[IntArray] = []
        for first in range(0, int(q.size), per):
            lo, hi = first * width, min(first + per, int(q.size)) * width
            found = self._probe(q[first : first + per], docid[lo:hi], hashes[lo:hi], None, width)
            positions.append(found.position + lo)
            rows.append(found.row)
        return Matches(np.concatenate(positions), np.concatenate(rows))

    def _probe(
        self,
        q: IntArray,
        docid: NDArray[np.generic],
        hashes: UIntArray,
        take: IntArray | None,
        width: int = 1,
    ) -> Matches:
        """Probe the tables; ``q`` holds one query code per ``width`` pairs."""
        n = int(hashes.shape[0])
        if n == 0 or self.query.size == 0:
            return Matches(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        keys = hashes.view(np.int64)
        base, size = self._base[q], self._size[q]
        if width == 1:
            slots = base + _slot_offset(keys, size)
        else:
            slots = (base[:, None]
                     + _slot_offset(keys.reshape(-1, width), size[:, None])).reshape(n)
        words = self._table.take(slots)
        # Most documents are not judged and most of their first slots are empty: only the
        # pairs whose slot is taken go on, so the decoding runs on a fraction of the rows.
        # (Index arrays and ndarray.take throughout: boolean-mask indexing and nonzero on
        # integers are several times slower.)
        going = np.flatnonzero(words != 0)
        slot, word, going_keys = slots.take(going), words.take(going), keys.take(going)
        positions: list[IntArray] = []
        rows: list[IntArray] = []
        while going.size:
            # Same high bits <=> the XOR is below 2**row_bits (unsigned).
            hit = (word ^ going_keys).view(np.uint64) <= np.uint64(self._row_mask)
            here, other = np.flatnonzero(hit), np.flatnonzero(~hit)
            positions.append(going.take(here))
            rows.append((word.take(here) & self._row_mask) - 1)
            # Another document's slot: probe the next one of the query's table.
            going, slot, going_keys = going.take(other), slot.take(other), going_keys.take(other)
            owner = going // width
            slot = _next_slot(slot, base.take(owner), size.take(owner))
            word = self._table.take(slot)
            taken = np.flatnonzero(word != 0)
            going, slot, word = going.take(taken), slot.take(taken), word.take(taken)
            going_keys = going_keys.take(taken)
        position = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)
        row = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        # Equal hash bits within a query's table: confirm query and id exactly (ndarray.take:
        # fancy indexing of fixed-width strings is several times slower).
        source = position if take is None else take.take(position)
        same = (self.query.take(row) == q.take(position // width)) & _same_ids(
            self.docid.take(row), docid.take(source))
        if not same.all():
            for i in np.flatnonzero(~same).tolist():
                row[i] = self._exact(int(q[int(position[i]) // width]), docid[int(source[i])])
            found = row >= 0
            position, row = position[found], row[found]
        return Matches(position, row)

    def _exact(self, query: int, docid: object) -> int:
        """Row of the pair by exhaustive comparison (only after the hash bits a slot keeps
        collided)."""
        rows = np.flatnonzero((self.query == query) & (self.docid == docid))
        return int(rows[0]) if rows.size else -1


def _slot_offset(keys: NDArray[np.int64], size: IntArray) -> IntArray:
    """The first slot of each key in its table of ``size`` slots: the high 32 bits of the
    hash scaled to the size (a multiply and a shift, where a modulo divides)."""
    high = keys.view(np.uint64) >> np.uint64(32)
    high *= size.astype(np.uint64)
    high >>= np.uint64(32)
    return high.view(np.int64)


def _next_slot(slot: IntArray, base: IntArray, size: IntArray) -> IntArray:
    """The slot after ``slot`` in its table (``base``, ``size``), wrapping to the first."""
    slot = slot + 1
    return np.where(slot == base + size, base, slot)


def first_duplicate(
    query: IntArray,
    docid: NDArray[np.generic],
    hashes: UIntArray | None = None,
    *,
    blocks: IntArray | None = None,
) -> tuple[int, int] | None:
    """Rows ``(first, second)`` of the first repeated ``(query, docid)`` pair, or ``None``.

    ``second`` is the earliest row repeating an earlier one, ``first`` that earlier row.
    ``blocks``, when the caller knows that every query's rows are contiguous, gives the
    start row of each query's block (and spares finding them).

    >>> first_duplicate(np.array([0, 0, 1, 0]), np.array([b"a", b"b", b"a", b"a"]))
    (0, 3)

    Complexity: O(n log L) when each query's rows are contiguous (L = longest query),
    O(n) expected otherwise, plus O(c log c) for c candidate rows sharing a hash.
    """
    n = int(query.shape[0])
    if n < 2:
        return None
    q = np.asarray(query, dtype=np.int64)
    doc = doc_hash(docid) if hashes is None else hashes
    if blocks is None and bool((q[1:] >= q[:-1]).all()):
        blocks = np.concatenate(([0], np.flatnonzero(q[1:] != q[:-1]) + 1))
    candidates = None if blocks is None else _grouped_candidates(doc, blocks)
    if candidates is None:
        h = pair_hash(q, doc)
        # Rows whose key shares a bucket with another row are the only duplicate candidates.
        size = 1 << max(4, int(4 * n - 1).bit_length())
        bucket = (h & np.uint64(size - 1)).astype(np.int64)
        candidates = np.flatnonzero(np.bincount(bucket, minlength=size)[bucket] > 1)
    if candidates.size == 0:
        return None
    h = pair_hash(q[candidates], doc[candidates])
    order = candidates[np.lexsort((candidates, h))]
    hs = np.sort(h)
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


def _grouped_candidates(doc: UIntArray, blocks: IntArray) -> IntArray | None:
    """Rows of the queries that repeat a hash, given each query's block of rows.

    Sorting each query's hashes as a row of a padded matrix is much cheaper than one global
    sort; sorting only their high 32 bits halves the work again (a query whose distinct
    documents share those bits is merely checked in full). ``None`` when the blocks are too
    ragged to pad.
    """
    n = int(doc.shape[0])
    lengths = np.diff(np.append(blocks, n))
    width = int(lengths.max())
    count = int(blocks.size)
    if count * width > 2 * n + 1024:
        return None
    if count * width == n:
        repeats = _repeating_rows(doc.reshape(count, width))
    else:
        repeats = _repeating_ragged(doc, blocks, lengths, width)
    # Rare: some query repeats a hash. Candidates are every row of those queries.
    queries = np.flatnonzero(repeats)
    sizes = lengths[queries]
    # Row j of a chosen block is its start + j: ranks within the concatenation, shifted.
    shift = blocks[queries] - (np.cumsum(sizes) - sizes)
    return np.repeat(shift, sizes) + np.arange(int(sizes.sum()), dtype=np.int64)


def _repeating_ragged(doc: UIntArray, blocks: IntArray, lengths: IntArray, width: int
                      ) -> BoolArray:
    """:func:`_repeating_rows` of blocks of unequal lengths (at most ``width``), padded.

    A few thousand queries at a time, so that the padded matrices stay in cache: built for
    all the queries at once they are several times the hashes (hundreds of MB for tens of
    millions of rows), and their cost per row grew with the rows.
    """
    count = int(blocks.size)
    repeats = np.zeros(count, dtype=bool)
    columns = np.arange(width, dtype=np.int64)
    per = max(1, _BLOCK // width)
    for first in range(0, count, per):
        starts, sizes = blocks[first : first + per], lengths[first : first + per]
        valid = columns[None, :] < sizes[:, None]
        index = np.where(valid, starts[:, None] + columns[None, :], 0)
        # Padding (0) sorts first; pairs that involve it are masked out by position.
        ranked = np.where(valid, (doc.take(index) >> np.uint64(32)).astype(np.uint32),
                          np.uint32(0))
        ranked.sort(axis=1)
        equal = ranked[:, 1:] == ranked[:, :-1]
        equal &= columns[None, :-1] >= (width - sizes)[:, None]
        repeats[first : first + per] = equal.any(axis=1)
    return repeats


def _repeating_rows(hashes: UIntArray) -> BoolArray:
    """Rows of a hash matrix holding some high 32-bit half twice.

    Rows are sorted a block at a time in a scratch matrix that stays in cache.
    """
    count, width = hashes.shape
    repeats = np.zeros(count, dtype=bool)
    if width < 2:
        return repeats
    high = hashes.view(np.uint32).reshape(count, width, 2)[:, :, 1 if _LITTLE else 0]
    per = max(1, _BLOCK // width)
    scratch = np.empty((min(per, count), width), dtype=np.uint32)
    equal = np.empty((scratch.shape[0], width - 1), dtype=bool)
    for first in range(0, count, per):
        block = scratch[: min(per, count - first)]
        block[...] = high[first : first + per]
        block.sort(axis=1)
        same = equal[: block.shape[0]]
        np.equal(block[:, 1:], block[:, :-1], out=same)
        if same.any():
            repeats[first : first + per] = same.any(axis=1)
    return repeats
