"""Combatants of an encounter: add, read, change, remove. Each change is one transaction: load the
encounter, decide, bump its version, write, announce (and keep the reply with its Idempotency-Key)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import convert, store
from app.encounters.convert import CombatantRow, EncounterRecord
from app.encounters.ids import new_effect_id, new_id
from app.encounters.schemas.encounter import CombatantCreate, CombatantFields, CombatantUpdate
from app.idempotency.keys import Claim, record
from app.platform.changefeed import Change, announce
from app.platform.db import Database
from app.platform.errors import NotFound, Unprocessable
from app.platform.transactions import retry_stale_snapshot, write_transaction
from app.resolver import Ruleset, bounds, build_ruleset
from app.resolver.errors import Issues
from app.resolver.validate import check_armor, weapon_profile
from app.resolver.wounds import fill_wound
from app.web.etags import etag
from app.web.responses import Reply


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
    return values


def find_combatant(encounter: EncounterRecord, combatant_id: str) -> CombatantRow:
    for row in encounter.combatants:
        if row["id"] == combatant_id:
            return row
    raise NotFound(f"Encounter {encounter.id} has no combatant {combatant_id}.")


async def get(
    database: Database, *, campaign_id: str, encounter_id: str, combatant_id: str
) -> tuple[CombatantRow, int]:
    """One combatant as read, and the encounter's version (its ETag)."""
    encounter = await store.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    return find_combatant(encounter, combatant_id), encounter.version


@retry_stale_snapshot
async def add(
    *,
    session: AsyncSession,
    campaign_id: str,
    encounter_id: str,
    data: CombatantCreate,
    if_match: str | None,
    claim: Claim | None = None,
) -> Reply:
    async with write_transaction(session):
        encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, if_match=if_match)
        if len(encounter.combatants) >= bounds.MAX_COMBATANTS:
            raise Unprocessable(f"An encounter holds at most {bounds.MAX_COMBATANTS} combatants.")
        targets = frozenset(row["id"] for row in encounter.combatants)
        values = checked_values(data, build_ruleset(encounter.rules), targets=targets)
        position = encounter.next_position
        version = await store.bump_version(session, encounter_id, encounter.version, next_position=position + 1)
        row = {"id": new_id(), "encounter_id": encounter_id, "position": position, **values}
        await store.insert_combatant(session, row)
        reply = Reply.json(
            201,
            convert.combatant_read(row),
            etag=etag(version),
            location=f"/v1/encounters/{encounter_id}/combatants/{row['id']}",
        )
        await record(session, claim, reply)
        await announce(session, Change.of_encounter(encounter_id, version))
    return reply


@retry_stale_snapshot
async def update(
    *,
    session: AsyncSession,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    data: CombatantUpdate,
    if_match: str | None,
) -> tuple[CombatantRow, int]:
    async with write_transaction(session):
        encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, if_match=if_match)
        row = find_combatant(encounter, combatant_id)
        current = convert.snapshot(row)
        changed = data.model_dump(exclude_unset=True, by_alias=True)
        if "vitality" in changed and "blood" not in changed and row["blood"] == row["vitality"]:
            changed["blood"] = changed["vitality"]  # an unhurt combatant stays at full blood
        lasting = ("id", "position", "effects", "long_action")  # not checked again: kept, or the long action cancelled
        merged = CombatantFields.model_validate(
            {k: v for k, v in {**current, **changed}.items() if k not in lasting}, strict=False
        )
        values = checked_values(merged, build_ruleset(encounter.rules))
        values["effects"] = row["effects"]  # a round may have given more than a request may carry
        # Cancelled by the game master (long_action: null), or lost with the combatant's activity (RULES.md §13).
        cancelled = "long_action" in changed or values["status"] != "active"
        values["long_action"] = None if cancelled else row["long_action"]
        version = await store.bump_version(session, encounter_id, encounter.version)
        await store.update_combatant(session, combatant_id, values)
        await announce(session, Change.of_encounter(encounter_id, version))
    return {**row, **values}, version


@retry_stale_snapshot
async def remove(
    *, session: AsyncSession, campaign_id: str, encounter_id: str, combatant_id: str, if_match: str | None
) -> None:
    async with write_transaction(session):
        encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, if_match=if_match)
        find_combatant(encounter, combatant_id)
        version = await store.bump_version(session, encounter_id, encounter.version)
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
