"""RULES.md section 9's refusals for effects and long actions, unknown weapon or armor keys, the target shorthand."""

import pytest

from app.resolver import InvalidRound, MixedDice, UnknownKey, build_ruleset, resolve_round
from tests.resolver.decoding import round_input_from_json
from tests.resolver.helpers import attack, carrying, effect, fighter, long, none, refused_fields

CARRIED = carrying(target="bolek", effect=effect("warded", defense=4, rounds=5))


def request(*declarations, ala=None, bolek=None, dice=None):
    combatants = [fighter("ala", **(ala or {})), fighter("bolek", **(bolek or {})),
                  fighter("dorota", status="dead", blood=-10)]
    return {"combatants": combatants, "declarations": list(declarations), "dice": dice or {}}


@pytest.mark.parametrize(
    ("case", "body", "field"),
    [
        ("continue without a long action", request({"combatant": "ala", "action": {"type": "continue"}}),
         "/declarations/0/action/type"),
        ("technical actions on continue", request({"combatant": "ala", "action": {"type": "continue"},
                                                   "technical_actions": 1}, ala={"long_action": CARRIED}),
         "/declarations/0/technical_actions"),
        ("technical actions with no action", request({"combatant": "ala", "technical_actions": 1}),
         "/declarations/0/technical_actions"),
        ("custom target dead", request(long("ala", 2, target="dorota")), "/declarations/0/action/target"),
        ("custom target a stranger", request(long("ala", 2, target="zenon")), "/declarations/0/action/target"),
        ("custom rounds 0", request(long("ala", 2, rounds=0)), "/declarations/0/action/rounds"),
        ("custom rounds 101", request(long("ala", 2, rounds=101)), "/declarations/0/action/rounds"),
        ("custom effect without a name", request(long("ala", 2, effect={"defense": 1})),
         "/declarations/0/action/effect/name"),
        ("custom effect rounds 1001", request(long("ala", 2, effect=effect(rounds=1001))),
         "/declarations/0/action/effect/rounds"),
        ("custom effect unknown field", request(long("ala", 2, effect=effect(until_round=3))),
         "/declarations/0/action/effect/until_round"),
        ("custom effect attack 101", request(long("ala", 2, effect=effect(attack=101))),
         "/declarations/0/action/effect/attack"),
        ("effect attack 101", request(ala={"effects": [effect(attack=101)]}), "/combatants/0/effects/0/attack"),
        ("effect blood_per_turn -101", request(ala={"effects": [effect(blood_per_turn=-101)]}),
         "/combatants/0/effects/0/blood_per_turn"),
        ("effect until_round -1", request(ala={"effects": [effect(until_round=-1)]}),
         "/combatants/0/effects/0/until_round"),
        ("effect until_round 100001", request(ala={"effects": [effect(until_round=100_001)]}),
         "/combatants/0/effects/0/until_round"),
        ("effect name empty", request(ala={"effects": [effect("")]}), "/combatants/0/effects/0/name"),
        ("effect name missing", request(ala={"effects": [{"attack": 1}]}), "/combatants/0/effects/0/name"),
        ("effect id too long", request(ala={"effects": [effect(id="x" * 65)]}), "/combatants/0/effects/0/id"),
        ("effect unknown field", request(ala={"effects": [effect(colour="red")]}),
         "/combatants/0/effects/0/colour"),
        ("21 effects", request(ala={"effects": [effect()] * 21}), "/combatants/0/effects"),
        ("effects not a list", request(ala={"effects": {"name": "x"}}), "/combatants/0/effects"),
        ("long action on the unconscious", request(ala={"long_action": CARRIED, "status": "unconscious",
                                                        "blood": 0}), "/combatants/0/long_action"),
        ("long action target a stranger", request(ala={"long_action": {**CARRIED, "target": "zenon"}}),
         "/combatants/0/long_action/target"),
        ("long action rounds_left 0", request(ala={"long_action": {**CARRIED, "rounds_left": 0}}),
         "/combatants/0/long_action/rounds_left"),
        ("long action rounds_left 100", request(ala={"long_action": {**CARRIED, "rounds_left": 100}}),
         "/combatants/0/long_action/rounds_left"),
        ("long action delay 51", request(ala={"long_action": {**CARRIED, "delay": 51}}),
         "/combatants/0/long_action/delay"),
        ("long action without rounds_left", request(ala={"long_action": {"name": "ward", "delay": 1}}),
         "/combatants/0/long_action/rounds_left"),
        ("long action effect rounds 0", request(ala={"long_action": {**CARRIED, "effect": effect(rounds=0)}}),
         "/combatants/0/long_action/effect/rounds"),
        ("shorthand target a stranger", request({"combatant": "ala", "action": {"type": "attack", "target": "zenon"}}),
         "/declarations/0/action/target"),
        ("shorthand target itself", request({"combatant": "ala", "action": {"type": "attack", "target": "ala"}}),
         "/declarations/0/action/target"),
        ("a field continue does not have", request({"combatant": "ala", "action": {"type": "continue", "delay": 1}},
                                                   ala={"long_action": CARRIED}), "/declarations/0/action/delay"),
        ("a die the continuing combatant cannot roll", request(ala={"long_action": CARRIED},
                                                               dice={"ala.attack.1": 3}), "/dice/ala.attack.1"),
        ("armor out of bounds", request(ala={"armor": 101}), "/combatants/0/armor"),
        ("armor neither number nor name", request(ala={"armor": [1]}), "/combatants/0/armor"),
    ],
)
def test_refused_naming_the_field(case, body, field):
    assert refused_fields(body) == [field], case


@pytest.mark.parametrize(
    "body",
    [
        request(ala={"long_action": CARRIED}, dice={"ala.initiative.1": 3}),  # it continues: its die may be given
        request({"combatant": "ala", "stance": "defensive"}, ala={"long_action": CARRIED}),
        request(ala={"long_action": {**CARRIED, "target": "dorota"}}),  # died since it began: completes target_down
        request(long("ala", 2, target="ala", rounds=100, effect=effect(rounds=None))),
        request(none("ala"), ala={"effects": [effect(until_round=0), effect(attack=-100, id=None)] + [effect()] * 18}),
        request(ala={"armor": "plate"}),
    ],
)
def test_accepted(body):
    assert refused_fields(body) is None


def resolve_refusal(body):
    with pytest.raises(InvalidRound) as refused:
        resolve_round(round_input_from_json(body), build_ruleset(), MixedDice({}, 1))
    return refused.value


@pytest.mark.parametrize(
    ("ala", "field", "known"),
    [({"weapon": "lightsaber"}, "/combatants/0/weapon", "long_sword"),
     ({"armor": "mithril"}, "/combatants/0/armor", "leather")],
)
def test_an_unknown_weapon_or_armor_is_its_own_kind_and_lists_the_known_keys(ala, field, known):
    error = resolve_refusal(request(ala=ala))
    assert type(error) is UnknownKey and error.type == "unknown-key"
    [issue] = error.issues
    assert issue.field == field and known in issue.message and "known:" in issue.message


def test_an_unknown_key_among_other_faults_is_a_general_refusal_that_still_names_it():
    error = resolve_refusal(request(ala={"weapon": "lightsaber", "initiative": 101}))
    assert type(error) is InvalidRound
    assert sorted(issue.field for issue in error.issues) == ["/combatants/0/initiative", "/combatants/0/weapon"]


def test_a_target_list_is_still_named_by_index():
    assert refused_fields(request(attack("ala", "zenon"))) == ["/declarations/0/action/targets/0"]
