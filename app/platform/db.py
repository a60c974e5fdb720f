"""The database for the whole service: one async engine (one pool) per worker, on the event loop.

PostgreSQL through asyncpg (bench/README.md, "Driver stack"), SQLite through aiosqlite; the same
SQLAlchemy Core/ORM statements run on both. Services open one transaction each from `Database.sessions`;
single statements use `Database.rows`, autocommitted (one statement sees one snapshot, and commits alone).
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import asyncpg  # type: ignore[import-untyped]  # no stubs upstream
import orjson
from sqlalchemy import JSON, DateTime, Dialect, Executable, MetaData, Row, Select, TypeDecorator, event, make_url, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import Session, SessionTransaction
from sqlalchemy.pool import QueuePool

from app.config import Settings
from app.platform.errors import ServiceUnavailable, lost_race

POSTGRES_DRIVER = "asyncpg"
# SQLite: an execution option for connections that run one statement each, which SQLite makes atomic by
# itself; the begin hook below sends no BEGIN for them (and so no ROLLBACK at their release).
SINGLE_STATEMENT = "single_statement"
# SQLite: an execution option for a connection whose transactions write: BEGIN IMMEDIATE takes the write lock
# at once (waiting up to the busy timeout), so the transaction never fails later on a stale snapshot.
IMMEDIATE = "begin_immediate"
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSON everywhere, JSONB on PostgreSQL.
JSONDocument = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes everywhere: SQLite hands back naive ones, stored as UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value


# Every table of the service, declared as Core tables in each package's tables.py.
metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _json_text(value: Any) -> str:
    return orjson.dumps(value).decode()  # the documents of a round are large: orjson, as for responses


def async_url(database_url: str) -> str:
    """The URL with the async driver: any postgresql URL uses POSTGRES_DRIVER, SQLite uses aiosqlite."""
    url = make_url(database_url)
    driver = "sqlite+aiosqlite" if url.get_backend_name() == "sqlite" else f"postgresql+{POSTGRES_DRIVER}"
    return url.set(drivername=driver).render_as_string(hide_password=False)


def sync_url(database_url: str) -> str:
    """For Alembic and the tests' housekeeping: pysqlite or psycopg."""
    url = make_url(database_url)
    driver = "sqlite" if url.get_backend_name() == "sqlite" else "postgresql+psycopg"
    return url.set(drivername=driver).render_as_string(hide_password=False)


def _configure_sqlite(engine: AsyncEngine, busy_timeout_ms: int) -> None:
    """SQLite as a real transactional store (SQLAlchemy's documented recipe for aiosqlite).

    The driver's own transaction handling only BEGINs before DML, so SELECTs would run outside the
    transaction; we turn it off and emit BEGIN ourselves. WAL lets readers go on while one writer
    commits; a writer whose snapshot went stale gets SQLITE_BUSY (app/platform/transactions.py retries it).
    """

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")  # an acknowledged round survives a crash
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        options = connection.get_execution_options()
        if not options.get(SINGLE_STATEMENT):
            connection.exec_driver_sql("BEGIN IMMEDIATE" if options.get(IMMEDIATE) else "BEGIN")


# --- one writer at a time per SQLite file --------------------------------------------------------------
#
# SQLite has one write lock per file. Left to itself, a writer that finds it taken sleeps and polls in its
# driver thread (the busy handler: 1, 2, 5 ... 100 ms naps), so under a stream of rounds another campaign's
# write waits long and unfairly, and gives up with "database is locked" after the busy timeout. Within one
# process we queue writers instead: the first write statement of a transaction waits for this file's gate
# (FIFO, woken the moment the previous writer's transaction ends), and holds it until its transaction ends.
# Reads never wait for it (WAL). The gate is taken at the first *write*, not at BEGIN, so a use case that
# reads, then writes keeps the optimistic compare-and-set it was written for (two requests from the same
# state: one 409); such a transaction may find its snapshot stale when it writes (another writer committed
# since it read), and app/platform/transactions.py re-runs it. Other processes (workers, combat-admin)
# still meet at SQLite's own lock, with the busy timeout. Everything that writes to the service's database
# in this process (use cases, the background jobs' own engines) goes through `writer_gate`.

HELD_GATE = "writer_gate"
# Set while a use case re-runs after its snapshot went stale (app/platform/transactions.py): its sessions then
# take the gate and SQLite's write lock at their first statement, read or write, so the re-run cannot go stale
# again. Optimistic first, pessimistic after: under a steady stream of writes, an optimistic re-run could
# lose the race every time.
lock_at_first_statement: ContextVar[bool] = ContextVar("lock_at_first_statement", default=False)
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, WriterGate]] = weakref.WeakKeyDictionary()
_busy_timeouts: dict[str, float] = {}  # seconds, by file, from the engine's settings


class WriterGate:
    """The queue of this process's writers to one SQLite file."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[Any] | None = None

    async def acquire(self) -> None:
        holder = self._holder
        if holder is not None and holder.done() and self._lock.locked():
            self.release()  # its task died without ending its transaction: the gate must not stay shut
        try:
            async with asyncio.timeout(self.timeout):
                await self._lock.acquire()
        except TimeoutError:
            raise ServiceUnavailable("The database was busy with other writes for too long.") from None
        self._holder = asyncio.current_task()

    def held_by_this_task(self) -> bool:
        return self._holder is not None and self._holder is asyncio.current_task()

    def release(self) -> None:
        self._holder = None
        if self._lock.locked():
            self._lock.release()

    @asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        await self.acquire()
        try:
            yield
        finally:
            self.release()


def _file_key(url: Any) -> str:
    database = url.database or ""
    return os.path.realpath(database) if database and database != ":memory:" else f"memory:{database}"


def writer_gate(engine: AsyncEngine | None) -> WriterGate | None:
    """This process's gate for the engine's SQLite file (every engine on the same file shares it, on the
    running event loop); None on PostgreSQL, whose writers lock rows, not the database."""
    if engine is None or engine.dialect.name != "sqlite":
        return None
    key = _file_key(engine.url)
    gates = _gates.setdefault(asyncio.get_running_loop(), {})
    gate = gates.get(key)
    if gate is None:
        gate = gates[key] = WriterGate(_busy_timeouts.get(key, 5.0))
    return gate


def _writes(statement: Any) -> bool:
    return bool(getattr(statement, "is_dml", False))


class _GatedSyncSession(Session):
    pass


@event.listens_for(_GatedSyncSession, "after_transaction_end")
def _let_next_writer_in(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:
        gate = session.info.pop(HELD_GATE, None)
        if gate is not None:
            gate.release()


class GatedSession(AsyncSession):
    """A session whose first write statement waits for the file's writer gate (SQLite only), held until its
    transaction ends (commit, rollback or close)."""

    sync_session_class = _GatedSyncSession

    async def _enter_gate(self, statement: Any) -> None:
        if HELD_GATE in self.info:
            return
        locking_first = lock_at_first_statement.get()
        if not (locking_first or _writes(statement)):
            return
        gate = writer_gate(self.bind if isinstance(self.bind, AsyncEngine) else None)
        if gate is None or (not _writes(statement) and gate.held_by_this_task()):
            return  # a read beside this task's own writing session: waiting for the gate would be waiting for itself
        await gate.acquire()
        self.info[HELD_GATE] = gate
        if locking_first:  # the transaction's first statement: BEGIN IMMEDIATE, SQLite's lock taken with it
            await self.connection(execution_options={IMMEDIATE: True})

    async def execute(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
        await self._enter_gate(statement)
        return await super().execute(statement, *args, **kwargs)

    async def scalar(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
        await self._enter_gate(statement)
        return await super().scalar(statement, *args, **kwargs)


@asynccontextmanager
async def write_connection(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection in a transaction that writes (the gate held throughout, on SQLite), committed at the end:
    for writers below the session (stream tickets, background jobs on an engine of their own)."""
    gate = writer_gate(engine)
    if gate is None:
        async with engine.begin() as connection:
            yield connection
        return
    async with gate.held(), engine.begin() as connection:
        yield connection


def make_sqlite_folder(database_url: str) -> None:
    """An SQLite file's folder (var/ by default) is made on first use: a fresh clone has none."""
    url = make_url(database_url)
    path = url.database or ""
    if url.get_backend_name() == "sqlite" and path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)


def make_engine(settings: Settings) -> AsyncEngine:
    url = async_url(settings.database_url)
    if settings.is_sqlite:
        make_sqlite_folder(url)
        engine = create_async_engine(url, json_serializer=_json_text, json_deserializer=orjson.loads)
        _configure_sqlite(engine, settings.sqlite_busy_timeout_ms)
        _busy_timeouts[_file_key(engine.url)] = settings.sqlite_busy_timeout_ms / 1000
        return engine
    return create_async_engine(
        url,
        json_serializer=_json_text,
        json_deserializer=orjson.loads,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        # No pool_pre_ping: it costs a round trip on every checkout. After an outage the first error
        # invalidates the whole pool (SQLAlchemy's default), and a refused connection fails at once.
        pool_recycle=3600,
        connect_args={"timeout": 5},
    )


@asynccontextmanager
async def _answering(connection: AsyncConnection) -> AsyncIterator[None]:
    """Around a statement sent on the driver itself: a connection lost mid-statement is invalidated (the pool
    forgets it, as SQLAlchemy's own execution would) and the request gets a 503."""
    try:
        yield
    except (OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError) as error:
        await connection.invalidate()
        raise ServiceUnavailable("The database did not answer.") from error


class Database:
    """This worker's engine, its session factory, and single autocommitted statements."""

    def __init__(self, settings: Settings):
        self.engine = make_engine(settings)
        # Typed as plain AsyncSessions: the gate is invisible to the code that uses them.
        self.sessions = cast(
            "async_sessionmaker[AsyncSession]",
            async_sessionmaker(self.engine, expire_on_commit=False, class_=GatedSession),
        )
        # Same pool; no BEGIN/COMMIT around a single statement. Not AUTOCOMMIT on SQLite: switching a
        # connection's isolation level costs a PRAGMA each time it goes back to the pool.
        single = {SINGLE_STATEMENT: True} if settings.is_sqlite else {"isolation_level": "AUTOCOMMIT"}
        self._autocommit = self.engine.execution_options(**single)
        # PostgreSQL: each hot read's SQL and parameter order, compiled once (read()).
        self._compiled: dict[Any, tuple[str, tuple[str, ...]]] | None = None if settings.is_sqlite else {}

    async def rows(self, statement: Executable, parameters: dict[str, Any]) -> Sequence[Row[Any]]:
        """One statement, committed by itself (a write too: an INSERT ... RETURNING, say, through the gate)."""
        gate = writer_gate(self.engine) if _writes(statement) else None
        if gate is None:
            async with self._autocommit.connect() as connection:
                return (await connection.execute(statement, parameters)).all()
        async with gate.held(), self._autocommit.connect() as connection:
            return (await connection.execute(statement, parameters)).all()

    async def read(self, statement: Select[Any], parameters: Mapping[str, Any]) -> Sequence[Sequence[Any]]:
        """A hot read's rows, indexed by position in the statement's columns: one statement, autocommitted.

        On PostgreSQL the Core statement, compiled once, runs on the pooled asyncpg connection itself:
        SQLAlchemy's execution layer (a greenlet hop for each of the driver's awaits, the result machinery)
        costs about three times the driver's own work for a one-row read. Only for statements whose columns
        need no result processing beyond the driver's own (its JSON codec is SQLAlchemy's, with orjson;
        timestamps come back aware). Elsewhere (SQLite) it is `rows`."""
        if self._compiled is None:
            return await self.rows(statement, dict(parameters))
        sql, names = self._compiled.get(statement) or self._compile(statement)
        async with self.engine.connect() as connection, _answering(connection):
            driver: Any = (await connection.get_raw_connection()).driver_connection
            found: Sequence[Sequence[Any]] = await driver.fetch(sql, *(parameters[name] for name in names))
            return found

    @property
    def on_driver(self) -> bool:
        """PostgreSQL: hot statements run on the asyncpg connection itself (`read`, `write_on_driver`)."""
        return self._compiled is not None

    async def write_on_driver(
        self, session: AsyncSession, statement: Executable, parameters: Mapping[str, Any]
    ) -> Sequence[Any] | None:
        """PostgreSQL: one statement, compiled once, run on the asyncpg connection of `session`, inside its
        transaction (begun here if it has not begun); the first row, or None. The session commits or rolls it
        back with whatever else it wrote. JSON parameters go as text (the driver's codec takes text)."""
        sql, names = self._compiled.get(statement) or self._compile(statement)  # type: ignore[union-attr]
        connection = await session.connection()
        raw = await connection.get_raw_connection()
        adapted: Any = raw.dbapi_connection
        # SQLAlchemy's asyncpg adapter begins its transaction lazily, at its own first statement: begun here,
        # it is the transaction the session commits (a private hook, pinned by uv.lock and by
        # tests/api/test_round_writes.py, which fails if a round outlives its rolled-back transaction).
        if adapted._transaction is None:
            await adapted._start_transaction()
        driver: Any = raw.driver_connection
        try:
            async with _answering(connection):
                found: Sequence[Any] | None = await driver.fetchrow(sql, *(parameters[name] for name in names))
        except asyncpg.IntegrityConstraintViolationError as error:
            raise lost_race() from error
        return found

    def _compile(self, statement: Any) -> tuple[str, tuple[str, ...]]:
        compiled = statement.compile(dialect=self.engine.dialect)
        entry = (compiled.string, tuple(compiled.positiontup or ()))
        assert self._compiled is not None
        self._compiled[statement] = entry
        return entry

    async def ping(self) -> None:
        async with self._autocommit.connect() as connection:
            await connection.execute(text("SELECT 1"))

    def connections_in_use(self) -> int:
        """Connections checked out of this worker's pool (for the metrics gauge)."""
        pool = self.engine.pool
        return pool.checkedout() if isinstance(pool, QueuePool) else 0

    def watch_connections_in_use(self, listener: Callable[[int], None]) -> None:
        """Calls `listener` with `connections_in_use()` as it stands after every checkout and checkin, so a
        figure kept elsewhere (the metrics gauge shared between workers) is never stale."""

        def checked_out(*_: Any) -> None:
            listener(self.connections_in_use())

        def checked_in(*_: Any) -> None:
            # SQLAlchemy fires `checkin` before the pool takes the connection back: it still counts.
            # (At least 0: after dispose() a connection of the old pool comes back to the new one.)
            listener(max(0, self.connections_in_use() - 1))

        event.listen(self.engine.sync_engine, "checkout", checked_out)
        event.listen(self.engine.sync_engine, "checkin", checked_in)

    async def dispose(self) -> None:
        await self.engine.dispose()
