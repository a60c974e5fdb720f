"""Roles and timing in the campaign document: companions, reinforcements (their arrival replayed, and undone
after an import as before it) and the declaration deadline go out and come back (export, import, export);
a document whose companion names no one it may is refused; a gm key cannot export."""

from __future__ import annotations

from tests.api.helpers import assert_problem, create_encounter, fighter
from tests.api.portability_helpers import comparable, export, import_document
from tests.conftest import empty_tables


def roles_campaign(client) -> dict:
    fight = create_encounter(client, fighter("Ala", vitality=40), fighter("Bolek", vitality=40),
                             declaration_seconds=120, auto_resolve=True)
    url = f"/v1/encounters/{fight['id']}"
    ala, bolek = (c["id"] for c in fight["combatants"])
    wolf = client.post(f"{url}/combatants", json=fighter("Wolf", vitality=40, companion_of=ala)).json()["id"]
    bandit = client.post(f"{url}/combatants", json=fighter("Zbój", vitality=40, hidden=True,
                                                          reveal_at_round=2)).json()["id"]
    none = {"stance": "defensive", "action": {"type": "none"}}
    assert client.post(f"{url}/rounds", json={"seed": 1, "declarations": [
        {"combatant": cid, **none} for cid in (ala, bolek, wolf, bandit)]}).status_code == 201
    assert client.post(f"{url}/rounds", json={"seed": 2, "declarations": [
        {"combatant": cid, **none} for cid in (ala, bolek, wolf, bandit)]}).status_code == 201
    assert client.put(f"{url}/declarations/{wolf}", json=none).status_code == 201
    return {"url": url, "wolf": wolf, "bandit": bandit, "ala": ala}


def test_roles_and_timing_round_trip_and_undo_after_import_hides_the_reinforcement(client, settings):
    ids = roles_campaign(client)
    first = export(client)
    encounter = first["encounters"][0]
    assert encounter["declaration_seconds"] == 120 and encounter["auto_resolve"] is True
    assert encounter["declarations_due_at"] is not None
    by_id = {c["id"]: c for c in encounter["combatants"]}
    assert by_id[ids["wolf"]]["companion_of"] == ids["ala"]
    assert by_id[ids["bandit"]]["hidden"] is False and by_id[ids["bandit"]]["reveal_at_round"] is None
    empty_tables(settings.database_url)
    imported = import_document(client, first)
    assert imported.status_code == 201, imported.text
    key = {"Authorization": f"Bearer {imported.json()['key']['secret']}"}
    assert comparable(client.get("/v1/campaign/export", headers=key).json()) == comparable(first)
    assert client.delete(f"{ids['url']}/rounds/2", headers=key).status_code == 204
    bandit = client.get(f"{ids['url']}/combatants/{ids['bandit']}", headers=key).json()
    assert bandit["hidden"] is True and bandit["reveal_at_round"] == 2


def test_a_document_with_a_bad_companion_is_refused(client, settings):
    ids = roles_campaign(client)
    document = export(client)
    empty_tables(settings.database_url)
    for bad in (ids["wolf"], "no-such-combatant"):
        tampered = {**document, "encounters": [dict(document["encounters"][0])]}
        tampered["encounters"][0]["combatants"] = [
            {**c, "companion_of": bad} if c["id"] == ids["wolf"] else c for c in document["encounters"][0]["combatants"]
        ]
        assert_problem(import_document(client, tampered), 422)


def test_a_gm_key_cannot_export(client):
    gm = client.post("/v1/campaign/keys", json={"role": "gm"}).json()["secret"]
    assert_problem(client.get("/v1/campaign/export", headers={"Authorization": f"Bearer {gm}"}), 403, "forbidden")
