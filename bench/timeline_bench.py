"""Issue 32's figures: the odds engine's CPU (the Arena against the vectorised engine), an odds timeline of a
20-round fight at 1,000 fights a point (first computation, cached read), and the statistics of a 100-round
fight of 20 combatants.

    /work/venv/bin/python bench/timeline_bench.py [--repeat 5] [--processes 1] [--database-url sqlite+aiosqlite:///…]

1. Engine CPU: time.process_time() around 1,000 fights of four against four from odds_bench.py's state,
   on the Arena (play_fights, what POST …/odds plays) and on the vectorised engine (play_point, what a
   timeline point plays); the median of --repeat runs each.
2. Timeline: the service in this process (TestClient, its odds pool of --processes worker processes, warmed
   by one small odds request first so no process start is counted), an encounter of the same eight that
   has played 20 rounds in which nobody acted (so each of the 21 points is 1,000 whole fights of four
   against four), GET …/odds/timeline: the first computation's wall time, then the median of --repeat
   cached reads.
3. Statistics: an encounter of 20 combatants (unarmed, vitality 1,000) after 100 rounds in which every one
   still fighting attacks, GET …/stats: the first read's wall time (the rounds read and counted), then
   the median of --repeat reads of the same version (kept by the worker), from the client's call to its
   answer, JSON parsed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere without installing

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.odds.points import PointJob, play_point  # noqa: E402
from app.odds.simulate import FightSetup  # noqa: E402
from app.odds.tally import play_fights  # noqa: E402
from app.resolver import DEFAULT_RULESET, Combatant  # noqa: E402
from bench.odds_bench import BANDITS, PARTY  # noqa: E402


def median_cpu(work, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def engine(repeat: int) -> None:
    everyone = tuple(Combatant(**c) for c in PARTY + BANDITS)
    sides = ("party",) * 4 + ("bandits",) * 4
    setup = FightSetup(everyone, sides, DEFAULT_RULESET, 1)
    job = PointJob(everyone, sides, {}, 1, 7, 50, 1000)
    play_point(job)  # numpy's first call
    arena = median_cpu(lambda: play_fights(setup, 7, 0, 1000, 50), repeat)
    vectorised = median_cpu(lambda: play_point(job), repeat)
    print(f"engine, 1,000 fights 4 v 4 (CPU, median of {repeat}): Arena {arena * 1000:.0f} ms, "
          f"vectorised {vectorised * 1000:.0f} ms ({arena / vectorised:.1f}× faster)")  # fmt: skip


def wall(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def timeline(client: TestClient, repeat: int) -> None:
    fighters = [{**{k: v for k, v in c.items() if k != "id"}, "name": c["id"], "side": side}
                for side, group in (("party", PARTY), ("bandits", BANDITS)) for c in group]  # fmt: skip
    made = client.post("/v1/encounters", json={"name": "Timeline bench", "combatants": fighters})
    assert made.status_code == 201, made.text
    encounter = made.json()
    url = f"/v1/encounters/{encounter['id']}"
    warm = client.post(f"{url}/odds", json={"fights": 100, "seed": 1})  # the pool's processes start here
    assert warm.status_code == 200, warm.text
    for _ in range(20):
        assert client.post(f"{url}/rounds", json={"declarations": [], "seed": 1}).status_code == 201
    answer = {}

    def read() -> None:
        response = client.get(f"{url}/odds/timeline", params={"fights": 1000})
        assert response.status_code == 200, response.text
        answer["points"] = len(response.json()["points"])

    first = wall(read)
    cached = statistics.median(wall(read) for _ in range(repeat))
    print(f"timeline, 20 rounds ({answer['points']} points) at 1,000 fights a point: first {first:.2f} s, "
          f"cached read {cached * 1000:.1f} ms (median of {repeat})")  # fmt: skip


def stats(client: TestClient, repeat: int) -> None:
    fighters = [{"name": f"F{i:02}", "side": "odd" if i % 2 else "even", "initiative": 10 + i, "attack": 12,
                 "defense": 4, "weapon": "unarmed", "vitality": 1000} for i in range(20)]  # fmt: skip
    encounter = client.post("/v1/encounters", json={"name": "Stats bench", "combatants": fighters}).json()
    url = f"/v1/encounters/{encounter['id']}"
    ids = [c["id"] for c in encounter["combatants"]]
    active = set(ids)
    for number in range(100):
        standing = [cid for cid in ids if cid in active]  # wounds pile up: a critical one forces unconscious
        declarations = [{"combatant": cid, "stance": "balanced",
                         "action": {"type": "attack", "target": standing[(i + 1) % len(standing)]}}
                        for i, cid in enumerate(standing) if len(standing) > 1]  # fmt: skip
        response = client.post(f"{url}/rounds", json={"declarations": declarations, "seed": number})
        assert response.status_code == 201, response.text
        active = {c["id"] for c in response.json()["combatants"] if c["status"] == "active"}

    def read() -> None:
        response = client.get(f"{url}/stats")
        assert response.status_code == 200 and len(response.json()["series"]) == 101

    first = wall(read)  # counted: the rounds read and counted
    took = statistics.median(wall(read) for _ in range(repeat))  # this version's count, kept by the worker
    print(f"stats, 100 rounds of 20 combatants: first read {first * 1000:.1f} ms, again {took * 1000:.1f} ms "
          f"(median of {repeat})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--processes", type=int, default=None, help="odds worker processes (default: cores - 1)")
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temporary folder")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    engine(args.repeat)
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite+aiosqlite:///{folder}/bench.db"
        if url.startswith("sqlite"):
            import subprocess

            env = {**os.environ, "DATABASE_URL": url}
            subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, env=env, check=True,
                           capture_output=True)  # fmt: skip
        settings = Settings(database_url=url, odds_processes=args.processes, campaigns_per_address_per_hour=1000,
                            rate_limit_storage="memory://")  # fmt: skip
        with TestClient(create_app(settings)) as client:
            campaign = client.post("/v1/campaigns", json={"name": "bench"})
            client.headers["Authorization"] = f"Bearer {campaign.json()['key']['secret']}"
            timeline(client, args.repeat)
            stats(client, args.repeat)
    print(f"load average {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
