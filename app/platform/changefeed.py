"""What changed in an encounter, announced from inside the transaction that changed it.

A service calls `await announce(session, Change.…)` before its transaction ends. On PostgreSQL that is
`pg_notify`, which the server delivers exactly when the transaction commits and never when it rolls back:
no event for a change that did not happen, and no change whose event a crash between COMMIT and a later
NOTIFY could lose. On SQLite (one process) the notice waits in the session until the commit, and the
worker's event hub takes it from there (`on_commit`); a rollback drops it.

Beside the notices, an outbox recorder (app/webhooks) may write rows in the same transaction
(`record_with`): on PostgreSQL the notices' statement also asks the recorder's probe whether anyone wants this
encounter's changes (no statement of its own); on SQLite the recorder knows it in memory (one process).

A notice carries only identifiers and numbers (NOTIFY payloads are limited to 8000 bytes, and every
worker reads a round's document itself, once, for all its subscribers). Platform level: the domains
announce, app/events listens; neither imports the other.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

import orjson
from sqlalchemy import (
    ARRAY,
    ColumnElement,
    Delete,
    Insert,
    Result,
    Text,
    Update,
    bindparam,
    event,
    func,
    literal_column,
    select,
)
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.orm import Session

CHANNEL = "combat_events"
PAYLOADS = bindparam("changefeed_payloads", type_=ARRAY(Text))
# One pg_notify per payload, in order, as one value (count() only gathers them): in the RETURNING of the
# write whose changes they announce, or in a statement of its own (NOTIFY).
NOTIFIED = (
    select(func.count(func.pg_notify(CHANNEL, func.unnest(PAYLOADS).column_valued("payload"))))
    .scalar_subquery()
    .label("notified")
)
NOTIFY = select(NOTIFIED)
# The table's clock (CONTRACT.md, "Roles and timing at the table"): a new deadline, a deadline passed, and the
# moment every player-controlled combatant has declared. They move no version.
TIMING = ("deadline", "declarations.due", "declarations.complete")
KINDS = ("round", "undo", "encounter", "declaration", *TIMING)
VERSIONED = ("round", "undo", "encounter")  # kinds whose change bumped the encounter's version
PENDING = "announced_changes"  # SQLite: the session's notices until its transaction ends
ENCOUNTER = bindparam("changefeed_encounter", type_=Text)  # the announced changes' encounter, for a probe


@dataclass(frozen=True)
class Change:
    """One change. `version` is the encounter's version after it, or None when the announcer does not
    know it (then each worker reads the current one; none at all means the encounter is gone)."""

    encounter_id: str
    kind: str
    version: int | None = None
    round: int | None = None  # round and undo: the round's number
    combatant: str | None = None  # declaration: whose
    declared: bool | None = None  # declaration: staged (True) or withdrawn/used (False)
    due_at: str | None = None  # deadline: when the next round's declarations are due (ISO 8601)
    what: str | None = None  # encounter: "finished" or "reopened" when that is the change
    # round: what its writer holds of it (document, request, state_before), handed to the recorder in the same
    # transaction so it need not read the round back; never in a notice (a worker reads the round itself).
    facts: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of change {self.kind!r}")

    @classmethod
    def of_round(cls, encounter_id: str, number: int, version: int, facts: Mapping[str, Any] | None = None) -> Change:
        return cls(encounter_id, "round", version, round=number, facts=facts)

    @classmethod
    def of_undo(cls, encounter_id: str, number: int, version: int) -> Change:
        return cls(encounter_id, "undo", version, round=number)

    @classmethod
    def of_encounter(cls, encounter_id: str, version: int | None = None, what: str | None = None) -> Change:
        return cls(encounter_id, "encounter", version, what=what)

    @classmethod
    def of_declaration(cls, encounter_id: str, combatant: str, declared: bool, version: int | None = None) -> Change:
        return cls(encounter_id, "declaration", version, combatant=combatant, declared=declared)

    @classmethod
    def of_timing(cls, encounter_id: str, kind: str, round: int, version: int, due_at: str | None = None) -> Change:
        """The table's clock, about the declarations for round `round`."""
        return cls(encounter_id, kind, version, round=round, due_at=due_at)

    def payload(self) -> str:
        announced = (f.name for f in fields(self) if f.name != "facts")
        return orjson.dumps({name: value for name in announced if (value := getattr(self, name)) is not None}).decode()

    @classmethod
    def from_payload(cls, payload: str | bytes) -> Change:
        fields: dict[str, Any] = orjson.loads(payload)
        return cls(**fields)


class Recorder(Protocol):
    """Writes what the changes mean for it (an outbox's rows) inside their transaction."""

    @property
    def probe(self) -> ColumnElement[Any]:
        """PostgreSQL: a column, selected with the notices, true when `record` has work (reads ENCOUNTER)."""

    def wanted(self, session: AsyncSession) -> bool:
        """SQLite: whether `record` may have work, known in memory (never false when it has)."""

    async def record(self, session: AsyncSession, changes: Sequence[Change]) -> None: ...


_recorder: Recorder | None = None
_NOTIFY_AND_PROBE: dict[int, Any] = {}


def record_with(recorder: Recorder | None) -> None:
    """The outbox recorder every announcement also calls (one per process; None: no recording)."""
    global _recorder
    _recorder = recorder
    _NOTIFYING.clear()


def _postgres(session: AsyncSession) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def _keep_until_commit(session: AsyncSession, changes: tuple[Change, ...]) -> None:
    session.sync_session.info.setdefault(PENDING, []).extend(changes)


async def announce(session: AsyncSession, *changes: Change) -> None:
    """Inside the transaction of the change: delivered at its commit, dropped with its rollback."""
    if not changes:
        return
    recorder = _recorder
    if _postgres(session):
        payloads = {PAYLOADS.key: [change.payload() for change in changes]}
        if recorder is None:
            await session.execute(NOTIFY, payloads)
            return
        statement = _NOTIFY_AND_PROBE.get(id(recorder))
        if statement is None:
            statement = _NOTIFY_AND_PROBE[id(recorder)] = select(NOTIFIED, recorder.probe.label("recording"))
        recording = (await session.execute(statement, {**payloads, ENCOUNTER.key: changes[0].encounter_id})).one()[1]
        if recording:
            await recorder.record(session, changes)
        return
    _keep_until_commit(session, changes)
    if recorder is not None and recorder.wanted(session):
        await recorder.record(session, changes)


def notified_after(guard: Any) -> ColumnElement[Any]:
    """`NOTIFIED`, sent only when `guard` (a selectable, e.g. a compare-and-set's CTE) has a row: for a
    statement that writes and announces in one go, whose writes depend on that guard."""
    payload = func.unnest(PAYLOADS).column_valued("payload")
    # written into the SQL: a statement run on the driver gets only the parameters its caller names
    channel: ColumnElement[str] = literal_column(f"'{CHANNEL}'")
    return select(func.count(func.pg_notify(channel, payload))).select_from(guard).scalar_subquery()


def recording_probe() -> ColumnElement[Any] | None:
    """The recorder's probe (PostgreSQL), to select beside the notices; None when nothing records."""
    return None if _recorder is None else _recorder.probe


def announcement_parameters(changes: Sequence[Change]) -> dict[str, Any]:
    """The parameters `NOTIFIED` and the recorder's probe read."""
    return {PAYLOADS.key: [change.payload() for change in changes], ENCOUNTER.key: changes[0].encounter_id}


async def record(session: AsyncSession, changes: Sequence[Change]) -> None:
    """After a statement that announced `changes` found the recorder's probe true: its rows, same transaction."""
    if _recorder is not None and changes:
        await _recorder.record(session, changes)


# A statement written again and again (a round's INSERT) gets its notifying form once: building it per
# request would cost its construction and a new cache key every time.
_NOTIFYING: weakref.WeakKeyDictionary[Insert | Update | Delete, Insert | Update | Delete] = weakref.WeakKeyDictionary()


async def write_and_announce(
    session: AsyncSession,
    statement: Insert | Update | Delete,
    *changes: Change,
    parameters: Mapping[str, Any] | None = None,
) -> Result[Any] | _Rows:
    """Run a write of exactly one row and `announce` the changes with it: on PostgreSQL, in that statement's
    RETURNING (a column `notified`), which saves the notices a round trip of their own. One row, because
    RETURNING runs once per row written."""
    recorder = _recorder
    if not _postgres(session):
        result = await session.execute(statement, dict(parameters or {}))
        _keep_until_commit(session, changes)
        if recorder is not None and changes and recorder.wanted(session):
            await recorder.record(session, changes)
        return result
    notifying = _NOTIFYING.get(statement)
    if notifying is None:
        probe = () if recorder is None else (recorder.probe.label("recording"),)
        notifying = _NOTIFYING[statement] = statement.returning(NOTIFIED, *probe)
    payloads = [change.payload() for change in changes]
    values = {**(parameters or {}), PAYLOADS.key: payloads}
    if recorder is None:
        written: Result[Any] = await session.execute(notifying, values)
        return written
    values[ENCOUNTER.key] = changes[0].encounter_id if changes else ""
    rows = (await session.execute(notifying, values)).all()
    if changes and rows and rows[0].recording:
        await recorder.record(session, changes)
    return _Rows(rows)


class _Rows:
    """The rows of a write that was read before the recorder wrote (its `one()`, as the callers use it)."""

    def __init__(self, rows: Sequence[Any]):
        self._rows = rows

    def one(self) -> Any:
        if len(self._rows) != 1:
            raise ValueError(f"expected one row, got {len(self._rows)}")
        return self._rows[0]

    def all(self) -> Sequence[Any]:
        return self._rows


def on_commit(engine: AsyncEngine, deliver: Callable[[Change], None]) -> Callable[[], None]:
    """SQLite: hand every notice of a committed transaction on `engine` to `deliver` (on the event loop's
    thread, where the commit ran). Returns the function that stops it."""
    bind = engine.sync_engine

    def ours(session: Session) -> bool:
        # the same database through another engine of this process too: the background dispatcher's own
        return session.bind is bind or getattr(session.bind, "url", None) == bind.url

    def committed(session: Session) -> None:
        if ours(session):
            for change in session.info.pop(PENDING, ()):
                deliver(change)

    def rolled_back(session: Session, *_: Any) -> None:
        if ours(session):
            session.info.pop(PENDING, None)

    event.listen(Session, "after_commit", committed)
    event.listen(Session, "after_soft_rollback", rolled_back)

    def stop() -> None:
        event.remove(Session, "after_commit", committed)
        event.remove(Session, "after_soft_rollback", rolled_back)

    return stop
