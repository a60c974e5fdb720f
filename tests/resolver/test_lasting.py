"""RULES.md sections 12-13 (effects, long actions) and the additions to sections 2, 5-7, with every die fixed.

Unless a case says otherwise a fighter has initiative 10, attack 10, defense 0 and a long sword
(delay 5, 1d8); a score is initiative - penalty + effects' initiative - 5 x technical actions - delay - die.
"""

import pytest

from tests.resolver.helpers import (
    attack,
    brief,
    carrying,
    effect,
    fighter,
    long,
    none,
    resolve,
    state_of,
)

MISS = {"ala.initiative.1": 1, "ala.attack.1": 20}  # ala: score 10 - 5 - 1 = 4, and a natural miss


@pytest.mark.parametrize(
    ("ala_effects", "bolek", "score", "target_number"),
    [
        ([], {}, 4, 10),
        ([effect(attack=3, initiative=2)], {}, 6, 13),
        ([effect(attack=3), effect(attack=-1, initiative=-3)], {}, 1, 12),  # several add up
        ([], {"effects": [effect("slowed", defense=-2)]}, 4, 12),
        ([], {"effects": [effect("warded", defense=5)], "status": "unconscious", "blood": 0}, 4, 10),  # 0 flat
        ([effect(attack=3, until_round=2)], {}, 4, 10),  # already over in round 3: ignored
        ([effect(attack=3, until_round=3)], {}, 4, 13),  # its last round: still counts
        ([effect(attack=3, until_round=None)], {}, 4, 13),
    ],
)
def test_active_effects_add_to_attack_defense_and_the_first_score(ala_effects, bolek, score, target_number):
    result = resolve([fighter("ala", effects=ala_effects), fighter("bolek", **bolek)], [attack("ala", "bolek")],
                     MISS, round=3)
    assert brief(result, "score", "target_number") == [("ala", 1, "miss", score, target_number)]


def test_an_effects_initiative_carries_into_later_attacks_but_not_the_tie_rule():
    """ala 10 + 2 - 5 - 1 = 6 and bolek 12 - 5 - 1 = 6: equal scores, bolek's initiative as entered (12) goes first."""
    result = resolve(
        [fighter("ala", attacks_per_round=2, effects=[effect(initiative=2)]), fighter("bolek", initiative=12)],
        [attack("ala", "bolek"), attack("bolek", "ala")],
        {"ala.initiative.1": 1, "ala.initiative.2": 3, "ala.attack.1": 20, "ala.attack.2": 20,
         "bolek.initiative.1": 1, "bolek.attack.1": 20},
    )
    assert brief(result, "tick", "score") == [("bolek", 1, "miss", 1, 6), ("ala", 1, "miss", 2, 6),
                                              ("ala", 2, "miss", 3, -2)]  # 6 - 5 - 3


@pytest.mark.parametrize(
    ("ids", "order"), [(["a", "B"], ["B", "a"]), (["é", "z"], ["z", "é"]), (["ab", "a"], ["a", "ab"])]
)
def test_a_tick_lists_ids_code_point_by_code_point(ids, order):
    fighters = [fighter(i) for i in ids] + [fighter("target")]
    result = resolve(fighters, [attack(i, "target") for i in ids],
                     {k: v for i in ids for k, v in ((f"{i}.initiative.1", 1), (f"{i}.attack.1", 20))})
    assert [(a["actor"], a["tick"]) for a in result["actions"]] == [(i, 1) for i in order]


@pytest.mark.parametrize(("roll", "result"), [(20, "miss"), (1, "miss"), (19, "wound")])
def test_a_natural_miss_equal_to_natural_hit_misses(roll, result):
    """TN 30 (attack 30 against defense 0) makes any roll but the natural one a hit; here both naturals are 20."""
    outcome = resolve([fighter("ala", attack=30), fighter("bolek", defense=0 if roll != 1 else 40)],
                      [attack("ala", "bolek")], {"ala.initiative.1": 1, "ala.attack.1": roll, "ala.damage.1": [1]},
                      rules={"natural_hit": 20, "natural_miss": 20})
    assert brief(outcome)[0][2] == result


@pytest.mark.parametrize(
    ("armor", "rules", "effective", "wound"),
    [(0, None, 8, "moderate"), ("none", None, 8, "moderate"), ("leather", None, 7, "moderate"),
     ("plate", None, 2, "scratch"), (6, None, 2, "scratch"), ("leather", {"armor": {"leather": 5}}, 3, "light"),
     ("dragon_hide", {"armor": {"dragon_hide": 8}}, 0, None)],
)
def test_armor_by_name_counts_as_its_number_in_the_ruleset(armor, rules, effective, wound):
    """TN 10, d20 10: margin 0; a die of 8 makes a blow of 8."""
    result = resolve([fighter("ala"), fighter("bolek", armor=armor)], [attack("ala", "bolek")],
                     {"ala.initiative.1": 1, "ala.attack.1": 10, "ala.damage.1": [8]}, rules=rules)
    assert brief(result, "blow", "effective", "wound")[0][3:] == (8, effective, wound)


@pytest.mark.parametrize(
    ("bolek", "bleeding"),
    [
        ({"wounds": [{"class": "moderate"}], "effects": [effect("poisoned", blood_per_turn=2)]}, (3, 7, "active")),
        ({"blood": 8, "effects": [effect("regenerating", blood_per_turn=-3)]}, (-2, 10, "active")),  # capped
        ({"blood": 12, "effects": [effect("regenerating", blood_per_turn=-3)]}, None),  # above vitality: nothing
        ({"blood": 5, "wounds": [{"class": "severe"}], "effects": [effect("regenerating", blood_per_turn=-3)]},
         (-1, 6, "active")),  # the sum is -1: it regains 1
        ({"blood": -2, "status": "unconscious", "effects": [effect("regenerating", blood_per_turn=-5)]},
         (-5, 3, "unconscious")),  # blood back, still unconscious
        ({"blood": 3, "effects": [effect("poisoned", blood_per_turn=5)]}, (5, -2, "unconscious")),
        ({"blood": -8, "effects": [effect("poisoned", blood_per_turn=2)]}, (2, -10, "dead")),
        ({"blood": -10, "status": "dead", "effects": [effect("poisoned", blood_per_turn=2)]}, None),
        ({"effects": [effect("poisoned", blood_per_turn=2, until_round=9)]}, None),  # over before round 10
        ({"effects": [effect("poisoned", blood_per_turn=2, until_round=10)]}, (2, 8, "active")),  # its last round
    ],
)
def test_at_a_turn_end_effects_drain_or_restore_blood(bolek, bleeding):
    result = resolve([fighter("ala"), fighter("bolek", **bolek)], [], {}, round=10)
    expected = [] if bleeding is None else [dict(zip(("combatant", "lost", "blood", "status"), ("bolek", *bleeding)))]
    assert result["bleeding"] == expected


def test_effects_settle_only_at_a_turn_end():
    result = resolve([fighter("bolek", effects=[effect("poisoned", blood_per_turn=2)])], [], {}, round=9)
    assert result["bleeding"] == [] and state_of(result, "bolek")["blood"] == 10


@pytest.mark.parametrize(
    ("status", "kept"),
    [("active", ["forever", "later"]), ("unconscious", ["forever", "later"]),
     ("dead", ["over", "ends now", "forever", "later"])],  # a dead one never changes again
)
def test_effects_end_after_their_last_round(status, kept):
    effects = [effect("over", until_round=3), effect("ends now", until_round=4), effect("forever"),
               effect("later", until_round=5)]
    result = resolve([fighter("ala", status=status, blood=0 if status != "active" else None, effects=effects)],
                     [], {}, round=4)
    assert [e["name"] for e in state_of(result, "ala")["effects"]] == kept


def ward(**action):
    """cyryl's ward on ala, delay 0 (score 10 - 0 - die)."""
    return long("cyryl", 0, effect=effect("warded", defense=4, rounds=2), target="ala", **action)


@pytest.mark.parametrize(
    ("cyryl_die", "ticks", "target_number"),
    [
        (1, [("cyryl", 1, "done", 1), ("bolek", 1, "miss", 2)], 6),  # given before bolek's tick: counts
        (6, [("bolek", 1, "miss", 1), ("cyryl", 1, "done", 1)], 10),  # same tick (score 4): not yet
        (9, [("bolek", 1, "miss", 1), ("cyryl", 1, "done", 2)], 10),  # after bolek
    ],
)
def test_an_effect_given_counts_from_the_next_tick(cyryl_die, ticks, target_number):
    """bolek 10 - 5 - 1 = 4 attacks ala; cyryl's one-round ward gives ala Defense +4 at its tick's end."""
    result = resolve([fighter("ala"), fighter("bolek"), fighter("cyryl")], [attack("bolek", "ala"), ward()],
                     {"bolek.initiative.1": 1, "bolek.attack.1": 20, "cyryl.initiative.1": cyryl_die}, round=7)
    assert brief(result, "tick") == ticks
    assert next(a for a in result["actions"] if a["actor"] == "bolek")["target_number"] == target_number
    assert state_of(result, "ala")["effects"] == [
        {"id": "7:cyryl", "name": "warded", "attack": 0, "defense": 4, "initiative": 0, "blood_per_turn": 0,
         "until_round": 9}]


def test_an_effect_without_rounds_lasts_until_removed_and_goes_to_the_actor_without_target():
    result = resolve([fighter("ala")], [long("ala", 0, "rage", effect=effect("raging", attack=2))],
                     {"ala.initiative.1": 1})
    entry = result["actions"][0]
    assert (entry["type"], entry["name"], entry["target"], entry["result"]) == ("custom", "rage", None, "done")
    assert [(e["id"], e["until_round"]) for e in state_of(result, "ala")["effects"]] == [("1:ala", None)]


def test_a_long_action_starts_in_progress_and_is_carried():
    result = resolve([fighter("ala"), fighter("cyryl")], [ward(rounds=3)], {"cyryl.initiative.1": 2})
    assert brief(result, "type", "name", "target", "score") == [
        ("cyryl", 1, "in_progress", "custom", "ward", "ala", 8)]
    assert state_of(result, "cyryl")["long_action"] == {
        "name": "ward", "delay": 0, "target": "ala", "rounds_left": 2,
        "effect": {"name": "warded", "attack": 0, "defense": 4, "initiative": 0, "blood_per_turn": 0, "rounds": 2}}
    assert state_of(result, "ala")["effects"] == []


CARRIED = carrying(delay=4, rounds_left=2, target="ala", effect=effect("warded", defense=4, rounds=2))


@pytest.mark.parametrize(
    "declarations",
    [[], [{"combatant": "cyryl"}], [{"combatant": "cyryl", "stance": "defensive"}],
     [{"combatant": "cyryl", "action": {"type": "continue"}}]],
    ids=["no declaration", "no action", "only a stance", "continue"],
)
def test_a_carried_long_action_continues_unless_something_else_is_declared(declarations):
    """Score 10 - 0 + 0 - delay 4 - die 3 = 3, no technical actions; it counts down to 1."""
    result = resolve([fighter("ala"), fighter("cyryl", long_action=CARRIED)], declarations,
                     {"cyryl.initiative.1": 3}, round=2)
    assert brief(result, "type", "name", "target", "score", "technical_actions") == [
        ("cyryl", 1, "in_progress", "continue", "ward", "ala", 3, 0)]
    assert state_of(result, "cyryl")["long_action"]["rounds_left"] == 1
    assert result["dice"] == {"cyryl.initiative.1": 3}


@pytest.mark.parametrize(
    ("declaration", "dice"),
    [(none("cyryl"), {}), (attack("cyryl", "ala"), {"cyryl.initiative.1": 3, "cyryl.attack.1": 20}),
     (long("cyryl", 2, "other"), {"cyryl.initiative.1": 3})],
)
def test_any_other_declaration_abandons_the_long_action(declaration, dice):
    result = resolve([fighter("ala"), fighter("cyryl", long_action=CARRIED)], [declaration], dice, round=2)
    assert all(a["type"] != "continue" for a in result["actions"])
    assert state_of(result, "cyryl")["long_action"] is None


@pytest.mark.parametrize(
    ("ala", "result", "effects"),
    [({}, "done", ["warded"]), ({"status": "dead", "blood": -10}, "target_down", [])],
)
def test_the_last_round_completes_it_with_its_effect_or_target_down(ala, result, effects):
    last = {**CARRIED, "rounds_left": 1}
    outcome = resolve([fighter("ala", **ala), fighter("cyryl", long_action=last)], [], {"cyryl.initiative.1": 3},
                      round=5)
    assert brief(outcome) == [("cyryl", 1, result)]
    assert [e["name"] for e in state_of(outcome, "ala")["effects"]] == effects
    assert state_of(outcome, "cyryl")["long_action"] is None


# bolek strikes cyryl first (10 - 5 - 1 = 4; cyryl continues at 10 - 4 - 6 = 0): d20 1 against TN 10 gives
# margin 9 (+4); the damage die then makes the effective blow.
def strike(damage: int) -> dict:
    return {"bolek.initiative.1": 1, "bolek.attack.1": 1, "bolek.damage.1": [damage], "cyryl.initiative.1": 6}


@pytest.mark.parametrize(
    ("damage", "rules", "cyryl_result", "carried"),
    [
        (1, None, "in_progress", 1),  # effective 5, light: not broken
        (2, None, "interrupted", None),  # effective 6, moderate: broken_at 6
        (5, {"long_action_broken_at": None}, "in_progress", 1),  # effective 9, severe: null never breaks
        (1, {"long_action_broken_at": 5}, "interrupted", None),
        (8, {"long_action_broken_at": None, "wound_classes": [
            {"class": "stun", "min": 1, "penalty": 0, "bleed": 0, "forces": "unconscious"}]}, "actor_down", None),
    ],
)
def test_a_heavy_wound_or_going_down_breaks_a_long_action(damage, rules, cyryl_result, carried):
    result = resolve([fighter("ala"), fighter("bolek"), fighter("cyryl", long_action=CARRIED)],
                     [attack("bolek", "cyryl")], strike(damage), round=2, rules=rules)
    assert brief(result, "tick")[1] == ("cyryl", 1, cyryl_result, 2)
    long_action = state_of(result, "cyryl")["long_action"]
    assert (long_action and long_action["rounds_left"]) == carried


def test_a_blow_in_its_own_tick_does_not_stop_progress_or_completion():
    """bolek and cyryl share a tick (score 4, initiative 10): the ward completes and is given; then the wound."""
    last = {**CARRIED, "rounds_left": 1, "delay": 0}
    dice = {**strike(2), "cyryl.initiative.1": 6}
    result = resolve([fighter("ala"), fighter("bolek"), fighter("cyryl", long_action=last)],
                     [attack("bolek", "cyryl")], dice, round=2)
    assert brief(result, "tick") == [("bolek", 1, "wound", 1), ("cyryl", 1, "done", 1)]
    assert [e["id"] for e in state_of(result, "ala")["effects"]] == ["2:cyryl"]
    assert state_of(result, "cyryl")["long_action"] is None


def test_a_long_action_hit_in_the_tick_it_starts_is_lost_at_once():
    result = resolve([fighter("ala"), fighter("bolek"), fighter("cyryl")],
                     [attack("bolek", "cyryl"), ward(rounds=3)], {**strike(2), "cyryl.initiative.1": 6})
    assert brief(result, "tick") == [("bolek", 1, "wound", 1), ("cyryl", 1, "in_progress", 1)]
    assert state_of(result, "cyryl")["long_action"] is None


def test_bleeding_at_the_turn_end_that_fells_a_carrier_takes_its_long_action():
    result = resolve([fighter("ala"), fighter("cyryl", blood=1, wounds=[{"class": "moderate"}],
                                              long_action=CARRIED)], [], {"cyryl.initiative.1": 3}, round=10)
    assert result["bleeding"] == [{"combatant": "cyryl", "lost": 1, "blood": 0, "status": "unconscious"}]
    assert brief(result) == [("cyryl", 1, "in_progress")]
    assert state_of(result, "cyryl")["long_action"] is None


def test_new_effects_follow_the_kept_ones_in_tick_then_listing_order():
    """ala keeps 'old'; then cyryl (tick 1) and bolek, dorota (one tick 2, listed by id) give theirs."""
    give = lambda actor, name: long(actor, 0, name, target="ala", effect=effect(name))  # noqa: E731
    result = resolve(
        [fighter("ala", effects=[effect("old")]), fighter("dorota"), fighter("bolek"), fighter("cyryl")],
        [give("dorota", "d"), give("bolek", "b"), give("cyryl", "c")],
        {"dorota.initiative.1": 5, "bolek.initiative.1": 5, "cyryl.initiative.1": 1},
    )
    assert [e["name"] for e in state_of(result, "ala")["effects"]] == ["old", "c", "b", "d"]
