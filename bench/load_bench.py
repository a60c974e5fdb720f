"""HTTP load benchmark (issues 10 and 23): each endpoint against its same-work anchor, in one run.

    .venv/bin/python bench/load_bench.py [--seconds 15] [--repeat 3] [--soak 120] [--history 10000] [--quick]

Everything on 127.0.0.1, ports 8700-8799 by default (--port-base), one uvicorn worker per server unless a pass says two:

1. Creates and migrates the PostgreSQL database (combat_bench_h7 by default) and starts the anchors
   (../shared/perf/anchors.py, on the same database, BARE_PG).
2. Three passes: one worker with the rate limits in memory, one worker with RATE_LIMIT_STORAGE naming
   Redis (logical DB 7), and two workers with Redis. Each starts the service, creates a campaign and 256
   encounters of 3 combatants through the API, then loads each endpoint and its anchor one after the other
   with wrk at 32 connections (a warm-up first), `--repeat` times alternating; a row's ratio is the median
   of the runs' ratios. The anchor always runs one worker: the two-worker pass says what a second core buys.
   Beside issue 10's rows, issue 35's: a round in a campaign with 5 webhook subscriptions (this worker only
   records the events), a chronicle read, and an odds timeline whose points are all kept (computed before).
3. On the first pass: the history cost (a round posted and read after `--history` rounds, against round 2)
   and RSS under a soak.
4. The resolver row: bench/resolver_bench.py, run as it is.

Prints the table and writes bench/results/load_<UTC>[_quick].json and .md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import psycopg
from loadkit import ROOT, Server, encounter_body, resolve_body, round_body, split, wrk, wrk_script

RESULTS = ROOT / "bench" / "results"
REDIS_URL = "redis://127.0.0.1:6379/7"
UNLIMITED = "100000000"  # the limiter counts every request but never refuses one
# row: (title, anchor title, target ratio, p99 limit in ms or None)
ROWS = {
    "resolve": ("`POST /v1/resolve`, 10 combatants", "echo of the same body", 0.25, None),
    "get_encounter": ("`GET /v1/encounters/{id}`", "one pooled PostgreSQL read", 0.80, None),
    "get_round": ("`GET …/rounds/{n}`", "the same read", 0.80, None),
    "rounds_post": ("`POST …/rounds`, 3 combatants", "one 3-statement transaction", 0.50, 60.0),
    "healthz": ("`GET /healthz`", "the bare GET", 1.5, None),
    # issue 35's new rows (no target: figures to watch)
    "rounds_post_hooked": ("`POST …/rounds`, 5 webhook subscriptions", "one 3-statement transaction", None, None),
    "chronicle": ("`GET …/chronicle`, 5 rounds", "one pooled PostgreSQL read", None, None),
    "timeline": ("`GET …/odds/timeline`, 5 rounds, kept points", "one pooled PostgreSQL read", None, None),
}
HOOKS = 5  # subscriptions of the hooked campaign; its worker only records (WEBHOOK_DELIVERIES=false)
STILL, STILL_ROUNDS = 32, 5  # fights of 5 rounds that no row changes: the chronicle's and the timeline's
TIMELINES = 16  # of them, those whose timeline is computed before the run (each point once), then read
# pass name: (uvicorn workers, extra environment)
PASSES = {
    "memory": (1, {}),
    "redis": (1, {"RATE_LIMIT_STORAGE": REDIS_URL}),
    "redis, 2 workers": (2, {"RATE_LIMIT_STORAGE": REDIS_URL}),
}


async def create_fixtures(url: str, count: int) -> dict[str, Any]:
    """A campaign and `count` encounters, each with round 1 already resolved (for GET round)."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        created = await client.post("/v1/campaigns", json={"name": "load bench"})
        created.raise_for_status()
        client.headers["Authorization"] = f"Bearer {created.json()['key']['secret']}"
        gate = asyncio.Semaphore(8)

        async def one(i: int, armor: int = 50) -> dict[str, Any]:
            async with gate:
                reply = await client.post("/v1/encounters", json=encounter_body(f"load {i}", armor=armor))
                reply.raise_for_status()
                ids = [c["id"] for c in reply.json()["combatants"]]
                first = await client.post(f"/v1/encounters/{reply.json()['id']}/rounds", content=round_body(ids),
                                          headers={"Content-Type": "application/json"})
                first.raise_for_status()
                return {"id": reply.json()["id"], "combatants": ids}

        encounters = await asyncio.gather(*(one(i) for i in range(count)))
        # Fights no other row posts to, of STILL_ROUNDS rounds each: what the chronicle and timeline rows read.
        still = await asyncio.gather(*(one(i, armor=1) for i in range(STILL)))  # blows that wound, told
        for e in still:
            for _ in range(STILL_ROUNDS - 1):
                more = await client.post(f"/v1/encounters/{e['id']}/rounds", content=round_body(e["combatants"]),
                                         headers={"Content-Type": "application/json"})
                if more.status_code == 422:  # a wound took someone out: its ring declaration is refused
                    break
                more.raise_for_status()
        for e in still[:TIMELINES]:  # every point computed and kept: the run reads them
            (await client.get(f"/v1/encounters/{e['id']}/odds/timeline")).raise_for_status()
        owner = {"Authorization": client.headers["Authorization"], "Content-Type": "application/json"}
        # A second campaign with HOOKS subscriptions (every event type): its rounds write the outbox's rows.
        hooked = await client.post("/v1/campaigns", json={"name": "load bench, hooked"}, headers={"Authorization": ""})
        hooked.raise_for_status()
        client.headers["Authorization"] = f"Bearer {hooked.json()['key']['secret']}"
        for n in range(HOOKS):
            (await client.post("/v1/webhooks", json={"url": f"http://127.0.0.1:9/hook/{n}"})).raise_for_status()
        hooked_encounters = await asyncio.gather(*(one(i) for i in range(64)))
        return {"headers": owner, "encounters": encounters, "still": still,
                "hooked_headers": {**owner, "Authorization": client.headers["Authorization"]},
                "hooked": hooked_encounters}


def scripts(workdir: Path, fixtures: dict[str, Any]) -> dict[str, tuple[Path, Path]]:
    """Per row: (our wrk script, its anchor's), two lists each (one per wrk thread) over disjoint encounters."""
    headers, halves = fixtures["headers"], split(fixtures["encounters"], 2)
    anonymous = {"Content-Type": "application/json"}
    plans = {
        "resolve": ([[("POST", "/v1/resolve", resolve_body())]], [[("POST", "/bare-echo", resolve_body())]], anonymous),
        "get_encounter": ([[("GET", f"/v1/encounters/{e['id']}", None) for e in h] for h in halves],
                          [[("GET", f"/bare-read/{i}", None) for i in range(t, 256, 2)] for t in range(2)], headers),
        "get_round": ([[("GET", f"/v1/encounters/{e['id']}/rounds/1", None) for e in h] for h in halves],
                      [[("GET", f"/bare-read/{i}", None) for i in range(t, 256, 2)] for t in range(2)], headers),
        "rounds_post": ([[("POST", f"/v1/encounters/{e['id']}/rounds", round_body(e["combatants"])) for e in h]
                         for h in halves],
                        [[("POST", f"/bare-write/{i}", round_body(e["combatants"])) for i, e in enumerate(h)]
                         for h in halves], headers),
        "healthz": ([[("GET", "/healthz", None)]], [[("GET", "/bare", None)]], anonymous),
        "rounds_post_hooked": (
            [[("POST", f"/v1/encounters/{e['id']}/rounds", round_body(e["combatants"])) for e in h]
             for h in split(fixtures["hooked"], 2)],
            [[("POST", f"/bare-write/{i}", round_body(e["combatants"])) for i, e in enumerate(h)]
             for h in split(fixtures["hooked"], 2)], fixtures["hooked_headers"]),
        "chronicle": ([[("GET", f"/v1/encounters/{e['id']}/chronicle", None) for e in h]
                       for h in split(fixtures["still"], 2)],
                      [[("GET", f"/bare-read/{i}", None) for i in range(t, 256, 2)] for t in range(2)], headers),
        "timeline": ([[("GET", f"/v1/encounters/{e['id']}/odds/timeline", None)
                       for e in fixtures["still"][t:TIMELINES:2]] for t in range(2)],
                     [[("GET", f"/bare-read/{i}", None) for i in range(t, 256, 2)] for t in range(2)], headers),
    }
    return {row: (wrk_script(workdir / f"{row}.lua", ours, h), wrk_script(workdir / f"{row}_anchor.lua", anchor, h))
            for row, (ours, anchor, h) in plans.items()}


def measure(service: Server, anchor: Server, plan: dict[str, tuple[Path, Path]], seconds: float,
            repeat: int) -> dict[str, Any]:
    """Per row: `repeat` runs of ours then the anchor's; the figures of the run whose ratio is the median."""
    rows = {}
    for row, (ours, theirs) in plan.items():
        runs = []
        for _ in range(repeat):
            figures = {}
            for side, server, script in (("ours", service, ours), ("anchor", anchor, theirs)):
                wrk(server.url, script, max(1.0, seconds / 5))  # warm-up: pools filled, code paths hot
                figures[side] = wrk(server.url, script, seconds)
            figures["ratio"] = round(figures["ours"]["rps"] / figures["anchor"]["rps"], 3)
            runs.append(figures)
        chosen = sorted(runs, key=lambda run: run["ratio"])[len(runs) // 2]
        rows[row] = {**chosen, "ratios": [run["ratio"] for run in runs]}
        print(f"  {row}: {chosen['ours']['rps']:,.0f} req/s against {chosen['anchor']['rps']:,.0f}, "
              f"ratio {chosen['ratio']:.2f} (runs {rows[row]['ratios']}), p99 {chosen['ours']['p99_ms']:.0f} ms",
              flush=True)
    return rows


def history_cost(url: str, fill: int, samples: int = 50) -> dict[str, Any]:
    """Round 2 of fresh encounters against rounds fill+1.. of one long one, posted (and read) alternately,
    one by one, so drift on a shared machine hits both sides alike."""
    fixtures = asyncio.run(create_fixtures(url, samples + 1))  # its own campaign
    long, fresh = fixtures["encounters"][-1], fixtures["encounters"][:-1]

    async def fill_history() -> None:  # create_fixtures already resolved round 1
        async with httpx.AsyncClient(base_url=url, headers=fixtures["headers"], timeout=30) as client:
            for _ in range(fill - 1):
                reply = await client.post(f"/v1/encounters/{long['id']}/rounds", content=round_body(long["combatants"]))
                reply.raise_for_status()

    asyncio.run(fill_history())
    with httpx.Client(base_url=url, headers=fixtures["headers"], timeout=30) as client:

        def timed(path: str, body: str | None = None) -> float:
            started = time.perf_counter()
            client.request("POST" if body else "GET", path, content=body).raise_for_status()
            return (time.perf_counter() - started) * 1000

        times: dict[str, list[float]] = {"post_1": [], "post_late": [], "get_1": [], "get_late": [],
                                         "get_round_1": [], "get_round_late": []}
        for e in fresh:  # their round 1 already exists: post their round 2 against long's 1000+
            times["post_1"].append(timed(f"/v1/encounters/{e['id']}/rounds", round_body(e["combatants"])))
            times["post_late"].append(timed(f"/v1/encounters/{long['id']}/rounds", round_body(long["combatants"])))
            times["get_1"].append(timed(f"/v1/encounters/{e['id']}"))
            times["get_late"].append(timed(f"/v1/encounters/{long['id']}"))
            times["get_round_1"].append(timed(f"/v1/encounters/{e['id']}/rounds/1"))
            times["get_round_late"].append(timed(f"/v1/encounters/{long['id']}/rounds/{fill}"))
    medians = {k: round(statistics.median(v), 2) for k, v in times.items()}
    return {"medians_ms": medians, "post_ratio": round(medians["post_late"] / medians["post_1"], 3),
            "get_ratio": round(medians["get_late"] / medians["get_1"], 3),
            "get_round_ratio": round(medians["get_round_late"] / medians["get_round_1"], 3),
            "late_rounds": f"{fill + 1}..{fill + samples}"}


def soak_script(workdir: Path, fixtures: dict[str, Any]) -> Path:
    lists = [[r for e in half for r in (("POST", f"/v1/encounters/{e['id']}/rounds", round_body(e["combatants"])),
                                        ("GET", f"/v1/encounters/{e['id']}", None),
                                        ("GET", f"/v1/encounters/{e['id']}/rounds/1", None))]
             for half in split(fixtures["encounters"], 2)]
    return wrk_script(workdir / "soak.lua", lists, fixtures["headers"])


def rss_over_time(service: Server, script: Path, seconds: float) -> dict[str, Any]:
    """RSS sampled while wrk runs a mix of POST round, GET encounter and GET round."""
    samples = []
    with ThreadPoolExecutor(1) as pool:
        load = pool.submit(wrk, service.url, script, seconds)
        started = time.monotonic()
        while not load.done():
            samples.append((round(time.monotonic() - started), service.rss_mib()))
            time.sleep(max(1.0, seconds / 20))  # the sampling interval, not a wait for anything
        figures = load.result()
    settled = samples[len(samples) // 5:] or samples  # the first fifth is warm-up (pools, caches filling)
    return {"samples": samples, "rps": figures["rps"], "non_2xx": figures["non_2xx"],
            "growth_mib": round(settled[-1][1] - settled[0][1], 1)}


def redis_keys() -> int:
    return int(subprocess.run(["redis-cli", "-u", REDIS_URL, "dbsize"], capture_output=True, text=True,
                              check=True).stdout.split()[-1])


def prepare_database(name: str) -> tuple[str, str]:
    """(SQLAlchemy URL, libpq conninfo) of a migrated benchmark database, created if missing."""
    with psycopg.connect("host=127.0.0.1 user=postgres password=postgres dbname=postgres", autocommit=True) as c:
        if not c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            c.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql+psycopg://postgres:postgres@127.0.0.1:5432/{name}"
    subprocess.run([str(Path(sys.executable).with_name("alembic")), "upgrade", "head"], cwd=ROOT, check=True,
                   env={"PATH": "/usr/bin:/bin", "DATABASE_URL": url})
    return url, f"host=127.0.0.1 port=5432 user=postgres password=postgres dbname={name}"


def resolver_row(quick: bool) -> dict[str, Any]:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "resolver_bench.py"), *(["--quick"] if quick else [])],
                         capture_output=True, text=True, check=True).stdout
    return {"output": out, "target_line": next((ln for ln in out.splitlines() if ln.startswith("target")), "")}


def markdown(result: dict[str, Any]) -> str:
    lines = []
    for storage, passed in result["passes"].items():
        lines += [f"\nRate limits in {storage}" + ("" if passed["redis_used"] in (None, True) else
                  " (**the service ignored RATE_LIMIT_STORAGE: Redis DB 7 stayed empty, so this repeats in-memory**)"),
                  "", "| ours | req/s | p99 ms | non-2xx | its anchor | req/s | ratio | target |",
                  "|---|---:|---:|---:|---|---:|---:|---|"]
        for row, (title, anchor, target, p99) in ROWS.items():
            f = passed["rows"][row]
            if row not in passed["rows"]:
                continue
            f = passed["rows"][row]
            if target is None:
                verdict = "—"
            else:
                met = f["ratio"] >= target and (p99 is None or f["ours"]["p99_ms"] < p99)
                goal = f"≥ {target:.2f}" + (f", p99 < {p99:.0f} ms" if p99 else "")
                verdict = f"{goal}: {'met' if met else '**missed**'}"
            lines.append(f"| {title} | {f['ours']['rps']:,.0f} | {f['ours']['p99_ms']:.0f} | {f['ours']['non_2xx']} "
                         f"| {anchor} | {f['anchor']['rps']:,.0f} | {f['ratio']:.2f} | {verdict} |")
    h, r = result["history"], result["rss"]
    worst = max(h["post_ratio"], h["get_ratio"], h["get_round_ratio"])
    lines += ["", f"History: POST round {h['late_rounds']} / round 2 = {h['post_ratio']:.2f} "
              f"({h['medians_ms']['post_late']} / {h['medians_ms']['post_1']} ms medians), GET encounter "
              f"{h['get_ratio']:.2f}, GET round {h['get_round_ratio']:.2f}: "
              f"{'flat' if worst < 1.25 else '**grows**'}.",
              f"RSS: {r['samples'][0][1]} → {r['samples'][-1][1]} MiB over {r['samples'][-1][0]} s at {r['rps']:,.0f} "
              f"req/s ({r['growth_mib']:+} MiB after warm-up, {r['non_2xx']} non-2xx).",
              f"Resolver: {result['resolver']['target_line']}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15, help="per wrk run (a fifth of it again as warm-up)")
    parser.add_argument("--soak", type=float, default=120, help="seconds of load while RSS is sampled")
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs per row (the median ratio counts)")
    parser.add_argument("--history", type=int, default=10_000, help="rounds in the long encounter")
    parser.add_argument("--passes", nargs="*", choices=list(PASSES), default=list(PASSES))
    parser.add_argument("--rows", nargs="*", choices=list(ROWS), default=list(ROWS))
    parser.add_argument("--no-history", action="store_true", help="skip the history and RSS soak")
    parser.add_argument("--quick", action="store_true",
                        help="5 s runs, one repeat, a 30 s soak, a 1,000-round history, the resolver's quick mode")
    parser.add_argument("--database", default="combat_bench_h7")
    parser.add_argument("--port-base", type=int, default=8700)
    parser.add_argument("--anchors", type=Path, default=ROOT.parent / "shared" / "perf")
    args = parser.parse_args()
    seconds, soak, repeat, fill = (5, 30, 1, 1000) if args.quick else (args.seconds, args.soak, args.repeat,
                                                                        args.history)
    url, conninfo = prepare_database(args.database)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    result: dict[str, Any] = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                              "commit": commit.strip(), "load_avg_at_start": os.getloadavg(),
                              "machine": {"cpus": len(os.sched_getaffinity(0)), "python": platform.python_version()},
                              "seconds": seconds, "repeat": repeat, "connections": 32, "passes": {}}
    env = {"DATABASE_URL": url, "RATE_LIMIT_PER_KEY_PER_MINUTE": UNLIMITED,
           "RATE_LIMIT_ANONYMOUS_PER_MINUTE": UNLIMITED, "CAMPAIGNS_PER_ADDRESS_PER_HOUR": UNLIMITED,
           # the hooked row's subscriptions name a loopback URL; this worker records, another would deliver
           "WEBHOOK_ALLOWED_NETWORKS": '["127.0.0.0/8"]', "WEBHOOK_DELIVERIES": "false"}
    with tempfile.TemporaryDirectory(prefix="load_bench_") as tmp, \
            Server("anchor", ["--app-dir", str(args.anchors), "anchors:app"], args.port_base + 1,
                   {"BARE_PG": conninfo}, Path(tmp) / "anchor.log", ready="/bare") as anchor:
        for storage in args.passes:
            workers, extra = PASSES[storage]
            if extra:
                subprocess.run(["redis-cli", "-u", REDIS_URL, "flushdb"], check=True, capture_output=True)
            print(f"rate limits in {storage}:", flush=True)
            with Server("service", ["app.main:create_app", "--factory"], args.port_base, {**env, **extra},
                        Path(tmp) / f"service_{storage}.log", workers=workers) as service:
                fixtures = asyncio.run(create_fixtures(service.url, 256))
                plan = {row: p for row, p in scripts(Path(tmp), fixtures).items() if row in args.rows}
                result["passes"][storage] = {"rows": measure(service, anchor, plan, seconds, repeat),
                                             "workers": workers, "redis_used": redis_keys() > 0 if extra else None}
                if storage == args.passes[0] and not args.no_history:
                    print("history and RSS...", flush=True)
                    result["history"] = history_cost(service.url, fill)
                    mix = soak_script(Path(tmp), fixtures)
                    result["rss"] = rss_over_time(service, mix, soak)
    if args.no_history:  # a partial run, to iterate on: printed, not written
        for storage, passed in result["passes"].items():
            print(storage, {row: (f["ratio"], f["ours"]["p99_ms"]) for row, f in passed["rows"].items()})
        return
    print("resolver...", flush=True)
    result["resolver"] = resolver_row(args.quick)
    stem = RESULTS / f"load_{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}{'_quick' if args.quick else ''}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1))
    table = markdown(result)
    stem.with_suffix(".md").write_text(table)
    print(table + f"\nwritten: {stem.relative_to(ROOT)}.json and .md")


if __name__ == "__main__":
    main()
