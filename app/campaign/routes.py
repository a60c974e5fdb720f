"""HTTP for the roster, the bestiary and the house rules: the owner key's alone; delegate, answer with ETags."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from app.access.auth import CharacterReaderDep, IdempotencyDep, OwnerDep
from app.access.schemas import CampaignRead, CredentialCreated, KeyCreate
from app.campaign import characters, creatures, house_rules, tokens
from app.campaign.schemas import (
    CharacterCreate,
    CharacterRead,
    CreatureCreate,
    CreatureRead,
    HouseRulesUpdate,
    StatBlockUpdate,
)
from app.deps import DatabaseDep, SessionDep
from app.http.etags import etag, not_modified, still_current
from app.http.params import NOT_MODIFIED, IfMatch, IfNoneMatch, Limit, Offset
from app.http.responses import Reply
from app.vocabulary.types import Page

router = APIRouter(tags=["campaign"])

# The statuses app/http/openapi.py declares for an encounter's scope, and the ETag its reads send, declared
# here for the campaign's own resources (their paths have no {encounter_id}).
PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
ETAG = {"headers": {"ETag": {"$ref": "#/components/headers/ETag"}}}


def _problems(*statuses: int, **descriptions: str) -> dict[int | str, dict[str, Any]]:
    text = {
        404: "No such resource in this campaign",
        409: "A concurrent change won: re-read and resend",
        412: "If-Match is not the current ETag",
    }
    return {s: {"description": descriptions.get(f"s{s}", text[s]), "content": PROBLEM} for s in statuses}


CREATED: dict[int | str, dict[str, Any]] = {201: ETAG}
READ: dict[int | str, dict[str, Any]] = {200: ETAG, 304: {**NOT_MODIFIED, **ETAG}, **_problems(404)}
CHANGED: dict[int | str, dict[str, Any]] = {200: ETAG, **_problems(404, 409, 412)}
DELETED = _problems(404, 409, 412, s409="A concurrent change won; or (a character) it is in an unfinished fight")


# --- the roster ---------------------------------------------------------------------------------------


@router.post("/v1/characters", status_code=status.HTTP_201_CREATED, response_model=CharacterRead, responses=CREATED)
async def create_character(
    data: CharacterCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep
) -> Response:
    """Add a character to the roster (side defaults to "party")."""
    reply = await characters.create(session=session, campaign_id=principal.campaign_id, data=data, claim=claim)
    return reply.response()


@router.get("/v1/characters", response_model=Page[CharacterRead])
async def list_characters(
    session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[CharacterRead]:
    """The campaign's characters, in the order they were made."""
    items, total = await characters.list_page(
        session=session, campaign_id=principal.campaign_id, limit=limit, offset=offset
    )
    return Page[CharacterRead](items=items, total=total, limit=limit, offset=offset)


@router.get("/v1/characters/{character_id}", response_model=CharacterRead, responses=READ)
async def read_character(
    character_id: str, database: DatabaseDep, principal: CharacterReaderDep, if_none_match: IfNoneMatch = None
) -> Response:
    """One character, with the unfinished encounter it is in (or null)."""
    row = await characters.get(database, campaign_id=principal.campaign_id, character_id=character_id)
    if still_current(if_none_match, row["version"]):
        return not_modified(row["version"])
    return Reply.json(200, characters.read(row), etag=etag(row["version"])).response()


@router.post(
    "/v1/characters/{character_id}/tokens",
    status_code=status.HTTP_201_CREATED,
    response_model=CredentialCreated,
    tags=["campaigns"],
)
async def create_character_token(
    character_id: str, data: KeyCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep
) -> Response:
    """A player token bound to this character: in whichever unfinished fight the character is linked, it is
    that combatant's player token (reads and staging); outside a fight it reads only this character."""
    reply = await tokens.create(
        session=session, campaign_id=principal.campaign_id, character_id=character_id, label=data.label, claim=claim
    )
    return reply.response()


@router.patch("/v1/characters/{character_id}", response_model=CharacterRead, responses=CHANGED)
async def update_character(
    character_id: str, data: StatBlockUpdate, session: SessionDep, principal: OwnerDep, if_match: IfMatch = None
) -> Response:
    """Change a character: only the fields sent."""
    row = await characters.update(
        session=session, campaign_id=principal.campaign_id, character_id=character_id, data=data, if_match=if_match
    )
    return Reply.json(200, characters.read(row), etag=etag(row["version"])).response()


@router.delete("/v1/characters/{character_id}", status_code=status.HTTP_204_NO_CONTENT, responses=DELETED)
async def delete_character(
    character_id: str, session: SessionDep, principal: OwnerDep, if_match: IfMatch = None
) -> Response:
    """Remove a character from the roster; one in an unfinished fight: 409 character-busy, naming the encounter."""
    await characters.delete(
        session=session, campaign_id=principal.campaign_id, character_id=character_id, if_match=if_match
    )
    return Reply.no_content().response()


# --- the bestiary -------------------------------------------------------------------------------------


@router.post("/v1/creatures", status_code=status.HTTP_201_CREATED, response_model=CreatureRead, responses=CREATED)
async def create_creature(
    data: CreatureCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep
) -> Response:
    """Add a stat block to the bestiary (side defaults to null: every copy its own side)."""
    reply = await creatures.create(session=session, campaign_id=principal.campaign_id, data=data, claim=claim)
    return reply.response()


@router.get("/v1/creatures", response_model=Page[CreatureRead])
async def list_creatures(
    session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[CreatureRead]:
    """The campaign's creatures, in the order they were made."""
    items, total = await creatures.list_page(
        session=session, campaign_id=principal.campaign_id, limit=limit, offset=offset
    )
    return Page[CreatureRead](items=items, total=total, limit=limit, offset=offset)


@router.get("/v1/creatures/{creature_id}", response_model=CreatureRead, responses=READ)
async def read_creature(
    creature_id: str, database: DatabaseDep, principal: OwnerDep, if_none_match: IfNoneMatch = None
) -> Response:
    row = await creatures.get(database, campaign_id=principal.campaign_id, creature_id=creature_id)
    if still_current(if_none_match, row["version"]):
        return not_modified(row["version"])
    return Reply.json(200, creatures.read(row), etag=etag(row["version"])).response()


@router.patch("/v1/creatures/{creature_id}", response_model=CreatureRead, responses=CHANGED)
async def update_creature(
    creature_id: str, data: StatBlockUpdate, session: SessionDep, principal: OwnerDep, if_match: IfMatch = None
) -> Response:
    """Change a stat block: only the fields sent. Combatants copied from it before keep their own."""
    row = await creatures.update(
        session=session, campaign_id=principal.campaign_id, creature_id=creature_id, data=data, if_match=if_match
    )
    return Reply.json(200, creatures.read(row), etag=etag(row["version"])).response()


@router.delete(
    "/v1/creatures/{creature_id}", status_code=status.HTTP_204_NO_CONTENT, responses=_problems(404, 409, 412)
)
async def delete_creature(
    creature_id: str, session: SessionDep, principal: OwnerDep, if_match: IfMatch = None
) -> Response:
    """Remove a stat block; combatants copied from it stay in their fights."""
    await creatures.delete(
        session=session, campaign_id=principal.campaign_id, creature_id=creature_id, if_match=if_match
    )
    return Reply.no_content().response()


# --- the house rules ----------------------------------------------------------------------------------


@router.patch("/v1/campaign", response_model=CampaignRead, responses=CHANGED, tags=["campaigns"])
async def update_house_rules(
    data: HouseRulesUpdate, session: SessionDep, principal: OwnerDep, if_match: IfMatch = None
) -> Response:
    """Replace the campaign's house rules ({} clears them): partial ruleset overrides, validated as an
    encounter's are, that every new encounter starts from (existing encounters keep theirs). Rules that would
    drop a weapon or armor a character or creature uses: 422 naming it."""
    campaign = await house_rules.update(
        session=session, campaign_id=principal.campaign_id, data=data, if_match=if_match
    )
    body = CampaignRead.model_validate(campaign)
    return Reply.json(200, body, etag=etag(campaign["version"])).response()
