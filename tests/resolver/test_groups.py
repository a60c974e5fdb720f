"""RULES.md section 14, groups, sentence by sentence, with every die fixed.

Unless a case says otherwise a fighter has initiative 10, attack 10, defense 0 and a long sword
(delay 5, 1d8); every attack rolls a natural miss (20), so no damage die is needed.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.resolver import MixedDice, build_ruleset, resolve_round
from app.resolver.codec import declaration_to_json, result_to_json, round_input_to_json
from tests.resolver.decoding import round_input_from_json
from tests.resolver.helpers import attack, carrying, custom, fighter, first_aid, none, refused_fields, resolve

PACK = "group:pack.initiative.1"


def wolf(id: str, group: str | None = "pack", **fields: Any) -> dict[str, Any]:
    return fighter(id, group=group, **fields)


def misses(*actors: str, seqs: int = 1) -> dict[str, int]:
    return {f"{a}.attack.{k}": 20 for a in actors for k in range(1, seqs + 1)}


def scores(result: dict[str, Any]) -> list[tuple]:
    return [(a["tick"], a["actor"], a["seq"], a["score"]) for a in result["actions"]]


def test_members_share_one_die_and_each_scores_it_with_its_own_numbers():
    """w1: 10 - 5 - 3 = 2; w2 initiative 14, a light wound (1), dagger (2), a technical action: 14 - 1 - 5 - 2 - 3
    = 3; w3 with effects' initiative +2 and a custom delay 0: 10 + 2 - 0 - 3 = 9."""
    result = resolve(
        [wolf("w1"), wolf("w2", initiative=14, weapon="dagger", wounds=[{"class": "light"}]),
         wolf("w3", effects=[{"name": "hasted", "initiative": 2}]), fighter("hunter")],
        [attack("w1", "hunter"), attack("w2", "hunter", technical_actions=1), custom("w3", 0), none("hunter")],
        {PACK: 3, **misses("w1", "w2")},
    )
    assert scores(result) == [(1, "w3", 1, 9), (2, "w2", 1, 3), (3, "w1", 1, 2)]
    assert result["dice"] == {PACK: 3, **misses("w2", "w1")}  # echoed once, under the group's key


def test_later_attacks_roll_their_own_dice_under_their_own_keys():
    result = resolve(
        [wolf("w1", attacks_per_round=2), wolf("w2", attacks_per_round=2), fighter("hunter")],
        [attack("w1", "hunter"), attack("w2", "hunter")],
        {PACK: 1, "w1.initiative.2": 2, "w2.initiative.2": 6, **misses("w1", "w2", seqs=2)},
    )
    assert scores(result) == [(1, "w1", 1, 4), (1, "w2", 1, 4), (2, "w1", 2, -3), (3, "w2", 2, -7)]
    assert set(result["dice"]) == {PACK, "w1.initiative.2", "w2.initiative.2", *misses("w1", "w2", seqs=2)}


def test_first_aid_custom_and_continue_share_the_die_too():
    result = resolve(
        [wolf("w1"), wolf("w2"), wolf("w3", long_action=carrying(delay=4, rounds_left=2))],
        [first_aid("w1", "w2"), custom("w2", 2)],  # w3 declares nothing: it continues (10 - 4 - 5 = 1)
        {PACK: 5},
    )
    assert [(a["actor"], a["type"], a["score"]) for a in result["actions"]] == [
        ("w2", "custom", 3), ("w3", "continue", 1), ("w1", "first_aid", -5)]
    assert set(result["dice"]) == {PACK}


def test_a_held_member_rolls_the_groups_die_and_a_hold_on_a_member_waits_for_it():
    """w1 holds on the hunter (10 - 5 - 6 = -1): its 10 - 5 - 2 = 3 moves after; w2 has the same die."""
    result = resolve(
        [wolf("w1"), wolf("w2"), fighter("hunter")],
        [{**attack("w1", "hunter"), "hold": "hunter"}, attack("w2", "hunter"), attack("hunter", "w1")],
        {PACK: 2, "hunter.initiative.1": 6, **misses("w1", "w2", "hunter")},
    )
    assert [(a["tick"], a["actor"], a["score"], a["held"]) for a in result["actions"]] == [
        (1, "w2", 3, False), (2, "hunter", -1, False), (3, "w1", -1, True)]


def test_a_group_of_one_rolls_under_the_groups_key():
    result = resolve([wolf("w1"), fighter("hunter")], [attack("w1", "hunter")], {PACK: 4, **misses("w1")})
    assert scores(result) == [(1, "w1", 1, 1)]
    assert PACK in result["dice"] and "w1.initiative.1" not in result["dice"]


def test_groups_are_told_apart_exactly_as_strings():
    result = resolve(
        [wolf("w1"), wolf("w2", group="Pack"), wolf("w3", group="pack "), fighter("hunter")],
        [attack("w1", "hunter"), attack("w2", "hunter"), attack("w3", "hunter")],
        {PACK: 1, "group:Pack.initiative.1": 2, "group:pack .initiative.1": 3, **misses("w1", "w2", "w3")},
    )
    assert scores(result) == [(1, "w1", 1, 4), (2, "w2", 1, 3), (3, "w3", 1, 2)]


def test_the_order_still_compares_each_members_own_score_and_initiative():
    """Equal scores: the higher initiative as entered first; equal in both: one tick, by id."""
    result = resolve(
        [wolf("w1", initiative=11, weapon="spear"), wolf("w2"), wolf("w0"), fighter("hunter")],  # spear: delay 4
        [attack("w1", "hunter"), attack("w2", "hunter"), attack("w0", "hunter")],
        {PACK: 1, **misses("w1", "w2", "w0")},
    )
    assert scores(result) == [(1, "w1", 1, 6), (2, "w0", 1, 4), (2, "w2", 1, 4)]


def test_a_seeded_group_die_is_one_value_for_every_member():
    body = {"combatants": [wolf(f"w{i}") for i in range(6)] + [fighter("hunter")],
            "declarations": [attack(f"w{i}", "hunter") for i in range(6)]}
    for seed in range(20):
        result = result_to_json(resolve_round(round_input_from_json(body), build_ruleset(), MixedDice({}, seed)))
        assert len({a["score"] for a in result["actions"] if a["seq"] == 1}) == 1
        assert [k for k in result["dice"] if "initiative" in k] == [PACK]


def test_the_groups_die_joins_nothing_when_no_member_rolls_a_first_die():
    """A member that declares none, or only members that do, roll nothing: the key names no roll."""
    body = {"combatants": [wolf("w1"), wolf("w2"), fighter("hunter")],
            "declarations": [none("w1"), attack("hunter", "w1")],
            "dice": {PACK: 3}}
    assert refused_fields(body) == [f"/dice/{PACK}"]


REFUSED = {
    "a member's own first delay die": (
        [wolf("w1"), fighter("hunter")], [attack("w1", "hunter")], {"w1.initiative.1": 3}, ["/dice/w1.initiative.1"]),
    "a member's own first die beside the group's": (
        [wolf("w1"), wolf("w2"), fighter("hunter")], [attack("w1", "hunter")], {PACK: 2, "w2.initiative.1": 3},
        ["/dice/w2.initiative.1"]),
    "the group's die outside the delay die's sides": (
        [wolf("w1"), fighter("hunter")], [attack("w1", "hunter")], {PACK: 11}, [f"/dice/{PACK}"]),
    "a group's die nobody in it rolls": (
        [wolf("w1"), fighter("hunter")], [attack("hunter", "w1")], {PACK: 1}, [f"/dice/{PACK}"]),
    "an empty group name": ([wolf("w1", group="")], [], {}, ["/combatants/0/group"]),
    "a group name of 65 characters": ([wolf("w1", group="x" * 65)], [], {}, ["/combatants/0/group"]),
    "a group that is not a string": ([wolf("w1", group=3)], [], {}, ["/combatants/0/group"]),
    "a combatant named as a group's dice key": (
        [wolf("w1"), fighter("group:pack")], [], {}, ["/combatants/1/id"]),
}


@pytest.mark.parametrize(("combatants", "declarations", "dice", "fields"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_groups(combatants, declarations, dice, fields):
    assert refused_fields({"combatants": combatants, "declarations": declarations, "dice": dice}) == fields


@pytest.mark.parametrize("group", ["x" * 64, "a", "group:pack", "wilki 🐺"])
def test_group_names_within_bounds_are_accepted(group):
    assert refused_fields({"combatants": [wolf("w1", group=group)], "declarations": []}) is None


def test_an_id_starting_group_colon_is_fine_when_no_group_has_that_name():
    body = {"combatants": [wolf("w1", group="wolves"), fighter("group:pack")], "declarations": []}
    assert refused_fields(body) is None


def test_the_codec_reads_back_what_it_writes():
    body = {"round": 4, "combatants": [wolf("w1"), fighter("hunter")],
            "declarations": [{**attack("w1", "hunter"), "hold": "hunter"}, attack("hunter", "w1")]}
    state = round_input_from_json(body)
    assert state.groups == {"w1": "pack"} and state.declarations[0].hold == "hunter"
    assert round_input_from_json(round_input_to_json(state)) == state
    assert declaration_to_json(state.declarations[1]) == {
        "combatant": "hunter", "stance": None, "technical_actions": 0,
        "action": {"type": "attack", "targets": ["w1"]}}
