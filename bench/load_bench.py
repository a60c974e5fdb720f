"""HTTP load benchmark (issue 6): the service against the bare FastAPI ceiling, in one run.

    .venv/bin/python bench/load_bench.py [--duration 15] [--soak 300] [--quick] [--profile SCENARIO ...]
    .venv/bin/python bench/load_bench.py --report bench/results/load_<when>.json   # the table again

What it does, in order (everything on 127.0.0.1, servers started and stopped here):

1. Creates the PostgreSQL database (combat_bench by default) if missing and migrates it (alembic).
2. Starts two servers with the same uvicorn command (`--workers 2 --loop uvloop --http httptools
   --no-access-log`, a free port each): `bench/bare_app.py` (the ceiling) and the service
   (`app.main:create_app --factory`) on PostgreSQL, rate limits raised so nothing is refused.
3. Creates a campaign (64 owner keys) and 256 + 51 encounters of 10 combatants through the API.
4. Drives wrk (Debian's package) with generated Lua scripts at 32 connections, 2 threads, after a
   short warm-up each: bare, POST /v1/resolve, POST .../rounds, GET encounter, GET round, three
   diagnostic runs (the same POSTs spread over 64 keys; resolve at 8 connections), bare again.
   Every request sends the campaign key as Bearer. The Lua script counts every status code; the
   ceiling is the mean of the two bare runs. Each wrk thread writes only its own encounters.
5. History: round 1 of 50 fresh encounters against rounds 1000..1049 of one long encounter, and
   GET of each, interleaved one by one (httpx, sequential), medians compared.
6. Soak: POST round + GET encounter + GET round for --soak seconds, the service's RSS (master and
   workers, /proc VmRSS) sampled throughout.

It prints a markdown table and writes the figures as JSON to bench/results/ (with --profile, py-spy's
stacks too). CPU time is accounted per run (server, PostgreSQL, wrk, anything else), because on a
2-core machine wrk, the server and PostgreSQL share the same cores and another job shows up as "other".
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gzip
import json
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
HOST = "127.0.0.1"  # the only address this script ever targets
DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/combat_bench"
CLK_TCK = os.sysconf("SC_CLK_TCK")
WEAPONS = (
    "dagger",
    "short_sword",
    "long_sword",
    "battle_axe",
    "spear",
    "halberd",
    "mace",
    "war_hammer",
    "two_handed_sword",
    "crossbow",
)
STANCES = ("offensive", "balanced", "defensive")
UNLIMITED = "100000000"

# name -> (target ratio to the bare endpoint, p99 limit in ms or None)
TARGETS: dict[str, tuple[float, float | None]] = {
    "resolve": (0.75, None),
    "rounds_post": (0.3, 50.0),
    "get_encounter": (0.6, None),
    "get_round": (0.6, None),
}
def _answered(status: int) -> bool:
    """A request the service answered as asked: 2xx, or 304 to a conditional GET."""
    return 200 <= status < 300 or status == 304


TITLES = {
    "bare": "bare FastAPI `GET /bare` (ceiling)",
    "bare#2": "bare FastAPI `GET /bare`, again at the end",
    "resolve": "`POST /v1/resolve`, 10 combatants",
    "rounds_post": "`POST /v1/encounters/{id}/rounds` (PostgreSQL)",
    "get_encounter": "`GET /v1/encounters/{id}`",
    "get_round": "`GET /v1/encounters/{id}/rounds/{n}`",
    "get_encounter_304": "diagnostic: `GET /v1/encounters/{id}` polled with `If-None-Match: *` (304)",
    "resolve_keys": "diagnostic: `POST /v1/resolve` spread over {keys} keys",
    "rounds_post_keys": "diagnostic: `POST .../rounds` spread over {keys} keys",
    "resolve_c8": "diagnostic: `POST /v1/resolve` at 8 connections",
}


# ---------------------------------------------------------------------------------------------------------------
# Request bodies


def fighter(i: int, *, armor: int) -> dict[str, Any]:
    return {
        "name": f"Fighter {i + 1:02d}",
        "initiative": 10 + i % 7,
        "attack": 12 + i % 5,
        "defense": 3 + i % 4,
        "weapon": WEAPONS[i % len(WEAPONS)],
        "armor": armor,
        "vitality": 1000,
    }


def encounter_body(name: str) -> dict[str, Any]:
    # Armor 50 deflects every blow: nobody is ever wounded, so an encounter's state (and each round's work)
    # stays the same for thousands of rounds and every declaration stays valid. Every attack is still rolled.
    return {"name": name, "combatants": [fighter(i, armor=50) for i in range(10)]}


def ring_declarations(ids: list[str]) -> list[dict[str, Any]]:
    """Everyone attacks the next one, stances varied."""
    return [
        {"combatant": cid, "stance": STANCES[i % 3], "action": {"type": "attack", "target": ids[(i + 1) % len(ids)]}}
        for i, cid in enumerate(ids)
    ]


def round_body(ids: list[str]) -> str:
    return json.dumps({"declarations": ring_declarations(ids)}, separators=(",", ":"))  # no seed: the server rolls


def resolve_body() -> str:
    """A full 10-combatant state for POST /v1/resolve: real armor, some wounds, no seed (each request differs)."""
    combatants = []
    for i in range(10):
        c = {
            **fighter(i, armor=i % 4),
            "id": f"combatant-{i + 1:02d}",
            "damage_bonus": i % 2,
            "toughness": i % 2,
            "blood": 1000 - 3 * i,
            "wounds": [{"class": "light"}] if i % 3 == 0 else [],
        }
        combatants.append(c)
    ids = [c["id"] for c in combatants]
    return json.dumps(
        {"round": 7, "rules": {"delay_die": 10}, "combatants": combatants, "declarations": ring_declarations(ids)},
        separators=(",", ":"),
    )


# ---------------------------------------------------------------------------------------------------------------
# Processes: servers, /proc accounting


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def proc_stat(pid: int) -> tuple[int, int, int, int] | None:
    """(ppid, pgid, own CPU ticks, reaped children's CPU ticks) of a process, None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[2]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def all_pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Server:
    """A uvicorn server in its own process group (so it is stopped whole, and nothing else is)."""

    name: str
    target: list[str]  # uvicorn's app argument(s)
    ready_path: str
    env: dict[str, str]
    workers: int
    log_dir: Path
    port: int = 0
    process: subprocess.Popen | None = None
    log_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        self.log_path = self.log_dir / f"{self.name}.log"
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            *self.target,
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--workers",
            str(self.workers),
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--no-access-log",
        ]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} server exited:\n{self.log_path.read_text()[-3000:]}")
            started = self.log_path.read_text(errors="replace").count("Application startup complete")
            if started >= self.workers and self._answers():
                return
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} server not ready after 90 s:\n{self.log_path.read_text()[-3000:]}")

    def _answers(self) -> bool:
        try:
            return httpx.get(self.base_url + self.ready_path, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def pids(self) -> list[int]:
        """Master, workers (and multiprocessing's helper): everything in the server's process group."""
        if self.process is None:
            return []
        return [pid for pid in all_pids() if (stat := proc_stat(pid)) and stat[1] == self.process.pid]

    def worker_pids(self) -> list[int]:
        return sorted(pid for pid in self.pids() if "spawn_main" in cmdline(pid))

    def rss(self) -> dict[str, Any]:
        per_process = {pid: rss_kib(pid) for pid in self.pids()}
        return {
            "total_mib": round(sum(per_process.values()) / 1024, 1),
            "per_process_mib": {str(pid): round(kib / 1024, 1) for pid, kib in sorted(per_process.items())},
        }

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)  # our own process group only
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


class CpuMeter:
    """CPU seconds spent during one wrk run by the server, PostgreSQL, wrk, and the rest of the machine."""

    def __init__(self, server: Server):
        self.server = server

    @staticmethod
    def _postgres_ticks() -> int:
        """All of PostgreSQL (every database): the postmaster, its live children, and the children it reaped,
        so a backend that starts and ends within the run (a pool's overflow connection) is counted too."""
        stats = {}
        for pid in all_pids():
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == "postgres":
                    stats[pid] = proc_stat(pid)
            except OSError:
                continue
        stats = {pid: stat for pid, stat in stats.items() if stat}
        masters = [pid for pid, stat in stats.items() if stat[0] not in stats]
        return sum(stats[m][2] + stats[m][3] + sum(st[2] for st in stats.values() if st[0] == m) for m in masters)

    def _server_ticks(self) -> dict[int, int]:
        return {pid: stat[2] for pid in self.server.pids() if (stat := proc_stat(pid))}

    @staticmethod
    def _machine() -> tuple[int, int]:
        values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        idle = values[3] + values[4]  # idle + iowait
        return sum(values[:8]) - idle, sum(values[:8])

    def __enter__(self) -> CpuMeter:
        self.start = (
            self._server_ticks(),
            self._postgres_ticks(),
            self._machine(),
            resource.getrusage(resource.RUSAGE_CHILDREN),
            time.monotonic(),
        )
        return self

    def __exit__(self, *exc) -> None:
        server0, postgres0, (busy0, total0), children0, t0 = self.start
        server1, postgres1 = self._server_ticks(), self._postgres_ticks()
        busy1, total1 = self._machine()
        children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.monotonic() - t0
        delta = lambda before, after: sum(t - before.get(pid, 0) for pid, t in after.items()) / CLK_TCK  # noqa: E731
        server_s, postgres_s = delta(server0, server1), (postgres1 - postgres0) / CLK_TCK
        wrk_s = (children1.ru_utime + children1.ru_stime) - (children0.ru_utime + children0.ru_stime)
        busy_s = (busy1 - busy0) / CLK_TCK
        capacity = (total1 - total0) / CLK_TCK or wall * os.cpu_count()
        self.result = {
            "wall_s": round(wall, 1),
            "cpu_capacity_s": round(capacity, 1),
            "share": {
                name: round(seconds / capacity, 3)
                for name, seconds in (
                    ("server", server_s),
                    ("postgres", postgres_s),
                    ("wrk", wrk_s),
                    ("other", max(0.0, busy_s - server_s - postgres_s - wrk_s)),
                    ("idle", max(0.0, capacity - busy_s)),
                )
            },
        }


# ---------------------------------------------------------------------------------------------------------------
# wrk and its Lua scripts

LUA_TEMPLATE = r"""
-- Generated by bench/load_bench.py (scenario %(name)s). Each wrk thread cycles through its own list of
-- requests; a list is a thread's share of the encounters, so two threads never write the same encounter.
local sequences = %(sequences)s
local headers = %(headers)s
local threads = {}
local next_id = 1

function setup(thread)
  thread:set("thread_id", next_id)
  table.insert(threads, thread)
  next_id = next_id + 1
end

function init(args)
  local mine = sequences[((thread_id - 1) %% #sequences) + 1]
  prepared = {}
  for i, r in ipairs(mine) do
    local h = headers
    if r[4] then  -- this request's own Authorization
      h = {}
      for k, v in pairs(headers) do h[k] = v end
      h["Authorization"] = r[4]
    end
    prepared[i] = wrk.format(r[1], r[2], h, r[3])
  end
  cursor = 0
  statuses = {}
end

function request()
  cursor = cursor %% #prepared + 1
  return prepared[cursor]
end

function response(status, hdrs, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local counts = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    if s then
      for code, n in pairs(s) do counts[code] = (counts[code] or 0) + n end
    end
  end
  local parts = {}
  for code, n in pairs(counts) do parts[#parts + 1] = string.format('"%%d": %%d', code, n) end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %%d, "duration_us": %%d, "bytes": %%d, ' ..
    '"errors": {"connect": %%d, "read": %%d, "write": %%d, "status": %%d, "timeout": %%d}, ' ..
    '"latency_us": {"p50": %%d, "p90": %%d, "p99": %%d, "max": %%d, "mean": %%d}, "statuses": {%%s}}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(90)), math.floor(latency:percentile(99)),
    math.floor(latency.max), math.floor(latency.mean), table.concat(parts, ", ")))
end
"""


def lua_string(text: str) -> str:
    level = "=" * 3
    assert f"]{level}]" not in text
    return f"[{level}[{text}]{level}]"


def lua_script(name: str, sequences: list[list[tuple]], headers: dict[str, str]) -> str:
    """sequences: per wrk thread, a list of (method, path, body or None[, Authorization value])."""

    def request(method: str, path: str, body: str | None, authorization: str | None = None) -> str:
        items = [lua_string(method), lua_string(path), lua_string(body) if body is not None else "nil"]
        if authorization is not None:
            items.append(lua_string(authorization))
        return "{" + ", ".join(items) + "}"

    lua_sequences = (
        "{\n"
        + ",\n".join("  {\n" + ",\n".join("    " + request(*r) for r in sequence) + "\n  }" for sequence in sequences)
        + "\n}"
    )
    lua_headers = "{" + ", ".join(f"[ {lua_string(k)} ] = {lua_string(v)}" for k, v in headers.items()) + "}"
    return LUA_TEMPLATE % {"name": name, "sequences": lua_sequences, "headers": lua_headers}


@dataclass
class Wrk:
    threads: int
    connections: int
    workdir: Path

    def script(self, name: str, sequences, headers: dict[str, str]) -> Path:
        path = self.workdir / f"{name}.lua"
        path.write_text(lua_script(name, sequences, headers))
        return path

    def command(self, url: str, script: Path, seconds: float, connections: int | None = None) -> list[str]:
        assert url.startswith(f"http://{HOST}:")
        return [
            "wrk",
            f"-t{self.threads}",
            f"-c{connections or self.connections}",
            f"-d{max(1, round(seconds))}s",
            "--timeout",
            "10s",
            "--latency",
            "-s",
            str(script),
            url,
        ]

    def run(self, url: str, script: Path, seconds: float, connections: int | None = None) -> dict[str, Any]:
        done = subprocess.run(
            self.command(url, script, seconds, connections), capture_output=True, text=True, timeout=seconds + 120
        )
        if done.returncode != 0:
            raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
        return self.parse(done.stdout, done.stderr)

    @staticmethod
    def parse(stdout: str, stderr: str = "") -> dict[str, Any]:
        """The BENCH_JSON line our Lua done() prints: wrk's figures plus every status code counted."""
        line = next((ln for ln in stdout.splitlines() if ln.startswith("BENCH_JSON ")), None)
        if line is None:
            raise RuntimeError(f"wrk printed no BENCH_JSON line:\n{stdout}\n{stderr}")
        raw = json.loads(line[len("BENCH_JSON ") :])
        seconds_measured = raw["duration_us"] / 1e6
        statuses = {int(k): v for k, v in raw["statuses"].items()}
        ok = sum(v for k, v in statuses.items() if _answered(k))
        return {
            "requests": raw["requests"],
            "seconds": round(seconds_measured, 2),
            "rps": round(raw["requests"] / seconds_measured, 1),
            "ok_rps": round(ok / seconds_measured, 1),
            "p50_ms": raw["latency_us"]["p50"] / 1000,
            "p90_ms": raw["latency_us"]["p90"] / 1000,
            "p99_ms": raw["latency_us"]["p99"] / 1000,
            "max_ms": raw["latency_us"]["max"] / 1000,
            "mean_ms": raw["latency_us"]["mean"] / 1000,
            "non_2xx": sum(v for k, v in statuses.items() if not _answered(k)),
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
            "socket_errors": {k: v for k, v in raw["errors"].items() if k != "status"},
            "response_mib": round(raw["bytes"] / 2**20, 1),
        }


# ---------------------------------------------------------------------------------------------------------------
# Setting up data through the API


async def create_fixtures(base_url: str, count: int, fresh: int, keys: int) -> dict[str, Any]:
    """A campaign with `keys` owner keys; `count` encounters for the load, `fresh` more for round 1, one for a
    long history."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        created = await client.post(
            "/v1/campaigns", json={"name": f"load bench {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S}"}
        )
        created.raise_for_status()
        key = created.json()["key"]["secret"]
        auth = {"Authorization": f"Bearer {key}"}
        semaphore = asyncio.Semaphore(8)

        async def one(name: str) -> dict[str, Any]:
            async with semaphore:
                reply = await client.post("/v1/encounters", json=encounter_body(name), headers=auth)
                if reply.status_code != 201:
                    raise RuntimeError(f"POST /v1/encounters: {reply.status_code} {reply.text[:500]}")
                document = reply.json()
                return {"id": document["id"], "combatants": [c["id"] for c in document["combatants"]]}

        encounters = await asyncio.gather(*(one(f"load {i}") for i in range(count + fresh + 1)))
        extra_keys = []
        for i in range(keys - 1):
            reply = await client.post("/v1/campaign/keys", json={"label": f"bench {i + 2}"}, headers=auth)
            reply.raise_for_status()
            extra_keys.append(reply.json()["secret"])
    return {
        "key": key,
        "keys": [key, *extra_keys],
        "load": encounters[:count],
        "fresh": encounters[count : count + fresh],
        "long": encounters[-1],
    }


async def rounds_of(base_url: str, key: str, ids: list[str]) -> dict[str, int]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30, headers={"Authorization": f"Bearer {key}"}) as client:
        semaphore = asyncio.Semaphore(8)

        async def one(encounter_id: str) -> tuple[str, int]:
            async with semaphore:
                reply = await client.get(f"/v1/encounters/{encounter_id}")
                reply.raise_for_status()
                return encounter_id, reply.json()["round"]

        return dict(await asyncio.gather(*(one(i) for i in ids)))


def split(items: list, parts: int) -> list[list]:
    return [items[i::parts] for i in range(parts)]


# ---------------------------------------------------------------------------------------------------------------
# History: round 1 against round 1000, interleaved


def history_cost(base_url: str, fixtures: dict[str, Any], history_rounds: int) -> dict[str, Any]:
    auth = {"Authorization": f"Bearer {fixtures['key']}", "Content-Type": "application/json"}
    long, fresh = fixtures["long"], fixtures["fresh"]
    long_body = round_body(long["combatants"])
    with httpx.Client(base_url=base_url, headers=auth, timeout=30) as client:
        started = time.monotonic()
        for _ in range(history_rounds - 1):  # rounds 1 .. history_rounds-1 of the long encounter
            reply = client.post(f"/v1/encounters/{long['id']}/rounds", content=long_body)
            if reply.status_code != 201:
                raise RuntimeError(f"history fill: {reply.status_code} {reply.text[:500]}")
        fill_seconds = time.monotonic() - started

        def timed(method: str, path: str, body: str | None = None, expect: int = 200) -> float:
            t0 = time.perf_counter()
            reply = client.request(method, path, content=body)
            elapsed = (time.perf_counter() - t0) * 1000
            if reply.status_code != expect:
                raise RuntimeError(f"{method} {path}: {reply.status_code} {reply.text[:500]}")
            return elapsed

        for _ in range(20):  # warm this connection's worker
            timed("GET", f"/v1/encounters/{long['id']}")
        post_first, post_late, get_first, get_late = [], [], [], []
        for encounter in fresh:  # one by one, alternating, so drift on a shared machine hits both sides alike
            post_first.append(
                timed("POST", f"/v1/encounters/{encounter['id']}/rounds", round_body(encounter["combatants"]), 201)
            )
            post_late.append(timed("POST", f"/v1/encounters/{long['id']}/rounds", long_body, 201))
        for encounter in fresh:
            get_first.append(timed("GET", f"/v1/encounters/{encounter['id']}"))
            get_late.append(timed("GET", f"/v1/encounters/{long['id']}"))
        late_round = client.get(f"/v1/encounters/{long['id']}").json()["round"]

    def summary(first: list[float], late: list[float]) -> dict[str, Any]:
        a, b = statistics.median(first), statistics.median(late)
        return {
            "round_1_median_ms": round(a, 2),
            "late_median_ms": round(b, 2),
            "ratio": round(b / a, 3),
            "round_1_p90_ms": round(statistics.quantiles(first, n=10)[-1], 2),
            "late_p90_ms": round(statistics.quantiles(late, n=10)[-1], 2),
        }

    return {
        "samples": len(fresh),
        "late_rounds": f"{history_rounds}..{late_round}",
        "fill_rounds": history_rounds - 1,
        "fill_seconds": round(fill_seconds, 1),
        "post_round": summary(post_first, post_late),
        "get_encounter": summary(get_first, get_late),
    }


# ---------------------------------------------------------------------------------------------------------------
# Profiling (py-spy)


def package_of(frame_file: str) -> str:
    if "site-packages/" in frame_file:
        return frame_file.split("site-packages/", 1)[1].split("/", 1)[0]
    if f"{ROOT}/app/" in frame_file:
        rest = frame_file.split(f"{ROOT}/", 1)[1]
        parts = rest.split("/")
        return ".".join(parts[:2]).removesuffix(".py")
    if frame_file.startswith("<"):
        return "stdlib"
    return "stdlib:" + Path(frame_file).stem


IDLE_FRAMES = ("Queue.get", "Process.pong", "always_pong")  # a pool thread waiting for work; uvicorn's pipe thread


def summarize_profile(raw_path: Path, top: int = 40, skip_idle: bool = False) -> dict[str, Any]:
    """From py-spy's collapsed stacks: self time by function and by package, and inclusive time by function.

    skip_idle drops the samples of threads with nothing to do (the event loop in epoll, an idle pool thread)."""
    own: collections.Counter[str] = collections.Counter()
    own_package: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw_path.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = []
        for frame in stack.split(";"):
            name, _, location = frame.partition(" (")
            path = location.rsplit(":", 1)[0] if location else ""
            frames.append((name, path))
        if skip_idle and (frames[-1][0] == "Runner.run" or any(f[0] in IDLE_FRAMES for f in frames)):
            continue
        total += n
        seen = set()
        for name, path in frames:
            key = f"{name} ({path.replace(str(ROOT) + '/', '').split('site-packages/')[-1]})"
            if key not in seen:
                seen.add(key)
                inclusive[key] += n
        leaf_name, leaf_path = frames[-1]
        own[f"{leaf_name} ({leaf_path.replace(str(ROOT) + '/', '').split('site-packages/')[-1]})"] += n
        own_package[package_of(leaf_path)] += n
    share = lambda counter: [(k, round(v / max(total, 1), 3)) for k, v in counter.most_common(top)]  # noqa: E731
    return {
        "samples": total,
        "self_by_package": share(own_package),
        "self_by_function": share(own),
        "inclusive_by_function": share(inclusive),
    }


def display(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def py_spy() -> str | None:
    candidate = Path(sys.executable).parent / "py-spy"
    return str(candidate) if candidate.exists() else shutil.which("py-spy")


# ---------------------------------------------------------------------------------------------------------------
# The run


def ensure_database(database_url: str) -> str:
    import psycopg  # the service's own driver

    url = database_url.replace("postgresql+psycopg://", "postgresql://")
    assert f"@{HOST}:" in url or f"@{HOST}/" in url, "this benchmark only talks to 127.0.0.1"
    name = url.rsplit("/", 1)[1].split("?", 1)[0]
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            connection.execute(f'CREATE DATABASE "{name}"')
    subprocess.run(
        [str(Path(sys.executable).parent / "alembic"), "upgrade", "head"],
        cwd=ROOT,
        check=True,
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
    )
    return name


def machine() -> dict[str, Any]:
    model = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()[0]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "app"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "wrk": wrk_version,
        "git_commit": commit,
        "app_dirty": bool(dirty),
        "loadavg_at_start": os.getloadavg(),
    }


def verdict(name: str, result: dict[str, Any], ceiling: float) -> tuple[float, str]:
    ratio = result["ok_rps"] / ceiling
    if name not in TARGETS:
        return ratio, ""
    target, p99_limit = TARGETS[name]
    met = ratio >= target and (p99_limit is None or result["p99_ms"] < p99_limit)
    wanted = f"≥ {target}" + (f", p99 < {p99_limit:g} ms" if p99_limit else "")
    return ratio, f"{wanted}: {'met' if met else 'MISSED'}"


def markdown(results: dict[str, Any]) -> str:
    ceiling = results["ceiling_rps"]
    lines = [
        "| scenario | req/s (2xx) | p50 ms | p99 ms | non-2xx | ratio to bare | target |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, result in results["scenarios"].items():
        ratio, target = verdict(name, result, ceiling)
        extra = (
            "" if not result["non_2xx"] else " (" + ", ".join(f"{k}: {v}" for k, v in result["statuses"].items()) + ")"
        )
        title = TITLES.get(name, name).replace("{keys}", str(results["settings"]["keys"]))
        lines.append(
            f"| {title} | "
            f"{result['ok_rps']:,.0f} | {result['p50_ms']:.1f} | {result['p99_ms']:.1f} | "
            f"{result['non_2xx']}{extra} | {ratio:.2f} | {target} |"
        )
    out = "\n".join(lines)
    out += f"\n\nCeiling (mean of the two bare runs): {ceiling:,.0f} req/s.\n"
    if "cpu" in results:
        out += (
            "\nWhere the 2 cores went during each run, and CPU per request (share x CPU-seconds available / "
            "requests):\n\n"
            "| run | server | PostgreSQL | wrk | other | idle | server CPU ms/req | PostgreSQL CPU ms/req |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        )
        for name, cpu in results["cpu"].items():
            s = cpu["share"]
            ms_per_request = cpu["cpu_capacity_s"] * 1000 / results["scenarios"][name]["requests"]
            out += (
                f"| {name} | {s['server']:.0%} | {s['postgres']:.0%} | {s['wrk']:.0%} | {s['other']:.0%} | "
                f"{s['idle']:.0%} | {s['server'] * ms_per_request:.2f} | {s['postgres'] * ms_per_request:.2f} |\n"
            )
    if history := results.get("history"):
        p, g = history["post_round"], history["get_encounter"]
        out += (
            f"\nHistory ({history['samples']} interleaved samples, rounds {history['late_rounds']} vs round 1): "
            f"POST round {p['late_median_ms']} ms vs {p['round_1_median_ms']} ms (ratio {p['ratio']}, target ≤ 1.2: "
            f"{'met' if p['ratio'] <= 1.2 else 'MISSED'}); GET encounter {g['late_median_ms']} ms vs "
            f"{g['round_1_median_ms']} ms (ratio {g['ratio']}).\n"
        )
    if soak := results.get("soak"):
        out += (
            f"\nSoak {soak['seconds']} s at {soak['load']['ok_rps']:,.0f} req/s (non-2xx {soak['load']['non_2xx']}, "
            f"p99 {soak['load']['p99_ms']:.1f} ms): server RSS {soak['rss_start_mib']} MiB at start, "
            f"{soak['rss_end_mib']} MiB at end (max {soak['rss_max_mib']}, after server start "
            f"{results['rss_after_start_mib']}).\n"
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=15, help="seconds per measured wrk run (default 15)")
    parser.add_argument("--soak", type=float, default=300, help="seconds of mixed load for the RSS check; 0 skips it")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 5 s per scenario, a 20 s soak")
    parser.add_argument("--warmup", type=float, default=2, help="seconds of unmeasured load before each run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers, for both servers")
    parser.add_argument("--encounters", type=int, default=256, help="encounters the write load is spread over")
    parser.add_argument("--history-rounds", type=int, default=1000)
    parser.add_argument("--keys", type=int, default=64, help="owner keys of the campaign for the diagnostic runs")
    parser.add_argument(
        "--no-diagnostics",
        dest="diagnostics",
        action="store_false",
        help="skip the diagnostic runs (many keys; 8 connections)",
    )
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument(
        "--profile",
        nargs="+",
        action="extend",
        default=[],
        metavar="SCENARIO",
        choices=[n for n in TITLES if not n.startswith("bare")],
        help="after its measured run, run the scenario again under py-spy (CPU on one worker, "
        "wall clock on the other): " + ", ".join(n for n in TITLES if not n.startswith("bare")),
    )
    parser.add_argument("--profile-seconds", type=float, default=10)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--report", type=Path, help="only print the markdown of a results file written before")
    args = parser.parse_args()
    if args.report:
        print(markdown(json.loads(args.report.read_text())))
        return 0
    if args.quick:
        args.duration, args.soak, args.warmup = 5, min(args.soak, 20), 1
    if shutil.which("wrk") is None:
        sys.exit("wrk is missing: apt-get install -y wrk")
    if args.profile and py_spy() is None:
        sys.exit("py-spy is missing: .venv/bin/pip install py-spy")

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    args.out.mkdir(parents=True, exist_ok=True)
    database = ensure_database(args.database_url)
    workdir = Path(tempfile.mkdtemp(prefix="load_bench_"))
    env = {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "RATE_LIMIT_PER_KEY_PER_MINUTE": UNLIMITED,
        "RATE_LIMIT_ANONYMOUS_PER_MINUTE": UNLIMITED,
        "CAMPAIGNS_PER_ADDRESS_PER_HOUR": UNLIMITED,
        "PYTHONUNBUFFERED": "1",
    }
    bare = Server("bare", ["bench.bare_app:app"], "/bare", env, args.workers, workdir)
    service = Server("service", ["app.main:create_app", "--factory"], "/readyz", env, args.workers, workdir)
    wrk = Wrk(args.threads, args.connections, workdir)
    results: dict[str, Any] = {
        "when": stamp,
        "machine": machine(),
        "quick": args.quick,
        "settings": {
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "connections": args.connections,
            "wrk_threads": args.threads,
            "uvicorn": f"--workers {args.workers} --loop uvloop --http httptools --no-access-log",
            "encounters": args.encounters,
            "database": database,
            "keys": args.keys,
        },
        "scenarios": {},
        "cpu": {},
    }

    def measure(
        name: str, server: Server, script: Path, label: str | None = None, connections: int | None = None
    ) -> dict[str, Any]:
        label = label or name
        if args.warmup:
            wrk.run(server.base_url, script, args.warmup, connections)
        with CpuMeter(server) as meter:
            result = wrk.run(server.base_url, script, args.duration, connections)
        result["connections"] = connections or args.connections
        results["scenarios"][label] = result
        results["cpu"][label] = meter.result
        print(
            f"  {label:<16} {result['ok_rps']:>8,.0f} req/s 2xx   p50 {result['p50_ms']:6.1f} ms   "
            f"p99 {result['p99_ms']:6.1f} ms   statuses {result['statuses']}",
            flush=True,
        )
        if label in args.profile:
            results.setdefault("profiles", {})[name] = profile(name, server, script)
        return result

    def profile(name: str, server: Server, script: Path) -> dict[str, Any]:
        """py-spy on the workers during another run of the scenario (so the measured run is not disturbed):
        `cpu` samples only the thread holding the GIL (where CPU goes), `wall` samples every busy thread
        (where a request's time goes, waits on PostgreSQL and on the GIL included)."""
        workers = server.worker_pids()
        kinds = {"cpu": (workers[0], ["--gil"]), "wall": (workers[-1], ["--idle"])}
        spies, out = {}, {}
        for kind, (pid, flags) in kinds.items():
            raw = workdir / f"profile_{name}_{kind}_{stamp}.txt"
            spies[kind] = (
                raw,
                pid,
                subprocess.Popen(
                    [
                        py_spy(),
                        "record",
                        "--pid",
                        str(pid),
                        "--duration",
                        str(round(args.profile_seconds)),
                        "--rate",
                        "100",
                        "--nonblocking",
                        "--full-filenames",
                        "--format",
                        "raw",
                        "--output",
                        str(raw),
                        *flags,
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                ),
            )
        under_profile = wrk.run(server.base_url, script, args.profile_seconds + 2)
        for kind, (raw, pid, spy) in spies.items():
            spy.wait(timeout=60)
            kept = args.out / f"{raw.name}.gz"  # py-spy's collapsed stacks, for flamegraph.pl or speedscope
            kept.write_bytes(gzip.compress(raw.read_bytes()))
            out[kind] = {
                **summarize_profile(raw, skip_idle=kind == "wall"),
                "raw_file": display(kept),
                "worker_pid": pid,
            }
        out["rps_while_profiled"] = under_profile["ok_rps"]
        print(
            f"  profile of {name}: CPU by package "
            + ", ".join(f"{k} {v:.0%}" for k, v in out["cpu"]["self_by_package"][:8]),
            flush=True,
        )
        return out

    try:
        print(f"starting servers (uvicorn --workers {args.workers} --loop uvloop --http httptools) ...", flush=True)
        bare.start()
        service.start()
        results["rss_after_start_mib"] = service.rss()["total_mib"]
        print(f"  bare on :{bare.port}, service on :{service.port} (database {database})", flush=True)
        fixtures = asyncio.run(create_fixtures(service.base_url, args.encounters, 50, args.keys))
        headers = {"Authorization": f"Bearer {fixtures['key']}", "Content-Type": "application/json"}
        load = fixtures["load"]
        parts = args.threads

        scripts = {
            "bare": wrk.script("bare", [[("GET", "/bare", None)]], {}),
            "resolve": wrk.script("resolve", [[("POST", "/v1/resolve", resolve_body())]], headers),
            "rounds_post": wrk.script(
                "rounds_post",
                [
                    [("POST", f"/v1/encounters/{e['id']}/rounds", round_body(e["combatants"])) for e in share]
                    for share in split(load, parts)
                ],
                headers,
            ),
            "get_encounter": wrk.script(
                "get_encounter",
                [[("GET", f"/v1/encounters/{e['id']}", None) for e in share] for share in split(load, parts)],
                headers,
            ),
        }
        results["settings"]["resolve_body_bytes"] = len(resolve_body())
        results["settings"]["round_body_bytes"] = len(round_body(load[0]["combatants"]))
        print(
            f"measuring at {args.connections} connections, {args.duration:g} s each (warm-up {args.warmup:g} s):",
            flush=True,
        )
        measure("bare", bare, scripts["bare"])
        measure("resolve", service, scripts["resolve"])
        measure("rounds_post", service, scripts["rounds_post"])
        measure("get_encounter", service, scripts["get_encounter"])
        rounds = asyncio.run(rounds_of(service.base_url, fixtures["key"], [e["id"] for e in load]))
        round_paths = [
            [
                ("GET", f"/v1/encounters/{e['id']}/rounds/{1 + j * (rounds[e['id']] - 1) // 3}", None)
                for e in share
                if rounds[e["id"]]
                for j in range(4)
            ]
            for share in split(load, parts)
        ]
        scripts["get_round"] = wrk.script("get_round", round_paths, headers)
        measure("get_round", service, scripts["get_round"])
        if args.diagnostics:
            # Not targets: the same requests spread over many keys of the campaign (each key has its own
            # rate-limit counter row), and the resolver at fewer connections.
            keys = fixtures["keys"]
            scripts["resolve_keys"] = wrk.script(
                "resolve_keys",
                [
                    [("POST", "/v1/resolve", resolve_body(), f"Bearer {k}") for k in share]
                    for share in split(keys, parts)
                ],
                {"Content-Type": "application/json"},
            )
            scripts["rounds_post_keys"] = wrk.script(
                "rounds_post_keys",
                [
                    [
                        (
                            "POST",
                            f"/v1/encounters/{e['id']}/rounds",
                            round_body(e["combatants"]),
                            f"Bearer {keys[i % len(keys)]}",
                        )
                        for i, e in enumerate(share)
                    ]
                    for share in split(load, parts)
                ],
                {"Content-Type": "application/json"},
            )
            scripts["get_encounter_304"] = wrk.script(
                "get_encounter_304",
                [[("GET", f"/v1/encounters/{e['id']}", None) for e in share] for share in split(load, parts)],
                {**headers, "If-None-Match": "*"},  # a client whose copy is current: every answer a 304
            )
            measure("get_encounter_304", service, scripts["get_encounter_304"])
            measure("resolve_keys", service, scripts["resolve_keys"])
            measure("rounds_post_keys", service, scripts["rounds_post_keys"])
            measure("resolve", service, scripts["resolve"], label="resolve_c8", connections=8)
        measure("bare", bare, scripts["bare"], label="bare#2")
        results["ceiling_rps"] = round(
            (results["scenarios"]["bare"]["ok_rps"] + results["scenarios"]["bare#2"]["ok_rps"]) / 2, 1
        )
        results["ratios"] = {
            name: round(r["ok_rps"] / results["ceiling_rps"], 3) for name, r in results["scenarios"].items()
        }

        print(
            f"history: filling {args.history_rounds - 1} rounds, then round 1 vs round {args.history_rounds}+ ...",
            flush=True,
        )
        results["history"] = history_cost(service.base_url, fixtures, args.history_rounds)

        if args.soak > 0:
            print(f"soak: {args.soak:g} s of POST round + GET encounter + GET round ...", flush=True)
            mix = [
                [
                    request
                    for e in share
                    for request in (
                        ("POST", f"/v1/encounters/{e['id']}/rounds", round_body(e["combatants"])),
                        ("GET", f"/v1/encounters/{e['id']}", None),
                        ("GET", f"/v1/encounters/{e['id']}/rounds/1", None),
                    )
                ]
                for share in split(load, parts)
            ]
            script = wrk.script("soak_mix", mix, headers)
            samples = [{"t": 0.0, **service.rss()}]
            started = time.monotonic()
            with CpuMeter(service) as meter:
                soak_process = subprocess.Popen(
                    wrk.command(service.base_url, script, args.soak),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                while soak_process.poll() is None:
                    time.sleep(min(10.0, max(1.0, args.soak / 30)))
                    if soak_process.poll() is None:
                        samples.append({"t": round(time.monotonic() - started, 1), **service.rss()})
                stdout, stderr = soak_process.communicate()
            samples.append({"t": round(time.monotonic() - started, 1), **service.rss()})
            load_result = Wrk.parse(stdout, stderr)
            totals = [s["total_mib"] for s in samples]
            results["soak"] = {
                "seconds": args.soak,
                "load": load_result,
                "cpu": meter.result,
                "rss_start_mib": totals[0],
                "rss_end_mib": totals[-1],
                "rss_max_mib": max(totals),
                "rss_samples": [{"t": s["t"], "total_mib": s["total_mib"]} for s in samples],
                "rss_per_process_end": samples[-1]["per_process_mib"],
            }
    finally:
        service.stop()
        bare.stop()

    name = f"load_{stamp}{'_quick' if args.quick else ''}.json"
    (args.out / name).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    print()
    print(markdown(results))
    print(f"written: {display(args.out / name)}   (Lua scripts and server logs: {workdir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
