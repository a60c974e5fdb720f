"""Encounters and combatants: one transaction per use case."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session, joinedload

from app.concurrency import check_if_match, claim_version, etag, retry_stale_snapshot, write_transaction
from app.db import AutocommitDatabase
from app.encounters import views
from app.encounters.models import COMBATANTS, ENCOUNTERS, Combatant, Encounter
from app.encounters.schemas import (
    CombatantCreate,
    CombatantFields,
    CombatantUpdate,
    EncounterCreate,
    EncounterRead,
    EncounterUpdate,
)
from app.idempotency.service import Claim, record
from app.problems import NotFound, Unprocessable
from app.resolver import InvalidRound, Ruleset, bounds, build_ruleset
from app.resolver.errors import Issues
from app.resolver.validate import weapon_profile
from app.resolver.wounds import fill_wound
from app.responses import Reply
from app.rounds import mapping


def new_id() -> str:
    return str(uuid.uuid4())


def load_owned(
    session: Session,
    encounter_id: str,
    campaign_id: str,
    *,
    with_combatants: bool = False,
    if_match: str | None = None,
) -> Encounter:
    """The campaign's encounter, or 404 (another campaign's encounter does not exist for this caller);
    412 if the caller's If-Match is no longer its ETag."""
    query = select(Encounter).where(Encounter.id == encounter_id, Encounter.campaign_id == campaign_id)
    if with_combatants:
        query = query.options(joinedload(Encounter.combatants))  # one round trip, not two
    encounter = session.scalars(query).unique().one_or_none()
    if encounter is None:
        raise NotFound(f"There is no encounter {encounter_id}.")
    check_if_match(if_match, encounter.version)
    return encounter


def _checked_combatant_values(fields: CombatantFields, ruleset: Ruleset, pointer: str = "") -> dict[str, Any]:
    """Column values for a combatant, its weapon and wound classes checked against the ruleset."""
    combatant = mapping.combatant_from_schema("new", fields)
    weapon_profile(combatant.weapon, ruleset, f"{pointer}/weapon")
    issues = Issues()
    for i, wound in enumerate(combatant.wounds):
        if (wound.penalty is None or wound.bleed is None) and ruleset.wound_class(wound.cls) is None:
            issues.add(
                f"{pointer}/wounds/{i}/class",
                f"{wound.cls!r} is not a wound class of the ruleset; name one, or give penalty and bleed",
            )
    issues.raise_if_any()
    wounds = [fill_wound(w, ruleset) for w in combatant.wounds]
    values = mapping.row_values(combatant)
    values["wounds"] = [{"class": w.cls, "penalty": w.penalty, "bleed": w.bleed} for w in wounds]
    values["blood"] = combatant.vitality if combatant.blood is None else combatant.blood
    values["name"] = fields.name
    values["side"] = fields.side
    return values


def ruleset_of(encounter: Encounter) -> Ruleset:
    return build_ruleset(encounter.rules)


def create(*, session: Session, campaign_id: str, data: EncounterCreate, claim: Claim | None = None) -> Reply:
    ruleset = build_ruleset(data.rules)  # refuses bad overrides before anything is written
    rows = [
        Combatant(id=new_id(), position=i, **_checked_combatant_values(c, ruleset, f"/combatants/{i}"))
        for i, c in enumerate(data.combatants)
    ]
    encounter = Encounter(
        id=new_id(),
        campaign_id=campaign_id,
        name=data.name,
        rules=data.rules,
        round=0,
        version=1,
        next_position=len(rows),
        combatants=rows,
    )
    with write_transaction(session):
        session.add(encounter)
        session.flush()
        reply = Reply.json(
            201,
            views.encounter_read(encounter),
            location=f"/v1/encounters/{encounter.id}",
            etag=etag(encounter.version),
        )
        record(session, claim, reply)
    return reply


# The encounter's columns (labelled encounter__<name>) on each of its combatants' rows, in one
# statement: a consistent snapshot without a transaction, in one round trip.
ENCOUNTER_WITH_COMBATANTS = (
    select(*(column.label(f"encounter__{column.name}") for column in ENCOUNTERS.c), COMBATANTS)
    .outerjoin(COMBATANTS, COMBATANTS.c.encounter_id == ENCOUNTERS.c.id)
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)


def encounter_from_rows(rows: Sequence[Any], encounter_id: str) -> SimpleNamespace:
    """The encounter read by ENCOUNTER_WITH_COMBATANTS: its columns as attributes, its combatants'
    rows (which read like the ORM's) as .combatants; 404 when there were no rows."""
    if not rows:
        raise NotFound(f"There is no encounter {encounter_id}.")
    first = rows[0]
    return SimpleNamespace(
        **{column.name: getattr(first, f"encounter__{column.name}") for column in ENCOUNTERS.c},
        combatants=[row for row in rows if row.id is not None],
    )


async def read(database: AutocommitDatabase, *, campaign_id: str, encounter_id: str) -> EncounterRead:
    rows = await database.rows(ENCOUNTER_WITH_COMBATANTS, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    return views.encounter_read(encounter_from_rows(rows, encounter_id))


def list(*, session: Session, campaign_id: str, limit: int, offset: int) -> tuple[list[Encounter], int]:  # noqa: A001
    mine = Encounter.campaign_id == campaign_id
    with session.begin():
        total = session.scalar(select(func.count()).where(mine)) or 0
        items = session.scalars(
            select(Encounter)
            .where(mine)
            .order_by(Encounter.created_at.desc(), Encounter.id.desc())
            .limit(limit)
            .offset(offset)
        ).all()
    return items, total


@retry_stale_snapshot
def update(
    *, session: Session, campaign_id: str, encounter_id: str, data: EncounterUpdate, if_match: str | None
) -> Encounter:
    with write_transaction(session):
        encounter = load_owned(session, encounter_id, campaign_id, with_combatants=True, if_match=if_match)
        changes: dict[str, Any] = {}
        if data.name is not None:
            changes["name"] = data.name
        if data.rules is not None:
            ruleset = build_ruleset(data.rules)
            for i, row in enumerate(encounter.combatants):
                try:
                    weapon_profile(mapping.weapon_from_json(row.weapon), ruleset, f"/combatants/{i}/weapon")
                except InvalidRound as error:
                    raise Unprocessable(f"The new rules lack the weapon of combatant {row.id}: {error}") from None
            changes["rules"] = data.rules
        claim_version(session, encounter_id, encounter.version, **changes)
        session.refresh(encounter, ["name", "rules", "version", "updated_at"])  # what the UPDATE changed
    return encounter


@retry_stale_snapshot
def delete(*, session: Session, campaign_id: str, encounter_id: str, if_match: str | None) -> None:
    with write_transaction(session):
        encounter = load_owned(session, encounter_id, campaign_id, if_match=if_match)
        claim_version(session, encounter_id, encounter.version)
        session.delete(encounter)


def _load_combatant(session: Session, encounter_id: str, combatant_id: str) -> Combatant:
    row = session.get(Combatant, combatant_id)
    if row is None or row.encounter_id != encounter_id:
        raise NotFound(f"Encounter {encounter_id} has no combatant {combatant_id}.")
    return row


@retry_stale_snapshot
def add_combatant(
    *,
    session: Session,
    campaign_id: str,
    encounter_id: str,
    data: CombatantCreate,
    if_match: str | None,
    claim: Claim | None = None,
) -> Reply:
    with write_transaction(session):
        encounter = load_owned(session, encounter_id, campaign_id, if_match=if_match)
        count = session.scalar(select(func.count()).where(Combatant.encounter_id == encounter_id)) or 0
        if count >= bounds.MAX_COMBATANTS:
            raise Unprocessable(f"An encounter holds at most {bounds.MAX_COMBATANTS} combatants.")
        values = _checked_combatant_values(data, ruleset_of(encounter))
        position = encounter.next_position
        version = claim_version(session, encounter_id, encounter.version, next_position=position + 1)
        row = Combatant(id=new_id(), encounter_id=encounter_id, position=position, **values)
        session.add(row)
        reply = Reply.json(
            201,
            views.combatant_read(row),
            etag=etag(version),
            location=f"/v1/encounters/{encounter_id}/combatants/{row.id}",
        )
        record(session, claim, reply)
    return reply


def get_combatant(*, session: Session, campaign_id: str, encounter_id: str, combatant_id: str) -> tuple[Combatant, int]:
    with session.begin():
        encounter = load_owned(session, encounter_id, campaign_id)
        return _load_combatant(session, encounter_id, combatant_id), encounter.version


@retry_stale_snapshot
def update_combatant(
    *,
    session: Session,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    data: CombatantUpdate,
    if_match: str | None,
) -> tuple[Combatant, int]:
    with write_transaction(session):
        encounter = load_owned(session, encounter_id, campaign_id, if_match=if_match)
        row = _load_combatant(session, encounter_id, combatant_id)
        current = mapping.snapshot(row)
        changed = data.model_dump(exclude_unset=True, by_alias=True)
        if "vitality" in changed and "blood" not in changed and row.blood == row.vitality:
            changed["blood"] = changed["vitality"]  # an unhurt combatant stays at full blood
        merged = CombatantFields.model_validate(
            {k: v for k, v in {**current, **changed}.items() if k not in ("id", "position")}, strict=False
        )
        values = _checked_combatant_values(merged, ruleset_of(encounter))
        values["side"] = changed.get("side", row.side)  # not a column a round changes, so not in the snapshot
        version = claim_version(session, encounter_id, encounter.version)
        for name, value in values.items():
            setattr(row, name, value)
    return row, version


@retry_stale_snapshot
def remove_combatant(
    *, session: Session, campaign_id: str, encounter_id: str, combatant_id: str, if_match: str | None
) -> None:
    with write_transaction(session):
        encounter = load_owned(session, encounter_id, campaign_id, if_match=if_match)
        row = _load_combatant(session, encounter_id, combatant_id)
        claim_version(session, encounter_id, encounter.version)
        session.delete(row)
