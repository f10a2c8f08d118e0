"""Output files: the one atomic writer (old file or whole new one, whatever stops it), what
a path is (a file or a stream), whether an output is also an input, the machine's memory."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any, Literal

__all__ = [
    "STALE_AFTER",
    "TEMP_SUFFIX",
    "atomic_output",
    "os_reason",
    "output_kind",
    "physical_memory",
    "same_file",
]


def os_reason(error: OSError) -> str:
    """The words of an OSError without its file name (messages name the file themselves)."""
    return error.strerror or str(error) or type(error).__name__


#: Suffix of the temporary files :func:`atomic_output` writes beside its target.
TEMP_SUFFIX = ".rankeval-tmp"


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO[Any]]:
    """Write a file so that readers, crashes and kills see the old file or the whole new one.

    The block writes to a fresh temporary file beside ``path`` (``.<name>.<16 hex
    digits>.rankeval-tmp``); when it ends without an exception the file is flushed, synced to
    disk, renamed over ``path``, and the directory is synced so the rename survives a power
    loss. On any exception the temporary file is removed and ``path`` is untouched. This is
    the one writer behind ``save`` and every ``-o`` of the command line.

    What is replaced: a symbolic link is followed, and the file it names is replaced (the
    link stays a link). A target that exists and is a character device (``/dev/null``, a
    terminal, ``/dev/stdout``) or a FIFO is written in place, as a shell's ``>`` would, and
    never replaced by a file; any other target that is not a regular file (a socket, a
    block device) is refused. See :func:`output_kind`.

    The new file gets the mode of the file it replaces, or, for a new file, what ``open()``
    would give (0o666 less the umask, applied by the system: the process umask is never
    changed, so other threads are not disturbed).

    A writer locks its temporary file (``flock``; the lock dies with the process, even on
    SIGKILL). After a successful write, temporary files that killed writers left for the
    same target are removed once they are :data:`STALE_AFTER` seconds old and unlocked.

    Raises
    ------
    OSError
        As :func:`open` would, before the block runs: ``FileNotFoundError`` for ``""`` or a
        missing directory, ``IsADirectoryError`` for a directory or a path ending in a
        separator; later, whatever writing, syncing or renaming raises.

    Complexity: O(1) besides the writing itself, plus two ``fsync`` calls.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_output(target) as out:
    ...     _ = out.write("done\\n")
    >>> target.read_text()
    'done\\n'
    """
    target = os.fspath(path)
    if not isinstance(target, str):
        raise TypeError(f"path must be a str or os.PathLike[str], got {target!r}")
    if output_kind(target) == "stream":  # a device or a FIFO: written in place, never replaced
        with _writer(target, binary) as stream:
            yield stream
            stream.flush()
        return
    if os.path.islink(target):  # the file the link names is replaced; the link stays
        target = os.path.realpath(target)
    directory, base = _split_target(target)
    try:
        temporary, handle = _open_temporary(directory, base)
    except OSError as error:  # name the target, not a temporary file the user never chose
        raise type(error)(error.errno, error.strerror, target) from None
    try:
        _hold(handle)  # marks the temporary file as in use until this process ends
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        with _writer(handle, binary) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        try:
            os.replace(temporary, target)
        except OSError as error:
            raise type(error)(error.errno, error.strerror, target) from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # already renamed or removed
            os.unlink(temporary)
        raise
    _fsync_directory(directory)
    _remove_stale_temporaries(directory, base)


def physical_memory() -> int | None:
    """Bytes of memory the machine has (``sysconf``; no file is read, so nothing is left
    open if the caller is interrupted), or None where the system does not say.

    >>> physical_memory() is None or physical_memory() > 0
    True

    Complexity: O(1).
    """
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def _writer(target: str | int, binary: bool) -> IO[Any]:
    """``target`` (a path or a descriptor) opened for writing: bytes, or UTF-8 text with
    ``\n`` line ends."""
    if binary:
        return open(target, "wb")
    return open(target, "w", encoding="utf-8", newline="\n")


def output_kind(path: str | os.PathLike[str]) -> Literal["file", "stream"]:
    """How :func:`atomic_output` writes ``path``: ``"file"`` (a new or regular file, replaced
    atomically; through a symbolic link, the file it names) or ``"stream"`` (an existing
    character device or FIFO, written in place).

    Raises
    ------
    OSError
        ``IsADirectoryError`` for a directory; ``OSError`` (``EINVAL``) naming the kind for
        a socket or a block device, which are never written.

    >>> output_kind(os.devnull)
    'stream'

    Complexity: O(1) (one ``stat``).
    """
    target = os.fspath(path)
    try:
        mode = os.stat(target).st_mode  # follows symbolic links
    except OSError:  # missing (or a dangling link): a new file; other faults show on open
        return "file"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    kind = "a block device" if stat.S_ISBLK(mode) else (
        "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise OSError(errno.EINVAL, f"is {kind}; rankeval writes only files, character "
                  "devices and FIFOs", target)


def same_file(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]]
              ) -> str | None:
    """The first of ``inputs`` that is the regular file ``output`` would replace, or None.

    Writing a device or FIFO in place clobbers nothing, so only a regular file counts;
    links and other names of one file (hard links, ``./a`` and ``a``) are the same file.

    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.tsv")
    >>> _ = open(path, "w").close()
    >>> same_file(path, ["-", path]) == path, same_file(os.devnull, [os.devnull])
    (True, None)

    Complexity: O(len(inputs)) ``stat`` calls.
    """
    try:
        out = os.stat(output)
    except OSError:
        return None
    if not stat.S_ISREG(out.st_mode):
        return None
    for name in inputs:
        try:
            other = os.stat(name)
        except (OSError, TypeError, ValueError):
            continue
        if (other.st_dev, other.st_ino) == (out.st_dev, out.st_ino):
            return os.fspath(name)
    return None


#: A temporary file left by a killed writer is removed once it is this old (seconds) and
#: no process holds its lock.
STALE_AFTER = 60.0


def _hold(handle: int) -> None:
    """Lock the temporary file: a writer's lock dies with its process, even on SIGKILL."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: stale files are left alone
        return
    with contextlib.suppress(OSError):
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _remove_stale_temporaries(directory: str, base: str) -> None:
    """Delete temporary files of earlier, killed saves to the same target.

    Only files of our own naming for this target, older than :data:`STALE_AFTER`
    and not locked by a live writer (see :func:`_hold`), so that a save running
    in another process is never disturbed. Best effort: errors are ignored.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    prefix = f".{base[:100]}."
    cutoff = time.time() - STALE_AFTER
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            name = entry.name
            middle = name[len(prefix) : -len(TEMP_SUFFIX)]
            if not (
                name.startswith(prefix)
                and name.endswith(TEMP_SUFFIX)
                and len(middle) == 16
                and all(c in "0123456789abcdef" for c in middle)
            ):
                continue
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_mtime > cutoff or entry.is_symlink():
                    continue
                fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # fails if a writer lives
                    os.unlink(entry.path)
                finally:
                    os.close(fd)


def _open_temporary(directory: str, base: str) -> tuple[str, int]:
    """Create a fresh temporary file next to the target (mode 0o666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    stem = base[:100]  # keeps the name under NAME_MAX for long targets
    while True:
        name = os.path.join(directory, f".{stem}.{os.urandom(8).hex()}{TEMP_SUFFIX}")
        try:
            return name, os.open(name, flags, 0o666)
        except FileExistsError:  # pragma: no cover - 64 random bits collided
            continue


def _split_target(target: str) -> tuple[str, str]:
    """The target's directory and name; refuses paths that cannot name a file up front.

    The path is not normalised: ``a/..`` must stay a directory, not become ``.``.
    """
    if not target:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), target)
    directory, base = os.path.split(target)
    if not base or os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    return directory or os.curdir, base


def _fsync_directory(directory: str) -> None:
    """Make the rename durable; a no-op where directories cannot be opened or synced."""
    if os.name == "nt":  # pragma: no cover - Windows cannot open a directory
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as error:  # pragma: no cover - depends on the filesystem
        if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)
