"""Webhooks end to end on both databases, with a local receiver on 127.0.0.1: subscriptions (owner only, bad
input refused with nothing stored), every event of a fight in order and signed (verified with the
`standardwebhooks` library), the retraction on undo, retries with the same webhook-id and the order kept while
one event fails, giving up and disabling, redelivery and ping, the table scope screened byte by byte, and a
slow receiver that never slows a round."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from standardwebhooks import Webhook

from app.main import create_app
from tests.api.helpers import assert_problem, attack, create_encounter, fighter
from tests.api.webhook_support import Receiver, serving, wait_for
from tests.conftest import new_campaign_key

FAST = {"webhook_allowed_networks": ["127.0.0.0/8"], "webhook_retry_delays": [0.2, 0.4], "webhook_lease_seconds": 30}


@pytest.fixture
def hook_settings(settings):
    return settings.model_copy(update=FAST)


@pytest.fixture
def hooked(hook_settings) -> Iterator[TestClient]:
    with TestClient(create_app(hook_settings), raise_server_exceptions=False) as client:
        client.headers["Authorization"] = f"Bearer {new_campaign_key(client)}"
        yield client


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with serving(Receiver()) as found:
        yield found


def subscribe(client: TestClient, url: str, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/webhooks", json={"url": url, **body})
    assert response.status_code == 201, response.text
    return response.json()


def verified(secret: str, receiver: Receiver) -> list[dict[str, Any]]:
    """Every body received, each checked against its signature by the Standard Webhooks library."""
    hook = Webhook(secret)
    with receiver.lock:
        received = list(receiver.received)
    return [hook.verify(r.body, r.headers) for r in received]


def two_fighters(client: TestClient, **extra: Any) -> tuple[str, list[str]]:
    encounter = create_encounter(client, fighter("Ala", vitality=30), fighter("Bolek", vitality=30), **extra)
    return f"/v1/encounters/{encounter['id']}", [c["id"] for c in encounter["combatants"]]


def play(client: TestClient, url: str, ids: list[str], rounds: int, *, fight: bool = True) -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = []
    for seed in range(rounds):
        states = {c["id"]: c["status"] for c in documents[-1]["combatants"]} if documents else {}
        able = [i for i in ids if states.get(i, "active") == "active"]
        declarations = [attack(a, b) for a, b in zip(able, able[1:] + able[:1], strict=True) if a != b] if fight else []
        body = {"declarations": declarations, "seed": seed + 1}
        response = client.post(f"{url}/rounds", json=body)
        assert response.status_code == 201, response.text
        documents.append(response.json())
    return documents


def expected_types(documents: list[dict[str, Any]]) -> list[str]:
    types, active = [], None
    for document in documents:
        types.append("round.resolved")
        if document["ends_turn"]:
            types.append("turn.ended")
        now = {c["id"] for c in document["combatants"] if c["status"] == "active"}
        was_active = active if active is not None else {c["id"] for c in document["combatants"]}
        down = [c for c in document["combatants"] if c["status"] != "active" and c["id"] in was_active]
        types.extend("combatant.down" for _ in down)
        active = now
    return types


def test_every_event_of_a_fight_arrives_in_order_signed(hooked, receiver):
    hook = subscribe(hooked, receiver.url, scope="gm")
    assert hook["secret"].startswith("whsec_") and hook["enabled"] and hook["format"] == "standard"
    url, ids = two_fighters(hooked)
    documents = play(hooked, url, ids, 3)
    assert hooked.delete(f"{url}/rounds/3").status_code == 204
    assert hooked.post(f"{url}/finish").status_code == 200
    assert hooked.post(f"{url}/reopen").status_code == 200
    expected = [*expected_types(documents), "round.undone", "encounter.finished", "encounter.reopened"]
    wait_for(lambda: len(receiver.received) >= len(expected), "every event")
    bodies = verified(hook["secret"], receiver)
    assert [b["type"] for b in bodies] == expected
    resolved = [b["data"] for b in bodies if b["type"] == "round.resolved"]
    assert [d["document"] for d in resolved] == documents  # the round as POST answered it
    assert all(d["chronicle"] and d["encounter"] == url.rsplit("/", 1)[1] for d in resolved)
    assert bodies[-3]["data"] == {"encounter": url.rsplit("/", 1)[1], "round": 3}  # the retraction
    ids_sent = [r.headers["webhook-id"] for r in receiver.received]
    assert len(set(ids_sent)) == len(ids_sent)  # one per event
    path = f"/v1/webhooks/{hook['id']}/deliveries"
    log = wait_for(
        lambda: (page := hooked.get(path, params={"limit": 100}).json())["items"][0]["status"] == "delivered" and page,
        "the last delivery settled",
    )
    assert log["total"] == len(expected)
    assert [d["id"] for d in reversed(log["items"])] == ids_sent  # newest first
    assert all(d["status"] == "delivered" and d["attempts"] == 1 for d in log["items"])
    assert all(d["last_attempt"]["status_code"] == 204 for d in log["items"])


def test_retries_keep_the_webhook_id_and_the_order(hooked, receiver):
    failures = {"left": 2}

    def answer(_request):
        if failures["left"]:
            failures["left"] -= 1
            return 500, b"not now", {}
        return 200, b"{}", {}

    receiver.answer = answer
    hook = subscribe(hooked, receiver.url, events=["round.resolved", "round.undone"])
    url, ids = two_fighters(hooked)
    play(hooked, url, ids, 2)
    assert hooked.delete(f"{url}/rounds/2").status_code == 204
    wait_for(lambda: len(receiver.received) >= 5, "three attempts of the first event and the two after it")
    sent = [(r.headers["webhook-id"], r.json()["type"], r.json()["data"]["round"]) for r in receiver.received]
    first = sent[0][0]
    assert [s[0] for s in sent[:3]] == [first] * 3  # the same id on every retry, nothing else meanwhile
    assert [(s[1], s[2]) for s in sent] == [("round.resolved", 1)] * 3 + [("round.resolved", 2), ("round.undone", 2)]
    verified(hook["secret"], receiver)
    log = hooked.get(f"/v1/webhooks/{hook['id']}/deliveries").json()["items"]
    oldest = log[-1]
    assert oldest["id"] == first and oldest["attempts"] == 3 and oldest["status"] == "delivered"


def test_given_up_events_disable_the_subscription_until_resumed(hook_settings, receiver):
    settings = hook_settings.model_copy(update={"webhook_retry_hours": 0.0, "webhook_disable_after": 2})
    receiver.answer = lambda _r: (503, b"", {})
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        client.headers["Authorization"] = f"Bearer {new_campaign_key(client)}"
        hook = subscribe(client, receiver.url, events=["round.resolved"])
        url, ids = two_fighters(client)
        play(client, url, ids, 2)
        read = wait_for(
            lambda: (found := client.get(f"/v1/webhooks/{hook['id']}").json())["enabled"] is False and found,
            "the subscription disabled",
        )
        assert "given up" in read["disabled_reason"]
        log = client.get(f"/v1/webhooks/{hook['id']}/deliveries").json()["items"]
        assert [d["status"] for d in log] == ["given_up", "given_up"]
        assert log[0]["last_attempt"]["status_code"] == 503 and log[0]["next_attempt_at"] is None
        receiver.answer = lambda _r: (204, b"", {})
        resumed = client.patch(f"/v1/webhooks/{hook['id']}", json={"enabled": True})
        assert resumed.status_code == 200 and resumed.json()["enabled"] and resumed.json()["disabled_reason"] is None
        again = client.post(f"/v1/webhooks/{hook['id']}/deliveries/{log[1]['id']}/redeliver")
        assert again.status_code == 202 and again.json()["status"] == "pending"
        wait_for(
            lambda: client.get(f"/v1/webhooks/{hook['id']}/deliveries").json()["items"][1]["status"] == "delivered",
            "the redelivery",
        )
        ids_sent = [r.headers["webhook-id"] for r in receiver.received]
        assert ids_sent[-1] == log[1]["id"]  # redelivered under its own id


def test_ping_is_delivered_like_any_event(hooked, receiver):
    hook = subscribe(hooked, receiver.url, events=["round.resolved"])
    pinged = hooked.post(f"/v1/webhooks/{hook['id']}/ping")
    assert pinged.status_code == 202
    wait_for(lambda: receiver.received, "the ping")
    (body,) = verified(hook["secret"], receiver)
    assert body["type"] == "ping" and receiver.received[0].headers["webhook-id"] == pinged.json()["id"]


def test_the_table_scope_never_carries_a_hidden_combatant(hooked, receiver):
    encounter = create_encounter(
        hooked, fighter("Ala", vitality=30), fighter("Bolek", vitality=30), fighter("Zbigniew Ukryty", hidden=True)
    )
    url, (ala, bolek, hidden) = f"/v1/encounters/{encounter['id']}", [c["id"] for c in encounter["combatants"]]
    table = subscribe(hooked, receiver.url, scope="table")
    play(hooked, url, [ala, bolek], 4)
    wait_for(lambda: len(receiver.received) >= 4, "the rounds")
    for request in receiver.received:
        assert hidden.encode() not in request.body and b"Ukryty" not in request.body
    assert {b["type"] for b in verified(table["secret"], receiver)} >= {"round.resolved"}


def test_a_slow_receiver_never_holds_a_round(hooked, receiver):
    release = threading.Event()
    receiver.answer = lambda _r: (release.wait(120), (204, b"", {}))[1]
    subscribe(hooked, receiver.url)
    url, ids = two_fighters(hooked)
    try:
        play(hooked, url, ids, 1, fight=False)
        wait_for(lambda: receiver.received, "the first event to be held by the receiver")
        documents = play(hooked, url, ids, 4, fight=False)  # answered while the receiver still holds the first event
        assert len(documents) == 4 and receiver.in_flight == 1 and len(receiver.received) == 1
    finally:
        release.set()
    wait_for(lambda: len(receiver.received) >= 5, "the rest after the receiver let go")


def test_a_token_may_not_touch_webhooks(hooked, receiver):
    url, ids = two_fighters(hooked)
    token = hooked.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    as_token = {"Authorization": f"Bearer {token}"}
    assert_problem(hooked.post("/v1/webhooks", json={"url": receiver.url}, headers=as_token), 403, "forbidden")
    assert_problem(hooked.get("/v1/webhooks", headers=as_token), 403, "forbidden")


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"url": "ftp://127.0.0.1/x"}, "webhook-destination-refused"),
        ({"url": "http://127.0.0.1/" + "x" * 2100}, "webhook-destination-refused"),
        ({"url": "http://user:pw@127.0.0.1/x"}, "webhook-destination-refused"),
        ({"url": "http://127.0.0.1/x", "events": ["round.exploded"]}, "validation-error"),
        ({"url": "http://127.0.0.1/x", "events": []}, "validation-error"),
        ({"url": "http://127.0.0.1/x", "scope": "everyone"}, "validation-error"),
        ({"url": "http://127.0.0.1/api/webhooks/1/t", "format": "discord"}, "not-a-discord-webhook"),
        ({"url": "http://127.0.0.1/x", "encounter": "no-such-encounter"}, "unprocessable"),
        ({"url": "http://127.0.0.1/x", "colour": "red"}, "validation-error"),
    ],
)
def test_bad_input_is_a_422_naming_why_and_stores_nothing(hooked, body, problem):
    found = assert_problem(hooked.post("/v1/webhooks", json=body), 422, problem)
    assert found["detail"]
    assert hooked.get("/v1/webhooks").json() == []


def test_loopback_is_refused_with_the_allowlist_empty(client):
    for url in ("http://127.0.0.1:9/x", "https://127.0.0.1/x", "https://[::1]/x", "https://localhost/x"):
        found = assert_problem(client.post("/v1/webhooks", json={"url": url}), 422, "webhook-destination-refused")
        assert "loopback" in found["detail"] or "http://" in found["detail"], found
    assert client.get("/v1/webhooks").json() == []


def test_a_subscription_is_read_changed_and_removed_with_its_version(hooked, receiver):
    hook = subscribe(hooked, receiver.url, description="bot", lang="pl")
    path = f"/v1/webhooks/{hook['id']}"
    read = hooked.get(path)
    assert read.headers["etag"] == '"1"' and "secret" not in read.json()
    assert_problem(hooked.patch(path, json={"scope": "gm"}, headers={"If-Match": '"7"'}), 412)
    changed = hooked.patch(path, json={"scope": "gm", "events": ["ping"]}, headers={"If-Match": '"1"'})
    assert changed.status_code == 200 and changed.json()["version"] == 2 and changed.json()["events"] == ["ping"]
    assert_problem(hooked.patch(path, json={"url": "ftp://x"}), 422, "webhook-destination-refused")
    assert_problem(hooked.patch(path, json={"scope": None}), 422)
    assert [h["id"] for h in hooked.get("/v1/webhooks").json()] == [hook["id"]]
    assert hooked.delete(path).status_code == 204
    assert_problem(hooked.get(path), 404)


def test_two_changes_from_one_version_one_lands(hooked, receiver):
    """Two clients read version 1 and both send a change with If-Match "1": one lands, the other is told to
    re-read (412 or 409), never both (the compare-and-set on the subscription's version)."""
    hook = subscribe(hooked, receiver.url)
    path = f"/v1/webhooks/{hook['id']}"
    barrier = threading.Barrier(2)

    def change(description: str) -> int:
        barrier.wait()
        return hooked.patch(path, json={"description": description}, headers={"If-Match": '"1"'}).status_code

    for _ in range(5):
        barrier.reset()
        with ThreadPoolExecutor(2) as pool:
            statuses = sorted(pool.map(change, ["first", "second"]))
        assert statuses[0] == 200 and statuses[1] in (409, 412), statuses
        now = hooked.get(path).json()
        assert now["version"] == 2 and now["description"] in ("first", "second")
        hook = subscribe(hooked, receiver.url)
        path = f"/v1/webhooks/{hook['id']}"


def test_a_retried_ping_with_its_key_sends_one_event(hooked, receiver):
    hook = subscribe(hooked, receiver.url)
    key = {"Idempotency-Key": "ping-once"}
    first = hooked.post(f"/v1/webhooks/{hook['id']}/ping", headers=key)
    again = hooked.post(f"/v1/webhooks/{hook['id']}/ping", headers=key)
    assert first.status_code == again.status_code == 202 and first.json()["id"] == again.json()["id"]
    assert hooked.get(f"/v1/webhooks/{hook['id']}/deliveries").json()["total"] == 1


def test_a_subscription_deleted_from_an_old_version_stays(hooked, receiver):
    hook = subscribe(hooked, receiver.url)
    path = f"/v1/webhooks/{hook['id']}"
    assert hooked.patch(path, json={"description": "moved on"}).status_code == 200
    assert_problem(hooked.delete(path, headers={"If-Match": '"1"'}), 412)
    assert hooked.get(path).json()["description"] == "moved on"
    assert hooked.delete(path, headers={"If-Match": '"2"'}).status_code == 204


def test_declarations_complete_waits_for_companions_not_for_hidden_ones(hooked, receiver):
    """Untimed (no deadline, no auto_resolve): the webhook's `declarations.complete` means what the table's
    clock means. Ala's player controls her wolf too, so Ala alone is not complete; a hidden reinforcement,
    which no player sees, is not waited for."""
    hook = subscribe(hooked, receiver.url, events=["declarations.complete"])
    url, (ala, bolek) = two_fighters(hooked)
    wolf = hooked.post(f"{url}/combatants", json=fighter("Wolf", companion_of=ala)).json()["id"]
    hidden = fighter("Cień", hidden=True, reveal_at_round=3)
    assert hooked.post(f"{url}/combatants", json=hidden).status_code == 201
    token = hooked.post(f"{url}/tokens", json={"role": "player", "combatant": ala}).json()["secret"]
    player = {"Authorization": f"Bearer {token}"}
    log = f"/v1/webhooks/{hook['id']}/deliveries"
    none = {"stance": "defensive", "action": {"type": "none"}}
    assert hooked.put(f"{url}/declarations/{ala}", json=none, headers=player).status_code == 201
    assert hooked.get(log).json()["total"] == 0  # written in the staging's transaction, if at all
    assert hooked.put(f"{url}/declarations/{wolf}", json=none, headers=player).status_code == 201
    assert [(d["type"], d["encounter"]) for d in hooked.get(log).json()["items"]] == [
        ("declarations.complete", url.rsplit("/", 1)[1])
    ]
    wait_for(lambda: receiver.received, "the event")
    (body,) = verified(hook["secret"], receiver)
    assert body["data"] == {"encounter": url.rsplit("/", 1)[1], "round": 1}
    assert hooked.delete(f"{url}/declarations/{wolf}", headers=player).status_code == 204
    assert hooked.put(f"{url}/declarations/{wolf}", json=none, headers=player).status_code == 201
    assert hooked.get(log).json()["total"] == 1  # once per round


def test_a_passed_deadline_is_a_declarations_due_event(hooked, hook_settings, receiver):
    """The table's clock (roles and timing): the deadline passing is announced to webhooks too, signed, with
    the round whose declarations were due."""
    from tests.api.test_deadlines import due_now, wake  # noqa: PLC0415 (the deadline tests' own clock helpers)

    hook = subscribe(hooked, receiver.url, events=["declarations.due"])
    made = hooked.post("/v1/encounters", json={"name": "T", "combatants": [fighter("Ala"), fighter("Bolek")],
                                               "declaration_seconds": 600})  # fmt: skip
    assert made.status_code == 201, made.text
    due_now(hook_settings, made.json()["id"])
    wake(hooked)
    wait_for(lambda: receiver.received, "declarations.due")
    (body,) = verified(hook["secret"], receiver)
    assert body["type"] == "declarations.due"
    assert body["data"]["encounter"] == made.json()["id"] and body["data"]["round"] == 1
