"""POST /v1/campaigns/import and `combat-admin import`: a document becomes a new campaign, with its key.

Checked in this order, before anything is written: the schema (the caller: FastAPI or parse()), the replay
of every round, then the ids already here (409 naming one). Then everything in one transaction: all or
nothing. Every id but the campaign's is kept; `updated_at` is now.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.schemas import CampaignCreated
from app.access.service import issue
from app.access.tables import CAMPAIGNS
from app.campaign.tables import CHARACTERS, CREATURES
from app.encounters.tables import COMBATANTS, ENCOUNTERS, ROUNDS, STAGED
from app.http.responses import Reply
from app.idempotency.keys import Claim, record
from app.platform.db import utcnow
from app.platform.errors import Unprocessable
from app.platform.transactions import write_transaction
from app.portability import replay, store
from app.portability.errors import IdTaken
from app.portability.schemas import CampaignDocument

Progress = Callable[[int], None]  # called with the number of rows just written


class DocumentInvalid(Unprocessable):
    """parse()'s refusal (the CLI's): the schema's errors, as the API's validation-error gives them."""

    type, title = "validation-error", "The request is not valid"


def parse(body: bytes) -> tuple[CampaignDocument, dict[str, Any]]:
    """A document from its bytes (the CLI's way in; the HTTP route lets FastAPI check the schema)."""
    try:
        return CampaignDocument.model_validate_json(body), orjson.loads(body)
    except ValidationError as error:
        shown = "; ".join(
            f"/{'/'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors(include_url=False)[:5]
        )
        raise DocumentInvalid(shown) from None
    except orjson.JSONDecodeError as error:
        raise DocumentInvalid(f"The document is not valid JSON: {error}") from None


def raw_document(body: bytes) -> dict[str, Any]:
    """The body as sent, beside FastAPI's checked model: the stored blobs are written as they came."""
    try:
        raw = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise DocumentInvalid(f"The document is not valid JSON: {error}") from None
    if not isinstance(raw, dict):
        raise DocumentInvalid("The document is not a JSON object.")
    return raw


def _ids(document: CampaignDocument) -> dict[str, list[str]]:
    return {
        "character": [c.id for c in document.characters],
        "creature": [c.id for c in document.creatures],
        "encounter": [e.id for e in document.encounters],
        "combatant": [c.id for e in document.encounters for c in e.combatants],
    }


def _rows(document: CampaignDocument, raw: dict[str, Any], campaign_id: str) -> dict[str, list[dict[str, Any]]]:
    """Every row to insert, by table: the blobs as sent, the timestamps as parsed."""
    now = utcnow()
    rows: dict[str, list[dict[str, Any]]] = {"encounters": [], "combatants": [], "staged": [], "rounds": []}
    for encounter, sent in zip(document.encounters, raw["encounters"]):
        rows["encounters"].append(
            {
                "id": encounter.id,
                "campaign_id": campaign_id,
                "name": encounter.name,
                "rules": sent["rules"],
                "round": encounter.round,
                "version": encounter.version,
                "next_position": encounter.next_position,
                "created_at": encounter.created_at,
                "updated_at": now,
                "finished_at": encounter.finished_at,
                "finish_state": sent["finish_state"],
            }
        )
        rows["combatants"] += [
            {**store.combatant_columns(combatant), "encounter_id": encounter.id} for combatant in sent["combatants"]
        ]
        rows["staged"] += [
            {**staged, "encounter_id": encounter.id, "staged_at": parsed.staged_at}
            for staged, parsed in zip(sent["staged"], encounter.staged)
        ]
        rows["rounds"] += [
            {**stored, "encounter_id": encounter.id, "created_at": parsed.created_at}
            for stored, parsed in zip(sent["rounds"], encounter.rounds)
        ]
    for noun, parts in (("characters", document.characters), ("creatures", document.creatures)):
        rows[noun] = [
            {
                **store.roster_columns(resource),
                "campaign_id": campaign_id,
                "created_at": part.created_at,
                "updated_at": now,
            }  # fmt: skip
            for resource, part in zip(raw[noun], parts)
        ]
    return rows


async def import_campaign(
    *,
    session: AsyncSession,
    document: CampaignDocument,
    raw: dict[str, Any],
    claim: Claim | None = None,
    progress: Progress | None = None,
) -> CampaignCreated:
    """The document as a new campaign; its new owner key is in the result (shown once)."""
    # The replay is CPU work: off the event loop, so that other requests go on meanwhile.
    await asyncio.to_thread(replay.check, document, raw)
    campaign_id = str(uuid.uuid4())
    rows = _rows(document, raw, campaign_id)
    async with write_transaction(session):
        taken = await store.first_existing(session, _ids(document))
        if taken is not None:
            noun, taken_id = taken
            raise IdTaken(f"The document's {noun} {taken_id} already exists here.", noun=noun, id=taken_id)
        campaign = document.campaign
        await session.execute(
            CAMPAIGNS.insert().values(
                id=campaign_id,
                name=campaign.name,
                created_at=campaign.created_at,
                rules=raw["campaign"]["rules"],
                version=campaign.version,
            )  # fmt: skip
        )
        key = await issue(session, campaign_id, "owner", label="first key")
        # parents first: characters point at their encounter, combatants and rounds at theirs
        for table, name in ((ENCOUNTERS, "encounters"), (COMBATANTS, "combatants"), (CHARACTERS, "characters"),
                            (CREATURES, "creatures"), (STAGED, "staged"), (ROUNDS, "rounds")):  # fmt: skip
            await store.insert_rows(session, table, rows[name])
            if progress is not None:
                progress(len(rows[name]))
        created = CampaignCreated(
            id=campaign_id,
            name=campaign.name,
            created_at=campaign.created_at,
            rules=raw["campaign"]["rules"],
            version=campaign.version,
            key=key,
        )
        await record(session, claim, reply(created))
    return created


def reply(created: CampaignCreated) -> Reply:
    """The answer of POST /v1/campaigns/import: POST /v1/campaigns's."""
    return Reply.json(201, created, location="/v1/campaign")
