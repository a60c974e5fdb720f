"""The one module that knows both worlds: ORM rows and Pydantic bodies <-> resolver dataclasses."""

from __future__ import annotations

from typing import Any

from app.encounters.models import Combatant as CombatantRow
from app.encounters.schemas import CombatantFields
from app.encounters.schemas import InlineWeapon as InlineWeaponIn
from app.resolver import model as rm
from app.resolver.codec import COMBATANT_FIELDS, combatant_to_json, weapon_from_json, wound_to_json  # noqa: F401 (weapon_from_json re-exported)
from app.rounds.schemas import AttackAction, CustomAction, DeclarationIn, FirstAidAction

ROW_FIELDS = ("position", "name", *sorted(COMBATANT_FIELDS))  # every column of a combatant row


def weapon_from_schema(weapon: str | InlineWeaponIn) -> str | rm.InlineWeapon:
    if isinstance(weapon, InlineWeaponIn):
        return rm.InlineWeapon(weapon.name, weapon.delay, weapon.damage)
    return weapon


def combatant_from_schema(cid: str, c: CombatantFields) -> rm.Combatant:
    return rm.Combatant(
        id=cid,
        initiative=c.initiative,
        attack=c.attack,
        defense=c.defense,
        weapon=weapon_from_schema(c.weapon),
        attacks_per_round=c.attacks_per_round,
        weapon_ready=c.weapon_ready,
        damage_bonus=c.damage_bonus,
        armor=c.armor,
        toughness=c.toughness,
        vitality=c.vitality,
        blood=c.blood,
        status=c.status,
        wounds=tuple(rm.Wound(w.class_, w.penalty, w.bleed) for w in c.wounds),
    )


def combatant_from_row(row: CombatantRow) -> rm.Combatant:
    return rm.Combatant(
        id=row.id,
        initiative=row.initiative,
        attack=row.attack,
        defense=row.defense,
        weapon=weapon_from_json(row.weapon),
        attacks_per_round=row.attacks_per_round,
        weapon_ready=row.weapon_ready,
        damage_bonus=row.damage_bonus,
        armor=row.armor,
        toughness=row.toughness,
        vitality=row.vitality,
        blood=row.blood,
        status=row.status,  # type: ignore[arg-type]
        wounds=tuple(rm.Wound(w["class"], w["penalty"], w["bleed"]) for w in row.wounds),
    )


def row_values(combatant: rm.Combatant) -> dict[str, Any]:
    """Column values of a resolved combatant (blood and wounds filled in by the resolver)."""
    values = combatant_to_json(combatant)
    values.pop("id")
    return values


def state_values(state: rm.CombatantState) -> dict[str, Any]:
    """Only what a round changes, keyed for a bulk UPDATE by primary key."""
    return {
        "id": state.id,
        "status": state.status,
        "blood": state.blood,
        "weapon_ready": state.weapon_ready,
        "wounds": [wound_to_json(w) for w in state.wounds],
    }


def snapshot(row: CombatantRow) -> dict[str, Any]:
    """Every column of a combatant row: what undo restores."""
    return {name: getattr(row, name) for name in ROW_FIELDS}


def declaration_from_schema(d: DeclarationIn) -> rm.Declaration:
    action: rm.Action
    if isinstance(d.action, AttackAction):
        action = rm.Attack(tuple(d.action.target_list))
    elif isinstance(d.action, FirstAidAction):
        action = rm.FirstAid(d.action.target)
    elif isinstance(d.action, CustomAction):
        action = rm.Custom(d.action.name, d.action.delay)
    else:
        action = rm.NoAction()
    return rm.Declaration(d.combatant, action, d.stance, d.technical_actions)


def dice_from_schema(dice: dict[str, int | list[int]]) -> dict[str, int | tuple[int, ...]]:
    return {key: tuple(value) if isinstance(value, list) else value for key, value in dice.items()}
