"""Rounds: resolve the next one and persist it, read the history, undo the latest, resolve statelessly."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.concurrency import check_if_match, claim_version, etag, retry_stale_snapshot, write_transaction
from app.db import AutocommitDatabase
from app.declarations import service as declarations
from app.encounters.models import COMBATANTS, ENCOUNTERS, Combatant, utcnow
from app.encounters.service import ENCOUNTER_WITH_COMBATANTS, encounter_from_rows, load_owned
from app.idempotency.service import Claim, record
from app.problems import NotFound, NotLatestRound
from app.resolver import MixedDice, RoundInput, RoundResult, build_ruleset, new_seed, resolve_round
from app.resolver.codec import result_to_json
from app.responses import Reply
from app.rounds import mapping
from app.rounds.models import ROUNDS, Round
from app.rounds.schemas import ResolveRequest, RoundCreate


def _resolve(number: int, combatants, round_in: RoundCreate, rules: dict[str, Any]) -> RoundResult:
    state = RoundInput(
        number, tuple(combatants), tuple(mapping.declaration_from_schema(d) for d in round_in.declarations)
    )
    seed = new_seed() if round_in.seed is None else round_in.seed
    return resolve_round(state, build_ruleset(rules), MixedDice(mapping.dice_from_schema(round_in.dice), seed))


UPDATE_STATE = (
    update(COMBATANTS)
    .where(COMBATANTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in ("status", "blood", "weapon_ready", "wounds")})
)


@retry_stale_snapshot
def resolve_next_round(
    *,
    session: Session,
    campaign_id: str,
    encounter_id: str,
    round_in: RoundCreate,
    if_match: str | None,
    claim: Claim | None = None,
) -> Reply:
    """Resolve round n+1 and store it with everything needed to replay and undo it, in one transaction."""
    with write_transaction(session):
        # Core, not the ORM, on this hot path: one SELECT of the encounter with its combatants in,
        # one UPDATE, one INSERT and one executemany out.
        keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
        encounter = encounter_from_rows(session.execute(ENCOUNTER_WITH_COMBATANTS, keys).all(), encounter_id)
        check_if_match(if_match, encounter.version)
        round_in, staged = declarations.take_staged(session, encounter, round_in)  # the body's win over staged ones
        rows = encounter.combatants
        number = encounter.round + 1
        before = [mapping.snapshot(r) for r in rows]
        result = _resolve(number, (mapping.combatant_from_row(r) for r in rows), round_in, encounter.rules)
        document = result_to_json(result)
        version = claim_version(session, encounter_id, encounter.version, round=number)
        declarations.clear_staged(session, staged)  # used or overridden: every staged declaration goes
        changes = [mapping.state_values(s) for s in result.combatants]
        session.execute(
            insert(ROUNDS).values(
                encounter_id=encounter_id,
                number=number,
                document=document,
                request=round_in.model_dump(mode="json", by_alias=True, exclude_none=True),
                state_before={"next_position": encounter.next_position, "combatants": before},
                state_after=[{**snapshot, **change} for snapshot, change in zip(before, changes)],
                created_at=utcnow(),
            )
        )
        if changes:
            session.execute(UPDATE_STATE, [{"row_id": change.pop("id"), **change} for change in changes])
        reply = Reply.json(201, document, etag=etag(version), location=f"/v1/encounters/{encounter_id}/rounds/{number}")
        record(session, claim, reply)
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
    database: AutocommitDatabase, *, campaign_id: str, encounter_id: str, limit: int, offset: int
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
    database: AutocommitDatabase, *, campaign_id: str, encounter_id: str, number: int
) -> tuple[dict[str, Any], int]:
    """One stored round's document and its encounter's version, in one statement."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    found = await database.rows(ROUND_WITH_VERSION, {**keys, "number": number})
    if found:
        return found[0].document, found[0].version
    if not await database.rows(ROUND_COUNT, keys):
        raise NotFound(f"There is no encounter {encounter_id}.")
    raise NotFound(f"Encounter {encounter_id} has no round {number}.")


@retry_stale_snapshot
def undo_round(*, session: Session, campaign_id: str, encounter_id: str, number: int, if_match: str | None) -> int:
    """Undo the latest round: the encounter returns exactly to its state before it (edits since included)."""
    with write_transaction(session):
        encounter = load_owned(session, encounter_id, campaign_id, if_match=if_match)
        if not 1 <= number <= encounter.round:
            raise NotFound(f"Encounter {encounter_id} has no round {number}.")
        if number != encounter.round:
            raise NotLatestRound(
                f"Round {number} is not the latest; undo round {encounter.round} first.", latest_round=encounter.round
            )
        stored = session.scalars(select(Round).where(Round.encounter_id == encounter_id, Round.number == number)).one()
        before = stored.state_before
        version = claim_version(
            session, encounter_id, encounter.version, round=number - 1, next_position=before["next_position"]
        )
        session.execute(delete(Combatant).where(Combatant.encounter_id == encounter_id))
        if before["combatants"]:
            session.execute(insert(Combatant), [{**c, "encounter_id": encounter_id} for c in before["combatants"]])
        session.delete(stored)
    return version


def resolve_stateless(request: ResolveRequest) -> Reply:
    combatants = (mapping.combatant_from_schema(c.id, c) for c in request.combatants)
    return Reply.json(200, result_to_json(_resolve(request.round, combatants, request, request.rules)))


def keep_reply(*, sessions: sessionmaker[Session], claim: Claim, reply: Reply) -> None:
    """A stateless answer changes nothing, so its key is the only thing to write."""
    with sessions() as session, session.begin():
        claim.complete(session, reply)
