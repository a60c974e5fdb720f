"""The outbox: a change's webhook events written in the transaction of the change (through the changefeed's
recorder), one row per event and subscription, and the dispatcher woken at its commit.

Nothing is written, and no statement is sent, for an encounter nobody subscribed to: on PostgreSQL the
notices' own statement carries `probe` (is there an enabled subscription for this encounter?); on SQLite
the one process knows whether any subscription exists (`Outbox.wanted`), read at start and set by every
subscription made. A round's events are derived from its document and the states before it, as its writer
hands them over (`Change.facts`): the round is never read back.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, get_args

from sqlalchemy import and_, bindparam, exists, insert, or_, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters.store import complete_round
from app.encounters.tables import ENCOUNTERS
from app.platform.changefeed import ENCOUNTER, Change
from app.platform.db import Database, utcnow
from app.platform.dispatcher import wake_at_commit
from app.webhooks.schemas import EventType
from app.webhooks.tables import EVENTS, SUBSCRIPTIONS

JOB = "webhooks"
EVENT_TYPES: tuple[str, ...] = get_args(EventType)  # declared once, in the schema clients read
IN_THE_ROUND_MESSAGE = ("turn.ended", "combatant.down")  # Discord: inside the round's one message

_FOR_ENCOUNTER = and_(
    SUBSCRIPTIONS.c.campaign_id == ENCOUNTERS.c.campaign_id,
    SUBSCRIPTIONS.c.enabled == true(),
    or_(SUBSCRIPTIONS.c.encounter_id.is_(None), SUBSCRIPTIONS.c.encounter_id == ENCOUNTERS.c.id),
)
PROBE = exists(select(SUBSCRIPTIONS.c.id).where(ENCOUNTERS.c.id == ENCOUNTER, _FOR_ENCOUNTER))
SUBSCRIBERS = (
    select(SUBSCRIPTIONS.c.id, SUBSCRIPTIONS.c.events, SUBSCRIPTIONS.c.format)
    .select_from(ENCOUNTERS.join(SUBSCRIPTIONS, _FOR_ENCOUNTER))
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"))
    .order_by(SUBSCRIPTIONS.c.created_at, SUBSCRIPTIONS.c.id)
)
COMPLETE_SENT = select(EVENTS.c.seq).where(
    EVENTS.c.encounter_id == bindparam("encounter_id"),
    EVENTS.c.type == "declarations.complete",
    EVENTS.c.round == bindparam("round"),
)
INSERT_EVENT = insert(EVENTS)


def database_key(session: AsyncSession) -> str:
    """Which database a session writes to (SQLite: each file is one process's)."""
    return str(session.get_bind().engine.url)


def new_event_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


def _downs(document: dict[str, Any], before: dict[str, Any]) -> list[dict[str, Any]]:
    """Who went down in the round (active before it, not after it), and by whose action or by bleeding."""
    was_active = {c["id"] for c in before.get("combatants", []) if c.get("status", "active") == "active"}
    bled = {b["combatant"] for b in document.get("bleeding", [])}
    downs = []
    for combatant in document.get("combatants", []):
        if combatant["status"] == "active" or combatant["id"] not in was_active:
            continue
        hits = [a["actor"] for a in document.get("actions", []) if a.get("target") == combatant["id"] and a.get("hit")]
        by = hits[-1] if hits else ("bleeding" if combatant["id"] in bled else None)
        downs.append({"combatant": combatant["id"], "status": combatant["status"], "by": by})
    return downs


def round_events(
    encounter_id: str, number: int, document: dict[str, Any], request: dict[str, Any], before: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """round.resolved (carrying what its chronicle is told from, and its downs for Discord's one message),
    turn.ended, combatant.down. The stored round may be undone before its event goes: it travels with it."""
    base = {"encounter": encounter_id, "round": number}
    downs = _downs(document, before)
    source = {"request": request, "state_before": before}
    events: list[tuple[str, dict[str, Any]]] = [
        ("round.resolved", {**base, "document": document, "downs": downs, "source": source})
    ]
    if document.get("ends_turn"):
        events.append(("turn.ended", {**base, "bleeding": document.get("bleeding", [])}))
    events.extend(("combatant.down", {**base, **down}) for down in downs)
    return events


class Outbox:
    """The changefeed's recorder (app/platform/changefeed.py) for webhooks."""

    def __init__(self) -> None:
        self.subscribed: dict[str, bool] = {}  # SQLite: database URL -> a subscription may exist

    @property
    def probe(self) -> Any:
        return PROBE

    def wanted(self, session: AsyncSession) -> bool:
        return self.subscribed.get(database_key(session), True)  # unknown: look

    def may_have_subscriptions(self, url: str, value: bool = True) -> None:
        self.subscribed[url] = value

    async def learn(self, database: Database) -> None:
        """SQLite, at start: whether any subscription exists."""
        found = await database.rows(select(SUBSCRIPTIONS.c.id).limit(1), {})
        self.may_have_subscriptions(str(database.engine.url), bool(found))

    async def record(self, session: AsyncSession, changes: Sequence[Change]) -> None:
        encounter_id = changes[0].encounter_id
        subscribers = (await session.execute(SUBSCRIBERS, {"encounter_id": encounter_id})).all()
        if not subscribers:
            return
        events: list[tuple[str, int | None, dict[str, Any]]] = []
        for change in changes:
            events.extend(await self._events_of(session, change))
        now = utcnow()
        rows = [
            {
                "id": new_event_id(),
                "subscription_id": subscriber.id,
                "encounter_id": encounter_id,
                "type": kind,
                "round": number,
                "data": data,
                "status": "pending",
                "attempts": 0,
                "next_attempt_at": now,
                "created_at": now,
            }
            for kind, number, data in events
            for subscriber in subscribers
            if kind in subscriber.events and not (subscriber.format == "discord" and kind in IN_THE_ROUND_MESSAGE)
        ]
        if rows:
            await session.execute(INSERT_EVENT, rows)
            await wake_at_commit(session, JOB)

    async def _events_of(self, session: AsyncSession, change: Change) -> list[tuple[str, int | None, dict[str, Any]]]:
        encounter = {"encounter": change.encounter_id}
        if change.kind == "round" and change.round is not None:
            facts = change.facts
            if facts is None:  # the round's writer hands them over (rounds.py); a round without them is a bug
                raise ValueError(f"round {change.round} of {change.encounter_id} was announced without its facts")
            return [
                (kind, change.round, data)
                for kind, data in round_events(
                    change.encounter_id, change.round, facts["document"], facts["request"], facts["state_before"]
                )
            ]
        if change.kind == "undo":
            return [("round.undone", change.round, {**encounter, "round": change.round})]
        if change.kind == "encounter" and change.what in ("finished", "reopened"):
            return [(f"encounter.{change.what}", None, encounter)]
        if change.kind == "declarations.due" and change.round is not None:  # the deadline passed (roles' clock)
            return [("declarations.due", change.round, {**encounter, "round": change.round})]
        if change.kind == "declaration" and change.declared:
            return await self._complete(session, change.encounter_id)
        return []

    async def _complete(self, session: AsyncSession, encounter_id: str) -> list[tuple[str, int | None, dict[str, Any]]]:
        """declarations.complete, once per round (a withdrawn and staged again declaration completes it again):
        asked of the encounter's own definition on every staging, timed or not."""
        number = await complete_round(session, encounter_id)
        if number is None:
            return []
        if (await session.execute(COMPLETE_SENT, {"encounter_id": encounter_id, "round": number})).first():
            return []
        return [("declarations.complete", number, {"encounter": encounter_id, "round": number})]


OUTBOX = Outbox()
