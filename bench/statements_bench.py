"""What the statements a request sends come to: the server's CPU per request, two builds side by side.

Serves each build (a checkout, e.g. one exported with `git archive`) with one uvicorn worker on PostgreSQL
(or SQLite), on a port and a database of its own (migrated by its own tree), and sends sequential requests through
httpx: POST rounds (3 combatants attacking in a ring; nobody falls), the same with a new Idempotency-Key
each, and GET of the encounter. The builds take turns by blocks of `--block` requests, so both see the
same load from the rest of the machine; the CPU is the uvicorn process's user + system time from /proc.

usage: python bench/statements_bench.py --build before=/path/to/old --build after=. [--requests 3000]
         [--block 100] [--port 9430] [--database combat_bench_h2 | --sqlite <folder>]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psycopg
import wrk_endpoints  # bench/ is this script's folder, hence on sys.path
from wrk_endpoints import FIGHTER, PG, cpu_seconds, recreate

ENV = {
    "RATE_LIMIT_PER_KEY_PER_MINUTE": "100000000",
    "RATE_LIMIT_ANONYMOUS_PER_MINUTE": "100000000",
    "LOG_LEVEL": "WARNING",  # no access line per request
}


def serve(code: Path, env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    """One uvicorn worker of the build in `code`, which must import its own app, not an installed one."""
    imported = subprocess.run([sys.executable, "-c", "import app; print(app.__file__)"], cwd=code,
                              capture_output=True, text=True, check=True).stdout.strip()
    assert Path(imported).resolve().is_relative_to(code.resolve()), f"{code} would serve {imported}"
    args = ["app.main:create_app", "--factory", "--port", str(port), "--loop", "uvloop", "--http", "httptools"]
    return wrk_endpoints.serve(args, code, env, f"http://127.0.0.1:{port}/healthz")


def timed(pid: int, requests: int, send: Callable[[int], httpx.Response], first: int) -> tuple[float, float]:
    """Seconds of server CPU and of wall time for `requests` requests."""
    cpu, wall = cpu_seconds(pid), time.perf_counter()
    for i in range(first, first + requests):
        response = send(i)
        assert response.status_code in (200, 201), response.text
    return cpu_seconds(pid) - cpu, time.perf_counter() - wall


class Build:
    """One checkout, served on its own port and database, with a fight of three to send requests to."""

    def __init__(self, name: str, code: Path, database: str, port: int):
        """`database`: a PostgreSQL database's name (made afresh), or an SQLite file's path ending in .db."""
        self.name = name
        if database.endswith(".db"):
            Path(database).unlink(missing_ok=True)
            url = f"sqlite:///{Path(database).resolve()}"
        else:
            recreate(database)
            url = PG + database
        env = {**ENV, "DATABASE_URL": url}
        subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=code, env={**os.environ, **env},
                       check=True, capture_output=True)
        self.server = serve(code, env, port)
        self.client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
        key = self.client.post("/v1/campaigns", json={"name": "bench"}).json()["key"]["secret"]
        self.client.headers["Authorization"] = f"Bearer {key}"
        fighters = [{"name": f"f{i}", **FIGHTER} for i in range(3)]
        encounter = self.client.post("/v1/encounters", json={"name": "bench", "combatants": fighters}).json()
        self.url = f"/v1/encounters/{encounter['id']}"
        ids = [c["id"] for c in encounter["combatants"]]
        pairs = zip(ids, ids[1:] + ids[:1])
        self.body = {"declarations": [{"combatant": a, "action": {"type": "attack", "targets": [b]}} for a, b in pairs],
                     "seed": 1}

    def senders(self) -> dict[str, Callable[[int], httpx.Response]]:
        client, url, body = self.client, self.url, self.body
        return {
            "POST rounds": lambda i: client.post(f"{url}/rounds", json=body),
            "POST rounds, Idempotency-Key": lambda i: client.post(
                f"{url}/rounds", json=body, headers={"Idempotency-Key": f"{self.name}-{i}"}),
            "GET encounter": lambda i: client.get(url),
        }

    def close(self) -> None:
        self.client.close()
        self.server.terminate()
        self.server.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", action="append", required=True, help="name=path of a checkout to serve")
    parser.add_argument("--requests", type=int, default=500, help="per build and endpoint, in blocks")
    parser.add_argument("--block", type=int, default=50, help="requests to one build before the other's turn")
    parser.add_argument("--port", type=int, default=9430, help="the first build's; the next ones count up")
    parser.add_argument("--database", default="combat_bench_h2")
    parser.add_argument("--sqlite", type=Path, help="a folder: SQLite files there instead of PostgreSQL")
    options = parser.parse_args()
    specs = [b.split("=", 1) for b in options.build]
    databases = [str(options.sqlite / f"{name}.db") if options.sqlite else f"{options.database}_{name}"
                 for name, _ in specs]
    builds = [Build(name, Path(path), databases[i], options.port + i) for i, (name, path) in enumerate(specs)]
    try:
        rows = []
        for endpoint in builds[0].senders():
            sends = {build.name: build.senders()[endpoint] for build in builds}
            for build in builds:  # warm the pool, the statement caches and the code paths
                timed(build.server.pid, 20, sends[build.name], -1000)
            totals = {build.name: [0.0, 0.0] for build in builds}
            ratios: list[float] = []  # per block: the last build's CPU over the first's
            for block in range(options.requests // options.block):
                cpu = {}
                for build in builds if block % 2 == 0 else builds[::-1]:
                    spent, wall = timed(build.server.pid, options.block, sends[build.name], block * options.block)
                    totals[build.name][0] += spent
                    totals[build.name][1] += wall
                    cpu[build.name] = spent
                ratios.append(cpu[builds[-1].name] / max(cpu[builds[0].name], 1e-9))
            done = options.requests // options.block * options.block
            rows.append((endpoint, {name: (c * 1e3 / done, w * 1e3 / done) for name, (c, w) in totals.items()},
                         statistics.median(ratios)))
    finally:
        for build in builds:
            build.close()
        if not options.sqlite:
            with psycopg.connect("host=127.0.0.1 user=postgres password=postgres dbname=postgres",
                                 autocommit=True) as c:
                for database in databases:
                    c.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    names = [build.name for build in builds]
    print("| endpoint | " + " | ".join(f"{n} CPU ms/req | {n} wall ms/req" for n in names)
          + f" | {names[-1]}/{names[0]} CPU, median of blocks |")
    print("|---|" + "---:|---:|" * len(names) + "---:|")
    for endpoint, figures, ratio in rows:
        cells = " | ".join(f"{figures[n][0]:.2f} | {figures[n][1]:.2f}" for n in names)
        print(f"| {endpoint} | {cells} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
