"""GET /v1/campaign/export and POST /v1/campaigns/import (CONTRACT.md, "Saved fights and portability")."""

from __future__ import annotations

import copy

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.config import Settings
from app.main import create_app
from tests.api.helpers import assert_problem, attack, create_encounter, fighter
from tests.api.portability_helpers import build_campaign, comparable, export, import_document
from tests.conftest import POSTGRES_URL, REDIS_URL, empty_tables, ensure_postgres_database, migrate, reset_schema


def owner(client: TestClient, key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_the_export_holds_everything_but_secrets(client):
    ids = build_campaign(client)
    keys = client.get("/v1/campaign/keys").json()
    document = export(client)
    assert document["format"] == "dziedzictwo-cieni.campaign" and document["format_version"] == 1
    assert document["campaign"]["rules"] == {"delay_die": 8}
    assert [c["name"] for c in document["characters"]] == ["Ala", "Ola"]
    assert [c["name"] for c in document["creatures"]] == ["Goblin"]
    finished, fight = document["encounters"]
    assert [finished["id"], fight["id"]] == [ids["finished"], ids["fight"]]
    assert finished["finished_at"] and finished["finish_state"]["characters"]
    assert [r["number"] for r in fight["rounds"]] == [1, 2, 3, 4]
    assert set(fight["rounds"][0]) == {"number", "request", "document", "state_before", "state_after", "created_at"}
    assert fight["rounds"][2]["request"].get("seed") is None and fight["rounds"][2]["document"]["seed"]
    assert fight["staged"][0]["combatant_id"] == ids["staged"]
    assert fight["combatants"][1]["effects"][0]["name"] == "poisoned"
    assert document["characters"][1]["encounter_id"] == ids["fight"]
    for round_ in fight["rounds"]:
        assert round_["document"] == client.get(f"/v1/encounters/{fight['id']}/rounds/{round_['number']}").json()
    text_ = client.get("/v1/campaign/export").text
    assert "updated_at" not in text_ and "secret" not in text_ and "dzc_" not in text_
    for key in keys:
        assert key["id"] not in text_


def test_the_export_needs_the_owner_key(client, fight):
    token = client.post(f"{fight.url}/tokens", json={"role": "viewer"}).json()["secret"]
    assert_problem(client.get("/v1/campaign/export", headers=owner(client, token)), 403)
    assert_problem(client.get("/v1/campaign/export", headers={"Authorization": ""}), 401)


def test_export_import_export_round_trips_on_one_database(client, settings):
    ids = build_campaign(client)
    first = export(client)
    before = play_on(client, client.headers["Authorization"].removeprefix("Bearer "), ids)
    # The same ids cannot live twice in one service: empty it, then the document comes in again.
    empty_tables(settings.database_url)
    imported = import_document(client, first)
    assert imported.status_code == 201, imported.text
    created = imported.json()
    assert created["id"] != first["campaign"]["id"] and created["key"]["secret"].startswith("dzc_key_")
    assert imported.headers["location"] == "/v1/campaign"
    assert {k: created[k] for k in ("name", "rules", "version")} == {
        k: first["campaign"][k] for k in ("name", "rules", "version")}
    assert comparable(export_with(client, created["key"]["secret"])) == comparable(first)
    assert play_on(client, created["key"]["secret"], ids) == before


def export_with(client: TestClient, key: str) -> dict:
    response = client.get("/v1/campaign/export", headers=owner(client, key))
    assert response.status_code == 200, response.text
    return response.json()


def second_app_settings(kind: str, tmp_path) -> Settings:
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'other.db'}"
    else:
        url = f"{POSTGRES_URL}_other"
        ensure_postgres_database(url)
        reset_schema(url)
    migrate(url)
    empty_tables(url)
    return Settings(database_url=url, campaigns_per_address_per_hour=1000, rate_limit_storage=REDIS_URL)


def play_on(client: TestClient, key: str, ids: dict) -> list:
    """Undo the latest round, resolve the next on a given seed, ask the odds: what each answers."""
    headers = owner(client, key)
    url = f"/v1/encounters/{ids['fight']}"
    fids = ids["fighters"]
    answers = [client.delete(f"{url}/rounds/4", headers=headers).status_code]
    body = {"declarations": [attack(fids[0], fids[2]), attack(fids[2], fids[0])], "seed": 77}
    answers.append(client.post(f"{url}/rounds", json=body, headers=headers).json())
    odds = client.post(f"{url}/odds", json={"fights": 20, "seed": 3}, headers=headers)
    answers.append((odds.status_code, odds.json()))
    encounter = client.get(url, headers=headers).json()
    answers.append({k: v for k, v in encounter.items() if k != "updated_at"})
    reopen = client.post(f"/v1/encounters/{ids['finished']}/reopen", headers=headers)
    answers.append((reopen.status_code, [c for c in reopen.json().get("combatants", [])]))
    roster = client.get("/v1/characters", headers=headers).json()
    answers.append([{k: v for k, v in c.items() if k != "updated_at"} for c in roster["items"]])
    return answers


@pytest.mark.parametrize("other", ["sqlite", "postgresql"])
def test_a_campaign_moves_between_databases_and_plays_on_alike(client, settings, other, tmp_path):
    ids = build_campaign(client)
    source_key = client.headers["Authorization"].removeprefix("Bearer ")
    first = export(client)
    with TestClient(create_app(second_app_settings(other, tmp_path)), raise_server_exceptions=False) as there:
        created = import_document(there, first)
        assert created.status_code == 201, created.text
        key = created.json()["key"]["secret"]
        moved = export_with(there, key)
        assert comparable(moved) == comparable(first)
        # ... and back again, into an emptied source
        empty_tables(settings.database_url)
        back = import_document(client, moved)
        assert back.status_code == 201, back.text
        back_key = back.json()["key"]["secret"]
        assert comparable(export_with(client, back_key)) == comparable(first)
        assert play_on(there, key, ids) == play_on(client, back_key, ids)
    del source_key


def fresh_copy(client: TestClient) -> dict:
    build_campaign(client)
    return export(client)


def count_campaigns(inspect_database) -> int:
    with inspect_database() as session:
        return session.execute(text("SELECT count(*) FROM campaigns")).scalar_one()


def test_a_tampered_round_document_is_refused_naming_it(client, inspect_database):
    document = fresh_copy(client)
    fight = document["encounters"][1]
    # The dice follow the combatants' ids, new each run: the last round with a rolled attack (round 1 has
    # one, both sides standing; later ones may not, if someone fell).
    rolled = [r["number"] for r in fight["rounds"] if any("roll" in a for a in r["document"]["actions"])]
    number = rolled[-1]
    tampered = copy.deepcopy(document)
    actions = tampered["encounters"][1]["rounds"][number - 1]["document"]["actions"]
    next(a for a in actions if "roll" in a)["roll"] += 1
    before = count_campaigns(inspect_database)
    problem = assert_problem(import_document(client, tampered), 422, "round-not-replayed")
    assert problem["encounter"] == fight["id"] and problem["round"] == number
    assert fight["id"] in problem["detail"] and f"Round {number}" in problem["detail"]
    assert count_campaigns(inspect_database) == before


def test_a_tampered_state_before_is_refused_before_the_ids(client, inspect_database):
    document = fresh_copy(client)  # its ids exist here too: the 422 comes first
    tampered = copy.deepcopy(document)
    tampered["encounters"][1]["rounds"][0]["state_before"]["combatants"][1]["attack"] += 5
    before = count_campaigns(inspect_database)
    problem = assert_problem(import_document(client, tampered), 422, "round-not-replayed")
    assert problem["round"] == 1
    assert count_campaigns(inspect_database) == before


@pytest.mark.parametrize("version", [2, 0, "1", None])
def test_an_unknown_format_version_is_refused(client, version):
    document = fresh_copy(client)
    document["format_version"] = version
    body = assert_problem(import_document(client, document), 422, "validation-error")
    assert any(e["pointer"] == "/format_version" for e in body["errors"])


def test_floats_unknown_fields_and_duplicate_ids_inside_are_refused(client):
    document = fresh_copy(client)
    for change in (
        lambda d: d["encounters"][1]["combatants"][0].update(attack=14.0),
        lambda d: d["campaign"].update(key="x"),
        lambda d: d["encounters"][1]["combatants"][1].update(id=d["encounters"][1]["combatants"][0]["id"]),
        lambda d: d["encounters"][1]["rounds"].pop(),
    ):
        tampered = copy.deepcopy(document)
        change(tampered)
        assert_problem(import_document(client, tampered), 422, "validation-error")


def test_importing_the_same_document_twice_is_a_409_and_writes_nothing(client, settings, inspect_database):
    document = fresh_copy(client)
    empty_tables(settings.database_url)
    assert import_document(client, document).status_code == 201
    before = count_campaigns(inspect_database)
    problem = assert_problem(import_document(client, document), 409, "id-taken")
    assert problem["noun"] == "character" and problem["id"] in {c["id"] for c in document["characters"]}
    assert problem["id"] in problem["detail"]
    assert count_campaigns(inspect_database) == before


def test_a_document_over_the_import_limit_is_a_413(settings, inspect_database):
    small = settings.model_copy(update={"import_max_bytes": 2000})
    with TestClient(create_app(small), raise_server_exceptions=False) as client:
        created = client.post("/v1/campaigns", json={"name": "Big"}).json()
        client.headers["Authorization"] = f"Bearer {created['key']['secret']}"
        document = fresh_copy(client)
        before = count_campaigns(inspect_database)
        assert_problem(import_document(client, document), 413, "payload-too-large")
        assert count_campaigns(inspect_database) == before
        # the limit is the import's: other bodies keep the global one (64 KiB)
        assert client.post("/v1/campaigns", json={"name": "x" * 70_000}).status_code == 413


def test_the_import_limit_lets_a_document_past_the_global_body_limit(settings):
    small_bodies = settings.model_copy(update={"max_body_bytes": 1000})
    with TestClient(create_app(small_bodies), raise_server_exceptions=False) as client:
        created = client.post("/v1/campaigns", json={"name": "Big"}).json()
        client.headers["Authorization"] = f"Bearer {created['key']['secret']}"
        document = fresh_copy(client)
        empty_tables(settings.database_url)
        response = import_document(client, document)
        assert int(response.request.headers["content-length"]) > 1000
        assert response.status_code == 201, response.text


def test_the_import_shares_the_campaign_creation_bucket(settings):
    # In memory: this app's own counters (the bucket is the point here, not where it is kept)
    limited = settings.model_copy(update={"campaigns_per_address_per_hour": 2, "rate_limit_storage": "memory://"})
    with TestClient(create_app(limited), raise_server_exceptions=False) as client:
        created = client.post("/v1/campaigns", json={"name": "One"}).json()
        client.headers["Authorization"] = f"Bearer {created['key']['secret']}"
        document = export(client)
        assert import_document(client, document).status_code == 201
        assert_problem(import_document(client, document), 429)


def test_a_round_replays_under_the_rules_it_was_resolved_with(client):
    """Rules changed between rounds (PATCH) do not make the earlier rounds look tampered."""
    # Armor 50 deflects every blow (each is still rolled), so round 1 fells nobody whatever the dice (the
    # ids are random, and so are the dice a seed gives them): round 2 declares for both.
    sturdy = {"armor": 50, "vitality": 1000}
    encounter = create_encounter(client, fighter("Ala", **sturdy), fighter("Bolek", **sturdy))
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek = (c["id"] for c in encounter["combatants"])
    body = {"declarations": [attack(ala, bolek), attack(bolek, ala)], "seed": 11}
    assert client.post(f"{url}/rounds", json=body).status_code == 201
    changed = {"rules": {"delay_die": 4, "stances": {"offensive": {"attack": 5}}}}
    assert client.patch(url, json=changed).status_code == 200
    assert client.post(f"{url}/rounds", json={**body, "seed": 12}).status_code == 201
    document = export(client)
    client.delete(url)
    imported = import_document(client, document)
    assert imported.status_code == 201, imported.text
