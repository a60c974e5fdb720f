"""Every statement on the campaign's tables: characters, creatures, and the campaign row's house rules.

A character or creature is one row, read as a dict with `armor` folded (points, or the armor table's name,
as the client gave it: the table keeps a name in armor_name, like a combatant's). Each change is a guarded
update on the row's version: two requests that read the same version cannot both write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Table, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.tables import CAMPAIGNS
from app.campaign.tables import CHARACTERS, CREATURES
from app.http.etags import check_if_match
from app.platform.db import Database, utcnow
from app.platform.errors import Conflict, NotFound
from app.platform.transactions import StaleSnapshot, first_read_version, is_sqlite_busy

Resource = dict[str, Any]  # one character's or creature's columns by name, armor folded
NOUNS = {"characters": "character", "creatures": "creature"}


def _one(table: Table) -> Any:
    return select(table).where(table.c.id == bindparam("id"), table.c.campaign_id == bindparam("campaign_id"))


ONE = {CHARACTERS.name: _one(CHARACTERS), CREATURES.name: _one(CREATURES)}


def folded(row: Mapping[Any, Any]) -> Resource:
    """A row as the services see it: `armor` is the armor table's name when the row names one."""
    resource = dict(row)
    armor_name = resource.pop("armor_name")
    if armor_name is not None:
        resource["armor"] = armor_name
    return resource


def columns(values: Mapping[str, Any]) -> dict[str, Any]:
    """The other way: column values for a row (or the part of one being changed)."""
    result = dict(values)
    if "armor" in values:
        named = isinstance(values["armor"], str)
        result["armor"], result["armor_name"] = (None, values["armor"]) if named else (values["armor"], None)
    return result


def _found(table: Table, rows: Any, resource_id: str) -> Resource:
    if not rows:
        raise NotFound(f"There is no {NOUNS[table.name]} {resource_id}.")
    return folded(rows[0]._mapping)


async def load(
    session: AsyncSession, table: Table, campaign_id: str, resource_id: str, if_match: str | None
) -> Resource:
    rows = (await session.execute(ONE[table.name], {"id": resource_id, "campaign_id": campaign_id})).all()
    resource = _found(table, rows, resource_id)
    check_if_match(if_match, resource["version"])
    return resource


async def load_character(
    session: AsyncSession, *, campaign_id: str, character_id: str, if_match: str | None = None
) -> Resource:
    """Inside the caller's transaction: the campaign's character (404 otherwise; 412 when If-Match is stale)."""
    return await load(session, CHARACTERS, campaign_id, character_id, if_match)


async def load_creature(
    session: AsyncSession, *, campaign_id: str, creature_id: str, if_match: str | None = None
) -> Resource:
    """Inside the caller's transaction: the campaign's creature (404 otherwise; 412 when If-Match is stale)."""
    return await load(session, CREATURES, campaign_id, creature_id, if_match)


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
    return [folded(row._mapping) for row in rows], total or 0


async def insert_resource(session: AsyncSession, table: Table, row: Mapping[str, Any]) -> None:
    await session.execute(insert(table).values(**columns(row)))


def changed_meanwhile(table: Table) -> Conflict:
    return Conflict(f"The {NOUNS[table.name]} changed while this request was being handled. Re-read it and resend.")


async def bump(session: AsyncSession, table: Table, resource_id: str, read_version: int, **changes: Any) -> int:
    """Move the row to its next version (with `changes`, armor folded) if it is still the one read; else 409.
    The new version."""
    first_read = first_read_version.get()
    if first_read is not None and first_read != read_version:
        raise changed_meanwhile(table)  # a retry after a stale snapshot found the row itself changed
    values = {
        "version": read_version + 1,
        "updated_at": changes.pop("updated_at", None) or utcnow(),
        **columns(changes),
    }
    statement = update(table).where(table.c.id == resource_id, table.c.version == read_version).values(**values)
    try:
        result = await session.execute(statement)
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(read_version) from error
        raise
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise changed_meanwhile(table)
    return read_version + 1


async def update_character(session: AsyncSession, character_id: str, read_version: int, **changes: Any) -> int:
    """The character's next version with `changes` (a write-back, a link: encounter_id), if it is still at
    the version read; else 409. The new version."""
    return await bump(session, CHARACTERS, character_id, read_version, **changes)


async def delete_resource(session: AsyncSession, table: Table, resource_id: str, read_version: int) -> None:
    """Delete the row if it is still at the version read (a fight linking a character moves it); else 409."""
    try:
        result = await session.execute(delete(table).where(table.c.id == resource_id, table.c.version == read_version))
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(read_version) from error
        raise
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise changed_meanwhile(table)


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
        blocks.extend({"kind": NOUNS[table.name], **folded(row._mapping)} for row in rows)
    return blocks


# --- the campaign's house rules ---------------------------------------------------------------------

CAMPAIGN_COLUMNS = (CAMPAIGNS.c.id, CAMPAIGNS.c.name, CAMPAIGNS.c.created_at, CAMPAIGNS.c.rules, CAMPAIGNS.c.version)


async def campaign_rules(session: AsyncSession, campaign_id: str) -> dict[str, Any]:
    """The campaign's house rules: the partial ruleset overrides a new encounter starts from ({}: none)."""
    rules = await session.scalar(select(CAMPAIGNS.c.rules).where(CAMPAIGNS.c.id == campaign_id))
    return dict(rules or {})


async def hold_campaign(session: AsyncSession, campaign_id: str, if_match: str | None = None) -> Resource:
    """Take the campaign's row without changing it, and read it (id, name, created_at, rules, version): the
    first statement of every use case that checks stat blocks against the house rules, so that a change of
    the rules and a change of a stat block are serialized (neither can pass the other's check unseen).
    412 when If-Match is not the campaign's ETag."""
    held = await session.execute(
        update(CAMPAIGNS)
        .where(CAMPAIGNS.c.id == campaign_id)
        .values(version=CAMPAIGNS.c.version)
        .returning(*CAMPAIGN_COLUMNS)
    )
    row = held.first()
    if row is None:
        raise NotFound("This campaign no longer exists.")
    check_if_match(if_match, row.version)
    return dict(row._mapping)


async def bump_campaign(session: AsyncSession, campaign_id: str, read_version: int, **changes: Any) -> int:
    """The campaign's next version with `changes`, if it is still at the version read; else 409."""
    result = await session.execute(
        update(CAMPAIGNS)
        .where(CAMPAIGNS.c.id == campaign_id, CAMPAIGNS.c.version == read_version)
        .values(version=read_version + 1, **changes)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise Conflict("The campaign changed while this request was being handled. Re-read it and resend.")
    return read_version + 1
