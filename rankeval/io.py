"""The edge of the library in one place: scored-case files (:mod:`rankeval.case_files`),
output files and the atomic writer (:mod:`rankeval.files`), the terminal
(:mod:`rankeval.terminal`) and JSON output (:mod:`rankeval.json_output`), each a module of
one job; this module gives their public names under the one path (``rankeval.io``) they
have always had.
"""

from __future__ import annotations

from rankeval.case_files import (
    DEFAULT_CHUNK_ROWS,
    Cases,
    FileFormat,
    ScoredCaseReader,
    parse_label,
    parse_score,
)
from rankeval.errors import DataError
from rankeval.files import (
    STALE_AFTER,
    TEMP_SUFFIX,
    atomic_output,
    os_reason,
    output_kind,
    physical_memory,
    same_file,
)
from rankeval.json_output import write_json
from rankeval.terminal import (
    PROGRESS_DELAY,
    PROGRESS_INTERVAL,
    progress_bar,
    silence_stdout,
    standard_output,
)

__all__ = [
    "DEFAULT_CHUNK_ROWS",
    "PROGRESS_DELAY",
    "PROGRESS_INTERVAL",
    "STALE_AFTER",
    "TEMP_SUFFIX",
    "Cases",
    "DataError",
    "FileFormat",
    "ScoredCaseReader",
    "atomic_output",
    "os_reason",
    "output_kind",
    "parse_label",
    "parse_score",
    "physical_memory",
    "progress_bar",
    "same_file",
    "silence_stdout",
    "standard_output",
    "write_json",
]
