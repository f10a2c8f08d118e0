"""Reading a TREC run: rankeval's NumPy reader against the columnar CSV readers, whole processes.

Question: would a well-kept columnar parser (pyarrow's CSV reader, polars') read a run file
faster, and at what cost in memory, counting each one's import as a fresh ``rankeval trec``
process must? Each reader runs in a fresh process ``--repeat`` times, interleaved; the table
shows the median wall time and peak resident memory (GNU time when present) and the ratio to
rankeval's reader. The file is single-spaced, the only layout the CSV readers can take:
trec_eval splits fields on any run of whitespace (spaces, tabs), which a one-byte delimiter
cannot express, so they would still need rankeval's reader for the rest.

    python bench_trec_parsers.py                  # the 1M-line run of bench_trec_process
    python bench_trec_parsers.py --lines 200000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from bench_trec_process import measure, write_files

READERS = {
    "rankeval (NumPy)": """
import sys
from rankeval.ranking import trec_files
trec_files.read_run(sys.argv[1], comments=False, duplicates=True)
""",
    "pyarrow.csv": """
import sys
import pyarrow.csv as pc
pc.read_csv(sys.argv[1],
            read_options=pc.ReadOptions(column_names=["q", "i", "d", "r", "s", "run"]),
            parse_options=pc.ParseOptions(delimiter=" "),
            convert_options=pc.ConvertOptions(
                column_types={"q": "string", "d": "string", "s": "float64"},
                include_columns=["q", "d", "s"]))
""",
    "polars": """
import sys
import polars as pl
pl.read_csv(sys.argv[1], separator=" ", has_header=False, columns=[0, 2, 4],
            schema_overrides={"column_1": pl.String, "column_3": pl.String})
""",
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--quick", action="store_true",
                   help="smoke-test size: 20,000 lines, 2 repeats (run_all.py --quick)")
    args = p.parse_args(argv)
    if args.quick:
        args.lines, args.repeat = 20_000, 2
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        _, run = write_files(Path(tmp), args.lines)
        size = run.stat().st_size
        times: dict[str, list[float]] = {name: [] for name in READERS}
        peaks: dict[str, list[int]] = {name: [] for name in READERS}
        for _ in range(args.repeat):
            for name, source in READERS.items():
                seconds, peak = measure([python, "-c", source, str(run)])
                times[name].append(seconds)
                peaks[name].append(peak)
    base_t = statistics.median(times["rankeval (NumPy)"])
    base_m = statistics.median(peaks["rankeval (NumPy)"])
    print(f"run file: {size / 1e6:.0f} MB, {args.lines:,} lines; median of {args.repeat} "
          f"interleaved fresh processes (import + read); Python {sys.version.split()[0]}")
    print(f"{'reader':20} {'seconds':>8} {'peak MB':>8} {'time / ours':>12} {'mem / ours':>11}")
    for name in READERS:
        t, m = statistics.median(times[name]), statistics.median(peaks[name])
        print(f"{name:20} {t:8.3f} {m / 1e6:8.0f} {t / base_t:11.2f}x "
              f"{m / base_m if base_m else 0:10.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
