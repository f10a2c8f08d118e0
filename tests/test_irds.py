"""Qrels and runs from ir_datasets, on a dataset built from local files in the test's
temporary directory (ir_datasets' own LocalDownload, TrecQrels and TrecScoredDocs, registered
under a fresh id): no download. The values equal those of the same files read as TREC
files."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import ir_datasets
import numpy as np
import pytest
from ir_datasets import formats, util
from ir_datasets.datasets.base import Dataset

from rankeval import Qrels, Run, evaluate_run

_names = itertools.count()

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 0\nq3 0 d9 1\n"
RUN = ("q1 Q0 d1 1 3.5 base\nq1 Q0 d3 2 2.0 base\nq1 Q0 d7 3 1.0 base\n"
       "q2 Q0 d2 1 1.0 base\nq2 Q0 d1 2 0.5 base\nq3 Q0 d9 1 9.0 base\n")


def local_dataset(tmp_path: Path, qrels: str = QRELS, run: str | None = RUN) -> tuple[Any, str]:
    (tmp_path / "qrels").write_text(qrels)
    parts: list[Any] = [formats.TrecQrels(util.LocalDownload(tmp_path / "qrels"),
                                          {0: "not relevant", 1: "relevant", 2: "highly"})]
    if run is not None:
        (tmp_path / "run").write_text(run)
        parts.append(formats.TrecScoredDocs(util.LocalDownload(tmp_path / "run")))
    name = f"rankeval-test/local-{next(_names)}"
    ir_datasets.registry.register(name, Dataset(*parts))
    return ir_datasets.load(name), name


def test_qrels_and_run_equal_the_trec_files(tmp_path: Path) -> None:
    dataset, name = local_dataset(tmp_path)
    for given in (name, dataset):  # an id or the dataset itself
        qrels = Qrels.from_ir_datasets(given)
        assert qrels.to_dict() == Qrels.from_file(tmp_path / "qrels").to_dict()
        run = Run.from_ir_datasets(given)
        assert run.to_dict() == Run.from_file(tmp_path / "run").to_dict()
    assert Run.from_ir_datasets(name).runid == name
    assert Run.from_ir_datasets(name, runid="bm25").runid == "bm25"
    measures = ["map", "ndcg_cut_10", "P_5", "recip_rank", "num_rel_ret"]
    ours = evaluate_run(Qrels.from_ir_datasets(name), Run.from_ir_datasets(name), measures)
    files = evaluate_run(Qrels.from_file(tmp_path / "qrels"), Run.from_file(tmp_path / "run"),
                         measures)
    for measure in measures:
        np.testing.assert_array_equal(ours.values[measure], files.values[measure])
        assert ours.aggregates[measure] == files.aggregates[measure]


def test_a_dataset_without_scored_documents_or_qrels_is_refused(tmp_path: Path) -> None:
    _, name = local_dataset(tmp_path, run=None)
    with pytest.raises(ValueError, match="has no scored documents"):
        Run.from_ir_datasets(name)
    with pytest.raises(TypeError, match="an ir_datasets id or dataset"):
        Qrels.from_ir_datasets(42)
    with pytest.raises(KeyError):
        Qrels.from_ir_datasets("rankeval-test/never-registered")


def test_a_judgment_given_twice_is_refused_as_in_a_file(tmp_path: Path) -> None:
    _, name = local_dataset(tmp_path, qrels="q1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(ValueError, match="twice"):
        Qrels.from_ir_datasets(name)


def test_rankeval_trec_reads_the_qrels_from_ir_datasets(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """`rankeval trec --irds ID RUN` prints, byte for byte, what `rankeval trec QRELS RUN`
    prints for the same qrels as a file, per query and with every measure."""
    from rankeval.ranking.trec_cli import main

    _, name = local_dataset(tmp_path)
    run = str(tmp_path / "run")
    for flags in ([], ["-q", "-m", "all_trec"], ["-c", "-m", "ndcg_cut.5", "-l", "2"]):
        assert main([*flags, "--irds", name, run]) == 0
        ours = capsys.readouterr().out
        assert main([*flags, str(tmp_path / "qrels"), run]) == 0
        assert ours == capsys.readouterr().out


def test_rankeval_trec_with_irds_takes_one_file(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from rankeval.ranking.trec_cli import main

    _, name = local_dataset(tmp_path)
    assert main(["--irds", name, str(tmp_path / "qrels"), str(tmp_path / "run")]) == 2
    assert "with --irds, expected 1 file (run_file), found 2" in capsys.readouterr().err
