"""The parts of bench/load_bench.py that are not the plan: servers, wrk, request bodies.

Everything here targets 127.0.0.1 only and stops only the processes it started (by their process group).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
WEAPONS = ("dagger", "short_sword", "long_sword", "battle_axe", "spear", "halberd", "mace", "war_hammer")
STANCES = ("offensive", "balanced", "defensive")


# --- request bodies -----------------------------------------------------------------------------------------------


def fighter(i: int, *, armor: int) -> dict[str, Any]:
    return {"name": f"Fighter {i + 1:02d}", "initiative": 10 + i % 7, "attack": 12 + i % 5, "defense": 3 + i % 4,
            "weapon": WEAPONS[i % len(WEAPONS)], "armor": armor, "vitality": 1000}


def encounter_body(name: str, size: int = 3, armor: int = 50) -> dict[str, Any]:
    # Armor 50 deflects every blow (every attack is still rolled): nobody is ever wounded, so the
    # encounter's state, each round's work and every declaration stay the same for thousands of rounds.
    return {"name": name, "combatants": [fighter(i, armor=armor) for i in range(size)]}


def ring(ids: list[str]) -> list[dict[str, Any]]:
    """Everyone attacks the next one."""
    return [{"combatant": c, "stance": STANCES[i % 3], "action": {"type": "attack", "target": ids[(i + 1) % len(ids)]}}
            for i, c in enumerate(ids)]


def round_body(ids: list[str]) -> str:
    return json.dumps({"declarations": ring(ids)}, separators=(",", ":"))  # no seed: the server rolls


def resolve_body(size: int = 10) -> str:
    """A stateless round of `size` combatants with real armor and some wounds; no seed, so each request differs."""
    combatants = [{**fighter(i, armor=i % 4), "id": f"combatant-{i + 1:02d}", "blood": 1000 - 3 * i,
                   "wounds": [{"class": "light"}] if i % 3 == 0 else []} for i in range(size)]
    return json.dumps({"round": 7, "combatants": combatants, "declarations": ring([c["id"] for c in combatants])},
                      separators=(",", ":"))


# --- servers ------------------------------------------------------------------------------------------------------


@dataclass
class Server:
    """One uvicorn worker in its own process group, so stopping it stops all of it and nothing else."""

    name: str
    app: list[str]  # uvicorn's app arguments
    port: int
    env: dict[str, str]
    log: Path
    ready: str = "/readyz"
    workers: int = 1
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def __enter__(self) -> Server:
        command = [sys.executable, "-m", "uvicorn", *self.app, "--host", HOST, "--port", str(self.port),
                   "--workers", str(self.workers), "--loop", "uvloop", "--http", "httptools", "--no-access-log"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **self.env}, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + self.ready, timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)  # polling a server we cannot be told about, under a deadline
        self.__exit__()
        raise RuntimeError(f"{self.name} not ready in 90 s:\n{self.log.read_text()[-3000:]}")

    def rss_mib(self) -> float:
        """VmRSS of every process in the server's group (with one worker: the uvicorn process itself; with
        more, the supervisor and every worker)."""
        total = 0
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                if int(stat[stat.rindex(")") + 2:].split()[2]) != self.process.pid:
                    continue
                status = Path(f"/proc/{pid}/status").read_text()
            except (OSError, ValueError):
                continue
            total += next((int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("VmRSS:")), 0)
        return round(total / 1024, 1)

    def __exit__(self, *exc: object) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


# --- wrk ----------------------------------------------------------------------------------------------------------

# Each wrk thread cycles through its own list of requests (so two threads never write one encounter) and
# counts every status code; done() prints wrk's figures and the counts as one JSON line.
LUA = r"""
local lists = %s
local headers = %s
local threads, next_id = {}, 1
function setup(thread) thread:set("id", next_id); table.insert(threads, thread); next_id = next_id + 1 end
function init(args)
  prepared, cursor, statuses = {}, 0, {}
  for i, r in ipairs(lists[((id - 1) %% #lists) + 1]) do prepared[i] = wrk.format(r[1], r[2], headers, r[3]) end
end
function request() cursor = cursor %% #prepared + 1; return prepared[cursor] end
function response(status) statuses[status] = (statuses[status] or 0) + 1 end
function done(summary, latency)
  local counts, parts = {}, {}
  for _, t in ipairs(threads) do
    for code, n in pairs(t:get("statuses") or {}) do counts[code] = (counts[code] or 0) + n end
  end
  for code, n in pairs(counts) do parts[#parts + 1] = string.format('"%%d": %%d', code, n) end
  local e = summary.errors
  io.write(string.format('BENCH_JSON {"requests": %%d, "us": %%d, "socket_errors": %%d, ' ..
    '"p50": %%d, "p99": %%d, "statuses": {%%s}}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(99)), table.concat(parts, ", ")))
end
"""


def _lua(text: str) -> str:
    assert "]==]" not in text
    return f"[==[{text}]==]"


def wrk_script(path: Path, lists: list[list[tuple[str, str, str | None]]], headers: dict[str, str]) -> Path:
    """lists: one list of (method, path, body or None) per wrk thread."""
    entries = ",\n".join("{" + ",\n".join("{%s, %s, %s}" % (_lua(m), _lua(p), _lua(b) if b else "nil")
                                          for m, p, b in one) + "}" for one in lists)
    head = ", ".join(f"[ {_lua(k)} ] = {_lua(v)}" for k, v in headers.items())
    path.write_text(LUA % ("{" + entries + "}", "{" + head + "}"))
    return path


def wrk(url: str, script: Path, seconds: float, connections: int = 32, threads: int = 2) -> dict[str, Any]:
    """One wrk run; throughput counts only 2xx answers (a refused or failed request is no work done)."""
    assert url.startswith(f"http://{HOST}:")
    done = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s",
                           "--timeout", "10s", "--latency", "-s", str(script), url],
                          capture_output=True, text=True, timeout=seconds + 120)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("BENCH_JSON ")), None)
    if done.returncode or line is None:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stdout}{done.stderr}")
    raw = json.loads(line.removeprefix("BENCH_JSON "))
    ok = sum(n for code, n in raw["statuses"].items() if 200 <= int(code) < 300)
    return {"rps": round(ok / (raw["us"] / 1e6), 1), "p50_ms": raw["p50"] / 1000, "p99_ms": raw["p99"] / 1000,
            "requests": raw["requests"], "non_2xx": raw["requests"] - ok, "statuses": raw["statuses"],
            "socket_errors": raw["socket_errors"], "load_avg_1m": round(os.getloadavg()[0], 2)}


def split(items: list, parts: int) -> list[list]:
    return [items[i::parts] for i in range(parts)]
