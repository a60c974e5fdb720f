"""Issue and redeem stream tickets (see models.StreamTicket).

A ticket is redeemed by deleting it: one statement, so two workers racing for one ticket cannot both
win. It opens the stream with the role of the credential that asked for it, provided that credential
has not been revoked since."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta, timezone

from sqlalchemy import bindparam, delete, insert, select

from app.access.service import Principal, hash_secret, in_fight
from app.access.tables import CREDENTIALS
from app.events.tables import STREAM_TICKETS
from app.platform.db import Database, write_connection
from app.platform.errors import ServiceError

LIFETIME = timedelta(seconds=60)
PREFIX = "dzc_tick_"


class TicketRefused(ServiceError):
    status, type, title = 401, "unauthorized", "Missing or bad credentials"
    headers = {"WWW-Authenticate": 'Bearer error="invalid_token"'}


ISSUE = (
    insert(STREAM_TICKETS)
    .values(
        secret_hash=bindparam("secret_hash"),
        credential_id=bindparam("credential_id"),
        encounter_id=bindparam("encounter_id"),
        expires_at=bindparam("expires_at"),
    )
    .returning(STREAM_TICKETS.c.expires_at)
)
# Tickets are short-lived: whoever issues one also clears the expired ones (an index on expires_at).
PURGE = (
    delete(STREAM_TICKETS)
    .where(STREAM_TICKETS.c.expires_at <= bindparam("now"))
    .returning(STREAM_TICKETS.c.secret_hash)
)
REDEEM = (
    delete(STREAM_TICKETS)
    .where(
        STREAM_TICKETS.c.secret_hash == bindparam("secret_hash"),
        STREAM_TICKETS.c.encounter_id == bindparam("encounter_id"),
        STREAM_TICKETS.c.expires_at > bindparam("now"),
    )
    .returning(STREAM_TICKETS.c.credential_id)
)
ACTIVE_CREDENTIAL = select(
    CREDENTIALS.c.id.label("credential_id"),
    CREDENTIALS.c.campaign_id,
    CREDENTIALS.c.role,
    CREDENTIALS.c.encounter_id,
    CREDENTIALS.c.combatant_id,
    CREDENTIALS.c.character_id,
).where(CREDENTIALS.c.id == bindparam("credential_id"), CREDENTIALS.c.revoked_at.is_(None))


def _now() -> datetime:
    return datetime.now(timezone.utc)


async def issue(database: Database, *, principal: Principal, encounter_id: str) -> tuple[str, datetime]:
    """A new ticket for this principal and encounter (the caller checked it may read it): (secret, expires_at)."""
    now = _now()
    secret = PREFIX + secrets.token_urlsafe(32)  # 256 random bits: a fast hash is enough, as for keys
    # Writes: a transaction of their own (Database.rows is for reads; on SQLite it would not keep them).
    async with write_connection(database.engine) as connection:
        await connection.execute(PURGE, {"now": now})
        issued = await connection.execute(
            ISSUE,
            {
                "secret_hash": hash_secret(secret),
                "credential_id": principal.credential_id,
                "encounter_id": encounter_id,
                "expires_at": now + LIFETIME,
            },
        )
        expires_at: datetime = issued.scalar_one()
    return secret, expires_at


async def redeem(database: Database, *, ticket: str, encounter_id: str) -> Principal:
    """The principal the ticket stands for; 401 when it is unknown, used, expired, for another encounter,
    or its credential was revoked."""
    async with write_connection(database.engine) as connection:
        used = (
            await connection.execute(
                REDEEM, {"secret_hash": hash_secret(ticket), "encounter_id": encounter_id, "now": _now()}
            )
        ).all()
    if not used:
        raise TicketRefused("This stream ticket is unknown, used, expired or for another encounter; ask for a new one.")
    found = await database.rows(ACTIVE_CREDENTIAL, {"credential_id": used[0].credential_id})
    if not found:
        raise TicketRefused("The key or token this ticket was issued to has been revoked.")
    return await in_fight(database, Principal(**found[0]._mapping))
