"""Staged declarations as a round sees them: the table, the check a round would make, and the round's
use of them (taken out of the table into its body, in its transaction). Staging itself is app/declarations,
which builds on this module (a round must not depend on the endpoints that stage)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from app.changefeed import Change
from app.encounters import mapping as combatants_mapping
from app.encounters.models import STAGED
from app.encounters.store import EncounterRecord
from app.problems import ServiceError, pointer
from app.resolver import ResolverError, RoundInput, build_ruleset
from app.resolver.validate import validate_round
from app.rounds import mapping
from app.rounds.schemas import DeclarationIn, RoundCreate

ROUND_PREFIX = "/declarations/0"  # where the resolver's issues about the one declaration checked point


class InvalidStagedDeclaration(ServiceError):
    """A staged declaration the encounter changed under (a target removed, a rule changed)."""

    status, type, title = 422, "invalid-staged-declaration", "A staged declaration no longer fits the encounter"


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
        tuple(combatants_mapping.combatant_from_row(row) for row in encounter.combatants),
        (mapping.declaration_from_schema(declared),),
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


async def take_staged(
    session: AsyncSession, encounter: EncounterRecord, round_in: RoundCreate, version: int
) -> tuple[RoundCreate, list[Change]]:
    """The round's body with the staged declarations of every combatant it does not declare for (the
    body wins), and their staged dice joined to the body's (the body's win). Dice staged with a
    declaration the body overrode are dropped. Every staged declaration is deleted, used or overridden;
    returns the `declared: false` changes to announce (at the round's `version`).

    In the round's transaction, *after* it claimed the encounter's version: whatever changes a staged
    declaration (staging, withdrawing, removing a combatant, undo) holds the encounter's row first, so
    on PostgreSQL this DELETE, a statement started after the claim, sees every one committed before it
    and none can change until the round commits; on SQLite the claim is the write lock itself."""
    deleted = await session.execute(
        delete(STAGED)
        .where(STAGED.c.encounter_id == encounter.id)
        .returning(STAGED.c.combatant_id, STAGED.c.declaration, STAGED.c.dice)
    )
    position = {row["id"]: row["position"] for row in encounter.combatants}
    rows = sorted(deleted.all(), key=lambda row: position[row.combatant_id])
    cleared = [Change.of_declaration(encounter.id, row.combatant_id, False, version) for row in rows]
    declared = {d.combatant for d in round_in.declarations}
    used = [row for row in rows if row.combatant_id not in declared]
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
