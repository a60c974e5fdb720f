"""Versions: the one a change expects to find, the one compare-and-set that moves a row to its next,
and what a change returns with the version it made.

A client's If-Match reaches a use case as an `ExpectedVersion` (app/http/etags.py reads the header); the
repository that loads the row checks it and raises `StaleVersion` (a 412), so no use case or store parses
a header. Every versioned row (an encounter, a character, a creature, a campaign) changes through
`compare_and_set`: only if it is still at the version read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import ClauseElement, Table, Update, bindparam, delete, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.platform.db import utcnow
from app.platform.errors import StaleVersion
from app.platform.transactions import StaleSnapshot, first_read_version, is_sqlite_busy

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ExpectedVersion:
    """The versions the caller accepts; `versions` None: any (no If-Match, or `*`)."""

    versions: frozenset[int] | None = None

    def check(self, current: int) -> None:
        if self.versions is not None and current not in self.versions:
            raise StaleVersion(current)


ANY_VERSION = ExpectedVersion()


@dataclass(frozen=True, slots=True)
class Versioned(Generic[T]):
    """A use case's result and the version (the ETag) its change left."""

    value: T
    version: int


@functools.cache
def _compare_and_set_of(table: Table, columns: tuple[str, ...]) -> Update:
    """The compare-and-set setting `columns`, built once per table and set of columns: a statement built per
    request costs its construction and its cache key every time (a tenth of a round's CPU)."""
    return (
        update(table)
        .where(table.c.id == bindparam("row_id"), table.c.version == bindparam("read_version"))
        .values({name: bindparam(f"new_{name}") for name in columns})
    )


async def compare_and_set(
    session: AsyncSession, table: Table, row_id: str, read_version: int, values: Mapping[str, Any], lost: Exception
) -> None:
    """The row changes (to `values`) only if it is still at the version read; else `lost` is raised. SQLite
    refusing the write lock to a stale snapshot is a StaleSnapshot (the use case runs again)."""
    if any(isinstance(value, ClauseElement) for value in values.values()):  # a column or a subquery: built now
        statement: Update = update(table).where(table.c.id == row_id, table.c.version == read_version).values(**values)
        parameters: dict[str, Any] = {}
    else:
        statement = _compare_and_set_of(table, tuple(sorted(values)))
        parameters = {f"new_{name}": value for name, value in values.items()}
        parameters |= {"row_id": row_id, "read_version": read_version}
    try:
        result = await session.execute(statement, parameters)
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(read_version) from error
        raise
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise lost


async def delete_at_version(
    session: AsyncSession, table: Table, row_id: str, read_version: int, lost: Exception
) -> None:
    """Delete the row only if it is still at the version read; else `lost` is raised (as `compare_and_set`)."""
    try:
        result = await session.execute(delete(table).where(table.c.id == row_id, table.c.version == read_version))
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(read_version) from error
        raise
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise lost


async def next_version(
    session: AsyncSession,
    table: Table,
    row_id: str,
    read_version: int,
    changed_meanwhile: Callable[[], Exception],
    **changes: Any,
) -> int:
    """Move the row to its next version (with `changes`, and `updated_at` now unless given) if it is still
    the one read; else `changed_meanwhile()` (a 409). The new version."""
    first_read = first_read_version.get()
    if first_read is not None and first_read != read_version:
        raise changed_meanwhile()  # a retry after a stale snapshot found the row itself changed
    values = {"version": read_version + 1, "updated_at": changes.pop("updated_at", None) or utcnow(), **changes}
    await compare_and_set(session, table, row_id, read_version, values, changed_meanwhile())
    return read_version + 1
