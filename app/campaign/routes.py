"""HTTP for the roster, the bestiary and the house rules: the owner key's alone; delegate, answer with ETags."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from app.access.auth import CharacterReaderDep, OwnerDep
from app.access.deps import Call, OwnerChange, OwnerCommand
from app.access.schemas import CampaignRead, CredentialCreated, KeyCreate
from app.campaign import house_rules, stat_blocks, tokens
from app.campaign.schemas import (
    CharacterCreate,
    CharacterRead,
    CreatureCreate,
    CreatureRead,
    HouseRulesUpdate,
    StatBlock,
    StatBlockUpdate,
)
from app.campaign.stat_blocks import CHARACTER, CREATURE, Kind
from app.deps import DatabaseDep, SessionDep
from app.http.command import run
from app.http.etags import etag, not_modified, still_current
from app.http.params import NOT_MODIFIED, IfNoneMatch, Limit, Offset
from app.http.responses import Reply
from app.platform.db import Database
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


# One path for both kinds (the roster's and the bestiary's routes differ by the Kind they pass).


async def _create(call: Call, kind: Kind[Any], data: StatBlock) -> Response:
    return await run(
        call,
        lambda session: stat_blocks.create(session, kind=kind, campaign_id=call.campaign_id, data=data),
        lambda row: Reply.json(201, kind.read(row), etag=etag(1), location=f"{kind.path}/{row['id']}"),
    )


async def _read(
    database: Database, kind: Kind[Any], campaign_id: str, resource_id: str, if_none_match: str | None
) -> Response:
    row = await stat_blocks.get(database, kind=kind, campaign_id=campaign_id, resource_id=resource_id)
    if still_current(if_none_match, row["version"]):
        return not_modified(row["version"])
    return Reply.json(200, kind.read(row), etag=etag(row["version"])).response()


async def _update(call: Call, kind: Kind[Any], resource_id: str, data: StatBlockUpdate) -> Response:
    return await run(
        call,
        lambda session: stat_blocks.update(
            session, kind=kind, campaign_id=call.campaign_id, resource_id=resource_id, data=data, expected=call.expected
        ),
        lambda row: Reply.json(200, kind.read(row), etag=etag(row["version"])),
    )


async def _delete(call: Call, kind: Kind[Any], resource_id: str) -> Response:
    return await run(
        call,
        lambda session: stat_blocks.delete(
            session, kind=kind, campaign_id=call.campaign_id, resource_id=resource_id, expected=call.expected
        ),
        lambda _: Reply.no_content(),
    )


# --- the roster ---------------------------------------------------------------------------------------


@router.post("/v1/characters", status_code=status.HTTP_201_CREATED, response_model=CharacterRead, responses=CREATED)
async def create_character(data: CharacterCreate, call: OwnerCommand) -> Response:
    """Add a character to the roster (side defaults to "party")."""
    return await _create(call, CHARACTER, data)


@router.get("/v1/characters", response_model=Page[CharacterRead])
async def list_characters(
    session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[CharacterRead]:
    """The campaign's characters, in the order they were made."""
    items, total = await stat_blocks.list_page(
        session=session, kind=CHARACTER, campaign_id=principal.campaign_id, limit=limit, offset=offset
    )
    return Page[CharacterRead](items=items, total=total, limit=limit, offset=offset)


@router.get("/v1/characters/{character_id}", response_model=CharacterRead, responses=READ)
async def read_character(
    character_id: str, database: DatabaseDep, principal: CharacterReaderDep, if_none_match: IfNoneMatch = None
) -> Response:
    """One character, with the unfinished encounter it is in (or null)."""
    return await _read(database, CHARACTER, principal.campaign_id, character_id, if_none_match)


@router.post(
    "/v1/characters/{character_id}/tokens",
    status_code=status.HTTP_201_CREATED,
    response_model=CredentialCreated,
    tags=["campaigns"],
)
async def create_character_token(character_id: str, data: KeyCreate, call: OwnerCommand) -> Response:
    """A player token bound to this character: in whichever unfinished fight the character is linked, it is
    that combatant's player token (reads and staging); outside a fight it reads only this character."""
    return await run(
        call,
        lambda session: tokens.create(
            session, campaign_id=call.campaign_id, character_id=character_id, label=data.label
        ),
        lambda token: Reply.json(201, token, location=f"/v1/characters/{character_id}/tokens"),
    )


@router.patch("/v1/characters/{character_id}", response_model=CharacterRead, responses=CHANGED)
async def update_character(character_id: str, data: StatBlockUpdate, call: OwnerChange) -> Response:
    """Change a character: only the fields sent."""
    return await _update(call, CHARACTER, character_id, data)


@router.delete("/v1/characters/{character_id}", status_code=status.HTTP_204_NO_CONTENT, responses=DELETED)
async def delete_character(character_id: str, call: OwnerChange) -> Response:
    """Remove a character from the roster; one in an unfinished fight: 409 character-busy, naming the encounter."""
    return await _delete(call, CHARACTER, character_id)


# --- the bestiary -------------------------------------------------------------------------------------


@router.post("/v1/creatures", status_code=status.HTTP_201_CREATED, response_model=CreatureRead, responses=CREATED)
async def create_creature(data: CreatureCreate, call: OwnerCommand) -> Response:
    """Add a stat block to the bestiary (side defaults to null: every copy its own side)."""
    return await _create(call, CREATURE, data)


@router.get("/v1/creatures", response_model=Page[CreatureRead])
async def list_creatures(
    session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[CreatureRead]:
    """The campaign's creatures, in the order they were made."""
    items, total = await stat_blocks.list_page(
        session=session, kind=CREATURE, campaign_id=principal.campaign_id, limit=limit, offset=offset
    )
    return Page[CreatureRead](items=items, total=total, limit=limit, offset=offset)


@router.get("/v1/creatures/{creature_id}", response_model=CreatureRead, responses=READ)
async def read_creature(
    creature_id: str, database: DatabaseDep, principal: OwnerDep, if_none_match: IfNoneMatch = None
) -> Response:
    return await _read(database, CREATURE, principal.campaign_id, creature_id, if_none_match)


@router.patch("/v1/creatures/{creature_id}", response_model=CreatureRead, responses=CHANGED)
async def update_creature(creature_id: str, data: StatBlockUpdate, call: OwnerChange) -> Response:
    """Change a stat block: only the fields sent. Combatants copied from it before keep their own."""
    return await _update(call, CREATURE, creature_id, data)


@router.delete(
    "/v1/creatures/{creature_id}", status_code=status.HTTP_204_NO_CONTENT, responses=_problems(404, 409, 412)
)
async def delete_creature(creature_id: str, call: OwnerChange) -> Response:
    """Remove a stat block; combatants copied from it stay in their fights."""
    return await _delete(call, CREATURE, creature_id)


# --- the house rules ----------------------------------------------------------------------------------


@router.patch("/v1/campaign", response_model=CampaignRead, responses=CHANGED, tags=["campaigns"])
async def update_house_rules(data: HouseRulesUpdate, call: OwnerChange) -> Response:
    """Replace the campaign's house rules ({} clears them): partial ruleset overrides, validated as an
    encounter's are, that every new encounter starts from (existing encounters keep theirs). Rules that would
    drop a weapon or armor a character or creature uses: 422 naming it."""
    return await run(
        call,
        lambda session: house_rules.update(session, campaign_id=call.campaign_id, data=data, expected=call.expected),
        lambda campaign: Reply.json(200, CampaignRead.model_validate(campaign), etag=etag(campaign["version"])),
    )
