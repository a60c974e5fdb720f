"""What request ids, the JSON access line and the Prometheus metrics cost per request (issue 14).

    .venv/bin/python bench/observability_bench.py [--requests 20000] [--rounds 5]

One small route (GET /v1/things/{thing_id}, a path parameter so the route template is looked up, a
small JSON answer) on three apps: bare FastAPI; with install_observability at LOG_LEVEL=WARNING
(request id and metrics, no access line); and at INFO (plus one JSON access line per request, written
to /dev/null). Requests are sent straight to the ASGI app, no socket and no server, so the difference
is the CPU the observability layer adds to each request. The apps are measured in turn, `--rounds`
times, and the median per app is reported.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi import FastAPI  # noqa: E402

from app.config import Settings  # noqa: E402
from app.observability import install_observability  # noqa: E402


def make_app(log_level: str | None) -> FastAPI:
    app = FastAPI()

    @app.get("/v1/things/{thing_id}")
    async def thing(thing_id: str) -> dict[str, str]:
        return {"id": thing_id, "name": "a thing"}

    if log_level is not None:
        install_observability(app, Settings(log_level=log_level), pool_in_use=lambda: 0)
    return app


async def drive(app: FastAPI, requests: int) -> float:
    """Seconds per request, the app called directly as ASGI."""

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message

    def scope(number: int) -> dict:
        path = f"/v1/things/{number}"
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"bench"), (b"accept", b"application/json")],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
            "app": app,
        }

    for number in range(500):  # warm-up: route caches, first allocation of every metric child
        await app(scope(number), receive, send)
    start = time.perf_counter()
    for number in range(requests):
        await app(scope(number), receive, send)
    return (time.perf_counter() - start) / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    # The access lines go to stdout: point it at /dev/null so the terminal does not set the pace
    devnull = open(os.devnull, "w")  # noqa: SIM115 (open for the whole run)
    real_stdout, sys.stdout = sys.stdout, devnull
    variants = {"bare FastAPI": None, "observability, LOG_LEVEL=WARNING": "WARNING", "observability, INFO": "INFO"}
    apps = {name: make_app(level) for name, level in variants.items()}
    timings: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, app in apps.items():
            if variants[name] is not None:  # the loggers are shared: the last app built set their level
                logging.getLogger("app").setLevel(variants[name])
            timings[name].append(asyncio.run(drive(app, args.requests)))
    sys.stdout = real_stdout

    bare = statistics.median(timings["bare FastAPI"])
    print(f"{args.requests} requests x {args.rounds} rounds, Python {sys.version.split()[0]}\n")
    print("| app | µs per request (median) | added |")
    print("|---|---|---|")
    for name, values in timings.items():
        median = statistics.median(values)
        added = "" if name == "bare FastAPI" else f"+{(median - bare) * 1e6:.0f} µs"
        print(f"| {name} | {median * 1e6:.0f} | {added} |")


if __name__ == "__main__":
    main()
