"""Staged declarations: stage, withdraw, list by role (a round's use of them is app/rounds/staged.py).

Staging changes neither the encounter's version nor its ETag, yet must never race a round: a
declaration checked against the state before round n and stored after it would be played in round
n+1 against a state it was never checked against. So staging *holds* the encounter row (an UPDATE
that changes nothing, guarded by the version read): on PostgreSQL that row lock orders it against
every change, and a version that moved means re-read and re-check. A round, for its part, takes the
staged declarations only after it claimed the version (app/rounds/staged.py), so that lock orders the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.service import Principal
from app.changefeed import Change, announce, write_and_announce
from app.db import Database, utcnow
from app.declarations.schemas import DECLARATION_FIELDS, DeclarationsRead, Declared, StagedDeclarationRead
from app.encounters.models import COMBATANTS, ENCOUNTERS, STAGED
from app.encounters.store import ENCOUNTER_WITH_COMBATANTS, EncounterRecord, encounter_from_rows
from app.problems import NotFound, ServiceError
from app.rounds.staged import declaration, issues
from app.transactions import StaleSnapshot, is_sqlite_busy, retry_stale_snapshot, write_transaction


class InvalidDeclaration(ServiceError):
    """Refused as a round would refuse it: the same problem type as the round's own refusal."""

    status, type, title = 422, "invalid-round", "The round breaks a rule"


@dataclass(frozen=True)
class Staged:
    """The result of a PUT: the declaration as stored, and whether it is new."""

    read: StagedDeclarationRead
    created: bool


async def _load(session: AsyncSession, campaign_id: str, encounter_id: str) -> EncounterRecord:
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    return encounter_from_rows((await session.execute(ENCOUNTER_WITH_COMBATANTS, keys)).all(), encounter_id)


def _require_combatant(encounter: EncounterRecord, combatant_id: str) -> None:
    if not any(row["id"] == combatant_id for row in encounter.combatants):
        raise NotFound(f"Encounter {encounter.id} has no combatant {combatant_id}.")


async def _hold(session: AsyncSession, encounter_id: str, version: int) -> None:
    """Take the encounter's row (nothing changes) if it is still at the version read; else re-run."""
    try:
        result = await session.execute(
            update(ENCOUNTERS)
            .where(ENCOUNTERS.c.id == encounter_id, ENCOUNTERS.c.version == version)
            .values(version=ENCOUNTERS.c.version, updated_at=ENCOUNTERS.c.updated_at)  # not onupdate's now()
        )
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(version) from error
        raise
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise StaleSnapshot(version)  # changed since read: check the declaration against the new state


def _full(
    combatant_id: str, stored: Mapping[str, Any], dice: Mapping[str, Any], staged_at: datetime
) -> StagedDeclarationRead:
    shown = declaration(combatant_id, stored).model_dump(mode="json", by_alias=True, exclude_none=True)
    return StagedDeclarationRead(
        combatant=combatant_id,
        stance=shown.get("stance"),
        action=shown.get("action"),  # none staged: the round continues a long action, else none
        technical_actions=shown["technical_actions"],
        dice=dict(dice),
        staged_at=staged_at,
    )


@retry_stale_snapshot
async def stage(*, session: AsyncSession, campaign_id: str, encounter_id: str, combatant_id: str, data: Any) -> Staged:
    """Stage (or replace) a combatant's declaration for the next round, checked as the round will check it."""
    stored = data.model_dump(mode="json", by_alias=True, include=set(DECLARATION_FIELDS), exclude_unset=True)
    dice = data.dice
    async with write_transaction(session):
        encounter = await _load(session, campaign_id, encounter_id)
        _require_combatant(encounter, combatant_id)
        found = issues(encounter, declaration(combatant_id, stored), dice)
        if found:
            raise InvalidDeclaration(
                "; ".join(f"{where} {field or '/'}: {why}" for where, field, why in found),
                errors=[{"in": where, "pointer": field, "detail": why} for where, field, why in found],
            )
        await _hold(session, encounter_id, encounter.version)
        replaced = await session.execute(delete(STAGED).where(STAGED.c.combatant_id == combatant_id))
        staged_at = utcnow()
        row = insert(STAGED).values(
            combatant_id=combatant_id,
            encounter_id=encounter_id,
            declaration=stored,
            dice=dice,
            staged_at=staged_at,
        )
        # Every screen learns that this combatant declared (the version: staging does not move it).
        declared = Change.of_declaration(encounter_id, combatant_id, True, encounter.version)
        await write_and_announce(session, row, declared)
    return Staged(read=_full(combatant_id, stored, dice, staged_at), created=not replaced.rowcount)  # type: ignore[attr-defined]


@retry_stale_snapshot
async def withdraw(*, session: AsyncSession, campaign_id: str, encounter_id: str, combatant_id: str) -> None:
    """Withdraw a staged declaration. None staged (never, withdrawn already, or used by a round): 404,
    so a player learns that nothing of theirs is waiting, whichever of these happened."""
    async with write_transaction(session):
        encounter = await _load(session, campaign_id, encounter_id)
        _require_combatant(encounter, combatant_id)
        await _hold(session, encounter_id, encounter.version)
        removed = await session.execute(
            delete(STAGED).where(STAGED.c.combatant_id == combatant_id, STAGED.c.encounter_id == encounter_id)
        )
        if not removed.rowcount:  # type: ignore[attr-defined]
            raise NotFound(f"Combatant {combatant_id} has no staged declaration for round {encounter.round + 1}.")
        await announce(session, Change.of_declaration(encounter_id, combatant_id, False, encounter.version))


# The encounter's round beside each of its staged declarations, in combatant order, in one statement (one
# snapshot); the outer join keeps the encounter's row when nothing is staged.
STAGED_WITH_ROUND = (
    select(ENCOUNTERS.c.round, STAGED.c.combatant_id, STAGED.c.declaration, STAGED.c.dice, STAGED.c.staged_at)
    .select_from(
        ENCOUNTERS.outerjoin(
            STAGED.join(COMBATANTS, COMBATANTS.c.id == STAGED.c.combatant_id),
            STAGED.c.encounter_id == ENCOUNTERS.c.id,
        )
    )
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)


async def list_staged(database: Database, *, principal: Principal, encounter_id: str) -> DeclarationsRead:
    """Every staged declaration, each in the form the caller's role may see (CONTRACT.md, Table play)."""
    keys = {"encounter_id": encounter_id, "campaign_id": principal.campaign_id}
    rows = await database.rows(STAGED_WITH_ROUND, keys)
    if not rows:
        raise NotFound(f"There is no encounter {encounter_id}.")
    shown: list[StagedDeclarationRead | Declared] = []
    for row in rows:
        if row.combatant_id is None:
            continue
        if principal.is_owner or (principal.role == "player" and principal.combatant_id == row.combatant_id):
            shown.append(_full(row.combatant_id, row.declaration, row.dice, row.staged_at))
        else:
            shown.append(Declared(combatant=row.combatant_id))
    return DeclarationsRead(round=rows[0].round + 1, declarations=shown)
