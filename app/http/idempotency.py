"""The Idempotency-Key dependency: claim before the work, replay a stored answer, release on failure.

A key's scope is the caller's (its campaign, or its address when anonymous), which access knows: it builds
the dependency with `idempotency_dependency(its scope dependency)` (app/access/deps.py), so nothing here
looks up.
"""

# No `from __future__ import annotations`: FastAPI reads the nested dependency's annotations, which a
# string annotation would hide behind names it cannot resolve.

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from fastapi import FastAPI, Header, Request
from starlette.responses import Response

from app.deps import database_of, settings_of
from app.http.responses import Reply
from app.idempotency import keys
from app.idempotency.keys import Claim

REPLAYED_HEADER = "Idempotent-Replayed"


class Replay(Exception):
    """Raised by the dependency to answer with the stored reply instead of running the endpoint."""

    def __init__(self, reply: Reply):
        self.reply = reply


def idempotency_dependency(
    scope_of: Callable[[Request], Awaitable[str]],
) -> Callable[..., AsyncIterator[Claim | None]]:
    """The dependency for routes that take an Idempotency-Key; `scope_of(request)` names whose keys these
    are (keys never cross scopes). One dependency: it asks for nothing FastAPI would solve apart."""

    async def idempotency(
        request: Request,
        idempotency_key: Annotated[
            str | None,
            Header(
                alias="Idempotency-Key",
                description="Any unique string (≤255 printable characters): a retry with the same key and body "
                "returns the first answer and changes nothing. A malformed key is a 400.",
                # documented, not enforced by FastAPI: the draft asks for a 400 (not a 422) on a malformed key
                json_schema_extra={"pattern": keys.KEY_PATTERN, "maxLength": keys.MAX_KEY_LENGTH},
            ),
        ] = None,
    ) -> AsyncIterator[Claim | None]:
        scope = await scope_of(request)  # with or without a key: bad credentials are a 401 either way
        if idempotency_key is None:
            yield None
            return
        key = keys.parse_key(idempotency_key)
        body = await request.body()
        database = database_of(request)
        outcome = await keys.claim(
            database,
            scope=scope,
            key=key,
            request_fingerprint=keys.fingerprint(request.method, request.url.path, body),
            lease_seconds=settings_of(request).idempotency_lease_seconds,
        )
        if isinstance(outcome, keys.StoredReply):
            raise Replay(Reply(outcome.status_code, outcome.body, outcome.headers))
        try:
            yield outcome
        except BaseException:
            await keys.release(database.sessions, outcome)
            raise

    return idempotency


def install_replay_handler(app: FastAPI) -> None:
    @app.exception_handler(Replay)
    async def _replay(_request: Request, replay: Replay) -> Response:
        return replay.reply.response(**{REPLAYED_HEADER: "true"})
