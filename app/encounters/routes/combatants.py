"""HTTP for combatants and their effects: check scope, delegate, turn the result into HTTP."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from app.access.auth import Forbidden, ReaderDep
from app.access.deps import CombatantChange, EncounterChange, EncounterCommand
from app.deps import DatabaseDep
from app.encounters import combatants, effects
from app.encounters.convert import combatant_read
from app.encounters.schemas.encounter import (
    CombatantJoin,
    CombatantRead,
    CombatantsCreated,
    CombatantUpdate,
    CreatureJoin,
    EffectCreate,
    EffectRead,
)
from app.http.command import run
from app.http.etags import etag
from app.http.responses import Reply
from app.platform.versions import Versioned

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])
PLAYER_FIELDS = {"name", "weapon", "weapon_ready"}  # what a player may change on their own combatant


@router.post(
    "/{encounter_id}/combatants",
    status_code=status.HTTP_201_CREATED,
    response_model=CombatantRead | CombatantsCreated,
    description='Add a combatant in full, a character of the roster (`{"character": id}`: linked, its '
    "wounds go back at the finish; 409 character-busy when it is in another unfinished fight), or `count` "
    'copies of a creature of the bestiary (`{"creature": id, "count": 3}`; answer `{"items": [...]}`).',
)
async def add_combatant(encounter_id: str, data: CombatantJoin, call: EncounterCommand) -> Response:
    def added(made: Versioned[list[dict[str, Any]]]) -> Reply:
        rows = made.value
        location = f"/v1/encounters/{encounter_id}/combatants/{rows[0]['id']}"
        body = (
            CombatantsCreated(items=[combatant_read(row) for row in rows])
            if isinstance(data, CreatureJoin)
            else combatant_read(rows[0])
        )
        return Reply.json(201, body, etag=etag(made.version), location=location)

    return await run(
        call,
        lambda session: combatants.add(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, data=data, expected=call.expected
        ),
        added,
    )


@router.get("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
async def read_combatant(encounter_id: str, combatant_id: str, database: DatabaseDep, principal: ReaderDep) -> Response:
    row, version = await combatants.get(
        database,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        screened=not principal.is_owner,
    )
    return Reply.json(200, combatant_read(row), etag=etag(version)).response()


@router.patch("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
async def update_combatant(
    encounter_id: str, combatant_id: str, data: CombatantUpdate, call: CombatantChange
) -> Response:
    """Change a combatant between rounds. A player token may change its own name, weapon and weapon_ready."""
    if not call.principal.is_owner and not data.model_fields_set <= PLAYER_FIELDS:
        raise Forbidden(f"A player token may change only {', '.join(sorted(PLAYER_FIELDS))}.")
    return await run(
        call,
        lambda session: combatants.update(
            session,
            campaign_id=call.campaign_id,
            encounter_id=encounter_id,
            combatant_id=combatant_id,
            data=data,
            expected=call.expected,
        ),
        lambda changed: Reply.json(200, combatant_read(changed.value), etag=etag(changed.version)),
    )


@router.delete("/{encounter_id}/combatants/{combatant_id}", status_code=status.HTTP_204_NO_CONTENT)
async def remove_combatant(encounter_id: str, combatant_id: str, call: EncounterChange) -> Response:
    return await run(
        call,
        lambda session: combatants.remove(
            session,
            campaign_id=call.campaign_id,
            encounter_id=encounter_id,
            combatant_id=combatant_id,
            expected=call.expected,
        ),
        lambda _version: Reply.no_content(),
    )


EFFECT_EXAMPLE_DOC = (
    "Answer: the effect as stored, with the id to DELETE it by and its last round, e.g. "
    '`{"id": "3f9c0a1b2d4e", "name": "poisoned", "attack": 0, "defense": 0, "initiative": 0, '
    '"blood_per_turn": 1, "until_round": 10}`; Location names it, ETag is the encounter\'s new version.'
)


@router.post(
    "/{encounter_id}/combatants/{combatant_id}/effects",
    status_code=status.HTTP_201_CREATED,
    response_model=EffectRead,
    description="Put a lasting effect on a combatant (docs/rules.md, Effects). `until_round` is the encounter's "
    "latest round + `rounds`, or + `turns` x the ruleset's turn_length (latest round 0, turns 1: until round "
    "10); neither: until removed. The campaign's key only; at most 20 effects per combatant this way.\n\n"
    + EFFECT_EXAMPLE_DOC,
)
async def add_effect(encounter_id: str, combatant_id: str, data: EffectCreate, call: EncounterCommand) -> Response:
    def added(made: Versioned[dict[str, Any]]) -> Reply:
        location = f"/v1/encounters/{encounter_id}/combatants/{combatant_id}/effects/{made.value['id']}"
        return Reply.json(201, EffectRead.model_validate(made.value), etag=etag(made.version), location=location)

    return await run(
        call,
        lambda session: effects.add(
            session,
            campaign_id=call.campaign_id,
            encounter_id=encounter_id,
            combatant_id=combatant_id,
            data=data,
            expected=call.expected,
        ),
        added,
    )


@router.get("/{encounter_id}/combatants/{combatant_id}/effects/{effect_id}", response_model=EffectRead)
async def read_effect(
    encounter_id: str,
    combatant_id: str,
    effect_id: str,
    database: DatabaseDep,
    principal: ReaderDep,
) -> Response:
    effect, version = await effects.get(
        database,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        effect_id=effect_id,
        screened=not principal.is_owner,
    )
    return Reply.json(200, EffectRead.model_validate(effect), etag=etag(version)).response()


@router.delete("/{encounter_id}/combatants/{combatant_id}/effects/{effect_id}", status_code=status.HTTP_204_NO_CONTENT)
async def remove_effect(encounter_id: str, combatant_id: str, effect_id: str, call: EncounterCommand) -> Response:
    """Take an effect off before it runs out. The campaign's key only; 404 when the combatant has no such effect."""
    return await run(
        call,
        lambda session: effects.remove(
            session,
            campaign_id=call.campaign_id,
            encounter_id=encounter_id,
            combatant_id=combatant_id,
            effect_id=effect_id,
            expected=call.expected,
        ),
        lambda version: Reply(204, b"", {"ETag": etag(version)}),
    )
