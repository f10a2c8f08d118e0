"""One rule for old names: each warns with a ``DeprecationWarning`` that says what replaces
it and the release that removes it (:data:`REMOVED_IN`)."""

from __future__ import annotations

import warnings

__all__ = ["REMOVED_IN", "deprecated"]

#: The release that removes every deprecated path and name of the 0.x series.
REMOVED_IN = "1.0"


def deprecated(message: str, stacklevel: int = 2) -> None:
    """Warn that an old name is used: ``message`` (what it is now), then the removal release.
    ``stacklevel`` counts as ``warnings.warn``'s does, from the caller of this function.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     deprecated("old() is now new()")
    >>> str(caught[0].message)
    'old() is now new(); the old name will be removed in rankeval 1.0'
    """
    warnings.warn(f"{message}; the old name will be removed in rankeval {REMOVED_IN}",
                  DeprecationWarning, stacklevel=stacklevel + 1)
