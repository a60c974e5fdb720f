"""RULES.md section 14, holding, sentence by sentence, with every die fixed.

Unless a case says otherwise a fighter has initiative 10, attack 10, defense 0 and a long sword
(delay 5, 1d8), so its first score is 10 - 5 - die = 5 - die; every attack rolls a natural miss (20),
so no damage die is needed and nobody is hurt. `order` reads each action as (tick, actor, seq, score, held).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.resolver.helpers import attack, carrying, custom, fighter, first_aid, none, refused_fields, resolve


def hold(declaration: dict[str, Any], on: str) -> dict[str, Any]:
    return {**declaration, "hold": on}


def dice(**first: int) -> dict[str, Any]:
    """Each named fighter's first delay die, and a natural miss for its first attack."""
    rolled: dict[str, Any] = {}
    for actor, die in first.items():
        rolled[f"{actor}.initiative.1"] = die
        rolled[f"{actor}.attack.1"] = 20
    return rolled


def order(result: dict[str, Any]) -> list[tuple]:
    return [(a["tick"], a["actor"], a["seq"], a["score"], a["held"]) for a in result["actions"]]


def everyone(*ids: str, **fields: dict[str, Any]) -> list[dict[str, Any]]:
    return [fighter(i, **fields.get(i, {})) for i in ids]


# Each case: combatants, declarations, dice, the order that comes out.
CASES = {
    # "If, by the usual order, it would [resolve before X's first action], it is moved: ... a tick of its own
    # placed immediately after the tick of X's first action, and its score becomes the score of X's first action"
    "moved from before X to right after it": (
        everyone("a", "b", "c"),
        [hold(attack("a", "c"), "b"), attack("b", "c"), attack("c", "b")],
        dice(a=1, b=3, c=2),
        [(1, "c", 1, 3, False), (2, "b", 1, 2, False), (3, "a", 1, 2, True)],
    ),
    # "... nor in the same tick": simultaneous with X by the usual order, it moves after it
    "moved out of X's own tick": (
        everyone("a", "b"),
        [hold(attack("a", "b"), "b"), attack("b", "a")],
        dice(a=2, b=2),
        [(1, "b", 1, 3, False), (2, "a", 1, 3, True)],
    ),
    # the usual order's tie rule counts: equal scores, a's higher initiative would put it first
    "moved when the tie rule would put it first": (
        everyone("a", "b", a={"initiative": 12}),
        [hold(attack("a", "b"), "b"), attack("b", "a")],
        dice(a=4, b=2),
        [(1, "b", 1, 3, False), (2, "a", 1, 3, True)],
    ),
    # "If by the usual order it would already resolve after X's tick, nothing changes."
    "already after X: unchanged": (
        everyone("a", "b"),
        [hold(attack("a", "b"), "b"), attack("b", "a")],
        dice(a=4, b=1),
        [(1, "b", 1, 4, False), (2, "a", 1, 1, False)],
    ),
    "already after X by the tie rule: unchanged": (
        everyone("a", "b", b={"initiative": 12}),
        [hold(attack("a", "b"), "b"), attack("b", "a")],
        dice(a=2, b=4),
        [(1, "b", 1, 3, False), (2, "a", 1, 3, False)],
    ),
    # "If X has no action this round (no declaration and no long action to continue, or none), the hold
    # changes nothing."
    "X without a declaration": (
        everyone("a", "b"),
        [hold(attack("a", "b"), "b")],
        dice(a=1),
        [(1, "a", 1, 4, False)],
    ),
    "X declares none": (
        everyone("a", "b"),
        [hold(attack("a", "b"), "b"), none("b")],
        dice(a=1),
        [(1, "a", 1, 4, False)],
    ),
    "X declares no action and carries no long action": (
        everyone("a", "b"),
        [hold(attack("a", "b"), "b"), {"combatant": "b", "stance": "defensive"}],
        dice(a=1),
        [(1, "a", 1, 4, False)],
    ),
    "X declares none and so abandons its long action": (
        everyone("a", "b", b={"long_action": carrying(delay=0)}),
        [hold(attack("a", "b"), "b"), none("b")],
        dice(a=1),
        [(1, "a", 1, 4, False)],
    ),
    # "X's first action is its action with seq 1: its first attack, its first aid, its custom action or its
    # continue."
    "X's first action is first aid": (
        everyone("a", "b"),
        [hold(attack("a", "b"), "b"), first_aid("b", "b")],  # 10 - 10 - 1 = -1
        {**dice(a=1), "b.initiative.1": 1},
        [(1, "b", 1, -1, False), (2, "a", 1, -1, True)],
    ),
    "X's first action is a custom action": (
        everyone("a", "b"),
        [hold(attack("a", "b"), "b"), custom("b", 3)],  # 10 - 3 - 6 = 1
        {**dice(a=1), "b.initiative.1": 6},
        [(1, "b", 1, 1, False), (2, "a", 1, 1, True)],
    ),
    "X's first action is its continue": (
        everyone("a", "b", b={"long_action": carrying(delay=8)}),  # 10 - 8 - 2 = 0
        [hold(attack("a", "b"), "b")],
        {**dice(a=1), "b.initiative.1": 2},
        [(1, "b", 1, 0, False), (2, "a", 1, 0, True)],
    ),
    "X's first attack, not its later ones": (
        everyone("a", "b", b={"attacks_per_round": 2}),  # b: 4, then 4 - 5 - 1 = -2
        [hold(attack("a", "b"), "b"), attack("b", "a")],
        {**dice(a=1, b=1), "b.initiative.2": 1, "b.attack.2": 20},
        [(1, "b", 1, 4, False), (2, "a", 1, 4, True), (3, "b", 2, -2, False)],
    ),
    # a held first aid or custom action is placed like an attack
    "a held first aid already after X": (
        everyone("a", "b"),
        [hold(first_aid("a", "a"), "b"), attack("b", "a")],  # a: 10 - 10 - 1 = -1 would come after b's 4
        {"a.initiative.1": 1, **dice(b=1)},
        [(1, "b", 1, 4, False), (2, "a", 1, -1, False)],
    ),
    "a held custom action, moved": (
        everyone("a", "b"),
        [hold(custom("a", 0), "b"), attack("b", "a")],  # a: 10 - 0 - 1 = 9
        {"a.initiative.1": 1, **dice(b=1)},
        [(1, "b", 1, 4, False), (2, "a", 1, 4, True)],
    ),
    # "Its later attacks (k >= 2) are then scored from that score ... and take their places by the usual
    # order." a as rolled: 20 - 5 - 1 = 14, then 14 - 5 - 3 = 6; moved to 4, its second is 4 - 5 - 3 = -4
    "later attacks follow the moved score": (
        everyone("a", "b", "c", a={"initiative": 20, "attacks_per_round": 2}),
        [hold(attack("a", "b"), "b"), attack("b", "a"), custom("c", 5)],  # c: 10 - 5 - 5 = 0
        {**dice(a=1, b=1), "a.initiative.2": 3, "a.attack.2": 20, "c.initiative.1": 5},
        [(1, "b", 1, 4, False), (2, "a", 1, 4, True), (3, "c", 1, 0, False), (4, "a", 2, -4, False)],
    ),
    # ... and a later attack that comes to equal another's score and initiative shares its tick
    "a later attack of a moved one joins a tick of the usual order": (
        everyone("a", "b", "c", a={"initiative": 20, "attacks_per_round": 2}, c={"initiative": 20}),
        [hold(attack("a", "b"), "b"), attack("b", "a"), custom("c", 20)],  # c: 20 - 20 - 4 = -4
        {**dice(a=1, b=1), "a.initiative.2": 3, "a.attack.2": 20, "c.initiative.1": 4},
        [(1, "b", 1, 4, False), (2, "a", 1, 4, True), (3, "a", 2, -4, False), (3, "c", 1, -4, False)],
    ),
    # "Among themselves the moved actions placed after the same tick ... keep the order they would have had by
    # the usual order, with their scores as rolled and their initiative as entered"
    "two holders on one X keep their usual order": (
        everyone("a", "b", "c"),
        [hold(attack("a", "b"), "b"), attack("b", "a"), hold(attack("c", "b"), "b")],
        dice(a=2, b=4, c=1),  # c (4) before a (3) as rolled
        [(1, "b", 1, 1, False), (2, "c", 1, 1, True), (3, "a", 1, 1, True)],
    ),
    "two holders on one X, equal in score and initiative as rolled: one tick": (
        everyone("a", "b", "c"),
        [hold(attack("a", "b"), "b"), attack("b", "a"), hold(attack("c", "b"), "b")],
        dice(a=2, b=4, c=2),
        [(1, "b", 1, 1, False), (2, "a", 1, 1, True), (2, "c", 1, 1, True)],
    ),
    "two holders on one X, equal scores as rolled: the initiative as entered orders them": (
        everyone("a", "b", "c", a={"initiative": 11}),
        [hold(attack("a", "b"), "b"), attack("b", "a"), hold(attack("c", "b"), "b")],
        dice(a=3, b=4, c=2),  # both 3 as rolled; a's initiative 11 first
        [(1, "b", 1, 1, False), (2, "a", 1, 1, True), (3, "c", 1, 1, True)],
    ),
    # "(also when they hold on different combatants whose first actions share that tick)"
    "holders on two X's of one tick are ordered together": (
        everyone("a", "b", "c", "d"),
        [hold(attack("a", "b"), "b"), attack("b", "a"), hold(attack("c", "d"), "d"), attack("d", "c")],
        dice(a=2, b=4, c=1, d=4),
        [(1, "b", 1, 1, False), (1, "d", 1, 1, False), (2, "c", 1, 1, True), (3, "a", 1, 1, True)],
    ),
    # the rule's example: "B and D hold on C and are both moved, B's score as rolled the higher; A holds on B
    # and is moved: C's tick, B's, A's, D's, then the next tick of the usual order."
    "the rule's example": (
        everyone("a", "b", "c", "d", "e"),
        [hold(attack("a", "e"), "b"), hold(attack("b", "e"), "c"), attack("c", "e"), hold(attack("d", "e"), "c"),
         custom("e", 8)],  # e: 10 - 8 - 2 = 0
        {**dice(a=2, b=1, c=4, d=2), "e.initiative.1": 2},  # a 3, b 4, c 1, d 3 as rolled
        [(1, "c", 1, 1, False), (2, "b", 1, 1, True), (3, "a", 1, 1, True), (4, "d", 1, 1, True),
         (5, "e", 1, 0, False)],
    ),
    # "holds chain: A holds on B, B holds on C: B is placed first, then A is judged against B's tick as placed"
    "a chain: both moved": (
        everyone("a", "b", "c"),
        [hold(attack("a", "c"), "b"), hold(attack("b", "c"), "c"), attack("c", "a")],
        dice(a=1, b=2, c=4),
        [(1, "c", 1, 1, False), (2, "b", 1, 1, True), (3, "a", 1, 1, True)],
    ),
    # "when X's first action was moved, it is the tick of the usual order that X's placed tick goes back to":
    # a (3, initiative 10) would act after b's rolled 4 but before c's tick (1), so it is moved
    "a chain: judged against the tick the placed one goes back to": (
        everyone("a", "b", "c"),
        [hold(attack("a", "c"), "b"), hold(attack("b", "c"), "c"), attack("c", "a")],
        dice(a=2, b=1, c=4),
        [(1, "c", 1, 1, False), (2, "b", 1, 1, True), (3, "a", 1, 1, True)],
    ),
    "a chain: the first holder already after the root tick is not moved": (
        everyone("a", "b", "c", a={"initiative": 5}),
        [hold(attack("a", "c"), "b"), hold(attack("b", "c"), "c"), attack("c", "a")],
        dice(a=1, b=1, c=2),  # a: 5 - 5 - 1 = -1, after c's 3
        [(1, "c", 1, 3, False), (2, "b", 1, 3, True), (3, "a", 1, -1, False)],
    ),
    "a chain: X holds but is not moved": (
        everyone("a", "b", "c"),
        [hold(attack("a", "c"), "b"), hold(attack("b", "c"), "c"), attack("c", "a")],
        dice(a=1, b=4, c=2),  # b (1) already after c (3); a (4) before b
        [(1, "c", 1, 3, False), (2, "b", 1, 1, False), (3, "a", 1, 1, True)],
    ),
    # technical actions "stay those paid in its score as rolled": a 20 - 5 - 5 - 1 = 9, moved to b's 4
    "technical actions stay as paid": (
        everyone("a", "b", a={"initiative": 20}),
        [hold(attack("a", "b", technical_actions=1), "b"), attack("b", "a")],
        dice(a=1, b=1),
        [(1, "b", 1, 4, False), (2, "a", 1, 4, True)],
    ),
}


@pytest.mark.parametrize(("combatants", "declarations", "dice", "expected"), CASES.values(), ids=CASES.keys())
def test_where_held_actions_resolve(combatants, declarations, dice, expected):
    assert order(resolve(combatants, declarations, dice)) == expected


def test_technical_actions_are_reported_as_paid_on_a_moved_action():
    result = resolve(everyone("a", "b", a={"initiative": 20, "weapon_ready": False}),
                     [hold(attack("a", "b", technical_actions=1), "b"), attack("b", "a")], dice(a=1, b=1))
    moved = result["actions"][1]
    assert (moved["actor"], moved["held"], moved["score"], moved["technical_actions"]) == ("a", True, 4, 2)


@pytest.mark.parametrize("case", ["moved from before X to right after it", "later attacks follow the moved score",
                                  "the rule's example"])
def test_a_hold_rolls_no_extra_dice_and_changes_nothing_else(case):
    """The same round without its holds uses the very same dice, and each action the same target and result."""
    combatants, declarations, rolled, _ = CASES[case]
    held = resolve(combatants, declarations, rolled)
    free = resolve(combatants, [{k: v for k, v in d.items() if k != "hold"} for d in declarations], rolled)
    assert held["dice"] == free["dice"]
    key = lambda a: (a["actor"], a["seq"])  # noqa: E731
    assert sorted((key(a), a["target"], a["roll"]) for a in held["actions"]) == sorted(
        (key(a), a["target"], a["roll"]) for a in free["actions"])
    assert all(not a["held"] for a in free["actions"])


def test_x_down_when_its_action_comes_up_still_has_its_tick_and_the_held_one_follows():
    """c (20 - 5 - 1 = 14) hits b with a natural 1: TN 10, margin 9, blow 8 + 4 = 12, critical: b unconscious."""
    result = resolve(
        everyone("a", "b", "c", a={"initiative": 15}, c={"initiative": 20}),
        [hold(attack("a", "c"), "b"), attack("b", "c"), attack("c", "b")],
        {**dice(a=1, b=1), "c.initiative.1": 1, "c.attack.1": 1, "c.damage.1": [8]},
    )
    assert [(a["tick"], a["actor"], a["score"], a["held"], a["result"]) for a in result["actions"]] == [
        (1, "c", 14, False, "wound"), (2, "b", 4, False, "actor_down"), (3, "a", 4, True, "miss")]


def test_held_is_false_on_every_entry_of_a_round_without_holds():
    result = resolve(everyone("a", "b", a={"attacks_per_round": 2}), [attack("a", "b"), attack("b", "a")],
                     {**dice(a=1, b=2), "a.initiative.2": 1, "a.attack.2": 20})
    assert [a["held"] for a in result["actions"]] == [False, False, False]


def request(declarations: list[dict], combatants: list[dict] | None = None) -> dict[str, Any]:
    return {"combatants": combatants or everyone("a", "b", "c"), "declarations": declarations}


REFUSED = {
    "hold on itself": (request([hold(attack("a", "b"), "a")]), ["/declarations/0/hold"]),
    "hold on a combatant not in the encounter": (request([hold(attack("a", "b"), "zed")]), ["/declarations/0/hold"]),
    "hold on an unconscious combatant": (
        request([hold(attack("a", "b"), "c")], [*everyone("a", "b"), fighter("c", status="unconscious", blood=0)]),
        ["/declarations/0/hold"]),
    "hold on a dead combatant": (
        request([hold(attack("a", "b"), "c")], [*everyone("a", "b"), fighter("c", status="dead", blood=-10)]),
        ["/declarations/0/hold"]),
    "hold that is not a string": (request([hold(attack("a", "b"), 7)]), ["/declarations/0/hold"]),
    "hold with none": (request([hold(none("a"), "b")]), ["/declarations/0/hold"]),
    "hold with no action": (request([{"combatant": "a", "hold": "b"}]), ["/declarations/0/hold"]),
    "hold with continue": (
        request([hold({"combatant": "a", "action": {"type": "continue"}}, "b")],
                [fighter("a", long_action=carrying()), *everyone("b", "c")]),
        ["/declarations/0/hold"]),
    "hold without action while carrying a long action": (
        request([{"combatant": "a", "hold": "b"}], [fighter("a", long_action=carrying()), *everyone("b", "c")]),
        ["/declarations/0/hold"]),
    "a cycle of two": (
        request([hold(attack("a", "b"), "b"), hold(attack("b", "a"), "a")]),
        ["/declarations/0/hold", "/declarations/1/hold"]),
    "a cycle of three": (
        request([hold(attack("a", "b"), "b"), hold(attack("b", "c"), "c"), hold(attack("c", "a"), "a")]),
        ["/declarations/0/hold", "/declarations/1/hold", "/declarations/2/hold"]),
    "a cycle beside a chain into it": (
        request([hold(attack("a", "b"), "b"), hold(attack("b", "c"), "c"), hold(attack("c", "b"), "b")]),
        ["/declarations/1/hold", "/declarations/2/hold"]),
}


@pytest.mark.parametrize(("body", "fields"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_holds(body, fields):
    assert sorted(refused_fields(body)) == fields


def test_a_long_chain_without_a_cycle_is_accepted():
    ids = [f"c{i}" for i in range(12)]
    declarations = [hold(attack(a, b), b) for a, b in zip(ids, ids[1:])] + [attack(ids[-1], ids[0])]
    assert refused_fields(request(declarations, [fighter(i) for i in ids])) is None
