"""Request ids, JSON access logs and Prometheus metrics."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from app.config import Settings
from app.main import create_app
from app.observability import install_observability
from app.observability.multiprocess import mark_dead_workers
from app.platform.db import Database
from tests.api.helpers import assert_problem, attack, create_encounter, fighter
from tests.conftest import migrate, new_campaign_key
from tests.load.server import Server
from tests.waiting import wait_for

ROUNDS_ROUTE = "/v1/encounters/{encounter_id}/rounds"
# The uvicorn server of the multiprocess test listens there (a free port when unset).
SERVER_PORT = int(os.environ.get("TEST_SERVER_PORT", "0")) or None


def samples(client: TestClient | httpx.Client, name: str, headers: dict[str, str] | None = None) -> dict[tuple, float]:
    """The samples of one metric family, keyed by their sorted labels."""
    response = client.get("/metrics", headers=headers or {})
    assert response.status_code == 200, response.text
    found = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def log_lines(captured: str) -> list[dict]:
    return [json.loads(line) for line in captured.splitlines() if line.startswith("{")]


def access_lines(captured: str) -> list[dict]:
    return [line for line in log_lines(captured) if line["logger"] == "app.access"]


def two_fighters(client: TestClient) -> tuple[str, str, str]:
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"))
    ala, bolek = (c["id"] for c in encounter["combatants"])
    return f"/v1/encounters/{encounter['id']}", ala, bolek


def test_a_valid_request_id_is_echoed_and_a_missing_or_unsafe_one_is_replaced(client):
    sent = "3f2b9c1e-5d4a-4b7e-9c2f-1a2b3c4d5e6f"
    assert client.get("/healthz", headers={"X-Request-ID": sent}).headers["X-Request-ID"] == sent
    nginx_style = "0123456789abcdef0123456789abcdef"
    assert client.get("/healthz", headers={"X-Request-ID": nginx_style}).headers["X-Request-ID"] == nginx_style

    made = client.get("/healthz").headers["X-Request-ID"]
    assert len(made) == 32 and int(made, 16) >= 0
    for unsafe in ("<script>alert(1)</script>", "short", "x" * 200, '"quoted" id with spaces'):
        replaced = client.get("/healthz", headers={"X-Request-ID": unsafe}).headers["X-Request-ID"]
        assert replaced != unsafe and len(replaced) == 32


def test_problems_carry_the_request_id_too(client):
    response = client.get("/v1/encounters/nope", headers={"X-Request-ID": "trace-404-abcdef"})
    assert_problem(response, 404)
    assert response.headers["X-Request-ID"] == "trace-404-abcdef"


def test_one_json_access_line_per_request_with_route_template_status_duration_and_id(capsys, client):
    url, ala, bolek = two_fighters(client)
    capsys.readouterr()
    response = client.post(
        f"{url}/rounds",
        json={"declarations": [attack(ala, bolek)], "seed": 3},
        headers={"X-Request-ID": "round-one-1234"},
    )
    assert response.status_code == 201, response.text

    lines = access_lines(capsys.readouterr().out)
    assert len(lines) == 1, lines
    line = lines[0]
    assert line["method"] == "POST"
    assert line["route"] == ROUNDS_ROUTE  # the template, not the encounter's id
    assert line["path"] == f"{url}/rounds"
    assert line["status"] == 201
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] > 0
    assert line["request_id"] == "round-one-1234"
    assert line["level"] == "INFO" and "time" in line


def test_an_unexpected_error_is_a_500_whose_request_id_finds_its_log_line(settings, capsys):
    app = create_app(settings)

    @app.get("/v1/boom")
    def boom() -> None:
        raise RuntimeError("the dice fell off the table")

    with TestClient(app, raise_server_exceptions=False) as test_client:
        capsys.readouterr()
        response = test_client.get("/v1/boom", headers={"X-Request-ID": "trace-500-abcdef"})
        assert_problem(response, 500, "internal-error")
        assert response.headers["X-Request-ID"] == "trace-500-abcdef"
        assert "dice fell" not in response.text

    lines = log_lines(capsys.readouterr().out)
    error = next(line for line in lines if line["message"] == "unhandled error")
    assert error["request_id"] == "trace-500-abcdef"
    assert error["level"] == "ERROR" and "the dice fell off the table" in error["exc_info"]
    access = next(line for line in lines if line["logger"] == "app.access")
    assert (access["status"], access["request_id"]) == (500, "trace-500-abcdef")


def test_log_level_comes_from_the_settings(settings, capsys):
    quiet = settings.model_copy(update={"log_level": "WARNING"})
    with TestClient(create_app(quiet)) as test_client:
        capsys.readouterr()
        assert test_client.get("/healthz").status_code == 200
    assert access_lines(capsys.readouterr().out) == []


def test_request_counts_and_latency_by_route_template_and_status(client):
    url, _, _ = two_fighters(client)
    for _ in range(3):
        assert client.get(url).status_code == 200
    assert client.get("/v1/encounters/missing").status_code == 404

    counts = samples(client, "http_requests_total")
    route = ("handler", "/v1/encounters/{encounter_id}")
    assert counts[(route, ("method", "GET"), ("status", "200"))] == 3
    assert counts[(route, ("method", "GET"), ("status", "404"))] == 1
    latency = samples(client, "http_request_duration_seconds_count")
    assert latency[(route, ("method", "GET"), ("status", "200"))] == 3


def test_rounds_resolved_counts_each_round_once(client):
    url, ala, bolek = two_fighters(client)
    stored = (("stored", "true"),)
    before = samples(client, "combat_rounds_resolved_total")[stored]
    body = {"declarations": [attack(ala, bolek)], "seed": 1}
    first = client.post(f"{url}/rounds", json=body, headers={"Idempotency-Key": "round-1"})
    retry = client.post(f"{url}/rounds", json=body, headers={"Idempotency-Key": "round-1"})
    assert (first.status_code, retry.status_code) == (201, 201)
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert client.post(f"{url}/rounds", json={"declarations": [attack(ala, "nobody")]}).status_code == 422
    assert client.post(f"{url}/rounds", json={"declarations": [], "seed": 2}).status_code == 201

    assert samples(client, "combat_rounds_resolved_total")[stored] == before + 2


def test_stateless_rounds_are_counted_apart(client):
    body = {
        "combatants": [
            {"id": "a", "initiative": 10, "attack": 10, "defense": 2, "weapon": "dagger"},
            {"id": "b", "initiative": 9, "attack": 10, "defense": 2, "weapon": "dagger"},
        ],
        "declarations": [attack("a", "b")],
        "seed": 5,
    }
    assert client.post("/v1/resolve", json=body).status_code == 200
    counted = samples(client, "combat_rounds_resolved_total")
    assert counted[(("stored", "false"),)] == 1
    assert counted[(("stored", "true"),)] == 0


def test_the_pool_gauge_reads_the_engines_checked_out_connections(client):
    assert samples(client, "combat_db_pool_connections_in_use")[()] == 0
    engine = client.app.state.database.engine
    held = [engine.connect(), engine.connect()]
    for connection in held:  # checked out on the app's own event loop, as a request would
        client.portal.call(connection.start)
    try:
        assert samples(client, "combat_db_pool_connections_in_use")[()] == 2
    finally:
        for connection in held:
            client.portal.call(connection.close)
    assert samples(client, "combat_db_pool_connections_in_use")[()] == 0


def test_the_pool_gauge_is_read_at_every_scrape(settings):
    in_use = [0]
    app = FastAPI()
    install_observability(app, settings, pool_in_use=lambda: in_use[0], watch_pool=lambda listener: None)
    with TestClient(app) as test_client:
        in_use[0] = 7
        assert samples(test_client, "combat_db_pool_connections_in_use")[()] == 7
        in_use[0] = 1
        assert samples(test_client, "combat_db_pool_connections_in_use")[()] == 1


def test_a_pool_watcher_hears_the_connections_in_use_after_every_checkout_and_checkin(settings):
    heard: list[int] = []

    async def take_two_then_give_them_back() -> None:
        database = Database(settings)
        database.watch_connections_in_use(heard.append)
        try:
            first = await database.engine.connect()
            second = await database.engine.connect()
            await first.close()
            await second.close()
            await database.ping()
        finally:
            await database.dispose()

    asyncio.run(take_two_then_give_them_back())
    assert heard == [1, 2, 1, 0, 1, 0]


def test_a_worker_that_died_without_a_word_leaves_the_live_gauges_but_keeps_its_counts(tmp_path):
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    dead, alive = finished.pid, os.getpid()
    for name in (f"gauge_livesum_{dead}.db", f"gauge_livesum_{alive}.db", f"counter_{dead}.db"):
        (tmp_path / name).write_bytes(b"")
    mark_dead_workers(str(tmp_path))
    assert sorted(path.name for path in tmp_path.iterdir()) == [f"counter_{dead}.db", f"gauge_livesum_{alive}.db"]


def counted_by_each_worker(folder: Path, handler: str) -> dict[str, float]:
    """Each worker's own count of requests to `handler`, read from its file of the multiprocess folder."""
    counts: dict[str, float] = {}
    for path in folder.glob("counter_*.db"):
        pid = path.stem.rpartition("_")[2]
        for family in MultiProcessCollector.merge([str(path)]):
            for sample in family.samples:
                if sample.name == "http_requests_total" and sample.labels["handler"] == handler:
                    counts[pid] = counts.get(pid, 0) + sample.value
    return counts


def new_campaign(url: str) -> None:
    response = httpx.post(f"{url}/v1/campaigns", json={"name": "Counted"}, timeout=60)  # a connection of its own
    assert response.status_code == 201, response.text


CREATED = (("handler", "/v1/campaigns"), ("method", "POST"), ("status", "201"))


def scrape(scraper: httpx.Client) -> tuple[float | None, dict[tuple, float]]:
    """Campaigns created, and the connections-in-use gauge's samples, as one worker's /metrics tells them."""
    return samples(scraper, "http_requests_total").get(CREATED), samples(scraper, "combat_db_pool_connections_in_use")


def scrape_on_both_workers(scraper: httpx.Client, folder: Path, expected: tuple) -> None:
    """Scrapes until each worker has answered three more, every one of them telling `expected`."""
    before = counted_by_each_worker(folder, "/metrics")

    def both_answered() -> bool:
        assert scrape(scraper) == expected
        answered = counted_by_each_worker(folder, "/metrics")
        return len(answered) == 2 and all(count >= before.get(pid, 0) + 3 for pid, count in answered.items())

    wait_for(both_answered, "scrapes answered by both workers")


def test_two_uvicorn_workers_answer_metrics_for_both(tmp_path):
    database_file = tmp_path / "combat.db"
    migrate(f"sqlite:///{database_file}")
    folder = tmp_path / "prometheus"
    folder.mkdir()
    env = {
        "PROMETHEUS_MULTIPROC_DIR": str(folder),
        "CAMPAIGNS_PER_ADDRESS_PER_HOUR": "10000",
        "SQLITE_BUSY_TIMEOUT_MS": "60000",  # a request waits for the test's write lock as long as it is held
    }
    server = Server(f"sqlite:///{database_file}", workers=2, port=SERVER_PORT, **env)
    fresh = {"Connection": "close"}  # every request and scrape on a new connection: either worker may take it
    with server, ThreadPoolExecutor(64) as pool, httpx.Client(base_url=server.url, headers=fresh) as scraper:
        sent = 0

        def send_until_both_workers_served() -> bool:
            nonlocal sent
            for future in [pool.submit(new_campaign, server.url) for _ in range(8)]:
                future.result()
            sent += 8
            return sent >= 20 and len(counted_by_each_worker(folder, "/v1/campaigns")) == 2

        wait_for(send_until_both_workers_served, "requests answered by both workers")
        # A worker counts a request just after answering it: the last few may be a moment late.
        wait_for(lambda: scrape(scraper) == (sent, {(): 0}), f"a scrape counting {sent} requests")
        scrape_on_both_workers(scraper, folder, (sent, {(): 0}))

        # Requests wait for the write lock; on each worker the first holds a connection of its pool (the writer
        # gate keeps the others of that worker off the file, and off the pool): one in use per worker, summed.
        lock = sqlite3.connect(database_file, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        waiting = []

        def one_connection_in_use_on_each_worker() -> bool:
            waiting.append(pool.submit(new_campaign, server.url))
            return scrape(scraper) == (sent, {(): 2})

        try:
            wait_for(one_connection_in_use_on_each_worker, "a connection in use on each worker")
            scrape_on_both_workers(scraper, folder, (sent, {(): 2}))
        finally:
            lock.rollback()
            lock.close()
        for future in waiting:
            future.result()
        wait_for(lambda: scrape(scraper) == (sent + len(waiting), {(): 0}), "the waiting requests answered")

    # Each worker's shutdown took it out of the live gauges; its counts stay (they still belong in the totals).
    left = sorted(path.name.rpartition("_")[0] for path in folder.iterdir())
    assert left == ["counter", "counter", "histogram", "histogram"]


def test_a_metrics_token_guards_metrics(settings):
    token = "scrape-me-please-0123456789"
    with TestClient(create_app(settings.model_copy(update={"metrics_token": token}))) as test_client:
        for headers in ({}, {"Authorization": "Bearer wrong-token-000000000"}, {"Authorization": token}):
            body = assert_problem(test_client.get("/metrics", headers=headers), 401, "unauthorized")
            assert "METRICS_TOKEN" in body["detail"]
        assert samples(test_client, "http_requests_total", {"Authorization": f"Bearer {token}"})


def test_a_short_metrics_token_is_refused_at_startup():
    try:
        Settings(metrics_token="short")
    except ValueError as error:
        assert "metrics_token" in str(error)
    else:
        raise AssertionError("a 5-character metrics token was accepted")


def test_cors_exposes_the_request_id(settings):
    browser = settings.model_copy(update={"cors_origins": ["https://vtt.example"]})
    with TestClient(create_app(browser)) as test_client:
        key = new_campaign_key(test_client)
        response = test_client.get(
            "/v1/encounters", headers={"Origin": "https://vtt.example", "Authorization": f"Bearer {key}"}
        )
        assert response.status_code == 200
        assert "x-request-id" in response.headers["access-control-expose-headers"].lower()
        preflight = test_client.options(
            "/v1/encounters",
            headers={
                "Origin": "https://vtt.example",
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "X-Request-ID",
            },
        )
        assert preflight.status_code == 200
        assert "x-request-id" in preflight.headers["access-control-allow-headers"].lower()
