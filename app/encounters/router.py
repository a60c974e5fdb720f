"""HTTP for encounters and combatants: look up, delegate, return."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.concurrency import etag
from app.deps import IfMatch, Limit, Offset, SessionDep
from app.encounters import service
from app.encounters.models import Combatant, Encounter
from app.encounters.schemas import (CombatantCreate, CombatantRead, CombatantUpdate, EncounterCreate, EncounterRead,
                                    EncounterSummary, EncounterUpdate)
from app.schemas import Page
from app.resolver import build_ruleset

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])


def combatant_read(row: Combatant) -> CombatantRead:
    return CombatantRead(
        id=row.id, name=row.name, initiative=row.initiative, attack=row.attack, defense=row.defense,
        weapon=row.weapon, attacks_per_round=row.attacks_per_round, weapon_ready=row.weapon_ready,
        damage_bonus=row.damage_bonus, armor=row.armor, toughness=row.toughness, vitality=row.vitality,
        blood=row.blood, status=row.status, wounds=row.wounds, penalty=sum(w["penalty"] for w in row.wounds),
    )


def encounter_read(encounter: Encounter) -> EncounterRead:
    ruleset = build_ruleset(encounter.rules)
    return EncounterRead(
        id=encounter.id, name=encounter.name, round=encounter.round, version=encounter.version,
        created_at=encounter.created_at, updated_at=encounter.updated_at,
        turn=encounter.round // ruleset.turn_length + 1, rules=encounter.rules, ruleset=dict(ruleset.document),
        combatants=[combatant_read(c) for c in encounter.combatants],
    )


@router.post("", status_code=status.HTTP_201_CREATED, response_model=EncounterRead)
def create_encounter(data: EncounterCreate, session: SessionDep, response: Response) -> EncounterRead:
    encounter = service.create(session=session, data=data)
    response.headers["Location"] = f"/v1/encounters/{encounter.id}"
    response.headers["ETag"] = etag(encounter.version)
    return encounter_read(encounter)


@router.get("", response_model=Page[EncounterSummary])
def list_encounters(session: SessionDep, limit: Limit = 20, offset: Offset = 0) -> Page[EncounterSummary]:
    """Newest first."""
    items, total = service.list(session=session, limit=limit, offset=offset)
    return Page[EncounterSummary](items=[EncounterSummary.model_validate(e, from_attributes=True) for e in items],
                                  total=total, limit=limit, offset=offset)


@router.get("/{encounter_id}", response_model=EncounterRead)
def read_encounter(encounter_id: str, session: SessionDep, response: Response) -> EncounterRead:
    encounter = service.get(session=session, encounter_id=encounter_id)
    response.headers["ETag"] = etag(encounter.version)
    return encounter_read(encounter)


@router.patch("/{encounter_id}", response_model=EncounterRead)
def update_encounter(encounter_id: str, data: EncounterUpdate, session: SessionDep, response: Response,
                     if_match: IfMatch = None) -> EncounterRead:
    encounter = service.update(session=session, encounter_id=encounter_id, data=data, if_match=if_match)
    response.headers["ETag"] = etag(encounter.version)
    return encounter_read(encounter)


@router.delete("/{encounter_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_encounter(encounter_id: str, session: SessionDep, if_match: IfMatch = None) -> Response:
    service.delete(session=session, encounter_id=encounter_id, if_match=if_match)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{encounter_id}/combatants", status_code=status.HTTP_201_CREATED, response_model=CombatantRead)
def add_combatant(encounter_id: str, data: CombatantCreate, session: SessionDep, response: Response,
                  if_match: IfMatch = None) -> CombatantRead:
    row, version = service.add_combatant(session=session, encounter_id=encounter_id, data=data, if_match=if_match)
    response.headers["Location"] = f"/v1/encounters/{encounter_id}/combatants/{row.id}"
    response.headers["ETag"] = etag(version)
    return combatant_read(row)


@router.get("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
def read_combatant(encounter_id: str, combatant_id: str, session: SessionDep, response: Response) -> CombatantRead:
    row, version = service.get_combatant(session=session, encounter_id=encounter_id, combatant_id=combatant_id)
    response.headers["ETag"] = etag(version)
    return combatant_read(row)


@router.patch("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
def update_combatant(encounter_id: str, combatant_id: str, data: CombatantUpdate, session: SessionDep,
                     response: Response, if_match: IfMatch = None) -> CombatantRead:
    row, version = service.update_combatant(session=session, encounter_id=encounter_id, combatant_id=combatant_id,
                                            data=data, if_match=if_match)
    response.headers["ETag"] = etag(version)
    return combatant_read(row)


@router.delete("/{encounter_id}/combatants/{combatant_id}", status_code=status.HTTP_204_NO_CONTENT)
def remove_combatant(encounter_id: str, combatant_id: str, session: SessionDep, if_match: IfMatch = None) -> Response:
    service.remove_combatant(session=session, encounter_id=encounter_id, combatant_id=combatant_id, if_match=if_match)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
