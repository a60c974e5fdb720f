"""One transaction per use case, and what a lost race at the database becomes (a 409 to retry).

PostgreSQL decides a compare-and-set in the UPDATE itself (READ COMMITTED re-checks the row). SQLite
has one write lock for the whole file (writers queue for it: app/platform/db.py, `writer_gate`), and a
transaction whose snapshot went stale cannot take it, even when another *campaign* changed;
`retry_stale_snapshot` re-runs such a use case, remembering the version first read, so only a change to
the same encounter is a 409; the re-run holds the write lock from its first statement, so it cannot go stale
again (app/platform/db.py, `lock_at_first_statement`). Every use case that reads, then writes is wrapped in it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from functools import wraps
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.platform.db import lock_at_first_statement
from app.platform.errors import Conflict, lost_race

P = ParamSpec("P")
R = TypeVar("R")
STALE_RETRIES = 20
first_read_version: ContextVar[int | None] = ContextVar("first_read_version", default=None)


retrying: ContextVar[bool] = ContextVar("retrying", default=False)


class StaleSnapshot(Exception):
    """SQLite refused the write lock to a transaction that read an older state of the database (of the
    encounter at `read_version`, when the write was its compare-and-set)."""

    def __init__(self, read_version: int | None = None):
        self.read_version = read_version


def changed_meanwhile() -> Conflict:
    return Conflict("The encounter changed while this request was being handled. Re-read it and resend.")


def is_sqlite_busy(error: DBAPIError) -> bool:
    return isinstance(error, OperationalError) and "database is locked" in str(error.orig)


def is_write_conflict(error: DBAPIError) -> bool:
    """A race lost at the database: a unique backstop firing, or SQLite's lock not granted."""
    return isinstance(error, IntegrityError) or is_sqlite_busy(error)


def retry_stale_snapshot(use_case: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Re-run a use case whose SQLite snapshot went stale, 409 only if its own encounter changed."""

    @wraps(use_case)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if retrying.get():
            return await use_case(*args, **kwargs)  # a use case calling another: the outer one re-runs both
        token, inside = first_read_version.set(None), retrying.set(True)
        locking = lock_at_first_statement.set(False)
        try:
            for attempt in range(STALE_RETRIES):
                try:
                    return await use_case(*args, **kwargs)
                except StaleSnapshot as stale:
                    if first_read_version.get() is None:
                        first_read_version.set(stale.read_version)
                except OperationalError as error:  # a write outside the compare-and-sets (an INSERT, say)
                    if not is_sqlite_busy(error):
                        raise
                lock_at_first_statement.set(True)  # the re-run holds the write lock from its first read
                await asyncio.sleep(random.uniform(0.001, 0.004) * (attempt + 1))  # jitter: let the writer finish
            raise Conflict("The database was too busy to take this change. Resend it.")
        finally:
            lock_at_first_statement.reset(locking)
            retrying.reset(inside)
            first_read_version.reset(token)

    return run


@asynccontextmanager
async def write_transaction(session: AsyncSession) -> AsyncIterator[None]:
    """One transaction; a race lost at the database becomes a 409 the client can retry."""
    try:
        async with session.begin():
            yield
    except DBAPIError as error:
        if retrying.get() and is_sqlite_busy(error):
            raise StaleSnapshot() from error  # the use case runs again on a fresh snapshot
        if is_write_conflict(error):
            raise lost_race() from error
        raise
