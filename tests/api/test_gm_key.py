"""A second game master: a `gm` key plays every part of the game the owner key plays, and cannot make, rotate
or revoke keys, nor export the campaign (403). Every route is tried with a gm key, each in a fresh world."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.api.campaign_helpers import create
from tests.api.helpers import assert_problem, fighter


@dataclass
class World:
    encounter: str
    mine: str  # a combatant with an effect
    theirs: str
    effect: str
    character: str
    creature: str
    spare_key: str
    viewer_token: str
    gm: dict[str, str]  # the gm key's headers


def gm_headers(client) -> tuple[dict[str, str], dict]:
    made = client.post("/v1/campaign/keys", json={"role": "gm", "label": "co-GM"})
    assert made.status_code == 201, made.text
    key = made.json()
    assert key["role"] == "gm" and key["secret"].startswith("dzc_gm_")
    return {"Authorization": f"Bearer {key['secret']}"}, key


def build_world(client) -> World:
    character = create(client, "/v1/characters", "Hero")
    creature = create(client, "/v1/creatures", "Wolf")
    encounter = client.post("/v1/encounters", json={"name": "E", "combatants": [fighter("A"), fighter("B")]}).json()
    url = f"/v1/encounters/{encounter['id']}"
    mine, theirs = (c["id"] for c in encounter["combatants"])
    assert client.post(f"{url}/rounds", json={}).status_code == 201
    effect = client.post(f"{url}/combatants/{mine}/effects", json={"name": "stunned", "rounds": 1}).json()
    viewer = client.post(f"{url}/tokens", json={"role": "viewer"}).json()
    spare = client.post("/v1/campaign/keys", json={"label": "spare"}).json()
    gm, _ = gm_headers(client)
    return World(encounter["id"], mine, theirs, effect["id"], character["id"], creature["id"], spare["id"],
                 viewer["id"], gm)


def _operations(w: World):
    e = f"/v1/encounters/{w.encounter}"
    staged = {"stance": "offensive", "action": {"type": "attack", "targets": [w.theirs]}}
    return [
        # the game: encounters, combatants, effects, rounds, staging, tokens, the stream, odds, the page
        ("GET", "/v1/encounters", None, 200),
        ("POST", "/v1/encounters", {"name": "x"}, 201),
        ("GET", e, None, 200),
        ("PATCH", e, {"name": "y"}, 200),
        ("DELETE", e, None, 204),
        ("POST", f"{e}/copy", {}, 201),
        ("POST", f"{e}/finish", None, 200),
        ("POST", f"{e}/reopen", None, 409),  # past the access check: this fight is not finished
        ("POST", f"{e}/combatants", fighter("C"), 201),
        ("POST", f"{e}/combatants", {"character": w.character}, 201),
        ("POST", f"{e}/combatants", {"creature": w.creature, "count": 2}, 201),
        ("GET", f"{e}/combatants/{w.mine}", None, 200),
        ("PATCH", f"{e}/combatants/{w.mine}", {"vitality": 50, "hidden": True}, 200),
        ("DELETE", f"{e}/combatants/{w.theirs}", None, 204),
        ("POST", f"{e}/combatants/{w.mine}/effects", {"name": "x"}, 201),
        ("GET", f"{e}/combatants/{w.mine}/effects/{w.effect}", None, 200),
        ("DELETE", f"{e}/combatants/{w.mine}/effects/{w.effect}", None, 204),
        ("PUT", f"{e}/declarations/{w.mine}", staged, 201),
        ("GET", f"{e}/declarations", None, 200),
        ("POST", f"{e}/rounds", {}, 201),
        ("GET", f"{e}/rounds", None, 200),
        ("GET", f"{e}/rounds/1", None, 200),
        ("DELETE", f"{e}/rounds/1", None, 204),
        ("POST", f"{e}/tokens", {"role": "player", "combatant": w.mine}, 201),
        ("GET", f"{e}/tokens", None, 200),
        ("DELETE", f"{e}/tokens/{w.viewer_token}", None, 204),
        ("POST", f"{e}/stream-tickets", None, 201),
        ("POST", f"{e}/odds", {"fights": 20, "seed": 1}, 200),
        ("GET", f"/table/{w.encounter}/viewer", None, 200),
        # the roster, the bestiary, house rules
        ("GET", "/v1/characters", None, 200),
        ("POST", "/v1/characters", {"name": "Z", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"}, 201),
        ("GET", f"/v1/characters/{w.character}", None, 200),
        ("PATCH", f"/v1/characters/{w.character}", {"notes": "brave"}, 200),
        ("DELETE", f"/v1/characters/{w.character}", None, 204),
        ("POST", f"/v1/characters/{w.character}/tokens", {"label": "phone"}, 201),
        ("GET", "/v1/creatures", None, 200),
        ("POST", "/v1/creatures", {"name": "Z", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"}, 201),
        ("GET", f"/v1/creatures/{w.creature}", None, 200),
        ("PATCH", f"/v1/creatures/{w.creature}", {"attack": 3}, 200),
        ("DELETE", f"/v1/creatures/{w.creature}", None, 204),
        ("GET", "/v1/campaign", None, 200),
        ("PATCH", "/v1/campaign", {"rules": {"delay_die": 8}}, 200),
        # what only the owner key may do
        ("GET", "/v1/campaign/keys", None, 403),
        ("POST", "/v1/campaign/keys", {}, 403),
        ("POST", "/v1/campaign/keys", {"role": "gm"}, 403),
        ("POST", "/v1/campaign/keys/rotate", {}, 403),
        ("DELETE", f"/v1/campaign/keys/{w.spare_key}", None, 403),
        ("GET", "/v1/campaign/export", None, 403),
    ]


OPERATION_COUNT = 48


@pytest.mark.parametrize("index", range(OPERATION_COUNT))
def test_a_gm_key_plays_every_part_of_the_game_and_manages_no_key(client, index):
    world = build_world(client)
    operations = _operations(world)
    assert len(operations) == OPERATION_COUNT
    method, path, body, status = operations[index]
    response = client.request(method, path, json=body, headers=world.gm)
    if status == 403:
        problem = assert_problem(response, 403, "forbidden")
        assert "owner key" in problem["detail"]
    else:
        assert response.status_code == status, f"gm {method} {path}: {response.text}"


def test_a_refused_call_changes_nothing(client):
    gm, key = gm_headers(client)
    before = client.get("/v1/campaign/keys").json()
    assert_problem(client.post("/v1/campaign/keys/rotate", json={}, headers=gm), 403)
    assert_problem(client.delete(f"/v1/campaign/keys/{key['id']}", headers=gm), 403)
    assert client.get("/v1/campaign/keys").json() == before  # the gm key itself still active, nothing new
    assert client.get("/v1/campaign", headers=gm).status_code == 200


def test_a_gm_key_is_listed_and_revoked_like_any_key(client):
    gm, key = gm_headers(client)
    listed = {k["id"]: k for k in client.get("/v1/campaign/keys").json()}
    assert listed[key["id"]]["role"] == "gm" and "secret" not in listed[key["id"]]
    assert client.delete(f"/v1/campaign/keys/{key['id']}").status_code == 204
    assert_problem(client.get("/v1/encounters", headers=gm), 401, "unauthorized")


def test_a_gm_key_does_not_count_as_the_last_owner_key(client):
    gm_headers(client)
    owner = next(k for k in client.get("/v1/campaign/keys").json() if k["role"] == "owner")
    assert_problem(client.delete(f"/v1/campaign/keys/{owner['id']}"), 409)


def test_the_gm_sees_what_the_owner_sees(client):
    gm, _ = gm_headers(client)
    encounter = client.post("/v1/encounters", json={"name": "E", "combatants": [fighter("A"), fighter("B")]}).json()
    url = f"/v1/encounters/{encounter['id']}"
    hidden = encounter["combatants"][1]["id"]
    assert client.patch(f"{url}/combatants/{hidden}", json={"hidden": True}).status_code == 200
    read = client.get(url, headers=gm).json()
    assert [c["hidden"] for c in read["combatants"]] == [False, True]
    staged = {"stance": "defensive", "action": {"type": "none"}}
    assert client.put(f"{url}/declarations/{hidden}", json=staged, headers=gm).status_code == 201
    declarations = client.get(f"{url}/declarations", headers=gm).json()["declarations"]
    assert declarations[0]["stance"] == "defensive"
    assert client.get(f"/table/{encounter['id']}/viewer", headers=gm).json() == {"role": "gm", "combatant": None}


def test_an_unknown_key_role_is_refused(client):
    assert_problem(client.post("/v1/campaign/keys", json={"role": "viewer"}), 422)
    assert_problem(client.post("/v1/campaign/keys", json={"role": "admin"}), 422)
