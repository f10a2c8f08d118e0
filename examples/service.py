"""A small scoring service that evaluates itself: standard library, rankeval, prometheus_client.

Run: python examples/service.py --state fraud.rankeval --port 8080

* ``POST /score`` with ``{"id": "t1", "amount": 120.0, "night": true}`` returns a score from
  a toy model and remembers it under the id.
* ``POST /feedback`` with ``{"id": "t1", "fraud": false}`` adds the case (remembered score,
  true label) to the evaluator. Requests are served by a thread each: many threads feed the
  evaluator at once.
* ``GET /metrics``: Prometheus gauges of the live evaluator (``rankeval.prometheus``).
* ``GET /state``: its main values as JSON, and how many cases the last checkpoint holds.

The evaluator is saved atomically (``save``: a crash leaves the old file or the new one)
every ``--checkpoint-every`` seconds and at shutdown (SIGTERM, SIGINT), and restored from
the file at start. A SIGKILL loses only what came after the last checkpoint.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest

from rankeval import ScoredPrecisionRecallEvaluation
from rankeval.prometheus import EvaluationCollector


class Service:
    """The evaluator, the scores awaiting feedback, and the checkpoints."""

    def __init__(self, state: str, every: float) -> None:
        self.state = state
        self.evaluation = (ScoredPrecisionRecallEvaluation.load(state) if os.path.exists(state)
                           else ScoredPrecisionRecallEvaluation(ties="grouped"))
        self.scores: dict[str, float] = {}
        self.scores_lock = threading.Lock()
        self.saved_cases = self.evaluation.num_cases()
        self.save_lock = threading.Lock()
        self.stop = threading.Event()
        self.every = every
        collector = EvaluationCollector(precision_at=(10, 100))
        collector.watch(self.evaluation, model="toy-fraud")
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(collector)

    def score(self, request: dict[str, Any]) -> float:
        amount, night = float(request["amount"]), bool(request.get("night", False))
        value = 1.0 / (1.0 + math.exp(-(math.log1p(max(amount, 0.0)) - 5.0 + 1.5 * night)))
        with self.scores_lock:
            self.scores[str(request["id"])] = value
        return value

    def feedback(self, request: dict[str, Any]) -> None:
        with self.scores_lock:
            score = self.scores.pop(str(request["id"]))
        self.evaluation.add_case(bool(request["fraud"]), score)

    def checkpoint(self) -> None:
        with self.save_lock:  # one save at a time; adds go on meanwhile
            snapshot = self.evaluation.snapshot()
            snapshot.save(self.state)
            self.saved_cases = snapshot.num_cases()

    def checkpoint_loop(self) -> None:
        while not self.stop.wait(self.every):
            self.checkpoint()


def handler(service: Service) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # the standard library's name
            try:
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length))
                if self.path == "/score":
                    body = {"score": service.score(request)}
                elif self.path == "/feedback":
                    service.feedback(request)
                    body = {"ok": True}
                else:
                    self._send(404, b'{"error": "not found"}')
                    return
            except (KeyError, TypeError, ValueError) as error:
                self._send(400, json.dumps({"error": str(error)}).encode())
                return
            self._send(200, json.dumps(body).encode())

        def do_GET(self) -> None:
            if self.path == "/metrics":
                self._send(200, generate_latest(service.registry), "text/plain; version=0.0.4")
            elif self.path == "/state":
                state = {**service.evaluation.summary((10, 100)),
                         "saved_cases": service.saved_cases}
                self._send(200, json.dumps(state).encode())
            else:
                self._send(404, b'{"error": "not found"}')

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", required=True, help="the evaluator's checkpoint file")
    parser.add_argument("--port", type=int, default=8080, help="0: any free port")
    parser.add_argument("--checkpoint-every", type=float, default=60.0, metavar="SECONDS")
    args = parser.parse_args(argv)
    service = Service(args.state, args.checkpoint_every)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(service))
    saver = threading.Thread(target=service.checkpoint_loop, daemon=True)
    saver.start()

    def shut_down(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGTERM, shut_down)
    signal.signal(signal.SIGINT, shut_down)
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    finally:
        service.stop.set()
        saver.join()
        service.checkpoint()  # the last one, at shutdown
        server.server_close()
        print("stopped", flush=True)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
