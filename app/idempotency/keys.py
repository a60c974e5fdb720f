"""The Idempotency-Key header (IETF draft), with Stripe's semantics.

A key is claimed before the work, committed at once (state in_progress, with a lease). The work then
runs, and the response is written to the key *in the work's own transaction*, so a round and
its key commit together or not at all. Outcomes for a request that carries a key:

- new key: claim it and do the work;
- completed, same fingerprint: replay the stored status, headers and body; write nothing;
- same key, different request: 422;
- in progress and its lease still fresh: 409 (the first request is still running);
- in progress with a lapsed lease (its worker died): take it over and do the work.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.idempotency.tables import IDEMPOTENCY_KEYS
from app.platform.db import Database, utcnow
from app.platform.errors import ServiceError

KEYS = IDEMPOTENCY_KEYS.c
MAX_KEY_LENGTH = 255
KEY_PATTERN = r'^("[\x21\x23-\x7e]{1,255}"|[\x21-\x7e]{1,255})$'  # a structured-field string, or a bare token


class MalformedKey(ServiceError):
    status, type, title = 400, "malformed-idempotency-key", "The Idempotency-Key header is not valid"


class KeyReused(ServiceError):
    status, type, title = 422, "idempotency-key-reused", "This Idempotency-Key was used for another request"


class KeyInUse(ServiceError):
    status, type, title = 409, "idempotency-key-in-use", "A request with this Idempotency-Key is still running"
    headers = {"Retry-After": "1"}


@dataclass(frozen=True)
class StoredReply:
    """A whole answer as kept with its key: status, headers and body, replayed byte for byte."""

    status_code: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    scope: str
    key: str
    lease: str

    async def complete(self, session: AsyncSession, reply: StoredReply) -> None:
        """Record the response; call inside the transaction that does the work."""
        await session.execute(
            update(IDEMPOTENCY_KEYS)
            .where(KEYS.scope == self.scope, KEYS.key == self.key, KEYS.lease == self.lease)
            .values(state="completed", status_code=reply.status_code, headers=reply.headers, body=reply.body)
            .execution_options(synchronize_session=False)
        )


async def record(session: AsyncSession, claim: Claim | None, reply: StoredReply) -> None:
    """Keep the reply with the request's key, in the caller's transaction (no key: nothing to keep)."""
    if claim is not None:
        await claim.complete(session, reply)


def parse_key(header: str) -> str:
    """The draft sends the key as a structured-field string ("..."); a bare token is accepted too."""
    key = header.strip()
    if len(key) >= 3 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not all(0x21 <= ord(ch) <= 0x7E for ch in key):
        raise MalformedKey(f"An Idempotency-Key is 1..{MAX_KEY_LENGTH} printable ASCII characters without spaces.")
    return key


def fingerprint(method: str, path: str, body: bytes) -> str:
    """The same request, whatever its JSON's key order or spacing."""
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, UnicodeDecodeError):
        canonical = body
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + canonical).hexdigest()


async def _insert_if_absent(database: Database, row: dict[str, Any]) -> bool:
    """INSERT ... ON CONFLICT DO NOTHING, a statement committed by itself: a new key (the usual case)
    costs no transaction around it. Writing first matters on SQLite: a transaction that read before
    writing could be refused the write lock; a write simply waits for it."""
    insert = postgresql_insert if database.engine.dialect.name == "postgresql" else sqlite_insert
    statement = insert(IDEMPOTENCY_KEYS).values(**row).on_conflict_do_nothing().returning(KEYS.key)
    return bool(await database.rows(statement, {}))


async def claim(
    database: Database, *, scope: str, key: str, request_fingerprint: str, lease_seconds: float
) -> Claim | StoredReply:
    """Claim the key for this request, or return the response to replay. Each statement commits alone:
    the INSERT and the takeover are compare-and-sets by themselves, and the read in between decides
    nothing they do not check again."""
    lease = secrets.token_hex(16)
    now = utcnow()
    row = dict(scope=scope, key=key, fingerprint=request_fingerprint, state="in_progress", lease=lease, locked_at=now)
    if await _insert_if_absent(database, {**row, "created_at": now}):
        return Claim(scope, key, lease)
    this_key = (KEYS.scope == scope) & (KEYS.key == key)
    rows = await database.rows(select(*IDEMPOTENCY_KEYS.c).where(this_key), {})
    if not rows:  # purged between the two statements: rare enough to ask for a retry
        raise KeyInUse("This key changed hands just now; retry in a moment.")
    found = rows[0]
    if found.fingerprint != request_fingerprint:
        raise KeyReused("Send a new Idempotency-Key for a different request.")
    if found.state == "completed":
        return StoredReply(found.status_code or 200, found.body or b"", dict(found.headers or {}))
    if _aware(found.locked_at) > now - timedelta(seconds=lease_seconds):
        raise KeyInUse("The first request with this key has not finished; retry in a moment.")
    taken = await database.rows(
        update(IDEMPOTENCY_KEYS)
        .where(this_key, KEYS.lease == found.lease, KEYS.state == "in_progress")
        .values(lease=lease, locked_at=now)
        .returning(KEYS.key),
        {},
    )
    if not taken:
        raise KeyInUse("Another retry took this key over; retry in a moment.")
    return Claim(scope, key, lease)


async def release(sessions: async_sessionmaker[AsyncSession], held: Claim) -> None:
    """The work failed: free the key so a retry can run again (a completed key is kept)."""
    async with sessions() as session, session.begin():
        await session.execute(
            delete(IDEMPOTENCY_KEYS).where(
                KEYS.scope == held.scope,
                KEYS.key == held.key,
                KEYS.lease == held.lease,
                KEYS.state == "in_progress",
            )
        )


async def purge(sessions: async_sessionmaker[AsyncSession], *, older_than: timedelta) -> int:
    async with sessions() as session, session.begin():
        statement = delete(IDEMPOTENCY_KEYS).where(KEYS.created_at < utcnow() - older_than)
        result = await session.execute(statement)
    return int(result.rowcount)  # type: ignore[attr-defined]  # a DELETE's result is a CursorResult


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
