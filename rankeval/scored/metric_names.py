"""torchmetrics' and TorchEval's names for the scored evaluator: a mixin.

``update(preds, target)`` / ``compute()`` (torchmetrics; TorchEval's ``merge_state`` is
the evaluator's own, beside ``merge``), so that the scored evaluator drops into loops
written for those libraries; each is the evaluator's own method under another name.
"""

from __future__ import annotations

from typing import Protocol

from numpy.typing import ArrayLike

__all__ = ["MetricSpellings"]


class _Accumulator(Protocol):
    def add_cases(self, correct: ArrayLike, scores: ArrayLike, *,
                  weights: ArrayLike | None = None) -> None: ...
    def summary(self) -> dict[str, float]: ...


class MetricSpellings:
    """``update`` and ``compute`` (see the module text)."""

    def update(self: _Accumulator, preds: ArrayLike, target: ArrayLike,
               weights: ArrayLike | None = None) -> None:
        """torchmetrics' spelling of :meth:`add_cases`: scores first, then labels (and the
        cases' weights, as ``add_cases(..., weights=)``).

        ``preds`` and ``target`` may be PyTorch tensors (a GPU tensor is copied to the host
        once per call), NumPy, JAX or other array-API arrays, or table columns.

        >>> from rankeval import ScoredPrecisionRecallEvaluation
        >>> ev = ScoredPrecisionRecallEvaluation()
        >>> ev.update([0.9, 0.2], [1, 0]); ev.compute()["roc_auc"]
        1.0
        """
        if weights is None:
            self.add_cases(target, preds)
        else:
            self.add_cases(target, preds, weights=weights)

    def compute(self: _Accumulator) -> dict[str, float]:
        """torchmetrics' spelling of :meth:`summary` (every main value, from one state)."""
        return self.summary()
