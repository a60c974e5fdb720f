"""The Idempotency-Key header (IETF draft), with Stripe's semantics.

A key is claimed in its own short transaction (state in_progress, with a lease). The work then
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
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import delete, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, sessionmaker

from app.encounters.models import utcnow
from app.idempotency.models import IdempotencyKey
from app.problems import ServiceError
from app.responses import Reply

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
class Claim:
    scope: str
    key: str
    lease: str

    def complete(self, session: Session, reply: Reply) -> None:
        """Record the response; call inside the transaction that does the work."""
        session.execute(
            update(IdempotencyKey)
            .where(
                IdempotencyKey.scope == self.scope, IdempotencyKey.key == self.key, IdempotencyKey.lease == self.lease
            )
            .values(state="completed", status_code=reply.status_code, headers=reply.headers, body=reply.body)
            .execution_options(synchronize_session=False)
        )


def record(session: Session, claim: Claim | None, reply: Reply) -> None:
    """Keep the reply with the request's key, in the caller's transaction (no key: nothing to keep)."""
    if claim is not None:
        claim.complete(session, reply)


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


def _insert_if_absent(session: Session, row: dict) -> bool:
    """INSERT ... ON CONFLICT DO NOTHING. Writing first matters on SQLite: a transaction that read
    before writing could be refused the write lock; one that writes first simply waits for it."""
    dialect = session.get_bind().dialect.name
    insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    statement = insert(IdempotencyKey).values(**row).on_conflict_do_nothing().returning(IdempotencyKey.key)
    return session.execute(statement).first() is not None


def claim(sessions: sessionmaker[Session], *, scope: str, key: str, print_: str, lease_seconds: float) -> Claim | Reply:
    """Claim the key for this request, or return the response to replay."""
    lease = secrets.token_hex(16)
    now = utcnow()
    with sessions() as session, session.begin():
        if _insert_if_absent(
            session,
            dict(
                scope=scope,
                key=key,
                fingerprint=print_,
                state="in_progress",
                lease=lease,
                locked_at=now,
                created_at=now,
            ),
        ):
            return Claim(scope, key, lease)
        found = session.get(IdempotencyKey, (scope, key))
        if found is None:  # purged between the two statements: rare enough to ask for a retry
            raise KeyInUse("This key changed hands just now; retry in a moment.")
        if found.fingerprint != print_:
            raise KeyReused("Send a new Idempotency-Key for a different request.")
        if found.state == "completed":
            return Reply(found.status_code or 200, found.body or b"", dict(found.headers or {}))
        if _aware(found.locked_at) > now - timedelta(seconds=lease_seconds):
            raise KeyInUse("The first request with this key has not finished; retry in a moment.")
        taken = session.execute(
            update(IdempotencyKey)
            .where(
                IdempotencyKey.scope == scope,
                IdempotencyKey.key == key,
                IdempotencyKey.lease == found.lease,
                IdempotencyKey.state == "in_progress",
            )
            .values(lease=lease, locked_at=now)
            .execution_options(synchronize_session=False)
        )
        if taken.rowcount != 1:
            raise KeyInUse("Another retry took this key over; retry in a moment.")
        return Claim(scope, key, lease)


def release(sessions: sessionmaker[Session], held: Claim) -> None:
    """The work failed: free the key so a retry can run again (a completed key is kept)."""
    with sessions() as session, session.begin():
        session.execute(
            delete(IdempotencyKey).where(
                IdempotencyKey.scope == held.scope,
                IdempotencyKey.key == held.key,
                IdempotencyKey.lease == held.lease,
                IdempotencyKey.state == "in_progress",
            )
        )


def purge(session: Session, *, older_than: timedelta) -> int:
    with session.begin():
        result = session.execute(delete(IdempotencyKey).where(IdempotencyKey.created_at < utcnow() - older_than))
    return result.rowcount


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were stored in UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
