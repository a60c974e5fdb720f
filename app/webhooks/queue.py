"""The outbox as a queue: claiming the events due, settling an attempt, the next moment anything is due,
pruning what was finished long ago. Every statement runs in a dispatcher transaction; the state is the rows.

Claiming takes only the head of each (subscription, encounter): the pending event with no earlier pending
one, so events go out in order, and one at a time. On PostgreSQL, `FOR UPDATE SKIP LOCKED` lets several
workers claim at once without taking the same row; the lease (`leased_until`) then marks the one attempt
under way, so no other worker attempts that event (nor the ones after it) until the attempt is settled or
its worker died and the lease ran out. An attempt is settled only if it is still the latest one.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, case, delete, exists, func, or_, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection

from app.webhooks.tables import EVENTS, SUBSCRIPTIONS

_EARLIER = EVENTS.alias("earlier")
_EARLIER_PENDING = exists(
    select(_EARLIER.c.seq).where(
        _EARLIER.c.subscription_id == EVENTS.c.subscription_id,
        _EARLIER.c.encounter_id == EVENTS.c.encounter_id,
        _EARLIER.c.status == "pending",
        _EARLIER.c.seq < EVENTS.c.seq,
    )
)
_PENDING_ENABLED = and_(EVENTS.c.status == "pending", SUBSCRIPTIONS.c.enabled == true())
_WITH_SUBSCRIPTION = EVENTS.join(SUBSCRIPTIONS, SUBSCRIPTIONS.c.id == EVENTS.c.subscription_id)
HEADS = (
    select(EVENTS.c.seq)
    .select_from(_WITH_SUBSCRIPTION)
    .where(
        _PENDING_ENABLED,
        EVENTS.c.next_attempt_at <= bindparam("now"),
        or_(EVENTS.c.leased_until.is_(None), EVENTS.c.leased_until <= bindparam("now")),
        ~_EARLIER_PENDING,
    )
    .order_by(EVENTS.c.seq)
    .limit(bindparam("batch"))
)
HEADS_LOCKED = HEADS.with_for_update(of=EVENTS, skip_locked=True)
LEASE = (
    update(EVENTS)
    .where(EVENTS.c.seq.in_(bindparam("seqs", expanding=True)))
    .values(leased_until=bindparam("lease"), attempts=EVENTS.c.attempts + 1)
)
CLAIMED = (
    select(
        EVENTS,
        SUBSCRIPTIONS.c.url,
        SUBSCRIPTIONS.c.scope,
        SUBSCRIPTIONS.c.format,
        SUBSCRIPTIONS.c.lang,
        SUBSCRIPTIONS.c.secret,
        SUBSCRIPTIONS.c.given_up_streak,
    )
    .select_from(_WITH_SUBSCRIPTION)
    .where(EVENTS.c.seq.in_(bindparam("seqs", expanding=True)))
    .order_by(EVENTS.c.seq)
)
_THIS_ATTEMPT = and_(
    EVENTS.c.seq == bindparam("event_seq"),
    EVENTS.c.attempts == bindparam("event_attempt"),
    EVENTS.c.status == "pending",
)
SETTLE = update(EVENTS).where(_THIS_ATTEMPT)
DROP = delete(EVENTS).where(_THIS_ATTEMPT)
HOLD = (
    update(EVENTS)
    .where(EVENTS.c.subscription_id == bindparam("of_subscription"), EVENTS.c.status == "pending")
    .values(
        next_attempt_at=case(
            (EVENTS.c.next_attempt_at < bindparam("hold"), bindparam("hold")), else_=EVENTS.c.next_attempt_at
        )
    )
)
DELIVERED_STREAK = (
    update(SUBSCRIPTIONS)
    .where(SUBSCRIPTIONS.c.id == bindparam("of_subscription"), SUBSCRIPTIONS.c.given_up_streak != 0)
    .values(given_up_streak=0)
)
GIVEN_UP_STREAK = (
    update(SUBSCRIPTIONS)
    .where(SUBSCRIPTIONS.c.id == bindparam("of_subscription"))
    .values(given_up_streak=SUBSCRIPTIONS.c.given_up_streak + 1)
    .returning(SUBSCRIPTIONS.c.given_up_streak)
)
DISABLE = (
    update(SUBSCRIPTIONS)
    .where(SUBSCRIPTIONS.c.id == bindparam("of_subscription"), SUBSCRIPTIONS.c.enabled == true())
    .values(enabled=False, disabled_reason=bindparam("reason"), version=SUBSCRIPTIONS.c.version + 1)
)
_WAKE_AT = case(
    (and_(EVENTS.c.leased_until.is_not(None), EVENTS.c.leased_until > EVENTS.c.next_attempt_at), EVENTS.c.leased_until),
    else_=EVENTS.c.next_attempt_at,
)
QUEUE = (
    select(func.count(), func.min(EVENTS.c.created_at), func.min(_WAKE_AT))
    .select_from(_WITH_SUBSCRIPTION)
    .where(_PENDING_ENABLED)
)
_FINISHED_LONG_AGO = and_(EVENTS.c.status != "pending", EVENTS.c.finished_at < bindparam("before"))
PRUNE = delete(EVENTS).where(_FINISHED_LONG_AGO)
PRUNABLE = select(EVENTS.c.seq).where(_FINISHED_LONG_AGO).limit(1)
# A Discord round's message, to edit when the round is undone.
ROUND_MESSAGE = (
    select(EVENTS.c.discord_message)
    .where(
        EVENTS.c.subscription_id == bindparam("of_subscription"),
        EVENTS.c.encounter_id == bindparam("encounter_id"),
        EVENTS.c.round == bindparam("round"),
        EVENTS.c.type == "round.resolved",
        EVENTS.c.discord_message.is_not(None),
    )
    .order_by(EVENTS.c.seq.desc())
    .limit(1)
)


async def claim(connection: AsyncConnection, *, now: datetime, lease: datetime, batch: int) -> Sequence[Any]:
    """The heads due now, leased to this worker, with their subscriptions."""
    heads = HEADS_LOCKED if connection.dialect.name == "postgresql" else HEADS
    seqs = list((await connection.execute(heads, {"now": now, "batch": batch})).scalars())
    if not seqs:
        return []
    await connection.execute(LEASE, {"seqs": seqs, "lease": lease})
    return (await connection.execute(CLAIMED, {"seqs": seqs})).all()


async def settle(connection: AsyncConnection, event: Any, **values: Any) -> bool:
    """Write an attempt's outcome, if it is still the latest attempt of a pending event."""
    result = await connection.execute(
        SETTLE.values(leased_until=None, **values), {"event_seq": event.seq, "event_attempt": event.attempts}
    )
    return bool(result.rowcount)


async def drop(connection: AsyncConnection, event: Any) -> None:
    await connection.execute(DROP, {"event_seq": event.seq, "event_attempt": event.attempts})


async def hold(connection: AsyncConnection, subscription_id: str, until: datetime) -> None:
    await connection.execute(HOLD, {"of_subscription": subscription_id, "hold": until})


async def delivered(connection: AsyncConnection, subscription_id: str) -> None:
    await connection.execute(DELIVERED_STREAK, {"of_subscription": subscription_id})


async def given_up(connection: AsyncConnection, subscription_id: str, disable_after: int) -> bool:
    """Count a given-up event; True when the subscription was disabled by it."""
    streak = (await connection.execute(GIVEN_UP_STREAK, {"of_subscription": subscription_id})).scalar_one()
    if streak < disable_after:
        return False
    reason = f"The last {streak} events were all given up."
    await connection.execute(DISABLE, {"of_subscription": subscription_id, "reason": reason})
    return True


async def queue(connection: AsyncConnection) -> tuple[int, datetime | None, datetime | None]:
    """Pending events of enabled subscriptions: how many, the oldest one's creation, the next moment one is due."""
    depth, oldest, due = (await connection.execute(QUEUE)).one()
    return int(depth), oldest, due


async def prune(connection: AsyncConnection, *, now: datetime, keep_hours: float) -> int:
    result = await connection.execute(PRUNE, {"before": now - timedelta(hours=keep_hours)})
    return int(result.rowcount)


async def round_message(connection: AsyncConnection, event: Any) -> str | None:
    parameters = {"of_subscription": event.subscription_id, "encounter_id": event.encounter_id, "round": event.round}
    found: str | None = (await connection.execute(ROUND_MESSAGE, parameters)).scalar()
    return found
