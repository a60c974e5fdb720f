"""The resolver's fast constructors build the same frozen dataclasses as the classes themselves."""

from dataclasses import FrozenInstanceError, fields

import pytest

from app.resolver.model import (
    ActionOutcome,
    CombatantState,
    Effect,
    EffectGiven,
    LongAction,
    Wound,
    action_outcome,
    combatant_state,
)

OUTCOME = (1, "ala", 1, "custom", "ola", 3, 0, "done", 5, 9, True, 4, (3, 2), 8, 7, "moderate", "ward")
STATE = (
    "ala", "unconscious", -2, True, (Wound("light", 1, 0),), 1,
    (Effect("slowed", "s", defense=-2, until_round=4),),
    LongAction("ward", 4, 2, "ola", EffectGiven("warded", defense=4, rounds=5)),
)


@pytest.mark.parametrize(
    ("fast", "cls", "values"),
    [(action_outcome, ActionOutcome, OUTCOME), (combatant_state, CombatantState, STATE)],
    ids=["action_outcome", "combatant_state"],
)
def test_fast_constructor_matches_the_dataclass(fast, cls, values):
    built = fast(*values)
    assert type(built) is cls
    assert built == cls(*values)
    assert hash(built) == hash(cls(*values))
    assert repr(built) == repr(cls(*values))
    # every field set on the instance itself: a forgotten one would silently read the class default
    assert list(vars(built)) == [f.name for f in fields(cls)]
    with pytest.raises(FrozenInstanceError):
        built.__setattr__(fields(cls)[0].name, None)


def test_action_outcome_defaults_match_the_dataclass():
    assert action_outcome(*OUTCOME[:8]) == ActionOutcome(*OUTCOME[:8])
