"""``rankeval trec``: a drop-in for the ``trec_eval`` command line.

Same flags, same output, byte for byte::

    rankeval trec [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] {-m measure[.params]}*
                  [--profile 9.0.8-2020|9.0.8|10.0] qrels_file run_file

Flags follow trec_eval's ``getopt_long`` rules: values attached or separate (``-M100``,
``-M 100``, ``-mrelstring.20``), combined flags (``-qc``), options after the file names, and
the long names (``--query_eval_wanted``, ``--measure``, ``--complete_rel_info_wanted``,
``--level_for_rel``, ``--nosummary``, ``--Judged_docs_only``, ``--Number_docs_in_coll``,
``--Max_retrieved_per_topic``, ...). ``run_file`` may be ``-`` for standard input.

Exit status: 0 success, 1 bad data (``rankeval: error: FILE:LINE: ...`` on standard error),
2 usage error. :func:`main` returns the status and never calls ``sys.exit``.

Deviation: trec_eval 10 exits with an error when a qrels query is missing from the run and
``-c`` is not given; ``--profile 10.0`` skips such queries as trec_eval 9 does.
"""

from __future__ import annotations

import contextlib
import functools
import getopt
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO, TypeVar

import numpy as np

from rankeval.checks import MAX_COUNT
from rankeval.errors import DataError
from rankeval.files import os_reason
from rankeval.formulas import NO_RELEVANT, NoRelevant
from rankeval.ranking import (
    Qrels,
    Run,
    RunReport,
    catalogue,
    evaluate_run,
    registry,
    trec_files,
)
from rankeval.ranking.catalogue import Profile
from rankeval.terminal import progress_bar, silence_stdout, standard_output

__all__ = ["main"]

USAGE = (
    "usage: rankeval trec [-h] [-q] [-c] [-n] [-J] [-l level] [-M max_docs] [-N num_docs]\n"
    "                     {-m measure[.params]}* [--profile 9.0.8-2020|9.0.8|10.0]\n"
    "                     [--no-relevant zero|skip] [--known known_file]\n"
    "                     [--list-measures] [--irds dataset_id] [--workers N]\n"
    "                     qrels_file run_file  (with --irds: run_file only)\n"
)

HELP = USAGE + """
Evaluate run_file (TREC results: qid iter docno rank score run_id) against qrels_file
(qid iter docno rel) exactly as trec_eval does, and print trec_eval's report.

options:
  -h, --help                      show this help and exit
  -v, --version                   show the version and exit
  -q, --query_eval_wanted         also print each query's values
  -m, --measure MEASURE[.PARAMS]  add a measure (repeatable): a name such as map, P.5,10,
                                  ndcg_cut.10, relstring.20, or a nickname: official
                                  (default), all_trec, set
  -c, --complete_rel_info_wanted  average over every qrels query (missing ones score 0)
  -l, --level_for_rel N           relevance level: judgments >= N are relevant (default 1)
  -n, --nosummary                 do not print the 'all' summary
  -M, --Max_retrieved_per_topic N evaluate only the top N documents of each query
  -J, --Judged_docs_only          drop retrieved documents without a judgment
  -N, --Number_docs_in_coll N     documents in the collection (for utility)
  -R, --Rel_info_format qrels     only 'qrels' is supported
  -T, --Results_format trec_results  only 'trec_results' is supported
  -D, --Debug_level N             accepted and ignored
  --profile 9.0.8-2020|9.0.8|10.0 which trec_eval release to reproduce, byte for byte:
                                  9.0.8-2020 (default): the git tag v9.0.8 of 2020
                                    (trec_eval -v prints 9.0.7), bundled by pytrec_eval:
                                    scores compared as C float
                                  9.0.8: the release trec_eval-9.0.8 of 2023: scores
                                    compared as double
                                  10.0: the tag v10.0 (prints 10.0-rc3)
                                  (trec_eval9 and trec_eval10 name 9.0.8-2020 and 10.0)
  --no-relevant zero|skip         a query without relevant judgments scores 0 and counts in
                                  the means (zero, trec_eval's rule, the default) or is left
                                  out (skip); the same option as rankeval scored's
  --known FILE                    the documents each user already knew (qrels format: qid
                                  iter docno rel, rel >= 1 known), for coverage and novelty
  --list-measures                 list every measure: name, parameters, definition
  --workers N                     processes evaluating blocks of queries at once (the same
                                  bytes as one; default 1)

exit status: 0 ok, 1 bad input data, 2 usage error
"""

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = [
    "help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted",
    "level_for_rel=", "nosummary", "Debug_level=", "Judged_docs_only",
    "Number_docs_in_coll=", "Max_retrieved_per_topic=", "Rel_info_format=",
    "Results_format=", "Output_old_results_format", "Zscore=", "profile=", "no-relevant=",
    "known=", "list-measures", "irds=", "workers=",
]
_ALIASES = {
    "--help": "-h", "--version": "-v", "--query_eval_wanted": "-q", "--measure": "-m",
    "--complete_rel_info_wanted": "-c", "--level_for_rel": "-l", "--nosummary": "-n",
    "--Debug_level": "-D", "--Judged_docs_only": "-J", "--Number_docs_in_coll": "-N",
    "--Max_retrieved_per_topic": "-M", "--Rel_info_format": "-R", "--Results_format": "-T",
    "--Output_old_results_format": "-o", "--Zscore": "-Z",
}


_T = TypeVar("_T", bound=str)


class _UsageError(Exception):
    """A command-line mistake: exit status 2."""


def _integer(flag: str, text: str) -> int:
    """An integer option: an optional sign and ASCII digits, within a signed 64-bit integer."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
    if not (digits.isascii() and digits.isdigit()):
        raise _UsageError(f"{flag} expects an integer, found {shown}")
    if len(digits) > 19 or abs(int(text)) > MAX_COUNT:
        raise _UsageError(f"{flag} expects an integer within 2**63 - 1, found {shown}")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``rankeval trec`` with ``argv`` (without the program name); return the exit status.

    >>> main(["--profile", "nope", "q", "r"])
    2

    Complexity: that of :func:`rankeval.ranking.evaluate_run` plus the output size.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    out: TextIO = sys.stdout
    err: TextIO = sys.stderr
    try:
        return _main(args, out)
    except _UsageError as problem:
        err.write(USAGE)
        err.write(f"rankeval: error: {problem}\n")
        return 2
    except DataError as problem:
        err.write(f"rankeval: error: {problem}\n")
        return 1
    except BrokenPipeError:  # rankeval trec ... | head: the reader went away
        silence_stdout()
        return 0
    except OSError as problem:  # writes go through standard_output: this is a read
        where = problem.filename if problem.filename is not None else "input"
        err.write(f"rankeval: error: cannot read {where}: {os_reason(problem)}\n")
        return 1
    except MemoryError:
        err.write("rankeval: error: out of memory\n")
        return 1
    except KeyboardInterrupt:
        err.write("rankeval: error: interrupted\n")
        return 130


@dataclass
class _Options:
    """What the command line asked for (trec_eval's defaults until a flag says otherwise)."""

    per_query: bool = False
    summary: bool = True
    complete: bool = False
    judged_only: bool = False
    level: int = 1
    max_docs: int | None = None
    num_docs: int = 0
    specs: list[str] = field(default_factory=list)
    profile: Profile = catalogue.DEFAULT_PROFILE
    no_relevant: NoRelevant = "zero"
    files: list[str] = field(default_factory=list)
    known: str | None = None
    irds: str | None = None  # an ir_datasets id: its qrels instead of a qrels file
    workers: int = 1  # evaluate_run's workers
    stop: str | None = None  # text to print instead of evaluating (--help, --version)
    # Some measure reads a query's ranking (all but num_q and runid): trec_eval then forms
    # it, and meets its duplicates.
    ranks: bool = True


def _parse(args: list[str]) -> _Options:
    try:
        pairs, files = getopt.gnu_getopt(args, _SHORT, _LONG)
    except getopt.GetoptError as problem:
        raise _UsageError(str(problem)) from None
    o = _Options(files=files)
    for flag, value in pairs:
        flag = _ALIASES.get(flag, flag)
        if flag == "-h":
            o.stop = HELP
            return o
        if flag == "-v":
            from rankeval import __version__

            o.stop = (f"rankeval trec {__version__} (reproduces trec_eval "
                      f"{', '.join(catalogue.PROFILES)})\n")
            return o
        if flag == "--list-measures":
            o.stop = _measure_list()
            return o
        _apply(o, flag, value)
    if o.irds is not None:
        if len(o.files) != 1:
            raise _UsageError(f"with --irds, expected 1 file (run_file), found {len(o.files)}")
        o.files = [f"ir_datasets:{o.irds}", *o.files]
    elif len(o.files) != 2:
        raise _UsageError(f"expected 2 files (qrels_file run_file), found {len(o.files)}")
    o.specs = o.specs or ["official"]
    try:
        for spec in o.specs:
            catalogue.parse_spec(spec, o.profile)
        columns = catalogue.resolve(o.specs, o.profile, first_wins=True).columns
    except ValueError as problem:
        raise _UsageError(str(problem)) from None
    o.ranks = any(c.measure.name not in ("num_q", "runid") for c in columns)
    needing = sorted({c.measure.name for c in columns if "known" in c.measure.inputs})
    if needing and o.known is None:
        raise _UsageError(f"{' and '.join(needing)} need{'s' if len(needing) == 1 else ''} "
                          "--known FILE (the documents each user already knew)")
    return o


def _apply(o: _Options, flag: str, value: str) -> None:
    """Record one parsed flag in ``o``."""
    if flag == "-q":
        o.per_query = True
    elif flag == "-m":
        o.specs.append(_c_cutoffs(value))
    elif flag == "-c":
        o.complete = True
    elif flag == "-l":
        o.level = _integer("-l", value)
    elif flag == "-n":
        o.summary = False
    elif flag == "-J":
        o.judged_only = True
    elif flag == "-N":
        o.num_docs = _integer("-N", value)
    elif flag == "-M":
        o.max_docs = _integer("-M", value)
        if o.max_docs < 0:
            raise _UsageError(f"-M expects a non-negative integer, found {value!r}")
    elif flag == "-R" and value != "qrels":
        raise _UsageError(f"unsupported rel_info format {value!r} (only 'qrels')")
    elif flag == "-T" and value != "trec_results":
        raise _UsageError(f"unsupported results format {value!r} (only 'trec_results')")
    elif flag == "-Z":
        raise _UsageError("-Z (z-scores) is not supported")
    elif flag == "--profile":
        try:
            o.profile = catalogue.check_profile(value)
        except ValueError:
            raise _UsageError(f"--profile must be one of {', '.join(catalogue.PROFILES)}, "
                              f"found {value!r}") from None
    elif flag == "--no-relevant":
        o.no_relevant = _one_of("--no-relevant", value, NO_RELEVANT)
    elif flag == "--known":
        o.known = value
    elif flag == "--irds":
        o.irds = value
    elif flag == "--workers":
        o.workers = _integer("--workers", value)
        if o.workers < 1:
            raise _UsageError(f"--workers expects a positive integer, found {value!r}")


def _measure_list() -> str:
    """Every measure of the registry, one line each: name, parameter style, definition."""
    lines = []
    for measure in registry.trec_measures():
        style = "" if measure.params == "none" else f".<{measure.params}>"
        lines.append(f"{measure.name + style:<26}{measure.doc}\n")
    return "".join(lines)


def _c_cutoffs(spec: str) -> str:
    """``spec`` with its integer cutoffs read as trec_eval reads them, with C's ``atol``.

    ``ndcg_cut.10,20,23.4`` asks for cutoff 23 (trec_eval's own test suite has that line),
    ``P.5x`` for 5, ``P.1e3`` for 1, ``P.x`` for 0 (then refused as not positive), and
    anything past 2**63 - 1 for 2**63 - 1 (glibc's ``strtol`` saturates). Other parameters
    and the Python API stay strict (the API refuses ``P.1e3`` rather than read it
    differently).
    """
    name, dot, params = spec.partition(".")
    measure = next((m for m in catalogue.MEASURES if m.name == name), None)
    if not dot or measure is None or measure.params != "cutoffs":
        return spec
    return name + "." + ",".join(str(_atol(piece)) for piece in params.split(","))


def _atol(text: str) -> int:
    """C's ``atol``: leading white space, an optional sign, the digits that follow; else 0."""
    rest = text.lstrip(" \t\n\v\f\r")
    sign = -1 if rest[:1] == "-" else 1
    if rest[:1] in ("-", "+"):
        rest = rest[1:]
    digits = len(rest) - len(rest.lstrip("0123456789"))
    value = sign * int(rest[:digits]) if digits else 0
    return max(-catalogue.MAX_CUTOFF - 1, min(value, catalogue.MAX_CUTOFF))  # strtol saturates


def _one_of(flag: str, value: str, allowed: tuple[_T, ...]) -> _T:
    for choice in allowed:
        if value == choice:
            return choice
    raise _UsageError(f"{flag} must be one of {', '.join(map(str, allowed))}, found {value!r}")


def _size(qrels_path: str, run_path: str) -> int | None:
    """The bytes to parse, for the progress bar (None when the run comes from a pipe or
    the qrels from ir_datasets)."""
    if run_path == "-" or qrels_path.startswith("ir_datasets:"):
        return None
    try:
        return os.path.getsize(qrels_path) + os.path.getsize(run_path)
    except OSError:
        return None  # reading it will name the problem


def _main(args: list[str], out: TextIO) -> int:
    o = _parse(args)
    if o.stop is not None:
        out.write(o.stop)
        return 0
    qrels_path, run_path = o.files
    with progress_bar("rankeval: reading", _size(qrels_path, run_path)) as progress:
        ten = not catalogue.is_nine(o.profile)
        options = {"comments": ten, "duplicates": True}  # trec_eval 9 has no comment lines
        if o.irds is not None:
            from rankeval.adapters.irds import qrels_table as irds_qrels

            qrels_table = irds_qrels(o.irds)
        else:
            qrels_table = trec_files.read_qrels(qrels_path, progress.update, **options)
        if run_path == "-":
            data = sys.stdin.buffer.read()
            run_table = trec_files.parse_run(data, "-", progress.update, **options)
            del data
        else:
            run_table = trec_files.read_run(run_path, progress.update, **options)
        settle = functools.partial(
            trec_files.settle_duplicates, qrels_strict=ten and o.complete,
            max_docs=o.max_docs, float_scores=o.profile == "9.0.8-2020", evaluated=o.ranks)
        try:
            qrels_table, run_table, unseen = settle(qrels_table, run_table)
        except trec_files.DuplicateError as problem:
            if o.per_query:
                # trec_eval evaluates and prints the queries before this one (in byte order
                # of their ids) before it meets the duplicate: so do we, then fail as it does.
                before = _queries_before(qrels_table, run_table, problem.query)
                qrels_table, run_table, _ = settle(*before)
                if qrels_table.qid.shape[0] and run_table.qid.shape[0]:
                    qrels, run = Qrels.from_table(qrels_table), Run.from_table(run_table)
                    del qrels_table, run_table
                    partial = _evaluate(o, qrels, run, run_path)
                    _write(out, partial.to_text(per_query=True, summary=False))
            raise
        qrels, run = Qrels.from_table(qrels_table), Run.from_table(run_table)
        del qrels_table, run_table  # the objects hold what evaluating needs
        progress.set_description_str("rankeval: evaluating")
        evaluation = _evaluate(o, qrels, run, run_path)
        if unseen and o.complete and "num_rel" in evaluation.aggregates:
            # trec_eval's -c summary of num_rel counts the judgments it never looked at too.
            evaluation = evaluation._with_aggregate(
                "num_rel", evaluation.aggregates["num_rel"] + unseen)
    _write(out, evaluation.to_text(per_query=o.per_query, summary=o.summary))
    return 0


def _evaluate(o: _Options, qrels: Qrels, run: Run, run_path: str) -> RunReport:
    known = None if o.known is None else _read_known(o.known)  # its errors name it alone
    try:
        return evaluate_run(
            qrels, run, o.specs, profile=o.profile, relevance_level=o.level,
            complete=o.complete, max_docs=o.max_docs, judged_only=o.judged_only,
            num_docs=o.num_docs, first_params_win=True, no_relevant=o.no_relevant,
            known=known, workers=o.workers,
        )
    except ValueError as problem:
        raise DataError(run_path, None, str(problem)) from None


def _read_known(path: str) -> Qrels:
    """The known set, a qrels-format file; an empty one is a user who knew nothing."""
    return Qrels.from_table(trec_files.read_qrels(path, None, comments=True, duplicates=True,
                                                  allow_empty=True))


def _queries_before(qrels: trec_files.QrelsTable, run: trec_files.RunTable, query: bytes
                    ) -> tuple[trec_files.QrelsTable, trec_files.RunTable]:
    """The rows of the queries whose ids sort before ``query`` (C's ``strcmp``: bytes)."""
    q, r = qrels.qid < np.bytes_(query), run.qid < np.bytes_(query)
    return (trec_files.QrelsTable(qrels.path, qrels.qid[q], qrels.docid[q], qrels.rel[q],
                                  qrels.line[q]),
            trec_files.RunTable(run.path, run.qid[r], run.docid[r], run.score[r], run.line[r],
                                run.runid))


def _write(out: TextIO, text: str) -> None:
    with standard_output() if out is sys.stdout else contextlib.nullcontext(out) as stream:
        stream.write(text)
