"""Hand memory freed by large merges back to the operating system (glibc only).

A merge of the main tier frees the old arrays and its temporaries. Blocks
below glibc's mmap threshold (which glibc raises to 32 MiB once large arrays
come and go) return to the heap, where their pages stay resident: at ten
million streamed cases that was ~6 bytes a case of free memory counted in
the process's resident size. ``malloc_trim(0)`` gives those pages back; it
costs a few milliseconds at most, next to a merge of a million cases or more.
On other C libraries (musl, macOS, Windows) this module does nothing.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

# Merges of at least this many cases release freed memory (smaller ones
# leave too little behind to matter, and happen too often to pay the call).
TRIM_FROM = 1 << 20


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library this process runs on
    except (OSError, AttributeError):  # no such symbol: not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def release_freed_memory(cases: int) -> bool:
    """After a merge of ``cases`` cases: give free heap pages back. True if it did."""
    if _TRIM is None or cases < TRIM_FROM:
        return False
    _TRIM(0)
    return True
