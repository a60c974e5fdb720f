"""combat-admin webhooks: the operators' view of every campaign's subscriptions, and their two levers: retry
what was given up, purge what was finished long ago. The running service is woken at commit (PostgreSQL);
an embedded SQLite service notices within a minute."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import case, delete, func, select, update

from app.platform.db import Database, utcnow
from app.platform.dispatcher import wake_at_commit
from app.webhooks.outbox import JOB
from app.webhooks.tables import EVENTS, SUBSCRIPTIONS

S, E = SUBSCRIPTIONS.c, EVENTS.c


def _count(status: str) -> Any:
    return func.count(case((E.status == status, 1))).label(status)


SUMMARY = (
    select(S.id, S.campaign_id, S.format, S.enabled, S.url, _count("pending"), _count("delivered"), _count("given_up"))
    .select_from(SUBSCRIPTIONS.outerjoin(EVENTS, E.subscription_id == S.id))
    .group_by(S.id, S.campaign_id, S.format, S.enabled, S.url)
    .order_by(S.campaign_id, S.created_at)
)


async def summary(database: Database, campaign_id: str | None = None) -> list[str]:
    """One line per subscription: id, campaign, format, enabled, events pending/delivered/given up, URL."""
    statement = SUMMARY if campaign_id is None else SUMMARY.where(S.campaign_id == campaign_id)
    rows = await database.rows(statement, {})
    return [
        f"{r.id}  campaign {r.campaign_id}  {r.format:8}  {'enabled ' if r.enabled else 'DISABLED'}  "
        f"pending {r.pending}  delivered {r.delivered}  given_up {r.given_up}  {r.url}"
        for r in rows
    ]


async def retry(database: Database, subscription_id: str | None = None) -> int:
    """Every given-up event (of one subscription, or all) pending again, same webhook-id; disabled
    subscriptions stay disabled (resume them with PATCH {"enabled": true})."""
    chosen = E.status == "given_up"
    if subscription_id is not None:
        chosen = chosen & (E.subscription_id == subscription_id)
    async with database.sessions() as session, session.begin():
        again = update(EVENTS).where(chosen).values(status="pending", next_attempt_at=utcnow(), finished_at=None)
        count = int((await session.execute(again)).rowcount)  # type: ignore[attr-defined]
        if count:
            await wake_at_commit(session, JOB)
    return count


async def purge(database: Database, older_than_hours: float) -> int:
    """Delete delivered and given-up events finished more than this long ago."""
    before = utcnow() - timedelta(hours=older_than_hours)
    async with database.sessions() as session, session.begin():
        gone = delete(EVENTS).where(E.status != "pending", E.finished_at < before)
        return int((await session.execute(gone)).rowcount)  # type: ignore[attr-defined]
