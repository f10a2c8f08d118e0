"""The terminal: progress bars on standard error, and standard output that fails cleanly."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

from rankeval.errors import DataError

if TYPE_CHECKING:
    pass
from rankeval.files import os_reason

__all__ = [
    "PROGRESS_DELAY",
    "PROGRESS_INTERVAL",
    "progress_bar",
    "silence_stdout",
    "standard_output",
]


#: Progress appears on a terminal once a read has taken this many seconds,
PROGRESS_DELAY = 1.0
#: and is redrawn at most this often (seconds).
PROGRESS_INTERVAL = 0.2


class _NoProgress:
    """What :func:`progress_bar` gives when nothing is shown: every call does nothing."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: float = 1) -> None:
        return None

    def set_description_str(self, desc: str) -> None:
        return None


def progress_bar(desc: str, total: int | None, unit: str = "B") -> Any:
    """A tqdm bar on standard error for a long job, or an object that shows nothing.

    Shown only when standard error is a terminal (tqdm is not even imported otherwise, so
    piped runs pay nothing), only once the job has taken :data:`PROGRESS_DELAY` seconds,
    and cleared at the end. ``total`` in ``unit`` (bytes scale as kB, MB), or None.
    """
    if not _isatty(sys.stderr):
        return _NoProgress()
    from tqdm import tqdm

    class Bar(tqdm):  # type: ignore[type-arg]
        """No monitor thread: a second thread would keep ``--workers`` from forking."""

        monitor_interval = 0

    return Bar(
        total=total, unit=unit, unit_scale=True, desc=desc, file=sys.stderr, leave=False,
        delay=PROGRESS_DELAY, mininterval=PROGRESS_INTERVAL,
    )


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def standard_output() -> Iterator[IO[str]]:
    """Standard output for a command's report; a failed write becomes a :class:`DataError`.

    ``BrokenPipeError`` passes through (the reader went away: the command ends
    quietly); any other write error (a full disk, a closed descriptor) is
    ``<stdout>: cannot write: ...``, after which descriptor 1 is pointed at
    /dev/null so that the interpreter's last flush cannot fail again.
    """
    out = sys.stdout
    if out is None:  # the process started with descriptor 1 closed
        raise DataError("<stdout>", None, "cannot write: standard output is closed")
    try:
        yield out
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        silence_stdout()
        raise DataError("<stdout>", None, f"cannot write: {os_reason(error)}") from None


def silence_stdout() -> None:
    """Point descriptor 1 at /dev/null, so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
