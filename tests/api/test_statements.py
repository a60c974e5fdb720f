"""The statements each hot endpoint sends, pinned per database: a statement added to a hot path fails here.

Each list is what the request costs, in order, transaction control included (tests/api/statements.py).
A change that needs one more statement updates the list, and says why in the comment beside it.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.api.helpers import attack, start_fight
from tests.api.statements import label, statements_sent
from tests.conftest import new_campaign_key


def _dialect(client) -> str:
    return client.app.state.database.engine.dialect.name


def _sent(client, call) -> tuple[int, list[str]]:
    with statements_sent(client.app) as sent:
        response = call()
    return response.status_code, sent


def _expected(client, statements: list[str], notifying: str = "") -> list[str]:
    """The statements on this database: on PostgreSQL the one named `notifying` also sends the request's
    notices ("+ notify", pg_notify in its RETURNING); SQLite hands them to the worker's hub in memory at
    commit. Statements marked "pg:" are sent on PostgreSQL only."""
    postgres = _dialect(client) == "postgresql"
    return [
        s.removeprefix("pg:") + (" + notify" if postgres and s == notifying else "")
        for s in statements
        if postgres or not s.startswith("pg:")
    ]


def test_the_labels_name_verb_and_table():
    notifying = "INSERT INTO rounds (a) VALUES ($1) RETURNING (SELECT count(pg_notify(...)))"
    assert label(notifying) == "insert rounds + notify"
    assert label("UPDATE combatants SET a=? WHERE combatants.id = ?", True) == "update combatants ×many"
    assert label("SELECT encounters.id AS encounter__id FROM encounters LEFT JOIN combatants") == "select encounters"
    assert label("SELECT pg_notify($1::VARCHAR, $2) AS pg_notify_1") == "notify"
    assert label("SELECT (SELECT count(pg_notify($1, payload)) FROM unnest($2) AS payload) AS notified") == "notify"
    assert label('INSERT INTO idempotency_keys (scope, "key") VALUES (?, ?)') == "insert idempotency_keys"


# The round's writes. SQLite: one statement each, in the round's transaction. PostgreSQL: one statement on
# the driver (store/round_writes.py), whose CTEs do them in this order, all of them only if the first, the
# compare-and-set of the version and the staging counter, found the row; + the round's notices.
ROUND_WRITES = [
    "update encounters",  # the compare-and-set, with the new round number; holds the row
    "delete staged_declarations",  # every staged one the snapshot had, taken, used or overridden
    "insert rounds",  # the round's document and the states before and after it
    "update combatants ×many",  # each combatant's new state
]
ONE_ROUND_STATEMENT = "with update encounters, insert rounds, update combatants, delete staged_declarations + notify"


def _round(client, recorded: tuple[str, ...] = (), kept: tuple[str, ...] = ()) -> list[str]:
    """A round's statements on this database: `recorded` (the outbox's) follow the write that announces the
    round, `kept` (the Idempotency-Key's reply) the round's writes, all in its transaction."""
    postgres = _dialect(client) == "postgresql"
    recorded_ = _expected(client, list(recorded))
    if postgres:
        writes = [ONE_ROUND_STATEMENT, *recorded_]
    else:  # the round's INSERT announces it
        at = ROUND_WRITES.index("insert rounds") + 1
        writes = [*ROUND_WRITES[:at], *recorded_, *ROUND_WRITES[at:]]
    # the encounter, its combatants and the staged declarations, read before the transaction (a snapshot
    # by itself, on the lightest path): the compare-and-set proves nothing changed since
    return ["select encounters", "BEGIN", *writes, *kept, "COMMIT"]


def test_the_round_statement_is_labelled_by_its_writes():
    sql = (
        "WITH moved AS (UPDATE encounters SET version=$1 RETURNING encounters.id), stored AS (INSERT INTO rounds "
        "(a) SELECT moved.id FROM moved RETURNING rounds.number), taken AS (DELETE FROM staged_declarations USING "
        "moved RETURNING 1) SELECT (SELECT count(pg_notify('c', payload)) FROM moved, unnest($2) AS payload)"
    )
    assert label(sql) == "with update encounters, insert rounds, delete staged_declarations + notify"


def test_resolving_a_round(client, fight):
    url, ids = fight
    body = {"declarations": [attack(ids[0], ids[1])], "seed": 1}
    status, sent = _sent(client, lambda: client.post(f"{url}/rounds", json=body))
    assert status == 201
    assert sent == _round(client)


def test_resolving_a_round_with_a_webhook_subscription(settings):
    """The outbox's rows go in the round's transaction; the round's document is handed over by the round
    itself, never read back. (This worker only records: another would deliver.)"""
    recording = settings.model_copy(update={"webhook_allowed_networks": ["127.0.0.0/8"], "webhook_deliveries": False})
    with TestClient(create_app(recording), raise_server_exceptions=False) as client:
        client.headers["Authorization"] = f"Bearer {new_campaign_key(client)}"
        url, ids = start_fight(client)
        hook = {"url": "http://127.0.0.1:9/hook", "events": ["round.resolved"]}
        assert client.post("/v1/webhooks", json=hook).status_code == 201
        body = {"declarations": [attack(ids[0], ids[1])], "seed": 1}
        status, sent = _sent(client, lambda: client.post(f"{url}/rounds", json=body))
        assert status == 201
        # after the round's writes (pg: its one statement asks too whether anyone subscribed to this encounter)
        outbox = (
            "select encounters",  # the encounter's subscribers (SUBSCRIBERS: encounters joined to subscriptions)
            "insert webhook_events",  # one row per event and subscription
            "pg:notify",  # the dispatcher woken at commit
        )
        assert sent == _round(client, recorded=outbox)


def test_resolving_a_round_with_staged_declarations(client, fight):
    url, ids = fight
    for cid in ids[:2]:
        assert client.put(f"{url}/declarations/{cid}", json={"stance": "defensive"}).status_code == 201
    status, sent = _sent(client, lambda: client.post(f"{url}/rounds", json={"seed": 1}))
    assert status == 201
    assert sent == _round(client)  # pg: the notices of the round and of the two declarations it took, in one


def test_resolving_a_round_with_an_idempotency_key(client, fight):
    url, ids = fight
    headers = {"Idempotency-Key": "round-1"}
    status, sent = _sent(client, lambda: client.post(f"{url}/rounds", json={"seed": 1}, headers=headers))
    assert status == 201
    # the key's claim, before the work, committed by itself; the reply, kept with the key in the round's transaction
    assert sent == ["insert idempotency_keys", *_round(client, kept=("update idempotency_keys",))]
    status, sent = _sent(client, lambda: client.post(f"{url}/rounds", json={"seed": 1}, headers=headers))
    assert status == 201
    assert sent == ["insert idempotency_keys", "select idempotency_keys"]  # a replay: the claim refused, the reply read


def test_reading_an_encounter(client, fight):
    url, _ = fight
    status, sent = _sent(client, lambda: client.get(url))
    assert status == 200
    assert sent == ["select encounters"]  # one statement, autocommitted: the encounter with its combatants


def test_reading_a_round(client, fight):
    url, _ = fight
    assert client.post(f"{url}/rounds", json={"seed": 1}).status_code == 201
    status, sent = _sent(client, lambda: client.get(f"{url}/rounds/1"))
    assert status == 200
    assert sent == ["select rounds"]  # one statement: the round's document with the encounter's version (its ETag)


def test_undoing_a_round(client, fight):
    url, _ = fight
    assert client.post(f"{url}/rounds", json={"seed": 1}).status_code == 201
    status, sent = _sent(client, lambda: client.delete(f"{url}/rounds/1"))
    assert status == 204
    assert sent == _expected(client, [
        "BEGIN",
        "select encounters",  # the encounter and its combatants
        "update encounters",  # the compare-and-set: round, version, and the next position read from the round
        "delete staged_declarations",  # staged after the round, knowing its outcome
        "delete rounds",  # RETURNING the state before it; pg: + the notices of the undo and the withdrawals
        "update combatants ×many",  # each combatant as it was
        "COMMIT",
    ], notifying="delete rounds")


@pytest.mark.parametrize("again", [False, True], ids=["new", "replacing"])
def test_staging_a_declaration(client, fight, again):
    url, ids = fight
    if again:
        assert client.put(f"{url}/declarations/{ids[0]}", json={"stance": "offensive"}).status_code == 201
    status, sent = _sent(client, lambda: client.put(f"{url}/declarations/{ids[0]}", json={"stance": "defensive"}))
    assert status == (200 if again else 201)
    assert sent == _expected(client, [
        "BEGIN",
        "select encounters",  # the encounter and its combatants, to check the declaration against
        "update encounters",  # holds the encounter's row: no round slips between the check and the write
        "delete staged_declarations",  # the one it replaces, if any (its row count says 200 or 201)
        "insert staged_declarations",  # pg: + the notice that the combatant declared
        "COMMIT",
    ], notifying="insert staged_declarations")


def test_reading_a_character(client):
    created = client.post("/v1/characters", json={"name": "Ala", "initiative": 20, "attack": 14, "defense": 4,
                                                   "weapon": "long_sword"})
    assert created.status_code == 201, created.text
    status, sent = _sent(client, lambda: client.get(f"/v1/characters/{created.json()['id']}"))
    assert status == 200
    assert sent == ["select characters"]  # one statement, autocommitted: the character's row
