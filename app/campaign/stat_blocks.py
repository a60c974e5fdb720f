"""What characters and creatures share: a stat block checked against the campaign's house rules, and the
use cases on one row (create, list, read, change, delete), told which kind of row they work on.

Each change is one transaction: hold the campaign's row (its rules cannot change meanwhile), load the
resource, check If-Match, decide, bump its version, write, and keep the reply with its Idempotency-Key.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import store
from app.campaign.schemas import StatBlock, StatBlockUpdate
from app.http.etags import etag
from app.http.responses import Reply
from app.idempotency.keys import Claim, record
from app.platform.db import Database, utcnow
from app.platform.transactions import retry_stale_snapshot, write_transaction
from app.resolver import Ruleset, build_ruleset, model
from app.resolver.codec import weapon_to_json, wound_to_json
from app.resolver.errors import Issues
from app.resolver.validate import check_armor, weapon_profile
from app.resolver.wounds import fill_wound
from app.vocabulary.stat_block import InlineWeapon

Resource = store.Resource
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


@retry_stale_snapshot
async def create(
    *, session: AsyncSession, kind: Kind[Any], campaign_id: str, data: StatBlock, claim: Claim | None = None
) -> Reply:
    async with write_transaction(session):
        campaign = await store.hold_campaign(session, campaign_id)
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
        await store.insert_resource(session, kind.table, row)
        reply = Reply.json(201, kind.read(row), etag=etag(1), location=f"{kind.path}/{row['id']}")
        await record(session, claim, reply)
    return reply


async def list_page(
    *, session: AsyncSession, kind: Kind[R], campaign_id: str, limit: int, offset: int
) -> tuple[list[R], int]:
    async with session.begin():
        rows, total = await store.list_page(session, kind.table, campaign_id=campaign_id, limit=limit, offset=offset)
    return [kind.read(row) for row in rows], total


async def get(database: Database, *, kind: Kind[Any], campaign_id: str, resource_id: str) -> Resource:
    """One row, in one statement outside any transaction."""
    return await store.read(database, kind.table, campaign_id=campaign_id, resource_id=resource_id)


@retry_stale_snapshot
async def update(
    *,
    session: AsyncSession,
    kind: Kind[Any],
    campaign_id: str,
    resource_id: str,
    data: StatBlockUpdate,
    if_match: str | None,
) -> Resource:
    async with write_transaction(session):
        campaign = await store.hold_campaign(session, campaign_id)
        current = await store.load(session, kind.table, campaign_id, resource_id, if_match)
        changed = data.model_dump(exclude_unset=True, by_alias=True)
        if "vitality" in changed and "blood" not in changed and current["blood"] == current["vitality"]:
            changed["blood"] = changed["vitality"]  # an unhurt one stays at full blood
        fields = set(kind.create_schema.model_fields)
        merged = kind.create_schema.model_validate(
            {k: v for k, v in {**current, **changed}.items() if k in fields}, strict=False
        )
        values = {**checked_values(merged, ruleset_of(campaign)), "updated_at": utcnow()}
        version = await store.bump(session, kind.table, resource_id, current["version"], **values)
    return {**current, **values, "version": version}


@retry_stale_snapshot
async def delete(
    *, session: AsyncSession, kind: Kind[Any], campaign_id: str, resource_id: str, if_match: str | None
) -> None:
    async with write_transaction(session):
        current = await store.load(session, kind.table, campaign_id, resource_id, if_match)
        kind.before_delete(current)
        await store.delete_resource(session, kind.table, resource_id, current["version"])
