"""Armor by name on stored combatants, as /v1/resolve takes it (RULES.md section 2): created, added and
changed by name or by points, read back as given, counted for the encounter's ruleset's points in a round,
restored by undo, and replayed by /v1/resolve to the identical document. An unknown name changes nothing."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import assert_problem, attack, create_encounter, fighter

MITHRIL = {"armor": {"mithril": 5}}  # an encounter's own row of the armor table


def _armors(client, url: str) -> list[Any]:
    return [c["armor"] for c in client.get(url).json()["combatants"]]


def _hit(actor: str) -> dict[str, Any]:
    """Dice for one sure blow of a long sword (1d8): a natural hit, then an 8."""
    return {f"{actor}.attack.1": 1, f"{actor}.damage.1": [8]}


def test_armor_is_stored_as_given_points_or_name(client):
    encounter = create_encounter(
        client, fighter("A", armor="leather"), fighter("B", armor=3), fighter("C", armor="mithril"), rules=MITHRIL
    )
    url = f"/v1/encounters/{encounter['id']}"
    assert [c["armor"] for c in encounter["combatants"]] == ["leather", 3, "mithril"]
    assert _armors(client, url) == ["leather", 3, "mithril"]

    added = client.post(f"{url}/combatants", json=fighter("D", armor="chain_mail"))
    assert added.status_code == 201, added.text
    assert added.json()["armor"] == "chain_mail"
    a, b = (c["id"] for c in encounter["combatants"][:2])
    patched = client.patch(f"{url}/combatants/{a}", json={"armor": 2})
    assert patched.status_code == 200, patched.text
    assert patched.json()["armor"] == 2
    assert client.patch(f"{url}/combatants/{b}", json={"armor": "plate"}).json()["armor"] == "plate"
    assert client.patch(f"{url}/combatants/{b}", json={"name": "Bolek"}).json()["armor"] == "plate", "kept"
    assert _armors(client, url) == [2, "plate", "mithril", "chain_mail"]
    assert client.get(f"{url}/combatants/{b}").json()["armor"] == "plate"


def test_a_named_armor_counts_its_rows_points_in_a_round(client):
    encounter = create_encounter(
        client, fighter("Ala"), fighter("Bolek", armor="gambeson", vitality=30), fighter("Czarek", armor="mithril"),
        rules=MITHRIL,
    )
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek, czarek = (c["id"] for c in encounter["combatants"])
    body = {"declarations": [attack(ala, bolek)], "dice": _hit(ala)}
    blows = client.post(f"{url}/rounds", json=body).json()["actions"]
    assert [(a["blow"] - a["effective"]) for a in blows if a["actor"] == ala] == [2], "gambeson: 2 points"
    body = {"declarations": [attack(ala, czarek)], "dice": _hit(ala)}
    blows = client.post(f"{url}/rounds", json=body).json()["actions"]
    assert [(a["blow"] - a["effective"]) for a in blows if a["actor"] == ala] == [5], "the encounter's own row"


def test_a_stored_round_replays_identically_and_undo_restores_the_name(client):
    encounter = create_encounter(client, fighter("Ala", armor="scale"), fighter("Bolek", armor="leather"))
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek = (c["id"] for c in encounter["combatants"])
    state = [{k: v for k, v in c.items() if k != "penalty"} for c in client.get(url).json()["combatants"]]
    body = {"declarations": [attack(ala, bolek), attack(bolek, ala)], "seed": 7}
    stored = client.post(f"{url}/rounds", json=body)
    assert stored.status_code == 201, stored.text

    replayed = client.post("/v1/resolve", json={"round": 1, "combatants": state, **body})
    assert replayed.status_code == 200, replayed.text
    assert replayed.json() == stored.json(), "the same state, names and all, gives the same document"

    assert client.delete(f"{url}/rounds/1").status_code == 204
    assert _armors(client, url) == ["scale", "leather"]
    assert client.post(f"{url}/rounds", json=body).json() == stored.json()


def test_an_unknown_armor_name_is_refused_naming_the_field_and_changes_nothing(client):
    body = assert_problem(
        client.post("/v1/encounters", json={"name": "x", "combatants": [fighter("A", armor="mithril")]}),
        422, "unknown-key",
    )
    assert [e["pointer"] for e in body["errors"]] == ["/combatants/0/armor"]
    assert "leather" in body["detail"], "the detail lists the names there are"
    assert client.get("/v1/encounters").json()["total"] == 0

    encounter = create_encounter(client, fighter("A", armor="leather"))
    url = f"/v1/encounters/{encounter['id']}"
    before = client.get(url).json()
    body = assert_problem(client.post(f"{url}/combatants", json=fighter("B", armor="mithril")), 422, "unknown-key")
    assert [e["pointer"] for e in body["errors"]] == ["/armor"]
    combatant = f"{url}/combatants/{encounter['combatants'][0]['id']}"
    body = assert_problem(client.patch(combatant, json={"armor": "mithril"}), 422, "unknown-key")
    assert [e["pointer"] for e in body["errors"]] == ["/armor"]
    assert client.get(url).json() == before

    state = [{"id": "a", **fighter("A", armor="mithril")}, {"id": "b", **fighter("B")}]
    body = assert_problem(client.post("/v1/resolve", json={"combatants": state}), 422, "unknown-key")
    assert [e["pointer"] for e in body["errors"]] == ["/combatants/0/armor"]


def test_armor_that_is_neither_points_in_bounds_nor_a_name_is_refused(client):
    encounter = create_encounter(client, fighter("A"))
    combatant = f"/v1/encounters/{encounter['id']}/combatants/{encounter['combatants'][0]['id']}"
    for armor in (101, -1, True, "", 2.5, ["leather"]):
        body = assert_problem(client.patch(combatant, json={"armor": armor}), 422, "validation-error")
        assert {e["pointer"] for e in body["errors"]} == {"/armor"}, armor
    assert client.get(combatant).json()["armor"] == 0


def test_new_rules_must_keep_the_armor_a_combatant_wears(client):
    encounter = create_encounter(client, fighter("A", armor="mithril"), rules=MITHRIL)
    url = f"/v1/encounters/{encounter['id']}"
    before = client.get(url).json()
    body = assert_problem(client.patch(url, json={"rules": {}}), 422)
    assert "mithril" in body["detail"]
    assert client.get(url).json() == before
    kept = client.patch(url, json={"rules": {"armor": {"mithril": 4}}})
    assert kept.status_code == 200, kept.text
    assert kept.json()["combatants"][0]["armor"] == "mithril"
