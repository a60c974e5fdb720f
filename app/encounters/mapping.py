"""Combatants between the three worlds: request bodies, stored rows and resolver dataclasses.

The fields are not listed here: they are derived from the resolver's Combatant, so a field added there
flows through (tests/api/test_fields.py fails when a schema, the table and the resolver disagree).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from app.encounters.schemas import CombatantFields, EffectGivenIn, LongActionIn
from app.encounters.schemas import InlineWeapon as InlineWeaponIn
from app.encounters.store import CombatantRow
from app.resolver import model as rm
from app.resolver.codec import (
    STATE_FIELDS,
    combatant_to_json,
    effect_to_json,
    lasting_to_json,
    long_action_to_json,
    weapon_from_json,
    wound_from_json,
    wound_to_json,
)

RESOLVER_FIELDS = tuple(f.name for f in fields(rm.Combatant))
# every column of a combatant row but its encounter's: what a round's snapshot keeps and undo restores
ROW_FIELDS = ("position", "name", "side", *sorted(STATE_FIELDS))
# Columns added after rounds were stored: an older snapshot lacks them, and had what their migration gave.
SNAPSHOT_DEFAULTS: Mapping[str, Any] = {"side": None, "effects": [], "long_action": None}
# What resolving a round may change: the resolver's CombatantState but the id and the derived penalty.
ROUND_CHANGES = tuple(f.name for f in fields(rm.CombatantState) if f.name not in ("id", "penalty"))


def weapon_from_schema(weapon: str | InlineWeaponIn) -> str | rm.InlineWeapon:
    if isinstance(weapon, InlineWeaponIn):
        return rm.InlineWeapon(weapon.name, weapon.delay, weapon.damage)
    return weapon


def effect_given_from_schema(given: EffectGivenIn | None) -> rm.EffectGiven | None:
    return None if given is None else rm.EffectGiven(**given.model_dump())


def long_action_from_schema(long_action: LongActionIn | None) -> rm.LongAction | None:
    if long_action is None:
        return None
    effect = effect_given_from_schema(long_action.effect)
    return rm.LongAction(long_action.name, long_action.delay, long_action.rounds_left, long_action.target, effect)


def combatant_from_schema(cid: str, c: CombatantFields) -> rm.Combatant:
    values: dict[str, Any] = {name: getattr(c, name) for name in RESOLVER_FIELDS if name != "id"}
    values["weapon"] = weapon_from_schema(c.weapon)
    values["wounds"] = tuple(rm.Wound(w.class_, w.penalty, w.bleed) for w in c.wounds)
    values["effects"] = tuple(rm.Effect(**e.model_dump()) for e in c.effects)
    values["long_action"] = long_action_from_schema(c.long_action)
    return rm.Combatant(id=cid, **values)


def effect_from_json(value: dict[str, Any]) -> rm.Effect:
    """A stored effect: written by effect_to_json, so it has exactly the Effect's fields."""
    return rm.Effect(**value)


def long_action_from_json(value: dict[str, Any] | None) -> rm.LongAction | None:
    """A stored long action, as long_action_to_json wrote it."""
    if value is None:
        return None
    given = value["effect"]
    effect = None if given is None else rm.EffectGiven(**given)
    return rm.LongAction(value["name"], value["delay"], value["rounds_left"], value["target"], effect)


def combatant_from_row(row: CombatantRow) -> rm.Combatant:
    values: dict[str, Any] = {name: row[name] for name in RESOLVER_FIELDS}
    values["weapon"] = weapon_from_json(row["weapon"])
    values["wounds"] = tuple(wound_from_json(w) for w in row["wounds"])
    values["effects"] = tuple(effect_from_json(e) for e in row["effects"])
    values["long_action"] = long_action_from_json(row["long_action"])
    return rm.Combatant(**values)


def row_values(combatant: rm.Combatant) -> dict[str, Any]:
    """Column values of a combatant (blood and wounds filled in by the resolver)."""
    values = {**combatant_to_json(combatant), **lasting_to_json(combatant)}
    values.pop("id")
    return values


def state_values(state: rm.CombatantState) -> dict[str, Any]:
    """Only what a round changes, keyed for a bulk UPDATE by primary key."""
    values = {name: getattr(state, name) for name in ROUND_CHANGES}
    values["wounds"] = [wound_to_json(w) for w in state.wounds]
    values["effects"] = [effect_to_json(e) for e in state.effects]
    values["long_action"] = long_action_to_json(state.long_action)
    return {"id": state.id, **values}


def snapshot(row: CombatantRow) -> dict[str, Any]:
    """Every column of a combatant row: what undo restores."""
    return {name: row[name] for name in ROW_FIELDS}


def restored(saved: Mapping[str, Any]) -> dict[str, Any]:
    """A snapshot's row again, with every ROW_FIELDS column (an older snapshot lacks the later ones)."""
    return {name: saved[name] if name in saved else SNAPSHOT_DEFAULTS[name] for name in ROW_FIELDS}
