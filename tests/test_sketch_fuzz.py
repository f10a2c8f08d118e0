"""Crafted sketch files never reach code that can crash the process (docs/semantics.md,
"Output files": loaders check every field first).

DataSketches' deserializer trusts its input; ``SketchEvaluation.from_bytes`` checks every
field of a REQ section first. 1,200 files, each changed inside a section (random bytes and
the fields a crash needs: counts, section sizes, levels, NaN items) with a valid checksum
re-appended, are loaded and used in a child process; it must exit normally, never by a
signal, and each file must be refused with PersistenceError or work.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CHILD = Path(__file__).with_name("sketch_fuzz_child.py")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mutated_sketch_files_never_crash(seed: int) -> None:
    done = subprocess.run([sys.executable, str(CHILD), str(seed), "400"],
                          capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    tally = json.loads(done.stdout)
    assert tally["refused"] + tally["accepted"] == 400
    assert tally["refused"] > 0  # the checks are exercised
