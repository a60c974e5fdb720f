"""Who may do what: every endpoint tried with no key, a wrong key, another campaign's key, a viewer token,
a player token and the owner's key, with the exact status of each."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

import pytest
from sqlalchemy import create_engine, inspect, text

from tests.api.helpers import assert_problem, fighter
from tests.conftest import new_campaign_key

ROLES = ("none", "wrong", "other", "viewer", "player", "owner")
RESOLVE_BODY = {"combatants": [{"id": "a", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"}]}


@dataclass
class World:
    encounter: str
    mine: str  # the player's combatant
    theirs: str  # another combatant
    spare_key: str  # a second owner key's id
    viewer_token: str  # the viewer token's id
    effect: str  # an effect on the player's combatant
    secrets: dict[str, str]


def build_world(client) -> World:
    owner = client.headers["Authorization"].removeprefix("Bearer ")
    encounter = client.post("/v1/encounters", json={"name": "E", "combatants": [fighter("A"), fighter("B")]}).json()
    url = f"/v1/encounters/{encounter['id']}"
    mine, theirs = (c["id"] for c in encounter["combatants"])
    assert client.post(f"{url}/rounds", json={}).status_code == 201
    effect = client.post(f"{url}/combatants/{mine}/effects", json={"name": "stunned", "rounds": 1}).json()
    viewer = client.post(f"{url}/tokens", json={"role": "viewer"}).json()
    player = client.post(f"{url}/tokens", json={"role": "player", "combatant": mine}).json()
    spare = client.post("/v1/campaign/keys", json={"label": "spare"}).json()
    return World(encounter["id"], mine, theirs, spare["id"], viewer["id"], effect["id"], {
        "none": "", "wrong": "dzc_key_not-a-real-key", "other": new_campaign_key(client, "Other"),
        "viewer": viewer["secret"], "player": player["secret"], "owner": owner})


def _operations(w: World):
    e = f"/v1/encounters/{w.encounter}"
    #      method, path, body,                              none wrong other viewer player owner
    return [
        ("GET", "/v1/encounters", None, (401, 401, 200, 403, 403, 200)),
        ("POST", "/v1/encounters", {"name": "x"}, (401, 401, 201, 403, 403, 201)),
        ("GET", e, None, (401, 401, 404, 200, 200, 200)),
        ("PATCH", e, {"name": "y"}, (401, 401, 404, 403, 403, 200)),
        ("DELETE", e, None, (401, 401, 404, 403, 403, 204)),
        ("POST", f"{e}/combatants", fighter("C"), (401, 401, 404, 403, 403, 201)),
        ("GET", f"{e}/combatants/{w.mine}", None, (401, 401, 404, 200, 200, 200)),
        ("PATCH", f"{e}/combatants/{w.mine}", {"weapon_ready": False}, (401, 401, 404, 403, 200, 200)),
        ("PATCH", f"{e}/combatants/{w.mine}", {"vitality": 50}, (401, 401, 404, 403, 403, 200)),
        ("PATCH", f"{e}/combatants/{w.theirs}", {"weapon_ready": False}, (401, 401, 404, 403, 403, 200)),
        ("DELETE", f"{e}/combatants/{w.theirs}", None, (401, 401, 404, 403, 403, 204)),
        ("PATCH", f"{e}/combatants/{w.mine}", {"long_action": None}, (401, 401, 404, 403, 403, 200)),
        ("POST", f"{e}/combatants/{w.mine}/effects", {"name": "x"}, (401, 401, 404, 403, 403, 201)),
        ("GET", f"{e}/combatants/{w.mine}/effects/{w.effect}", None, (401, 401, 404, 200, 200, 200)),
        ("DELETE", f"{e}/combatants/{w.mine}/effects/{w.effect}", None, (401, 401, 404, 403, 403, 204)),
        ("POST", f"{e}/rounds", {}, (401, 401, 404, 403, 403, 201)),
        ("GET", f"{e}/rounds", None, (401, 401, 404, 200, 200, 200)),
        ("GET", f"{e}/rounds/1", None, (401, 401, 404, 200, 200, 200)),
        ("DELETE", f"{e}/rounds/1", None, (401, 401, 404, 403, 403, 204)),
        ("POST", f"{e}/tokens", {"role": "viewer"}, (401, 401, 404, 403, 403, 201)),
        ("GET", f"{e}/tokens", None, (401, 401, 404, 403, 403, 200)),
        ("DELETE", f"{e}/tokens/{w.viewer_token}", None, (401, 401, 404, 403, 403, 204)),
        ("GET", "/v1/campaign", None, (401, 401, 200, 403, 403, 200)),
        ("GET", "/v1/campaign/keys", None, (401, 401, 200, 403, 403, 200)),
        ("POST", "/v1/campaign/keys", {}, (401, 401, 201, 403, 403, 201)),
        ("DELETE", f"/v1/campaign/keys/{w.spare_key}", None, (401, 401, 404, 403, 403, 204)),
        ("POST", "/v1/resolve", RESOLVE_BODY, (200, 401, 200, 200, 200, 200)),
        ("GET", "/v1/rules", None, (200, 200, 200, 200, 200, 200)),
    ]


OPERATION_COUNT = 28


@pytest.mark.parametrize("index", range(OPERATION_COUNT))
def test_every_endpoint_for_every_caller(client, index):
    world = build_world(client)
    operations = _operations(world)
    assert len(operations) == OPERATION_COUNT
    method, path, body, expected = operations[index]
    for role, status in zip(ROLES, expected):  # the owner goes last: its call may delete what the others need
        headers = {"Authorization": f"Bearer {world.secrets[role]}" if world.secrets[role] else ""}
        response = client.request(method, path, json=body, headers=headers)
        assert response.status_code == status, f"{role} {method} {path}: {response.text}"
        if status == 401:
            assert_problem(response, 401, "unauthorized")
            assert response.headers["www-authenticate"].startswith("Bearer")
        elif status in (403, 404):
            assert_problem(response, status)


def test_another_campaigns_encounter_is_not_listed(client):
    world = build_world(client)
    other = {"Authorization": f"Bearer {world.secrets['other']}"}
    assert client.get("/v1/encounters", headers=other).json()["total"] == 0
    assert client.get("/v1/encounters").json()["total"] == 1


def test_rotation_and_revocation(client):
    first = client.headers["Authorization"]
    rotated = client.post("/v1/campaign/keys/rotate", json={"label": "new laptop"})
    assert rotated.status_code == 201
    new = {"Authorization": f"Bearer {rotated.json()['secret']}"}
    assert_problem(client.get("/v1/campaign", headers={"Authorization": first}), 401)
    assert client.get("/v1/campaign", headers=new).status_code == 200
    keys = client.get("/v1/campaign/keys", headers=new).json()
    assert [k["revoked_at"] is None for k in keys] == [False, True]
    assert all("secret" not in k for k in keys)
    last = assert_problem(client.delete(f"/v1/campaign/keys/{rotated.json()['id']}", headers=new), 409)
    assert "last key" in last["detail"]


def test_revoked_token_stops_working(client):
    world = build_world(client)
    viewer = {"Authorization": f"Bearer {world.secrets['viewer']}"}
    assert client.get(f"/v1/encounters/{world.encounter}", headers=viewer).status_code == 200
    assert client.delete(f"/v1/encounters/{world.encounter}/tokens/{world.viewer_token}").status_code == 204
    assert_problem(client.get(f"/v1/encounters/{world.encounter}", headers=viewer), 401)


def test_a_player_token_needs_a_combatant_of_its_encounter(client):
    world = build_world(client)
    url = f"/v1/encounters/{world.encounter}/tokens"
    assert_problem(client.post(url, json={"role": "player"}), 422)
    assert_problem(client.post(url, json={"role": "player", "combatant": "nobody"}), 422)
    assert_problem(client.post(url, json={"role": "viewer", "combatant": world.mine}), 422)


def test_malformed_authorization_is_401(client):
    for value in ("Basic dXNlcjpwYXNz", "Bearer", "dzc_key_x"):
        response = client.get("/v1/campaign", headers={"Authorization": value})
        assert_problem(response, 401, "unauthorized")


def test_a_database_dump_holds_no_key_or_token(client, settings):
    world = build_world(client)
    secrets = [s for s in world.secrets.values() if s.startswith("dzc_") and "not-a-real" not in s]
    assert len(secrets) == 4
    engine = create_engine(settings.database_url)
    dump = []
    with engine.connect() as connection:
        for table in inspect(engine).get_table_names():
            dump += [repr(tuple(row)) for row in connection.execute(text(f"SELECT * FROM {table}"))]
    engine.dispose()
    if settings.is_sqlite:
        path = settings.database_url.split("///", 1)[1]
        dump += [open(path, "rb").read().decode("latin-1")]
        dump += [open(path + "-wal", "rb").read().decode("latin-1")] if _exists(path + "-wal") else []
    else:
        url = settings.database_url.replace("postgresql+psycopg", "postgresql")
        try:
            dump += [subprocess.run(["pg_dump", url], capture_output=True, text=True, check=True).stdout]
        except FileNotFoundError:
            pass  # no pg_dump here: the table scan above still covers every row
    joined = "\n".join(dump)
    assert world.encounter in joined, "the dump is real"
    for secret in secrets:
        assert secret not in joined and secret.split("_", 2)[2] not in joined


def _exists(path: str) -> bool:
    import os
    return os.path.exists(path)


def test_rate_limit_per_key_is_429_with_retry_after(client):
    client.app.state.settings.rate_limit_per_key_per_minute = 3
    statuses = [client.get("/v1/campaign").status_code for _ in range(5)]
    assert statuses[:3] == [200, 200, 200] and statuses[3:] == [429, 429]
    limited = assert_problem(client.get("/v1/campaign"), 429, "too-many-requests")
    assert 1 <= int(client.get("/v1/campaign").headers["retry-after"]) <= 60 and limited["detail"]


def test_campaign_creation_is_limited_per_address(client):
    client.app.state.settings.campaigns_per_address_per_hour = 2
    made = [client.post("/v1/campaigns", json={"name": f"c{i}"}, headers={"Authorization": ""}).status_code
            for i in range(3)]
    assert made[-1] == 429  # the fixture's campaign used one of the two
