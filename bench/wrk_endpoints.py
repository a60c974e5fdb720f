"""The four hot endpoints under wrk (32 connections, one uvicorn worker, PostgreSQL) against their
same-work anchors (../shared/perf/anchors.py), in one run. A quick A/B tool, not the load harness.

usage: python bench/wrk_endpoints.py [--code DIR] [--port 8110] [--anchor-port 8100] [--seconds 10]
  --code: the checkout to serve (e.g. an exported copy of main, for a before/after)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parent.parent
ANCHORS = Path(os.environ.get("PERF_ANCHORS", ROOT.parent / "shared" / "perf"))
PG = "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/"
FIGHTER = {"initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword", "vitality": 1000, "armor": 100}


def recreate(database: str) -> None:
    with psycopg.connect("host=127.0.0.1 user=postgres password=postgres dbname=postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        c.execute(f'CREATE DATABASE "{database}"')


def serve(args: list[str], cwd: Path, env: dict[str, str], health: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-m", "uvicorn", *args, "--no-access-log", "--log-level", "warning"],
                               cwd=cwd, env={**os.environ, **env})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(health, timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit(f"{health} did not come up")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far: on a shared machine, CPU per request is steadier than req/s."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(
    url: str, seconds: int, body: dict | None = None, headers: dict[str, str] | None = None, pid: int = 0
) -> tuple[float, float, float]:
    """requests/s, p99 in ms, and ms of the server's CPU per request."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write('wrk.method = "%s"\n' % ("POST" if body is not None else "GET"))
        if body is not None:
            script.write("wrk.body = [[%s]]\n" % json.dumps(body))
            script.write('wrk.headers["Content-Type"] = "application/json"\n')
        for name, value in (headers or {}).items():
            script.write(f'wrk.headers["{name}"] = "{value}"\n')
    cpu = cpu_seconds(pid)
    out = subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", "-s", script.name, url],
                         capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if non2xx:
        print(f"  warning: {non2xx.group(1)} non-2xx answers from {url}", file=sys.stderr)
    total = int(re.search(r"(\d+) requests in", out).group(1))
    return rate, p99_ms, (cpu_seconds(pid) - cpu) * 1000 / max(total, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=Path, default=ROOT)
    parser.add_argument("--port", type=int, default=8110)
    parser.add_argument("--anchor-port", type=int, default=8100)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--database", default="combat_wrk_h1")
    options = parser.parse_args()
    recreate(options.database)
    env = {"DATABASE_URL": PG + options.database, "RATE_LIMIT_PER_KEY_PER_MINUTE": "100000000",
           "RATE_LIMIT_ANONYMOUS_PER_MINUTE": "100000000"}
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=options.code, env={**os.environ, **env},
                   check=True, capture_output=True)
    base = f"http://127.0.0.1:{options.port}"
    anchor = f"http://127.0.0.1:{options.anchor_port}"
    service = serve(["app.main:create_app", "--factory", "--port", str(options.port), "--loop", "uvloop",
                     "--http", "httptools"], options.code, env, f"{base}/healthz")
    anchors = serve(["anchors:app", "--port", str(options.anchor_port), "--loop", "uvloop", "--http", "httptools"],
                    ANCHORS, {"BARE_PG": f"host=127.0.0.1 user=postgres password=postgres dbname={options.database}"},
                    f"{anchor}/bare")
    try:
        key = httpx.post(f"{base}/v1/campaigns", json={"name": "wrk"}).json()["key"]["secret"]
        auth = {"Authorization": f"Bearer {key}"}
        fighters = [{"name": f"f{i}", **FIGHTER} for i in range(3)]
        encounter = httpx.post(f"{base}/v1/encounters", json={"name": "wrk", "combatants": fighters},
                               headers=auth).json()
        url = f"{base}/v1/encounters/{encounter['id']}"
        ids = [c["id"] for c in encounter["combatants"]]
        rounds_body = {"declarations": [{"combatant": a, "action": {"type": "attack", "target": b}}
                                        for a, b in zip(ids, ids[1:] + ids[:1])]}
        assert httpx.post(f"{url}/rounds", json=rounds_body, headers=auth).status_code == 201
        duels = [{"combatant": f"c{i}", "action": {"type": "attack", "target": f"c{(i + 1) % 10}"}} for i in range(10)]
        resolve_body = {"combatants": [{"id": f"c{i}", **FIGHTER} for i in range(10)], "declarations": duels, "seed": 1}
        ours, theirs, seconds = service.pid, anchors.pid, options.seconds
        rows = [
            ("POST /v1/resolve, 10 combatants", wrk(f"{base}/v1/resolve", seconds, resolve_body, pid=ours),
             wrk(f"{anchor}/bare-echo", seconds, resolve_body, pid=theirs)),
            ("GET /v1/encounters/{id}", wrk(url, seconds, headers=auth, pid=ours),
             wrk(f"{anchor}/bare-read/1", seconds, pid=theirs)),
            ("GET .../rounds/1", wrk(f"{url}/rounds/1", seconds, headers=auth, pid=ours),
             wrk(f"{anchor}/bare-read/1", seconds, pid=theirs)),
            ("POST .../rounds, 3 combatants", wrk(f"{url}/rounds", seconds, rounds_body, auth, pid=ours),
             wrk(f"{anchor}/bare-write/1", seconds, rounds_body, pid=theirs)),
        ]
    finally:
        service.terminate()
        anchors.terminate()
        service.wait()
        anchors.wait()
    print("| endpoint | req/s | p99 ms | CPU ms/req | anchor req/s | anchor CPU ms/req | ratio req/s | ratio CPU |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, (rate, p99, cpu), (anchor_rate, _, anchor_cpu) in rows:
        print(f"| {name} | {rate:,.0f} | {p99:.0f} | {cpu:.2f} | {anchor_rate:,.0f} | {anchor_cpu:.2f} | "
              f"{rate / anchor_rate:.2f} | {anchor_cpu / cpu:.2f} |")


if __name__ == "__main__":
    main()
