"""Combatants between the three worlds: request bodies, stored rows and resolver dataclasses.

The fields are not listed here: they are derived from the resolver's Combatant, so a field added there
flows through (tests/api/test_fields.py fails when a schema, the table and the resolver disagree).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from app.encounters.schemas import CombatantFields
from app.encounters.schemas import InlineWeapon as InlineWeaponIn
from app.encounters.store import CombatantRow
from app.resolver import model as rm
from app.resolver.codec import COMBATANT_FIELDS, combatant_to_json, weapon_from_json, wound_from_json, wound_to_json

RESOLVER_FIELDS = tuple(f.name for f in fields(rm.Combatant))
ROW_FIELDS = ("position", "name", *sorted(COMBATANT_FIELDS))  # every column of a combatant row but its encounter's
ROUND_CHANGES = ("status", "blood", "weapon_ready", "wounds")  # what resolving a round may change


def weapon_from_schema(weapon: str | InlineWeaponIn) -> str | rm.InlineWeapon:
    if isinstance(weapon, InlineWeaponIn):
        return rm.InlineWeapon(weapon.name, weapon.delay, weapon.damage)
    return weapon


def combatant_from_schema(cid: str, c: CombatantFields) -> rm.Combatant:
    values: dict[str, Any] = {name: getattr(c, name) for name in RESOLVER_FIELDS if name != "id"}
    values["weapon"] = weapon_from_schema(c.weapon)
    values["wounds"] = tuple(rm.Wound(w.class_, w.penalty, w.bleed) for w in c.wounds)
    return rm.Combatant(id=cid, **values)


def combatant_from_row(row: CombatantRow) -> rm.Combatant:
    values: dict[str, Any] = {name: row[name] for name in RESOLVER_FIELDS}
    values["weapon"] = weapon_from_json(row["weapon"])
    values["wounds"] = tuple(wound_from_json(w) for w in row["wounds"])
    return rm.Combatant(**values)


def row_values(combatant: rm.Combatant) -> dict[str, Any]:
    """Column values of a combatant (blood and wounds filled in by the resolver)."""
    values = combatant_to_json(combatant)
    values.pop("id")
    return values


def state_values(state: rm.CombatantState) -> dict[str, Any]:
    """Only what a round changes, keyed for a bulk UPDATE by primary key."""
    values = {name: getattr(state, name) for name in ROUND_CHANGES}
    values["wounds"] = [wound_to_json(w) for w in state.wounds]
    return {"id": state.id, **values}


def snapshot(row: CombatantRow) -> dict[str, Any]:
    """Every column of a combatant row: what undo restores."""
    return {name: row[name] for name in ROW_FIELDS}
