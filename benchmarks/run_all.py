"""Run every benchmark script (``benchmarks/bench_*.py``), each in its own process.

``python benchmarks/run_all.py --quick`` is the smoke test: every script at its smallest size, in
a few minutes on two cores; it exits 1 if any script fails.  Without ``--quick`` the scripts run at
full size (tens of minutes) and, with ``--save``, each table is written to
``benchmarks/results/<name>.txt``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts(only: list[str] | None) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if only:
        found = [p for p in found if p.stem in only or p.stem.removeprefix("bench_") in only]
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="every script at smoke-test size")
    p.add_argument("--save", action="store_true",
                   help="write each script's output to benchmarks/results/<name>.txt")
    p.add_argument("only", nargs="*", help="script names to run (default: all)")
    args = p.parse_args(argv)

    failed = []
    chosen = scripts(args.only)
    for script in chosen:
        cmd = [sys.executable, str(script)] + (["--quick"] if args.quick else [])
        print(f"$ {' '.join([Path(sys.executable).name, *cmd[1:]])}", flush=True)
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        sys.stdout.write(out.stdout)
        if out.returncode != 0:
            sys.stdout.write(out.stderr)
            failed.append(script.stem)
        elif args.save:
            results = HERE / "results"
            results.mkdir(exist_ok=True)
            (results / f"{script.stem}.txt").write_text(out.stdout)
        print(f"[{script.stem}: {'ok' if out.returncode == 0 else 'FAILED'} in {seconds:.0f} s]\n",
              flush=True)
    print(f"{len(chosen) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
