"""DataFrames in and out: pandas, polars and Arrow tables, through narwhals.

Runs and qrels travel as tables in IR tooling (ir_datasets, PyTerrier, ranx). A table with
the usual column names can be passed wherever a run or qrels is expected; other names are
given to :meth:`Run.from_frame <rankeval.ranking.Run.from_frame>` and
:meth:`Qrels.from_frame <rankeval.ranking.Qrels.from_frame>`. Column names, first match:

* query: ``query_id`` (ir_datasets), ``qid`` (PyTerrier)
* document: ``doc_id``, ``docno``
* score: ``score``
* relevance: ``relevance``, ``label``

Per-query results and comparisons go out as tables of the backend asked for. narwhals
(``pip install 'rankeval-exact[frames]'``, pure Python) speaks to every library; none of the
table libraries is a dependency of rankeval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["DEFAULT_NAMES", "columns", "is_frame", "to_frame"]

#: The column names looked for, first match wins.
DEFAULT_NAMES: Mapping[str, tuple[str, ...]] = {
    "query": ("query_id", "qid"),
    "doc": ("doc_id", "docno"),
    "score": ("score",),
    "relevance": ("relevance", "label"),
}
_TABLE_MODULES = ("pandas", "polars", "pyarrow", "modin", "cudf", "dask", "duckdb", "ibis")


def is_frame(value: object) -> bool:
    """Whether ``value`` is a table of a library narwhals speaks to (checked by module).

    >>> is_frame({"q": {"d": 1}}), is_frame([1, 2])
    (False, False)

    Complexity: O(1).
    """
    module = type(value).__module__.split(".", 1)[0]
    return module in _TABLE_MODULES and not isinstance(value, (Mapping, Sequence, np.ndarray))


def _narwhals() -> Any:
    try:
        import narwhals
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "tables (pandas, polars, Arrow) need narwhals: pip install 'rankeval-exact[frames]'"
        ) from None
    return narwhals


def columns(frame: Any, wanted: Mapping[str, str | None]) -> dict[str, NDArray[Any]]:
    """The columns ``wanted`` (role -> name, or None for :data:`DEFAULT_NAMES`) as arrays.

    Raises ``ValueError`` naming the missing column and the columns the table has
    (``TypeError`` when the table looks like the other kind: a run where qrels belong).

    Complexity: O(rows) per column (a copy when the library stores it differently).
    """
    nw = _narwhals()
    table = nw.from_native(frame, eager_only=True)
    present = list(table.columns)
    out = {}
    for role, name in wanted.items():
        candidates = (name,) if name is not None else DEFAULT_NAMES[role]
        found = next((c for c in candidates if c in present), None)
        if found is None:
            expected = " or ".join(repr(c) for c in candidates)
            swapped = ""
            if role == "relevance" and "score" in present:
                swapped = "; it looks like a run: the qrels come first"
            elif role == "score" and any(c in present for c in DEFAULT_NAMES["relevance"]):
                swapped = "; it looks like qrels: the qrels come first"
            option = "rel_col" if role == "relevance" else f"{role}_col"
            error = TypeError if swapped else ValueError
            raise error(f"the table has no {role} column {expected}; its columns are "
                        f"{present} (name yours with {option}=...){swapped}")
        out[role] = np.asarray(table[found].to_numpy())
    return out


def to_frame(data: Mapping[str, Sequence[Any] | NDArray[Any]], backend: str) -> Any:
    """A table of ``backend`` (``"pandas"``, ``"polars"``, ``"pyarrow"``) from columns.

    Complexity: O(cells).
    """
    nw = _narwhals()
    return nw.from_dict(dict(data), backend=backend).to_native()
