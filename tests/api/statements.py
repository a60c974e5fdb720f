"""What a request costs the database: every statement the app's engine sends, in order, transaction
control included.

SQLAlchemy's `before_cursor_execute` sees every statement but not BEGIN and COMMIT on PostgreSQL, which
asyncpg sends itself; those come from the engine's `begin`/`commit`/`rollback` events, counted only for a
connection that really opened a transaction (an AUTOCOMMIT one opens none). On SQLite, app/db.py sends
BEGIN as a statement, so that is what opens one there. A hot read on PostgreSQL runs on the driver's own
connection (Database.read), and so does a round's one statement (Database.write_on_driver), which
SQLAlchemy's events do not see: asyncpg's `Connection.fetch` and `fetchrow` are watched for them
(SQLAlchemy's own execution goes through prepared statements, never through those methods).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import asyncpg
from fastapi import FastAPI
from sqlalchemy import event

_TABLE = r'"?(\w+)"?'
_SHAPES = (  # (pattern on the statement, label): the first that matches names it
    (re.compile(rf"^insert into {_TABLE}"), "insert {}"),
    (re.compile(rf"^update {_TABLE}"), "update {}"),
    (re.compile(rf"^delete from {_TABLE}"), "delete {}"),
    (re.compile(r"^select (\(select )?(count\()?pg_notify\b"), "notify"),  # a statement of its own
    (re.compile(rf"^select .*? from {_TABLE}"), "select {}"),
)


_WRITING_CTE = re.compile(rf"\b\w+ as \((insert into|update|delete from) {_TABLE}")


def label(statement: str, executemany: bool = False) -> str:
    """A statement as the tests pin it: its verb and table ("update combatants"), "+ notify" when it
    also sends notifications, "×many" for one statement run over many rows (executemany). A statement whose
    WITH clause writes is named by those writes, in order ("with update encounters, insert rounds")."""
    text = " ".join(statement.split()).lower()
    if text in ("begin", "commit", "rollback"):
        return text.upper()
    writes = _WRITING_CTE.findall(text) if text.startswith("with ") else []
    if writes:
        named = ", ".join(f"{verb.split()[0]} {table}" for verb, table in writes)
        return f"with {named}" + (" + notify" if "pg_notify" in text else "")
    for pattern, shape in _SHAPES:
        found = pattern.search(text)
        if found:
            name = shape.format(*found.groups())
            break
    else:
        name = text[:60]
    if name != "notify" and "pg_notify" in text:
        name += " + notify"
    return name + (" ×many" if executemany else "")


@contextmanager
def statements_sent(app: FastAPI) -> Iterator[list[str]]:
    """The labels of every statement the app's engine sends meanwhile, transaction control included."""
    engine = app.state.database.engine.sync_engine
    postgres = engine.dialect.name == "postgresql"
    sent: list[str] = []
    open_transactions: set[int] = set()  # connections in a transaction the database knows of

    def on_statement(connection: Any, _cursor: Any, statement: str, _params: Any, _context: Any, many: bool) -> None:
        sent.append(label(statement, many))
        if sent[-1] == "BEGIN":
            open_transactions.add(id(connection))

    def on_begin(connection: Any) -> None:
        if postgres and connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
            sent.append("BEGIN")
            open_transactions.add(id(connection))

    def ended(word: str) -> Any:
        def on_end(connection: Any) -> None:
            if id(connection) in open_transactions:
                open_transactions.discard(id(connection))
                sent.append(word)

        return on_end

    listeners = [
        ("before_cursor_execute", on_statement),
        ("begin", on_begin),
        ("commit", ended("COMMIT")),
        ("rollback", ended("ROLLBACK")),
    ]
    driver_fetch, driver_fetchrow = asyncpg.Connection.fetch, asyncpg.Connection.fetchrow

    async def fetch(connection: asyncpg.Connection, query: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(label(query))
        return await driver_fetch(connection, query, *args, **kwargs)

    async def fetchrow(connection: asyncpg.Connection, query: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(label(query))
        return await driver_fetchrow(connection, query, *args, **kwargs)

    for name, listener in listeners:
        event.listen(engine, name, listener)
    asyncpg.Connection.fetch = fetch  # type: ignore[method-assign]
    asyncpg.Connection.fetchrow = fetchrow  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        asyncpg.Connection.fetch = driver_fetch  # type: ignore[method-assign]
        asyncpg.Connection.fetchrow = driver_fetchrow  # type: ignore[method-assign]
        for name, listener in listeners:
            event.remove(engine, name, listener)
