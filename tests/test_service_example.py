"""examples/service.py, run for real: fed over HTTP by threads, killed, restarted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from rankeval import ScoredPrecisionRecallEvaluation

REPO = Path(__file__).resolve().parent.parent


def start(state: Path) -> tuple[subprocess.Popen[str], int]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, str(REPO / "examples" / "service.py"), "--state", str(state),
         "--port", "0", "--checkpoint-every", "0.2"],
        stdout=subprocess.PIPE, text=True, env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("listening on "), line
    return process, int(line.split()[-1])


def finish(process: subprocess.Popen[str]) -> None:
    """Kill the service if it still runs, and close its pipe."""
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()


def call(port: int, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", data=data,
                                timeout=30) as response:
        text = response.read().decode()
    return text if path == "/metrics" else json.loads(text)


def test_fed_killed_and_restored(tmp_path: Path) -> None:
    state = tmp_path / "service.rankeval"
    process, port = start(state)
    try:
        expected = ScoredPrecisionRecallEvaluation(ties="grouped")
        cases: list[tuple[bool, float]] = []
        lock = threading.Lock()

        def client(worker: int) -> None:
            for i in range(60):
                request = {"id": f"{worker}-{i}", "amount": float(10 * i + worker),
                           "night": i % 3 == 0}
                score = call(port, "/score", request)["score"]
                fraud = (i * 7 + worker) % 5 == 0
                call(port, "/feedback", {"id": request["id"], "fraud": fraud})
                with lock:
                    cases.append((fraud, score))

        threads = [threading.Thread(target=client, args=(w,)) for w in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        expected.add_cases([c for c, _ in cases], [s for _, s in cases])
        deadline = time.monotonic() + 60
        while call(port, "/state")["saved_cases"] < len(cases):  # a checkpoint after the last
            assert time.monotonic() < deadline, "no checkpoint came"
            time.sleep(0.05)
        live = call(port, "/state")
        families = {f.name: f for f in text_string_to_metric_families(call(port, "/metrics"))}
        assert families["rankeval_roc_auc"].samples[0].value == expected.area_under_roc_curve()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        finish(process)
    checkpoint = ScoredPrecisionRecallEvaluation.load(state)
    assert checkpoint == expected  # every case fed, none twice, grouped: order does not matter
    restarted, port = start(state)
    try:
        restored = call(port, "/state")
        assert {k: v for k, v in restored.items() if k != "saved_cases"} == \
            {k: v for k, v in live.items() if k != "saved_cases"} == checkpoint.summary((10, 100))
        restarted.send_signal(signal.SIGTERM)  # a clean stop saves once more
        assert restarted.wait(timeout=30) == 0
    finally:
        finish(restarted)
    assert ScoredPrecisionRecallEvaluation.load(state) == expected
