"""Optimistic concurrency: the encounter's version is the strong ETag and a compare-and-set guard.

Every change reads the encounter, then bumps its version only if it is still the one read
(`claim_version`). Two requests that read the same version cannot both write: the loser gets
a 409 and re-reads. PostgreSQL decides that in the UPDATE itself (READ COMMITTED re-checks the
row). SQLite has one write lock for the whole file, and a transaction whose snapshot went stale
cannot take it, even when another *encounter* changed; `retry_stale_snapshot` re-runs such a
use case, remembering the version first read, so only a change to the same encounter is a 409.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import ParamSpec, TypeVar

from sqlalchemy import update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.encounters.models import ENCOUNTERS, utcnow
from app.problems import Conflict, PreconditionFailed

P = ParamSpec("P")
R = TypeVar("R")
STALE_RETRIES = 20
_first_read_version: ContextVar[int | None] = ContextVar("first_read_version", default=None)


class StaleSnapshot(Exception):
    """SQLite refused the write lock to a transaction that read an older state of the database."""

    def __init__(self, read_version: int):
        self.read_version = read_version


def etag(version: int) -> str:
    return f'"{version}"'


def check_if_match(if_match: str | None, version: int) -> None:
    """RFC 9110 If-Match with strong comparison: a stale or weak tag is a 412."""
    if if_match is None:
        return
    tags = [tag.strip() for tag in if_match.split(",")]
    if "*" in tags or etag(version) in tags:
        return
    raise PreconditionFailed(
        f"If-Match {if_match} does not match the current ETag {etag(version)}", current_etag=etag(version)
    )


def still_current(if_none_match: str | None, version: int) -> bool:
    """RFC 9110 If-None-Match, weak comparison: the client's copy is current, so a GET answers 304."""
    if if_none_match is None:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag(version) in tags


def not_modified(version: int) -> Response:
    return Response(status_code=304, headers={"ETag": etag(version)})


def _conflict() -> Conflict:
    return Conflict("The encounter changed while this request was being handled. Re-read it and resend.")


def claim_version(session: Session, encounter_id: str, read_version: int, **changes) -> int:
    """Bump the encounter's version if it is still the one we read; else someone else won: 409."""
    first_read = _first_read_version.get()
    if first_read is not None and first_read != read_version:
        raise _conflict()  # a retry after a stale snapshot found the encounter itself changed
    try:
        result = session.execute(  # the table, not the ORM entity: a plain UPDATE, no ORM bookkeeping
            update(ENCOUNTERS)
            .where(ENCOUNTERS.c.id == encounter_id, ENCOUNTERS.c.version == read_version)
            .values(version=read_version + 1, updated_at=utcnow(), **changes)
        )
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(read_version) from error
        raise
    if result.rowcount != 1:
        raise _conflict()
    return read_version + 1


def retry_stale_snapshot(use_case: Callable[P, R]) -> Callable[P, R]:
    """Re-run a use case whose SQLite snapshot went stale, 409 only if its own encounter changed."""

    @wraps(use_case)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        token = _first_read_version.set(None)
        try:
            for attempt in range(STALE_RETRIES):
                try:
                    return use_case(*args, **kwargs)
                except StaleSnapshot as stale:
                    if _first_read_version.get() is None:
                        _first_read_version.set(stale.read_version)
                    time.sleep(random.uniform(0.001, 0.004) * (attempt + 1))  # jitter: let the writer finish
            raise Conflict("The database was too busy to take this change. Resend it.")
        finally:
            _first_read_version.reset(token)

    return run


def is_sqlite_busy(error: OperationalError) -> bool:
    return "database is locked" in str(error.orig)


def is_write_conflict(error: Exception) -> bool:
    """A race lost at the database: a unique backstop firing, or SQLite's lock not granted."""
    if isinstance(error, IntegrityError):
        return True
    return isinstance(error, OperationalError) and is_sqlite_busy(error)


@contextmanager
def write_transaction(session: Session) -> Iterator[None]:
    """One transaction; a race lost at the database becomes a 409 the client can retry."""
    try:
        with session.begin():
            yield
    except DBAPIError as error:
        if is_write_conflict(error):
            raise Conflict("A concurrent request changed this encounter first. Re-read it and resend.") from error
        raise
