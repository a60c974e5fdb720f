"""Ruleset overrides (RULES.md section 11): what merges, what replaces, what is refused."""

import copy

import pytest

from app.resolver import DEFAULT_RULES, InvalidRuleset, build_ruleset
from app.resolver.ruleset import Stance

DEFAULT_DOCUMENT = copy.deepcopy(DEFAULT_RULES)
TWO_ROW_TABLE = [
    {"class": "hurt", "min": 1, "penalty": 1, "bleed": 0, "forces": None},
    {"class": "slain", "min": 5, "penalty": 0, "bleed": 0, "forces": "dead"},
]


def row(name, minimum):
    return {"class": name, "min": minimum, "penalty": 0, "bleed": 0, "forces": None}


def test_defaults_are_the_house_numbers():
    rules = build_ruleset()
    assert (rules.delay_die, rules.technical_action_penalty, rules.turn_length, rules.margin_divisor,
            rules.first_aid_delay, rules.natural_hit, rules.natural_miss) == (10, 5, 10, 2, 10, 1, 20)
    assert [c.name for c in rules.wound_classes] == ["scratch", "light", "moderate", "severe", "critical", "mortal"]
    assert len(rules.armory) == 13


@pytest.mark.parametrize(
    ("overrides", "key", "value"),
    [
        ({"delay_die": 6}, "delay_die", 6),
        ({"delay_die": 12}, "delay_die", 12),
        ({"delay_die": 2}, "delay_die", 2),
        ({"turn_length": 5}, "turn_length", 5),
        ({"technical_action_penalty": 3}, "technical_action_penalty", 3),
        ({"first_aid_delay": 0}, "first_aid_delay", 0),
    ],
)
def test_a_number_override_replaces_the_default_and_nothing_else(overrides, key, value):
    rules = build_ruleset(overrides)
    assert getattr(rules, key) == value
    untouched = {k: v for k, v in DEFAULT_RULES.items() if k != key}
    assert {k: rules.document[k] for k in untouched} == untouched


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"stances": {"offensive": {"attack": 3}}},  # a partial entry keeps the field it does not name
         {"offensive": Stance(3, -2), "balanced": Stance(0, 0), "defensive": Stance(-2, 2)}),
        ({"stances": {"berserk": {"attack": 4, "defense": -4}}},
         {"offensive": Stance(2, -2), "balanced": Stance(0, 0), "defensive": Stance(-2, 2), "berserk": Stance(4, -4)}),
    ],
)
def test_stances_merge_entry_by_entry(overrides, expected):
    assert dict(build_ruleset(overrides).stances) == expected


@pytest.mark.parametrize(
    ("overrides", "weapon", "delay", "damage"),
    [
        ({"armory": {"dagger": {"delay": 1}}}, "dagger", 1, "1d4"),
        ({"armory": {"dagger": {"damage": "1d4+1"}}}, "dagger", 2, "1d4+1"),
        ({"armory": {"flail": {"delay": 5, "damage": "1d6+1"}}}, "flail", 5, "1d6+1"),
    ],
)
def test_armory_merges_entry_by_entry(overrides, weapon, delay, damage):
    armory = build_ruleset(overrides).armory
    assert (armory[weapon].delay, str(armory[weapon].damage)) == (delay, damage)
    assert (armory["long_sword"].delay, str(armory["long_sword"].damage)) == (5, "1d8")
    assert len(armory) == 13 + (weapon not in DEFAULT_RULES["armory"])


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"armor": {"plate": 7}}, {**DEFAULT_RULES["armor"], "plate": 7}),
        ({"armor": {"mithril": 5}}, {**DEFAULT_RULES["armor"], "mithril": 5}),
    ],
)
def test_armor_merges_entry_by_entry(overrides, expected):
    assert dict(build_ruleset(overrides).armor) == expected


def test_wound_classes_are_replaced_whole():
    rules = build_ruleset({"wound_classes": TWO_ROW_TABLE})
    assert [(c.name, c.min) for c in rules.wound_classes] == [("hurt", 1), ("slain", 5)]
    assert [getattr(rules.wound_for(blow), "name", None) for blow in (0, 1, 4, 5, 99)] == [
        None, "hurt", "hurt", "slain", "slain"]


def test_overriding_never_changes_the_defaults():
    build_ruleset({"delay_die": 6, "stances": {"offensive": {"attack": 9}}, "armory": {"dagger": {"delay": 0}},
                   "armor": {"plate": 9}, "wound_classes": TWO_ROW_TABLE})
    assert DEFAULT_RULES == DEFAULT_DOCUMENT
    assert build_ruleset().stances["offensive"] == Stance(2, -2)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"bogus": 1}, "/rules/bogus"),
        ({"delay_dice": 6}, "/rules/delay_dice"),
        ({"delay_die": 1}, "/rules/delay_die"),
        ({"delay_die": 0}, "/rules/delay_die"),
        ({"delay_die": 101}, "/rules/delay_die"),
        ({"delay_die": "6"}, "/rules/delay_die"),
        ({"delay_die": True}, "/rules/delay_die"),
        ({"turn_length": 0}, "/rules/turn_length"),
        ({"turn_length": -10}, "/rules/turn_length"),
        ({"wound_classes": [row("a", 5), row("b", 3)]}, "/rules/wound_classes"),
        ({"wound_classes": [row("a", 3), row("b", 3)]}, "/rules/wound_classes"),
        ({"wound_classes": [row("a", 1), row("a", 5)]}, "/rules/wound_classes"),
        ({"wound_classes": []}, "/rules/wound_classes"),
        ({"wound_classes": [{**row("a", 1), "forces": "asleep"}]}, "/rules/wound_classes/0/forces"),
        ({"stances": {"berserk": {"attack": 4}}}, "/rules/stances/berserk"),
        ({"armory": {"club": {"delay": 2, "damage": "1d1"}}}, "/rules/armory/club/damage"),
        ({"armory": {"club": {"delay": 51, "damage": "1d6"}}}, "/rules/armory/club/delay"),
        ({"armor": {"plate": -1}}, "/rules/armor/plate"),
        ({"long_action_broken_at": 0}, "/rules/long_action_broken_at"),
        ({"long_action_broken_at": 1001}, "/rules/long_action_broken_at"),
        ({"long_action_broken_at": "6"}, "/rules/long_action_broken_at"),
        ({"long_action_broken_at": True}, "/rules/long_action_broken_at"),
    ],
)
def test_bad_overrides_are_refused_naming_the_field(overrides, field):
    with pytest.raises(InvalidRuleset) as refused:
        build_ruleset(overrides)
    assert [issue.field for issue in refused.value.issues] == [field]


@pytest.mark.parametrize(
    ("table", "blows"),
    [
        (DEFAULT_RULES["wound_classes"], {-3: None, 0: None, 1: "scratch", 2: "scratch", 3: "light", 5: "light",
                                          6: "moderate", 8: "moderate", 9: "severe", 11: "severe",
                                          12: "critical", 14: "critical", 15: "mortal", 100: "mortal"}),
        ([row("graze", -2), row("cut", 4)], {-3: None, -2: "graze", 3: "graze", 4: "cut"}),
    ],
)
def test_each_row_covers_from_its_min_to_the_next_min_minus_one(table, blows):
    rules = build_ruleset({"wound_classes": table})
    assert {blow: getattr(rules.wound_for(blow), "name", None) for blow in blows} == blows


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [(None, 6), ({"long_action_broken_at": None}, None), ({"long_action_broken_at": 1}, 1),
     ({"long_action_broken_at": 1000}, 1000)],
)
def test_long_action_broken_at_is_a_number_or_null(overrides, expected):
    rules = build_ruleset(overrides)
    assert rules.long_action_broken_at == expected
    assert rules.document["long_action_broken_at"] == expected


def test_armor_table_merges_entry_by_entry():
    rules = build_ruleset({"armor": {"leather": 2, "dragon_hide": 8}})
    assert dict(rules.armor) == {"none": 0, "leather": 2, "gambeson": 2, "chain_mail": 3, "scale": 4, "plate": 6,
                                 "dragon_hide": 8}


def test_natural_hit_may_equal_natural_miss():
    rules = build_ruleset({"natural_hit": 20, "natural_miss": 20})
    assert (rules.natural_hit, rules.natural_miss) == (20, 20)
