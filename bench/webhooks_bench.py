"""Webhooks benchmark (issue 33): events delivered per second with 1 and 2 workers, and what subscriptions
add to a round.

    /work/venv/bin/python bench/webhooks_bench.py [--postgres-url URL] [--rounds 200] [--events 600]

Everything on 127.0.0.1: uvicorn servers started and stopped here (`--no-access-log`), a receiver in this
process (asyncio, answers 204 at once, keep-alive).

1. round cost: one worker on PostgreSQL; for 0, 1 and 5 subscriptions to the receiver (all event types),
   `--rounds` quiet rounds are posted one after the other to one encounter; the median and mean time of a
   round as the client sees it: with the worker only recording the events (WEBHOOK_DELIVERIES=false, another
   worker would deliver them), and with it delivering them too (their cost then shares its CPU).
2. throughput: `--events` round.resolved events are recorded with deliveries off (WEBHOOK_DELIVERIES=false),
   spread over 30 encounters (events of one encounter go one at a time); then a service with 1 or 2 workers
   starts and the time from the first delivery to the last is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/combat_bench_webhooks"
FIGHTER = {"initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"}


class Receiver:
    def __init__(self) -> None:
        self.count = 0
        self.port = 0

    async def start(self) -> None:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                self.count += 1
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            writer.close()  # the service closed it, or this bench is ending


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def reset(url: str) -> None:
    from sqlalchemy import create_engine, text  # noqa: PLC0415 (only the bench's housekeeping)

    engine = create_engine(url.rsplit("/", 1)[0] + "/postgres", isolation_level="AUTOCOMMIT")
    name = url.rsplit("/", 1)[1]
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, check=True,
                   env={**os.environ, "DATABASE_URL": url}, capture_output=True)  # fmt: skip


class Service:
    def __init__(self, url: str, workers: int = 1, **env: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ, "DATABASE_URL": url, "WEBHOOK_ALLOWED_NETWORKS": '["127.0.0.0/8"]',
            "CAMPAIGNS_PER_ADDRESS_PER_HOUR": "1000", "RATE_LIMIT_PER_KEY_PER_MINUTE": "1000000",
            "LOG_LEVEL": "WARNING", **env,
        }  # fmt: skip
        self.workers = workers
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Service:
        command = [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--port", str(self.port),
                   "--workers", str(self.workers), "--no-access-log", "--log-level", "warning"]  # fmt: skip
        self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/readyz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the service did not start")

    def __exit__(self, *_: object) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(30)


async def campaign(client: httpx.AsyncClient) -> None:
    created = await client.post("/v1/campaigns", json={"name": "Bench"})
    client.headers["Authorization"] = f"Bearer {created.json()['key']['secret']}"


async def encounter(client: httpx.AsyncClient) -> str:
    body = {"name": "Bench", "combatants": [{"name": n, **FIGHTER} for n in ("Ala", "Bolek")]}
    return f"/v1/encounters/{(await client.post('/v1/encounters', json=body)).json()['id']}"


async def round_cost(url: str, receiver: Receiver, rounds: int) -> dict[str, tuple[float, float]]:
    """Each case: (subscriptions, this worker delivers too)."""
    found = {}
    for subscriptions, delivering in ((0, True), (1, False), (5, False), (1, True), (5, True)):
        reset(url)
        with Service(url, WEBHOOK_DELIVERIES=str(delivering).lower()) as service:
            async with httpx.AsyncClient(base_url=service.base, timeout=60) as client:
                await campaign(client)
                for _ in range(subscriptions):
                    await client.post("/v1/webhooks", json={"url": f"http://127.0.0.1:{receiver.port}/hook"})
                fight = await encounter(client)
                for seed in range(1, 21):  # warm-up
                    await client.post(f"{fight}/rounds", json={"declarations": [], "seed": seed})
                times = []
                for seed in range(21, 21 + rounds):
                    started = time.perf_counter()
                    response = await client.post(f"{fight}/rounds", json={"declarations": [], "seed": seed})
                    times.append(time.perf_counter() - started)
                    assert response.status_code == 201, response.text
        case = f"{subscriptions} subscriptions, {'delivering' if delivering else 'recording only'}"
        found[case] = (statistics.median(times) * 1000, statistics.mean(times) * 1000)
        print(f"round with {case}: median {found[case][0]:.2f} ms, mean {found[case][1]:.2f} ms", flush=True)
    return found


async def throughput(url: str, receiver: Receiver, events: int, workers: int) -> float:
    reset(url)
    per_encounter = events // 30
    with Service(url, WEBHOOK_DELIVERIES="false") as service:
        async with httpx.AsyncClient(base_url=service.base, timeout=60) as client:
            await campaign(client)
            hook = {"url": f"http://127.0.0.1:{receiver.port}/hook", "events": ["round.resolved"]}
            await client.post("/v1/webhooks", json=hook)
            for _ in range(30):
                fight = await encounter(client)
                for seed in range(1, per_encounter + 1):
                    await client.post(f"{fight}/rounds", json={"declarations": [], "seed": seed})
    before, total = receiver.count, per_encounter * 30
    deadline = time.perf_counter() + 600
    with Service(url, workers=workers):
        while receiver.count == before:  # timed from the first delivery: the start-up is not the deliveries'
            await asyncio.sleep(0.001)
        started = time.perf_counter()
        while receiver.count - before < total:
            await asyncio.sleep(0.005)
            if time.perf_counter() > deadline:
                raise RuntimeError("the events were not all delivered in 10 minutes")
        elapsed = time.perf_counter() - started
    rate = (total - 1) / elapsed
    print(f"{workers} worker(s): {total} events, {elapsed:.2f} s from the first to the last: {rate:.0f} events/s")
    return rate


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--events", type=int, default=600)
    arguments = parser.parse_args()
    receiver = Receiver()
    await receiver.start()
    costs = await round_cost(arguments.postgres_url, receiver, arguments.rounds)
    base = costs["0 subscriptions, delivering"][0]
    for case, (median, _mean) in costs.items():
        print(f"{case}: {100 * (median / base - 1):+.1f}% (median)")
    rates = {w: await throughput(arguments.postgres_url, receiver, arguments.events, w) for w in (1, 2)}
    print(json.dumps({"round_ms": costs, "events_per_second": rates}))


if __name__ == "__main__":
    asyncio.run(main())
