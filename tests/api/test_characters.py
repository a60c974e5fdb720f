"""The roster: characters created, listed, read, changed and deleted, with bounds, ETags and who may."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from app.campaign.schemas import CharacterCreate, StatBlockUpdate
from app.encounters.schemas.encounter import CombatantCreate, CombatantUpdate
from tests.api.campaign_helpers import create, other_campaign, stat_block, viewer_headers
from tests.api.helpers import assert_problem

URL = "/v1/characters"


def test_create_read_list_update_delete(client):
    ala = create(client, URL, "Ala", wounds=[{"class": "moderate"}], armor="leather", notes="Owes the miller.")
    assert ala["side"] == "party" and ala["encounter"] is None and ala["version"] == 1
    assert ala["blood"] == 10 and ala["wounds"] == [{"class": "moderate", "penalty": 2, "bleed": 1}]
    assert ala["armor"] == "leather" and ala["notes"] == "Owes the miller."
    assert "effects" not in ala and "long_action" not in ala
    bolek = create(client, URL, "Bolek", side=None, weapon={"name": "rusty axe", "delay": 6, "damage": "1d8+1"})
    assert bolek["side"] is None and bolek["weapon"]["damage"] == "1d8+1"

    page = client.get(URL, params={"limit": 1}).json()
    assert page["total"] == 2 and page["limit"] == 1 and [c["id"] for c in page["items"]] == [ala["id"]]  # oldest first
    assert client.get(URL, params={"limit": 1, "offset": 1}).json()["items"][0]["id"] == bolek["id"]

    one = f"{URL}/{ala['id']}"
    read = client.get(one)
    assert read.status_code == 200 and read.json() == ala and read.headers["etag"] == '"1"'
    changed = client.patch(one, json={"vitality": 14, "weapon": "dagger", "group": "heroes"})
    assert changed.status_code == 200 and changed.headers["etag"] == '"2"'
    body = changed.json()
    assert body["version"] == 2 and body["vitality"] == 14 and body["blood"] == 14 and body["weapon"] == "dagger"
    assert body["group"] == "heroes" and body["armor"] == "leather" and body["notes"] == "Owes the miller."
    assert client.get(one).json() == body

    assert client.delete(one).status_code == 204
    assert_problem(client.get(one), 404, "not-found")
    assert client.get(URL).json()["total"] == 1


def test_hurt_character_keeps_its_blood_when_vitality_changes(client):
    ala = create(client, URL, blood=4)
    assert client.patch(f"{URL}/{ala['id']}", json={"vitality": 20}).json()["blood"] == 4


def test_etags_if_match_and_if_none_match(client):
    ala = create(client, URL)
    one = f"{URL}/{ala['id']}"
    not_modified = client.get(one, headers={"If-None-Match": '"1"'})
    assert not_modified.status_code == 304 and not_modified.headers["etag"] == '"1"' and not_modified.content == b""
    assert client.patch(one, json={"attack": 15}, headers={"If-Match": '"1"'}).status_code == 200
    assert client.get(one, headers={"If-None-Match": '"1"'}).status_code == 200
    assert_problem(client.patch(one, json={"attack": 16}, headers={"If-Match": '"1"'}), 412, "precondition-failed")
    assert_problem(client.delete(one, headers={"If-Match": '"1"'}), 412)
    assert client.get(one).json()["attack"] == 15
    assert client.delete(one, headers={"If-Match": '"2"'}).status_code == 204


def test_another_campaigns_character_is_not_found_nor_listed(client):
    ala = create(client, URL)
    theirs = other_campaign(client)
    one = f"{URL}/{ala['id']}"
    assert_problem(client.get(one, headers=theirs), 404)
    assert_problem(client.patch(one, json={"attack": 1}, headers=theirs), 404)
    assert_problem(client.delete(one, headers=theirs), 404)
    assert client.get(URL, headers=theirs).json()["total"] == 0
    assert client.get(one).status_code == 200


def test_viewer_and_player_tokens_are_refused(client):
    ala = create(client, URL)
    viewer = viewer_headers(client)
    for method, path, body in (("GET", URL, None), ("POST", URL, stat_block("X")), ("GET", f"{URL}/{ala['id']}", None),
                               ("PATCH", f"{URL}/{ala['id']}", {"attack": 1}), ("DELETE", f"{URL}/{ala['id']}", None)):
        assert_problem(client.request(method, path, json=body, headers=viewer), 403, "forbidden")
    assert client.get(f"{URL}/{ala['id']}").json()["version"] == 1


@pytest.mark.parametrize(("fields", "pointer", "type_"), [
    ({"weapon": "bazooka"}, "/weapon", "unknown-key"),
    ({"armor": "mithril"}, "/armor", "unknown-key"),
    ({"wounds": [{"class": "papercut"}]}, "/wounds/0/class", "invalid-round"),
    ({"name": "x" * 101}, "/name", "validation-error"),
    ({"notes": "x" * 2001}, "/notes", "validation-error"),
    ({"group": ""}, "/group", "validation-error"),
    ({"initiative": 101}, "/initiative", "validation-error"),
    ({"effects": []}, "/effects", "validation-error"),
])
def test_refusals_name_the_field_and_write_nothing(client, fields, pointer, type_):
    body = assert_problem(client.post(URL, json={**stat_block("Ala"), **fields}), 422, type_)
    assert pointer in [e["pointer"] for e in body["errors"]], body
    assert client.get(URL).json()["total"] == 0


def test_a_change_is_checked_too(client):
    ala = create(client, URL)
    one = f"{URL}/{ala['id']}"
    body = assert_problem(client.patch(one, json={"weapon": "bazooka"}), 422, "unknown-key")
    assert body["errors"][0]["pointer"] == "/weapon"
    body = assert_problem(client.patch(one, json={"initiative": None}), 422, "validation-error")
    assert body["errors"][0]["pointer"] == "/initiative"
    assert client.patch(one, json={"side": None, "blood": None}).json()["side"] is None
    assert client.get(one).json()["version"] == 2


def test_an_idempotent_create_retried_gives_the_same_answer_and_one_character(client):
    headers = {"Idempotency-Key": "ala-1"}
    first = client.post(URL, json=stat_block("Ala"), headers=headers)
    again = client.post(URL, json=stat_block("Ala"), headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.content == first.content and again.headers["location"] == first.headers["location"]
    assert again.headers["idempotent-replayed"] == "true"
    assert client.get(URL).json()["total"] == 1


def test_a_character_in_a_fight_cannot_be_deleted(client, inspect_database):
    ala = create(client, URL)
    encounter = client.post("/v1/encounters", json={"name": "Ford"}).json()
    with inspect_database() as session, session.begin():  # what joining a fight does (app/encounters)
        session.execute(text("UPDATE characters SET encounter_id = :e, version = version + 1 WHERE id = :c"),
                        {"e": encounter["id"], "c": ala["id"]})
    one = f"{URL}/{ala['id']}"
    assert client.get(one).json()["encounter"] == encounter["id"]
    body = assert_problem(client.delete(one), 409, "character-busy")
    assert body["encounter"] == encounter["id"] and encounter["id"] in body["detail"]
    assert client.get(one).status_code == 200


def test_the_stat_block_fields_are_the_combatants():
    """One concept, one declaration: a field shared with a combatant has the combatant's schema."""
    for ours, theirs in ((CharacterCreate, CombatantCreate), (StatBlockUpdate, CombatantUpdate)):
        mine, combatant = ours.model_json_schema()["properties"], theirs.model_json_schema()["properties"]
        shared = set(mine) & set(combatant) - {"side", "name"}
        assert shared >= {"initiative", "weapon", "armor", "wounds", "blood", "status", "vitality"}
        for name in shared:
            assert mine[name] == combatant[name] or mine[name].get("anyOf") == combatant[name].get("anyOf"), name
    # a combatant's place at this table (hidden, whose companion, when it arrives) is not the roster's
    table_only = {"effects", "long_action", "hidden", "companion_of", "reveal_at_round"}
    expected = set(CombatantCreate.model_fields) - table_only | {"notes"}
    assert set(CharacterCreate.model_fields) == expected
