"""Rounds per second on the embedded default (SQLite) with 1 and 4 campaigns posting rounds at once.

Each campaign has one fight of three (loadkit's: nobody is ever wounded) and one client that posts its
rounds one after another for the given time; the figure is the total of 201s per second, and every other
status is counted (there should be none: a campaign never waits on another's write as a conflict).
One uvicorn worker by default (--workers 2: two processes on one file, meeting at SQLite's own lock).
Only 127.0.0.1; stops only the server it started.

    /work/venv/bin/python bench/sqlite_writers_bench.py [--seconds 20] [--campaigns 1 4] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadkit import ROOT, Server, encounter_body, round_body  # noqa: E402

UNLIMITED = "100000000"


def migrate(url: str) -> None:
    alembic = str(Path(sys.executable).with_name("alembic"))
    subprocess.run([alembic, "upgrade", "head"], cwd=ROOT, check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "DATABASE_URL": url})


async def one_fight(client: httpx.AsyncClient, name: str) -> tuple[str, str, dict[str, str]]:
    """A campaign and its fight: (the rounds' URL, a round's body, the key's headers)."""
    made = await client.post("/v1/campaigns", json={"name": name})
    headers = {"Authorization": f"Bearer {made.json()['key']['secret']}", "Content-Type": "application/json"}
    fight = (await client.post("/v1/encounters", json=encounter_body(name), headers=headers)).json()
    return f"/v1/encounters/{fight['id']}/rounds", round_body([c["id"] for c in fight["combatants"]]), headers


Fight = tuple[str, str, dict[str, str]]


async def rounds_until(client: httpx.AsyncClient, fight: Fight, deadline: float) -> Counter[int]:
    url, body, headers = fight
    statuses: Counter[int] = Counter()
    while time.monotonic() < deadline:
        statuses[(await client.post(url, content=body, headers=headers)).status_code] += 1
    return statuses


async def measure(base_url: str, campaigns: int, seconds: float) -> dict[str, object]:
    limits = httpx.Limits(max_connections=campaigns + 1)
    async with httpx.AsyncClient(base_url=base_url, timeout=60, limits=limits) as client:
        fights = [await one_fight(client, f"Campaign {n}") for n in range(campaigns)]
        began = time.monotonic()
        results = await asyncio.gather(*(rounds_until(client, fight, began + seconds) for fight in fights))
        elapsed = time.monotonic() - began
    total = sum(results, Counter[int]())
    return {"campaigns": campaigns, "seconds": round(elapsed, 1), "statuses": dict(total),
            "rounds_per_s": round(total[201] / elapsed, 1),
            "per_campaign": [round(r[201] / elapsed, 1) for r in results]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--campaigns", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--port", type=int, default=18431)
    args = parser.parse_args()
    for campaigns in args.campaigns:
        with tempfile.TemporaryDirectory(prefix="sqlite_writers_") as tmp:
            url = f"sqlite:///{tmp}/combat.db"
            migrate(url)
            env = {"DATABASE_URL": url, "RATE_LIMIT_PER_KEY_PER_MINUTE": UNLIMITED,
                   "RATE_LIMIT_ANONYMOUS_PER_MINUTE": UNLIMITED, "CAMPAIGNS_PER_ADDRESS_PER_HOUR": UNLIMITED,
                   "LOG_LEVEL": "WARNING"}
            with Server("service", ["app.main:create_app", "--factory"], args.port, env, Path(tmp) / "server.log",
                        workers=args.workers) as server:
                figures = asyncio.run(measure(server.url, campaigns, args.seconds))
        print(json.dumps({**figures, "workers": args.workers, "load_avg": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
