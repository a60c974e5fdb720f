"""HTTP for the live event stream and its tickets."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, status
from pydantic import BaseModel
from sse_starlette import EventSourceResponse
from starlette.background import BackgroundTask

from app.access.auth import ReaderDep
from app.deps import DatabaseDep
from app.encounters import encounters
from app.events import tickets
from app.events.deps import HubDep, StreamReaderDep
from app.platform.errors import NotFound

router = APIRouter(prefix="/v1/encounters/{encounter_id}", tags=["events"])
STREAM_DESCRIPTION = """`text/event-stream`. Each event has `event:`, `id:` (the encounter's version after the change)
and one JSON `data:` line: `sync` (first on every connection, and whenever you may have missed something:
re-read the encounter), `round` (the round document), `undo`, `encounter`, `declaration`, and the table's
clock: `deadline`, `declarations.due`, `declarations.complete`. A comment line
keeps an idle stream open. A ticket is used up by the first connection: when an EventSource opened with one
reports an error, ask for a new ticket and open a new EventSource (its own retry would reuse the old one)."""


STREAM_EVENTS_NOTE = (
    "Each event is typed under `x-itemSchema` of `text/event-stream`: the OpenAPI 3.2 `itemSchema` form "
    "(one object per event: `event`, `id`, and `data`, a JSON string whose `contentSchema` is its shape), "
    "as an `x-` extension because this document is OpenAPI 3.1."
)


def _event(name: str, meaning: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "title": name,
        "description": meaning,
        "required": ["event", "id", "data"],
        "properties": {
            "event": {"const": name},
            "id": {"type": "string", "description": "The encounter's version after the change."},
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": data},
        },
    }


def _version(meaning: str) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["version"],
        "properties": {"version": {"type": "integer", "description": meaning}},
    }


def _timing(name: str, meaning: str) -> dict[str, Any]:
    round_only = {"type": "object", "required": ["round"], "properties": {"round": {"type": "integer"}}}
    return _event(name, meaning + " The id is the encounter's version (the clock moves none).", round_only)


# What app/events/hub.py and messages.py send; tests/api/test_events_stream.py reads each kind.
STREAM_EVENTS: dict[str, Any] = {
    "oneOf": [
        _event(
            "sync",
            "First on every connection, and when you may have missed something: re-read the encounter.",
            _version("The encounter's current version."),
        ),
        _event(
            "round",
            "A round was resolved: the round document, as GET …/rounds/{n} returns it.",
            {"$ref": "#/components/schemas/RoundRead"},
        ),
        _event(
            "undo",
            "The latest round was undone.",
            {
                "type": "object",
                "required": ["round"],
                "properties": {"round": {"type": "integer", "description": "The number of the round undone."}},
            },
        ),
        _event(
            "encounter",
            "The encounter, a combatant or an effect changed: re-read what you show.",
            _version("The encounter's version after the change."),
        ),
        _event(
            "declaration",
            "A declaration was staged or withdrawn (never what was declared).",
            {
                "type": "object",
                "required": ["combatant", "declared"],
                "properties": {"combatant": {"type": "string"}, "declared": {"type": "boolean"}},
            },
        ),
        _event(
            "deadline",
            "The declarations for a round are due at a new time (null: no deadline any more).",
            {
                "type": "object",
                "required": ["round", "due_at"],
                "properties": {
                    "round": {"type": "integer", "description": "The round the declarations are for."},
                    "due_at": {"type": ["string", "null"], "format": "date-time"},
                },
            },
        ),
        _timing("declarations.due", "The deadline passed without a round: time is up; the clock stops."),
        _timing("declarations.complete", "Every active combatant a player token controls has declared."),
    ]
}


class StreamTicketRead(BaseModel):
    ticket: str
    expires_at: datetime


@router.post("/stream-tickets", status_code=status.HTTP_201_CREATED, response_model=StreamTicketRead)
async def create_stream_ticket(encounter_id: str, principal: ReaderDep, database: DatabaseDep) -> StreamTicketRead:
    """A single-use ticket, valid 60 s, for `GET …/events?ticket=…` (a browser's EventSource cannot send
    Authorization). The stream it opens has your role."""
    if await encounters.current_version(database, campaign_id=principal.campaign_id, encounter_id=encounter_id) is None:
        raise NotFound(f"There is no encounter {encounter_id}.")
    secret, expires_at = await tickets.issue(database, principal=principal, encounter_id=encounter_id)
    return StreamTicketRead(ticket=secret, expires_at=expires_at)


@router.get(
    "/events",
    response_class=EventSourceResponse,
    description=STREAM_DESCRIPTION,
    responses={
        200: {
            "content": {"text/event-stream": {"x-itemSchema": STREAM_EVENTS}},
            "description": "The event stream. " + STREAM_EVENTS_NOTE,
        }
    },
)
async def stream_events(
    encounter_id: str, principal: StreamReaderDep, hub: HubDep, database: DatabaseDep
) -> EventSourceResponse:
    """Follow the encounter live. A `sync` comes first on every connection, so a client that reconnects
    (EventSource does, sending Last-Event-ID) re-reads whatever it may have missed."""
    # Subscribe before reading the version: a change committed in between is then queued, not lost.
    subscription = hub.subscribe(encounter_id, principal)
    try:
        version = await encounters.current_version(
            database, campaign_id=principal.campaign_id, encounter_id=encounter_id
        )
        if version is None:
            raise NotFound(f"There is no encounter {encounter_id}.")
    except BaseException:
        hub.unsubscribe(subscription)
        raise
    settings = hub.settings
    return EventSourceResponse(
        hub.stream(subscription, version),
        ping=settings.events_keepalive_seconds,
        send_timeout=settings.events_send_timeout_seconds,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},  # no proxy may buffer it
        # The stream's own cleanup runs only if it started (a client gone before the first byte never starts it).
        background=BackgroundTask(hub.unsubscribe, subscription),
    )
