"""RULES.md section 9: what is refused before resolving, each refusal naming its field (a JSON pointer)."""

import pytest

from tests.resolver.helpers import attack, custom, fighter, first_aid, none, refused_fields

ENCOUNTER = [
    fighter("ala"),  # long sword: 1d8
    fighter("bolek", weapon="two_handed_sword"),  # 2d6
    fighter("cyryl", status="unconscious", blood=-2),
    fighter("dorota", status="dead", blood=-10),
]


def request(*declarations, dice=None, combatants=ENCOUNTER, **more):
    return {"combatants": combatants, "declarations": list(declarations), "dice": dice or {}, **more}


def with_ala(**fields):
    """The encounter with ala changed."""
    return [fighter("ala", **fields), *ENCOUNTER[1:]]


@pytest.mark.parametrize(
    ("case", "body", "field"),
    [
        # who may declare
        ("unconscious declares an attack", request(attack("cyryl", "ala")), "/declarations/0/combatant"),
        ("dead declares even 'none'", request(none("dorota")), "/declarations/0/combatant"),
        ("unconscious declares 'none'", request(none("cyryl")), "/declarations/0/combatant"),
        ("unknown combatant declares", request(none("zenon")), "/declarations/0/combatant"),
        ("two declarations for one", request(attack("ala", "bolek"), none("ala")), "/declarations/1/combatant"),
        # targets
        ("target not in the encounter", request(attack("ala", "zenon")), "/declarations/0/action/targets/0"),
        ("target is the actor", request(attack("ala", "ala")), "/declarations/0/action/targets/0"),
        ("target already dead", request(attack("ala", "dorota")), "/declarations/0/action/targets/0"),
        ("first aid on the dead", request(first_aid("ala", "dorota")), "/declarations/0/action/target"),
        ("first aid on a stranger", request(first_aid("ala", "zenon")), "/declarations/0/action/target"),
        ("too many targets", request(attack("ala", "bolek", "cyryl")), "/declarations/0/action/targets"),
        ("no target at all", request(attack("ala")), "/declarations/0/action/targets"),
        ("second target is bad",
         request(attack("ala", "bolek", "ala"), combatants=with_ala(attacks_per_round=2)),
         "/declarations/0/action/targets/1"),
        # stance, action, technical actions
        ("unknown stance", request(attack("ala", "bolek", stance="reckless")), "/declarations/0/stance"),
        ("unknown action type", request({"combatant": "ala", "action": {"type": "dance"}}),
         "/declarations/0/action/type"),
        ("technical actions on 'none'", request(none("ala", technical_actions=1)),
         "/declarations/0/technical_actions"),
        # weapons
        ("weapon key not in the armory", request(combatants=with_ala(weapon="lightsaber")), "/combatants/0/weapon"),
        ("malformed inline damage",
         request(combatants=with_ala(weapon={"name": "club", "delay": 3, "damage": "2x6"})),
         "/combatants/0/weapon/damage"),
        ("inline damage out of bounds",
         request(combatants=with_ala(weapon={"name": "club", "delay": 3, "damage": "21d6"})),
         "/combatants/0/weapon/damage"),
        ("inline weapon delay 51",
         request(combatants=with_ala(weapon={"name": "club", "delay": 51, "damage": "1d6"})),
         "/combatants/0/weapon/delay"),
        # fixed dice
        ("d20 of 21", request(attack("ala", "bolek"), dice={"ala.attack.1": 21}), "/dice/ala.attack.1"),
        ("d20 of 0", request(attack("ala", "bolek"), dice={"ala.attack.1": 0}), "/dice/ala.attack.1"),
        ("delay die 11 on a d10", request(attack("ala", "bolek"), dice={"ala.initiative.1": 11}),
         "/dice/ala.initiative.1"),
        ("delay die 7 on a d6",
         request(attack("ala", "bolek"), dice={"ala.initiative.1": 7}, rules={"delay_die": 6}),
         "/dice/ala.initiative.1"),
        ("d8 damage of 9", request(attack("ala", "bolek"), dice={"ala.damage.1": [9]}), "/dice/ala.damage.1"),
        ("a die that is not an integer", request(attack("ala", "bolek"), dice={"ala.attack.1": 7.0}),
         "/dice/ala.attack.1"),
        ("a die that is a boolean", request(attack("ala", "bolek"), dice={"ala.attack.1": True}),
         "/dice/ala.attack.1"),
        ("one value for 2d6", request(attack("bolek", "ala"), dice={"bolek.damage.1": [6]}), "/dice/bolek.damage.1"),
        ("bare number for 2d6", request(attack("bolek", "ala"), dice={"bolek.damage.1": 6}), "/dice/bolek.damage.1"),
        ("two values for 1d8", request(attack("ala", "bolek"), dice={"ala.damage.1": [3, 4]}), "/dice/ala.damage.1"),
        ("attack 2 of a one-attack fighter", request(attack("ala", "bolek"), dice={"ala.attack.2": 5}),
         "/dice/ala.attack.2"),
        ("die of one who declared 'none'", request(none("ala"), dice={"ala.initiative.1": 5}),
         "/dice/ala.initiative.1"),
        ("die of one who declared nothing", request(attack("ala", "bolek"), dice={"bolek.initiative.1": 5}),
         "/dice/bolek.initiative.1"),
        ("damage die for first aid", request(first_aid("ala", "bolek"), dice={"ala.damage.1": [3]}),
         "/dice/ala.damage.1"),
        ("second initiative of a custom action", request(custom("ala", 5), dice={"ala.initiative.2": 3}),
         "/dice/ala.initiative.2"),
        ("a kind of die that does not exist", request(attack("ala", "bolek"), dice={"ala.parry.1": 3}),
         "/dice/ala.parry.1"),
        # bounds of CONTRACT.md
        ("initiative 101", request(combatants=with_ala(initiative=101)), "/combatants/0/initiative"),
        ("initiative true", request(combatants=with_ala(initiative=True)), "/combatants/0/initiative"),
        ("initiative 10.0", request(combatants=with_ala(initiative=10.0)), "/combatants/0/initiative"),
        ("attack -101", request(combatants=with_ala(attack=-101)), "/combatants/0/attack"),
        ("defense 101", request(combatants=with_ala(defense=101)), "/combatants/0/defense"),
        ("attacks_per_round 5", request(combatants=with_ala(attacks_per_round=5)), "/combatants/0/attacks_per_round"),
        ("attacks_per_round 0", request(combatants=with_ala(attacks_per_round=0)), "/combatants/0/attacks_per_round"),
        ("damage_bonus 51", request(combatants=with_ala(damage_bonus=51)), "/combatants/0/damage_bonus"),
        ("armor -1", request(combatants=with_ala(armor=-1)), "/combatants/0/armor"),
        ("toughness 101", request(combatants=with_ala(toughness=101)), "/combatants/0/toughness"),
        ("vitality 0", request(combatants=with_ala(vitality=0)), "/combatants/0/vitality"),
        ("blood -1001", request(combatants=with_ala(blood=-1001)), "/combatants/0/blood"),
        ("unknown status", request(combatants=with_ala(status="asleep")), "/combatants/0/status"),
        ("unknown wound class", request(combatants=with_ala(wounds=[{"class": "bruise"}])),
         "/combatants/0/wounds/0/class"),
        ("empty id", request(combatants=[fighter(""), *ENCOUNTER[1:]]), "/combatants/0/id"),
        ("id twice", request(combatants=[*ENCOUNTER, fighter("ala")]), "/combatants/4/id"),
        ("technical_actions 11", request(attack("ala", "bolek", technical_actions=11)),
         "/declarations/0/technical_actions"),
        ("custom delay 51", request(custom("ala", 51)), "/declarations/0/action/delay"),
        ("custom delay -1", request(custom("ala", -1)), "/declarations/0/action/delay"),
        ("round 0", request(round=0), "/round"),
        ("round 100001", request(round=100_001), "/round"),
        ("101 combatants", request(combatants=[fighter(f"c{i}") for i in range(101)]), "/combatants"),
        ("101 declarations",
         request(*[none(f"c{i}") for i in range(101)], combatants=[fighter(f"c{i}") for i in range(100)]),
         "/declarations"),
    ],
)
def test_refused(case, body, field):
    assert refused_fields(body) == [field], case


@pytest.mark.parametrize(
    ("case", "body"),
    [
        ("the encounter as it is", request()),
        ("first aid on oneself", request(first_aid("ala", "ala"))),
        ("first aid on the unconscious", request(first_aid("ala", "cyryl"))),
        ("attacking the unconscious", request(attack("ala", "cyryl"))),
        ("no stance named", request(attack("ala", "bolek", stance=None))),
        ("dice at their bounds", request(attack("ala", "bolek"), attack("bolek", "ala"),
                                        dice={"ala.initiative.1": 10, "ala.attack.1": 1, "ala.damage.1": 8,
                                              "bolek.initiative.1": 1, "bolek.attack.1": 20,
                                              "bolek.damage.1": [1, 6]})),
        ("a die for attack 2 of a two-attack fighter", request(attack("ala", "bolek"), dice={"ala.attack.2": 3},
                                                               combatants=with_ala(attacks_per_round=2))),
        ("technical actions with an action", request(custom("ala", 0, technical_actions=10))),
        ("100 combatants, 100 declarations",
         request(*[none(f"c{i}") for i in range(100)], combatants=[fighter(f"c{i}") for i in range(100)])),
    ],
)
def test_accepted(case, body):
    assert refused_fields(body) is None, case
