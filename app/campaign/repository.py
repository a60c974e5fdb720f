"""The campaign's one repository: every statement on its tables (characters, creatures, the campaign row's
house rules) and a character's links to the fights it joins.

A character or creature is one row, read as a dict with `armor` folded (app/vocabulary/columns.py). Each
change is a guarded update on the row's version (app/platform/versions.py's compare-and-set): two requests
that read the same version cannot both write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Table, bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.tables import CAMPAIGNS
from app.campaign.errors import CharacterBusy, CharacterChanged
from app.campaign.tables import CHARACTERS, CREATURES
from app.platform.db import Database, utcnow
from app.platform.errors import Conflict, NotFound
from app.platform.versions import ANY_VERSION, ExpectedVersion, compare_and_set, delete_at_version, next_version
from app.vocabulary.columns import armor_folded, armor_split

Resource = dict[str, Any]  # one character's or creature's columns by name, armor folded
NOUNS = {"characters": "character", "creatures": "creature"}


def _one(table: Table) -> Any:
    return select(table).where(table.c.id == bindparam("id"), table.c.campaign_id == bindparam("campaign_id"))


ONE = {CHARACTERS.name: _one(CHARACTERS), CREATURES.name: _one(CREATURES)}


def _found(table: Table, rows: Any, resource_id: str) -> Resource:
    if not rows:
        raise NotFound(f"There is no {NOUNS[table.name]} {resource_id}.")
    return armor_folded(rows[0]._mapping)


async def load(
    session: AsyncSession, table: Table, campaign_id: str, resource_id: str, expected: ExpectedVersion = ANY_VERSION
) -> Resource:
    """Inside the caller's transaction: the campaign's row (404 otherwise; 412 when not at a version expected)."""
    rows = (await session.execute(ONE[table.name], {"id": resource_id, "campaign_id": campaign_id})).all()
    resource = _found(table, rows, resource_id)
    expected.check(resource["version"])
    return resource


async def read(database: Database, table: Table, *, campaign_id: str, resource_id: str) -> Resource:
    """Outside a transaction: one autocommitted statement."""
    rows = await database.rows(ONE[table.name], {"id": resource_id, "campaign_id": campaign_id})
    return _found(table, rows, resource_id)


async def list_page(
    session: AsyncSession, table: Table, *, campaign_id: str, limit: int, offset: int
) -> tuple[list[Resource], int]:
    """A page in creation order, and how many there are."""
    mine = table.c.campaign_id == campaign_id
    total = await session.scalar(select(func.count()).select_from(table).where(mine))
    rows = await session.execute(
        select(table).where(mine).order_by(table.c.created_at, table.c.id).limit(limit).offset(offset)
    )
    return [armor_folded(row._mapping) for row in rows], total or 0


async def insert_resource(session: AsyncSession, table: Table, row: Mapping[str, Any]) -> None:
    await session.execute(insert(table).values(**armor_split(row)))


def changed_meanwhile(table: Table) -> Conflict:
    return Conflict(f"The {NOUNS[table.name]} changed while this request was being handled. Re-read it and resend.")


async def bump(session: AsyncSession, table: Table, resource_id: str, read_version: int, **changes: Any) -> int:
    """Move the row to its next version (with `changes`, armor folded) if it is still the one read; else 409.
    The new version."""
    return await next_version(
        session, table, resource_id, read_version, lambda: changed_meanwhile(table), **armor_split(changes)
    )


async def delete_resource(session: AsyncSession, table: Table, resource_id: str, read_version: int) -> None:
    """Delete the row if it is still at the version read (a fight linking a character moves it); else 409."""
    await delete_at_version(session, table, resource_id, read_version, changed_meanwhile(table))


async def stat_blocks(session: AsyncSession, campaign_id: str) -> list[Resource]:
    """Every character's and creature's kind (its table's noun), id, weapon and armor (folded), in creation
    order: what the campaign's house rules must keep known."""
    blocks: list[Resource] = []
    for table in (CHARACTERS, CREATURES):
        rows = await session.execute(
            select(table.c.id, table.c.weapon, table.c.armor, table.c.armor_name)
            .where(table.c.campaign_id == campaign_id)
            .order_by(table.c.created_at, table.c.id)
        )
        blocks.extend({"kind": NOUNS[table.name], **armor_folded(row._mapping)} for row in rows)
    return blocks


# --- the campaign's house rules ---------------------------------------------------------------------

CAMPAIGN_COLUMNS = (CAMPAIGNS.c.id, CAMPAIGNS.c.name, CAMPAIGNS.c.created_at, CAMPAIGNS.c.rules, CAMPAIGNS.c.version)


async def campaign_rules(session: AsyncSession, campaign_id: str) -> dict[str, Any]:
    """The campaign's house rules: the partial ruleset overrides a new encounter starts from ({}: none)."""
    rules = await session.scalar(select(CAMPAIGNS.c.rules).where(CAMPAIGNS.c.id == campaign_id))
    return dict(rules or {})


async def hold_campaign(session: AsyncSession, campaign_id: str, expected: ExpectedVersion = ANY_VERSION) -> Resource:
    """Take the campaign's row without changing it, and read it (id, name, created_at, rules, version): the
    first statement of every use case that checks stat blocks against the house rules, so that a change of
    the rules and a change of a stat block are serialized (neither can pass the other's check unseen).
    412 when it is not at a version the caller expects."""
    held = await session.execute(
        update(CAMPAIGNS)
        .where(CAMPAIGNS.c.id == campaign_id)
        .values(version=CAMPAIGNS.c.version)
        .returning(*CAMPAIGN_COLUMNS)
    )
    row = held.first()
    if row is None:
        raise NotFound("This campaign no longer exists.")
    expected.check(row.version)
    return dict(row._mapping)


async def bump_campaign(session: AsyncSession, campaign_id: str, read_version: int, **changes: Any) -> int:
    """The campaign's next version with `changes`, if it is still at the version read; else 409."""
    changed = Conflict("The campaign changed while this request was being handled. Re-read it and resend.")
    values = {"version": read_version + 1, **changes}
    await compare_and_set(session, CAMPAIGNS, campaign_id, read_version, values, changed)
    return read_version + 1


# --- a character's links to the fights (guarded: no read-then-write) -------------------------------------
# Linking is `UPDATE … WHERE encounter_id IS NULL`, so of two fights racing for one character exactly one
# wins; a write-back names the encounter it comes from, so a character that moved on is never overwritten.
# Each one moves the character's version (its ETag).

C = CHARACTERS.c
# What a fight writes back to the roster (effects and long actions end with the fight).
WRITTEN_BACK = ("blood", "status", "wounds")
# The stat block a character or creature brings into a fight (the table's columns but bookkeeping).
NOT_STATS = {"id", "campaign_id", "notes", "version", "encounter_id", "created_at", "updated_at"}


def stat_block(row: Mapping[str, Any]) -> dict[str, Any]:
    """A character's or creature's columns as a combatant's fields, armor folded (points or a name)."""
    return armor_folded((name, value) for name, value in row.items() if name not in NOT_STATS)


async def character(session: AsyncSession, *, campaign_id: str, character_id: str) -> Resource:
    """Inside the caller's transaction: the campaign's character, armor folded (404 otherwise)."""
    return await load(session, CHARACTERS, campaign_id, character_id)


async def creature(session: AsyncSession, *, campaign_id: str, creature_id: str) -> Resource:
    """Inside the caller's transaction: the campaign's creature, armor folded (404 otherwise)."""
    return await load(session, CREATURES, campaign_id, creature_id)


async def _busy_with(session: AsyncSession, character_id: str) -> str | None:
    return await session.scalar(select(C.encounter_id).where(C.id == character_id))


async def link(session: AsyncSession, *, character_id: str, encounter_id: str) -> None:
    """Link the character into the encounter if it is in no unfinished fight; else 409 character-busy."""
    result = await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id.is_(None))
        .values(encounter_id=encounter_id, version=C.version + 1, updated_at=utcnow())
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise CharacterBusy.of(character_id, await _busy_with(session, character_id))


async def write_back(
    session: AsyncSession, *, character_id: str, encounter_id: str, state: Mapping[str, Any]
) -> int | None:
    """The combatant's blood, status and wounds to its character, which is free again; the character's
    new version, or None when it is no longer linked to this encounter (deleted meanwhile: skipped)."""
    result = await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id == encounter_id)
        .values(
            **{name: state[name] for name in WRITTEN_BACK},
            encounter_id=None,
            version=C.version + 1,
            updated_at=utcnow(),
        )
        .returning(C.version)
    )
    version: int | None = result.scalar()
    return version


async def free_all(session: AsyncSession, encounter_id: str) -> None:
    """Every character linked into the encounter is free again, nothing written back (a deleted fight)."""
    await session.execute(
        update(CHARACTERS)
        .where(C.encounter_id == encounter_id)
        .values(encounter_id=None, version=C.version + 1, updated_at=utcnow())
    )


async def free(session: AsyncSession, *, character_id: str, encounter_id: str) -> None:
    await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id == encounter_id)
        .values(encounter_id=None, version=C.version + 1, updated_at=utcnow())
    )


async def put_back(
    session: AsyncSession, *, character_id: str, encounter_id: str, before: Mapping[str, Any], version_after: int
) -> None:
    """Undo a finish's write-back: the character gets its state from before the finish and is linked again.
    Refused (409) when it is in another fight, or changed since the finish (its version moved)."""
    now = (await session.execute(select(C.encounter_id, C.version).where(C.id == character_id))).first()
    if now is None:
        return  # deleted since the finish: nothing to put back
    if now.encounter_id is not None:
        raise CharacterBusy.of(character_id, now.encounter_id)
    result = await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id.is_(None), C.version == version_after)
        .values(
            **{name: before[name] for name in WRITTEN_BACK},
            encounter_id=encounter_id,
            version=C.version + 1,
            updated_at=utcnow(),
        )
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise CharacterChanged(
            f"Character {character_id} changed since the fight was finished; it cannot be put back.",
            character=character_id,
        )
