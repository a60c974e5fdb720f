"""Engine, declarative Base with a naming convention, and the session dependency."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson
import psycopg
from psycopg.rows import namedtuple_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from sqlalchemy import JSON, DateTime, Engine, Executable, MetaData, Row, TypeDecorator, create_engine, event, make_url
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Compiled
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.config import Settings
from app.problems import ServiceUnavailable

log = logging.getLogger(__name__)
PSYCOPG = postgresql.psycopg.dialect()
CONNECTION = {  # psycopg's connection settings for AutocommitDatabase
    "autocommit": True,
    "row_factory": namedtuple_row,
    "connect_timeout": 5,
}

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


class AutocommitDatabase:
    """Single statements, each its own transaction, as cheaply as each database allows: the one
    every authenticated request runs (count it, find its key) and the reads of one statement
    (`GET` an encounter, its history, a round). One statement sees one snapshot: no transaction needed.

    PostgreSQL: psycopg's own async pool, on the event loop: one round trip, no thread hop, and none
    of SQLAlchemy's per-execution work (0.29 ms of CPU per statement through its async engine against
    0.13 ms for psycopg alone: bench/statement_bench.py). The SQL is still SQLAlchemy Core, compiled
    once per statement for psycopg's dialect; rows come back as named tuples (columns as attributes).
    SQLite (or before open()): the ordinary engine in a worker thread (a local file has no round
    trips to save).
    """

    def __init__(self, settings: Settings, engine: Engine):
        self._engine = engine
        self._max_size = settings.db_pool_size + settings.db_max_overflow
        self._conninfo = (
            None
            if settings.is_sqlite
            else make_url(settings.database_url).set(drivername="postgresql").render_as_string(hide_password=False)
        )
        self._pool: AsyncConnectionPool | None = None
        self._failed = False  # a statement failed for want of the database: connect directly until one works

    async def open(self) -> None:
        if self._conninfo is not None:
            self._pool = self._new_pool()
            await self._pool.open()  # connects in the background

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()

    def _new_pool(self) -> AsyncConnectionPool:
        # min_size 1: connections are opened as needed, as SQLAlchemy's are, and closed after 10 idle minutes.
        return AsyncConnectionPool(self._conninfo, min_size=1, max_size=self._max_size, kwargs=CONNECTION, open=False)

    async def rows(self, statement: Executable, parameters: dict[str, Any]) -> Sequence[Any]:
        if self._pool is None:
            return await run_in_threadpool(self._rows_in_thread, statement, parameters)
        compiled = _compiled_for_psycopg(statement)
        query = (compiled.string, compiled.construct_params(parameters))
        if self._failed:
            return await self._rows_recovering(*query)
        try:
            async with self._pool.connection() as connection:
                return await (await connection.execute(*query)).fetchall()
        except (psycopg.OperationalError, PoolTimeout) as error:
            self._failed = True
            raise _unavailable(error) from error

    async def _rows_recovering(self, sql: str, parameters: dict[str, Any]) -> Sequence[Any]:
        """After a failure, one fresh connection per statement until the database answers, then a fresh
        pool. The old pool's connections may all be dead, and a pool retries with growing delays while
        requests wait for it: a direct attempt fails at once during an outage and works at once after it."""
        try:
            async with await psycopg.AsyncConnection.connect(self._conninfo, **CONNECTION) as connection:
                found = await (await connection.execute(sql, parameters)).fetchall()
        except psycopg.OperationalError as error:
            raise _unavailable(error) from error
        if self._failed:  # the first request to get through replaces the pool
            self._failed = False
            old, self._pool = self._pool, self._new_pool()
            await self._pool.open()
            await old.close(timeout=1)
        return found

    def _rows_in_thread(self, statement: Executable, parameters: dict[str, Any]) -> Sequence[Row]:
        with self._engine.begin() as connection:
            return connection.execute(statement, parameters).all()


@lru_cache(maxsize=64)  # by identity: the statements are module constants, compiled once each
def _compiled_for_psycopg(statement: Executable) -> Compiled:
    return statement.compile(dialect=PSYCOPG)


def _unavailable(error: Exception) -> ServiceUnavailable:
    log.warning("database unavailable: %s", error)
    return ServiceUnavailable("The database did not answer. Nothing was changed; retry shortly.")


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
