"""Crash safety of saving: a child saving in a loop is killed with SIGKILL at random moments.

After every kill the file on disk must load, both as an :class:`EvaluatorState`
and as an evaluator, and equal one of the states the child saved, never an
older one than before the kill. The child imports :func:`batch` from this
module, so this module imports nothing heavier than NumPy and rankeval.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.io import TEMP_SUFFIX
from rankeval.scored.state_file import load_state

REPO = Path(__file__).resolve().parent.parent
KILLS = 50
BATCH = 300  # cases added before each save; each save also adds one miss
MAX_DELAY = 0.04  # seconds of saving allowed before the kill (several saves' worth)

# The child resumes from whatever the file holds, then saves step after step.
CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from rankeval import ScoredPrecisionRecallEvaluation
from tests.test_crash import BATCH, batch
path = sys.argv[2]
ev = ScoredPrecisionRecallEvaluation.load(path)
step = ev.num_cases() // (BATCH + 1)
print("ready", flush=True)
while True:
    step += 1
    ev.add_cases(*batch(step))
    ev.add_misses(1)
    ev.save(path)
"""


def batch(step: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores the child adds before save number ``step``: deterministic, many ties."""
    j = np.arange((step - 1) * BATCH, step * BATCH)
    return j % 3 == 0, ((j * 7919) % 101) / 10.0


def all_cases(step: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores of every case added up to save number ``step``, in order."""
    parts = [batch(s) for s in range(1, step + 1)]
    if not parts:
        return np.zeros(0, bool), np.zeros(0)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def expected_evaluator(step: int) -> ScoredPrecisionRecallEvaluation:
    """The evaluator the child held right after save number ``step``."""
    ev = ScoredPrecisionRecallEvaluation()
    ev.add_cases(*all_cases(step))
    ev.add_misses(step)
    return ev


def expected_arrays(step: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys and labels of save number ``step``, computed without the evaluator."""
    labels, scores = all_cases(step)
    keys = -scores
    order = np.argsort(keys, kind="stable")  # equal keys stay in insertion order
    return keys[order], labels[order]


def kill_one_saver(path: Path, rng: random.Random) -> None:
    """Start a saving child, let it save for a random moment, then SIGKILL it."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(REPO), str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        ready = child.stdout.readline()
        assert ready == b"ready\n", (ready, child.stderr.read() if child.stderr else b"")
        time.sleep(rng.uniform(0.0, MAX_DELAY))
        child.send_signal(signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        _, err = child.communicate(timeout=10)
    assert child.returncode == -signal.SIGKILL, err.decode(errors="replace")


def test_sigkill_while_saving_leaves_a_loadable_saved_state(tmp_path: Path) -> None:
    """50 SIGKILLs at random moments of a save loop always leave a complete saved state."""
    path = tmp_path / "state.rankeval"
    ScoredPrecisionRecallEvaluation().save(path)
    rng = random.Random(20261122)
    previous, interrupted = 0, 0
    for _ in range(KILLS):
        kill_one_saver(path, rng)
        state = load_state(path)
        step = state.pos_missed
        assert step >= previous, "a kill must never bring back an older file"
        keys, labels = expected_arrays(step)
        assert state.num_cases == step * BATCH
        assert np.array_equal(state.keys, keys)
        assert np.array_equal(state.labels, labels)
        assert ScoredPrecisionRecallEvaluation.load(path) == expected_evaluator(step)
        # A killed save may leave its temporary file; it never replaces the target.
        for name in os.listdir(tmp_path):
            if name != path.name:
                assert name.startswith(f".{path.name}.")
                assert name.endswith(TEMP_SUFFIX)
                os.unlink(tmp_path / name)
                interrupted += 1
        previous = step
    assert previous > 0, "the children never completed a save"
    # About half the kills land inside a save (seen by its leftover temp file); none
    # would mean the test no longer exercises what it claims to.
    assert interrupted > 0, "no kill interrupted a save"
