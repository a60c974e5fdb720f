"""Rounds: resolve the next one and persist it, read the history, undo the latest, resolve statelessly."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.changefeed import Change, write_and_announce
from app.db import Database, utcnow
from app.encounters import mapping as combatants_mapping
from app.encounters.models import COMBATANTS, ENCOUNTERS, STAGED
from app.encounters.store import (
    ENCOUNTER_WITH_COMBATANTS,
    EncounterRecord,
    claim_version,
    combatant_columns,
    encounter_from_rows,
    load_owned,
)
from app.etags import check_if_match, etag
from app.idempotency.service import Claim, record
from app.problems import NotFound, NotLatestRound
from app.resolver import MixedDice, RoundInput, RoundResult, build_ruleset, new_seed, resolve_round
from app.resolver import model as rm
from app.resolver.codec import result_to_json
from app.resolver.dice import DiceSource
from app.responses import Reply
from app.rounds import mapping
from app.rounds.models import ROUNDS
from app.rounds.schemas import ResolveRequest, RoundCreate
from app.rounds.staged import take_staged
from app.transactions import retry_stale_snapshot, write_transaction


def _resolve(
    number: int, combatants: Iterable[rm.Combatant], round_in: RoundCreate, rules: dict[str, Any]
) -> RoundResult:
    state = RoundInput(
        number, tuple(combatants), tuple(mapping.declaration_from_schema(d) for d in round_in.declarations)
    )
    seed = new_seed() if round_in.seed is None else round_in.seed
    # cast: the resolver's DiceSource declares a mutable `seed: int | None` that MixedDice narrows to int
    # (a protocol attribute is invariant); the resolver's own typing is being made strict separately.
    dice = cast(DiceSource, MixedDice(mapping.dice_from_schema(round_in.dice), seed))
    return resolve_round(state, build_ruleset(rules), dice)


UPDATE_STATE = (
    update(COMBATANTS)
    .where(COMBATANTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in combatants_mapping.ROUND_CHANGES})
)


@retry_stale_snapshot
async def resolve_next_round(
    *,
    session: AsyncSession,
    campaign_id: str,
    encounter_id: str,
    round_in: RoundCreate,
    if_match: str | None,
    claim: Claim | None = None,
) -> Reply:
    """Resolve round n+1 and store it with everything needed to replay and undo it, in one transaction."""
    async with write_transaction(session):
        # Core, not the ORM, on this hot path: one SELECT of the encounter with its combatants in; the
        # version's UPDATE, the staged declarations' DELETE, one INSERT (announcing) and one executemany out.
        keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
        rows = (await session.execute(ENCOUNTER_WITH_COMBATANTS, keys)).all()
        encounter = encounter_from_rows(rows, encounter_id)
        check_if_match(if_match, encounter.version)
        number = encounter.round + 1
        # The claim comes first: it holds the encounter's row, which orders the staged declarations' taking.
        version = await claim_version(session, encounter_id, encounter.version, round=number)
        round_in, cleared = await take_staged(session, encounter, round_in, version)  # the body's win
        before = [combatants_mapping.snapshot(r) for r in encounter.combatants]
        current = (combatants_mapping.combatant_from_row(r) for r in encounter.combatants)
        result = _resolve(number, current, round_in, encounter.rules)
        document = result_to_json(result)
        changes = [combatants_mapping.state_values(s) for s in result.combatants]
        stored = insert(ROUNDS).values(
            encounter_id=encounter_id,
            number=number,
            document=document,
            request=round_in.model_dump(mode="json", by_alias=True, exclude_none=True),
            state_before={"next_position": encounter.next_position, "combatants": before},
            state_after=[{**snapshot, **change} for snapshot, change in zip(before, changes)],
            created_at=utcnow(),
        )
        # delivered at commit: the round, then every staged declaration it took
        await write_and_announce(session, stored, Change.of_round(encounter_id, number, version), *cleared)
        if changes:
            await session.execute(UPDATE_STATE, [{"row_id": change.pop("id"), **change} for change in changes])
        reply = Reply.json(201, document, etag=etag(version), location=f"/v1/encounters/{encounter_id}/rounds/{number}")
        await record(session, claim, reply)
    return reply


ROUND_WITH_VERSION = (
    select(ROUNDS.c.document, ENCOUNTERS.c.version)
    .join(ENCOUNTERS, ENCOUNTERS.c.id == ROUNDS.c.encounter_id)
    .where(
        ROUNDS.c.encounter_id == bindparam("encounter_id"),
        ROUNDS.c.number == bindparam("number"),
        ENCOUNTERS.c.campaign_id == bindparam("campaign_id"),
    )
)
# A page of the history with the encounter's version and the number of rounds, in one statement: the
# count is a window over every round (it is computed before LIMIT), the outer join keeps the encounter's
# row when it has no rounds yet.
ROUND_PAGE = (
    select(ENCOUNTERS.c.version, ROUNDS.c.document, func.count(ROUNDS.c.number).over().label("total"))
    .select_from(ENCOUNTERS.outerjoin(ROUNDS, ROUNDS.c.encounter_id == ENCOUNTERS.c.id))
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(ROUNDS.c.number)
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
# The version and the number of rounds; no row: no such encounter (for this campaign).
ROUND_COUNT = select(
    ENCOUNTERS.c.version,
    select(func.count()).where(ROUNDS.c.encounter_id == ENCOUNTERS.c.id).scalar_subquery().label("total"),
).where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))


async def list_rounds(
    database: Database, *, campaign_id: str, encounter_id: str, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int, int]:
    """Oldest first (a history reads forward): the page's documents, the number of rounds, the version."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    rows = await database.rows(ROUND_PAGE, {**keys, "limit": limit, "offset": offset})
    if not rows:  # past the last round, or no such encounter
        rows = await database.rows(ROUND_COUNT, keys)
        if not rows:
            raise NotFound(f"There is no encounter {encounter_id}.")
        return [], rows[0].total, rows[0].version
    return [row.document for row in rows if row.document is not None], rows[0].total, rows[0].version


async def get_round(
    database: Database, *, campaign_id: str, encounter_id: str, number: int
) -> tuple[dict[str, Any], int]:
    """One stored round's document and its encounter's version, in one statement."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    found = await database.rows(ROUND_WITH_VERSION, {**keys, "number": number})
    if found:
        return found[0].document, found[0].version
    if not await database.rows(ROUND_COUNT, keys):
        raise NotFound(f"There is no encounter {encounter_id}.")
    raise NotFound(f"Encounter {encounter_id} has no round {number}.")


RESTORE_ROW = (
    update(COMBATANTS)
    .where(COMBATANTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in COMBATANTS.c.keys() if name not in ("id", "encounter_id")})
)


def _restored_columns(row: dict[str, Any]) -> dict[str, Any]:
    """RESTORE_ROW's parameters: the row's columns but its id, which names the row to update."""
    return {name: value for name, value in combatant_columns(row).items() if name != "id"} | {"row_id": row["id"]}


async def _restore_combatants(session: AsyncSession, encounter: EncounterRecord, saved: list[dict[str, Any]]) -> None:
    """The combatants as the snapshot has them, each in its own row: the rows of those there throughout are
    updated in place (same ids, same positions), those added since are deleted, those removed since come back."""
    now_there = {row["id"] for row in encounter.combatants}
    rows = [combatants_mapping.restored(c) for c in saved]
    added_since = now_there - {row["id"] for row in rows}
    if added_since:
        await session.execute(delete(COMBATANTS).where(COMBATANTS.c.id.in_(added_since)))
    kept = [row for row in rows if row["id"] in now_there]
    if kept:
        await session.execute(RESTORE_ROW, [_restored_columns(row) for row in kept])
    removed_since = [
        {**combatant_columns(row), "encounter_id": encounter.id} for row in rows if row["id"] not in now_there
    ]
    if removed_since:
        await session.execute(insert(COMBATANTS), removed_since)


@retry_stale_snapshot
async def undo_round(
    *, session: AsyncSession, campaign_id: str, encounter_id: str, number: int, if_match: str | None
) -> int:
    """Undo the latest round: the encounter returns exactly to its state before it (edits since included)."""
    async with write_transaction(session):
        encounter = await load_owned(session, encounter_id, campaign_id, if_match=if_match)
        if not 1 <= number <= encounter.round:
            raise NotFound(f"Encounter {encounter_id} has no round {number}.")
        if number != encounter.round:
            raise NotLatestRound(
                f"Round {number} is not the latest; undo round {encounter.round} first.", latest_round=encounter.round
            )
        this_round = (ROUNDS.c.encounter_id == encounter_id) & (ROUNDS.c.number == number)
        # The next position as it was, read by the claim itself from the round's snapshot (the claim comes
        # first: it holds the encounter's row, as everything that deletes rounds does before they go).
        next_position = select(ROUNDS.c.state_before["next_position"].as_integer()).where(this_round)
        version = await claim_version(
            session, encounter_id, encounter.version, round=number - 1, next_position=next_position.scalar_subquery()
        )
        # Declarations staged after the undone round were made knowing its outcome, for the round after it:
        # the replayed round starts from a clean slate, and every screen is told (declared: false).
        withdrawn = await session.execute(
            delete(STAGED).where(STAGED.c.encounter_id == encounter_id).returning(STAGED.c.combatant_id)
        )
        cleared = [Change.of_declaration(encounter_id, cid, False, version) for cid in withdrawn.scalars()]
        undone = delete(ROUNDS).where(this_round).returning(ROUNDS.c.state_before)
        changes = (Change.of_undo(encounter_id, number, version), *cleared)
        before = (await write_and_announce(session, undone, *changes)).one().state_before  # delivered at commit
        await _restore_combatants(session, encounter, before["combatants"])
    return version


def resolve_stateless(request: ResolveRequest) -> Reply:
    combatants = (combatants_mapping.combatant_from_schema(c.id, c) for c in request.combatants)
    return Reply.json(200, result_to_json(_resolve(request.round, combatants, request, request.rules)))


async def keep_reply(*, session: AsyncSession, claim: Claim, reply: Reply) -> None:
    """A stateless answer changes nothing, so its key is the only thing to write."""
    async with session.begin():
        await claim.complete(session, reply)
