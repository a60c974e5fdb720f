"""HTTP for export and import: the owner key reads its campaign out; anyone may bring one in (a new
campaign, limited per address like POST /v1/campaigns)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.responses import StreamingResponse

from app.access.auth import IdempotencyDep, OwnerDep, limit_campaign_creation
from app.access.schemas import CampaignCreated
from app.deps import DatabaseDep, SessionDep
from app.portability import export, imports
from app.portability.schemas import CampaignDocument

router = APIRouter(tags=["campaigns"])

PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
IMPORT_PROBLEMS: dict[int | str, dict[str, Any]] = {
    409: {"description": "An id of the document (character, creature, encounter, combatant) exists here: "
          "id-taken, naming it", "content": PROBLEM},
    413: {"description": "The document is over the import limit (IMPORT_MAX_BYTES)", "content": PROBLEM},
    422: {"description": "The document is not valid (validation-error), or a stored round does not come out "
          "again (round-not-replayed, naming its encounter and number)", "content": PROBLEM},
}  # fmt: skip


# The export's answer is the import's body: its schema is declared once, on the import's request (so that
# request-side defaults stay optional for generated clients, app/http/openapi.py's defaults_in_words).
EXPORTED: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The campaign document: exactly what POST /v1/campaigns/import takes as its body "
        "(see that operation's request schema, CampaignDocument).",
        "content": {"application/json": {"schema": {"type": "object", "title": "CampaignDocument (export)"}}},
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
    openapi_extra={"security": [{}]},
)
async def import_campaign(
    document: CampaignDocument, request: Request, session: SessionDep, claim: IdempotencyDep
) -> Response:
    """A new campaign holding an exported document (ids kept, every round replayed on the way in), and its
    first key, shown **once**. Counted with POST /v1/campaigns per address."""
    raw = imports.raw_document(await request.body())  # the blobs are stored as they were sent
    created = await imports.import_campaign(session=session, document=document, raw=raw, claim=claim)
    return imports.reply(created).response()
