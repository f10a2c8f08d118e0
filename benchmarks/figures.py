"""The headline figures of the README and the benchmarks page of the docs, generated from
``benchmarks/results/`` (never copied by hand).

``python benchmarks/figures.py --write`` rewrites the README's figures table (between its
``<!-- figures -->`` and ``<!-- /figures -->`` lines) and ``docs/benchmarks.md``;
``tests/test_figures.py`` fails when either differs from what this prints, so a rerun that
changes a result file changes the figures with it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"


@dataclass(frozen=True)
class Figure:
    """One headline figure: a question, the result file answering it, a pattern whose groups
    are the numbers, and how to say them."""

    question: str
    file: str
    pattern: str
    say: Callable[..., str]

    def value(self) -> str:
        text = (RESULTS / self.file).read_text(encoding="utf-8")
        found = re.search(self.pattern, text, re.M)
        if found is None:
            raise ValueError(f"{self.file}: no line matches {self.pattern!r}")
        return self.say(*found.groups())

    def command(self) -> str:
        text = (RESULTS / self.file).read_text(encoding="utf-8")
        found = re.search(r"^command: (.*?)(?: \(.*\))?$", text, re.M)
        command = found.group(1) if found else f"python {self.file[:-4]}.py"
        return re.sub(r"\S*/(bench_\w+\.py)", r"\1", command)


def _speed(ratio: str) -> str:
    """A speed ratio (theirs / ours) said as "N.NNx faster", or "N.NNx slower" below 1."""
    value = float(ratio)
    return f"{value:.2f}x faster" if value >= 1.0 else f"{1 / value:.2f}x slower"


def _faster(ratio: str) -> str:
    """A time ratio (ours / theirs) said as "N.N x faster"."""
    return f"{1 / float(ratio):.1f}x faster"


FIGURES = (
    Figure("10^6 `add_case` calls, exact ROC area every 1,000th, vs river `ROCAUC`",
           "bench_streaming.txt", r"^continuous\s+river ROCAUC\(\).*?\s(\d+\.\d+)x\s",
           lambda x: f"{x}x the updates a second (river's value off by 4e-3)"),
    Figure("`add_cases(10^6)` + every curve and summary, vs scikit-learn",
           "bench_batch.txt",
           r"^continuous\s+scikit-learn roc_auc.*?\s(0\.\d+)\s+0\.\d+\s+<=", _faster),
    Figure("100 `add_cases` batches of 10^4 + the ROC area, vs torchmetrics `BinaryAUROC`",
           "bench_batch.txt",
           r"^continuous\s+torchmetrics BinaryAUROC.*?\s(\d\.\d+)\s+\d\.\d+\s+<= 1\s",
           _faster),
    Figure("memory per case held at 10^7 cases (float64 scores; bare arrays: 9 B)",
           "bench_memory.txt",
           r"^continuous\s+rankeval ties=insertion, add_cases\s+[\d,]+\s+(\d+\.\d+)",
           lambda b: f"{b} B"),
    Figure("`rankeval trec`, 10^7-line run, vs trec_eval (C, -O2)",
           "bench_trec_process_10m_1000.txt",
           r"^10,000,000-line run, 4 measures\s+rankeval trec\s+\S+\s+\S+\s+(\S+)x\s+(\S+)x",
           lambda t, m: f"{t}x its time, {m}x its memory"),
    Figure("`rankeval trec`, 10^6-line run, tied scores, 40 judged a query, default "
           "measures, vs trec_eval (C, -O2)", "bench_trec_process.txt",
           r"^same, ties, 40 judged, default\s+rankeval trec\s+\S+\s+\S+\s+(\S+)x\s+(\S+)x",
           lambda t, m: f"{t}x its time, {m}x its memory"),
    Figure("the same with `-m all_trec`", "bench_trec_process.txt",
           r"^same, ties, 40 judged, -m all_trec\s+rankeval trec\s+\S+\s+\S+\s+(\S+)x\s+(\S+)x",
           lambda t, m: f"{t}x its time, {m}x its memory"),
    Figure("10,000 queries x 100 documents, 4 measures, from NumPy arrays (str ids), vs "
           "pytrec_eval", "bench_ranking.txt",
           r"^\s+rankeval, str ids.*?vs pytrec_eval\S* evaluate\(run dict\)\s+(\d+\.\d+)x faster",
           _speed),
    Figure("the same, from pytrec_eval's dicts, vs pytrec_eval", "bench_ranking.txt",
           r"^\s+rankeval from dicts.*?vs pytrec_eval\S* evaluate\(run dict\)\s+(\d+\.\d+)x "
           r"faster", _speed),
    Figure("the same, from pandas tables (object ids), vs ranx (its sorted `Run`)",
           "bench_ranking.txt",
           r"^\s+rankeval from pandas.*?vs ranx: evaluate\(sorted Run\)\s+(\d+\.\d+)x faster",
           _speed),
    Figure("the same from TREC files (10^6 lines, read and evaluated), vs pytrec_eval's parsers",
           "bench_ranking.txt", r"rankeval trec is (\d+\.\d+)x faster end to end", _speed),
    Figure("10^7 lines (10^5 queries x 100 documents), 4 measures, end to end from pandas "
           "tables (object ids), vs ranx from the same tables (all threads)", "bench_ranx.txt",
           r"^2\. 10,000,000 lines(?:.*\n)*?\s+from pandas: rankeval (\d+\.\d+)x faster "
           r"than ranx, \d+ threads", _speed),
    Figure("the same, from pandas tables, vs ranx's evaluation alone of its prebuilt `Run`",
           "bench_ranx.txt",
           r"^2\. 10,000,000 lines(?:.*\n)*?\s+target: from pandas, end to end, >= 2x faster "
           r"than ranx's evaluate of its prebuilt Run: (\d+\.\d+)x", _speed),
    Figure("the same, from pytrec_eval's dicts, vs pytrec_eval", "bench_ranx.txt",
           r"^2\. 10,000,000 lines(?:.*\n)*?\s+from dicts: rankeval (\d+\.\d+)x faster "
           r"than pytrec_eval", _speed),
    Figure("the same, from TREC files, vs pytrec_eval's parsers and evaluation",
           "bench_ranx.txt",
           r"^2\. 10,000,000 lines(?:.*\n)*?\s+from TREC file: rankeval (\d+\.\d+)x "
           r"faster than pytrec_eval", _speed),
    Figure("Spark, 10^7 rows, exact ROC area and AP, vs MLlib exact (numBins=0)",
           "bench_engines.txt",
           r"continuous scores;.*?\n(?:.*\n)*?spark BinaryClassificationMetrics \(numBins=0\)"
           r"\s+\S+\s+\d+\s+(\S+)", lambda x: f"{_speed(x)}, and exact"),
    Figure("the same, scores with ties (3 decimals)", "bench_engines.txt",
           r"\(ties\);.*?\n(?:.*\n)*?spark BinaryClassificationMetrics \(numBins=0\)"
           r"\s+\S+\s+\d+\s+(\S+)", lambda x: f"{_speed(x)}, and exact"),
    Figure("DeLong interval at 10^7 cases, vs the NumPy fast DeLong", "bench_intervals.txt",
           r"^10,000,000\s+DeLong interval.*?\s(\d+\.\d+)x\s", lambda x: f"{x}x faster"),
    Figure("2,000 bootstrap resamples of AP at 10^6 cases, vs resampling scikit-learn",
           "bench_intervals.txt", r"2,000 resamples of AP.*?\s(\d+\.\d+)x\s",
           lambda x: f"{x}x faster, memory independent of the resamples"),
    Figure("weighted `add_cases(10^6, weights=)` + every weighted read, vs scikit-learn's "
           "`sample_weight`", "bench_weighted.txt",
           r"^continuous\s+scikit-learn, sample_weight.*?\s(\d+\.\d+)\s+>= 5",
           lambda x: f"{x}x faster"),
    Figure("memory per weighted case held at 10^7 cases (float64 scores and weights)",
           "bench_weighted.txt", r"^weighted, float64\s+[\d,]+\s+(\d+\.\d+)",
           lambda b: f"{b} B"),
    Figure("10^6 cases x 10 categories, every summary, vs scikit-learn",
           "bench_categories.txt", r"^add_cases \+ 8 summaries.*?\s(\d+\.\d+)x\s",
           lambda x: f"{x}x faster"),
    Figure("10^6 cases in 10^5 segments, ROC area and AP of each, vs pandas + scikit-learn",
           "bench_segments.txt", r"^1,000,000\s+100,000\s+.*?\s(\d+\.\d+)x\s",
           lambda x: f"{x}x faster"),
    Figure("Spark, 10^7 rows in 1,000 groups, each group's exact report, vs `groupBy()."
           "applyInPandas` + scikit-learn", "bench_segments.txt",
           r"^10,000,000\s+1,000\s+.*?\s(\d+\.\d+)x\s", lambda x: f"{x}x faster"),
)


def figures_table() -> str:
    """The README's table of headline figures."""
    rows = ["| question | measured | command (in `benchmarks/`) |", "|---|---|---|"]
    rows += [f"| {f.question} | **{f.value()}** | `{f.command()}` |" for f in FIGURES]
    return "\n".join(rows)


def coverage_table() -> str:
    """The coverage of every 95 % interval, as ``bench_intervals.py`` measured it (its table,
    as Markdown)."""
    text = (RESULTS / "bench_intervals.txt").read_text(encoding="utf-8")
    block = text.split("Coverage of 95 % intervals", 1)[1].split("\n\n", 1)[0].splitlines()
    header = re.split(r"\s{2,}", block[1].strip())
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for line in block[3:]:
        rows.append("| " + " | ".join(re.split(r"\s{2,}", line.strip())) + " |")
    return "\n".join(rows)


def benchmarks_page() -> str:
    """``docs/benchmarks.md``: the headline table, then every result file as it is."""
    parts = [
        "# Benchmarks",
        "",
        "<!-- Generated by `python benchmarks/figures.py --write` from benchmarks/results/; "
        "do not edit by hand. -->",
        "",
        "Every figure is a ratio against a peer measured in the same run, on the project's "
        "2-core machines (each result file names its machine, versions and commit). The "
        "scripts and their questions: `benchmarks/README.md`; `python benchmarks/run_all.py "
        "--save` reruns them all.",
        "",
        figures_table(),
        "",
    ]
    for path in sorted(RESULTS.glob("*.txt")):
        text = path.read_text(encoding="utf-8").rstrip("\n")
        parts += [f"## {path.stem}", "", "```text", text, "```", ""]
    return "\n".join(parts)


def readme_with_figures(readme: str) -> str:
    """``readme`` with its generated blocks (figures, coverage) made anew."""
    for name, table in (("figures", figures_table), ("coverage", coverage_table)):
        block = re.compile(f"<!-- {name} -->\n(?:.*?\n)?<!-- /{name} -->", re.S)
        if block.search(readme) is None:
            raise ValueError(f"the README has no <!-- {name} --> ... <!-- /{name} --> block")
        readme = block.sub(lambda _, n=name, t=table: f"<!-- {n} -->\n{t()}\n<!-- /{n} -->",
                           readme, count=1)
    return readme


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help="rewrite README.md's figures block and docs/benchmarks.md")
    args = parser.parse_args(argv)
    if not args.write:
        sys.stdout.write(figures_table() + "\n")
        return 0
    readme = ROOT / "README.md"
    readme.write_text(readme_with_figures(readme.read_text(encoding="utf-8")), encoding="utf-8")
    (ROOT / "docs" / "benchmarks.md").write_text(benchmarks_page(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
