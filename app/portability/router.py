"""HTTP for export and import: the owner key reads its campaign out; anyone may bring one in (a new
campaign, limited per address like POST /v1/campaigns)."""

from __future__ import annotations

import asyncio
import tempfile
from typing import Any

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.responses import StreamingResponse

from app.access.auth import OwnerDep, limit_campaign_creation
from app.access.deps import IdempotencyDep
from app.access.schemas import CampaignCreated
from app.deps import DatabaseDep, database_of
from app.http.command import run_anonymous
from app.http.problems.handlers import is_json
from app.http.responses import Reply
from app.platform.errors import ServiceError
from app.portability import export, imports
from app.portability.schemas import CampaignDocument

router = APIRouter(tags=["campaigns"])
SPOOLED_IN_MEMORY = 1024 * 1024  # a larger body goes to a temporary file as it arrives


class UnsupportedMediaType(ServiceError):
    status, type, title = 415, "unsupported-media-type", "Unsupported Media Type"

PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
IMPORT_PROBLEMS: dict[int | str, dict[str, Any]] = {
    409: {"description": "An id of the document (character, creature, encounter, combatant) exists here: "
          "id-taken, naming it", "content": PROBLEM},
    413: {"description": "The document is over the import limit (IMPORT_MAX_BYTES)", "content": PROBLEM},
    422: {"description": "The document is not valid (validation-error), or a stored round does not come out "
          "again (round-not-replayed, naming its encounter and number)", "content": PROBLEM},
}  # fmt: skip


# The export's answer is the import's body: one schema for both (the export's, every field present), so a
# generated client passes what it exported to the import as it is.
EXPORTED: dict[int | str, dict[str, Any]] = {
    200: {
        "model": CampaignDocument,
        "description": "The campaign document: exactly what POST /v1/campaigns/import takes as its body.",
        "content": {"application/json": {}},
    }
}


@router.get("/v1/campaign/export", response_class=StreamingResponse, responses=EXPORTED)
async def export_campaign(database: DatabaseDep, principal: OwnerDep) -> Response:
    """Everything the campaign holds as one JSON document (streamed): its house rules, roster, bestiary and
    every encounter with its combatants, staged declarations and rounds. Never a key or a token."""
    chunks = await export.stream(database, principal.campaign_id)
    return StreamingResponse(chunks, media_type="application/json")


@router.post(
    "/v1/campaigns/import",
    status_code=status.HTTP_201_CREATED,
    response_model=CampaignCreated,
    responses=IMPORT_PROBLEMS,
    dependencies=[Depends(limit_campaign_creation)],
    # Open to all, as POST /v1/campaigns (a key, if sent, must be valid): FastAPI appends this to the
    # bearer requirement, making it optional (app/http/openapi.py's CREDENTIALS_OPTIONAL does the same).
    # The body is read here, streamed (FastAPI would hold it parsed whole): declared by hand.
    openapi_extra={
        "security": [{}],
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CampaignDocument"}}},
        },
    },
)
async def import_campaign(request: Request, claim: IdempotencyDep) -> Response:
    """A new campaign holding an exported document (ids kept, every round replayed on the way in), and its
    first key, shown **once**. Counted with POST /v1/campaigns per address."""
    content_type = request.headers.get("content-type")
    if not is_json(content_type):
        raise UnsupportedMediaType(
            f"The body must be JSON sent with Content-Type: application/json, not {content_type or 'none'}."
        )
    with tempfile.SpooledTemporaryFile(SPOOLED_IN_MEMORY) as body:
        async for chunk in request.stream():
            body.write(chunk)
        checked = await asyncio.to_thread(imports.check, body)  # CPU work: off the event loop
        return await run_anonymous(
            database_of(request),
            claim,
            lambda session: imports.import_campaign(session, source=body, checked=checked),
            lambda created: Reply.json(201, created, location="/v1/campaign"),  # POST /v1/campaigns's answer
        )
