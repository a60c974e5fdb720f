"""Event-stream benchmark (issue 12): fan-out latency, memory under churn, and two workers on PostgreSQL.

    .venv/bin/python bench/events_bench.py [--subscribers 500] [--rounds 20] [--churn-seconds 300]
        [--churn-subscribers 200] [--per-worker 100] [--postgres-url URL] [--skip fanout,churn,workers]

Everything on 127.0.0.1, ports 9150-9199, servers started and stopped here (uvicorn, one worker each,
`--loop uvloop --http httptools --no-access-log`, rate limits raised so nothing is refused):

1. fanout: one worker on a fresh SQLite file; N subscribers open the stream (Authorization), then rounds
   are posted one at a time; for each subscriber and round, the time from just before the POST is sent
   to the moment its `event: round` line arrives. p50/p99/max over every delivery.
2. churn: the same kind of worker; M clients open a stream, wait for its `sync`, hold it 0.2-2 s, close
   it and start again, for the given time, while a round is posted every 2 s. The server's RSS
   (/proc VmRSS) is sampled every 2 s.
3. workers: two workers (two processes, two ports) on one PostgreSQL database; K subscribers on each;
   rounds posted alternately through one and the other; latency per delivery, per worker.

The subscribers are plain asyncio connections (a streaming HTTP/1.1 GET, lines read as they come):
500 httpx streams would cost this one client process more CPU than the server it measures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
PORTS = range(9150, 9200)
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/combat_bench_h10"
FIGHTER = {"initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"}


def free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            try:
                probe.bind((HOST, port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in 9150-9199")


class Server:
    def __init__(self, database_url: str):
        self.port = free_port()
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "RATE_LIMIT_PER_KEY_PER_MINUTE": "100000000",
            "CAMPAIGNS_PER_ADDRESS_PER_HOUR": "100000",
            "EVENTS_MAX_SUBSCRIBERS": "10000",
            # The PostgreSQL server is shared (100 connections here): a small pool per worker, which the
            # stream needs only to authenticate a new subscriber and read a round once per event.
            "DB_POOL_SIZE": "4",
            "DB_MAX_OVERFLOW": "2",
        }
        self.log = tempfile.NamedTemporaryFile(prefix="events_bench_", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "uvicorn"), "app.main:create_app", "--factory", "--host", HOST,
             "--port", str(self.port), "--loop", "uvloop", "--http", "httptools", "--no-access-log",
             "--backlog", "4096"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError(f"server did not start; see {self.log.name}")

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()


def migrate(database_url: str) -> None:
    subprocess.run([str(Path(sys.executable).parent / "alembic"), "upgrade", "head"], cwd=ROOT, check=True,
                   env={**os.environ, "DATABASE_URL": database_url}, capture_output=True)  # fmt: skip


def ensure_postgres(database_url: str) -> None:
    import psycopg
    from sqlalchemy import make_url

    url = make_url(database_url)
    admin = url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (url.database,)).fetchone():
            connection.execute(f'CREATE DATABASE "{url.database}"')


def new_encounter(base_url: str) -> tuple[str, str]:
    """(owner key, encounter path)."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        key = client.post("/v1/campaigns", json={"name": "bench"}).json()["key"]["secret"]
        body = {"name": "bench", "combatants": [{"name": "A", **FIGHTER}, {"name": "B", **FIGHTER}]}
        created = client.post("/v1/encounters", json=body, headers={"Authorization": f"Bearer {key}"})
        return key, f"/v1/encounters/{created.json()['id']}"


class Subscriber:
    """One open stream; records when each `round` event (by id) arrived."""

    def __init__(self, port: int, path: str, key: str, arrivals: dict[int, list[float]] | None = None):
        self.port, self.path, self.key = port, path, key
        self.arrivals = arrivals
        self.synced = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None

    async def run(self) -> None:
        reader, self.writer = await asyncio.open_connection(HOST, self.port, limit=1 << 20)
        self.writer.write(
            f"GET {self.path}/events HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Bearer {self.key}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        status = await reader.readline()
        if b" 200 " not in status:
            raise Refused(status.decode().strip())
        last_id = 0
        while line := await reader.readline():  # chunk-size lines are skipped: only SSE fields matter here
            if line.startswith(b"id: "):
                last_id = int(line[4:])
            elif line.startswith(b"event: sync"):
                self.synced.set()
            elif line.startswith(b"event: round") and self.arrivals is not None:
                self.arrivals.setdefault(last_id, []).append(time.perf_counter())

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(latencies: list[float]) -> str:
    ms = [v * 1000 for v in latencies]
    return (f"n={len(ms)} p50={statistics.median(ms):.1f} ms p99={percentile(ms, 0.99):.1f} ms "
            f"max={max(ms):.1f} ms")  # fmt: skip


def measured(sent: list[float], answered: list[float]) -> str:
    """From the POST sent (includes resolving and committing the round), and from its answer (the event's
    own path: negative when the event arrived before the answer)."""
    return f"from POST sent: {summary(sent)}; from its answer: {summary(answered)}"


async def post_round(client: httpx.AsyncClient, path: str, key: str) -> tuple[float, float, int]:
    """(before the POST was sent, when its answer came, the version it made)."""
    started = time.perf_counter()
    posted = await client.post(f"{path}/rounds", json={}, headers={"Authorization": f"Bearer {key}"})
    if posted.status_code == 503:  # the shared database was busy: retried as its Retry-After says
        await asyncio.sleep(1)
        started = time.perf_counter()
        posted = await client.post(f"{path}/rounds", json={}, headers={"Authorization": f"Bearer {key}"})
    assert posted.status_code == 201, posted.text
    return started, time.perf_counter(), int(posted.headers["etag"].strip('"'))


async def wait_for_arrivals(arrivals: dict[int, list[float]], version: int, expected: int, timeout: float = 10):
    deadline = time.monotonic() + timeout
    while len(arrivals.get(version, ())) < expected:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {len(arrivals.get(version, ()))} of {expected} got round {version}")
        await asyncio.sleep(0.005)


class Refused(Exception):
    pass


async def run_with_retries(subscriber: Subscriber, attempts: int = 20) -> None:
    """As EventSource does: a refused stream (a 503 while SQLite's writers queue up for the per-key rate
    count of hundreds of simultaneous connections) is tried again a moment later."""
    for _ in range(attempts - 1):
        try:
            return await subscriber.run()
        except Refused:
            subscriber.close()
            await asyncio.sleep(random.uniform(0.2, 1.0))
    return await subscriber.run()


async def open_all(subscribers: list[Subscriber]) -> list[asyncio.Task]:
    tasks = []
    for i, subscriber in enumerate(subscribers):
        tasks.append(asyncio.create_task(run_with_retries(subscriber)))
        if i % 25 == 24:  # connect in waves: a burst of 500 would measure the accept queue
            await asyncio.sleep(0.1)
    await asyncio.wait_for(asyncio.gather(*(s.synced.wait() for s in subscribers)), 120)
    return tasks


async def fanout(subscribers: int, rounds: int) -> None:
    database = Path(tempfile.mkdtemp(prefix="events_bench_")) / "combat.db"
    url = f"sqlite:///{database}"
    migrate(url)
    server = Server(url)
    try:
        key, path = new_encounter(server.url)
        arrivals: dict[int, list[float]] = {}
        streams = [Subscriber(server.port, path, key, arrivals) for _ in range(subscribers)]
        tasks = await open_all(streams)
        rss_open = server.rss_kib()
        sent, answered, posts = [], [], []
        cpu_before = server.cpu_seconds()
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            for _ in range(rounds):
                started, answer, version = await post_round(client, path, key)
                posts.append(answer - started)
                await wait_for_arrivals(arrivals, version, subscribers)
                sent += [t - started for t in arrivals[version]]
                answered += [t - answer for t in arrivals[version]]
                await asyncio.sleep(0.2)
        cpu_per_round = (server.cpu_seconds() - cpu_before) / rounds
        print(f"fanout (SQLite, 1 worker, {subscribers} subscribers, {rounds} rounds): {measured(sent, answered)}; "
              f"POST round median {statistics.median(posts) * 1000:.1f} ms; "
              f"server CPU per round (the POST and {subscribers} deliveries) {cpu_per_round * 1000:.0f} ms; "
              f"server RSS with all open {rss_open / 1024:.0f} MiB")  # fmt: skip
        for stream in streams:
            stream.close()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        server.stop()


async def churn(clients: int, seconds: float) -> None:
    database = Path(tempfile.mkdtemp(prefix="events_bench_")) / "combat.db"
    url = f"sqlite:///{database}"
    migrate(url)
    server = Server(url)
    deadline = time.monotonic() + seconds
    opened = refused = 0
    samples: list[tuple[float, int]] = []

    async def client_loop() -> None:
        nonlocal opened, refused
        while time.monotonic() < deadline:
            stream = Subscriber(server.port, path, key)
            task = asyncio.create_task(stream.run())
            synced = asyncio.create_task(stream.synced.wait())
            try:
                await asyncio.wait({task, synced}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
                if stream.synced.is_set():
                    opened += 1
                    await asyncio.sleep(random.uniform(0.2, 2.0))
                else:  # refused (503) or no answer: EventSource would retry a moment later
                    refused += 1
                    await asyncio.sleep(random.uniform(0.2, 1.0))
            finally:
                synced.cancel()
                stream.close()
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def rounds_and_samples() -> None:
        started = time.monotonic()
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            while time.monotonic() < deadline:  # a round and an RSS sample every 2 s
                try:
                    await post_round(client, path, key)
                except AssertionError:  # SQLite too busy with the churn's rate counts (409): the next one
                    pass
                samples.append((time.monotonic() - started, server.rss_kib()))
                await asyncio.sleep(2)

    try:
        key, path = new_encounter(server.url)
        await asyncio.gather(rounds_and_samples(), *(client_loop() for _ in range(clients)))
        await asyncio.sleep(3)
        after = server.rss_kib()
        warm = [rss for t, rss in samples if t >= min(30, seconds / 5)]
        print(f"churn (SQLite, 1 worker, {clients} clients, {seconds:.0f} s, {opened} streams opened and closed, "
              f"{refused} refused and retried): "
              f"RSS after warm-up first {warm[0] / 1024:.1f} MiB, last {warm[-1] / 1024:.1f} MiB, "
              f"max {max(warm) / 1024:.1f} MiB; 3 s after the end {after / 1024:.1f} MiB")  # fmt: skip
        print("  samples (s, MiB): " + ", ".join(f"{t:.0f}:{rss / 1024:.1f}" for t, rss in samples[::5]))
    finally:
        server.stop()


async def workers(per_worker: int, rounds: int, postgres_url: str) -> None:
    ensure_postgres(postgres_url)
    migrate(postgres_url)
    servers = [Server(postgres_url), Server(postgres_url)]
    try:
        key, path = new_encounter(servers[0].url)
        arrivals = [{}, {}]
        streams = [Subscriber(s.port, path, key, arrivals[i]) for i, s in enumerate(servers) for _ in range(per_worker)]
        tasks = await open_all(streams)
        sent: list[list[float]] = [[], []]
        answered: list[list[float]] = [[], []]
        clients = [httpx.AsyncClient(base_url=s.url, timeout=30) for s in servers]
        for number in range(rounds):
            started, answer, version = await post_round(clients[number % 2], path, key)
            for side in (0, 1):
                await wait_for_arrivals(arrivals[side], version, per_worker)
                sent[side] += [t - started for t in arrivals[side][version]]
                answered[side] += [t - answer for t in arrivals[side][version]]
            await asyncio.sleep(0.2)
        for client in clients:
            await client.aclose()
        print(f"workers (PostgreSQL, 2 workers, {per_worker} subscribers each, {rounds} rounds posted alternately):")
        print(f"  both: {measured(sent[0] + sent[1], answered[0] + answered[1])}")
        for side in (0, 1):
            print(f"  subscribers on worker {side + 1}: {measured(sent[side], answered[side])}")
        for stream in streams:
            stream.close()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for server in servers:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscribers", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--churn-subscribers", type=int, default=200)
    parser.add_argument("--churn-seconds", type=float, default=300)
    parser.add_argument("--per-worker", type=int, default=100)
    parser.add_argument("--postgres-url", default=os.environ.get("BENCH_POSTGRES_URL", DEFAULT_POSTGRES_URL))
    parser.add_argument("--skip", default="", help="comma-separated: fanout,churn,workers")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    if "fanout" not in skip:
        asyncio.run(fanout(args.subscribers, args.rounds))
    if "workers" not in skip:
        asyncio.run(workers(args.per_worker, args.rounds, args.postgres_url))
    if "churn" not in skip:
        asyncio.run(churn(args.churn_subscribers, args.churn_seconds))


if __name__ == "__main__":
    main()
