"""Staged declarations: stage, withdraw, list by role, and a round's taking of them.

Staging changes neither the encounter's version nor its ETag, yet must never race a round: a
declaration checked against the state before round n and stored after it would be played in round
n+1 against a state it was never checked against. So staging *holds* the encounter row
(`store.hold_version`: an UPDATE that changes nothing, guarded by the version read): on PostgreSQL that
row lock orders it against every change, and a version that moved means re-read and re-check. A round,
for its part, reads the staged declarations with the encounter and writes only if the staging counter (moved
by every staging and withdrawal) is still the one it read (`take_staged`, store/round_writes.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.access.service import Principal
from app.encounters import companions, convert, deadlines, screen, store
from app.encounters.combatants import find_combatant
from app.encounters.convert import EncounterRecord
from app.encounters.errors import require_unfinished
from app.encounters.schemas.declaration import DECLARATION_FIELDS, DeclarationsRead, Declared, StagedDeclarationRead
from app.encounters.schemas.round import DeclarationIn, RoundCreate
from app.platform.changefeed import Change, announce
from app.platform.db import Database, utcnow
from app.platform.errors import NotFound, ServiceError, pointer
from app.resolver import ResolverError, RoundInput, build_ruleset
from app.resolver.validate import validate_round

ROUND_PREFIX = "/declarations/0"  # where the resolver's issues about the one declaration checked point


class InvalidDeclaration(ServiceError):
    """Refused as a round would refuse it: the same problem type as the round's own refusal."""

    status, type, title = 422, "invalid-round", "The round breaks a rule"


class InvalidStagedDeclaration(ServiceError):
    """A staged declaration the encounter changed under (a target removed, a rule changed)."""

    status, type, title = 422, "invalid-staged-declaration", "A staged declaration no longer fits the encounter"


@dataclass(frozen=True)
class Staged:
    """The result of a PUT: the declaration as stored, and whether it is new."""

    read: StagedDeclarationRead
    created: bool


def declaration(combatant_id: str, stored: Mapping[str, Any]) -> DeclarationIn:
    return DeclarationIn.model_validate({"combatant": combatant_id, **stored})


def issues(encounter: EncounterRecord, declared: DeclarationIn, dice: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """What a round would refuse in this declaration and its dice, now: (where, JSON pointer, why).

    `where` is "body" (the declaration's own field), "path" (the combatant itself) or "encounter"
    (stored state that no round can use, e.g. a weapon a rules change removed)."""
    cid = declared.combatant
    foreign = [key for key in dice if not key.startswith(f"{cid}.")]
    if foreign:
        return [
            ("body", pointer(("dice", key)), f"names a roll of another combatant; only {cid}.… keys") for key in foreign
        ]
    state = RoundInput(
        encounter.round + 1,
        tuple(convert.combatant_from_row(row) for row in encounter.combatants),
        (convert.declaration_from_schema(declared),),
        convert.groups_of(encounter.combatants),
    )
    try:
        validate_round(state, build_ruleset(encounter.rules), convert.dice_from_schema(dict(dice)))
    except ResolverError as error:
        found = []
        for issue in error.issues:
            if issue.field == f"{ROUND_PREFIX}/combatant":
                found.append(("path", "/combatant_id", issue.message))
            elif issue.field.startswith(ROUND_PREFIX):
                found.append(("body", issue.field.removeprefix(ROUND_PREFIX), issue.message))
            elif issue.field.startswith("/dice/"):
                found.append(("body", issue.field, issue.message))
            else:
                found.append(("encounter", issue.field, issue.message))
        return found
    return []


def _staged_read(
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


async def stage(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    data: Any,
    principal: Principal,
) -> Staged:
    """Stage (or replace) a combatant's declaration for the next round, checked as the round will check it;
    for a player as if the hidden combatants were not there (a target among them is unknown), and only for
    a combatant it controls (its own, and that one's companions)."""
    stored = data.model_dump(mode="json", by_alias=True, include=set(DECLARATION_FIELDS), exclude_unset=True)
    dice = data.dice
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id)
    require_unfinished(encounter)
    seen = encounter if principal.is_owner else screen.visible(encounter)
    find_combatant(seen, combatant_id)
    companions.require_control(principal, seen.combatants, combatant_id)
    found = issues(seen, declaration(combatant_id, stored), dice)
    if found:
        raise InvalidDeclaration(
            "; ".join(f"{where} {field or '/'}: {why}" for where, field, why in found),
            errors=[{"in": where, "pointer": field, "detail": why} for where, field, why in found],
        )
    staged_at = utcnow()
    # A clock that stood still (a deadline passed with nothing staged) starts again with this declaration.
    stopped = encounter.declaration_seconds is not None and encounter.declarations_due_at is None
    clock = deadlines.restarted(encounter, staged_at) if stopped else {}
    await store.hold_version(session, encounter_id, encounter.version, **clock)
    # Every screen learns that this combatant declared (the version: staging does not move it).
    declared = Change.of_declaration(encounter_id, combatant_id, True, encounter.version)
    created = await store.stage(
        session,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        declaration=stored,
        dice=dice,
        staged_at=staged_at,
        announced=declared,
    )
    timing = await deadlines.announce_clock(session, encounter_id, clock, encounter.round + 1, encounter.version)
    timing += await deadlines.on_staging(session, encounter, combatant_id=combatant_id, created=created, now=staged_at)
    await announce(session, *timing)
    return Staged(read=_staged_read(combatant_id, stored, dice, staged_at), created=created)


async def withdraw(
    session: AsyncSession, *, campaign_id: str, encounter_id: str, combatant_id: str, principal: Principal
) -> None:
    """Withdraw a staged declaration. None staged (never, withdrawn already, or used by a round): 404,
    so a player learns that nothing of theirs is waiting, whichever of these happened."""
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id)
    require_unfinished(encounter)
    seen = encounter if principal.is_owner else screen.visible(encounter)
    find_combatant(seen, combatant_id)
    companions.require_control(principal, seen.combatants, combatant_id)
    await store.hold_version(session, encounter_id, encounter.version)
    if not await store.withdraw(session, encounter_id=encounter_id, combatant_id=combatant_id):
        raise NotFound(f"Combatant {combatant_id} has no staged declaration for round {encounter.round + 1}.")
    await announce(session, Change.of_declaration(encounter_id, combatant_id, False, encounter.version))


async def list_staged(database: Database, *, principal: Principal, encounter_id: str) -> DeclarationsRead:
    """Every staged declaration, each in the form the caller's role may see (README.md, "Table play")."""
    rows = await store.list_staged(
        database, campaign_id=principal.campaign_id, encounter_id=encounter_id, player_of=principal.combatant_id
    )
    if not rows:
        raise NotFound(f"There is no encounter {encounter_id}.")
    shown: list[StagedDeclarationRead | Declared] = []
    own = frozenset(row.combatant_id for row in rows if row.combatant_id is not None and row.plays_for)
    for row in rows:
        if row.combatant_id is None or (row.hidden and not principal.is_owner):
            continue
        if principal.is_owner or row.combatant_id in own:
            shown.append(_staged_read(row.combatant_id, row.declaration, row.dice, row.staged_at))
        else:
            shown.append(Declared(combatant=row.combatant_id))
    return DeclarationsRead(round=rows[0].round + 1, declarations=shown)


def take_staged(
    encounter: EncounterRecord, round_in: RoundCreate, staged: Sequence[store.StagedRow], version: int
) -> tuple[RoundCreate, list[Change]]:
    """The round's body with the staged declarations (`staged`, the round's snapshot's, in combatant order,
    those still waiting for a later round left out) of every combatant it does not declare for (the body
    wins), and their staged dice joined to the body's (the body's win). Dice staged with a declaration the
    body overrode are dropped. Every one taken is deleted by the round, used or overridden; returns the
    `declared: false` changes to announce (at the round's `version`).

    The round's compare-and-set checks the staging counter with the version (store/round_writes.py):
    whatever changes a staged declaration (staging, withdrawing, removing a combatant, undo) moves one of
    them while holding the encounter's row, so the round writes only if `staged` is still what is staged."""
    cleared = [Change.of_declaration(encounter.id, row.combatant_id, False, version) for row in staged]
    declared = {d.combatant for d in round_in.declarations}
    used = [row for row in staged if row.combatant_id not in declared]
    if not used:
        return round_in, cleared
    stale = []
    for row in used:
        for where, field, why in issues(encounter, declaration(row.combatant_id, row.declaration), row.dice):
            shown = "" if where == "path" else field
            stale.append({"in": "staged", "combatant": row.combatant_id, "pointer": shown, "detail": why})
    if stale:
        who = sorted({issue["combatant"] for issue in stale})
        reasons = "; ".join(f"{i['combatant']} {i['pointer'] or '/'}: {i['detail']}" for i in stale)
        raise InvalidStagedDeclaration(
            f"The declaration staged for {', '.join(who)} no longer fits the encounter ({reasons}). "
            "Declare for them in the body to override it, or withdraw it (DELETE …/declarations/{combatant}).",
            errors=stale,
        )
    staged_dice: dict[str, Any] = {}
    for row in used:
        staged_dice.update(row.dice)
    merged = round_in.model_copy(
        update={
            "declarations": [*round_in.declarations, *(declaration(row.combatant_id, row.declaration) for row in used)],
            "dice": {**staged_dice, **round_in.dice},
        }
    )
    return merged, cleared
