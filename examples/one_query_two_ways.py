"""One query evaluated by both halves of rankeval, which must agree.

The streaming evaluator sees scored cases (label, score); the many-query evaluation sees a run
and qrels. For one query with distinct scores and at least one relevant document, both give
the same average precision, precision at k, reciprocal rank and R-precision.

Run: python examples/one_query_two_ways.py
"""

from __future__ import annotations

from rankeval import ScoredPrecisionRecallEvaluation, evaluate_run

scores = {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.4, "d5": 0.2}
relevant = {"d2", "d4", "d9"}  # d9 was never retrieved: a miss

streaming = ScoredPrecisionRecallEvaluation()
for doc, score in scores.items():
    streaming.add_case(doc in relevant, score)
streaming.add_misses(len(relevant - scores.keys()))

qrels = {"q": {doc: 1 for doc in relevant}}
run = {"q": scores}
batch = evaluate_run(qrels, run, ["map", "P.5", "recip_rank", "Rprec"])

print(f"{'measure':<14}{'streaming':>12}{'trec_eval':>12}")
for name, value in (
    ("AP", streaming.average_precision()),
    ("P@5", streaming.precision_at(5)),
    ("RR", streaming.reciprocal_rank()),
    ("R-precision", streaming.r_precision()),
):
    other = batch[{"AP": "map", "P@5": "P_5", "RR": "recip_rank", "R-precision": "Rprec"}[name]]
    print(f"{name:<14}{value:>12.4f}{other:>12.4f}")
