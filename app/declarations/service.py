"""Staged declarations: stage, withdraw, list by role, and hand them to the next round.

Staging changes neither the encounter's version nor its ETag, yet must never race a round: a
declaration checked against the state before round n and stored after it would be played in round
n+1 against a state it was never checked against. So staging *holds* the encounter row (an UPDATE
that changes nothing, guarded by the version read): on PostgreSQL that row lock orders it against
every change, and a version that moved means re-read and re-check. A round, for its part, deletes
exactly the revisions it read; anything else means a declaration changed under it, and it re-runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.campaigns.service import Principal
from app.concurrency import StaleSnapshot, is_sqlite_busy, retry_stale_snapshot, write_transaction
from app.declarations.models import STAGED
from app.declarations.schemas import DECLARATION_FIELDS, DeclarationsRead, Declared, StagedDeclarationRead
from app.encounters.models import COMBATANTS, ENCOUNTERS, utcnow
from app.encounters.service import ENCOUNTER_WITH_COMBATANTS, encounter_from_rows
from app.problems import NotFound, ServiceError, pointer
from app.resolver import ResolverError, RoundInput, build_ruleset
from app.resolver.validate import validate_round
from app.rounds import mapping
from app.rounds.schemas import DeclarationIn, RoundCreate

ROUND_PREFIX = "/declarations/0"  # where the resolver's issues about the one declaration checked point


class InvalidDeclaration(ServiceError):
    """Refused as a round would refuse it: the same problem type as the round's own refusal."""

    status, type, title = 422, "invalid-round", "The round breaks a rule"


class InvalidStagedDeclaration(ServiceError):
    """A staged declaration the encounter changed under (a target removed, a rule changed)."""

    status, type, title = 422, "invalid-staged-declaration", "A staged declaration no longer fits the encounter"


@dataclass(frozen=True)
class DeclarationChange:
    """What a live stream may tell everyone: this combatant has (or no longer has) a staged declaration."""

    encounter_id: str
    combatant_id: str
    declared: bool


@dataclass(frozen=True)
class Staged:
    """The result of a PUT: the declaration as stored, whether it is new, and what changed."""

    read: StagedDeclarationRead
    created: bool
    change: DeclarationChange


@dataclass(frozen=True)
class Taken:
    """What a round read of the staged declarations: every (combatant, revision), used or overridden."""

    encounter_id: str
    version: int
    revisions: frozenset[tuple[str, str]]


def _load(session: Session, campaign_id: str, encounter_id: str) -> SimpleNamespace:
    rows = session.execute(ENCOUNTER_WITH_COMBATANTS, {"encounter_id": encounter_id, "campaign_id": campaign_id}).all()
    return encounter_from_rows(rows, encounter_id)


def _require_combatant(encounter: SimpleNamespace, combatant_id: str) -> None:
    if not any(row.id == combatant_id for row in encounter.combatants):
        raise NotFound(f"Encounter {encounter.id} has no combatant {combatant_id}.")


def _hold(session: Session, encounter_id: str, version: int) -> None:
    """Take the encounter's row (nothing changes) if it is still at the version read; else re-run."""
    try:
        result = session.execute(
            update(ENCOUNTERS)
            .where(ENCOUNTERS.c.id == encounter_id, ENCOUNTERS.c.version == version)
            .values(version=ENCOUNTERS.c.version, updated_at=ENCOUNTERS.c.updated_at)  # not onupdate's now()
        )
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(version) from error
        raise
    if result.rowcount != 1:
        raise StaleSnapshot(version)  # changed since read: check the declaration against the new state


def _declaration(combatant_id: str, stored: Mapping[str, Any]) -> DeclarationIn:
    return DeclarationIn.model_validate({"combatant": combatant_id, **stored})


def _issues(
    encounter: SimpleNamespace, declaration: DeclarationIn, dice: Mapping[str, Any]
) -> list[tuple[str, str, str]]:
    """What a round would refuse in this declaration and its dice, now: (where, JSON pointer, why).

    `where` is "body" (the declaration's own field), "path" (the combatant itself) or "encounter"
    (stored state that no round can use, e.g. a weapon a rules change removed)."""
    cid = declaration.combatant
    foreign = [key for key in dice if not key.startswith(f"{cid}.")]
    if foreign:
        return [
            ("body", pointer(("dice", key)), f"names a roll of another combatant; only {cid}.… keys") for key in foreign
        ]
    state = RoundInput(
        encounter.round + 1,
        tuple(mapping.combatant_from_row(row) for row in encounter.combatants),
        (mapping.declaration_from_schema(declaration),),
    )
    try:
        validate_round(state, build_ruleset(encounter.rules), mapping.dice_from_schema(dict(dice)))
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


def _full(combatant_id: str, stored: Mapping[str, Any], dice: Mapping[str, Any], staged_at) -> StagedDeclarationRead:
    shown = _declaration(combatant_id, stored).model_dump(mode="json", by_alias=True, exclude_none=True)
    return StagedDeclarationRead(
        combatant=combatant_id,
        stance=shown.get("stance"),
        action=shown["action"],
        technical_actions=shown["technical_actions"],
        dice=dict(dice),
        staged_at=staged_at,
    )


@retry_stale_snapshot
def stage(*, session: Session, campaign_id: str, encounter_id: str, combatant_id: str, data: Any) -> Staged:
    """Stage (or replace) a combatant's declaration for the next round, checked as the round will check it."""
    stored = data.model_dump(mode="json", by_alias=True, include=set(DECLARATION_FIELDS), exclude_unset=True)
    dice = data.dice
    with write_transaction(session):
        encounter = _load(session, campaign_id, encounter_id)
        _require_combatant(encounter, combatant_id)
        issues = _issues(encounter, _declaration(combatant_id, stored), dice)
        if issues:
            raise InvalidDeclaration(
                "; ".join(f"{where} {field or '/'}: {why}" for where, field, why in issues),
                errors=[{"in": where, "pointer": field, "detail": why} for where, field, why in issues],
            )
        _hold(session, encounter_id, encounter.version)
        replaced = session.execute(delete(STAGED).where(STAGED.c.combatant_id == combatant_id)).rowcount
        staged_at = utcnow()
        session.execute(
            insert(STAGED).values(
                combatant_id=combatant_id,
                encounter_id=encounter_id,
                declaration=stored,
                dice=dice,
                revision=uuid.uuid4().hex,
                staged_at=staged_at,
            )
        )
    return Staged(
        read=_full(combatant_id, stored, dice, staged_at),
        created=not replaced,
        change=DeclarationChange(encounter_id, combatant_id, declared=True),
    )


@retry_stale_snapshot
def withdraw(*, session: Session, campaign_id: str, encounter_id: str, combatant_id: str) -> DeclarationChange:
    """Withdraw a staged declaration. None staged (never, withdrawn already, or used by a round): 404,
    so a player learns that nothing of theirs is waiting, whichever of these happened."""
    with write_transaction(session):
        encounter = _load(session, campaign_id, encounter_id)
        _require_combatant(encounter, combatant_id)
        _hold(session, encounter_id, encounter.version)
        removed = session.execute(
            delete(STAGED).where(STAGED.c.combatant_id == combatant_id, STAGED.c.encounter_id == encounter_id)
        ).rowcount
        if not removed:
            raise NotFound(f"Combatant {combatant_id} has no staged declaration for round {encounter.round + 1}.")
    return DeclarationChange(encounter_id, combatant_id, declared=False)


STAGED_IN_ORDER = (
    select(STAGED).join(COMBATANTS, COMBATANTS.c.id == STAGED.c.combatant_id).order_by(COMBATANTS.c.position)
)


def list(*, session: Session, principal: Principal, encounter_id: str) -> DeclarationsRead:  # noqa: A001
    """Every staged declaration, each in the form the caller's role may see (CONTRACT.md, Table play)."""
    with session.begin():
        encounter = session.execute(
            select(ENCOUNTERS.c.round).where(
                ENCOUNTERS.c.id == encounter_id, ENCOUNTERS.c.campaign_id == principal.campaign_id
            )
        ).one_or_none()
        if encounter is None:
            raise NotFound(f"There is no encounter {encounter_id}.")
        rows = session.execute(STAGED_IN_ORDER.where(STAGED.c.encounter_id == encounter_id)).all()
    shown: list[StagedDeclarationRead | Declared] = []
    for row in rows:
        if principal.is_owner or (principal.role == "player" and principal.combatant_id == row.combatant_id):
            shown.append(_full(row.combatant_id, row.declaration, row.dice, row.staged_at))
        else:
            shown.append(Declared(combatant=row.combatant_id))
    return DeclarationsRead(round=encounter.round + 1, declarations=shown)


def take_staged(session: Session, encounter: SimpleNamespace, round_in: RoundCreate) -> tuple[RoundCreate, Taken]:
    """The round's body with the staged declarations of every combatant it does not declare for (the
    body wins), and their staged dice joined to the body's (the body's win). Dice staged with a
    declaration the body overrode are dropped. In the resolving transaction, before the round."""
    rows = session.execute(STAGED_IN_ORDER.where(STAGED.c.encounter_id == encounter.id)).all()
    taken = Taken(encounter.id, encounter.version, frozenset((row.combatant_id, row.revision) for row in rows))
    declared = {d.combatant for d in round_in.declarations}
    used = [row for row in rows if row.combatant_id not in declared]
    if not used:
        return round_in, taken
    stale = []
    for row in used:
        for where, field, why in _issues(encounter, _declaration(row.combatant_id, row.declaration), row.dice):
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
            "declarations": [
                *round_in.declarations,
                *(_declaration(row.combatant_id, row.declaration) for row in used),
            ],
            "dice": {**staged_dice, **round_in.dice},
        }
    )
    return merged, taken


def clear_staged(session: Session, taken: Taken) -> list[DeclarationChange]:
    """Delete every staged declaration of the round's encounter, in the round's transaction, after it
    claimed the encounter's version; if they are not exactly the ones the round read, re-run the round."""
    deleted = session.execute(
        delete(STAGED)
        .where(STAGED.c.encounter_id == taken.encounter_id)
        .returning(STAGED.c.combatant_id, STAGED.c.revision)
    ).all()
    if frozenset((row.combatant_id, row.revision) for row in deleted) != taken.revisions:
        raise StaleSnapshot(taken.version)
    return [DeclarationChange(taken.encounter_id, row.combatant_id, declared=False) for row in deleted]
