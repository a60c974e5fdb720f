"""Optimistic concurrency: the encounter's version is the strong ETag; If-Match guards every change."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from app.encounters.models import Encounter, utcnow
from app.problems import Conflict, PreconditionFailed


def etag(version: int) -> str:
    return f'"{version}"'


def check_if_match(if_match: str | None, version: int) -> None:
    """RFC 9110 If-Match with strong comparison: a stale or weak tag is a 412."""
    if if_match is None:
        return
    tags = [tag.strip() for tag in if_match.split(",")]
    if "*" in tags or etag(version) in tags:
        return
    raise PreconditionFailed(f"If-Match {if_match} does not match the current ETag {etag(version)}",
                             current_etag=etag(version))


def claim_version(session: Session, encounter_id: str, read_version: int, **changes) -> int:
    """Bump the encounter's version if it is still the one we read; else someone else won: 409.

    This compare-and-set is what keeps two simultaneous requests from both changing an encounter
    (or resolving a round) from the same state, on every database and across every worker.
    """
    new_version = read_version + 1
    result = session.execute(
        update(Encounter)
        .where(Encounter.id == encounter_id, Encounter.version == read_version)
        .values(version=new_version, updated_at=utcnow(), **changes)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        raise Conflict("The encounter changed while this request was being handled. Re-read it and resend.")
    return new_version


def is_write_conflict(error: Exception) -> bool:
    """A lost race at the database: SQLite's stale-snapshot BUSY, or a unique backstop firing."""
    if isinstance(error, IntegrityError):
        return True
    return isinstance(error, OperationalError) and "database is locked" in str(error.orig)
