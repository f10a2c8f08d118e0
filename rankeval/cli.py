"""The ``rankeval`` command: evaluate a file of scored cases, print tables, draw the curves.

::

    rankeval scored FILE [--misses N] [--negative-misses N] [--ties insertion|grouped]
                         [--label-column NAME] [--score-column NAME] [--query-column NAME]
                         [--interval MEASURE[:METHOD] ... [--level L] [--resamples B] [--seed S]]
                         [--json | --curve pr|roc|score [--interpolate]] [--plot OUT.png|OUT.svg]
                         [--format tsv|csv|jsonl] [-o OUT]
    rankeval demo [--output-dir DIR]
    rankeval trec ...            (trec_eval drop-in; see ``rankeval trec --help``)

Input formats and columns are described in :mod:`rankeval.case_files`. Exit status: 0 on success,
1 for a data error (malformed line, unreadable file, missing matplotlib), 2 for a usage error.
Every error is one line on standard error, ``rankeval: error: ...``; data errors name the
place as ``FILE:LINE``.

Output
    By default the LingPipe ``toString()`` report (``str(evaluation)``). ``--curve`` prints
    one curve as LingPipe's print methods do (``pr`` and ``score``); ``roc``, which LingPipe
    cannot print, is written in the same style as rows of ``F6(1 - specificity)
    F6(sensitivity)`` under the header ``" 1-SPEC.    SENS."``. ``--json`` writes every
    derived value as one JSON object; non-finite numbers are the strings ``"NaN"``,
    ``"Infinity"`` and ``"-Infinity"`` (as in the LingPipe reference data), so the output
    is strict JSON.

Queries
    With a query column, each query is evaluated on its own; the output is one line per
    query and the means over queries of average precision, reciprocal rank, R-precision and
    the (uninterpolated) ROC area. A query without a positive case scores 0 and counts in the
    first three means (trec_eval's rule, averaged as :func:`rankeval.evaluate_run` does), or
    is left out of them with ``--no-relevant skip``; the ROC area's mean covers the queries
    where it is defined (a positive and a negative case). Each mean says how many queries it
    covers.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import resources
from typing import IO, TYPE_CHECKING, Any, Literal, NoReturn, TextIO

from rankeval._deprecation import deprecated
from rankeval.case_files import DEFAULT_CHUNK_ROWS, FileFormat, ScoredCaseReader
from rankeval.checks import MAX_COUNT
from rankeval.errors import DataError
from rankeval.files import atomic_output, os_reason, output_kind, same_file
from rankeval.formulas import NO_RELEVANT, PRECISION_AT_RANKS
from rankeval.json_output import write_json
from rankeval.scored import lingpipe_text, queries
from rankeval.scored.lingpipe_text import java_double_to_string
from rankeval.terminal import progress_bar, silence_stdout, standard_output

if TYPE_CHECKING:
    from rankeval.intervals import Interval
    from rankeval.scored import ScoredPrecisionRecallEvaluation

__all__ = ["main"]

# Library code that used to live here, now importable from where it belongs.
_MOVED = {"Mean": "rankeval.scored.queries", "QuerySummary": "rankeval.scored.queries",
          "summarize_queries": "rankeval.scored.queries",
          "print_roc_curve": "rankeval.scored.lingpipe_text"}


def __getattr__(name: str) -> Any:
    """The old names of the library code this module held, with a ``DeprecationWarning``."""
    if name in _MOVED:

        deprecated(f"rankeval.cli.{name} is now {_MOVED[name]}.{name}")
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

TiePolicy = Literal["insertion", "grouped"]
CurveName = Literal["pr", "roc", "score"]

#: Rows the reader parses before handing them on.
CHUNK_ROWS = DEFAULT_CHUNK_ROWS
_PLOT_SUFFIXES = (".png", ".svg")
_DEMO_EXAMPLES = (
    (
        "lingpipe_running_example.tsv",
        1,
        "LingPipe's running example: 10 scored cases, and 1 positive case the system never "
        "returned (a miss)",
    ),
    (
        "spam_filter_20k.tsv",
        0,
        "A spam filter's scores for 20,000 held-out messages (synthetic, see "
        "rankeval/data/README.md)",
    ),
)


class _UsageError(Exception):
    """A command line that cannot be carried out; exit status 2."""


class _Exit(Exception):  # noqa: N818 -- not an error: --help and --version stop this way too
    """argparse wants to stop (help, version, or a usage error already printed)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse that returns control to :func:`main` instead of calling ``sys.exit``."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"rankeval: error: {message}\n")
        raise _Exit(2)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise _Exit(status)


# --------------------------------------------------------------------------- summaries


# --------------------------------------------------------------------------- reading


@contextlib.contextmanager
def _open_input(path: str) -> Iterator[tuple[IO[bytes] | TextIO, str, int | None]]:
    """The input stream, the name for messages, and the size in bytes when known.

    Binary, so that the reader decodes line by line and can name the line of bad bytes.
    """
    if path == "-":
        yield getattr(sys.stdin, "buffer", sys.stdin), "<stdin>", None
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115
    except OSError as error:
        raise DataError(path, None, f"cannot read the file: {error.strerror or error}") from None
    with stream:
        try:
            size: int | None = os.fstat(stream.fileno()).st_size or None
        except OSError:
            size = None
        yield stream, path, size


def _evaluate_stream(
    stream: IO[bytes] | TextIO,
    name: str,
    *,
    ties: TiePolicy,
    file_format: FileFormat | None,
    size: int | None,
    check_layout: Callable[[ScoredCaseReader], None] = lambda reader: None,
    columns: Mapping[str, str] | None = None,
) -> tuple[ScoredCaseReader, dict[str | None, ScoredPrecisionRecallEvaluation]]:
    """Read every case of ``stream`` into one evaluation per query (key None: no queries)."""
    from rankeval.scored import ScoredPrecisionRecallEvaluation

    reader = ScoredCaseReader(stream, name, file_format=file_format, chunk_rows=CHUNK_ROWS,
                              columns=columns)
    check_layout(reader)
    feeder = queries.QueryFeeder(lambda: ScoredPrecisionRecallEvaluation(ties=ties), CHUNK_ROWS)
    done = 0
    with progress_bar(f"rankeval: reading {name}", size, "B" if size else " lines") as progress:
        for cases in reader:
            feeder.add(cases)
            now = reader.bytes_read if size else reader.lines_read
            if now is not None:
                progress.update(now - done)
                done = now
        if size:
            progress.update(size - done)  # the reader's position lags its buffer at the end
        feeder.finish()
    evaluations = feeder.evaluations
    if not evaluations and not reader.has_query:
        evaluations[None] = ScoredPrecisionRecallEvaluation(ties=ties)
    return reader, evaluations


# --------------------------------------------------------------------------- writing


def _print_curve(
    evaluation: ScoredPrecisionRecallEvaluation, curve: CurveName, interpolate: bool, out: IO[str]
) -> None:
    if curve == "pr":
        evaluation.print_precision_recall_curve(evaluation.pr_curve(interpolate), file=out)
    elif curve == "score":
        evaluation.print_score_precision_recall_curve(
            evaluation.pr_score_curve(interpolate), file=out
        )
    else:
        lingpipe_text.print_roc_curve(evaluation.roc_curve(interpolate), file=out)


def _document(evaluation: ScoredPrecisionRecallEvaluation) -> dict[str, Any]:
    """Every derived value of one evaluation, for ``--json``."""

    def both(method: Callable[[bool], Any]) -> dict[str, Any]:
        return {"uninterpolated": method(False), "interpolated": method(True)}

    from rankeval.scored.reads import READS

    document: dict[str, Any] = {}
    for read in READS.values():  # every registered read the evaluator has, by method name
        if read.parameter == "threshold" or read.probabilities:
            continue  # at a threshold (--threshold gives them), or only for probabilities
        if read.compute is not None:
            document[read.name] = read.read(evaluation, 1.0)
            continue
        if read.method is None or read.options:  # options: given by their own flags
            continue
        if read.interpolated:
            document[read.method] = both(getattr(evaluation, read.method))
        elif read.parameter == "rank":
            document[read.method] = {str(rank): read.read(evaluation, rank)
                                     for rank in PRECISION_AT_RANKS}
        else:
            document[read.method] = read.read(evaluation, 1.0)  # beta 1 for the F-measure
    return {
        **document,
        "eleven_point_interpolated_precision": evaluation.eleven_point_interpolated_precision(),
        "pr_curve": {"columns": ["recall", "precision"], **both(evaluation.pr_curve)},
        "pr_score_curve": {
            "columns": ["recall", "precision", "score"],
            **both(evaluation.pr_score_curve),
        },
        "roc_curve": {"columns": ["1-specificity", "sensitivity"], **both(evaluation.roc_curve)},
    }


def _summary_document(summary: queries.QuerySummary) -> dict[str, Any]:
    def mean(value: queries.Mean) -> dict[str, Any]:
        return {"value": value.value, "num_queries": value.num_queries}

    return {
        "num_queries": summary.num_queries,
        "num_queries_without_positives": summary.num_without_positives,
        "no_relevant": summary.no_relevant,
        "mean_average_precision": mean(summary.mean_average_precision),
        "mean_reciprocal_rank": mean(summary.mean_reciprocal_rank),
        "mean_r_precision": mean(summary.mean_r_precision),
        "mean_area_under_roc_curve": mean(summary.mean_area_under_roc_curve),
    }


def _write_query_report(
    evaluations: Mapping[str, ScoredPrecisionRecallEvaluation],
    summary: queries.QuerySummary,
    out: IO[str],
) -> None:
    d = java_double_to_string
    out.write(
        "query\tcases\tpositives\taverage precision\treciprocal rank\tR-precision\tROC area\n"
    )
    for query, ev in evaluations.items():
        values = (
            ev.average_precision(),
            ev.reciprocal_rank(),
            ev.r_precision(),
            ev.area_under_roc_curve(False),
        )
        out.write(
            f"{query}\t{ev.num_cases()}\t{ev.num_positive_ref()}\t"
            + "\t".join(map(d, values))
            + "\n"
        )

    def mean_line(name: str, mean: queries.Mean) -> str:
        queries = "query" if mean.num_queries == 1 else "queries"
        return f"  {name}={d(mean.value)} (over {mean.num_queries} {queries})\n"

    out.write("\n")
    out.write(f"  Queries={summary.num_queries}\n")
    treated = "scored 0" if summary.no_relevant == "zero" else "left out"
    out.write(f"  Queries without positives ({treated})={summary.num_without_positives}\n")
    out.write(mean_line("Mean Average Precision", summary.mean_average_precision))
    out.write(mean_line("Mean Reciprocal Rank", summary.mean_reciprocal_rank))
    out.write(mean_line("Mean R-Precision", summary.mean_r_precision))
    out.write(
        mean_line("Mean Area Under ROC Curve (uninterpolated)", summary.mean_area_under_roc_curve)
    )


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    """Standard output, or an atomic writer to ``path``; a failed write is a DataError."""
    if path is None or path == "-":
        with standard_output() as out:
            yield out
        return
    try:
        with atomic_output(path) as out:
            yield out
    except OSError as error:  # named after the target, never the temporary file
        raise DataError(path, None, f"cannot write: {os_reason(error)}") from None


def _check_writable(path: str) -> None:
    """Refuse, before any input is read, an output path that cannot be written.

    A missing directory, a path under a file, a directory as the target, or a
    directory without write permission: each is a DataError naming ``path``.
    """
    if path == "-":
        return
    if not path or path.endswith(os.sep) or os.path.isdir(path):
        raise DataError(path, None, "cannot write: it is a directory")
    try:
        if output_kind(path) == "stream":  # a device or FIFO, written in place
            return
    except OSError as error:
        raise DataError(path, None, f"cannot write: {os_reason(error)}") from None
    if os.path.islink(path):  # the file the link names is what is replaced
        path = os.path.realpath(path)
    directory = os.path.dirname(path) or os.curdir
    if not os.path.exists(directory):
        raise DataError(path, None, f"cannot write: no directory {directory!r}")
    if not os.path.isdir(directory):
        raise DataError(path, None, f"cannot write: {directory!r} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise DataError(path, None, f"cannot write: no permission to create files in {directory!r}")


def _check_outputs(outputs: dict[str, str | None], inputs: list[str]) -> None:
    """Refuse, before anything is read, outputs that cannot be written, that would replace
    an input, or that name one file twice (``-o s.tsv s.tsv``: a usage error)."""
    given = {option: path for option, path in outputs.items() if path is not None}
    for option, path in given.items():
        clobbered = same_file(path, [p for p in inputs if p != "-"])
        if clobbered is not None:
            raise _UsageError(f"{option} {path} is also an input ({clobbered}); "
                              "refusing to overwrite it")
    options = list(given)
    for i, first in enumerate(options):
        for second in options[i + 1:]:
            a, b = given[first], given[second]
            if os.path.abspath(a) == os.path.abspath(b) or same_file(a, [b]) is not None:
                raise _UsageError(f"{first} and {second} name the same file ({a})")
    for path in given.values():
        _check_writable(path)


# --------------------------------------------------------------------------- commands


def _run_scored(args: argparse.Namespace) -> int:
    if args.interpolate and args.curve is None:
        raise _UsageError("--interpolate applies to --curve; give --curve pr, roc or score")
    if args.plot is not None:
        _check_plot_path(args.plot)
        _require_matplotlib()
    # Before reading what may be a large input.
    _check_outputs({"-o": args.output, "--plot": args.plot}, [args.file])

    if args.interval and args.curve is not None:
        raise _UsageError("--interval adds to the report or the JSON, not to --curve")
    decisions_asked = [option for option, given in (
        ("--threshold", args.threshold), ("--best", args.best),
        ("--partial-auc", args.partial_auc)) if given]
    if decisions_asked and args.curve is not None:
        raise _UsageError(f"{decisions_asked[0]} adds to the report or the JSON, not to --curve")
    if "cost" in (args.best or ()) and args.costs is None:
        raise _UsageError("--best cost needs --costs FP,FN (a false positive's and a false "
                          "negative's cost)")
    if args.costs is not None and "cost" not in (args.best or ()):
        raise _UsageError("--costs applies to --best cost")
    columns = {role: name for role, name in (("label", args.label_column),
                                             ("score", args.score_column),
                                             ("query", args.query_column)) if name is not None}

    def check_layout(reader: ScoredCaseReader) -> None:
        if not reader.has_query:
            return
        where = f"{reader.path} has a query column"
        if args.interval:
            raise _UsageError(f"--interval reads a single ranking, but {where}")
        if decisions_asked:
            raise _UsageError(f"{decisions_asked[0]} reads a single ranking, but {where}")
        if args.misses is not None or args.negative_misses is not None:
            raise _UsageError(
                f"--misses and --negative-misses apply to a single ranking, but {where}"
            )
        if args.curve is not None or args.plot is not None:
            option = "--curve" if args.curve is not None else "--plot"
            raise _UsageError(f"{option} draws a single ranking, but {where}")

    with _open_input(args.file) as (stream, name, size):
        reader, evaluations = _evaluate_stream(
            stream,
            name,
            ties=args.ties,
            file_format=args.format,
            size=size,
            check_layout=check_layout,
            columns=columns,
        )

    if reader.has_query:
        by_query = {str(query): ev for query, ev in evaluations.items()}
        summary = queries.summarize_queries(by_query, args.no_relevant)
        with _output(args.output) as out:
            if args.json:
                document = {
                    "input": name,
                    "ties": args.ties,
                    "queries": [{"query": q, **_document(ev)} for q, ev in by_query.items()],
                    "summary": _summary_document(summary),
                }
                write_json(document, out)
            else:
                _write_query_report(by_query, summary, out)
        return 0

    evaluation = evaluations[None]
    try:
        evaluation.add_misses(args.misses or 0)
        evaluation.add_negative_misses(args.negative_misses or 0)
    except ValueError as error:  # R or N past 2**63 - 1 with the cases of the file
        raise DataError(name, None, str(error)) from None
    with _output(args.output) as out:
        if args.json:
            header = {
                "input": name,
                "ties": args.ties,
                "misses": args.misses or 0,
                "negative_misses": args.negative_misses or 0,
            }
            found = _intervals(evaluation, args)
            extra: dict[str, Any] = {}
            if found:
                extra["intervals"] = [_interval_document(spec, i) for spec, i in found]
            if decisions_asked:
                extra["decisions"] = _decisions_document(evaluation, args)
            write_json({**header, **_document(evaluation), **extra}, out)
        elif args.curve is not None:
            _print_curve(evaluation, args.curve, args.interpolate, out)
        else:
            out.write(f"{evaluation}\n")
            for spec, interval in _intervals(evaluation, args):
                out.write(_interval_line(spec, interval))
            if decisions_asked:
                _write_decisions(_decisions_document(evaluation, args), out)
    if args.plot is not None:
        _save_plot(evaluation, args.plot, _plot_title(name, evaluation))
    return 0


class _IntervalSpec:
    """One ``--interval`` option: ``MEASURE[.PARAMETER][:METHOD]``."""

    def __init__(self, text: str) -> None:
        from rankeval.scored.uncertainty import INTERVAL_METHODS

        self.text = text
        head, _, method = text.partition(":")
        #: The measure as written, with its parameter (``precision_at.10``): its name in the
        #: report and in the JSON.
        self.label = head
        measure, _, parameter = head.partition(".")
        if measure not in INTERVAL_METHODS:
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(INTERVAL_METHODS)} (precision_at.K, "
                f"precision.T and recall.T with a rank or a threshold), found {_shown_arg(text)}")
        methods = INTERVAL_METHODS[measure]
        if method and method not in methods:
            raise argparse.ArgumentTypeError(
                f"{measure} takes the methods {', '.join(methods)}, found {_shown_arg(method)}")
        self.measure, self.method = measure, method or None
        self.k: int | None = None
        self.threshold: float | None = None
        #: A decision read's first option (its bound or its range), from the parameter.
        self.options: dict[str, Any] = {}
        from rankeval.scored.reads import READS

        declared = READS[measure].options
        if declared:
            self.options = {declared[0]: _option_value(measure, declared[0], parameter, text)}
        elif measure == "precision_at":
            if not (parameter.isascii() and parameter.isdigit()) or int(parameter) < 1:
                raise argparse.ArgumentTypeError(
                    f"precision_at needs a rank of at least 1 (precision_at.10), found "
                    f"{_shown_arg(text)}")
            self.k = int(parameter)
        elif measure in ("precision", "recall"):
            try:
                self.threshold = float(parameter)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"{measure} needs a threshold (precision.0.5: the cases scoring at "
                    f"least 0.5), found {_shown_arg(text)}") from None
            if not math.isfinite(self.threshold):
                raise argparse.ArgumentTypeError(
                    f"{measure} needs a finite threshold, found {_shown_arg(text)}")
        elif parameter:
            raise argparse.ArgumentTypeError(
                f"{measure} takes no parameter, found {_shown_arg(text)}")


def _decisions_document(evaluation: ScoredPrecisionRecallEvaluation,
                        args: argparse.Namespace) -> dict[str, Any]:
    """``--threshold``, ``--best`` and ``--partial-auc``: each a list in the order given."""
    document: dict[str, Any] = {}
    if args.threshold:
        document["thresholds"] = [_confusion_document(t, evaluation.confusion_at(t))
                                  for t in args.threshold]
    if args.best:
        document["best"] = [_point_document(evaluation.best_threshold(
            rule, **({"costs": args.costs} if rule == "cost" else {}))) for rule in args.best]
    if args.partial_auc:
        document["partial_roc_auc"] = [
            {"fpr": list(span), "area": evaluation.partial_roc_auc(fpr=span),
             "mcclish": evaluation.partial_roc_auc(fpr=span, standardize="mcclish"),
             "normalized": evaluation.partial_roc_auc(fpr=span, standardize="normalized")}
            for span in args.partial_auc]
    return document


def _confusion_document(threshold: float, confusion: Any) -> dict[str, Any]:
    return {"threshold": threshold, "tp": confusion.true_positive,
            "fp": confusion.false_positive, "tn": confusion.true_negative,
            "fn": confusion.false_negative, "precision": confusion.precision(),
            "recall": confusion.recall(), "specificity": confusion.specificity(),
            "f_measure": confusion.f_measure(), "accuracy": confusion.accuracy(),
            "matthews_corrcoef": confusion.matthews_corrcoef()}


def _point_document(point: Any) -> dict[str, Any]:
    return {"rule": point.rule, "threshold": point.threshold, "tp": point.tp, "fp": point.fp,
            "tn": point.tn, "fn": point.fn, "sensitivity": point.sensitivity,
            "specificity": point.specificity, "precision": point.precision,
            "value": point.value}


def _write_decisions(document: dict[str, Any], out: IO[str]) -> None:
    """The decisions as lines after the report, every number as Python prints it."""
    for row in document.get("thresholds", ()):
        out.write(f"threshold {row['threshold']!r}: tp={row['tp']} fp={row['fp']} "
                  f"tn={row['tn']} fn={row['fn']}, precision {row['precision']!r}, recall "
                  f"{row['recall']!r}, specificity {row['specificity']!r}\n")
    for row in document.get("best", ()):
        out.write(f"best threshold by {row['rule']}: {row['threshold']!r} (tp={row['tp']} "
                  f"fp={row['fp']} tn={row['tn']} fn={row['fn']}), {row['rule']} "
                  f"{row['value']!r}, sensitivity {row['sensitivity']!r}, specificity "
                  f"{row['specificity']!r}, precision {row['precision']!r}\n")
    for row in document.get("partial_roc_auc", ()):
        low, high = row["fpr"]
        out.write(f"partial ROC area over FPR {low!r} to {high!r}: {row['area']!r} (McClish "
                  f"{row['mcclish']!r}, normalized {row['normalized']!r})\n")


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, found {_shown_arg(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, found {_shown_arg(text)}")
    return value


def _cost_pair(text: str) -> tuple[float, float]:
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(
            f"expected FP,FN: two costs separated by a comma, found {_shown_arg(text)}")
    fp, fn = (_finite(part) for part in parts)
    return fp, fn


def _fpr_range(text: str) -> tuple[float, float]:
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(
            f"expected A,B: two false-positive rates separated by a comma, found "
            f"{_shown_arg(text)}")
    low, high = (_finite(part) for part in parts)
    if not 0.0 <= low < high <= 1.0:
        raise argparse.ArgumentTypeError(
            f"expected 0 <= A < B <= 1, found {_shown_arg(text)}")
    return low, high


def _option_value(measure: str, option: str, parameter: str, text: str) -> Any:
    """``0.9`` (a bound) or ``0,0.1`` (a range) after the measure's dot."""
    try:
        values = tuple(float(part) for part in parameter.split(","))
    except ValueError:
        values = ()
    if not values or len(values) > 2 or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(
            f"{measure} needs its {option} after a dot ({measure}.0.9, or {measure}.0,0.1 "
            f"for a range), found {_shown_arg(text)}")
    return values if len(values) == 2 else values[0]


def _intervals(evaluation: ScoredPrecisionRecallEvaluation, args: argparse.Namespace
               ) -> list[tuple[_IntervalSpec, Interval]]:
    """Each ``--interval`` of the evaluation, in the order given."""
    return [(spec, evaluation.interval(spec.measure, args.level, spec.method, k=spec.k,
                                       threshold=spec.threshold, resamples=args.resamples,
                                       seed=args.seed, **spec.options))
            for spec in args.interval or ()]


def _interval_document(spec: _IntervalSpec, interval: Interval) -> dict[str, Any]:
    return {"measure": spec.label, "value": interval.value,
            "low": interval.low, "high": interval.high, "level": interval.level,
            "method": interval.method, "std_error": interval.std_error}


def _interval_line(spec: _IntervalSpec, interval: Interval) -> str:
    return (f"{spec.label} = {interval.value!r}, {interval.level * 100:.10g}% "
            f"interval [{interval.low!r}, {interval.high!r}] ({interval.method}, standard "
            f"error {interval.std_error!r})\n")


def _level(text: str) -> float:
    from rankeval.intervals import check_level

    try:
        return check_level(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a confidence level between 0 and 1, found {_shown_arg(text)}") from None


def _plot_title(name: str, evaluation: ScoredPrecisionRecallEvaluation) -> str:
    return (
        f"{os.path.basename(name)}: {evaluation.num_cases():,} cases "
        f"({evaluation.num_positive_ref():,} positive, {evaluation.num_negative_ref():,} negative)"
    )


def _check_plot_path(path: str) -> None:
    if os.path.splitext(path)[1].lower() not in _PLOT_SUFFIXES:
        raise _UsageError(f"--plot: expected a file name ending in .png or .svg, found {path!r}")


def _require_matplotlib() -> None:
    from rankeval.plotting import require_matplotlib

    require_matplotlib()


def _save_plot(evaluation: ScoredPrecisionRecallEvaluation, path: str, title: str) -> None:
    from rankeval.plotting import save_plot

    try:
        save_plot(evaluation, path, title=title)
    except OSError as error:
        raise DataError(path, None, f"cannot write the plot: {error.strerror or error}") from None


def _run_demo(args: argparse.Namespace) -> int:
    """Evaluate the bundled examples; draw their curves when matplotlib is installed, else
    say in one line how to get them (the values are the demo: it succeeds either way)."""
    out_dir: str = args.output_dir
    data = resources.files("rankeval") / "data"
    out = sys.stdout
    plots: list[tuple[ScoredPrecisionRecallEvaluation, str, str]] = []
    for number, (file_name, misses, description) in enumerate(_DEMO_EXAMPLES):
        with resources.as_file(data / file_name) as path:
            command = "rankeval scored" + (f" --misses {misses}" if misses else "") + f" {path}"
            with _open_input(str(path)) as (stream, _name, size):
                _, evaluations = _evaluate_stream(
                    stream, file_name, ties="grouped", file_format=None, size=size
                )
        evaluation = evaluations[None]
        evaluation.add_misses(misses)
        out.write(("\n" if number else "") + f"== {description}\n$ {command}\n{evaluation}\n")
        if misses:
            out.write(f"\n$ {command.replace('scored', 'scored --curve pr', 1)}\n")
            evaluation.print_precision_recall_curve(evaluation.pr_curve(False), file=out)
        plot_path = os.path.join(out_dir, os.path.splitext(file_name)[0] + ".png")
        plots.append((evaluation, plot_path, _plot_title(file_name, evaluation)))
    out.flush()
    if importlib.util.find_spec("matplotlib") is None:
        out.write("\nno plots: matplotlib is not installed (pip install 'rankeval-exact[plot]' "
                  "draws them)\n")
        return 0
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise DataError(out_dir, None, f"cannot create the directory: {error.strerror}") from None
    out.write("\n")
    for evaluation, plot_path, title in plots:
        _save_plot(evaluation, plot_path, title)
        out.write(f"wrote {plot_path}\n")
    return 0


def _run_trec(argv: list[str]) -> int:
    try:
        trec_cli = importlib.import_module("rankeval.ranking.trec_cli")
    except ModuleNotFoundError as error:
        if error.name not in ("rankeval.ranking.trec_cli", "rankeval"):
            raise
        sys.stderr.write(
            "rankeval: error: the trec subcommand is not available in this installation "
            "(module rankeval.ranking.trec_cli is missing)\n"
        )
        return 1
    status: int = trec_cli.main(argv)
    return status


def _non_negative(text: str) -> int:
    """A count option: ASCII digits only, at most 2**63 - 1 (the evaluator's cap)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(
            f"expected a non-negative integer, found {_shown_arg(text)}"
        )
    if len(text) > 19 or int(text) > MAX_COUNT:
        raise argparse.ArgumentTypeError(
            f"expected at most 2**63 - 1, found {_shown_arg(text)}"
        )
    return int(text)


def _positive_resamples(text: str) -> int:
    from rankeval.scored.uncertainty import MAX_RESAMPLES

    count = _non_negative(text)
    if not 2 <= count <= MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"expected between 2 and {MAX_RESAMPLES:,} resamples, found {_shown_arg(text)}")
    return count


def _shown_arg(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "..."


def _parser() -> _Parser:
    from rankeval import __version__

    parser = _Parser(
        prog="rankeval",
        description="Exact evaluation of scored decisions and ranked retrieval.",
    )
    parser.add_argument("--version", action="version", version=f"rankeval {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    scored = commands.add_parser(
        "scored",
        help="evaluate a file of scored cases (label, score)",
        description=(
            "Evaluate scored cases read from FILE (TSV, CSV or JSON Lines; '-' for standard "
            "input). Columns: label, score, or query, label, score; a header row naming them "
            "is recognised. Labels: true/false, 1/0, yes/no. Prints LingPipe's report unless "
            "--json or --curve is given. In JSON output, non-finite numbers are the strings "
            '"NaN", "Infinity" and "-Infinity".'
        ),
    )
    scored.add_argument("file", metavar="FILE", help="input file, or - for standard input")
    scored.add_argument(
        "--misses",
        type=_non_negative,
        metavar="N",
        help="positive cases the system never returned (count toward recall)",
    )
    scored.add_argument(
        "--negative-misses",
        type=_non_negative,
        metavar="N",
        help="negative cases the system never returned (count toward specificity)",
    )
    scored.add_argument(
        "--ties",
        choices=("insertion", "grouped"),
        default="grouped",
        help="equal scores rank as one block (grouped: independent of order, scikit-learn's "
        "and pROC's rule, the default) or in file order (insertion: LingPipe's rule, its "
        "compatibility mode)",
    )
    scored.add_argument(
        "--no-relevant",
        choices=NO_RELEVANT,
        default="zero",
        help="with a query column: a query without positive cases scores 0 and counts in the "
        "means (zero, trec_eval's rule, the default) or is left out of them (skip); the same "
        "option as rankeval trec's and evaluate_run's",
    )
    scored.add_argument(
        "--format",
        choices=("tsv", "csv", "jsonl"),
        default=None,
        help="input format (default: detected from the first line)",
    )
    shown = scored.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print every derived value as JSON")
    shown.add_argument(
        "--curve",
        choices=("pr", "roc", "score"),
        default=None,
        help="print one curve as a table, as LingPipe's print methods do",
    )
    scored.add_argument(
        "--interpolate", action="store_true", help="with --curve: the interpolated curve"
    )
    scored.add_argument(
        "--plot", metavar="OUT", help="also draw the PR and ROC curves to OUT.png or OUT.svg"
    )
    scored.add_argument(
        "-o", "--output", metavar="OUT", help="write the text output to OUT instead of stdout"
    )
    for role, example in (("label", "is_spam"), ("score", "p_spam"), ("query", "session")):
        scored.add_argument(
            f"--{role}-column", metavar="NAME",
            help=f"the header's name for the {role} column (as {example}), where it is not "
            "one of the recognised names",
        )
    scored.add_argument(
        "--interval", action="append", type=_IntervalSpec, metavar="MEASURE[:METHOD]",
        help="add a confidence interval (repeatable): roc_auc, average_precision, "
        "r_precision, reciprocal_rank, precision_at.K, precision.T or recall.T (cases scoring "
        "at least T), ks, a decision read with its bound or range (sensitivity_at.0.9: at "
        "specificity 0.9; partial_roc_auc.0,0.1: over FPR 0 to 0.1), optionally with a "
        "method (roc_auc:bootstrap, precision_at.10:beta)",
    )
    scored.add_argument(
        "--threshold", action="append", type=_finite, metavar="T",
        help="add the confusion matrix at threshold T, the cases scoring at least T "
        "predicted positive (repeatable)")
    scored.add_argument(
        "--best", action="append", choices=("youden", "closest_topleft", "f_beta", "cost"),
        help="add the best threshold by a rule (repeatable): youden, closest_topleft, "
        "f_beta (F1), cost (with --costs)")
    scored.add_argument(
        "--costs", type=_cost_pair, metavar="FP,FN",
        help="the costs of a false positive and of a false negative, for --best cost")
    scored.add_argument(
        "--partial-auc", action="append", type=_fpr_range, metavar="A,B",
        help="add the ROC area over false-positive rates A to B, raw, McClish-standardised "
        "and normalised (repeatable)")
    scored.add_argument("--level", type=_level, default=0.95, metavar="L",
                        help="the intervals' confidence level (default 0.95)")
    scored.add_argument("--resamples", type=_positive_resamples, default=2000, metavar="B",
                        help="the bootstrap's resamples (default 2000)")
    scored.add_argument("--seed", type=_non_negative, default=0, metavar="S",
                        help="the bootstrap's seed (default 0)")
    scored.set_defaults(run=_run_scored)

    demo = commands.add_parser(
        "demo",
        help="evaluate the bundled examples and draw their curves",
        description="Evaluate the bundled examples, print the reports and write the plots.",
    )
    demo.add_argument(
        "--output-dir",
        default="demo-output",
        metavar="DIR",
        help="where to write the plots (default: demo-output)",
    )
    demo.set_defaults(run=_run_demo)

    commands.add_parser(
        "trec",
        help="trec_eval drop-in (rankeval trec --help)",
        add_help=False,
    )

    data = commands.add_parser(
        "data",
        help="print the folder (or a file) of the bundled example data",
        description="Print the folder of the example data shipped in the package, or the "
                    "path of one of its files: rankeval trec -m map "
                    "\"$(rankeval data example.qrels)\" \"$(rankeval data bm25.run)\".",
    )
    data.add_argument("name", nargs="?", help="one file's name (default: print the folder)")
    data.set_defaults(run=_run_data)

    compare = commands.add_parser(
        "compare",
        help="compare runs: means and paired significance tests",
        description=(
            "Evaluate every RUN against QRELS (TREC files, qrels first) with each measure "
            "(trec_eval's names, e.g. -m map -m P.10, or ir_measures', e.g. -m AP -m nDCG@10; "
            "both kinds together with --complete) and test every pair "
            "of runs. Prints a table of means where a superscript letter marks a run the "
            "row's run beats significantly. Needs scipy (pip install 'rankeval-exact[stats]')."
        ),
    )
    compare.add_argument("qrels", metavar="QRELS", help="the qrels file")
    compare.add_argument("runs", metavar="RUN", nargs="+", help="two or more run files")
    compare.add_argument("-m", "--measure", action="append", dest="measures", metavar="M",
                         help="a measure (repeatable; default: map)")
    compare.add_argument("--test", choices=("t-test", "randomization", "bootstrap", "wilcoxon",
                                            "sign", "tukey"),
                         default="t-test", help="the paired test (default: t-test)")
    compare.add_argument("--correction", choices=("holm", "bonferroni", "bh", "none"),
                         default="holm",
                         help="multiple-comparison correction over each measure's pairs "
                         "(default: holm)")
    compare.add_argument("--alpha", type=_probability, default=0.05, metavar="A",
                         help="significance level (default: 0.05)")
    compare.add_argument("--permutations", type=_positive, default=10_000, metavar="N",
                         help="resamples of the randomization and bootstrap tests "
                         "(default: 10000)")
    compare.add_argument("--seed", type=_non_negative, default=0, metavar="S",
                         help="random seed of those tests (default: 0)")
    compare.add_argument("--complete", action="store_true",
                         help="every qrels query counts, a run's missing ones scoring 0 (-c)")
    compare.add_argument("--format", choices=("text", "markdown", "latex"), default="text",
                         dest="table", help="table format (default: text)")
    compare.add_argument("-o", "--output", metavar="OUT",
                         help="write the table to OUT instead of stdout")
    compare.set_defaults(run=_run_compare)
    return parser


def _run_compare(args: argparse.Namespace) -> int:
    from rankeval.ranking import Qrels, Run, catalogue, compare
    from rankeval.ranking.ir_names import is_ir_name, parse_ir_name

    measures = args.measures or ["map"]
    for measure in measures:  # a bad name is a usage error, found before reading anything
        try:
            parse_ir_name(measure) if is_ir_name(measure) else catalogue.parse_spec(measure)
        except ValueError as error:
            raise _UsageError(f"-m {measure}: {error}") from None
    _check_outputs({"-o": args.output}, [args.qrels, *args.runs])
    if len(args.runs) < 2:
        raise _UsageError("compare needs at least two run files")
    names = [os.path.basename(path) for path in args.runs]
    if len(set(names)) < len(names):
        names = list(args.runs)
    if len(set(names)) < len(names):
        raise _UsageError("the same run file is given twice")
    try:
        result = compare(
            Qrels.from_file(args.qrels), {n: Run.from_file(p) for n, p in zip(
                names, args.runs, strict=True)},
            measures, test=args.test, correction=args.correction,
            alpha=args.alpha, permutations=args.permutations, seed=args.seed,
            complete=args.complete,
        )
    except OSError as error:
        raise DataError(error.filename or "input", None,
                        f"cannot read the file: {os_reason(error)}") from None
    except ModuleNotFoundError as error:
        raise DataError("rankeval compare", None, str(error)) from None
    except ValueError as error:  # runs over different queries, no query in common, ...
        if isinstance(error, DataError):
            raise
        text = str(error).replace("pass complete=True", "pass --complete")
        raise DataError("rankeval compare", None, text) from None
    text = {"text": result.to_text, "markdown": result.to_markdown,
            "latex": result.to_latex}[args.table]()
    with _output(args.output) as out:
        out.write(text)
    return 0


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, found "
                                         f"{_shown_arg(text)}")
    return value


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive integer, found '0'")
    return value


def _run_data(args: argparse.Namespace) -> int:
    from rankeval import data

    if args.name is None:
        print(data.folder())
        return 0
    try:
        print(data.path(args.name))
    except FileNotFoundError as error:
        _report(str(error.args[0]))
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankeval`` command line; return the exit status (0, 1 or 2).

    Never calls ``sys.exit``: the console script does that with the returned status.

    Complexity: O(size of the input) time; memory is the evaluator's plus one chunk.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["trec"]:
        return _run_trec(arguments[1:])
    parser = _parser()
    try:
        args = parser.parse_args(arguments)
        if args.command is None:
            parser.error("expected a command: scored, demo, trec, compare or data")
        status: int = args.run(args)
        return status
    except _Exit as stop:
        return stop.status
    except _UsageError as error:
        _report(str(error))
        return 2
    except DataError as error:
        _report(str(error))
        return 1
    except ImportError as error:
        if "rankeval-exact[plot]" not in str(error):
            raise
        _report(str(error))
        return 1
    except BrokenPipeError:
        # The reader went away (``rankeval scored big.tsv --curve pr | head``): not an error.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        silence_stdout()
        return 0
    except OSError as error:  # reading standard input, say; files are DataErrors already
        where = f"{error.filename}: " if error.filename else ""
        _report(f"{where}{os_reason(error)}")
        return 1
    except MemoryError:
        _report("out of memory")
        return 1
    except KeyboardInterrupt:
        _report("interrupted")
        return 130


def _report(message: str) -> None:
    sys.stderr.write(f"rankeval: error: {message}\n")
