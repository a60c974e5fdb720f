"""Engine, declarative Base with a naming convention, and the session dependency."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

import orjson
from fastapi import Depends, Request
from sqlalchemy import JSON, DateTime, Engine, Executable, MetaData, Row, TypeDecorator, create_engine, event
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.config import Settings

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSON everywhere, JSONB on PostgreSQL.
JSONDocument = JSON().with_variant(JSONB(), "postgresql")


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes everywhere: SQLite hands back naive ones, stored as UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    """SQLite as a real transactional store.

    pysqlite's own transaction handling only BEGINs before DML, so SELECTs would run outside
    the transaction; we turn it off and emit BEGIN ourselves (SQLAlchemy's documented recipe).
    WAL lets readers go on while one writer commits; a writer whose snapshot went stale gets
    SQLITE_BUSY, which the service reports as a 409 conflict.
    """

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")  # an acknowledged round survives a crash
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        connection.exec_driver_sql("BEGIN")


def _json_text(value) -> str:
    return orjson.dumps(value).decode()  # the documents of a round are large: orjson, as for responses


def _use_orjson_for_jsonb() -> None:
    """psycopg decodes JSON(B) columns with the standard library's json; orjson is several times faster."""
    from psycopg.types.json import set_json_loads

    set_json_loads(orjson.loads)


def make_engine(settings: Settings) -> Engine:
    url = settings.database_url
    if settings.is_sqlite:
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False}, json_serializer=_json_text)
        _configure_sqlite(engine, settings.sqlite_busy_timeout_ms)
        return engine
    _use_orjson_for_jsonb()
    return create_engine(
        url,
        json_serializer=_json_text,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        # No pool_pre_ping: it costs a round trip on every checkout. After an outage the first error
        # invalidates the whole pool (SQLAlchemy's default), so one request gets a 503, not all.
        pool_recycle=3600,
    )


def make_async_engine(settings: Settings) -> AsyncEngine | None:
    """PostgreSQL: an async, autocommit engine for single statements run on the event loop, without a
    hop to the thread pool: the one every request runs (count it, look its key up) and the reads of
    ReadOnlyDatabase. SQLite: none."""
    if settings.is_sqlite:
        return None
    return create_async_engine(
        settings.database_url,
        isolation_level="AUTOCOMMIT",
        # A rate-limit count need not wait for its WAL flush: a crash may forget the last few
        # hundred milliseconds of counts, never a round (the main engine keeps synchronous commit).
        connect_args={"options": "-c synchronous_commit=off"},
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        pool_recycle=3600,  # no pre-ping, as for the main engine
    )


class ReadOnlyDatabase:
    """Reads that are one statement each, as cheaply as each database allows.

    PostgreSQL: on the event loop, on the async autocommit engine: one round trip (no BEGIN and
    COMMIT around it) and no thread hop. One statement sees one snapshot, so nothing is lost by
    leaving the transaction out. SQLite: the ordinary engine in a worker thread (a local file has
    no round trips to save).
    """

    def __init__(self, engine: Engine, async_engine: AsyncEngine | None):
        self._engine = engine
        self._async_engine = async_engine

    async def rows(self, statement: Executable, parameters: dict[str, Any]) -> Sequence[Row]:
        if self._async_engine is not None:
            async with self._async_engine.connect() as connection:
                return (await connection.execute(statement, parameters)).all()
        return await run_in_threadpool(self._rows_in_thread, statement, parameters)

    def _rows_in_thread(self, statement: Executable, parameters: dict[str, Any]) -> Sequence[Row]:
        with self._engine.begin() as connection:
            return connection.execute(statement, parameters).all()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


async def get_session(request: Request) -> AsyncIterator[Session]:
    """One session per request, from the factory create_app put on app.state.

    Services open and commit the transaction; nothing commits after the yield. Async although
    the session is not: making one does no I/O, and a sync dependency would cost a thread hop.
    """
    session = request.app.state.sessions()
    try:
        yield session
    finally:
        session.close()  # services end their transactions, so this only drops the session


SessionDep = Annotated[Session, Depends(get_session)]
