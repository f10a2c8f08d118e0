"""``rankeval trec``: a drop-in for the ``trec_eval`` command line.

Same flags, same output, byte for byte::

    rankeval trec [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] {-m measure[.params]}*
                  [--profile trec_eval9|trec_eval10] qrels_file run_file

Flags follow trec_eval's ``getopt_long`` rules: values attached or separate (``-M100``,
``-M 100``, ``-mrelstring.20``), combined flags (``-qc``), options after the file names, and
the long names (``--query_eval_wanted``, ``--measure``, ``--complete_rel_info_wanted``,
``--level_for_rel``, ``--nosummary``, ``--Judged_docs_only``, ``--Number_docs_in_coll``,
``--Max_retrieved_per_topic``, ...). ``run_file`` may be ``-`` for standard input.

Exit status: 0 success, 1 bad data (``rankeval: error: FILE:LINE: ...`` on standard error),
2 usage error. :func:`main` returns the status and never calls ``sys.exit``.

Deviation: trec_eval 10 exits with an error when a qrels query is missing from the run and
``-c`` is not given; ``--profile trec_eval10`` skips such queries as trec_eval 9 does.
"""

from __future__ import annotations

import getopt
import sys
from collections.abc import Sequence
from typing import TextIO

from rankeval.errors import DataError
from rankeval.ranking import Qrels, Run, catalogue, evaluate_run, trec_files
from rankeval.ranking.catalogue import Profile

__all__ = ["main"]

USAGE = (
    "usage: rankeval trec [-h] [-q] [-c] [-n] [-J] [-l level] [-M max_docs] [-N num_docs]\n"
    "                     {-m measure[.params]}* [--profile trec_eval9|trec_eval10]\n"
    "                     qrels_file run_file\n"
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
  --profile trec_eval9|trec_eval10  which trec_eval to reproduce (default trec_eval9:
                                  float scores, (long)(p*R+0.9) recall cutoffs)

exit status: 0 ok, 1 bad input data, 2 usage error
"""

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = [
    "help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted",
    "level_for_rel=", "nosummary", "Debug_level=", "Judged_docs_only",
    "Number_docs_in_coll=", "Max_retrieved_per_topic=", "Rel_info_format=",
    "Results_format=", "Output_old_results_format", "Zscore=", "profile=",
]
_ALIASES = {
    "--help": "-h", "--version": "-v", "--query_eval_wanted": "-q", "--measure": "-m",
    "--complete_rel_info_wanted": "-c", "--level_for_rel": "-l", "--nosummary": "-n",
    "--Debug_level": "-D", "--Judged_docs_only": "-J", "--Number_docs_in_coll": "-N",
    "--Max_retrieved_per_topic": "-M", "--Rel_info_format": "-R", "--Results_format": "-T",
    "--Output_old_results_format": "-o", "--Zscore": "-Z",
}


class _UsageError(Exception):
    """A command-line mistake: exit status 2."""


def _integer(flag: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _UsageError(f"{flag} expects an integer, found {text!r}") from None


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
    except OSError as problem:
        where = problem.filename if problem.filename is not None else "input"
        err.write(f"rankeval: error: cannot read {where}: {problem.strerror or problem}\n")
        return 1


def _main(args: list[str], out: TextIO) -> int:
    try:
        options, files = getopt.gnu_getopt(args, _SHORT, _LONG)
    except getopt.GetoptError as problem:
        raise _UsageError(str(problem)) from None
    per_query = False
    summary = True
    complete = False
    judged_only = False
    level = 1
    max_docs: int | None = None
    num_docs = 0
    specs: list[str] = []
    profile: Profile = "trec_eval9"
    for flag, value in options:
        flag = _ALIASES.get(flag, flag)
        if flag == "-h":
            out.write(HELP)
            return 0
        if flag == "-v":
            from rankeval import __version__

            out.write(f"rankeval trec {__version__} (trec_eval 9.0.4 / 10.0 compatible)\n")
            return 0
        if flag == "-q":
            per_query = True
        elif flag == "-m":
            specs.append(value)
        elif flag == "-c":
            complete = True
        elif flag == "-l":
            level = _integer("-l", value)
        elif flag == "-n":
            summary = False
        elif flag == "-J":
            judged_only = True
        elif flag == "-N":
            num_docs = _integer("-N", value)
        elif flag == "-M":
            max_docs = _integer("-M", value)
            if max_docs < 0:
                raise _UsageError(f"-M expects a non-negative integer, found {value!r}")
        elif flag == "-R" and value != "qrels":
            raise _UsageError(f"unsupported rel_info format {value!r} (only 'qrels')")
        elif flag == "-T" and value != "trec_results":
            raise _UsageError(f"unsupported results format {value!r} (only 'trec_results')")
        elif flag == "-Z":
            raise _UsageError("-Z (z-scores) is not supported")
        elif flag == "--profile":
            if value not in catalogue.PROFILES:
                raise _UsageError(f"--profile must be one of {', '.join(catalogue.PROFILES)}, "
                             f"found {value!r}")
            profile = "trec_eval9" if value == "trec_eval9" else "trec_eval10"
    if len(files) != 2:
        raise _UsageError(f"expected 2 files (qrels_file run_file), found {len(files)}")
    if not specs:
        specs = ["official"]
    try:
        for spec in specs:
            catalogue.parse_spec(spec, profile)
        catalogue.resolve(specs, profile, first_wins=True)
    except ValueError as problem:
        raise _UsageError(str(problem)) from None
    qrels_path, run_path = files
    qrels = Qrels.from_file(qrels_path)
    if run_path == "-":
        run = Run.from_table(trec_files.parse_run(sys.stdin.buffer.read(), "-"))
    else:
        run = Run.from_file(run_path)
    try:
        evaluation = evaluate_run(
            run, qrels, specs, profile=profile, relevance_level=level, complete=complete,
            max_docs=max_docs, judged_only=judged_only, num_docs=num_docs,
            first_params_win=True,
        )
    except ValueError as problem:
        raise DataError(run_path, None, str(problem)) from None
    out.write(evaluation.format(per_query=per_query, summary=summary))
    return 0
