"""GET /v1/encounters/{id}/stats: a fight with fixed dice counted by hand, and the properties that hold
for any fight (sides sum their combatants, series[k] is round k's document), against SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from app.stats.counting import BLOOD, NUMBERS, TALLIES
from app.stats.schemas import EncounterStatsRead
from tests.api.helpers import assert_problem, attack, create_encounter, fighter
from tests.stats.helpers import seeded_fight


def play(client, url: str, declarations: list[dict[str, Any]], dice: dict[str, Any]) -> dict[str, Any]:
    response = client.post(f"{url}/rounds", json={"declarations": declarations, "dice": dice, "seed": 5})
    assert response.status_code == 201, response.text
    return response.json()


def test_a_fight_with_fixed_dice_counts_what_was_counted_by_hand(client):
    # Long swords (1d8, delay 5), no armor, vitality 10; a turn is two rounds, so round 2 bleeds.
    encounter = create_encounter(
        client,
        fighter("Ala", side="party", vitality=10),
        fighter("Bolek", side="party", vitality=10),
        fighter("Cyryl", side="bandits", vitality=10),
        rules={"turn_length": 2},
    )
    url = f"/v1/encounters/{encounter['id']}"
    a, b, c = (x["id"] for x in encounter["combatants"])
    # Round 1: Ala (offensive, TN 16 - 6 = 10) rolls a natural 1: margin 9 -> +4, damage 4: blow 8, moderate.
    # Cyryl (defensive, TN 12 - 2 = 10) rolls a natural 20 at Ala. Bolek gives Ala first aid (defensive).
    play(
        client,
        url,
        [
            attack(a, c, stance="offensive"),
            attack(c, a, stance="defensive"),
            {"combatant": b, "stance": "defensive", "action": {"type": "first_aid", "target": a}},
        ],
        {
            f"{a}.initiative.1": 1,
            f"{a}.attack.1": 1,
            f"{a}.damage.1": [4],
            f"{c}.initiative.1": 2,
            f"{c}.attack.1": 20,
            f"{b}.initiative.1": 3,
        },
    )
    # Round 2: Ala at Cyryl (balanced, penalty 2): TN 16 - 2 = 14, roll 5: margin 9 -> +4, damage 5: blow 9,
    # severe. Cyryl at Bolek (who declares nothing: balanced): TN 8 at most, roll 9, a plain miss.
    # The turn ends: Cyryl bleeds 1 + 2 = 3 (10 -> 7).
    play(
        client,
        url,
        [attack(a, c, stance="offensive"), attack(c, b)],
        {f"{a}.initiative.1": 1, f"{a}.attack.1": 5, f"{a}.damage.1": [5], f"{c}.initiative.1": 2, f"{c}.attack.1": 9},
    )
    # Round 3: Ala first (score 20-5-1 = 14 against Cyryl's 20-5-5-10 = 0). Cyryl defensive with penalty 5:
    # TN 16 - 1 = 15, roll 2: margin 13 -> +6, damage 8: blow 14, critical: unconscious. Cyryl's attack is lost.
    third = play(
        client,
        url,
        [attack(a, c, stance="offensive"), attack(c, a, stance="defensive")],
        {f"{a}.initiative.1": 1, f"{a}.attack.1": 2, f"{a}.damage.1": [8], f"{c}.initiative.1": 10},
    )
    critical = next(e for e in third["actions"] if e["wound"] == "critical")
    assert [e["result"] for e in third["actions"]] == ["wound", "actor_down"]

    response = client.get(f"{url}/stats")
    assert response.status_code == 200, response.text
    stats = response.json()
    assert stats["encounter"] == encounter["id"] and stats["rounds"] == 3
    nothing = {name: 0 for name in NUMBERS}
    no_blood_lost = {"start": 10, "end": 10, "lost_to_bleeding": 0, "regained": 0}
    assert stats["combatants"] == [
        {
            "combatant": a, "name": "Ala", "side": "party", **nothing,
            "actions": {"attack": 3}, "attacks": 3, "hits": 3, "natural_hits": 1,
            "wounds_dealt": {"critical": 1, "moderate": 1, "severe": 1}, "wounds_taken": {},
            "stances": {"offensive": 3}, "blood": no_blood_lost, "down": None,
        },
        {
            "combatant": b, "name": "Bolek", "side": "party", **nothing,
            "actions": {"first_aid": 1}, "first_aid_given": 1, "wounds_dealt": {}, "wounds_taken": {},
            "stances": {"balanced": 2, "defensive": 1}, "blood": no_blood_lost, "down": None,
        },
        {
            "combatant": c, "name": "Cyryl", "side": "bandits", **nothing,
            "actions": {"attack": 3}, "attacks": 2, "misses": 2, "natural_misses": 1,
            "wounds_dealt": {}, "wounds_taken": {"critical": 1, "moderate": 1, "severe": 1},
            "stances": {"balanced": 1, "defensive": 2},
            "blood": {"start": 10, "end": 7, "lost_to_bleeding": 3, "regained": 0},
            "down": {"status": "unconscious", "round": 3, "tick": critical["tick"], "by": a},
        },
    ]  # fmt: skip
    party, bandits = stats["sides"]
    assert party["side"] == "party" and party["combatants"] == [a, b] and party["down"] == 0
    assert party["attacks"] == 3 and party["first_aid_given"] == 1 and party["stances"] == {
        "balanced": 2, "defensive": 1, "offensive": 3}  # fmt: skip
    assert party["blood"] == {"start": 20, "end": 20, "lost_to_bleeding": 0, "regained": 0}
    assert bandits["combatants"] == [c] and bandits["down"] == 1 and bandits["wounds_taken"] == {
        "critical": 1, "moderate": 1, "severe": 1}  # fmt: skip
    blood = [[(p["blood"], p["status"]) for p in k["combatants"]] for k in stats["series"]]
    assert [k["round"] for k in stats["series"]] == [0, 1, 2, 3]
    assert blood == [
        [(10, "active")] * 3,
        [(10, "active")] * 3,
        [(10, "active"), (10, "active"), (7, "active")],
        [(10, "active"), (10, "active"), (7, "unconscious")],
    ]


def summed(combatants: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {name: sum(c[name] for c in combatants) for name in NUMBERS}
    for name in TALLIES:
        tally: Counter[str] = Counter()
        for c in combatants:
            tally.update(c[name])
        total[name] = dict(sorted(tally.items()))
    total["blood"] = {name: sum(c["blood"][name] for c in combatants) for name in BLOOD}
    return total


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sides_sum_their_combatants_and_series_k_is_round_k(client, seed):
    url, ids = seeded_fight(client, 8, seed=seed, rules={"turn_length": 3})
    stats = client.get(f"{url}/stats").json()
    assert EncounterStatsRead.model_validate(stats).model_dump(mode="json") == stats  # the documented shape
    by_side: dict[str, list[dict[str, Any]]] = {}
    for c in stats["combatants"]:
        by_side.setdefault(c["side"], []).append(c)
    assert [s["side"] for s in stats["sides"]] == list(by_side)
    for side in stats["sides"]:
        members = by_side[side["side"]]
        assert side["combatants"] == [c["combatant"] for c in members]
        assert side["down"] == sum(c["down"] is not None for c in members)
        assert {k: side[k] for k in (*NUMBERS, *TALLIES, "blood")} == summed(members)
    documents = client.get(f"{url}/rounds", params={"limit": 100}).json()["items"]
    assert len(stats["series"]) == len(documents) + 1
    for k, document in enumerate(documents, start=1):
        assert stats["series"][k] == {
            "round": k,
            "combatants": [
                {"combatant": c["id"], "blood": c["blood"], "status": c["status"]} for c in document["combatants"]
            ],
        }
        for c in stats["combatants"]:
            if c["down"] is not None and c["down"]["round"] == k:
                assert next(s for s in document["combatants"] if s["id"] == c["combatant"])["status"] != "active"
    # every wound dealt is a wound taken, and every attack is a hit or a miss
    assert summed(stats["combatants"])["wounds_dealt"] == summed(stats["combatants"])["wounds_taken"]
    for c in stats["combatants"]:
        assert c["attacks"] == c["hits"] + c["misses"]
        assert c["blood"]["end"] == stats["series"][-1]["combatants"][ids.index(c["combatant"])]["blood"]


def test_before_any_round_the_stats_are_the_starting_state(client):
    encounter = create_encounter(client, fighter("Ala", blood=7, vitality=10), fighter("Bolek"))
    stats = client.get(f"/v1/encounters/{encounter['id']}/stats").json()
    assert stats["rounds"] == 0
    assert [c["blood"] for c in stats["combatants"]] == [
        {"start": 7, "end": 7, "lost_to_bleeding": 0, "regained": 0},
        {"start": 10, "end": 10, "lost_to_bleeding": 0, "regained": 0},
    ]
    assert stats["series"] == [{"round": 0, "combatants": [
        {"combatant": c["id"], "blood": c["blood"], "status": "active"} for c in encounter["combatants"]]}]  # fmt: skip
    assert [s["side"] for s in stats["sides"]] == [c["id"] for c in encounter["combatants"]]  # each its own side


def test_undo_takes_the_round_out_of_the_stats(client):
    url, _ = seeded_fight(client, 3)
    before = client.get(f"{url}/stats").json()
    assert client.delete(f"{url}/rounds/3").status_code == 204
    after = client.get(f"{url}/stats").json()
    assert after["rounds"] == 2 and after["series"] == before["series"][:3]


def test_a_token_reads_the_stats_without_the_hidden(client):
    encounter = create_encounter(client, fighter("Ala", side="party"), fighter("Cień", side="bandits", hidden=True),
                                 fighter("Bolek", side="bandits"))  # fmt: skip
    url = f"/v1/encounters/{encounter['id']}"
    a, hidden, b = (c["id"] for c in encounter["combatants"])
    assert client.post(f"{url}/rounds", json={"declarations": [attack(a, b)], "seed": 3}).status_code == 201
    viewer = client.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    screened = client.get(f"{url}/stats", headers={"Authorization": f"Bearer {viewer}"})
    assert screened.status_code == 200
    assert hidden not in screened.text and "Cień" not in screened.text
    assert [c["combatant"] for c in screened.json()["combatants"]] == [a, b]
    assert [c["combatant"] for c in client.get(f"{url}/stats").json()["combatants"]] == [a, hidden, b]


def test_another_campaigns_encounter_is_not_found(client):
    from tests.api.campaign_helpers import other_campaign

    encounter = create_encounter(client, fighter("Ala"))
    assert_problem(client.get(f"/v1/encounters/{encounter['id']}/stats", headers=other_campaign(client)), 404)
