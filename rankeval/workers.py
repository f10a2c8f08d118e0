"""Work split over forked processes: :func:`forked_map` and the choice of how many.

Many-query evaluation is independent per query, and most of its time holds the GIL (the
reading of dicts, the per-query Python steps between NumPy calls), so threads give little
(1.25x on two cores, measured). Forked processes share the parent's inputs copy-on-write:
nothing is pickled on the way in, only each block's small result on the way out.

Rules, each kept by a test:

* a child never returns into the caller's code: it writes its result (or its exception) to
  a pipe and leaves with ``os._exit``, so no ``atexit`` handler, buffer flush or ``finally``
  of the parent runs twice;
* children ignore SIGINT: an interrupt (the terminal's Ctrl-C reaches the whole process
  group) is the parent's, which kills every child, reaps it and raises once;
* a child's exception is raised in the parent as it was raised (type and message); a child
  that dies without a result (a signal, the OOM killer) raises :class:`WorkerError`; either
  way the other children are killed and reaped first, so no worker outlives the call.

Forking a process that runs other threads can deadlock the child (a lock held by a thread
that does not exist there), so :func:`workers_for` chooses one worker then.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import selectors
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["WorkerError", "available_cpus", "can_fork", "check_workers", "forked_map",
           "split_evenly", "workers_for"]

_T = TypeVar("_T")


class WorkerError(RuntimeError):
    """A worker process ended without giving its result (killed by a signal, or exited)."""


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether forking is safe here: the platform forks and this interpreter runs no other
    thread."""
    return hasattr(os, "fork") and threading.active_count() == 1


def check_workers(workers: object) -> None:
    """Refuse a ``workers`` that is not None or a positive integer (``TypeError``,
    ``ValueError``)."""
    if workers is None:
        return
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers must be a positive integer or None, got "
                        f"{type(workers).__name__} {workers!r}")
    if workers < 1:
        raise ValueError(f"workers must be a positive integer or None, got {workers}")


def workers_for(workers: int | None, size: int, *, minimum: int) -> int:
    """How many workers to use for ``size`` units of work.

    ``None`` chooses from the machine: every CPU this process may use, one per ``minimum``
    units at most (below that a fork costs more than it saves). An explicit number is taken
    as given, up to four per CPU. Either way, one worker when :func:`can_fork` says no.

    Complexity: O(1).
    """
    check_workers(workers)
    if not can_fork():
        return 1
    if workers is None:
        return max(1, min(available_cpus(), size // minimum))
    return min(workers, 4 * available_cpus())


def forked_map(task: Callable[[int], _T], count: int) -> list[_T]:
    """``[task(0), ..., task(count - 1)]``, each call in its own forked child process.

    The children see the parent's memory as it was at the fork; each result is pickled back.
    ``task(k)`` must not depend on anything the other calls change.

    Raises
    ------
    BaseException
        The first failing child's exception, as it was raised there (its other children
        killed and reaped first).
    WorkerError
        A child that ended without a result.
    KeyboardInterrupt
        Raised in the parent while it waits: every child is killed and reaped, then it
        propagates.

    Complexity: the slowest call, plus a fork and a pickled result per call.
    """
    children: dict[int, tuple[int, int]] = {}  # read end -> (pid, k)
    chunks: dict[int, list[bytes]] = {}
    results: dict[int, _T] = {}
    try:
        for k in range(count):
            read, write = os.pipe()
            pid = _fork_child(task, k, read, write)
            os.close(write)
            children[read] = (pid, k)
            chunks[read] = []
        with selectors.DefaultSelector() as selector:
            for read in children:
                selector.register(read, selectors.EVENT_READ)
            while children:
                for key, _ in selector.select():
                    read = int(key.fd)
                    data = os.read(read, 1 << 20)
                    if data:
                        chunks[read].append(data)
                        continue
                    selector.unregister(read)
                    os.close(read)
                    pid, k = children.pop(read)
                    _, status = os.waitpid(pid, 0)
                    results[k] = _outcome(b"".join(chunks.pop(read)), status, k)
    finally:
        for read, (pid, _) in children.items():
            _kill(pid)
            os.close(read)
    return [results[k] for k in range(count)]


def _fork_child(task: Callable[[int], Any], k: int, read: int, write: int) -> int:
    """Fork; in the child, run ``task(k)``, write the pickled outcome to ``write`` and leave.
    Returns the child's pid (in the parent)."""
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:  # the child: never returns
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        os.close(read)
        gc.disable()  # short-lived: no collection walks (and copies) the parent's objects
        try:
            payload = pickle.dumps((True, task(k)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as problem:
            payload = _pickled_failure(problem)
        view = memoryview(payload)
        while view:
            view = view[os.write(write, view):]
        status = 0
    finally:
        os._exit(status)


def _pickled_failure(problem: BaseException) -> bytes:
    try:
        return pickle.dumps((False, problem), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        stand_in = WorkerError(f"{type(problem).__name__}: {problem}")
        return pickle.dumps((False, stand_in), protocol=pickle.HIGHEST_PROTOCOL)


def _outcome(payload: bytes, status: int, k: int) -> Any:
    """A finished child's result, or its failure raised."""
    if not payload or os.waitstatus_to_exitcode(status) != 0:
        code = os.waitstatus_to_exitcode(status)
        how = (f"was killed by signal {-code} ({signal.Signals(-code).name})" if code < 0
               else f"exited with status {code}")
        raise WorkerError(f"worker {k} {how} without a result")
    ok, value = pickle.loads(payload)
    if not ok:
        raise value
    return value


def _kill(pid: int) -> None:
    """Kill a child and reap it (no zombie, no orphan)."""
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def split_evenly(weights: NDArray[np.int64], parts: int) -> NDArray[np.int64]:
    """Block of each item: ``parts`` contiguous blocks of about equal total weight (an item
    goes to the block its middle falls in).

    >>> split_evenly(np.array([5, 1, 1, 1, 1, 1]), 2).tolist()
    [0, 1, 1, 1, 1, 1]

    Complexity: O(n).
    """
    total = max(int(weights.sum()), 1)
    middles = 2 * np.cumsum(weights) - weights
    blocks: NDArray[np.int64] = np.minimum(parts - 1, middles * parts // (2 * total))
    return blocks
