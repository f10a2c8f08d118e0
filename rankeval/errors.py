"""The exceptions rankeval raises besides Python's own ``TypeError`` and ``ValueError``.

Both are ``ValueError`` subclasses, so code that catches ``ValueError`` for bad input keeps
working; both name the file they are about.
"""

from __future__ import annotations

__all__ = ["DataError", "PersistenceError"]


class DataError(ValueError):
    """A malformed input file: where (``path:line``), what was expected, what was found.

    Examples
    --------
    >>> str(DataError("runs.tsv", 7, "expected a number for the score, found 'abc'"))
    "runs.tsv:7: expected a number for the score, found 'abc'"
    """

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {message}")



class PersistenceError(ValueError):
    """A saved-state file that cannot be loaded: the message names the file and the problem.

    Attributes
    ----------
    path : str
        The file, as given to :func:`load_state`.
    problem : str
        What is wrong with it, e.g. ``"checksum mismatch"``.
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem

    def __reduce__(self) -> tuple[type[PersistenceError], tuple[str, str]]:
        return type(self), (self.path, self.problem)
