"""Odds over HTTP: POST /v1/odds and POST /v1/encounters/{id}/odds, against SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from app.odds.replay import fight_rounds
from app.odds.simulate import FightSetup
from app.resolver import build_ruleset
from tests.api.helpers import assert_problem, create_encounter, fighter
from tests.resolver.decoding import round_input_from_json


def body_fighter(cid: str, side: str | None = None, **fields: Any) -> dict[str, Any]:
    fields = {"initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword", **fields}
    return {"id": cid, **({"side": side} if side else {}), **fields}


SKIRMISH = [
    body_fighter("ala", "party", armor=3),
    body_fighter("bolek", "party", weapon="spear"),
    body_fighter("cyryl", "bandits", attack=12, weapon="short_sword"),
    body_fighter("dobromir", "bandits", attack=12, weapon="dagger"),
]


def odds(client, **body: Any):
    return client.post("/v1/odds", json=body, headers={"Authorization": ""})


def test_answer_adds_up_and_every_share_is_inside_its_interval(client):
    response = odds(client, fights=300, max_rounds=30, seed=7, combatants=SKIRMISH)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["fights"] == 300 and answer["seed"] == 7
    assert [s["side"] for s in answer["sides"]] == ["party", "bandits"]
    assert sum(s["wins"] for s in answer["sides"]) + answer["draws"] == pytest.approx(1.0)
    for side in answer["sides"]:
        assert 0 <= side["low"] <= side["wins"] <= side["high"] <= 1
        assert side["low"] < side["high"]
    assert [c["id"] for c in answer["combatants"]] == ["ala", "bolek", "cyryl", "dobromir"]
    for c in answer["combatants"]:
        assert 0 <= c["dead"] + c["unconscious"] <= 1
    assert 1 <= answer["rounds"]["median"] <= answer["rounds"]["p90"] <= 30


def test_same_body_and_seed_same_answer_other_seed_other_answer(client):
    first = odds(client, fights=200, seed=99, combatants=SKIRMISH).json()
    again = odds(client, fights=200, seed=99, combatants=SKIRMISH).json()
    other = odds(client, fights=200, seed=100, combatants=SKIRMISH).json()
    assert first == again
    assert first != other


def test_without_a_seed_the_server_picks_one_and_shows_it(client):
    answer = odds(client, fights=50, combatants=SKIRMISH).json()
    assert odds(client, fights=50, seed=answer["seed"], combatants=SKIRMISH).json() == answer


def test_without_sides_every_combatant_is_its_own_side(client):
    trio = [body_fighter(cid) for cid in ("a", "b", "c")]
    answer = odds(client, fights=100, seed=3, combatants=trio).json()
    assert [s["side"] for s in answer["sides"]] == ["a", "b", "c"]
    assert [c["side"] for c in answer["combatants"]] == ["a", "b", "c"]


def test_a_single_side_wins_at_once(client):
    party = [body_fighter("ala", "party"), body_fighter("bolek", "party")]
    answer = odds(client, fights=10_000, max_rounds=100, seed=1, combatants=party).json()
    assert answer["sides"] == [{"side": "party", "wins": 1.0, "low": answer["sides"][0]["low"], "high": 1.0}]
    assert answer["sides"][0]["low"] > 0.999
    assert answer["draws"] == 0 and answer["rounds"] == {"median": 0, "p90": 0}


def test_a_side_with_no_one_active_loses_at_once(client):
    fight = [body_fighter("ala", "party"), body_fighter("cyryl", "bandits", status="unconscious", blood=0)]
    answer = odds(client, fights=20, seed=1, combatants=fight).json()
    assert [(s["side"], s["wins"]) for s in answer["sides"]] == [("party", 1.0), ("bandits", 0.0)]
    assert answer["combatants"][1]["unconscious"] == 1.0


@pytest.mark.parametrize(
    ("field", "value"), [("fights", 0), ("fights", 10_001), ("max_rounds", 0), ("max_rounds", 201)]
)
def test_bounds_are_a_problem_naming_the_field(client, field, value):
    body = {"fights": 10, "max_rounds": 10, "combatants": SKIRMISH, field: value}
    problem = assert_problem(odds(client, **body), 422, "validation-error")
    assert any(e["pointer"] == f"/{field}" for e in problem["errors"])


def test_over_the_budget_is_refused_before_it_starts(client):
    many = [body_fighter(f"c{i}", "ab"[i % 2]) for i in range(20)]
    problem = assert_problem(odds(client, fights=10_000, max_rounds=11, combatants=many), 422, "odds-budget-exceeded")
    assert problem["budget"] == 2_000_000 and problem["work"] == 10_000 * 11 * 20
    assert "2,000,000" in problem["detail"]
    assert odds(client, fights=10_000, max_rounds=10, combatants=many[:2]).status_code == 200


def test_an_invalid_state_is_refused_as_resolve_refuses_it(client):
    fight = [body_fighter("ala", "party", weapon="laser"), body_fighter("cyryl", "bandits")]
    problem = assert_problem(odds(client, fights=10, combatants=fight), 422)
    assert any(e["pointer"] == "/combatants/0/weapon" for e in problem["errors"])


def test_single_fights_replay_exactly_through_resolve(client):
    rules = {"delay_die": 8}
    fights_json = [body_fighter(c["id"], **{k: v for k, v in c.items() if k not in ("id", "side")}) for c in SKIRMISH]
    state = round_input_from_json({"combatants": fights_json})
    setup = FightSetup(state.combatants, ("party", "party", "bandits", "bandits"), build_ruleset(rules), 1)
    replayed = 0
    for fight in (0, 1, 17):
        previous = None
        for body, document in fight_rounds(setup, rules, seed=2024, fight=fight, max_rounds=30):
            if previous is not None:  # each round starts from the state the last one left
                after = {c["id"]: c for c in previous["combatants"]}
                for c in body["combatants"]:
                    assert {k: c[k] for k in ("status", "blood", "weapon_ready")} == {
                        k: after[c["id"]][k] for k in ("status", "blood", "weapon_ready")
                    }
            response = client.post("/v1/resolve", json=body, headers={"Authorization": ""})
            assert response.status_code == 200, response.text
            assert response.json() == document
            previous = document
            replayed += 1
    assert replayed > 3


def test_encounter_odds_read_the_encounter_and_store_nothing(client):
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek", attack=10))
    before = client.get(f"/v1/encounters/{encounter['id']}")
    response = client.post(f"/v1/encounters/{encounter['id']}/odds", json={"fights": 200, "seed": 5})
    assert response.status_code == 200, response.text
    answer = response.json()
    ids = [c["id"] for c in encounter["combatants"]]
    assert [c["id"] for c in answer["combatants"]] == ids
    assert [s["side"] for s in answer["sides"]] == ids  # no sides given: each its own
    assert answer["sides"][0]["wins"] > answer["sides"][1]["wins"]  # Ala hits more often
    after = client.get(f"/v1/encounters/{encounter['id']}")
    assert after.json() == before.json() and after.headers["ETag"] == before.headers["ETag"]
    assert client.get(f"/v1/encounters/{encounter['id']}/rounds").json()["total"] == 0
    again = client.post(f"/v1/encounters/{encounter['id']}/odds", json={"fights": 200, "seed": 5})
    assert again.json() == answer


def test_encounter_odds_of_another_campaign_is_not_found(client):
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"))
    other = client.post("/v1/campaigns", json={"name": "Other"}, headers={"Authorization": ""}).json()["key"]["secret"]
    response = client.post(
        f"/v1/encounters/{encounter['id']}/odds", json={"fights": 10}, headers={"Authorization": f"Bearer {other}"}
    )
    assert_problem(response, 404)
    assert_problem(client.post(f"/v1/encounters/{encounter['id']}/odds", json={"fights": 0}), 422)


def test_rounds_past_the_last_round_number_are_refused(client):
    problem = assert_problem(odds(client, fights=10, max_rounds=50, round=99_990, combatants=SKIRMISH), 422)
    assert problem["errors"][0]["pointer"] == "/max_rounds"


def test_docs_carry_a_worked_example(client):
    operation = client.get("/openapi.json").json()["paths"]["/v1/odds"]["post"]
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    example = examples["party_against_bandits"]["value"]
    assert {c["side"] for c in example["combatants"]} == {"party", "bandits"}
    answer = odds(client, **{**example, "fights": 100}).json()
    assert [s["side"] for s in answer["sides"]] == ["party", "bandits"]
