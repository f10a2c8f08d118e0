"""Qrels and runs from ir_datasets: ``Qrels.from_ir_datasets`` and ``Run.from_ir_datasets``.

A dataset is an ir_datasets id (``"msmarco-passage/trec-dl-2019/judged"``) or a dataset
object (``ir_datasets.load(...)``, or one built from local files). Its qrels become a
:class:`~rankeval.Qrels` (query, document, relevance: the judgment's ``iteration`` field is
dropped, as trec_eval ignores it and no measure reads it); its scored documents
(``scoreddocs``, a baseline run) a :class:`~rankeval.Run` named after the dataset. Reading
goes through ir_datasets' own iterators, so its downloads, caches and formats apply; the
columns are then built at once.

Needs ir_datasets (``pip install 'rankeval-exact[irds]'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankeval._extras import optional

__all__ = ["dataset_of", "qrels_columns", "qrels_table", "run_columns"]


def dataset_of(dataset: Any) -> tuple[Any, str]:
    """The dataset object and its name, from an id or the object itself."""
    ir_datasets = optional("ir_datasets", "reading ir_datasets", "irds")
    if isinstance(dataset, str):
        return ir_datasets.load(dataset), dataset
    if not hasattr(dataset, "has_qrels"):
        raise TypeError(f"expected an ir_datasets id or dataset, got {type(dataset).__name__}")
    return dataset, str(getattr(dataset, "dataset_id", lambda: "ir_datasets")())


def qrels_columns(dataset: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Query ids, document ids and relevance of the dataset's qrels, in its order."""
    found, name = dataset_of(dataset)
    if not found.has_qrels():
        raise ValueError(f"the ir_datasets dataset {name!r} has no qrels")
    rows = list(found.qrels_iter())
    if not rows:
        return np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0, dtype=np.int64)
    return (np.array([r.query_id for r in rows]), np.array([r.doc_id for r in rows]),
            np.array([r.relevance for r in rows], dtype=np.int64))


def run_columns(dataset: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Query ids, document ids and scores of the dataset's scored documents, and its name."""
    found, name = dataset_of(dataset)
    if not found.has_scoreddocs():
        raise ValueError(f"the ir_datasets dataset {name!r} has no scored documents "
                         f"(scoreddocs) to read as a run")
    rows = list(found.scoreddocs_iter())
    if not rows:
        return (np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0), name)
    return (np.array([r.query_id for r in rows]), np.array([r.doc_id for r in rows]),
            np.array([r.score for r in rows], dtype=np.float64), name)


def qrels_table(dataset: Any) -> Any:
    """The dataset's qrels as a parsed qrels file (``rankeval trec --irds``): byte-string
    ids, the judgments in the dataset's order, "line" numbers counting them from 1."""
    from rankeval.ranking.trec_files import QrelsTable

    qid, docid, rel = qrels_columns(dataset)
    name = dataset if isinstance(dataset, str) else dataset_of(dataset)[1]
    return QrelsTable(f"ir_datasets:{name}", np.char.encode(qid.astype(str), "utf-8"),
                      np.char.encode(docid.astype(str), "utf-8"), rel,
                      np.arange(1, rel.shape[0] + 1, dtype=np.int64))
