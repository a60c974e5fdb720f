"""The rules engine: a pure, stateless resolver of one round (standard library only).

result = resolve_round(RoundInput(...), build_ruleset(overrides), MixedDice(dice, seed))
"""

from . import round as _round_module
from .dice import DiceSource, FixedDice, MixedDice, SeededDice, new_seed
from .errors import InvalidNotation, InvalidRound, InvalidRuleset, Issue, MissingDie, ResolverError, UnknownKey
from .model import (
    ActionOutcome,
    Attack,
    BloodLoss,
    Combatant,
    CombatantState,
    Continue,
    Custom,
    Declaration,
    Effect,
    EffectGiven,
    FirstAid,
    InlineWeapon,
    LongAction,
    NoAction,
    RoundInput,
    RoundResult,
    Wound,
)
from .notation import DamageDice, parse_damage
from .round import resolve_round
from .ruleset import DEFAULT_RULES, DEFAULT_RULESET, Ruleset, build_ruleset

# True where scripts/compile-resolver compiled the round's hot path (the Docker image does).
COMPILED = not _round_module.__file__.endswith(".py")

__all__ = [
    "COMPILED",
    "ActionOutcome",
    "Attack",
    "BloodLoss",
    "Combatant",
    "CombatantState",
    "Continue",
    "Custom",
    "DEFAULT_RULES",
    "DEFAULT_RULESET",
    "DamageDice",
    "Declaration",
    "DiceSource",
    "Effect",
    "EffectGiven",
    "FirstAid",
    "FixedDice",
    "InlineWeapon",
    "InvalidNotation",
    "InvalidRound",
    "InvalidRuleset",
    "Issue",
    "LongAction",
    "MissingDie",
    "MixedDice",
    "NoAction",
    "ResolverError",
    "RoundInput",
    "RoundResult",
    "Ruleset",
    "SeededDice",
    "UnknownKey",
    "Wound",
    "build_ruleset",
    "new_seed",
    "parse_damage",
    "resolve_round",
]
