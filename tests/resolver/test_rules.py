"""Rules of RULES.md that the golden vectors do not pin down, with every die fixed and worked by hand.

Unless a case says otherwise a fighter has initiative 10, attack 10, defense 0 and a long sword
(delay 5, 1d8); a score is initiative - penalty - 5 x technical actions - delay - delay die.
"""

import pytest

from tests.resolver.helpers import attack, brief, custom, fighter, first_aid, none, refused_fields, resolve, state_of

CRITICAL = {"class": "critical"}  # penalty 5, bleed 3
SEVERE = {"class": "severe"}  # penalty 3, bleed 2
MODERATE = {"class": "moderate"}  # penalty 2, bleed 1
LIGHT = {"class": "light"}  # penalty 1, bleed 0

# bolek strikes first (20 - 5 - 1 = score 14): d20 5 against TN 10, margin 5 (+2), and a damage die
# that, with his damage bonus, makes a blow of 30 (mortal) or 12 (critical, unconscious).
BOLEK_KILLS = {"bolek.initiative.1": 1, "bolek.attack.1": 5, "bolek.damage.1": [8]}
BOLEK_FELLS = {"bolek.initiative.1": 1, "bolek.attack.1": 5, "bolek.damage.1": [2]}


def test_an_attack_on_a_target_killed_earlier_in_the_round_is_target_down():
    result = resolve(
        [fighter("ala"), fighter("bolek", initiative=20, damage_bonus=20), fighter("cyryl")],
        [attack("bolek", "cyryl"), attack("ala", "cyryl")],
        {**BOLEK_KILLS, "ala.initiative.1": 1, "ala.attack.1": 5, "ala.damage.1": [3]},
    )
    assert brief(result, "tick", "score", "roll", "blow", "wound") == [
        ("bolek", 1, "wound", 1, 14, 5, 30, "mortal"),
        ("ala", 1, "target_down", 2, 4, None, None, None),
    ]
    assert state_of(result, "cyryl")["status"] == "dead"
    # ala's d20 and damage were accepted (the attack could have happened) but, unused, are not echoed
    assert set(result["dice"]) == {"bolek.initiative.1", "bolek.attack.1", "bolek.damage.1", "ala.initiative.1"}


@pytest.mark.parametrize(
    ("cyryl", "target_number"),
    [
        # ala: attack 10 + offensive 2 - light wound 1 = 11, against:
        ({"status": "unconscious", "blood": -1, "defense": 8, "wounds": [LIGHT]}, 11),  # 0 flat
        ({"defense": 8, "wounds": [LIGHT]}, 4),  # an active one: 8 - 1
    ],
)
def test_an_unconscious_target_defends_with_0_flat(cyryl, target_number):
    result = resolve(
        [fighter("ala", wounds=[LIGHT]), fighter("cyryl", **cyryl)],
        [attack("ala", "cyryl", stance="offensive")],
        {"ala.initiative.1": 1, "ala.attack.1": 20},
    )
    assert brief(result, "score", "target_number") == [("ala", 1, "miss", 3, target_number)]


def test_a_target_felled_earlier_in_the_round_loses_its_stance_and_penalty():
    """cyryl declared defensive (defense 8 + 2); once unconscious she defends with 0, not 10 - 5."""
    result = resolve(
        [fighter("ala"), fighter("bolek", initiative=20, damage_bonus=12), fighter("cyryl", defense=8)],
        [attack("bolek", "cyryl"), attack("ala", "cyryl"), custom("cyryl", 0, "parry", stance="defensive")],
        {"bolek.initiative.1": 1, "bolek.attack.1": 1, "bolek.damage.1": [1],
         "ala.initiative.1": 1, "ala.attack.1": 20, "cyryl.initiative.1": 10},
    )
    assert brief(result, "score", "target_number", "blow", "wound") == [
        ("bolek", 1, "wound", 14, 0, 13, "critical"),  # natural 1 against TN 10 - (8 + 2); margin 0
        ("ala", 1, "miss", 4, 10, None, None),
        ("cyryl", 1, "actor_down", 0, None, None, None),
    ]


@pytest.mark.parametrize(
    ("action", "targets"),
    [
        ({"type": "attack", "targets": ["bolek", "cyryl"]}, ["bolek", "cyryl", "cyryl"]),
        ({"type": "attack", "targets": ["bolek"]}, ["bolek", "bolek", "bolek"]),
        ({"type": "attack", "target": "cyryl"}, ["cyryl", "cyryl", "cyryl"]),  # the short form
        ({"type": "attack", "targets": ["bolek", "cyryl", "bolek"]}, ["bolek", "cyryl", "bolek"]),
    ],
)
def test_attacks_past_the_targets_list_go_to_its_last_target(action, targets):
    result = resolve(
        [fighter("ala", initiative=30, attacks_per_round=3), fighter("bolek"), fighter("cyryl")],
        [{"combatant": "ala", "action": action}],
        {"ala.initiative.1": 1, "ala.initiative.2": 1, "ala.initiative.3": 1,
         "ala.attack.1": 20, "ala.attack.2": 20, "ala.attack.3": 20},
    )
    assert [a["target"] for a in result["actions"]] == targets
    assert [a["score"] for a in result["actions"]] == [24, 18, 12]  # 30-5-1, then -5-1 each


def test_an_undrawn_weapon_is_in_hand_once_its_attack_comes_up_even_on_target_down():
    result = resolve(
        [fighter("ala", weapon_ready=False), fighter("bolek", initiative=20, damage_bonus=20), fighter("cyryl")],
        [attack("bolek", "cyryl"), attack("ala", "cyryl")],
        {**BOLEK_KILLS, "ala.initiative.1": 1},
    )
    assert brief(result, "score", "technical_actions") == [
        ("bolek", 1, "wound", 14, 0),
        ("ala", 1, "target_down", -1, 1),  # 10 - 5 (the draw) - 5 - 1
    ]
    assert state_of(result, "ala")["weapon_ready"] is True


def test_an_undrawn_weapon_stays_put_when_its_owner_drops_before_its_attack():
    result = resolve(
        [fighter("ala", weapon_ready=False), fighter("bolek", initiative=20, damage_bonus=8)],
        [attack("bolek", "ala"), attack("ala", "bolek")],
        {**BOLEK_FELLS, "ala.initiative.1": 1},
    )
    assert brief(result, "wound", "technical_actions") == [
        ("bolek", 1, "wound", "critical", 0),
        ("ala", 1, "actor_down", None, 1),
    ]
    assert state_of(result, "ala")["weapon_ready"] is False


@pytest.mark.parametrize(
    ("declaration", "kind", "score"),
    [
        (first_aid("ala", "ala"), "first_aid", -1),  # 10 - first aid delay 10 - 1
        (first_aid("ala", "cyryl"), "first_aid", -1),
        (custom("ala", 3), "custom", 6),  # 10 - 3 - 1
    ],
)
def test_any_action_of_a_combatant_felled_before_it_is_actor_down(declaration, kind, score):
    result = resolve(
        [fighter("ala"), fighter("bolek", initiative=20, damage_bonus=8), fighter("cyryl", wounds=[SEVERE])],
        [attack("bolek", "ala"), declaration],
        {**BOLEK_FELLS, "ala.initiative.1": 1},
        round=10,
    )
    assert brief(result, "type", "score") == [
        ("bolek", 1, "wound", "attack", 14),
        ("ala", 1, "actor_down", kind, score),
    ]
    assert [loss["combatant"] for loss in result["bleeding"]] == ["ala", "cyryl"]  # nobody's bleeding was stopped


def test_a_wound_lowers_attacks_in_later_ticks_but_not_scores_already_rolled():
    result = resolve(
        [fighter("ala", initiative=20, defense=4), fighter("bolek", initiative=15, attack=12, attacks_per_round=2)],
        [attack("ala", "bolek"), attack("bolek", "ala")],
        {"ala.initiative.1": 1, "ala.attack.1": 2, "ala.damage.1": [3],
         "bolek.initiative.1": 2, "bolek.initiative.2": 1, "bolek.attack.1": 20, "bolek.attack.2": 20},
    )
    assert brief(result, "tick", "score", "target_number", "wound") == [
        ("ala", 1, "wound", 1, 14, 10, "moderate"),  # margin 8: blow 3 + 4 = 7
        ("bolek", 1, "miss", 2, 8, 6, None),  # score 15 - 5 - 2, not 6; TN 12 - 2 - 4
        ("bolek", 2, "miss", 3, 2, 6, None),  # score 8 - 5 - 1, not 0
    ]
    assert state_of(result, "bolek")["penalty"] == 2


@pytest.mark.parametrize(
    ("ala", "after", "bleeding"),
    [
        ({"blood": 3, "wounds": [SEVERE]}, ("active", 1), [2]),
        ({"blood": 2, "wounds": [SEVERE]}, ("unconscious", 0), [2]),
        ({"blood": -7, "wounds": [SEVERE]}, ("unconscious", -9), [2]),
        ({"blood": -8, "wounds": [SEVERE]}, ("dead", -10), [2]),  # blood <= -vitality
        ({"blood": 5, "wounds": [SEVERE, MODERATE, {"class": "severe", "bleed": 0}]}, ("active", 2), [3]),
        ({"vitality": 3, "blood": 0, "wounds": [SEVERE, MODERATE]}, ("dead", -3), [3]),
        ({"status": "unconscious", "blood": 5, "wounds": [MODERATE]}, ("unconscious", 4), [1]),  # stays so
        ({"status": "unconscious", "blood": -9, "wounds": [MODERATE]}, ("dead", -10), [1]),
        ({"status": "dead", "blood": 3, "wounds": [SEVERE]}, ("dead", 3), []),  # the dead do not bleed
        ({"blood": 0}, ("unconscious", 0), []),  # drops at the turn's end without bleeding
        ({"blood": -10}, ("dead", -10), []),
        ({"blood": 5, "wounds": [{"class": "severe", "bleed": 0}]}, ("active", 5), []),  # stanched
    ],
)
def test_bleeding_at_the_end_of_a_turn(ala, after, bleeding):
    result = resolve([fighter("ala", **ala)], [], {}, round=10)
    ala_after = state_of(result, "ala")
    assert (ala_after["status"], ala_after["blood"]) == after
    assert result["bleeding"] == [
        {"combatant": "ala", "lost": lost, "blood": after[1], "status": after[0]} for lost in bleeding
    ]


@pytest.mark.parametrize(
    ("round", "rules", "turn", "ends_turn"),
    [
        (1, None, 1, False),
        (9, None, 1, False),
        (10, None, 1, True),
        (11, None, 2, False),
        (19, None, 2, False),
        (20, None, 2, True),
        (21, None, 3, False),
        (100_000, None, 10_000, True),
        (5, {"turn_length": 5}, 1, True),
        (10, {"turn_length": 5}, 2, True),
        (10, {"turn_length": 4}, 3, False),
        (12, {"turn_length": 4}, 3, True),
        (7, {"turn_length": 1}, 7, True),
    ],
)
def test_which_round_ends_which_turn(round, rules, turn, ends_turn):
    result = resolve([fighter("ala", blood=5, wounds=[SEVERE])], [], {}, round=round, rules=rules)
    assert (result["turn"], result["ends_turn"]) == (turn, ends_turn)
    assert state_of(result, "ala")["blood"] == (3 if ends_turn else 5)  # bleeding happens exactly then
    assert len(result["bleeding"]) == ends_turn


@pytest.mark.parametrize(
    ("bolek_die", "ticks", "bleeds"),
    [
        # ala 20 - 5 - 6 = 9 and bolek 20 - 10 - 1 = 9 with equal initiative: one tick, ala's blow listed
        # (and applied) first. First aid sees only the severe wound there when the tick began, so the
        # moderate one, though applied before it, keeps bleeding.
        (1, [1, 1], [0, 1]),
        # One point slower, first aid comes in the next tick and stops both.
        (2, [1, 2], [0, 0]),
    ],
)
def test_first_aid_stops_only_wounds_there_when_its_tick_began(bolek_die, ticks, bleeds):
    result = resolve(
        [fighter("ala", initiative=20), fighter("bolek", initiative=20), fighter("cyryl", wounds=[SEVERE])],
        [attack("ala", "cyryl"), first_aid("bolek", "cyryl")],
        {"ala.initiative.1": 6, "ala.attack.1": 5, "ala.damage.1": [4], "bolek.initiative.1": bolek_die},
        round=10,
    )
    assert brief(result, "tick") == [("ala", 1, "wound", ticks[0]), ("bolek", 1, "done", ticks[1])]
    cyryl = state_of(result, "cyryl")
    assert [(w["class"], w["bleed"]) for w in cyryl["wounds"]] == [("severe", bleeds[0]), ("moderate", bleeds[1])]
    assert cyryl["blood"] == 10 - sum(bleeds)


def test_first_aid_on_oneself_stops_ones_own_bleeding():
    result = resolve([fighter("ala", wounds=[SEVERE, LIGHT])], [first_aid("ala", "ala")], {"ala.initiative.1": 4},
                     round=10)
    assert brief(result, "target", "score") == [("ala", 1, "done", "ala", -8)]  # 10 - (3 + 1) - 10 - 4
    assert state_of(result, "ala")["wounds"] == [{"class": "severe", "penalty": 3, "bleed": 0},
                                                 {"class": "light", "penalty": 1, "bleed": 0}]
    assert result["bleeding"] == []


def test_first_aid_on_one_killed_earlier_in_the_round_is_target_down():
    result = resolve(
        [fighter("ala"), fighter("bolek", initiative=20, damage_bonus=20), fighter("cyryl", wounds=[SEVERE])],
        [attack("bolek", "cyryl"), first_aid("ala", "cyryl")],
        {**BOLEK_KILLS, "ala.initiative.1": 1},
    )
    assert brief(result) == [("bolek", 1, "wound"), ("ala", 1, "target_down")]
    assert state_of(result, "cyryl")["wounds"][0]["bleed"] == 2


def test_none_makes_no_entry_and_no_roll():
    result = resolve([fighter("ala"), fighter("bolek")], [none("ala", stance="defensive")], {})
    assert (result["actions"], result["dice"]) == ([], {})


def test_first_aid_in_the_tick_its_patient_dies_applies_before_the_wounds():
    """RULES.md section 13's tick end: (1) first aid, then (3) wounds. The aid reaches a patient still alive, so its
    old wound stops bleeding; the blow of the same tick then kills it, and a dead one never changes again."""
    result = resolve(
        [fighter("ala", initiative=20), fighter("bolek", initiative=20, damage_bonus=20),
         fighter("cyryl", wounds=[SEVERE])],
        [attack("bolek", "cyryl"), first_aid("ala", "cyryl")],
        # bolek 20 - 5 (long sword) - 9 = 6 and ala 20 - 10 (first aid) - 4 = 6, equal initiative: one tick
        {"bolek.initiative.1": 9, "bolek.attack.1": 1, "bolek.damage.1": [8], "ala.initiative.1": 4},
    )
    ticks = {(a["actor"], a["result"]): a["tick"] for a in result["actions"]}
    assert ticks == {("ala", "done"): 1, ("bolek", "wound"): 1}
    cyryl = state_of(result, "cyryl")
    assert cyryl["status"] == "dead" and cyryl["wounds"][0] == {"class": "severe", "penalty": 3, "bleed": 0}


def test_a_custom_action_must_declare_its_delay():
    request = {"combatants": [fighter("ala")], "declarations": [{"combatant": "ala",
                                                                 "action": {"type": "custom", "name": "pray"}}]}
    assert refused_fields(request) == ["/declarations/0/action/delay"]
