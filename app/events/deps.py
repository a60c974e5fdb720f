"""Typed dependencies of the event endpoints."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from app.access.auth import current_principal, encounter_reader, optional_principal
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


async def stream_reader(
    encounter_id: str,
    database: DatabaseDep,
    principal: Annotated[Principal | None, Depends(optional_principal)],
    ticket: Ticket = None,
) -> Principal:
    """Whoever may read the encounter, by Authorization or by a ticket (which is used up)."""
    if ticket is not None:
        return await tickets.redeem(database, ticket=ticket, encounter_id=encounter_id)
    return await encounter_reader(encounter_id, await current_principal(principal, database))


StreamReaderDep = Annotated[Principal, Depends(stream_reader)]
