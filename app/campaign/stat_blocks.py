"""The roster (characters) and the bestiary (creatures): one code path, told which `Kind` of row it works
on (the two differ by their table and the character's link to a fight). A stat block is checked against the
campaign's house rules; create, list, read, change, delete.

Each change runs in the command runner's transaction: hold the campaign's row (its rules cannot change
meanwhile), load the row (checking the expected version), decide, bump its version, write, return the row.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import repository
from app.campaign.errors import CharacterBusy
from app.campaign.schemas import (
    CharacterCreate,
    CharacterRead,
    CreatureCreate,
    CreatureRead,
    StatBlock,
    StatBlockUpdate,
)
from app.campaign.tables import CHARACTERS, CREATURES
from app.platform.db import Database, utcnow
from app.platform.versions import ANY_VERSION, ExpectedVersion
from app.resolver import Ruleset, build_ruleset, model
from app.resolver.codec import weapon_to_json, wound_to_json
from app.resolver.errors import Issues
from app.resolver.validate import check_armor, weapon_profile
from app.resolver.wounds import fill_wound
from app.vocabulary.stat_block import InlineWeapon

Resource = repository.Resource
R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class Kind(Generic[R]):
    """Characters or creatures: their table, where they live, how a body is read and how a row reads."""

    table: Table
    path: str  # /v1/characters
    create_schema: type[StatBlock]
    read: Callable[[Mapping[str, Any]], R]
    before_delete: Callable[[Resource], None] = lambda resource: None


def checked_values(data: StatBlock, ruleset: Ruleset) -> dict[str, Any]:
    """Column values for a stat block, its weapon, armor and wound classes checked against the campaign's
    rules (a weapon of their armory is a known weapon), wounds filled in from their classes."""
    weapon: str | model.InlineWeapon = (
        model.InlineWeapon(data.weapon.name, data.weapon.delay, data.weapon.damage)
        if isinstance(data.weapon, InlineWeapon)
        else data.weapon
    )
    weapon_profile(weapon, ruleset, "/weapon")
    issues = Issues()
    check_armor(issues, data.armor, ruleset, "/armor")
    wounds = [model.Wound(w.class_, w.penalty, w.bleed) for w in data.wounds]
    for i, wound in enumerate(wounds):
        if (wound.penalty is None or wound.bleed is None) and ruleset.wound_class(wound.cls) is None:
            issues.add(
                f"/wounds/{i}/class",
                f"{wound.cls!r} is not a wound class of the campaign's rules; name one, or give penalty and bleed",
            )
    issues.raise_if_any()
    values = data.model_dump(exclude={"weapon", "wounds", "blood"})
    values["weapon"] = weapon_to_json(weapon)
    values["wounds"] = [wound_to_json(fill_wound(w, ruleset)) for w in wounds]
    values["blood"] = data.vitality if data.blood is None else data.blood
    return values


def ruleset_of(campaign: Mapping[str, Any]) -> Ruleset:
    return build_ruleset(campaign["rules"])


async def create(session: AsyncSession, *, kind: Kind[Any], campaign_id: str, data: StatBlock) -> Resource:
    """The new row, at version 1."""
    campaign = await repository.hold_campaign(session, campaign_id)
    now = utcnow()
    row = {
        "id": str(uuid.uuid4()),
        "campaign_id": campaign_id,
        **checked_values(data, ruleset_of(campaign)),
        "version": 1,
        "created_at": now,
        "updated_at": now,
    }
    if "encounter_id" in kind.table.c:
        row["encounter_id"] = None
    await repository.insert_resource(session, kind.table, row)
    return row


async def list_page(
    *, session: AsyncSession, kind: Kind[R], campaign_id: str, limit: int, offset: int
) -> tuple[list[R], int]:
    async with session.begin():
        rows, total = await repository.list_page(
            session, kind.table, campaign_id=campaign_id, limit=limit, offset=offset
        )
    return [kind.read(row) for row in rows], total


async def get(database: Database, *, kind: Kind[Any], campaign_id: str, resource_id: str) -> Resource:
    """One row, in one statement outside any transaction."""
    return await repository.read(database, kind.table, campaign_id=campaign_id, resource_id=resource_id)


async def update(
    session: AsyncSession,
    *,
    kind: Kind[Any],
    campaign_id: str,
    resource_id: str,
    data: StatBlockUpdate,
    expected: ExpectedVersion = ANY_VERSION,
) -> Resource:
    """The row as changed, at its new version."""
    campaign = await repository.hold_campaign(session, campaign_id)
    current = await repository.load(session, kind.table, campaign_id, resource_id, expected)
    changed = data.model_dump(exclude_unset=True, by_alias=True)
    if "vitality" in changed and "blood" not in changed and current["blood"] == current["vitality"]:
        changed["blood"] = changed["vitality"]  # an unhurt one stays at full blood
    fields = set(kind.create_schema.model_fields)
    merged = kind.create_schema.model_validate(
        {k: v for k, v in {**current, **changed}.items() if k in fields}, strict=False
    )
    values = {**checked_values(merged, ruleset_of(campaign)), "updated_at": utcnow()}
    version = await repository.bump(session, kind.table, resource_id, current["version"], **values)
    return {**current, **values, "version": version}


async def delete(
    session: AsyncSession,
    *,
    kind: Kind[Any],
    campaign_id: str,
    resource_id: str,
    expected: ExpectedVersion = ANY_VERSION,
) -> None:
    current = await repository.load(session, kind.table, campaign_id, resource_id, expected)
    kind.before_delete(current)
    await repository.delete_resource(session, kind.table, resource_id, current["version"])


# --- the two kinds: the roster and the bestiary ------------------------------------------------------


def character_read(row: Mapping[str, Any]) -> CharacterRead:
    return CharacterRead.model_validate({**row, "encounter": row["encounter_id"]})


def _free(character: Resource) -> None:
    """A character in an unfinished encounter cannot be deleted (409 character-busy, naming it)."""
    if character["encounter_id"] is not None:
        raise CharacterBusy(
            f"Character {character['id']} is in the unfinished encounter {character['encounter_id']}: "
            "remove it from that fight, or finish the fight, first.",
            encounter=character["encounter_id"],
        )


CHARACTER = Kind(CHARACTERS, "/v1/characters", CharacterCreate, character_read, before_delete=_free)
# A change or a deletion of a creature touches no combatant made from it (a copy is its own).
CREATURE = Kind(CREATURES, "/v1/creatures", CreatureCreate, CreatureRead.model_validate)
