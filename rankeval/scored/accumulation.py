"""The one base of every accumulator: its state declared once, each part with its merge rule.

Each accumulator — the binary evaluator (and its windows), the multi-category, paired, sketch
and segmented evaluations — derives from :class:`Accumulation` and declares its state in
``_STATE``: a :class:`Part` an attribute, with its value when new (and after ``reset()``) and
the rule by which two accumulators' values of it merge (torchmetrics' ``add_state(name,
default, dist_reduce_fx=)`` is the model). Settings (categories, tie policy, window, sketch
size, factory) are not state: they make an empty accumulator, ``_settings()``, and two
accumulators merge only when they agree on them.

What the base does over that declaration, once for all:

* ``reset()`` gives every declared part its value when new, in one assignment under the lock;
* ``merge(other)`` checks the kind and the settings, reads ``other``'s parts under its lock,
  builds every merged part aside by its rule, and publishes them in one assignment: a failure
  anywhere (a bad merge, a ``MemoryError``, an interrupt) leaves this accumulator as it was;
* ``save``/``load`` write and read ``to_bytes()`` atomically (:mod:`rankeval.container`: a
  crash leaves the old file or the whole new one), and pickling goes through the same bytes
  (the lock and the caches are never pickled).

An accumulator whose merge cannot be written part by part (the binary evaluator orders its
merged cases by arrival or by time; the sketch changes phase) overrides ``merge`` and still
merges its counts by their declared rules; one that persists more than its bytes (a segmented
evaluation's factory, a time window's clock) overrides the pickling.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, TypeVar

__all__ = ["Accumulation", "Part", "added", "by_merge", "joined", "kept", "merged_copy",
           "new_list", "nothing", "zero"]


A = TypeVar("A", bound="Accumulation")


class Part(NamedTuple):
    """One declared part of an accumulator's state."""

    #: Its value when new and after ``reset()``, of the accumulator (whose settings it may
    #: read); a new list each time.
    empty: Callable[[Any], Any]
    #: ``merge(ours, theirs)``: the merged value, built aside (neither argument changes).
    merge: Callable[[Any, Any], Any]


def added(ours: Any, theirs: Any) -> Any:
    """Counts merge by adding."""
    return ours + theirs


def joined(ours: list[Any] | None, theirs: list[Any] | None) -> list[Any] | None:
    """Lists of arrays merge by joining, ours first (None, a part never given, stays None
    when both are; :meth:`Accumulation._aligned` aligns the two before)."""
    if ours is None and theirs is None:
        return None
    return [*(ours or ()), *(theirs or ())]


def nothing(accumulation: Any) -> None:
    """The value of a part not given yet (weights before the first one)."""
    return None


def new_list(accumulation: Any) -> list[Any]:
    """An empty list of arrays."""
    return []


def zero(accumulation: Any) -> int:
    """A count of nothing."""
    return 0


def by_merge(ours: Any, theirs: Any) -> Any:
    """The rule of a part that the accumulator's own ``merge`` merges with others (the
    binary evaluator's store, the sketch's phase): never called part by part."""
    raise AssertionError("this part is merged by its accumulator's own merge()")


def kept(ours: Any, theirs: Any) -> Any:
    """This accumulator's own reading (a clock's last time): a merge keeps ours."""
    return ours


def merged_copy(ours: Any, theirs: Any) -> Any:
    """An accumulator held inside another merges into a copy of ours (its own merge)."""
    copy: Any = object.__new__(type(ours))
    copy.__setstate__(ours.__getstate__())
    copy.merge(theirs)
    return copy


class Accumulation:
    """The base: state declared once (``_STATE``) with its merge rules; see the module text."""

    _STATE: ClassVar[dict[str, Part]] = {}
    _lock: threading.RLock

    # ---------------------------------------------------------------- declared
    def _settings(self) -> dict[str, Any]:
        """The settings as the constructor's keywords: an empty one is ``type(self)(**it)``."""
        raise NotImplementedError

    def _start(self) -> None:
        """Every declared part at its value when new, and a lock (for ``__init__``)."""
        for name, part in self._STATE.items():
            setattr(self, name, part.empty(self))
        self._lock = threading.RLock()
        self._changed()

    def _changed(self) -> None:
        """Forget what is derived from the state (a cache); called after every change."""

    def _parts(self) -> dict[str, Any]:
        """Every declared part, read under this accumulator's lock."""
        with self._lock:
            return {name: getattr(self, name) for name in self._STATE}

    def _aligned(self, mine: dict[str, Any], theirs: dict[str, Any]
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Both accumulators' parts made ready to merge by their rules (as they are here)."""
        return mine, theirs

    # ---------------------------------------------------------------- operations
    def reset(self) -> None:
        """Forget every case, keeping the settings. Complexity: O(1)."""
        with self._lock:
            fresh = {name: part.empty(self) for name, part in self._STATE.items()}
            vars(self).update(fresh)  # one call: every part or none
            self._changed()

    def _check_mergeable(self, other: object) -> None:
        kind = type(self).__name__
        if not isinstance(other, type(self)):
            raise TypeError(f"can only merge a {kind}, got {type(other).__name__}")
        mine, theirs = self._settings(), other._settings()
        differ = [key for key in mine if mine[key] != theirs[key]]
        if differ:
            def text(settings: dict[str, Any]) -> str:
                return ", ".join(f"{key}={settings[key]!r}" for key in differ)

            raise ValueError(f"cannot merge a {kind} of other {' and '.join(differ)} "
                             f"({text(theirs)}) into this one ({text(mine)})")

    def merge(self: A, other: A) -> None:
        """Add every case of ``other`` (same settings) after this one's: each declared part
        merged by its rule. All or nothing. Complexity: that of the parts' rules."""
        self._check_mergeable(other)
        # Theirs first, under their lock alone: two merges the other way round never hold
        # both locks, so they cannot wait for each other.
        theirs = other._parts()
        with self._lock:
            mine, theirs = self._aligned(self._parts(), theirs)
            state = {name: part.merge(mine[name], theirs[name])
                     for name, part in self._STATE.items()}
            vars(self).update(state)  # one call: every part or none
            self._changed()

    def to_bytes(self) -> bytes:
        """The whole state, self-checking (each accumulator's format)."""
        raise NotImplementedError

    @classmethod
    def from_bytes(cls: type[A], data: bytes, name: str = "<bytes>") -> A:
        """The accumulator :meth:`to_bytes` wrote."""
        raise NotImplementedError

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_bytes` to ``path`` atomically (the old file or the whole new one
        survives a crash). Complexity: O(n)."""
        from rankeval import container

        container.write_file(path, self.to_bytes())

    @classmethod
    def load(cls: type[A], path: str | os.PathLike[str]) -> A:
        """Read what :meth:`save` wrote; a FIFO, a device or a file larger than memory is
        refused before a byte is read (:func:`rankeval.container.read_file`)."""
        from rankeval import container

        return cls.from_bytes(container.read_file(path), os.fspath(path))

    def __getstate__(self) -> dict[str, Any]:
        """Pickled as :meth:`to_bytes` (never the lock or a cache)."""
        return {"state": self.to_bytes()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(vars(type(self).from_bytes(state["state"])))
