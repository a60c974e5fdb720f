"""The encounter between the three worlds: request bodies, stored rows and resolver dataclasses, and the
read schemas built from rows. The only module that knows all three (the resolver keeps its own JSON codec).

The fields are not listed here: they are derived from the resolver's Combatant, so a field added there
flows through (tests/api/test_fields.py fails when a schema, the table and the resolver disagree).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

import orjson

from app.encounters.schemas.encounter import (
    CombatantRead,
    CombatantStats,
    EffectGivenIn,
    EncounterRead,
    LongActionIn,
)
from app.encounters.schemas.round import (
    AttackAction,
    ContinueAction,
    CustomAction,
    DeclarationIn,
    FirstAidAction,
    NoAction,
)
from app.encounters.tables import COMBATANTS
from app.resolver import build_ruleset, model
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
from app.vocabulary.columns import armor_folded, armor_split
from app.vocabulary.ruleset import RulesetRead
from app.vocabulary.stat_block import InlineWeapon

CombatantRow = Mapping[str, Any]  # one combatant's columns, by name


@dataclass(frozen=True, slots=True)
class EncounterRecord:
    """The encounter's columns (a test checks they match the table) and its combatants, by position."""

    id: str
    campaign_id: str
    name: str
    rules: dict[str, Any]
    round: int
    version: int
    next_position: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    finish_state: dict[str, Any] | None
    combatants: tuple[CombatantRow, ...]
    declaration_seconds: int | None = None  # the declaration deadline (CONTRACT.md, "Roles and timing")
    auto_resolve: bool = False
    declarations_due_at: datetime | None = None
    staging: int = 0  # stagings and withdrawals so far (store.hold_version)


ENCOUNTER_COLUMNS = tuple(f.name for f in fields(EncounterRecord) if f.name != "combatants")
COMBATANT_COLUMNS = tuple(COMBATANTS.c.keys())
RESOLVER_FIELDS = tuple(f.name for f in fields(model.Combatant))
# every column of a combatant row but its encounter's: what a round's snapshot keeps and undo restores
# What the service keeps beside the resolver's fields: a display name and its Polish forms (the chronicle),
# a side (odds), whether the players' screens see it, where it came from (a linked character, a creature's
# copy), a companion's master and a hidden reinforcement's round.
SERVICE_FIELDS = (
    "name",
    "name_forms",
    "side",
    "hidden",
    "character_id",
    "creature_id",
    "companion_of",
    "reveal_at_round",
)
ROW_FIELDS = ("position", *SERVICE_FIELDS, *sorted(STATE_FIELDS | {"group"}))
# Columns added after rounds were stored: an older snapshot lacks them, and had what their migration gave.
SNAPSHOT_DEFAULTS: Mapping[str, Any] = {
    "side": None,
    "name_forms": None,
    "effects": [],
    "long_action": None,
    "group": None,
    "hidden": False,
    "character_id": None,
    "creature_id": None,
    "companion_of": None,
    "reveal_at_round": None,
}
# What resolving a round may change: the resolver's CombatantState but the id and the derived penalty.
ROUND_CHANGES = tuple(f.name for f in fields(model.CombatantState) if f.name not in ("id", "penalty"))


def weapon_from_schema(weapon: str | InlineWeapon) -> str | model.InlineWeapon:
    if isinstance(weapon, InlineWeapon):
        return model.InlineWeapon(weapon.name, weapon.delay, weapon.damage)
    return weapon


def effect_given_from_schema(given: EffectGivenIn | None) -> model.EffectGiven | None:
    return None if given is None else model.EffectGiven(**given.model_dump())


def long_action_from_schema(long_action: LongActionIn | None) -> model.LongAction | None:
    if long_action is None:
        return None
    effect = effect_given_from_schema(long_action.effect)
    return model.LongAction(long_action.name, long_action.delay, long_action.rounds_left, long_action.target, effect)


def combatant_from_schema(cid: str, c: CombatantStats) -> model.Combatant:
    values: dict[str, Any] = {name: getattr(c, name) for name in RESOLVER_FIELDS if name != "id"}
    values["weapon"] = weapon_from_schema(c.weapon)
    values["wounds"] = tuple(model.Wound(w.class_, w.penalty, w.bleed) for w in c.wounds)
    values["effects"] = tuple(model.Effect(**e.model_dump()) for e in c.effects)
    values["long_action"] = long_action_from_schema(c.long_action)
    return model.Combatant(id=cid, **values)


def effect_from_row(value: dict[str, Any]) -> model.Effect:
    """A stored effect: written by effect_to_json, so it has exactly the Effect's fields."""
    return model.Effect(**value)


def long_action_from_row(value: dict[str, Any] | None) -> model.LongAction | None:
    """A stored long action, as long_action_to_json wrote it."""
    if value is None:
        return None
    given = value["effect"]
    effect = None if given is None else model.EffectGiven(**given)
    return model.LongAction(value["name"], value["delay"], value["rounds_left"], value["target"], effect)


def combatant_from_row(row: CombatantRow) -> model.Combatant:
    values: dict[str, Any] = {name: row[name] for name in RESOLVER_FIELDS}
    values["weapon"] = weapon_from_json(row["weapon"])
    values["wounds"] = tuple(wound_from_json(w) for w in row["wounds"])
    values["effects"] = tuple(effect_from_row(e) for e in row["effects"])
    values["long_action"] = long_action_from_row(row["long_action"])
    return model.Combatant(**values)


def row_values(combatant: model.Combatant) -> dict[str, Any]:
    """Column values of a combatant (blood and wounds filled in by the resolver)."""
    values = {**combatant_to_json(combatant), **lasting_to_json(combatant)}
    values.pop("id")
    return values


def state_values(state: model.CombatantState) -> dict[str, Any]:
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


def combatant_from_columns(values: Sequence[Any]) -> dict[str, Any]:
    """A combatant row (its columns' values, in table order) as the services see it: `armor` as the client
    gave it, points or a name (a column has one type, so the table keeps a name in armor_name)."""
    return armor_folded(zip(COMBATANT_COLUMNS, values))


def combatant_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    """The other way: column values for a combatant row (or the part of one being changed)."""
    return armor_split(row)


def declaration_from_schema(d: DeclarationIn) -> model.Declaration:
    action: model.Action | None
    if d.action is None:
        action = None  # continues a carried long action, else none (the resolver decides)
    elif isinstance(d.action, AttackAction):
        action = model.Attack(tuple(d.action.target_list), shorthand=d.action.targets is None)  # refusals name `target`
    elif isinstance(d.action, FirstAidAction):
        action = model.FirstAid(d.action.target)
    elif isinstance(d.action, CustomAction):
        custom = d.action
        action = model.Custom(
            custom.name,
            custom.delay,
            rounds=custom.rounds,
            target=custom.target,
            effect=effect_given_from_schema(custom.effect),
        )
    elif isinstance(d.action, ContinueAction):
        action = model.Continue()
    else:
        assert isinstance(d.action, NoAction)
        action = model.NoAction()
    return model.Declaration(d.combatant, action, d.stance, d.technical_actions, d.hold)


def groups_of(combatants: Iterable[Mapping[str, Any]] | Iterable[Any]) -> dict[str, str]:
    """Each grouped combatant's group (docs/rules.md: Holding and groups), from rows or request bodies."""
    found = {}
    for c in combatants:
        cid, group = (c["id"], c["group"]) if isinstance(c, Mapping) else (c.id, c.group)
        if group is not None:
            found[cid] = group
    return found


def dice_from_schema(dice: dict[str, int | list[int]]) -> dict[str, int | tuple[int, ...]]:
    return {key: tuple(value) if isinstance(value, list) else value for key, value in dice.items()}


def combatant_read(row: CombatantRow) -> CombatantRead:
    penalty = sum(w["penalty"] for w in row["wounds"])
    return CombatantRead.model_validate(
        {**row, "character": row["character_id"], "creature": row["creature_id"], "penalty": penalty}
    )


@functools.lru_cache(maxsize=256)
def _ruleset_read(rules_key: bytes) -> tuple[RulesetRead, int]:
    """The ruleset in force for these overrides, validated once (a pure function of them, so a worker's
    copy is never stale), and its turn length."""
    ruleset = build_ruleset(orjson.loads(rules_key))
    return RulesetRead.model_validate(dict(ruleset.document)), ruleset.turn_length


def encounter_read(encounter: EncounterRecord) -> EncounterRead:
    ruleset, turn_length = _ruleset_read(orjson.dumps(encounter.rules, option=orjson.OPT_SORT_KEYS))
    return EncounterRead(
        id=encounter.id,
        name=encounter.name,
        round=encounter.round,
        version=encounter.version,
        created_at=encounter.created_at,
        updated_at=encounter.updated_at,
        finished=encounter.finished_at is not None,
        finished_at=encounter.finished_at,
        declaration_seconds=encounter.declaration_seconds,
        auto_resolve=encounter.auto_resolve,
        declarations_due_at=encounter.declarations_due_at,
        turn=encounter.round // turn_length + 1,
        rules=encounter.rules,
        ruleset=ruleset,
        combatants=[combatant_read(c) for c in encounter.combatants],
    )
