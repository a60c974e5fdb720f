"""Reinforcements: a hidden combatant with `reveal_at_round` n joins in round n, with the declaration the game
master staged for it; before, tokens never read a byte of it; round n reveals it; undo hides it again; 422
for a round not after the latest one, or on a visible combatant."""

from __future__ import annotations

from tests.api.helpers import assert_problem, create_encounter, fighter


def ambush(client):
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"))
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek = (c["id"] for c in encounter["combatants"])
    made = client.post(f"{url}/combatants", json=fighter("Zbój", hidden=True, reveal_at_round=2))
    assert made.status_code == 201, made.text
    assert made.json()["reveal_at_round"] == 2 and made.json()["hidden"] is True
    viewer = client.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    return url, ala, bolek, made.json()["id"], {"Authorization": f"Bearer {viewer}"}


def token_reads(client, url, headers) -> str:
    parts = [client.get(url, headers=headers).text, client.get(f"{url}/declarations", headers=headers).text,
             client.get(f"{url}/rounds", headers=headers).text]
    return "".join(parts)


def test_a_reinforcement_joins_on_cue_with_its_staged_declaration_and_undo_hides_it_again(client):
    url, ala, bolek, bandit, viewer = ambush(client)
    attack = {"stance": "offensive", "action": {"type": "attack", "targets": [ala]}}
    assert client.put(f"{url}/declarations/{bandit}", json=attack).status_code == 201  # staged in advance
    first = client.post(f"{url}/rounds", json={"seed": 5, "declarations": [
        {"combatant": ala, "action": {"type": "none"}}, {"combatant": bolek, "action": {"type": "none"}}]})
    assert first.status_code == 201
    assert all(a["actor"] != bandit for a in first.json()["actions"])  # round 1: not yet (its declaration waits)
    assert bandit not in token_reads(client, url, viewer) and "Zbój" not in token_reads(client, url, viewer)
    assert client.get(f"{url}/combatants/{bandit}").json()["hidden"] is True
    second = client.post(f"{url}/rounds", json={"seed": 5})
    assert second.status_code == 201
    assert any(a["actor"] == bandit and a["type"] == "attack" for a in second.json()["actions"])
    read = client.get(f"{url}/combatants/{bandit}").json()
    assert read["hidden"] is False and read["reveal_at_round"] is None  # it has arrived
    assert bandit in client.get(url, headers=viewer).text
    assert bandit in client.get(f"{url}/rounds/2", headers=viewer).text
    assert client.delete(f"{url}/rounds/2").status_code == 204
    read = client.get(f"{url}/combatants/{bandit}").json()
    assert read["hidden"] is True and read["reveal_at_round"] == 2  # hidden again, its arrival still ahead
    assert bandit not in token_reads(client, url, viewer)
    assert_problem(client.get(f"{url}/combatants/{bandit}", headers=viewer), 404)


def test_reveal_at_round_not_after_the_latest_round_or_on_a_visible_combatant_is_refused(client):
    url, ala, bolek, bandit, viewer = ambush(client)
    assert client.post(f"{url}/rounds", json={"seed": 1}).status_code == 201
    version = client.get(url).json()["version"]
    cases = [
        client.post(f"{url}/combatants", json=fighter("Late", hidden=True, reveal_at_round=1)),  # round 1 is past
        client.patch(f"{url}/combatants/{bandit}", json={"reveal_at_round": 1}),
        client.post(f"{url}/combatants", json=fighter("Seen", reveal_at_round=5)),  # not hidden
        client.patch(f"{url}/combatants/{ala}", json={"reveal_at_round": 5}),
        client.patch(f"{url}/combatants/{bandit}", json={"hidden": False, "reveal_at_round": 5}),
    ]
    for response in cases:
        problem = assert_problem(response, 422, "invalid-table-role")
        assert problem["errors"][0]["pointer"].endswith("/reveal_at_round")
    assert "not after the latest round" in cases[0].json()["detail"]
    assert "visible" in cases[2].json()["detail"]
    assert client.get(url).json()["version"] == version
    assert_problem(client.post(f"{url}/combatants", json=fighter("Zero", hidden=True, reveal_at_round=0)), 422)


def test_revealing_by_hand_before_its_round_clears_the_arrival(client):
    url, ala, bolek, bandit, viewer = ambush(client)
    read = client.patch(f"{url}/combatants/{bandit}", json={"hidden": False}).json()
    assert read["hidden"] is False and read["reveal_at_round"] is None


def test_a_reinforcement_from_the_bestiary(client):
    url, ala, bolek, bandit, viewer = ambush(client)
    creature = client.post("/v1/creatures", json=fighter("Wilk")).json()
    made = client.post(f"{url}/combatants", json={"creature": creature["id"], "count": 2, "hidden": True,
                                                 "reveal_at_round": 3})
    assert made.status_code == 201, made.text
    assert [c["reveal_at_round"] for c in made.json()["items"]] == [3, 3]
