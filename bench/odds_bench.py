"""Odds benchmark (issue 13): CPU of 1,000 fights of four against four, and GET encounter's latency
while odds requests are being computed.

    .venv/bin/python bench/odds_bench.py [--fights 1000] [--repeat 3] [--processes 1 2] [--seconds 20]
    .venv/bin/python bench/odds_bench.py --cpu-only
    .venv/bin/python bench/odds_bench.py --compiled [--fights 1000] [--repeat 3]

--compiled compiles a copy of the code with scripts/compile-resolver (what the Docker image runs) and
measures the CPU of the same fights interpreted and compiled, alternating, in fresh processes.

1. CPU: the pure simulation in this process (no HTTP, no pool), time.process_time() around
   play_fights(); the median of --repeat runs, with the rounds played and µs per round; then the same
   fights once more with every round through resolve_round (play_fight_by_rounds: what the Arena
   saves; the two tallies must be equal), and the machine's yardstick.
2. Responsiveness: a uvicorn server (one worker, SQLite in a temporary directory, port 9300-9399)
   with ODDS_PROCESSES set to each --processes value. GET encounter is called by 2 clients for
   --seconds alone, then again for --seconds while 4 clients keep POST /v1/odds
   (--odds-fights fights each, 4 v 4) in flight the whole time; p50/p99 of GET in both phases and the
   odds answered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere without installing

from app.odds.seeds import fight_seed  # noqa: E402
from app.odds.simulate import FightSetup, play_fight_by_rounds  # noqa: E402
from app.odds.tally import Tally, play_fights  # noqa: E402
from app.resolver import COMPILED, DEFAULT_RULESET, Combatant  # noqa: E402

HOST = "127.0.0.1"
PORTS = range(9300, 9400)  # this engineer's share of the machine's ports

PARTY = [
    {"id": "ala", "initiative": 20, "attack": 14, "defense": 5, "weapon": "long_sword", "armor": 3},
    {"id": "bolek", "initiative": 18, "attack": 13, "defense": 4, "weapon": "spear", "armor": 2},
    {"id": "cyryl", "initiative": 16, "attack": 12, "defense": 4, "weapon": "battle_axe", "armor": 1},
    {"id": "dorota", "initiative": 22, "attack": 13, "defense": 6, "weapon": "short_sword", "armor": 1},
]
BANDITS = [
    {"id": f"bandit{i}", "initiative": 16 + i, "attack": 13, "defense": 4, "weapon": w, "armor": 2}
    for i, w in enumerate(("long_sword", "mace", "spear", "battle_axe"))
]


def four_against_four() -> FightSetup:
    combatants = tuple(Combatant(**c) for c in PARTY + BANDITS)
    return FightSetup(combatants, ("party",) * 4 + ("bandits",) * 4, DEFAULT_RULESET, 1)


def yardstick_ns() -> float:
    timer = timeit.Timer("d.get('a')", "d={'a':1}")
    loops, _ = timer.autorange()
    return min(timer.repeat(5, loops)) / loops * 1e9


def reference_round_us(samples: int = 2000) -> float:
    """CPU µs of resolver_bench's 10-combatant round of single attacks, in this process now: the
    README's figure for it (86 µs) converts this run's CPU to that machine state."""
    sys.path.insert(0, str(ROOT / "bench"))
    from resolver_bench import encounter

    from app.resolver import SeededDice, resolve_round

    state, dice = encounter(10, 1), SeededDice(1)
    start = time.process_time()
    for _ in range(samples):
        resolve_round(state, DEFAULT_RULESET, dice)
    return (time.process_time() - start) / samples * 1e6


def cpu(fights: int, repeat: int) -> dict:
    setup = four_against_four()
    times = []
    for run in range(repeat):
        start = time.process_time()
        tally = play_fights(setup, seed=run, first=0, count=fights, max_rounds=50)
        times.append(time.process_time() - start)
    rounds = sum(n * count for n, count in tally.rounds.items())

    # the same fights again, every round through resolve_round: what the Arena saves, and a check
    # that it plays the very same fights
    start = time.process_time()
    by_rounds = Tally()
    for k in range(fights):
        by_rounds.add(play_fight_by_rounds(setup, fight_seed(repeat - 1, k), 50))
    resolver_s = time.process_time() - start
    assert by_rounds == tally, "the Arena and resolve_round played different fights"
    return {
        "fights": fights,
        "cpu_s_median": statistics.median(times),
        "cpu_s_all": times,
        "rounds": rounds,
        "us_per_round": statistics.median(times) / rounds * 1e6,
        "through_resolve_round_s": resolver_s,
        "wins": dict(tally.wins),
        "draws": tally.draws,
    }


def free_port() -> int:
    import socket

    for port in PORTS:
        with socket.socket() as s:
            try:
                s.bind((HOST, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def start_server(database_url: str, processes: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "ODDS_PROCESSES": str(processes),
        "LOG_LEVEL": "WARNING",  # no access line per request in the benchmark's output
        "RATE_LIMIT_ANONYMOUS_PER_MINUTE": "100000",
        "RATE_LIMIT_PER_KEY_PER_MINUTE": "100000",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host", HOST, "--port", str(port),
         "--workers", "1", "--no-access-log", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True,
    )
    url = f"http://{HOST}:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGTERM)
    raise RuntimeError("the server did not become ready")


def stop_server(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def get_loop(client: httpx.AsyncClient, path: str, until: float, latencies: list[float]) -> None:
    while time.monotonic() < until:
        begin = time.perf_counter()
        response = await client.get(path)
        latencies.append(time.perf_counter() - begin)
        assert response.status_code == 200, response.text


async def odds_loop(client: httpx.AsyncClient, until: float, answered: list[float], fights: int) -> None:
    body = {"fights": fights, "max_rounds": 50, "combatants": [
        {**c, "side": "party"} for c in PARTY] + [{**c, "side": "bandits"} for c in BANDITS]}
    while time.monotonic() < until:
        begin = time.perf_counter()
        response = await client.post("/v1/odds", json=body, headers={"Authorization": ""}, timeout=600)
        assert response.status_code == 200, response.text
        answered.append(time.perf_counter() - begin)


async def responsiveness(url: str, seconds: float, fights: int) -> dict:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        campaign = (await client.post("/v1/campaigns", json={"name": "odds bench"})).json()
        client.headers["Authorization"] = f"Bearer {campaign['key']['secret']}"
        encounter = (await client.post("/v1/encounters", json={"name": "bench", "combatants": [
            {k: v for k, v in c.items() if k != "id"} | {"name": c["id"]} for c in PARTY + BANDITS]})).json()
        path = f"/v1/encounters/{encounter['id']}"
        await get_loop(client, path, time.monotonic() + 2, [])  # warm-up

        quiet: list[float] = []
        until = time.monotonic() + seconds
        await asyncio.gather(*(get_loop(client, path, until, quiet) for _ in range(2)))

        # the pool's processes start on the first odds request: start them before measuring
        await client.post("/v1/odds", json={"fights": 10, "combatants": PARTY[:2]}, headers={"Authorization": ""})
        busy: list[float] = []
        answered: list[float] = []
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(get_loop(client, path, until, busy) for _ in range(2)),
            *(odds_loop(client, until, answered, fights) for _ in range(4)),
        )
    return {
        "get_quiet": {"n": len(quiet), "p50_ms": percentile(quiet, 0.5) * 1e3, "p99_ms": percentile(quiet, 0.99) * 1e3},
        "get_during_odds": {"n": len(busy), "p50_ms": percentile(busy, 0.5) * 1e3,
                            "p99_ms": percentile(busy, 0.99) * 1e3},
        "odds_answered": len(answered),
        "odds_median_s": statistics.median(answered) if answered else None,
    }


def migrate(url: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fights", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 0], help="0: a thread, for comparison")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--odds-fights", type=int, default=200, help="fights per odds request in the burst")
    parser.add_argument("--cpu-only", action="store_true")
    parser.add_argument("--skip-cpu", action="store_true")
    parser.add_argument("--compiled", action="store_true", help="interpreted against compiled, then stop")
    parser.add_argument("--cpu-json", action="store_true", help=argparse.SUPPRESS)  # one run, for --compiled
    args = parser.parse_args()

    if args.cpu_json:
        print(json.dumps({"compiled": COMPILED, "reference_us": reference_round_us(), **cpu(args.fights, 1)}))
        return
    print(f"yardstick d.get('a'): {yardstick_ns():.1f} ns; load average {os.getloadavg()[0]:.1f}")
    if args.compiled:
        compare_compiled(args.fights, args.repeat)
        return
    if not args.skip_cpu:
        report_cpu(args.fights, args.repeat)
    if args.cpu_only:
        return
    run_servers(args)


def report_cpu(fights: int, repeat: int) -> None:
    reference = reference_round_us()
    figures = cpu(fights, repeat)
    reference = (reference + reference_round_us()) / 2  # before and after: the machine drifts
    print(
        f"CPU, {figures['fights']} fights 4 v 4{' (compiled)' if COMPILED else ''}: "
        f"{figures['cpu_s_median']:.2f} s median "
        f"({', '.join(f'{t:.2f}' for t in figures['cpu_s_all'])}); {figures['rounds']} rounds, "
        f"{figures['us_per_round']:.0f} µs per round (every round through resolve_round instead: "
        f"{figures['through_resolve_round_s']:.2f} s); "
        f"wins {figures['wins']}, draws {figures['draws']}"
    )
    print(
        f"reference round (resolver_bench, 10 combatants): {reference:.0f} µs CPU now, 86 µs in bench/README.md: "
        f"the 1,000 fights would take {figures['cpu_s_median'] * 86 / reference * 1000 / figures['fights']:.2f} s there"
    )


def compare_compiled(fights: int, repeat: int) -> None:
    """The same fights interpreted (this tree) and compiled (a compiled copy), alternating runs in fresh
    processes so that the machine's drift falls on both alike. The reference round is always measured
    interpreted (in the interpreted runs), as the README's 86 µs was."""
    with tempfile.TemporaryDirectory() as copy:
        ignore = shutil.ignore_patterns("__pycache__", "*.so", "results")
        for folder in ("app", "bench"):
            shutil.copytree(ROOT / folder, Path(copy) / folder, ignore=ignore)
        shutil.copy(ROOT / "pyproject.toml", copy)
        subprocess.run(["bash", str(ROOT / "scripts/compile-resolver"), copy],
                       env={**os.environ, "PYTHON": sys.executable}, check=True)
        runs: dict[bool, list[dict]] = {False: [], True: []}
        for _ in range(repeat):
            for root in (ROOT, Path(copy)):
                out = subprocess.run([sys.executable, str(root / "bench/odds_bench.py"), "--cpu-json",
                                      "--fights", str(fights)], cwd=root, capture_output=True, text=True, check=True)
                figures = json.loads(out.stdout)
                runs[figures["compiled"]].append(figures)
    assert runs[True] and runs[False], "the copy did not compile, or this tree is compiled"
    reference = statistics.median(r["reference_us"] for r in runs[False])
    for compiled, label in ((False, "interpreted"), (True, "compiled")):
        times = [r["cpu_s_median"] for r in runs[compiled]]
        median = statistics.median(times)
        print(
            f"{label:>11}: {median:.2f} s median CPU for {fights} fights 4 v 4 "
            f"({', '.join(f'{t:.2f}' for t in times)}); {runs[compiled][0]['rounds']} rounds, "
            f"{median / runs[compiled][0]['rounds'] * 1e6:.0f} µs per round; on the resolver section's machine "
            f"(interpreted reference round {reference:.0f} µs now, 86 µs there): "
            f"{median * 86 / reference * 1000 / fights:.2f} s"
        )
    speedup = statistics.median(r["cpu_s_median"] for r in runs[False]) / statistics.median(
        r["cpu_s_median"] for r in runs[True])
    print(f"compiled / interpreted: {speedup:.2f}x faster")


def run_servers(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as directory:
        for processes in args.processes:
            url = f"sqlite:///{directory}/odds_{processes}.db"
            migrate(url)
            process, base = start_server(url, processes)
            try:
                result = asyncio.run(responsiveness(base, args.seconds, args.odds_fights))
            finally:
                stop_server(process)
            quiet, busy = result["get_quiet"], result["get_during_odds"]
            print(
                f"ODDS_PROCESSES={processes}: GET encounter p50/p99 {quiet['p50_ms']:.1f}/{quiet['p99_ms']:.1f} ms "
                f"alone (n={quiet['n']}), {busy['p50_ms']:.1f}/{busy['p99_ms']:.1f} ms during odds (n={busy['n']}); "
                f"{result['odds_answered']} odds requests of {args.odds_fights} fights answered, "
                f"median {result['odds_median_s']:.2f} s"
            )


if __name__ == "__main__":
    main()
