"""Regenerate the small TREC example: ``python rankeval/data/make_trec_example.py``.

``example.qrels`` judges 40 documents for each of 25 queries (grades 0, 1 and 2);
``bm25.run`` and ``dense.run`` rank 30 documents a query, the dense system a little better
than BM25 on average. Synthetic, fixed by the seed; ``tests/test_docs_examples.py`` checks
the bundled files against this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SEED = 20261126
QUERIES = 25
JUDGED = 40
RETRIEVED = 30


def trec_example(seed: int = SEED) -> dict[str, str]:
    """The three files' texts, by file name."""
    rng = np.random.default_rng(seed)
    qrels: list[str] = []
    runs: dict[str, list[str]] = {"bm25.run": [], "dense.run": []}
    for q in range(1, QUERIES + 1):
        grades = rng.choice([0, 0, 0, 1, 1, 2], size=JUDGED)
        docs = [f"D{q:02d}-{d:03d}" for d in range(JUDGED)]
        qrels += [f"{q} 0 {doc} {grade}\n" for doc, grade in zip(docs, grades, strict=True)]
        for name, skill in (("bm25.run", 0.8), ("dense.run", 1.5)):
            score = np.round(skill * grades + rng.normal(0.0, 1.0, JUDGED), 2)
            order = np.argsort(-score, kind="stable")[:RETRIEVED]
            runs[name] += [f"{q} Q0 {docs[i]} {rank} {score[i]:.2f} {name[:-4]}\n"
                           for rank, i in enumerate(order, start=1)]
    return {"example.qrels": "".join(qrels), **{k: "".join(v) for k, v in runs.items()}}


if __name__ == "__main__":
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
    for name, text in trec_example().items():
        (folder / name).write_text(text, encoding="utf-8", newline="\n")
