"""Combatants of an encounter: add, read, change, remove. Each change runs in the command runner's
transaction: load the encounter (checking the expected version), decide, bump its version, write, announce;
it returns the rows it made or changed and the new version."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.access import service as access
from app.campaign import repository
from app.encounters import convert, screen, store
from app.encounters.convert import CombatantRow, EncounterRecord
from app.encounters.errors import require_unfinished
from app.encounters.ids import new_effect_id, new_id
from app.encounters.schemas.encounter import (
    CharacterJoin,
    CombatantCreate,
    CombatantFields,
    CombatantUpdate,
    CreatureJoin,
)
from app.platform.changefeed import Change, announce
from app.platform.db import Database
from app.platform.errors import Conflict, NotFound, Unprocessable
from app.platform.versions import ANY_VERSION, ExpectedVersion, Versioned
from app.resolver import Ruleset, bounds, build_ruleset
from app.resolver.errors import Issues
from app.resolver.validate import check_armor, weapon_profile
from app.resolver.wounds import fill_wound

CombatantJoinBody = CombatantCreate | CharacterJoin | CreatureJoin


def _check_lasting(issues: Issues, fields: CombatantFields, pointer: str, targets: frozenset[str]) -> None:
    """Effect ids unique within the combatant; a long action only on an active combatant, aimed at itself
    (null) or at a combatant already in the encounter (`targets`)."""
    seen: set[str] = set()
    for i, effect in enumerate(fields.effects):
        if effect.id is not None and effect.id in seen:
            issues.add(f"{pointer}/effects/{i}/id", f"{effect.id!r} names another effect of this combatant")
        seen.add(effect.id or "")
    long_action = fields.long_action
    if long_action is None:
        return
    if fields.status != "active":
        issues.add(
            f"{pointer}/long_action", f"only an active combatant carries a long action, not a {fields.status} one"
        )
    if long_action.target is not None and long_action.target not in targets:
        issues.add(
            f"{pointer}/long_action/target",
            f"{long_action.target!r} is not a combatant of this encounter (null: the combatant itself)",
        )


def checked_values(
    fields: CombatantFields, ruleset: Ruleset, pointer: str = "", targets: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Column values for a combatant, its weapon and wound classes checked against the ruleset, its effects
    named (ids kept when given), its long action checked (`targets`: the ids it may aim at)."""
    combatant = convert.combatant_from_schema("new", fields)
    weapon_profile(combatant.weapon, ruleset, f"{pointer}/weapon")
    issues = Issues()
    check_armor(issues, combatant.armor, ruleset, f"{pointer}/armor")
    _check_lasting(issues, fields, pointer, targets)
    for i, wound in enumerate(combatant.wounds):
        if (wound.penalty is None or wound.bleed is None) and ruleset.wound_class(wound.cls) is None:
            issues.add(
                f"{pointer}/wounds/{i}/class",
                f"{wound.cls!r} is not a wound class of the ruleset; name one, or give penalty and bleed",
            )
    issues.raise_if_any()
    wounds = [fill_wound(w, ruleset) for w in combatant.wounds]
    values = convert.row_values(combatant)
    values["wounds"] = [{"class": w.cls, "penalty": w.penalty, "bleed": w.bleed} for w in wounds]
    values["blood"] = combatant.vitality if combatant.blood is None else combatant.blood
    values["name"] = fields.name
    values["effects"] = [{**e, "id": e["id"] or new_effect_id()} for e in values["effects"]]
    values["side"] = fields.side
    values["hidden"] = fields.hidden
    values["group"] = fields.group
    values.setdefault("character_id", None)
    values.setdefault("creature_id", None)
    return values


async def link_characters(session: AsyncSession, encounter_id: str, rows: list[dict[str, Any]]) -> None:
    """Link every character among `rows` into the encounter: 409 character-busy when one is in another fight."""
    for row in rows:
        if row.get("character_id"):
            await repository.link(session, character_id=row["character_id"], encounter_id=encounter_id)


def numbered(name: str, count: int, taken: list[str | None]) -> list[str]:
    """A creature's copies are numbered: with more than one copy, or when `name` (or `name N`) is already in the
    encounter, `name 1`, `name 2`, … continuing after the highest N used (a plain `name` counts as 0)."""
    used = [n for n in taken if n is not None and (n == name or n.startswith(f"{name} "))]
    numbers = [
        0 if n == name else int(n.removeprefix(f"{name} ")) for n in used if n == name or n[len(name) + 1 :].isdigit()
    ]
    if count == 1 and not numbers:
        return [name]
    first = max(numbers, default=0) + 1
    names = []
    for n in range(first, first + count):
        suffix = f" {n}"
        names.append(name[: bounds.NAME_LENGTH[1] - len(suffix)] + suffix)
    return names


async def joining(
    session: AsyncSession, encounter: EncounterRecord, data: CombatantJoinBody, ruleset: Ruleset, pointer: str = ""
) -> list[dict[str, Any]]:
    """The combatants' column values a join body makes: one full combatant, a character (the caller links
    it, `link_characters`, once the encounter's row exists), or `count` copies of a creature."""
    targets = frozenset(row["id"] for row in encounter.combatants)
    if isinstance(data, CombatantCreate):
        return [checked_values(data, ruleset, pointer, targets=targets)]
    if isinstance(data, CharacterJoin):
        character = await repository.character(session, campaign_id=encounter.campaign_id, character_id=data.character)
        stats = repository.stat_block(character)
        fields = CombatantFields.model_validate(
            {**stats, "side": data.side or stats["side"], "hidden": data.hidden}, strict=False
        )
        return [{**checked_values(fields, ruleset, pointer), "character_id": data.character}]
    creature = await repository.creature(session, campaign_id=encounter.campaign_id, creature_id=data.creature)
    stats = repository.stat_block(creature)
    names = numbered(stats["name"], data.count, [row["name"] for row in encounter.combatants])
    made = []
    for name in names:
        fields = CombatantFields.model_validate(
            {**stats, "name": name, "side": data.side or stats["side"], "hidden": data.hidden}, strict=False
        )
        made.append({**checked_values(fields, ruleset, pointer), "creature_id": data.creature})
    return made


def find_combatant(encounter: EncounterRecord, combatant_id: str) -> CombatantRow:
    for row in encounter.combatants:
        if row["id"] == combatant_id:
            return row
    raise NotFound(f"Encounter {encounter.id} has no combatant {combatant_id}.")


async def get(
    database: Database, *, campaign_id: str, encounter_id: str, combatant_id: str, screened: bool = False
) -> tuple[CombatantRow, int]:
    """One combatant as read, and the encounter's version (its ETag); a hidden one does not exist for a
    player or viewer (`screened`)."""
    encounter = await store.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    return find_combatant(screen.visible(encounter) if screened else encounter, combatant_id), encounter.version


async def add(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    data: CombatantJoinBody,
    expected: ExpectedVersion = ANY_VERSION,
) -> Versioned[list[dict[str, Any]]]:
    """The combatant (full or a character), or a creature's copies, in the order made."""
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    require_unfinished(encounter)
    adding = data.count if isinstance(data, CreatureJoin) else 1
    if len(encounter.combatants) + adding > bounds.MAX_COMBATANTS:
        raise Unprocessable(f"An encounter holds at most {bounds.MAX_COMBATANTS} combatants.")
    made = await joining(session, encounter, data, build_ruleset(encounter.rules))
    position = encounter.next_position
    version = await store.bump_version(session, encounter_id, encounter.version, next_position=position + len(made))
    rows = [
        {"id": new_id(), "encounter_id": encounter_id, "position": position + i, **values}
        for i, values in enumerate(made)
    ]
    await link_characters(session, encounter_id, rows)
    await store.insert_combatants(session, encounter_id, rows)
    await announce(session, Change.of_encounter(encounter_id, version))
    return Versioned(rows, version)


async def update(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    data: CombatantUpdate,
    expected: ExpectedVersion = ANY_VERSION,
) -> Versioned[CombatantRow]:
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    require_unfinished(encounter)
    row = find_combatant(encounter, combatant_id)
    current = convert.snapshot(row)
    changed = data.model_dump(exclude_unset=True, by_alias=True)
    if "vitality" in changed and "blood" not in changed and row["blood"] == row["vitality"]:
        changed["blood"] = changed["vitality"]  # an unhurt combatant stays at full blood
    # not checked again: kept, or the long action cancelled; where it came from stays as it is
    lasting = ("id", "position", "effects", "long_action", "character_id", "creature_id")
    merged = CombatantFields.model_validate(
        {k: v for k, v in {**current, **changed}.items() if k not in lasting}, strict=False
    )
    values = checked_values(merged, build_ruleset(encounter.rules))
    if values["hidden"] and not row["hidden"] and await access.has_player_token(session, combatant_id):
        raise Conflict(
            f"A player token is bound to combatant {combatant_id}: its player would lose sight of it. "
            "Revoke the token first, or leave it visible."
        )
    values["effects"] = row["effects"]  # a round may have given more than a request may carry
    # Cancelled by the game master (long_action: null), or lost with the combatant's activity (docs/rules.md).
    cancelled = "long_action" in changed or values["status"] != "active"
    values["long_action"] = None if cancelled else row["long_action"]
    version = await store.bump_version(session, encounter_id, encounter.version)
    await store.update_combatant(session, combatant_id, values)
    await announce(session, Change.of_encounter(encounter_id, version))
    return Versioned({**row, **values}, version)


async def remove(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    expected: ExpectedVersion = ANY_VERSION,
) -> int:
    """The encounter's new version."""
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    require_unfinished(encounter)
    row = find_combatant(encounter, combatant_id)
    version = await store.bump_version(session, encounter_id, encounter.version)
    if row["character_id"] is not None:  # it leaves the fight with its wounds
        await repository.write_back(session, character_id=row["character_id"], encounter_id=encounter_id, state=row)
    # Its staged declaration goes with it (the foreign key would cascade), and every screen is told, as
    # when it is withdrawn: deleted here, so the transaction knows whether there was one to announce.
    withdrawn = await store.clear_staged(session, store.staged_of_combatant(combatant_id))
    cleared = [Change.of_declaration(encounter_id, cid, False, version) for cid in withdrawn]
    await store.delete_combatant(session, combatant_id)
    # A long action aimed at the one removed has nothing left to complete on: it is dropped, or every
    # later round would be refused for naming a combatant that is not there.
    aiming = [row["id"] for row in encounter.combatants if (row["long_action"] or {}).get("target") == combatant_id]
    if aiming:
        await store.drop_long_actions(session, aiming)
    await announce(session, Change.of_encounter(encounter_id, version), *cleared)
    return version
