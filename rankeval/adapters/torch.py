"""rankeval under ``torch.distributed``: ``rankeval.torch``.

* :func:`sync` — every rank's accumulator gathered (``all_gather_object``: each rank sends
  its own, pickled) and merged in rank order, so every rank (or only ``dst``) holds the
  evaluator one process fed every case would hold, rank 0's cases first: exact, whatever the
  shards' sizes, an empty rank included (it sends an empty evaluator; nothing waits on a
  tensor of unknown length). Any accumulator that pickles and merges: the binary evaluator
  and its windows, ``ScoredClassifierEvaluation``, ``SegmentedEvaluation`` (its factory a
  module-level callable, as pickling needs), ``PairedEvaluation``.
* :class:`Metric` — torchmetrics' ``Metric`` protocol (``update(preds, target)``,
  ``compute()``, ``reset()``, ``forward``) over an accumulator, synced at ``compute``, for a
  training loop or a Lightning module (``self.log_dict(metric.compute())``). Memory per
  rank is the accumulator's (about 9.3 bytes a case for the binary evaluator), never a
  concatenation of every batch's tensors.

Needs PyTorch (``pip install 'rankeval-exact[torch]'``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from rankeval._extras import optional

__all__ = ["Metric", "sync"]

_A = TypeVar("_A")


def _distributed() -> Any:
    return optional("torch.distributed", "rankeval.torch", "torch", "PyTorch")


def sync(evaluator: _A, group: Any = None, *, dst: int | None = None) -> _A | None:
    """The merge of every rank's ``evaluator``, in rank order, on every rank (``dst=None``) or
    on rank ``dst`` only (the others get None); ``evaluator`` itself is left as it was.
    Outside an initialised process group, a copy of ``evaluator``.

    Every rank must call it (it is a collective); ``group`` is a ``torch.distributed``
    process group (the default group if None).

    Raises
    ------
    TypeError
        The ranks' accumulators are not all of one type.
    """
    import pickle

    dist = _distributed()
    if not (dist.is_available() and dist.is_initialized()):
        return pickle.loads(pickle.dumps(evaluator))  # type: ignore[no-any-return]
    size = dist.get_world_size(group)
    if dst is None:
        gathered: list[Any] = [None] * size
        dist.all_gather_object(gathered, evaluator, group=group)
    else:
        here = dist.get_rank(group) if group is not None else dist.get_rank()
        gathered = [None] * size if here == dst else []
        dist.gather_object(evaluator, gathered if here == dst else None, dst=dst, group=group)
        if here != dst:
            return None
    # a rank's own entry may be its object itself: merged into, it would change the caller's
    gathered = [pickle.loads(pickle.dumps(e)) if e is evaluator else e for e in gathered]
    kinds = {type(e).__name__ for e in gathered}
    if len(kinds) != 1:
        raise TypeError(f"sync merges one kind of accumulator; the ranks hold {sorted(kinds)}")
    merged = gathered[0]  # a copy: it came through pickle
    for other in gathered[1:]:
        merged.merge(other)
    return merged  # type: ignore[no-any-return]


def _array(values: Any) -> Any:
    """A tensor (on any device) or an array-like, as NumPy."""
    if hasattr(values, "detach"):
        return values.detach().cpu().numpy()
    return np.asarray(values)


class Metric:
    """torchmetrics' ``Metric`` protocol over a rankeval accumulator.

    ``evaluator_factory()`` makes the accumulator (``ScoredPrecisionRecallEvaluation`` by
    default; a window, ``ScoredClassifierEvaluation`` with its categories, ...);
    ``update(preds, target)`` adds a batch (tensors on any device, or arrays);
    ``compute()`` is the accumulator's ``compute()`` (its summary) after :func:`sync`
    across the ranks when a process group is initialised and ``sync_on_compute``;
    ``forward(preds, target)`` (and calling the metric) adds the batch and returns the
    batch's own values, as torchmetrics' ``forward`` does.

    >>> import torch
    >>> metric = Metric()
    >>> metric.update(torch.tensor([0.9, 0.2, 0.7]), torch.tensor([1, 0, 0]))
    >>> metric.compute()["roc_auc"]
    1.0
    """

    def __init__(self, evaluator_factory: Callable[[], Any] | None = None, *,
                 sync_on_compute: bool = True, group: Any = None) -> None:
        if evaluator_factory is None:
            from rankeval.scored.evaluation import ScoredPrecisionRecallEvaluation

            evaluator_factory = ScoredPrecisionRecallEvaluation
        self._factory = evaluator_factory
        self._sync = sync_on_compute
        self._group = group
        self.evaluator = evaluator_factory()

    def update(self, preds: Any, target: Any, weights: Any = None) -> None:
        """Add a batch: ``preds`` the scores, ``target`` the labels (torchmetrics' order), and
        the cases' ``weights`` if they carry any (the accumulator's ``add_cases(...,
        weights=)``)."""
        if weights is None:
            self.evaluator.update(_array(preds), _array(target))
        else:
            self.evaluator.update(_array(preds), _array(target), _array(weights))

    def compute(self) -> dict[str, float]:
        """Every value of the accumulator over every rank's cases."""
        evaluator = self.evaluator
        if self._sync:
            dist = _distributed()
            if dist.is_available() and dist.is_initialized():
                evaluator = sync(self.evaluator, self._group)
        return evaluator.compute()

    def forward(self, preds: Any, target: Any, weights: Any = None) -> dict[str, float]:
        """Add the batch, and return its own values (not synced, as torchmetrics' default)."""
        batch = type(self)(self._factory, sync_on_compute=False)
        batch.update(preds, target, weights)
        self.update(preds, target, weights)
        result: dict[str, float] = batch.evaluator.compute()
        return result

    __call__ = forward

    def reset(self) -> None:
        """Forget every case: a fresh accumulator."""
        self.evaluator = self._factory()
