"""The Idempotency-Key dependency: claim before the work, replay a stored answer, release on failure.

It lives with access because a key's scope is the caller's: its campaign, or its address when anonymous.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, FastAPI, Header, Request
from starlette.responses import Response

from app.access.auth import optional_principal
from app.access.service import Principal
from app.deps import DatabaseDep, SettingsDep, client_address
from app.idempotency import service
from app.idempotency.service import Claim
from app.responses import Reply

REPLAYED_HEADER = "Idempotent-Replayed"


class Replay(Exception):
    """Raised by the dependency to answer with the stored reply instead of running the endpoint."""

    def __init__(self, reply: Reply):
        self.reply = reply


def scope_of(request: Request, principal: Principal | None) -> str:
    """Whose keys these are: a campaign's, or an anonymous caller's address. Keys never cross scopes."""
    if principal is not None:
        return f"campaign:{principal.campaign_id}"
    return f"ip:{client_address(request)}"


async def idempotency(
    request: Request,
    principal: Annotated[Principal | None, Depends(optional_principal)],
    settings: SettingsDep,
    database: DatabaseDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="Any unique string (≤255 printable characters): a retry with the same key and body "
            "returns the first answer and changes nothing. A malformed key is a 400.",
            # documented, not enforced by FastAPI: the draft asks for a 400 (not a 422) on a malformed key
            json_schema_extra={"pattern": service.KEY_PATTERN, "maxLength": service.MAX_KEY_LENGTH},
        ),
    ] = None,
) -> AsyncIterator[Claim | None]:
    if idempotency_key is None:
        yield None
        return
    key = service.parse_key(idempotency_key)
    body = await request.body()
    outcome = await service.claim(
        database,
        scope=scope_of(request, principal),
        key=key,
        print_=service.fingerprint(request.method, request.url.path, body),
        lease_seconds=settings.idempotency_lease_seconds,
    )
    if isinstance(outcome, Reply):
        raise Replay(outcome)
    try:
        yield outcome
    except BaseException:
        await service.release(database.sessions, outcome)
        raise


IdempotencyDep = Annotated[Claim | None, Depends(idempotency)]


def install_replay_handler(app: FastAPI) -> None:
    @app.exception_handler(Replay)
    async def _replay(_request: Request, replay: Replay) -> Response:
        return replay.reply.response(**{REPLAYED_HEADER: "true"})
