"""Encounters and combatants: one transaction per use case, opened here; results returned, HTTP left to the router.

The pattern every service follows: `async with write_transaction(session)`, read the encounter with
`store.load_owned` (one statement, a frozen record), decide, `store.claim_version` (the compare-and-set),
write, and record the reply with the Idempotency-Key in the same transaction.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy import update as update_statement
from sqlalchemy.ext.asyncio import AsyncSession

from app.changefeed import Change, announce
from app.db import utcnow
from app.encounters import store, views
from app.encounters.mapping import combatant_from_schema, row_values, snapshot
from app.encounters.models import COMBATANTS, ENCOUNTERS, STAGED
from app.encounters.schemas import (
    CombatantCreate,
    CombatantFields,
    CombatantUpdate,
    EncounterCreate,
    EncounterSummary,
    EncounterUpdate,
)
from app.encounters.store import CombatantRow, EncounterRecord
from app.etags import etag
from app.idempotency.service import Claim, record
from app.problems import NotFound, Unprocessable
from app.resolver import InvalidRound, Ruleset, bounds, build_ruleset
from app.resolver.codec import weapon_from_json
from app.resolver.errors import Issues
from app.resolver.validate import check_armor, weapon_profile
from app.resolver.wounds import fill_wound
from app.responses import Reply
from app.transactions import retry_stale_snapshot, write_transaction


def new_id() -> str:
    return str(uuid.uuid4())


def new_effect_id() -> str:
    """Short: a client types it into DELETE .../effects/{effect_id}; unique within its combatant is enough."""
    return uuid.uuid4().hex[:12]


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


def _checked_combatant_values(
    fields: CombatantFields, ruleset: Ruleset, pointer: str = "", targets: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Column values for a combatant, its weapon and wound classes checked against the ruleset, its effects
    named (ids kept when given), its long action checked (`targets`: the ids it may aim at)."""
    combatant = combatant_from_schema("new", fields)
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
    values = row_values(combatant)
    values["wounds"] = [{"class": w.cls, "penalty": w.penalty, "bleed": w.bleed} for w in wounds]
    values["blood"] = combatant.vitality if combatant.blood is None else combatant.blood
    values["name"] = fields.name
    values["effects"] = [{**e, "id": e["id"] or new_effect_id()} for e in values["effects"]]
    values["side"] = fields.side
    return values


def find_combatant(encounter: EncounterRecord, combatant_id: str) -> CombatantRow:
    for row in encounter.combatants:
        if row["id"] == combatant_id:
            return row
    raise NotFound(f"Encounter {encounter.id} has no combatant {combatant_id}.")


async def create(
    *, session: AsyncSession, campaign_id: str, data: EncounterCreate, claim: Claim | None = None
) -> Reply:
    ruleset = build_ruleset(data.rules)  # refuses bad overrides before anything is written
    encounter_id, now = new_id(), utcnow()
    combatants = tuple(
        {"id": new_id(), "encounter_id": encounter_id, "position": i, **_checked_combatant_values(c, ruleset, at)}
        for i, c in enumerate(data.combatants)
        for at in [f"/combatants/{i}"]
    )
    encounter = EncounterRecord(
        id=encounter_id,
        campaign_id=campaign_id,
        name=data.name,
        rules=data.rules,
        round=0,
        version=1,
        next_position=len(combatants),
        created_at=now,
        updated_at=now,
        combatants=combatants,
    )
    async with write_transaction(session):
        columns = {name: getattr(encounter, name) for name in store.ENCOUNTER_COLUMNS}
        await session.execute(insert(ENCOUNTERS).values(**columns))
        if combatants:
            await session.execute(insert(COMBATANTS), [store.combatant_columns(c) for c in combatants])
        reply = Reply.json(
            201, views.encounter_read(encounter), location=f"/v1/encounters/{encounter_id}", etag=etag(1)
        )
        await record(session, claim, reply)
    return reply


async def list_page(
    *, session: AsyncSession, campaign_id: str, limit: int, offset: int
) -> tuple[list[EncounterSummary], int]:
    mine = ENCOUNTERS.c.campaign_id == campaign_id
    async with session.begin():
        total = await session.scalar(select(func.count()).select_from(ENCOUNTERS).where(mine))
        rows = await session.execute(
            select(ENCOUNTERS)
            .where(mine)
            .order_by(ENCOUNTERS.c.created_at.desc(), ENCOUNTERS.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        items = [EncounterSummary.model_validate(row._mapping) for row in rows]
    return items, total or 0


@retry_stale_snapshot
async def update(
    *, session: AsyncSession, campaign_id: str, encounter_id: str, data: EncounterUpdate, if_match: str | None
) -> EncounterRecord:
    async with write_transaction(session):
        encounter = await store.load_owned(session, encounter_id, campaign_id, if_match=if_match)
        changes: dict[str, Any] = {}
        if data.name is not None:
            changes["name"] = data.name
        if data.rules is not None:
            ruleset = build_ruleset(data.rules)
            for i, row in enumerate(encounter.combatants):
                try:
                    weapon_profile(weapon_from_json(row["weapon"]), ruleset, f"/combatants/{i}/weapon")
                    armor = Issues()
                    check_armor(armor, row["armor"], ruleset, f"/combatants/{i}/armor")
                    armor.raise_if_any()
                except InvalidRound as error:
                    raise Unprocessable(
                        f"The new rules lack the weapon or armor of combatant {row['id']}: {error}"
                    ) from None
            changes["rules"] = data.rules
        changes["updated_at"] = utcnow()
        version = await store.claim_version(session, encounter_id, encounter.version, **changes)
        await announce(session, Change.of_encounter(encounter_id, version))  # delivered at commit
    return dataclasses.replace(encounter, version=version, **changes)


@retry_stale_snapshot
async def delete_encounter(*, session: AsyncSession, campaign_id: str, encounter_id: str, if_match: str | None) -> None:
    async with write_transaction(session):
        encounter = await store.load_owned(session, encounter_id, campaign_id, if_match=if_match)
        await store.claim_version(session, encounter_id, encounter.version)
        await session.execute(delete(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id))  # combatants cascade
        await announce(session, Change.of_encounter(encounter_id))  # no version: gone, its streams end


@retry_stale_snapshot
async def add_combatant(
    *,
    session: AsyncSession,
    campaign_id: str,
    encounter_id: str,
    data: CombatantCreate,
    if_match: str | None,
    claim: Claim | None = None,
) -> Reply:
    async with write_transaction(session):
        encounter = await store.load_owned(session, encounter_id, campaign_id, if_match=if_match)
        if len(encounter.combatants) >= bounds.MAX_COMBATANTS:
            raise Unprocessable(f"An encounter holds at most {bounds.MAX_COMBATANTS} combatants.")
        targets = frozenset(row["id"] for row in encounter.combatants)
        values = _checked_combatant_values(data, build_ruleset(encounter.rules), targets=targets)
        position = encounter.next_position
        version = await store.claim_version(session, encounter_id, encounter.version, next_position=position + 1)
        row = {"id": new_id(), "encounter_id": encounter_id, "position": position, **values}
        await session.execute(insert(COMBATANTS).values(**store.combatant_columns(row)))
        reply = Reply.json(
            201,
            views.combatant_read(row),
            etag=etag(version),
            location=f"/v1/encounters/{encounter_id}/combatants/{row['id']}",
        )
        await record(session, claim, reply)
        await announce(session, Change.of_encounter(encounter_id, version))
    return reply


@retry_stale_snapshot
async def update_combatant(
    *,
    session: AsyncSession,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    data: CombatantUpdate,
    if_match: str | None,
) -> tuple[CombatantRow, int]:
    async with write_transaction(session):
        encounter = await store.load_owned(session, encounter_id, campaign_id, if_match=if_match)
        row = find_combatant(encounter, combatant_id)
        current = snapshot(row)
        changed = data.model_dump(exclude_unset=True, by_alias=True)
        if "vitality" in changed and "blood" not in changed and row["blood"] == row["vitality"]:
            changed["blood"] = changed["vitality"]  # an unhurt combatant stays at full blood
        lasting = ("id", "position", "effects", "long_action")  # not checked again: kept, or the long action cancelled
        merged = CombatantFields.model_validate(
            {k: v for k, v in {**current, **changed}.items() if k not in lasting}, strict=False
        )
        values = _checked_combatant_values(merged, build_ruleset(encounter.rules))
        values["effects"] = row["effects"]  # a round may have given more than a request may carry
        # Cancelled by the game master (long_action: null), or lost with the combatant's activity (RULES.md §13).
        cancelled = "long_action" in changed or values["status"] != "active"
        values["long_action"] = None if cancelled else row["long_action"]
        version = await store.claim_version(session, encounter_id, encounter.version)
        await session.execute(
            update_statement(COMBATANTS)
            .where(COMBATANTS.c.id == combatant_id)
            .values(**store.combatant_columns(values))
        )
        await announce(session, Change.of_encounter(encounter_id, version))
    return {**row, **values}, version


@retry_stale_snapshot
async def remove_combatant(
    *, session: AsyncSession, campaign_id: str, encounter_id: str, combatant_id: str, if_match: str | None
) -> None:
    async with write_transaction(session):
        encounter = await store.load_owned(session, encounter_id, campaign_id, if_match=if_match)
        find_combatant(encounter, combatant_id)
        version = await store.claim_version(session, encounter_id, encounter.version)
        # Its staged declaration goes with it (the foreign key would cascade), and every screen is told, as
        # when it is withdrawn: deleted here, so the transaction knows whether there was one to announce.
        withdrawn = await session.execute(
            delete(STAGED).where(STAGED.c.combatant_id == combatant_id).returning(STAGED.c.combatant_id)
        )
        cleared = [Change.of_declaration(encounter_id, cid, False, version) for cid in withdrawn.scalars()]
        await session.execute(delete(COMBATANTS).where(COMBATANTS.c.id == combatant_id))
        # A long action aimed at the one removed has nothing left to complete on: it is dropped, or every
        # later round would be refused for naming a combatant that is not there.
        aiming = [row["id"] for row in encounter.combatants if (row["long_action"] or {}).get("target") == combatant_id]
        if aiming:
            await session.execute(
                update_statement(COMBATANTS).where(COMBATANTS.c.id.in_(aiming)).values(long_action=None)
            )
        await announce(session, Change.of_encounter(encounter_id, version), *cleared)
