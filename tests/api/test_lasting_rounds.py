"""What lasts across stored rounds (RULES.md sections 12-13): a long action played over requests, its cancel by
PATCH, and undo restoring every combatant's effects and long action exactly. On SQLite and PostgreSQL."""

from __future__ import annotations

from tests.api.helpers import assert_problem, create_encounter, fighter

WARD = {
    "type": "custom",
    "name": "ward",
    "delay": 4,
    "rounds": 3,
    "effect": {"name": "warded", "defense": 4, "rounds": 5},
}


def _fight(client):
    """Ala and Bolek, and Czarek the mage, whose initiative is lowest."""
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"), fighter("Czarek", initiative=16))
    return f"/v1/encounters/{encounter['id']}", [c["id"] for c in encounter["combatants"]]


def _round(client, url, declarations=(), dice=None):
    response = client.post(f"{url}/rounds", json={"declarations": list(declarations), "dice": dice or {}, "seed": 3})
    assert response.status_code == 201, response.text
    return response.json()


def _state(client, url):
    """Every combatant as stored, by id."""
    return {c["id"]: c for c in client.get(url).json()["combatants"]}


def test_a_ward_over_three_rounds_with_an_effect_expiring_and_the_last_round_undone(client):
    url, (ala, bolek, czarek) = _fight(client)
    poison = client.post(
        f"{url}/combatants/{bolek}/effects", json={"name": "poisoned", "blood_per_turn": 1, "rounds": 2}
    )
    assert poison.json()["until_round"] == 2
    ward = {**WARD, "target": ala}

    first = _round(client, url, [{"combatant": czarek, "action": ward}])
    (entry,) = first["actions"]
    assert (entry["type"], entry["name"], entry["target"], entry["result"]) == ("custom", "ward", ala, "in_progress")
    carried = _state(client, url)[czarek]["long_action"]
    assert carried == {
        "name": "ward",
        "delay": 4,
        "target": ala,
        "rounds_left": 2,
        "effect": {"name": "warded", "attack": 0, "defense": 4, "initiative": 0, "blood_per_turn": 0, "rounds": 5},
    }

    second = _round(client, url)  # no declaration: Czarek goes on with the ward
    (entry,) = second["actions"]
    assert (entry["type"], entry["result"], entry["name"]) == ("continue", "in_progress", "ward")
    assert second["combatants"][2]["long_action"]["rounds_left"] == 1
    assert second["combatants"][1]["effects"] == [], "the poison's last round was round 2"
    assert _state(client, url)[bolek]["effects"] == []
    before_third = client.get(url).json()

    third = _round(client, url, [{"combatant": czarek, "action": {"type": "continue"}}])
    (entry,) = third["actions"]
    assert (entry["type"], entry["result"]) == ("continue", "done")
    warded = {
        "id": f"3:{czarek}",
        "name": "warded",
        "attack": 0,
        "defense": 4,
        "initiative": 0,
        "blood_per_turn": 0,
        "until_round": 8,
    }
    assert third["combatants"][0]["effects"] == [warded]
    assert third["combatants"][2]["long_action"] is None
    assert _state(client, url)[ala]["effects"] == [warded]
    assert client.get(f"{url}/combatants/{ala}/effects/3:{czarek}").json() == warded

    assert client.delete(f"{url}/rounds/3").status_code == 204
    after_undo = client.get(url).json()
    assert after_undo["combatants"] == before_third["combatants"], "undo restores effects and long actions exactly"
    assert after_undo["round"] == 2


def test_undo_restores_expired_effects_and_drops_ones_added_since(client):
    url, (ala, bolek, _) = _fight(client)
    client.post(f"{url}/combatants/{ala}/effects", json={"name": "stunned", "attack": -3, "rounds": 1})
    client.post(f"{url}/combatants/{bolek}/effects", json={"name": "regenerating", "blood_per_turn": -1})
    before = client.get(url).json()["combatants"]
    played = _round(client, url)
    assert played["combatants"][0]["effects"] == []
    client.post(f"{url}/combatants/{bolek}/effects", json={"name": "added after the round"})
    assert client.delete(f"{url}/rounds/1").status_code == 204
    assert client.get(url).json()["combatants"] == before


def test_the_game_master_cancels_a_long_action(client):
    url, (ala, _, czarek) = _fight(client)
    _round(client, url, [{"combatant": czarek, "action": {**WARD, "target": ala}}])
    assert _state(client, url)[czarek]["long_action"]["rounds_left"] == 2
    version = client.get(url).headers["ETag"]
    refused = client.patch(
        f"{url}/combatants/{czarek}", json={"long_action": {"name": "x", "delay": 1, "rounds_left": 5}}
    )
    assert "/long_action" in [e["pointer"] for e in assert_problem(refused, 422)["errors"]]
    assert client.get(url).headers["ETag"] == version, "a refused PATCH writes nothing"

    cancelled = client.patch(f"{url}/combatants/{czarek}", json={"long_action": None})
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["long_action"] is None
    assert cancelled.headers["ETag"] != version
    nothing_to_continue = client.post(
        f"{url}/rounds", json={"declarations": [{"combatant": czarek, "action": {"type": "continue"}}]}
    )
    assert_problem(nothing_to_continue, 422)
    second = _round(client, url)
    assert second["actions"] == [] and second["combatants"][0]["effects"] == []


def test_a_combatant_put_down_by_the_game_master_loses_its_long_action(client):
    url, (ala, _, czarek) = _fight(client)
    _round(client, url, [{"combatant": czarek, "action": {**WARD, "target": ala}}])
    response = client.patch(f"{url}/combatants/{czarek}", json={"status": "unconscious"})
    assert response.status_code == 200, response.text
    assert response.json()["long_action"] is None


def test_a_long_action_broken_by_a_wound_gives_nothing(client):
    url, (ala, bolek, czarek) = _fight(client)
    _round(client, url, [{"combatant": czarek, "action": {**WARD, "target": ala}}])
    # Bolek hits Czarek hard before his tick: a severe wound breaks the ward.
    declarations = [{"combatant": bolek, "action": {"type": "attack", "target": czarek}}]
    dice = {f"{bolek}.initiative.1": 1, f"{bolek}.attack.1": 2, f"{bolek}.damage.1": [3], f"{czarek}.initiative.1": 5}
    played = _round(client, url, declarations, dice)
    results = [(a["actor"], a["result"]) for a in played["actions"]]
    assert results == [(bolek, "wound"), (czarek, "interrupted")], played["actions"]
    assert played["actions"][0]["effective"] >= 6, "at least long_action_broken_at"
    assert played["combatants"][2]["status"] == "active" and played["combatants"][2]["long_action"] is None
    assert all(c["effects"] == [] for c in played["combatants"])


def test_combatants_added_with_effects_and_a_long_action(client):
    url, (ala, _, _) = _fight(client)
    body = fighter(
        "Dorota",
        effects=[
            {"name": "blessed", "attack": 2, "until_round": 4},
            {"id": "mine", "name": "slowed", "initiative": -2},
        ],
        long_action={"name": "ritual", "delay": 2, "target": ala, "rounds_left": 2},
    )
    response = client.post(f"{url}/combatants", json=body)
    assert response.status_code == 201, response.text
    effects = response.json()["effects"]
    assert effects[0]["id"] and effects[1]["id"] == "mine"
    assert response.json()["long_action"]["target"] == ala

    version = client.get(url).headers["ETag"]
    for bad, pointer in (
        ({"effects": [{"id": "x", "name": "a"}, {"id": "x", "name": "b"}]}, "/effects/1/id"),
        ({"long_action": {"name": "r", "delay": 1, "target": "nobody", "rounds_left": 1}}, "/long_action/target"),
        ({"status": "unconscious", "long_action": {"name": "r", "delay": 1, "rounds_left": 1}}, "/long_action"),
        ({"long_action": {"name": "r", "delay": 1, "rounds_left": 100}}, "/long_action/rounds_left"),
        ({"effects": [{"name": f"e{i}"} for i in range(21)]}, "/effects"),
    ):
        problem = assert_problem(client.post(f"{url}/combatants", json=fighter("Bad", **bad)), 422)
        assert pointer in [e["pointer"] for e in problem["errors"]], problem
    assert client.get(url).headers["ETag"] == version


def test_removing_the_target_of_a_long_action_drops_it(client):
    url, (ala, bolek, czarek) = _fight(client)
    _round(client, url, [{"combatant": czarek, "action": {**WARD, "target": ala}}])
    _round(client, url, [{"combatant": bolek, "action": {**WARD, "rounds": 2}}])  # Bolek's own ward: untouched
    assert client.delete(f"{url}/combatants/{ala}").status_code == 204
    state = _state(client, url)
    assert state[czarek]["long_action"] is None
    assert state[bolek]["long_action"]["target"] is None and state[bolek]["long_action"]["rounds_left"] == 1
    third = _round(client, url)  # not refused for a target that is gone
    assert [(a["actor"], a["result"]) for a in third["actions"]] == [(bolek, "done")]
