"""Encounters and combatants: create, list, read, change, delete, with bounds and ETags."""

from tests.api.helpers import assert_problem, create_encounter, fighter


def test_create_read_list_update_delete(client):
    first = create_encounter(client, name="First")
    second = create_encounter(client, fighter("Ala"), name="Second", rules={"delay_die": 6})
    assert second["round"] == 0 and second["turn"] == 1
    assert second["ruleset"]["delay_die"] == 6 and second["ruleset"]["turn_length"] == 10
    assert second["combatants"][0]["blood"] == 10 and second["combatants"][0]["penalty"] == 0

    page = client.get("/v1/encounters", params={"limit": 1}).json()
    assert page["total"] == 2 and [e["id"] for e in page["items"]] == [second["id"]]  # newest first
    assert client.get("/v1/encounters", params={"limit": 1, "offset": 1}).json()["items"][0]["id"] == first["id"]

    url = f"/v1/encounters/{second['id']}"
    read = client.get(url)
    assert read.headers["etag"] == f'"{second["version"]}"'
    changed = client.patch(url, json={"name": "Renamed", "rules": {"delay_die": 8}})
    assert changed.status_code == 200 and changed.json()["ruleset"]["delay_die"] == 8
    assert changed.json()["version"] == second["version"] + 1

    assert client.delete(url).status_code == 204
    assert_problem(client.get(url), 404, "not-found")
    assert client.get("/v1/encounters").json()["total"] == 1


def test_combatant_lifecycle(client):
    encounter = create_encounter(client)
    url = f"/v1/encounters/{encounter['id']}/combatants"
    added = client.post(url, json=fighter("Czarek", weapon={"name": "rusty axe", "delay": 6, "damage": "1d8+1"},
                                          wounds=[{"class": "moderate"}]))
    assert added.status_code == 201, added.text
    body = added.json()
    assert body["wounds"] == [{"class": "moderate", "penalty": 2, "bleed": 1}] and body["penalty"] == 2
    assert added.headers["location"] == f"{url}/{body['id']}"

    changed = client.patch(f"{url}/{body['id']}", json={"vitality": 14, "weapon": "dagger"})
    assert changed.status_code == 200
    assert changed.json()["vitality"] == 14 and changed.json()["blood"] == 14 and changed.json()["weapon"] == "dagger"
    assert client.get(f"{url}/{body['id']}").json() == changed.json()

    assert client.delete(f"{url}/{body['id']}").status_code == 204
    assert_problem(client.get(f"{url}/{body['id']}"), 404)
    assert client.get(f"/v1/encounters/{encounter['id']}").json()["combatants"] == []


def test_combatants_keep_the_order_they_were_added(client):
    encounter = create_encounter(client, fighter("A"), fighter("B"))
    url = f"/v1/encounters/{encounter['id']}"
    client.delete(f"{url}/combatants/{encounter['combatants'][0]['id']}")
    client.post(f"{url}/combatants", json=fighter("C"))
    assert [c["name"] for c in client.get(url).json()["combatants"]] == ["B", "C"]


def test_combatant_of_another_encounter_is_not_found(client):
    one = create_encounter(client, fighter("A"))
    other = create_encounter(client)
    assert_problem(client.get(f"/v1/encounters/{other['id']}/combatants/{one['combatants'][0]['id']}"), 404)


def test_unknown_weapon_and_bad_rules_are_refused_and_write_nothing(client):
    response = client.post("/v1/encounters", json={"name": "x", "combatants": [fighter("A", weapon="bazooka")]})
    body = assert_problem(response, 422, "unknown-key")  # issue 14: its own type, listing the known keys
    assert body["errors"][0]["pointer"] == "/combatants/0/weapon" and "long_sword" in body["errors"][0]["detail"]
    for rules in ({"delay_die": 1}, {"turn_length": 0}, {"colour": "red"},
                  {"wound_classes": [{"class": "a", "min": 5, "penalty": 0, "bleed": 0, "forces": None},
                                     {"class": "b", "min": 3, "penalty": 0, "bleed": 0, "forces": None}]}):
        assert_problem(client.post("/v1/encounters", json={"name": "x", "rules": rules}), 422, "invalid-ruleset")
    assert client.get("/v1/encounters").json()["total"] == 0


def test_bounds_of_every_combatant_field(client):
    encounter = create_encounter(client)
    url = f"/v1/encounters/{encounter['id']}/combatants"
    for field, value in (("initiative", 101), ("attack", -101), ("defense", 1000), ("damage_bonus", 51),
                         ("armor", -1), ("toughness", 101), ("vitality", 0), ("blood", -1001),
                         ("attacks_per_round", 5), ("name", ""), ("name", "x" * 101), ("status", "sleepy"),
                         ("initiative", 1.5), ("initiative", "3"), ("weapon_ready", "yes")):
        body = assert_problem(client.post(url, json={**fighter("A"), field: value}), 422, "validation-error")
        assert body["errors"][0]["pointer"].startswith(f"/{field}"), body
    for damage in ("d8", "21d6", "1d1", "1d8+101", "1d8*2"):
        response = client.post(url, json=fighter("A", weapon={"name": "w", "delay": 1, "damage": damage}))
        assert_problem(response, 422)
    assert client.get(f"/v1/encounters/{encounter['id']}").json()["combatants"] == []


def test_at_most_100_combatants(client):
    encounter = create_encounter(client, *[fighter(f"F{i}") for i in range(100)])
    response = client.post(f"/v1/encounters/{encounter['id']}/combatants", json=fighter("one too many"))
    assert_problem(response, 422, "unprocessable")
    assert_problem(client.post("/v1/encounters", json={"name": "x", "combatants": [fighter("F")] * 101}), 422)


def test_rules_endpoint_serves_the_default_ruleset(client):
    rules = client.get("/v1/rules").json()
    assert rules["delay_die"] == 10 and rules["armory"]["halberd"] == {"delay": 9, "damage": "1d10+2"}
    assert rules["armor"]["plate"] == 6 and [row["class"] for row in rules["wound_classes"]][-1] == "mortal"
