"""The command runner.

Every change runs the same way (cosmicpython's unit of work): open a session, begin one transaction, run
the use case in it (it loads, checks the expected version, changes, and records its events through
app/platform/changefeed.py's `announce`/`write_and_announce`), render its result as the reply, keep that
reply with the request's Idempotency-Key, commit. A SQLite snapshot gone stale re-runs it all
(`retry_stale_snapshot`). Use cases return results; only this module and the routers speak HTTP. The call
object a route receives (the caller, the expected version, the claim) is app/access/deps.py's `Call`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.responses import Response

from app.http.responses import Reply
from app.idempotency.keys import Claim, record
from app.platform.db import Database
from app.platform.transactions import retry_stale_snapshot, write_transaction

T = TypeVar("T")


class Call(Protocol):
    """What the runner needs of a request's call object (app/access/deps.py's `Call`)."""

    @property
    def database(self) -> Database: ...

    @property
    def claim(self) -> Claim | None: ...


async def run(call: Call, command: Callable[[AsyncSession], Awaitable[T]], render: Callable[[T], Reply]) -> Response:
    """Run `command` in one transaction; its rendered reply is kept with the Idempotency-Key in it."""
    reply = await _in_transaction(call.database, call.claim, command, render)
    return reply.response()


async def run_anonymous(
    database: Database,
    claim: Claim | None,
    command: Callable[[AsyncSession], Awaitable[T]],
    render: Callable[[T], Reply],
) -> Response:
    """`run` for a command anyone may send (creating a campaign, importing one): no caller to check."""
    return (await _in_transaction(database, claim, command, render)).response()


@retry_stale_snapshot
async def _in_transaction(
    database: Database,
    claim: Claim | None,
    command: Callable[[AsyncSession], Awaitable[T]],
    render: Callable[[T], Reply],
) -> Reply:
    # The session checks a connection out at its first statement, and BEGIN goes with it: a command may
    # read through `database` first (one autocommitted statement) and its transaction starts after.
    async with database.sessions() as session, write_transaction(session):
        reply = render(await command(session))
        await record(session, claim, reply)
    return reply


async def keep_reply(database: Database, claim: Claim, reply: Reply) -> None:
    """An answer that changed nothing (a stateless resolve): its key is the only thing to write."""
    async with database.sessions() as session, session.begin():
        await claim.complete(session, reply)
