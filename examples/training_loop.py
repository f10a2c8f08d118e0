"""A plain PyTorch training loop that evaluates exactly as it goes, and exports to Prometheus.

Run: python examples/training_loop.py  (needs torch; prometheus_client for the exporter)

The validation evaluator takes the loop's tensors as they are (update(preds, target), the
names torchmetrics users know); compute() gives every value from one state. A service
would keep the exporter running; here it is scraped once and closed.
"""

from __future__ import annotations

import urllib.request

import torch

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.prometheus import EvaluationCollector, serve


def main() -> None:
    torch.manual_seed(0)
    features = torch.randn(4000, 8)
    labels = (features[:, 0] + 0.5 * features[:, 1] + 0.3 * torch.randn(4000) > 0).float()
    model = torch.nn.Linear(8, 1)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.5)
    validation = ScoredPrecisionRecallEvaluation(ties="grouped")
    collector = EvaluationCollector(precision_at=(10, 100))
    collector.watch(validation, model="linear")
    with serve(collector, port=0, addr="127.0.0.1") as server:
        for epoch in range(3):
            for start in range(0, 3000, 100):
                x, y = features[start : start + 100], labels[start : start + 100]
                loss = torch.nn.functional.binary_cross_entropy_with_logits(
                    model(x).squeeze(1), y)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
            validation.reset()
            with torch.no_grad():
                for start in range(3000, 4000, 250):
                    scores = torch.sigmoid(model(features[start : start + 250]).squeeze(1))
                    validation.update(scores, labels[start : start + 250].bool())
            values = validation.compute()
            print(f"epoch {epoch}: ROC AUC {values['roc_auc']:.4f}, "
                  f"AP {values['average_precision']:.4f}, P@10 {values['precision_at_10']:.2f}")
        url = f"http://127.0.0.1:{server.port}/metrics"
        with urllib.request.urlopen(url) as response:
            lines = response.read().decode().splitlines()
        print(*(line for line in lines if line.startswith("rankeval_roc_auc")), sep="\n")


if __name__ == "__main__":
    main()
