"""A small self-checking binary file: magic, version, JSON metadata, sections, SHA-256.

The sketch evaluator (:mod:`rankeval.scored.sketch`) and the classifier evaluator
(:mod:`rankeval.scored.classifier`) save their state in this container; the binary evaluator
has its own richer format (:mod:`rankeval.scored.state_file`).

======  ======  =========  ====================================================
offset  size    type       field
======  ======  =========  ====================================================
0       8       bytes      magic, one per kind of state (PNG-like: ``\\x89`` first,
                           then three letters, ``\\r\\n\\x1a\\n``)
8       4       uint32     format version (little-endian)
12      8       uint64     ``M``: metadata length in bytes (little-endian)
20      M       UTF-8      metadata: one JSON object; its member ``"blobs"`` lists the
                           sections' sizes in bytes
20+M    ...     bytes      the sections, one after another
end-32  32      bytes      SHA-256 of every preceding byte
======  ======  =========  ====================================================

:func:`unpack` checks, in order: length and magic, checksum, version, that the metadata is
a JSON object (no NaN or Infinity) whose ``"blobs"`` sizes fill the file exactly. Each
fault raises :class:`~rankeval.errors.PersistenceError` naming the file and the problem.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from typing import Any, NoReturn

from rankeval.errors import PersistenceError

__all__ = ["pack", "read_file", "unpack", "write_file"]

_HEADER = struct.Struct("<8sIQ")  # magic, version, metadata length


def pack(magic: bytes, version: int, meta: dict[str, Any], blobs: list[bytes]) -> bytes:
    """The container of ``meta`` (``"blobs"`` is added) and the sections ``blobs``."""
    text = json.dumps({**meta, "blobs": [len(blob) for blob in blobs]}, sort_keys=True).encode()
    body = _HEADER.pack(magic, version, len(text)) + text + b"".join(blobs)
    return body + hashlib.sha256(body).digest()


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} in the metadata")


def unpack(data: bytes, magic: bytes, version: int, what: str, name: str
           ) -> tuple[dict[str, Any], list[bytes]]:
    """The metadata (without ``"blobs"``) and sections of a container; see the module text.

    ``what`` names the kind of file in the messages (``"sketch"``: "not a rankeval sketch
    file").
    """
    def fail(problem: str) -> NoReturn:
        raise PersistenceError(name, problem)

    if len(data) < _HEADER.size + 32 or data[:8] != magic:
        fail(f"not a rankeval {what} file (bad magic or too short)")
    if hashlib.sha256(data[:-32]).digest() != data[-32:]:
        fail("checksum mismatch (the file is corrupted)")
    _, found, meta_len = _HEADER.unpack_from(data)
    if found != version:
        fail(f"unsupported {what} format version {found} (this rankeval reads {version})")
    at = _HEADER.size + meta_len
    try:
        meta = json.loads(data[_HEADER.size:at], parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        fail(f"invalid {what} metadata: {error}")
    if not isinstance(meta, dict):
        fail(f"invalid {what} metadata: not an object")
    sizes = meta.pop("blobs", None)
    if not (isinstance(sizes, list) and all(type(size) is int and size >= 0 for size in sizes)):
        fail(f"invalid {what} metadata: blobs is {sizes!r}, not a list of section sizes")
    if at + sum(sizes) != len(data) - 32:
        fail(f"invalid {what} metadata: the sections do not fill the file")
    blobs = []
    for size in sizes:
        blobs.append(data[at:at + size])
        at += size
    return meta, blobs


def write_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (the old file or the whole new one survives)."""
    from rankeval.files import atomic_output

    with atomic_output(path, binary=True) as out:
        out.write(data)


def read_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of ``path``. A FIFO, a device or anything else that is not a regular file is
    refused before a byte is read (it could block forever or never end), and so is a file
    larger than this machine's memory."""
    from rankeval.files import physical_memory
    from rankeval.scored.state_file import open_regular

    name = os.fspath(path)

    def fail(problem: str) -> NoReturn:
        raise PersistenceError(name, problem)

    with open_regular(name, fail) as f:
        size = os.fstat(f.fileno()).st_size
        memory = physical_memory()
        if memory is not None and size > memory:
            fail(f"{size} bytes, more than this machine's memory ({memory} bytes)")
        return f.read()
