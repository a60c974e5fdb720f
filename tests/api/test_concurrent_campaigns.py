"""Writers in several campaigns at once: none of them sees another campaign's write as its own conflict
(no 409) or the database as unavailable (no 503), on SQLite (one write lock per file) as on PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient

from app.platform.db import WriterGate
from tests.api.helpers import create_encounter, fighter, start_fight
from tests.conftest import new_campaign_key

ROUNDS = 40


def _rounds(client: TestClient, url: str, done: threading.Event) -> list[int]:
    try:
        return [client.post(f"{url}/rounds", json={}).status_code for _ in range(ROUNDS)]
    finally:
        done.set()


def _other_campaign_writes(client: TestClient, key: str, done: threading.Event) -> list[tuple[str, int]]:
    """Everything another campaign writes while the rounds go on: fights, copies, tokens, keys."""
    headers = {"Authorization": f"Bearer {key}"}
    seen: list[tuple[str, int]] = []
    while not done.is_set() or len(seen) < 10:
        made = client.post("/v1/encounters", json={"name": "Side", "combatants": [fighter("Ala")]}, headers=headers)
        seen.append(("encounter", made.status_code))
        if made.status_code != 201:
            break
        url = f"/v1/encounters/{made.json()['id']}"
        seen.append(("copy", client.post(f"{url}/copy", json={}, headers=headers).status_code))
        seen.append(("token", client.post(f"{url}/tokens", json={"role": "viewer"}, headers=headers).status_code))
        spare = client.post("/v1/campaign/keys", json={"label": "spare"}, headers=headers)
        seen.append(("key", spare.status_code))
        if spare.status_code == 201:
            revoked = client.delete(f"/v1/campaign/keys/{spare.json()['id']}", headers=headers)
            seen.append(("revoke", revoked.status_code))
    return seen


def test_writes_of_other_campaigns_during_a_round_loop(client: TestClient):
    fight = start_fight(client)
    others = [new_campaign_key(client, f"Campaign {n}") for n in range(3)]
    done = threading.Event()
    with ThreadPoolExecutor(1 + len(others)) as pool:
        rounds = pool.submit(_rounds, client, fight.url, done)
        writes = [pool.submit(_other_campaign_writes, client, key, done) for key in others]
        assert rounds.result() == [201] * ROUNDS
        for future in writes:
            seen = future.result()
            expected = {"encounter": 201, "copy": 201, "token": 201, "key": 201, "revoke": 204}
            assert [(what, status) for what, status in seen if status != expected[what]] == [], seen
    assert client.get(fight.url).json()["round"] == ROUNDS


def test_two_campaigns_editing_their_own_fights_at_once(client: TestClient):
    """Read-then-write use cases in two campaigns (a PATCH reads its encounter first): both always land."""
    mine = create_encounter(client, fighter("Ala"))
    theirs_key = new_campaign_key(client, "Theirs")
    made = client.post(
        "/v1/encounters",
        json={"name": "Theirs", "combatants": [fighter("Bolek")]},
        headers={"Authorization": f"Bearer {theirs_key}"},
    )
    assert made.status_code == 201, made.text

    def edits(url: str, headers: dict[str, str]) -> list[int]:
        return [client.patch(url, json={"blood": n % 5}, headers=headers).status_code for n in range(25)]

    mine_url = f"/v1/encounters/{mine['id']}/combatants/{mine['combatants'][0]['id']}"
    theirs_url = f"/v1/encounters/{made.json()['id']}/combatants/{made.json()['combatants'][0]['id']}"
    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(edits, mine_url, {})
        b = pool.submit(edits, theirs_url, {"Authorization": f"Bearer {theirs_key}"})
        assert a.result() == [200] * 25
        assert b.result() == [200] * 25


def test_the_gate_lets_one_writer_in_at_a_time_and_reopens_after_a_dead_holder():
    asyncio.run(_one_at_a_time())


async def _one_at_a_time() -> None:
    gate = WriterGate(timeout=30)
    inside, most = 0, 0

    async def writer() -> None:
        nonlocal inside, most
        async with gate.held():
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0)
            inside -= 1

    await asyncio.gather(*(writer() for _ in range(20)))
    assert most == 1

    async def dies_holding() -> None:
        await gate.acquire()  # and never releases

    await asyncio.create_task(dies_holding())
    async with asyncio.timeout(30):
        async with gate.held():
            pass
