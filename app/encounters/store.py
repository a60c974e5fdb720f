"""Every statement on the encounter aggregate's tables (encounters, combatants, staged declarations, rounds).

One way to load an encounter (`read` outside a transaction, `load` inside one: the same statement, one
frozen record) and one guarded version update (`bump_version`, and `hold_version` which takes the row
without moving the version). Two requests that read the same version cannot both write: the loser gets a
409 and re-reads. The rounds' unique (encounter, number) constraint is the backstop behind it.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ClauseElement, ColumnElement, Row, Update, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import convert
from app.encounters.convert import EncounterRecord
from app.encounters.tables import COMBATANTS, ENCOUNTERS, ROUNDS, STAGED
from app.http.etags import check_if_match
from app.platform.changefeed import Change, write_and_announce
from app.platform.db import Database, utcnow
from app.platform.errors import NotFound
from app.platform.transactions import StaleSnapshot, changed_meanwhile, first_read_version, is_sqlite_busy

# The encounter's columns (labelled encounter__<name>) on each of its combatants' rows, in one
# statement: a consistent snapshot without a transaction, in one round trip.
ENCOUNTER_WITH_COMBATANTS = (
    select(*(column.label(f"encounter__{column.name}") for column in ENCOUNTERS.c), COMBATANTS)
    .outerjoin(COMBATANTS, COMBATANTS.c.encounter_id == ENCOUNTERS.c.id)
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)
_COMBATANTS_AT = len(ENCOUNTERS.c)  # where a row's combatant columns start
_COMBATANT_ID_AT = _COMBATANTS_AT + convert.COMBATANT_COLUMNS.index("id")  # None: an encounter without combatants


def _record(rows: Sequence[Any], encounter_id: str) -> EncounterRecord:
    """The record read by ENCOUNTER_WITH_COMBATANTS; 404 when there were no rows. By position: the
    statement selects the encounter's columns, then the combatant's (a read's hot loop: a name lookup
    per column and row cost a tenth of a GET)."""
    if not rows:
        raise NotFound(f"There is no encounter {encounter_id}.")
    encounter = dict(zip(ENCOUNTERS.c.keys(), rows[0][:_COMBATANTS_AT]))
    combatants = tuple(
        convert.combatant_from_columns(row[_COMBATANTS_AT:]) for row in rows if row[_COMBATANT_ID_AT] is not None
    )
    return EncounterRecord(**{name: encounter[name] for name in convert.ENCOUNTER_COLUMNS}, combatants=combatants)


async def read(
    database: Database, *, campaign_id: str, encounter_id: str, if_match: str | None = None
) -> EncounterRecord:
    """Outside a transaction: one autocommitted statement (a consistent snapshot by itself). A change may
    read this way before its transaction: its `bump_version` then proves nothing changed since."""
    rows = await database.read(ENCOUNTER_WITH_COMBATANTS, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    encounter = _record(rows, encounter_id)
    check_if_match(if_match, encounter.version)
    return encounter


async def load(
    session: AsyncSession, *, campaign_id: str, encounter_id: str, if_match: str | None = None
) -> EncounterRecord:
    """Inside the service's transaction: the campaign's encounter, or 404 (another campaign's encounter
    does not exist for this caller); 412 if the caller's If-Match is no longer its ETag."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    encounter = _record((await session.execute(ENCOUNTER_WITH_COMBATANTS, keys)).all(), encounter_id)
    check_if_match(if_match, encounter.version)
    return encounter


@functools.cache
def _guarded_update_of(columns: tuple[str, ...]) -> Update:
    """The compare-and-set setting `columns`, built once per set of columns: a statement built per request
    costs its construction and its cache key every time (a tenth of a round's CPU)."""
    return (
        update(ENCOUNTERS)
        .where(ENCOUNTERS.c.id == bindparam("row_id"), ENCOUNTERS.c.version == bindparam("read_version"))
        .values({name: bindparam(f"new_{name}") for name in columns})
    )


async def _guarded_update(
    session: AsyncSession, encounter_id: str, read_version: int, values: Mapping[str, Any], lost: Exception
) -> None:
    """The compare-and-set: the encounter's row changes only if it is still at the version read."""
    if any(isinstance(value, ClauseElement) for value in values.values()):  # a column or a subquery: built now
        statement: Update = (
            update(ENCOUNTERS)
            .where(ENCOUNTERS.c.id == encounter_id, ENCOUNTERS.c.version == read_version)
            .values(**values)
        )
        parameters: dict[str, Any] = {}
    else:
        statement = _guarded_update_of(tuple(sorted(values)))
        parameters = {f"new_{name}": value for name, value in values.items()}
        parameters |= {"row_id": encounter_id, "read_version": read_version}
    try:
        result = await session.execute(statement, parameters)
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(read_version) from error
        raise
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise lost


async def bump_version(session: AsyncSession, encounter_id: str, read_version: int, **changes: Any) -> int:
    """Move the encounter to its next version (with `changes`) if it is still the one read; else 409."""
    first_read = first_read_version.get()
    if first_read is not None and first_read != read_version:
        raise changed_meanwhile()  # a retry after a stale snapshot found the encounter itself changed
    values = {"version": read_version + 1, "updated_at": changes.pop("updated_at", None) or utcnow(), **changes}
    await _guarded_update(session, encounter_id, read_version, values, changed_meanwhile())
    return read_version + 1


async def hold_version(session: AsyncSession, encounter_id: str, read_version: int) -> None:
    """Take the encounter's row without changing it (staging: its version stays) if it is still at the
    version read; else re-run the use case against the new state."""
    unchanged = {"version": ENCOUNTERS.c.version, "updated_at": ENCOUNTERS.c.updated_at}  # not onupdate's now()
    await _guarded_update(session, encounter_id, read_version, unchanged, StaleSnapshot(read_version))


# --- encounters -------------------------------------------------------------------------------------


async def insert_encounter(session: AsyncSession, encounter: EncounterRecord) -> None:
    """The encounter's row (and its combatants, if the record has any)."""
    columns = {name: getattr(encounter, name) for name in convert.ENCOUNTER_COLUMNS}
    await session.execute(insert(ENCOUNTERS).values(**columns))
    await insert_combatants(session, encounter.id, encounter.combatants)


async def insert_combatants(session: AsyncSession, encounter_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """One executemany."""
    if rows:
        await session.execute(insert(COMBATANTS), [convert.combatant_columns(row) for row in rows])


async def list_encounters(
    session: AsyncSession, *, campaign_id: str, limit: int, offset: int
) -> tuple[list[Row[Any]], int]:
    mine = ENCOUNTERS.c.campaign_id == campaign_id
    total = await session.scalar(select(func.count()).select_from(ENCOUNTERS).where(mine))
    rows = await session.execute(
        select(ENCOUNTERS)
        .where(mine)
        .order_by(ENCOUNTERS.c.created_at.desc(), ENCOUNTERS.c.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return list(rows), total or 0


async def set_finish_state(session: AsyncSession, encounter_id: str, finish_state: dict[str, Any] | None) -> None:
    """What reopen needs (or None), written after the version's update has taken the row."""
    await session.execute(update(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id).values(finish_state=finish_state))


async def delete_encounter(session: AsyncSession, encounter_id: str) -> None:
    await session.execute(delete(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id))  # the rest cascades


# --- combatants -------------------------------------------------------------------------------------


async def update_combatant(session: AsyncSession, combatant_id: str, values: Mapping[str, Any]) -> None:
    await session.execute(
        update(COMBATANTS).where(COMBATANTS.c.id == combatant_id).values(**convert.combatant_columns(values))
    )


async def delete_combatant(session: AsyncSession, combatant_id: str) -> None:
    await session.execute(delete(COMBATANTS).where(COMBATANTS.c.id == combatant_id))


async def drop_long_actions(session: AsyncSession, combatant_ids: Collection[str]) -> None:
    await session.execute(update(COMBATANTS).where(COMBATANTS.c.id.in_(combatant_ids)).values(long_action=None))


async def write_effects(session: AsyncSession, combatant_id: str, effects: list[dict[str, Any]]) -> None:
    await session.execute(update(COMBATANTS).where(COMBATANTS.c.id == combatant_id).values(effects=effects))


UPDATE_STATE = (
    update(COMBATANTS)
    .where(COMBATANTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in (*convert.ROUND_CHANGES, "hidden")})
)


async def write_round_states(session: AsyncSession, changes: list[dict[str, Any]]) -> None:
    """What a round changed on each combatant: one executemany by primary key."""
    if changes:
        await session.execute(UPDATE_STATE, [{"row_id": change.pop("id"), **change} for change in changes])


RESTORE_ROW = (
    update(COMBATANTS)
    .where(COMBATANTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in COMBATANTS.c.keys() if name not in ("id", "encounter_id")})
)


def _restored_columns(row: dict[str, Any]) -> dict[str, Any]:
    """RESTORE_ROW's parameters: the row's columns but its id, which names the row to update."""
    return {name: value for name, value in convert.combatant_columns(row).items() if name != "id"} | {
        "row_id": row["id"]
    }


async def restore_combatants(
    session: AsyncSession, encounter: EncounterRecord, saved: Iterable[dict[str, Any]]
) -> None:
    """The combatants as the snapshot has them, each in its own row: the rows of those there throughout are
    updated in place (same ids, same positions), those added since are deleted, those removed since come back."""
    now_there = {row["id"] for row in encounter.combatants}
    rows = [convert.restored(c) for c in saved]
    added_since = now_there - {row["id"] for row in rows}
    if added_since:
        await session.execute(delete(COMBATANTS).where(COMBATANTS.c.id.in_(added_since)))
    kept = [row for row in rows if row["id"] in now_there]
    if kept:
        await session.execute(RESTORE_ROW, [_restored_columns(row) for row in kept])
    removed_since = [
        {**convert.combatant_columns(row), "encounter_id": encounter.id} for row in rows if row["id"] not in now_there
    ]
    if removed_since:
        await session.execute(insert(COMBATANTS), removed_since)


# --- staged declarations ----------------------------------------------------------------------------


async def stage(
    session: AsyncSession,
    *,
    encounter_id: str,
    combatant_id: str,
    declaration: dict[str, Any],
    dice: dict[str, Any],
    staged_at: datetime,
    announced: Change,
) -> bool:
    """Stage (or replace) one declaration, announcing it; True when none was staged before."""
    replaced = await session.execute(delete(STAGED).where(STAGED.c.combatant_id == combatant_id))
    row = insert(STAGED).values(
        combatant_id=combatant_id, encounter_id=encounter_id, declaration=declaration, dice=dice, staged_at=staged_at
    )
    await write_and_announce(session, row, announced)
    return not replaced.rowcount  # type: ignore[attr-defined]


async def withdraw(session: AsyncSession, *, encounter_id: str, combatant_id: str) -> bool:
    """Withdraw one staged declaration; False when none was staged."""
    removed = await session.execute(
        delete(STAGED).where(STAGED.c.combatant_id == combatant_id, STAGED.c.encounter_id == encounter_id)
    )
    return bool(removed.rowcount)  # type: ignore[attr-defined]


TAKE_STAGED = (
    delete(STAGED)
    .where(STAGED.c.encounter_id == bindparam("encounter_id"))
    .returning(STAGED.c.combatant_id, STAGED.c.declaration, STAGED.c.dice)
)


async def take_staged(session: AsyncSession, encounter_id: str) -> Sequence[Any]:
    """Every staged declaration of the encounter, deleted and returned (combatant_id, declaration, dice)."""
    return (await session.execute(TAKE_STAGED, {"encounter_id": encounter_id})).all()


async def clear_staged(session: AsyncSession, where: ColumnElement[bool]) -> list[str]:
    """Withdraw the staged declarations `where` selects; the combatants they were for."""
    withdrawn = await session.execute(delete(STAGED).where(where).returning(STAGED.c.combatant_id))
    return list(withdrawn.scalars())


def staged_of_encounter(encounter_id: str) -> ColumnElement[bool]:
    return STAGED.c.encounter_id == encounter_id


def staged_of_combatant(combatant_id: str) -> ColumnElement[bool]:
    return STAGED.c.combatant_id == combatant_id


# The encounter's round beside each of its staged declarations, in combatant order, in one statement (one
# snapshot); the outer join keeps the encounter's row when nothing is staged.
STAGED_WITH_ROUND = (
    select(
        ENCOUNTERS.c.round,
        STAGED.c.combatant_id,
        STAGED.c.declaration,
        STAGED.c.dice,
        STAGED.c.staged_at,
        COMBATANTS.c.hidden,
    )
    .select_from(
        ENCOUNTERS.outerjoin(
            STAGED.join(COMBATANTS, COMBATANTS.c.id == STAGED.c.combatant_id),
            STAGED.c.encounter_id == ENCOUNTERS.c.id,
        )
    )
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)


async def list_staged(database: Database, *, campaign_id: str, encounter_id: str) -> Sequence[Any]:
    """The encounter's round beside each staged declaration; no rows: no such encounter."""
    return await database.rows(STAGED_WITH_ROUND, {"encounter_id": encounter_id, "campaign_id": campaign_id})


# --- rounds -----------------------------------------------------------------------------------------


INSERT_ROUND = insert(ROUNDS)


async def insert_round(
    session: AsyncSession, *, encounter_id: str, number: int, changes: Sequence[Change], **columns: Any
) -> None:
    """Store a round (request, document, state_before, state_after) and announce `changes` with it."""
    values = {"encounter_id": encounter_id, "number": number, "created_at": utcnow(), **columns}
    await write_and_announce(session, INSERT_ROUND, *changes, parameters=values)  # delivered at commit


async def first_snapshot(session: AsyncSession, encounter_id: str) -> dict[str, Any] | None:
    """Round 1's state_before (the fight as it started), or None before the first round."""
    state: dict[str, Any] | None = await session.scalar(
        select(ROUNDS.c.state_before).where(_this_round(encounter_id, 1))
    )
    return state


def _this_round(encounter_id: str, number: int) -> ColumnElement[bool]:
    return (ROUNDS.c.encounter_id == encounter_id) & (ROUNDS.c.number == number)


def next_position_before(encounter_id: str, number: int) -> Any:
    """The encounter's next position as round `number`'s snapshot has it, for the version update to read."""
    this_round = _this_round(encounter_id, number)
    return select(ROUNDS.c.state_before["next_position"].as_integer()).where(this_round).scalar_subquery()


async def delete_round(
    session: AsyncSession, encounter_id: str, number: int, changes: Sequence[Change]
) -> dict[str, Any]:
    """Delete a round, announcing `changes`; its state_before."""
    undone = delete(ROUNDS).where(_this_round(encounter_id, number)).returning(ROUNDS.c.state_before)
    state_before: dict[str, Any] = (await write_and_announce(session, undone, *changes)).one().state_before
    return state_before


ROUND_WITH_VERSION = (
    select(ROUNDS.c.document, ENCOUNTERS.c.version)
    .join(ENCOUNTERS, ENCOUNTERS.c.id == ROUNDS.c.encounter_id)
    .where(
        ROUNDS.c.encounter_id == bindparam("encounter_id"),
        ROUNDS.c.number == bindparam("number"),
        ENCOUNTERS.c.campaign_id == bindparam("campaign_id"),
    )
)
# A page of the history with the encounter's version and the number of rounds, in one statement: the
# count is a window over every round (it is computed before LIMIT), the outer join keeps the encounter's
# row when it has no rounds yet.
ROUND_PAGE = (
    select(ENCOUNTERS.c.version, ROUNDS.c.document, func.count(ROUNDS.c.number).over().label("total"))
    .select_from(ENCOUNTERS.outerjoin(ROUNDS, ROUNDS.c.encounter_id == ENCOUNTERS.c.id))
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(ROUNDS.c.number)
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
# The version and the number of rounds; no row: no such encounter (for this campaign).
ROUND_COUNT = select(
    ENCOUNTERS.c.version,
    select(func.count()).where(ROUNDS.c.encounter_id == ENCOUNTERS.c.id).scalar_subquery().label("total"),
).where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))


async def round_page(
    database: Database, *, campaign_id: str, encounter_id: str, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int, int]:
    """Oldest first (a history reads forward): the page's documents, the number of rounds, the version."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    rows = await database.rows(ROUND_PAGE, {**keys, "limit": limit, "offset": offset})
    if not rows:  # past the last round, or no such encounter
        rows = await database.rows(ROUND_COUNT, keys)
        if not rows:
            raise NotFound(f"There is no encounter {encounter_id}.")
        return [], rows[0].total, rows[0].version
    return [row.document for row in rows if row.document is not None], rows[0].total, rows[0].version


async def round_document(
    database: Database, *, campaign_id: str, encounter_id: str, number: int
) -> tuple[dict[str, Any], int]:
    """One stored round's document and its encounter's version, in one statement."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    found = await database.read(ROUND_WITH_VERSION, {**keys, "number": number})
    if found:
        document, version = found[0]
        return document, version
    if not await database.rows(ROUND_COUNT, keys):
        raise NotFound(f"There is no encounter {encounter_id}.")
    raise NotFound(f"Encounter {encounter_id} has no round {number}.")


HIDDEN = select(COMBATANTS.c.id).where(COMBATANTS.c.encounter_id == bindparam("encounter_id"), COMBATANTS.c.hidden)


async def hidden_ids(database: Database, encounter_id: str) -> frozenset[str]:
    """The encounter's hidden combatants now (a token's reads and streams screen them out)."""
    return frozenset(row.id for row in await database.rows(HIDDEN, {"encounter_id": encounter_id}))


# --- the stream's reads (no campaign: the subscription was checked when it began) -------------------

VERSION = select(ENCOUNTERS.c.version).where(ENCOUNTERS.c.id == bindparam("encounter_id"))
OWNED_VERSION = VERSION.where(ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
STREAMED_ROUND = select(ROUNDS.c.document).where(
    ROUNDS.c.encounter_id == bindparam("encounter_id"), ROUNDS.c.number == bindparam("number")
)


async def owned_version(database: Database, *, campaign_id: str, encounter_id: str) -> int | None:
    """The encounter's version, or None when the campaign has no such encounter."""
    rows = await database.rows(OWNED_VERSION, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    return rows[0].version if rows else None


async def version(database: Database, encounter_id: str) -> int | None:
    rows = await database.rows(VERSION, {"encounter_id": encounter_id})
    return rows[0].version if rows else None


async def streamed_round(database: Database, encounter_id: str, number: int) -> dict[str, Any] | None:
    rows = await database.rows(STREAMED_ROUND, {"encounter_id": encounter_id, "number": number})
    return rows[0].document if rows else None
