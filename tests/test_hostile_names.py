"""Measure names a hostile or careless user types: never a traceback, never a
silent wrong column. The API and ``rankeval compare`` refuse them with one clear error;
``rankeval trec`` reads cutoffs as trec_eval does (C's ``atol``, saturating at 2**63 - 1),
which ``tests/test_trec_differential.py`` checks against the binaries byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval import cli, evaluate_run
from rankeval.ranking import trec_cli

QRELS = {"q": {"a": 1, "b": 0}}
RUN = {"q": {"a": 2.0, "b": 1.0}}
DEEP = "P@" + "-" * 5000 + "5"

# name -> the phrase its refusal must contain
REFUSED = {
    "map_cut.99999999999999999999": "larger than the largest, 2**63 - 1",
    "ndcg_cut.99999999999999999999": "larger than the largest, 2**63 - 1",
    "P.9223372036854775808": "larger than the largest, 2**63 - 1",
    "P.1e3": "cutoffs must be whole numbers written in digits",
    "P.1e20": "cutoffs must be whole numbers written in digits",
    "P.1e400": "cutoffs must be whole numbers written in digits",
    "P.0": "cutoffs must be positive",
    "iprec_at_recall.inf": "expected a finite number",
    "utility.1,1,1,nan": "expected a finite number",
    "relstring.1e400": "expected a finite number",
    "P@9999999999999999999999": "the cutoff must be from 1 to 2**63 - 1",
    "P@0": "the cutoff must be from 1 to 2**63 - 1",
    DEEP: "not a measure name",
    "P@(" * 40: "not a measure name",
    "IPrec@1e400": "the recall level must be a finite number",
    "IPrec@abc": "the recall level must be a finite number",
    "nDCG@1e3": "cutoff must be an integer",
}


@pytest.mark.parametrize("name", list(REFUSED), ids=lambda n: n[:30])
def test_the_api_refuses_with_a_value_error(name: str) -> None:
    with pytest.raises(ValueError, match=REFUSED[name].replace("*", r"\*").replace(".", r"\.")
                       .replace("(", r"\(")):
        evaluate_run(QRELS, RUN, name)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str, str]:
    qrels, a, b = tmp_path / "qrels", tmp_path / "a", tmp_path / "b"
    qrels.write_text("q 0 a 1\nq 0 b 0\n")
    a.write_text("q Q0 a 1 2.0 a\nq Q0 b 2 1.0 a\n")
    b.write_text("q Q0 b 1 2.0 b\nq Q0 a 2 1.0 b\n")
    return str(qrels), str(a), str(b)


@pytest.mark.parametrize("name", list(REFUSED), ids=lambda n: n[:30])
def test_compare_prints_one_usage_error(name: str, files: tuple[str, str, str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["compare", "-m", name, *files]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("rankeval: error: ")
    assert captured.err.count("\n") == 1
    assert REFUSED[name] in captured.err


@pytest.mark.parametrize(("name", "column"), [
    ("map_cut.99999999999999999999", "map_cut_9223372036854775807"),
    ("ndcg_cut.99999999999999999999", "ndcg_cut_9223372036854775807"),
    ("recall.9223372036854775807", "recall_9223372036854775807"),
    ("P.1e20", "P_1"),  # atol stops at the "e"
    ("P.1e3", "P_1"),
])
def test_trec_reads_cutoffs_as_trec_eval(name: str, column: str, files: tuple[str, str, str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run, _ = files
    assert trec_cli.main(["-m", name, qrels, run]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert [line.split("\t")[0].rstrip() for line in captured.out.splitlines()] == [column]


@pytest.mark.parametrize("name", [DEEP, "P@(" * 40, "relstring.1e400", "P.0"],
                         ids=lambda n: n[:30])
def test_trec_refuses_what_trec_eval_cannot_read(name: str, files: tuple[str, str, str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run, _ = files
    assert trec_cli.main(["-m", name, qrels, run]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("rankeval: error: ")]
    assert len(errors) == 1
    assert err.endswith(errors[0] + "\n")
    assert "Traceback" not in err


def test_compare_help_examples_run(files: tuple[str, str, str],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Every example the help of ``rankeval compare`` gives runs (its own example failed)."""
    import re

    parser_help = cli._parser()._subparsers._group_actions[0].choices["compare"].description
    examples = re.findall(r"e\.g\. ((?:-m \S+?(?: |(?=[;,)])))+)", parser_help)
    assert len(examples) == 2, parser_help
    for example in examples:
        names = example.replace("-m", " ").split()
        args = [part for name in names for part in ("-m", name.strip(";,"))]
        assert cli.main(["compare", *args, *files]) == 0, example
    mixed = ["-m", "map", "-m", "nDCG@10"]
    assert cli.main(["compare", *mixed, "--complete", *files]) == 0
    capsys.readouterr()
    assert cli.main(["compare", *mixed, *files]) == 1
    assert "pass --complete" in capsys.readouterr().err
