"""Idempotency-Key on every POST: replay, mismatch, in progress, malformed, purge, atomic with the round."""

from datetime import timedelta

import pytest

from app.idempotency import keys as idempotency
from app.idempotency.purge import purge_once
from app.idempotency.tables import IDEMPOTENCY_KEYS
from app.platform.db import utcnow
from tests.api.helpers import assert_problem, attack, fighter


def _round_body(ids):
    return {"declarations": [attack(ids[0], ids[1])]}  # no seed: a second resolution would differ


def test_retry_returns_the_first_answer_and_resolves_nothing(client, fight):
    url, ids = fight
    first = client.post(f"{url}/rounds", json=_round_body(ids), headers={"Idempotency-Key": "round-1-abc"})
    retry = client.post(f"{url}/rounds", json=_round_body(ids), headers={"Idempotency-Key": "round-1-abc"})
    assert first.status_code == retry.status_code == 201
    assert retry.content == first.content and retry.headers["etag"] == first.headers["etag"]
    assert retry.headers["idempotent-replayed"] == "true"
    assert client.get(f"{url}/rounds").json()["total"] == 1


def test_every_post_honours_the_key(client, fight):
    url, ids = fight
    for path, body in (("/v1/encounters", {"name": "x"}),
                       (f"{url}/combatants", fighter("Czarek")),
                       ("/v1/resolve", {"combatants": [{"id": "a", "initiative": 1, "attack": 1, "defense": 1,
                                                        "weapon": "dagger"}],
                                        "declarations": [{"combatant": "a", "action": {"type": "custom",
                                                                                      "name": "pray", "delay": 1}}]})):
        first = client.post(path, json=body, headers={"Idempotency-Key": f"k-{path}"})
        again = client.post(path, json=body, headers={"Idempotency-Key": f"k-{path}"})
        assert first.status_code in (200, 201) and again.content == first.content, path
    assert client.get("/v1/encounters").json()["total"] == 2
    assert len(client.get(url).json()["combatants"]) == 4


def test_same_key_with_another_body_is_422(client, fight):
    url, ids = fight
    client.post(f"{url}/rounds", json=_round_body(ids), headers={"Idempotency-Key": "k1"})
    other = client.post(f"{url}/rounds", json={"declarations": []}, headers={"Idempotency-Key": "k1"})
    assert_problem(other, 422, "idempotency-key-reused")
    assert client.get(f"{url}/rounds").json()["total"] == 1


def test_key_order_and_spacing_do_not_make_another_request(client, fight):
    url, ids = fight
    body = '{"declarations": [], "seed": 5}'
    reordered = '{"seed":5,"declarations":[]}'
    headers = {"Idempotency-Key": "k2", "content-type": "application/json"}
    first = client.post(f"{url}/rounds", content=body, headers=headers)
    assert client.post(f"{url}/rounds", content=reordered, headers=headers).content == first.content


def _scope(client):
    return f"campaign:{client.get('/v1/campaign').json()['id']}"


def _stored_key(session, scope, key):
    keys = IDEMPOTENCY_KEYS.c
    return session.execute(IDEMPOTENCY_KEYS.select().where(keys.scope == scope, keys.key == key)).first()


def _insert_key(client, sessions, key, fingerprint, locked_ago):
    with sessions() as session, session.begin():
        session.execute(IDEMPOTENCY_KEYS.insert().values(
            scope=_scope(client), key=key, fingerprint=fingerprint, state="in_progress",
            lease="someone-else", locked_at=utcnow() - locked_ago, created_at=utcnow() - locked_ago))


def test_retry_while_the_first_still_runs_is_409_and_a_dead_workers_key_is_taken_over(client, fight, inspect_database):
    url, ids = fight
    body = b'{"declarations":[]}'
    request_print = idempotency.fingerprint("POST", f"{url}/rounds", body)
    headers = {"content-type": "application/json"}
    _insert_key(client, inspect_database, "running", request_print, timedelta(seconds=1))
    response = client.post(f"{url}/rounds", content=body, headers={**headers, "Idempotency-Key": "running"})
    assert_problem(response, 409, "idempotency-key-in-use")
    assert response.headers["retry-after"]
    _insert_key(client, inspect_database, "orphaned", request_print, timedelta(minutes=5))
    taken = client.post(f"{url}/rounds", content=body, headers={**headers, "Idempotency-Key": "orphaned"})
    assert taken.status_code == 201
    assert client.get(f"{url}/rounds").json()["total"] == 1


@pytest.mark.parametrize("key", ["", "has space", "x" * 256, "zażółć"])
def test_malformed_key_is_400_and_changes_nothing(client, fight, key):
    url, ids = fight
    response = client.post(f"{url}/rounds", json={"declarations": []},
                           headers={"Idempotency-Key": key.encode("utf-8")})
    assert_problem(response, 400, "malformed-idempotency-key")
    assert client.get(f"{url}/rounds").json()["total"] == 0


def test_a_refused_request_frees_its_key(client, fight):
    url, ids = fight
    bad = client.post(f"{url}/rounds", json={"declarations": [attack(ids[0], ids[0])]},
                      headers={"Idempotency-Key": "k3"})
    assert_problem(bad, 422)
    good = client.post(f"{url}/rounds", json={"declarations": []}, headers={"Idempotency-Key": "k3"})
    assert good.status_code == 201


def test_the_key_and_the_round_commit_together(client, fight, inspect_database, monkeypatch):
    url, ids = fight
    from app.http import command  # the runner records the key, in the round's transaction

    async def record_then_crash(session, claim, reply):
        await idempotency.record(session, claim, reply)
        raise RuntimeError("crash before commit")

    monkeypatch.setattr(command, "record", record_then_crash)
    crashed = client.post(f"{url}/rounds", json={"declarations": []}, headers={"Idempotency-Key": "k4"})
    assert_problem(crashed, 500)
    monkeypatch.undo()
    assert client.get(f"{url}/rounds").json()["total"] == 0
    with inspect_database() as session:
        assert _stored_key(session, _scope(client), "k4") is None
    assert client.post(f"{url}/rounds", json={"declarations": []},
                       headers={"Idempotency-Key": "k4"}).status_code == 201


def test_keys_are_kept_a_day_then_purged(client, fight, inspect_database):
    url, _ = fight
    client.post(f"{url}/rounds", json={"declarations": []}, headers={"Idempotency-Key": "fresh"})
    _insert_key(client, inspect_database, "stale", "x" * 64, timedelta(hours=25))
    assert client.portal.call(purge_once, client.app.state.database, client.app.state.settings) == 1
    with inspect_database() as session:
        assert _stored_key(session, _scope(client), "fresh") is not None
        assert _stored_key(session, _scope(client), "stale") is None
