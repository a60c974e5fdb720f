"""A round's writes: one plan, two executors behind `write_round`.

The round is resolved from a snapshot read before its transaction (`aggregate.read_for_round`: the
encounter, its combatants and the declarations staged for them, one statement). Its writes then prove that
snapshot still holds: the compare-and-set checks the version *and* the staging counter (every staging and
withdrawal moves it, `aggregate.hold_version`), so no declaration staged or withdrawn since can be missed or
taken twice. Nothing is written when the compare-and-set finds the row moved (`write_round` returns False,
and the use case decides between a 409 and reading again).

- PostgreSQL: one statement on the asyncpg connection, compiled once (`Database.write_on_driver`): the
  compare-and-set as a CTE, and only `FROM` it the staged declarations' DELETE, the round's INSERT, the
  combatants' UPDATE (from one JSON parameter) and the notices, beside the outbox's probe. Under READ
  COMMITTED the compare-and-set re-reads the row it waited for, so a staging committed meanwhile fails it.
- SQLite: the same writes as Core statements in the session, one after another, under the file's write lock.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import (
    ARRAY,
    Integer,
    Text,
    Update,
    all_,
    bindparam,
    column,
    delete,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import convert
from app.encounters.store.combatant_rows import write_round_states
from app.encounters.store.history import insert_round
from app.encounters.store.staged import take_staged
from app.encounters.tables import COMBATANTS, ENCOUNTERS, ROUNDS, STAGED
from app.platform import changefeed
from app.platform.changefeed import Change
from app.platform.db import Database
from app.platform.transactions import StaleSnapshot, is_sqlite_busy

STATE_COLUMNS = (*convert.ROUND_CHANGES, "hidden", "reveal_at_round")  # what a round changes on a combatant
ROUND_COLUMNS = ("document", "request", "state_before", "state_after")


@dataclass(frozen=True)
class RoundWrite:
    """Everything a round writes, decided before the first write."""

    encounter_id: str
    read_version: int
    read_staging: int
    number: int
    clock: dict[str, Any]  # the declaration deadline's column, when it moves (deadlines.restarted)
    waiting: tuple[str, ...]  # combatants whose staged declaration waits for a later round
    taken: frozenset[str]  # the staged declarations the snapshot had and the round takes
    stored: dict[str, Any]  # the round's row: document, request, state_before, state_after
    states: list[dict[str, Any]]  # each combatant's change: its id and STATE_COLUMNS
    announced: tuple[Change, ...]  # delivered at commit, in order

    @property
    def version(self) -> int:
        return self.read_version + 1


class StagedMeanwhile(RuntimeError):
    """The staged declarations differ from the snapshot although the staging counter did not move: a writer
    of staged declarations that does not hold the encounter's row (a bug; the transaction rolls back)."""


async def write_round(database: Database, session: AsyncSession, write: RoundWrite) -> bool:
    """The round's writes in the session's transaction; False (nothing written) when the encounter's row is
    no longer at the version and staging counter read."""
    if database.on_driver:
        return await _on_driver(database, session, write)
    return await _in_session(session, write)


# --- PostgreSQL: one statement ---------------------------------------------------------------------------


@functools.cache
def _guarded_move(with_clock: bool) -> Update:
    """The round's compare-and-set: the encounter moves to the round's number and next version (and its
    declaration deadline, `with_clock`) only if its version and staging counter are still those read."""
    moved: dict[str, Any] = {
        "version": bindparam("new_version"),
        "round": bindparam("number"),
        "updated_at": bindparam("now"),
    }
    if with_clock:
        moved["declarations_due_at"] = bindparam("due")
    return (
        update(ENCOUNTERS)
        .where(
            ENCOUNTERS.c.id == bindparam("encounter_id"),
            ENCOUNTERS.c.version == bindparam("read_version"),
            ENCOUNTERS.c.staging == bindparam("read_staging"),
        )
        .values(moved)
    )


@functools.cache
def _round_statement(with_clock: bool, probe: Any) -> Any:
    """The round's one statement (one per clock shape and recorder, built and compiled once)."""
    guard = _guarded_move(with_clock).returning(ENCOUNTERS.c.id).cte("moved")
    taken = (
        delete(STAGED)
        .where(
            STAGED.c.encounter_id == guard.c.id,
            STAGED.c.combatant_id != all_(bindparam("waiting", type_=ARRAY(Text))),
        )
        .returning(STAGED.c.combatant_id)
        .cte("taken")
    )
    row = select(
        guard.c.id,
        bindparam("number", type_=Integer),
        bindparam("now", type_=ROUNDS.c.created_at.type),
        *(bindparam(name, type_=JSONB) for name in ROUND_COLUMNS),
    ).select_from(guard)
    stored = (
        insert(ROUNDS)
        .from_select(["encounter_id", "number", "created_at", *ROUND_COLUMNS], row)
        .returning(ROUNDS.c.number)
        .cte("stored")
    )
    change = (
        func.jsonb_to_recordset(bindparam("states", type_=JSONB))
        .table_valued(column("row_id", Text), *(column(name, COMBATANTS.c[name].type) for name in STATE_COLUMNS))
        .render_derived(name="change", with_types=True)
    )
    changed = (
        update(COMBATANTS)
        .where(COMBATANTS.c.id == change.c.row_id, COMBATANTS.c.encounter_id == guard.c.id)
        .values({name: change.c[name] for name in STATE_COLUMNS})
        .returning(COMBATANTS.c.id)
        .cte("changed")
    )
    outcome = select(
        select(func.count()).select_from(guard).scalar_subquery().label("moved"),
        select(func.array_agg(taken.c.combatant_id)).scalar_subquery().label("taken"),
        changefeed.notified_after(guard).label("notified"),
        (literal(False) if probe is None else probe).label("recording"),
    )
    return outcome.add_cte(stored, changed)


async def _on_driver(database: Database, session: AsyncSession, write: RoundWrite) -> bool:
    statement = _round_statement(bool(write.clock), changefeed.recording_probe())
    stored = {name: orjson.dumps(write.stored[name]).decode() for name in ROUND_COLUMNS}
    states = [{"row_id": state["id"], **{name: state[name] for name in STATE_COLUMNS}} for state in write.states]
    parameters = {
        "encounter_id": write.encounter_id,
        "read_version": write.read_version,
        "read_staging": write.read_staging,
        "new_version": write.version,
        "number": write.number,
        "now": write.stored["created_at"],
        "due": write.clock.get("declarations_due_at"),
        "waiting": list(write.waiting),
        "states": orjson.dumps(states).decode(),
        **stored,
        **changefeed.announcement_parameters(write.announced),
    }
    found = await database.write_on_driver(session, statement, parameters)
    assert found is not None  # a SELECT of scalar subqueries has exactly one row
    moved, taken, _notified, recording = found
    if not moved:
        return False
    if frozenset(taken or ()) != write.taken:
        deleted = sorted(taken or ())
        raise StagedMeanwhile(f"encounter {write.encounter_id}: staged {deleted}, read {sorted(write.taken)}")
    if recording:
        await changefeed.record(session, write.announced)
    return True


# --- SQLite: the same writes, one statement each ---------------------------------------------------------


async def _in_session(session: AsyncSession, write: RoundWrite) -> bool:
    keys = {"encounter_id": write.encounter_id, "read_version": write.read_version, "read_staging": write.read_staging}
    values = {"new_version": write.version, "number": write.number, "now": write.stored["created_at"]}
    if write.clock:
        values["due"] = write.clock["declarations_due_at"]
    try:
        moved = await session.execute(_guarded_move(bool(write.clock)), {**keys, **values})
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(write.read_version) from error
        raise
    if moved.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        return False
    taken = await take_staged(session, write.encounter_id, write.waiting)
    if frozenset(row.combatant_id for row in taken) != write.taken:
        raise StagedMeanwhile(f"encounter {write.encounter_id}: staged declarations changed under the write lock")
    row = {name: write.stored[name] for name in (*ROUND_COLUMNS, "created_at")}
    await insert_round(session, encounter_id=write.encounter_id, number=write.number, changes=write.announced, **row)
    await write_round_states(session, [dict(state) for state in write.states])
    return True
