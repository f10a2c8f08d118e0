"""The one saved-state format of every accumulator: magic, version, JSON metadata, sections,
SHA-256.

Every accumulator's ``to_bytes``/``save`` writes this container: the binary evaluator (and
its windows; :mod:`rankeval.scored.state_file` says what its metadata and sections hold, and
reads its files of format versions 1 and 2 too), the multi-category, paired, sketch and
segmented evaluations. Each kind has its own magic; its version numbers its metadata.

======  ======  =========  ====================================================
offset  size    type       field
======  ======  =========  ====================================================
0       8       bytes      magic, one per kind of state (PNG-like: ``\\x89`` first,
                           then three letters, ``\\r\\n\\x1a\\n``)
8       4       uint32     format version (little-endian)
12      8       uint64     ``M``: metadata length in bytes (little-endian)
20      M       UTF-8      metadata: one JSON object, space-padded so that ``20 + M`` is a
                           multiple of 8; its member ``"blobs"`` lists the sections' sizes
                           in bytes
20+M    ...     bytes      the sections, one after another (a section of 8-byte values
                           that follows only such sections starts 8-byte aligned)
end-32  32      bytes      SHA-256 of every preceding byte
======  ======  =========  ====================================================

Two ways to read one, with the same checks, each fault a
:class:`~rankeval.errors.PersistenceError` naming the file and the problem:

* :func:`unpack` (small states, in memory): length and magic, checksum, version, that the
  metadata is a JSON object (no NaN or Infinity, no member twice) whose ``"blobs"`` sizes fill
  the file exactly;
* :func:`read_parts` (states of any size, from a stream): the sections go straight into
  arrays of the types the caller names, hashed as they are read; a declared size past this
  machine's memory is refused before anything is allocated, and a sparse file (a crafted claim
  of more bytes than the disk holds) has its checksum proved first.

:func:`write_parts` writes the sections from arrays without joining them (no copy of a
billion cases); :func:`save_parts` does it atomically (a crash leaves the old file or the
whole new one).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import struct
from collections.abc import Callable, Sequence
from io import BufferedReader
from typing import IO, Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from rankeval.errors import PersistenceError

__all__ = ["check_room", "open_regular", "pack", "read_file", "read_parts", "save_parts",
           "unpack", "write_file", "write_parts"]

_HEADER = struct.Struct("<8sIQ")  # magic, version, metadata length
_DIGEST = 32
_ALIGN = 8

Fail = Callable[[str], NoReturn]


def _bytes_of(part: bytes | NDArray[Any]) -> memoryview:
    if isinstance(part, np.ndarray):
        if not part.flags.c_contiguous:
            raise ValueError("a section must be a contiguous array")
        return part.reshape(-1).view(np.uint8).data
    return memoryview(part).cast("B")


def write_parts(out: IO[bytes], magic: bytes, version: int, meta: dict[str, Any],
                parts: Sequence[bytes | NDArray[Any]]) -> None:
    """Write the container of ``meta`` (``"blobs"`` is added) and the sections ``parts``
    (bytes, or contiguous arrays in their stored byte order) to ``out``, hashing as it goes.
    Complexity: O(size); no copy of the sections."""
    views = [_bytes_of(part) for part in parts]
    text = json.dumps({**meta, "blobs": [len(view) for view in views]}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True).encode()
    text += b" " * (-(_HEADER.size + len(text)) % _ALIGN)
    head = _HEADER.pack(magic, version, len(text)) + text
    digest = hashlib.sha256(head)
    out.write(head)
    for view in views:
        if len(view):
            out.write(view)
            digest.update(view)
    out.write(digest.digest())


def pack(magic: bytes, version: int, meta: dict[str, Any],
         blobs: Sequence[bytes | NDArray[Any]]) -> bytes:
    """The container of ``meta`` and the sections ``blobs``, in memory."""
    out = io.BytesIO()
    write_parts(out, magic, version, meta, blobs)
    return out.getvalue()


def save_parts(path: str | os.PathLike[str], magic: bytes, version: int, meta: dict[str, Any],
               parts: Sequence[bytes | NDArray[Any]]) -> None:
    """:func:`write_parts` into ``path``, atomically (:func:`rankeval.files.atomic_output`)."""
    from rankeval.files import atomic_output

    with atomic_output(path, binary=True) as out:
        write_parts(out, magic, version, meta, parts)


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} in the metadata")


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a member is repeated")
    return out


def _metadata(raw: bytes, what: str, fail: Fail) -> tuple[dict[str, Any], list[int]]:
    """The metadata object without ``"blobs"``, and the sections' sizes."""
    try:
        meta = json.loads(raw.decode("utf-8"), parse_constant=_no_constant,
                          object_pairs_hook=_unique_members)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        fail(f"invalid {what} metadata: {error}")
    if not isinstance(meta, dict):
        fail(f"invalid {what} metadata: not an object")
    sizes = meta.pop("blobs", None)
    if not (isinstance(sizes, list) and all(type(size) is int and size >= 0 for size in sizes)):
        fail(f"invalid {what} metadata: blobs is {sizes!r}, not a list of section sizes")
    return meta, sizes


def unpack(data: bytes, magic: bytes, version: int, what: str, name: str
           ) -> tuple[dict[str, Any], list[bytes]]:
    """The metadata (without ``"blobs"``) and sections of a container in memory; see the
    module text.

    ``what`` names the kind of file in the messages (``"sketch"``: "not a rankeval sketch
    file").
    """
    def fail(problem: str) -> NoReturn:
        raise PersistenceError(name, problem)

    if len(data) < _HEADER.size + _DIGEST or data[:8] != magic:
        fail(f"not a rankeval {what} file (bad magic or too short)")
    if hashlib.sha256(data[:-_DIGEST]).digest() != data[-_DIGEST:]:
        fail("checksum mismatch (the file is corrupted)")
    _, found, meta_len = _HEADER.unpack_from(data)
    if found != version:
        fail(f"unsupported {what} format version {found} (this rankeval reads {version})")
    at = _HEADER.size + meta_len
    if at > len(data) - _DIGEST:
        fail(f"invalid {what} metadata: longer than the file")
    meta, sizes = _metadata(data[_HEADER.size:at], what, fail)
    if at + sum(sizes) != len(data) - _DIGEST:
        fail(f"invalid {what} metadata: the sections do not fill the file")
    blobs = []
    for size in sizes:
        blobs.append(data[at:at + size])
        at += size
    return meta, blobs


def read_parts(stream: Any, size: int, head: bytes, what: str, name: str, *, on_disk: bool,
               dtypes: Callable[[dict[str, Any]], Sequence[np.dtype[Any]]]
               ) -> tuple[dict[str, Any], list[NDArray[Any]]]:
    """The metadata and sections of the container of ``size`` bytes that ``stream`` holds,
    read after ``head`` (its first bytes, whose magic and version the caller checked).

    ``dtypes(meta)`` names each section's type from the metadata (a ``ValueError`` says what
    is wrong with it); each section becomes a fresh array of that type, read and hashed in
    place. ``on_disk``: a file, which may be sparse (bytes in memory cannot be).

    Complexity: O(size); memory: the arrays alone.
    """
    def fail(problem: str) -> NoReturn:
        raise PersistenceError(name, problem)

    head += stream.read(_HEADER.size - len(head))
    if len(head) < _HEADER.size:
        fail(f"truncated: expected at least {_HEADER.size} bytes, found {len(head)}")
    meta_len = _HEADER.unpack(head)[2]
    if _HEADER.size + meta_len + _DIGEST > size:
        fail(f"truncated: expected at least {_HEADER.size + meta_len + _DIGEST} bytes, "
             f"found {size}")
    raw = stream.read(meta_len)
    if len(raw) < meta_len:
        fail(f"truncated: expected at least {_HEADER.size + meta_len + _DIGEST} bytes, "
             f"found {_HEADER.size + len(raw)}")
    meta, sizes = _metadata(raw, what, fail)
    expected = _HEADER.size + meta_len + sum(sizes) + _DIGEST
    if size < expected:
        fail(f"truncated: expected {expected} bytes, found {size}")
    if size > expected:
        fail(f"trailing data: expected {expected} bytes, found {size}")
    try:
        types = [np.dtype(kind) for kind in dtypes(meta)]
    except (ValueError, TypeError) as error:
        fail(f"invalid {what} metadata: {error}")
    if len(types) != len(sizes) or any(got % kind.itemsize
                                       for got, kind in zip(sizes, types, strict=False)):
        fail(f"invalid {what} metadata: sections of {sizes} bytes do not hold its "
             f"{len(types)} arrays")
    check_room(sum(sizes), f"declares {len(sizes)} sections", fail)
    if on_disk and _has_holes(stream):
        # A file of mostly holes (a crafted sparse file) can claim any size on no disk:
        # prove the checksum before allocating anything for it.
        _verify_digest(stream, head + raw, expected, fail)
    digest = hashlib.sha256(head + raw)
    try:
        arrays = [np.empty(got // kind.itemsize, dtype=kind)
                  for got, kind in zip(sizes, types, strict=True)]
    except MemoryError:
        fail(f"not enough memory to load {sum(sizes)} bytes of sections")
    got = _HEADER.size + len(raw) + sum(_read_into(stream, array, digest) for array in arrays)
    stored = stream.read(_DIGEST)
    if got + len(stored) != expected:  # the file shrank while we read
        fail(f"truncated: expected {expected} bytes, found {got + len(stored)}")
    if stored != digest.digest():
        fail("checksum mismatch (the file is corrupted)")
    return meta, arrays


def _read_into(stream: Any, array: NDArray[Any], digest: Any) -> int:
    """Fill ``array`` from ``stream`` and hash it; return the bytes actually read."""
    view = array.reshape(-1).view(np.uint8).data
    done = 0
    while done < len(view):
        got = stream.readinto(view[done:])
        if not got:
            break
        done += got
    digest.update(view[:done])
    return done


def check_room(needed: int, claim: str, fail: Fail) -> None:
    """Refuse ``needed`` bytes this machine's memory cannot hold, before allocating them (a
    state file's sections, a whole file); ``claim`` says what asks for them."""
    from rankeval.files import physical_memory

    memory = physical_memory()
    if memory is not None and needed > memory:  # None: not a POSIX system, allocation decides
        fail(f"{claim} ({needed / 2**30:.1f} GiB to load), more than this machine's memory "
             f"({memory / 2**30:.1f} GiB)")


def _has_holes(stream: BufferedReader) -> bool:
    """Whether the file occupies far fewer disk blocks than its size says (a sparse file).

    Compressing file systems report fewer blocks too; they only cost the extra checksum pass
    of :func:`_verify_digest`.
    """
    info = os.fstat(stream.fileno())
    blocks = getattr(info, "st_blocks", None)
    return blocks is not None and info.st_size > (1 << 20) and blocks * 512 < info.st_size // 4


def _verify_digest(stream: BufferedReader, head: bytes, expected: int, fail: Fail) -> None:
    """Hash the file after ``head`` in small chunks and compare with its digest; rewind to
    just after ``head``."""
    stream.seek(expected - _DIGEST)
    stored = stream.read(_DIGEST)
    if stored == bytes(_DIGEST):  # a hole where the digest belongs: no need to hash
        fail("checksum mismatch (the file is corrupted)")
    stream.seek(len(head))
    digest = hashlib.sha256(head)
    left = expected - len(head) - _DIGEST
    while left:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            fail("truncated while verifying the checksum")
        digest.update(chunk)
        left -= len(chunk)
    if stored != digest.digest():
        fail("checksum mismatch (the file is corrupted)")
    stream.seek(len(head))


def open_regular(name: str, fail: Fail) -> BufferedReader:
    """Open ``name`` for reading if it is a regular file; a FIFO or device never blocks us."""
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            fail("not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return open(fd, "rb")  # the caller's with block closes it


def write_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (the old file or the whole new one survives)."""
    from rankeval.files import atomic_output

    with atomic_output(path, binary=True) as out:
        out.write(data)


def read_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of ``path``. A FIFO, a device or anything else that is not a regular file is
    refused before a byte is read (it could block forever or never end), and so is a file
    larger than this machine's memory."""
    name = os.fspath(path)

    def fail(problem: str) -> NoReturn:
        raise PersistenceError(name, problem)

    with open_regular(name, fail) as f:
        size = os.fstat(f.fileno()).st_size
        check_room(size, f"{size} bytes", fail)
        return f.read()
