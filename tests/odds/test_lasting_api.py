"""Odds with effects and long actions, through HTTP: in /v1/odds bodies, on stored combatants, and
single fights that carry them replayed round by round through /v1/resolve."""

from __future__ import annotations

from typing import Any

from app.odds.replay import fight_rounds
from app.odds.simulate import FightSetup
from app.resolver import build_ruleset
from tests.api.helpers import create_encounter, fighter
from tests.resolver.decoding import round_input_from_json

BLESSED = {"name": "blessed", "attack": 6, "defense": 6}
CHANT = {
    "name": "war chant",
    "delay": 4,
    "rounds_left": 2,
    "target": "ala",
    "effect": {"name": "fury", "attack": 5, "rounds": 20},
}


def duelist(cid: str, side: str, **fields: Any) -> dict[str, Any]:
    return {"id": cid, "side": side, "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword", **fields}


def odds(client, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/odds", json=body, headers={"Authorization": ""})
    assert response.status_code == 200, response.text
    return response.json()


def wins(answer: dict[str, Any], side: str) -> float:
    return next(s["wins"] for s in answer["sides"] if s["side"] == side)


def test_an_effect_in_the_body_tips_an_even_duel(client):
    even = odds(client, fights=400, seed=3, combatants=[duelist("ala", "a"), duelist("bolek", "b")])
    blessed = odds(
        client, fights=400, seed=3, combatants=[duelist("ala", "a", effects=[BLESSED]), duelist("bolek", "b")]
    )
    assert 0.3 < wins(even, "a") < 0.7
    assert wins(blessed, "a") > wins(even, "a") + 0.2


def test_an_effect_that_ends_counts_only_while_it_lasts(client):
    # the blessing's last round is round 1: from round 2 on the duel is even again
    brief = {**BLESSED, "until_round": 1}
    lasting = odds(client, fights=400, seed=3, combatants=[duelist("ala", "a", effects=[BLESSED]), duelist("b", "b")])
    short = odds(client, fights=400, seed=3, combatants=[duelist("ala", "a", effects=[brief]), duelist("b", "b")])
    assert wins(short, "a") < wins(lasting, "a") - 0.15


def test_a_carried_long_action_in_the_body_plays_and_its_effect_counts(client):
    party = [duelist("ala", "party"), duelist("czarek", "party", attack=4, long_action=CHANT)]
    foes = [duelist("bolek", "bandits"), duelist("dobromir", "bandits")]
    chanting = odds(client, fights=400, seed=9, combatants=party + foes)
    idle = odds(client, fights=400, seed=9, combatants=[party[0], {**party[1], "long_action": None}, *foes])
    assert chanting != idle
    assert wins(chanting, "party") > wins(idle, "party")  # fury (+5 attack) on Ala outweighs two idle rounds


def test_encounter_odds_see_an_effect_put_on_through_its_endpoint(client):
    encounter = create_encounter(client, fighter("Ala", side="a"), fighter("Bolek", side="b"))
    url = f"/v1/encounters/{encounter['id']}"
    ala = encounter["combatants"][0]["id"]
    before = client.post(f"{url}/odds", json={"fights": 400, "seed": 4}).json()
    added = client.post(f"{url}/combatants/{ala}/effects", json=BLESSED)
    assert added.status_code == 201, added.text
    read = client.get(url)
    after = client.post(f"{url}/odds", json={"fights": 400, "seed": 4})
    assert after.status_code == 200, after.text
    assert wins(after.json(), "a") > wins(before, "a") + 0.2
    again = client.get(url)  # nothing stored by the odds
    assert again.json() == read.json() and again.headers["ETag"] == read.headers["ETag"]


def test_encounter_odds_carry_a_stored_long_action(client):
    chant = {**CHANT, "target": None}  # the chanter itself
    encounter = create_encounter(
        client, fighter("Czarek", side="party", long_action=chant), fighter("Bolek", side="bandits")
    )
    assert encounter["combatants"][0]["long_action"]["name"] == "war chant"
    answer = client.post(f"/v1/encounters/{encounter['id']}/odds", json={"fights": 200, "seed": 2})
    assert answer.status_code == 200, answer.text
    without = client.post(
        "/v1/odds",
        json={
            "fights": 200,
            "seed": 2,
            "combatants": [
                {**fighter("Czarek", side="party"), "id": encounter["combatants"][0]["id"], "name": "Czarek"},
                {**fighter("Bolek", side="bandits"), "id": encounter["combatants"][1]["id"], "name": "Bolek"},
            ],
        },
        headers={"Authorization": ""},
    )
    assert without.status_code == 200, without.text
    assert answer.json() != without.json()  # the chant is played, not dropped


def test_fights_with_effects_and_long_actions_replay_exactly_through_resolve(client):
    rules: dict[str, Any] = {}
    bodies = [
        duelist("ala", "party", effects=[{**BLESSED, "id": "b1", "until_round": 3}]),
        duelist("czarek", "party", attack=8, long_action=CHANT),
        duelist("bolek", "bandits", effects=[{"id": "p1", "name": "poisoned", "blood_per_turn": 2}]),
        duelist("dobromir", "bandits", weapon="spear"),
    ]
    state = round_input_from_json({"combatants": [{k: v for k, v in b.items() if k != "side"} for b in bodies]})
    setup = FightSetup(state.combatants, ("party", "party", "bandits", "bandits"), build_ruleset(rules), 1)
    carried = replayed = 0
    for fight in (0, 3):
        for body, document in fight_rounds(setup, rules, seed=77, fight=fight, max_rounds=25):
            carried += sum(1 for c in body["combatants"] if c.get("effects") or c.get("long_action"))
            response = client.post("/v1/resolve", json=body, headers={"Authorization": ""})
            assert response.status_code == 200, response.text
            assert response.json() == document
            replayed += 1
    assert replayed > 4 and carried > replayed  # rounds that carried effects or a long action were replayed
