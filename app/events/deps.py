"""Typed dependencies of the event endpoints."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Request

from app.access.auth import current_principal, encounter_reader
from app.access.service import Principal
from app.deps import DatabaseDep, get_event_hub
from app.events import tickets
from app.events.hub import EventHub

HubDep = Annotated[EventHub, Depends(get_event_hub)]
Ticket = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        description="A stream ticket (POST …/stream-tickets), for clients that cannot send Authorization.",
    ),
]


async def stream_reader(request: Request, encounter_id: str, database: DatabaseDep, ticket: Ticket = None) -> Principal:
    """Whoever may read the encounter, by Authorization or by a ticket (which is used up)."""
    if ticket is not None:
        return await tickets.redeem(database, ticket=ticket, encounter_id=encounter_id)
    return encounter_reader(await current_principal(request), {"encounter_id": encounter_id})


StreamReaderDep = Annotated[Principal, Depends(stream_reader)]
