"""The evaluator inside a training loop: tensors in, torchmetrics' names."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

from rankeval import ScoredPrecisionRecallEvaluation


def batches(seed: int, count: int = 5, size: int = 64) -> list[tuple[torch.Tensor, torch.Tensor]]:
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(size, generator=g), (torch.rand(size, generator=g) < 0.3).long())
            for _ in range(count)]


def test_tensors_through_update_equal_the_numpy_path_bit_for_bit() -> None:
    for ties in ("insertion", "grouped"):
        loop = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
        plain = ScoredPrecisionRecallEvaluation(ties=ties)  # type: ignore[arg-type]
        for preds, target in batches(1):
            loop.update(preds, target)
            plain.add_cases(target.numpy() == 1, preds.numpy().astype(np.float64))
        assert loop == plain
        assert loop.compute() == plain.summary()  # every value, to the last bit
        assert loop.pr_curve().tobytes() == plain.pr_curve().tobytes()


def test_bool_targets_and_reset_and_merge_state() -> None:
    shards = [ScoredPrecisionRecallEvaluation(ties="grouped") for _ in range(3)]
    whole = ScoredPrecisionRecallEvaluation(ties="grouped")
    for i, (preds, target) in enumerate(batches(2, count=6)):
        shards[i % 3].update(preds, target.bool())
        whole.update(preds, target.bool())
    merged = ScoredPrecisionRecallEvaluation(ties="grouped")
    merged.merge_state(shards)
    assert merged.compute() == whole.compute()
    merged.reset()
    assert merged.num_cases() == 0


class FakeDeviceTensor:
    """Stands for a GPU tensor: readable only after .cpu(); counts the copies."""

    copies = 0

    def __init__(self, values: torch.Tensor) -> None:
        self._values = values

    def detach(self) -> FakeDeviceTensor:
        return self

    def cpu(self) -> torch.Tensor:
        FakeDeviceTensor.copies += 1
        return self._values

    def __array__(self, *args: Any) -> np.ndarray:
        raise TypeError("can't convert a device tensor to numpy; use .cpu() first")


def test_device_tensors_are_moved_once_per_batch() -> None:
    ev = ScoredPrecisionRecallEvaluation()
    FakeDeviceTensor.copies = 0
    preds, target = batches(3, count=1)[0]
    ev.update(FakeDeviceTensor(preds), FakeDeviceTensor(target))  # type: ignore[arg-type]
    assert FakeDeviceTensor.copies == 2  # one per argument, not one per case
    assert ev.num_cases() == preds.shape[0]


def test_the_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/training_loop.py trains, evaluates with update/compute and is scraped: it
    prints three epochs whose ROC area a linear signal makes high, and the scraped gauge
    holds the last epoch's value."""
    import re
    import runpy
    from pathlib import Path

    example = Path(__file__).resolve().parent.parent / "examples" / "training_loop.py"
    namespace = runpy.run_path(str(example))
    namespace["main"]()
    lines = capsys.readouterr().out.splitlines()
    epochs = [re.fullmatch(r"epoch (\d): ROC AUC (0\.\d{4}), AP (0\.\d{4}), P@10 (\d\.\d\d)", line)
              for line in lines[:3]]
    assert all(epochs), lines
    assert [int(m.group(1)) for m in epochs if m] == [0, 1, 2]
    last = float(epochs[2].group(2)) if epochs[2] else math.nan
    assert last > 0.9  # the label is a linear function of two features, plus noise
    (gauge,) = [line for line in lines[3:] if line.startswith("rankeval_roc_auc{")]
    assert round(float(gauge.rsplit(" ", 1)[1]), 4) == last


class DLPackOnly:
    """An array-API array that offers only DLPack (no ``__array__``), as some libraries do."""

    def __init__(self, values: np.ndarray) -> None:
        self._values = values

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._values.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._values.__dlpack_device__()  # type: ignore[no-any-return]


def test_table_columns_and_dlpack_arrays_equal_the_numpy_path() -> None:
    """pandas, polars and Arrow columns and a DLPack-only array go in without converting."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    rng = np.random.default_rng(4)
    scores = np.round(rng.random(300), 2).astype(np.float32)
    labels = rng.random(300) < 0.3
    plain = ScoredPrecisionRecallEvaluation(ties="grouped")
    plain.add_cases(labels, scores.astype(np.float64))
    columns = [
        (pd.Series(scores), pd.Series(labels)),
        (pd.Series(scores, dtype="Float32"), pd.Series(labels, dtype="boolean")),
        (pl.Series(scores), pl.Series(labels)),
        (pa.array(scores), pa.array(labels)),
        (pa.chunked_array([scores[:100], scores[100:]]), pa.chunked_array([labels])),
        (DLPackOnly(scores), DLPackOnly(labels.astype(np.int8))),
    ]
    for preds, target in columns:
        ev = ScoredPrecisionRecallEvaluation(ties="grouped")
        ev.update(preds, target)
        assert ev == plain, type(preds)
        assert ev.compute() == plain.summary()


def test_missing_values_in_a_column_are_refused_with_their_index() -> None:
    import pandas as pd
    import pyarrow as pa

    ev = ScoredPrecisionRecallEvaluation()
    for preds, target in [
        (pd.Series([0.5, None, 0.2], dtype="Float64"), pd.Series([1, 0, 1])),
        (pa.array([0.5, 0.1, 0.2]), pa.array([True, None, False])),
    ]:
        with pytest.raises((TypeError, ValueError), match=r"\[1\]"):
            ev.update(preds, target)
    assert ev.num_cases() == 0


def test_a_dlpack_array_off_the_host_is_refused_clearly() -> None:
    class OnDevice(DLPackOnly):
        def __dlpack__(self, **kwargs: Any) -> Any:
            raise BufferError("the array is on device cuda:0")

    ev = ScoredPrecisionRecallEvaluation()
    with pytest.raises(TypeError, match=r"preds|scores.*cuda:0.*copy it to the CPU first"):
        ev.update(OnDevice(np.zeros(3)), [1, 0, 1])
    assert ev.num_cases() == 0
