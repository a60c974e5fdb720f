"""Webhooks across real server processes: exactly one delivery per event with two workers on PostgreSQL,
and nothing lost when every worker is killed with SIGKILL and the service starts again (both databases)."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api.webhook_support import Receiver, serving, wait_for
from tests.load.server import Server

READY_WITHIN = 120.0  # a loaded machine starts slowly


class Service(Server):
    def start(self) -> Service:
        env = {
            "WEBHOOK_ALLOWED_NETWORKS": json.dumps(["127.0.0.0/8"]),
            "WEBHOOK_RETRY_DELAYS": json.dumps([0.2, 0.5]),
            "WEBHOOK_TIMEOUT_SECONDS": "5",
            "WEBHOOK_LEASE_SECONDS": "8",
            "CAMPAIGNS_PER_ADDRESS_PER_HOUR": "1000",
        }
        self.env = {**env, **self.env}
        deadline = time.monotonic() + READY_WITHIN
        while True:
            try:
                super().start()
                return self
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise

    def client(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60.0)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with serving(Receiver()) as found:
        yield found


def campaign(service: Service) -> str:
    with service.client() as anonymous:
        response = anonymous.post("/v1/campaigns", json={"name": "Webhooks"})
        assert response.status_code == 201, response.text
        return str(response.json()["key"]["secret"])


def fight(client: httpx.Client) -> str:
    body = {"name": "Fight", "combatants": [
        {"name": n, "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"} for n in ("Ala", "Bolek")
    ]}  # fmt: skip
    response = client.post("/v1/encounters", json=body)
    assert response.status_code == 201, response.text
    return f"/v1/encounters/{response.json()['id']}"


def quiet_round(client: httpx.Client, url: str, seed: int) -> None:
    response = client.post(f"{url}/rounds", json={"declarations": [], "seed": seed})
    assert response.status_code == 201, response.text


def deliveries(client: httpx.Client, hook: str) -> list[dict[str, Any]]:
    return list(client.get(f"/v1/webhooks/{hook}/deliveries", params={"limit": 100}).json()["items"])


def test_two_workers_deliver_each_event_exactly_once(settings, receiver):
    if settings.is_sqlite:
        pytest.skip("several workers share PostgreSQL; SQLite is one process")
    with Service(settings.database_url, workers=2) as service:
        key = campaign(service)
        with service.client(key) as client:
            hook = client.post("/v1/webhooks", json={"url": receiver.url, "events": ["round.resolved"]}).json()
            url = fight(client)
            for seed in range(1, 21):
                quiet_round(client, url, seed)  # each on whichever worker takes it
            wait_for(
                lambda: (log := deliveries(client, hook["id"])) and len(log) == 20
                and all(d["status"] == "delivered" for d in log),
                "every event delivered",
            )  # fmt: skip
            log = deliveries(client, hook["id"])
            assert all(d["attempts"] == 1 for d in log)  # never attempted twice, by either worker
    sent = Counter(r.headers["webhook-id"] for r in receiver.received)
    assert len(sent) == 20 and set(sent.values()) == {1}
    assert [r.json()["data"]["round"] for r in receiver.received] == list(range(1, 21))  # in order


def test_nothing_is_lost_when_every_worker_is_killed(settings, receiver):
    receiver.answer = lambda _r: (503, b"", {})  # pending until the service comes back
    service = Service(settings.database_url, workers=1 if settings.is_sqlite else 2)
    service.start()
    try:
        key = campaign(service)
        with service.client(key) as client:
            hook = client.post("/v1/webhooks", json={"url": receiver.url, "events": ["round.resolved"]}).json()
            url = fight(client)
            for seed in range(1, 6):
                quiet_round(client, url, seed)
        wait_for(lambda: receiver.received, "a first attempt")
        service.kill()  # SIGKILL: no shutdown, attempts and leases left as they were
        receiver.answer = lambda _r: (204, b"", {})
        service.start()
        with service.client(key) as client:
            wait_for(
                lambda: all(d["status"] == "delivered" for d in deliveries(client, hook["id"])),
                "every event delivered after the restart",
            )
            assert len(deliveries(client, hook["id"])) == 5
    finally:
        service.stop()
    delivered = [r for r in receiver.received if r.json()["type"] == "round.resolved"]
    rounds = [r.json()["data"]["round"] for r in delivered]
    assert sorted(set(rounds)) == [1, 2, 3, 4, 5]
    assert rounds == sorted(rounds)  # retried in order: never a later round before an earlier one
