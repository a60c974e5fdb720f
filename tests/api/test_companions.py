"""Companions: a player token that controls a combatant also controls its companions (stages their declarations,
reads them as its own, changes what a player may change); `companion_of` to itself, to another encounter's
combatant or forming a chain is a 422 that changes nothing."""

from __future__ import annotations

from tests.api.helpers import assert_problem, create_encounter, fighter

NONE = {"stance": "defensive", "action": {"type": "none"}}


def party(client):
    """Ala (with a player token), her wolf, Bolek (another player's) and his hawk."""
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"))
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek = (c["id"] for c in encounter["combatants"])
    wolf = client.post(f"{url}/combatants", json=fighter("Wolf", companion_of=ala))
    assert wolf.status_code == 201, wolf.text
    assert wolf.json()["companion_of"] == ala
    hawk = client.post(f"{url}/combatants", json=fighter("Hawk", companion_of=bolek)).json()
    token = client.post(f"{url}/tokens", json={"role": "player", "combatant": ala}).json()["secret"]
    return url, ala, wolf.json()["id"], bolek, hawk["id"], {"Authorization": f"Bearer {token}"}


def test_a_player_stages_for_its_companion_and_reads_it_as_its_own(client):
    url, ala, wolf, bolek, hawk, player = party(client)
    attack = {"stance": "offensive", "action": {"type": "attack", "targets": [bolek]}}
    assert client.put(f"{url}/declarations/{ala}", json=attack, headers=player).status_code == 201
    assert client.put(f"{url}/declarations/{wolf}", json=attack, headers=player).status_code == 201
    assert client.put(f"{url}/declarations/{bolek}", json=NONE).status_code == 201  # the owner's
    listed = {d["combatant"]: d for d in client.get(f"{url}/declarations", headers=player).json()["declarations"]}
    assert listed[wolf]["stance"] == "offensive" and listed[ala]["stance"] == "offensive"
    assert listed[bolek] == {"combatant": bolek, "declared": True}
    assert client.delete(f"{url}/declarations/{wolf}", headers=player).status_code == 204
    # what a player may change on its own, it may change on its companion
    assert client.patch(f"{url}/combatants/{wolf}", json={"weapon_ready": False}, headers=player).status_code == 200
    assert_problem(client.patch(f"{url}/combatants/{wolf}", json={"vitality": 50}, headers=player), 403)


def test_a_player_is_refused_for_another_players_companion(client):
    url, ala, wolf, bolek, hawk, player = party(client)
    before = client.get(f"{url}/declarations").json()
    assert_problem(client.put(f"{url}/declarations/{hawk}", json=NONE, headers=player), 403, "forbidden")
    assert_problem(client.put(f"{url}/declarations/{bolek}", json=NONE, headers=player), 403, "forbidden")
    assert_problem(client.patch(f"{url}/combatants/{hawk}", json={"weapon_ready": False}, headers=player), 403)
    assert client.put(f"{url}/declarations/{hawk}", json=NONE).status_code == 201
    assert_problem(client.delete(f"{url}/declarations/{hawk}", headers=player), 403, "forbidden")
    assert client.get(f"{url}/declarations").json()["declarations"] != before["declarations"]  # the owner's stands
    listed = client.get(f"{url}/declarations", headers=player).json()["declarations"]
    assert listed == [{"combatant": hawk, "declared": True}]


def test_the_companions_declaration_is_played_in_the_round(client):
    url, ala, wolf, bolek, hawk, player = party(client)
    attack = {"stance": "offensive", "action": {"type": "attack", "targets": [bolek]}}
    assert client.put(f"{url}/declarations/{wolf}", json=attack, headers=player).status_code == 201
    document = client.post(f"{url}/rounds", json={"seed": 3}).json()
    assert any(a["actor"] == wolf and a["type"] == "attack" for a in document["actions"])


def test_companion_of_itself_another_encounter_or_a_chain_is_refused(client):
    url, ala, wolf, bolek, hawk, player = party(client)
    elsewhere = create_encounter(client, fighter("Far"))["combatants"][0]["id"]
    version = client.get(url).json()["version"]
    cases = [
        client.patch(f"{url}/combatants/{ala}", json={"companion_of": ala}),  # itself
        client.patch(f"{url}/combatants/{bolek}", json={"companion_of": elsewhere}),  # another encounter's
        client.post(f"{url}/combatants", json=fighter("Pup", companion_of=elsewhere)),
        client.post(f"{url}/combatants", json=fighter("Flea", companion_of=wolf)),  # a companion's companion
        client.patch(f"{url}/combatants/{ala}", json={"companion_of": bolek}),  # Ala has a wolf of her own
        client.patch(f"{url}/combatants/{hawk}", json={"companion_of": wolf}),
    ]
    for response in cases:
        problem = assert_problem(response, 422, "invalid-table-role")
        assert problem["errors"][0]["pointer"].endswith("/companion_of")
    assert "own companion" in cases[0].json()["detail"]
    assert "not a combatant of this encounter" in cases[1].json()["detail"]
    assert "chain" in cases[3].json()["detail"] and "chain" in cases[4].json()["detail"]
    assert client.get(url).json()["version"] == version  # nothing changed
    made = client.post("/v1/encounters", json={"name": "x", "combatants": [fighter("A", companion_of=ala)]})
    assert_problem(made, 422, "invalid-table-role")


def test_a_companion_whose_master_leaves_is_no_ones_and_undo_restores_it(client):
    url, ala, wolf, bolek, hawk, player = party(client)
    assert client.post(f"{url}/rounds", json={"seed": 1}).status_code == 201
    assert client.patch(f"{url}/combatants/{hawk}", json={"companion_of": None}).json()["companion_of"] is None
    assert client.delete(f"{url}/combatants/{ala}").status_code == 204
    assert client.get(f"{url}/combatants/{wolf}").json()["companion_of"] is None
    assert client.delete(f"{url}/rounds/1").status_code == 204  # the state before round 1 comes back
    combatants = {c["id"]: c for c in client.get(url).json()["combatants"]}
    assert combatants[wolf]["companion_of"] == ala and combatants[hawk]["companion_of"] == bolek


def test_a_copy_keeps_its_companions_with_the_new_ids(client):
    url, ala, wolf, bolek, hawk, player = party(client)
    copy = client.post(f"{url}/copy", json={"from": "now"}).json()
    by_name = {c["name"]: c for c in copy["combatants"]}
    assert by_name["Wolf"]["companion_of"] == by_name["Ala"]["id"] != ala
    assert by_name["Hawk"]["companion_of"] == by_name["Bolek"]["id"]


def test_a_token_never_reads_a_hidden_master(client):
    encounter = create_encounter(client, fighter("Ala"), fighter("Shade"))
    url = f"/v1/encounters/{encounter['id']}"
    ala, shade = (c["id"] for c in encounter["combatants"])
    imp = client.post(f"{url}/combatants", json=fighter("Imp", companion_of=shade)).json()["id"]
    assert client.patch(f"{url}/combatants/{shade}", json={"hidden": True}).status_code == 200
    token = client.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    read = client.get(url, headers={"Authorization": f"Bearer {token}"})
    assert shade not in read.text
    assert {c["id"]: c["companion_of"] for c in read.json()["combatants"]} == {ala: None, imp: None}
