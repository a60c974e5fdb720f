"""A combatant's side: stored, shown, changed with PATCH, and used by the encounter's odds."""

from __future__ import annotations

from tests.api.helpers import assert_problem, create_encounter, fighter


def test_side_is_stored_shown_and_changed(client):
    encounter = create_encounter(client, fighter("Ala", side="party"), fighter("Bolek"))
    ala, bolek = encounter["combatants"]
    assert (ala["side"], bolek["side"]) == ("party", None)
    base = f"/v1/encounters/{encounter['id']}/combatants"
    assert client.get(f"{base}/{ala['id']}").json()["side"] == "party"

    changed = client.patch(f"{base}/{bolek['id']}", json={"side": "bandits"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["side"] == "bandits"
    untouched = client.patch(f"{base}/{bolek['id']}", json={"attack": 12})
    assert untouched.json()["side"] == "bandits"
    cleared = client.patch(f"{base}/{ala['id']}", json={"side": None})
    assert cleared.json()["side"] is None
    read = client.get(f"/v1/encounters/{encounter['id']}").json()
    assert [c["side"] for c in read["combatants"]] == [None, "bandits"]

    added = client.post(base, json={**fighter("Cyryl"), "side": "bandits"})
    assert added.status_code == 201 and added.json()["side"] == "bandits"
    assert_problem(client.patch(f"{base}/{ala['id']}", json={"side": ""}), 422)
    assert_problem(client.patch(f"{base}/{ala['id']}", json={"side": "x" * 65}), 422)


def test_encounter_odds_group_combatants_by_side(client):
    encounter = create_encounter(
        client,
        fighter("Ala", side="party"),
        fighter("Bolek", side="party"),
        fighter("Cyryl", side="bandits", attack=8, defense=0),
    )
    response = client.post(f"/v1/encounters/{encounter['id']}/odds", json={"fights": 200, "seed": 1})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert [s["side"] for s in answer["sides"]] == ["party", "bandits"]
    assert answer["sides"][0]["wins"] > 0.9
    assert [c["side"] for c in answer["combatants"]] == ["party", "party", "bandits"]


def test_encounter_odds_start_from_the_encounter_state_and_next_round(client):
    encounter = create_encounter(client, fighter("Ala", side="party"), fighter("Bolek", side="bandits"))
    ala, bolek = (c["id"] for c in encounter["combatants"])
    client.patch(f"/v1/encounters/{encounter['id']}/combatants/{bolek}", json={"status": "unconscious", "blood": 0})
    answer = client.post(f"/v1/encounters/{encounter['id']}/odds", json={"fights": 50}).json()
    assert [(s["side"], s["wins"]) for s in answer["sides"]] == [("party", 1.0), ("bandits", 0.0)]
    assert answer["rounds"] == {"median": 0, "p90": 0}


def test_undo_keeps_the_sides_of_the_state_it_restores(client):
    encounter = create_encounter(client, fighter("Ala", side="party"), fighter("Bolek", side="bandits"))
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek = (c["id"] for c in encounter["combatants"])
    resolved = client.post(f"{url}/rounds", json={"declarations": [], "seed": 1})
    assert resolved.status_code == 201, resolved.text
    client.patch(f"{url}/combatants/{bolek}", json={"side": "party"})  # an edit after the round: undone with it
    assert client.delete(f"{url}/rounds/1").status_code == 204
    assert [(c["id"], c["side"]) for c in client.get(url).json()["combatants"]] == [(ala, "party"), (bolek, "bandits")]


def test_a_sideless_combatant_named_like_a_side_is_refused_not_merged(client):
    """Without a side a combatant fights alone under its id; if that id is also a side's name it would
    silently join that side, so the odds refuse and say which combatant needs a side."""
    duel = {"initiative": 10, "attack": 12, "defense": 4, "weapon": "long_sword"}
    body = {"fights": 10, "combatants": [{**duel, "id": "party"}, {**duel, "id": "ala", "side": "party"},
                                         {**duel, "id": "bolek", "side": "bandits"}]}
    refused = assert_problem(client.post("/v1/odds", json=body, headers={"Authorization": ""}), 422, "unprocessable")
    assert [e["pointer"] for e in refused["errors"]] == ["/combatants/0/side"]
    body["combatants"][0]["side"] = "loners"
    assert client.post("/v1/odds", json=body, headers={"Authorization": ""}).status_code == 200

    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"))
    ala, bolek = (c["id"] for c in encounter["combatants"])
    client.patch(f"/v1/encounters/{encounter['id']}/combatants/{bolek}", json={"side": ala})
    refused = assert_problem(client.post(f"/v1/encounters/{encounter['id']}/odds", json={"fights": 10}), 422)
    [error] = refused["errors"]
    assert (error["in"], error["pointer"]) == ("encounter", "/combatants/0/side") and ala in error["detail"]
