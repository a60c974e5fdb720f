"""Effects put on and taken off through the API (RULES.md section 12, CONTRACT.md): durations, expiry through
rounds, removal, versions, If-Match and Idempotency-Key. Every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

from tests.api.helpers import assert_problem, create_encounter, fighter
from tests.conftest import new_campaign_key

EFFECT_FIELDS = {"id", "name", "attack", "defense", "initiative", "blood_per_turn", "until_round"}


def _encounter(client, *fighters, **body):
    encounter = create_encounter(client, *(fighters or (fighter("Ala"), fighter("Bolek"))), **body)
    return f"/v1/encounters/{encounter['id']}", [c["id"] for c in encounter["combatants"]]


def _effects(client, url, cid):
    response = client.get(f"{url}/combatants/{cid}")
    assert response.status_code == 200
    return response.json()["effects"]


def _empty_round(client, url):
    response = client.post(f"{url}/rounds", json={"seed": 7})
    assert response.status_code == 201, response.text
    return response.json()


def test_an_effect_is_stored_named_and_located(client):
    url, (ala, _) = _encounter(client)
    version = client.get(url).headers["ETag"]
    body = {"name": "blessed", "attack": 3, "defense": -1, "initiative": 2, "blood_per_turn": -1, "rounds": 2}
    response = client.post(f"{url}/combatants/{ala}/effects", json=body)
    assert response.status_code == 201, response.text
    effect = response.json()
    assert set(effect) == EFFECT_FIELDS
    assert effect == {**{k: v for k, v in body.items() if k != "rounds"}, "id": effect["id"], "until_round": 2}
    assert response.headers["Location"] == f"{url}/combatants/{ala}/effects/{effect['id']}"
    assert response.headers["ETag"] == f'"{int(version.strip(chr(34))) + 1}"'
    assert client.get(url).headers["ETag"] == response.headers["ETag"]
    assert client.get(response.headers["Location"]).json() == effect
    assert _effects(client, url, ala) == [effect]


def test_durations_from_rounds_turns_or_none(client):
    url, (ala, _) = _encounter(client)
    post = lambda body: client.post(f"{url}/combatants/{ala}/effects", json={"name": "x", **body})  # noqa: E731
    assert post({"turns": 1}).json()["until_round"] == 10  # latest round 0, turn_length 10
    assert post({}).json()["until_round"] is None  # until removed
    _empty_round(client, url)
    _empty_round(client, url)
    assert post({"rounds": 1}).json()["until_round"] == 3
    assert post({"turns": 2}).json()["until_round"] == 22


def test_turns_follow_the_encounters_turn_length(client):
    url, (ala,) = _encounter(client, fighter("Ala"), rules={"turn_length": 4})
    response = client.post(f"{url}/combatants/{ala}/effects", json={"name": "slowed", "turns": 3})
    assert response.json()["until_round"] == 12


def test_bad_effects_are_refused_and_write_nothing(client):
    url, (ala, _) = _encounter(client)
    version = client.get(url).headers["ETag"]
    for body, pointer in (
        ({"name": "x", "rounds": 2, "turns": 1}, None),
        ({"name": "x", "rounds": 0}, "/rounds"),
        ({"name": "x", "rounds": 1001}, "/rounds"),
        ({"name": "x", "turns": 101}, "/turns"),
        ({"name": "", "rounds": 1}, "/name"),
        ({"name": "x", "attack": 101}, "/attack"),
        ({"name": "x", "blood_per_turn": "2"}, "/blood_per_turn"),
        ({"name": "x", "until_round": 5}, "/until_round"),  # the service computes it
        ({"attack": 1}, "/name"),
    ):
        problem = assert_problem(client.post(f"{url}/combatants/{ala}/effects", json=body), 422)
        if pointer is not None:
            assert pointer in [e["pointer"] for e in problem["errors"]], problem
    assert client.get(url).headers["ETag"] == version
    assert _effects(client, url, ala) == []


def test_unknown_encounter_combatant_or_effect_is_404(client):
    url, (ala, _) = _encounter(client)
    assert_problem(client.post("/v1/encounters/nope/combatants/x/effects", json={"name": "x"}), 404)
    assert_problem(client.post(f"{url}/combatants/nobody/effects", json={"name": "x"}), 404)
    assert_problem(client.delete(f"{url}/combatants/{ala}/effects/nothing"), 404)
    assert_problem(client.get(f"{url}/combatants/{ala}/effects/nothing"), 404)


def test_another_campaign_sees_no_such_encounter(client):
    url, (ala, _) = _encounter(client)
    effect = client.post(f"{url}/combatants/{ala}/effects", json={"name": "x"}).json()
    other = {"Authorization": f"Bearer {new_campaign_key(client, 'Other')}"}
    assert_problem(client.post(f"{url}/combatants/{ala}/effects", json={"name": "x"}, headers=other), 404)
    assert_problem(client.delete(f"{url}/combatants/{ala}/effects/{effect['id']}", headers=other), 404)
    assert _effects(client, url, ala) == [effect]


def test_removal(client):
    url, (ala, _) = _encounter(client)
    first = client.post(f"{url}/combatants/{ala}/effects", json={"name": "stunned", "rounds": 2}).json()
    second = client.post(f"{url}/combatants/{ala}/effects", json={"name": "poisoned"}).json()
    before = client.get(url).headers["ETag"]
    response = client.delete(f"{url}/combatants/{ala}/effects/{first['id']}")
    assert response.status_code == 204
    assert response.headers["ETag"] != before and client.get(url).headers["ETag"] == response.headers["ETag"]
    assert _effects(client, url, ala) == [second]
    assert_problem(client.delete(f"{url}/combatants/{ala}/effects/{first['id']}"), 404)
    assert client.get(url).headers["ETag"] == response.headers["ETag"], "a refused DELETE writes nothing"


def test_if_match(client):
    url, (ala, _) = _encounter(client)
    stale = client.get(url).headers["ETag"]
    effect = client.post(f"{url}/combatants/{ala}/effects", json={"name": "a"}, headers={"If-Match": stale}).json()
    assert_problem(client.post(f"{url}/combatants/{ala}/effects", json={"name": "b"}, headers={"If-Match": stale}), 412)
    assert_problem(client.delete(f"{url}/combatants/{ala}/effects/{effect['id']}", headers={"If-Match": stale}), 412)
    assert _effects(client, url, ala) == [effect]
    current = client.get(url).headers["ETag"]
    response = client.delete(f"{url}/combatants/{ala}/effects/{effect['id']}", headers={"If-Match": current})
    assert response.status_code == 204
    assert _effects(client, url, ala) == []


def test_idempotency_key_puts_one_effect_on_and_takes_it_off_once(client):
    url, (ala, _) = _encounter(client)
    key = {"Idempotency-Key": "effect-1"}
    first = client.post(f"{url}/combatants/{ala}/effects", json={"name": "warded", "rounds": 3}, headers=key)
    again = client.post(f"{url}/combatants/{ala}/effects", json={"name": "warded", "rounds": 3}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["ETag"] == first.headers["ETag"] == client.get(url).headers["ETag"]
    assert _effects(client, url, ala) == [first.json()]
    reused = client.post(f"{url}/combatants/{ala}/effects", json={"name": "other"}, headers=key)
    assert_problem(reused, 422, "idempotency-key-reused")

    delete_key = {"Idempotency-Key": "effect-1-off"}
    path = f"{url}/combatants/{ala}/effects/{first.json()['id']}"
    gone, gone_again = client.delete(path, headers=delete_key), client.delete(path, headers=delete_key)
    assert gone.status_code == gone_again.status_code == 204
    assert gone_again.headers["Idempotent-Replayed"] == "true" and gone_again.headers["ETag"] == gone.headers["ETag"]
    assert client.get(url).headers["ETag"] == gone.headers["ETag"], "the retry changed nothing"


def test_at_most_twenty_effects_through_the_endpoint(client):
    url, (ala, _) = _encounter(client)
    ids = {client.post(f"{url}/combatants/{ala}/effects", json={"name": f"e{i}"}).json()["id"] for i in range(20)}
    assert len(ids) == 20, "every effect has its own id"
    version = client.get(url).headers["ETag"]
    assert_problem(client.post(f"{url}/combatants/{ala}/effects", json={"name": "one more"}), 422)
    assert client.get(url).headers["ETag"] == version
    assert len(_effects(client, url, ala)) == 20


def test_an_effect_expires_at_the_end_of_its_last_round(client):
    url, (ala, bolek) = _encounter(client)
    short = client.post(f"{url}/combatants/{ala}/effects", json={"name": "stunned", "rounds": 1}).json()
    long = client.post(f"{url}/combatants/{ala}/effects", json={"name": "blessed", "rounds": 2}).json()
    poison = client.post(f"{url}/combatants/{bolek}/effects", json={"name": "poisoned"}).json()
    first = _empty_round(client, url)
    assert first["combatants"][0]["effects"] == [long], "stunned lasted round 1 only"
    assert first["combatants"][1]["effects"] == [poison]
    assert _effects(client, url, ala) == [long]
    second = _empty_round(client, url)
    assert second["combatants"][0]["effects"] == []
    assert _effects(client, url, bolek) == [poison], "an effect without duration stays"
    assert short["until_round"] == 1 and long["until_round"] == 2


def test_active_effects_count_in_the_round(client):
    """An effect's initiative moves its carrier's score (RULES.md section 5) on a stored encounter too."""
    url, (ala, bolek) = _encounter(client)
    client.post(f"{url}/combatants/{ala}/effects", json={"name": "hasted", "initiative": 7, "rounds": 1})
    body = {
        "declarations": [{"combatant": ala, "action": {"type": "custom", "name": "look", "delay": 0}}],
        "dice": {f"{ala}.initiative.1": 3},
    }
    action = client.post(f"{url}/rounds", json=body).json()["actions"][0]
    assert action["score"] == 20 + 7 - 0 - 3
