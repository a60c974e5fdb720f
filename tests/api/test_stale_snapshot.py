"""SQLite: a use case whose snapshot went stale runs again, and the re-run cannot go stale a second time
(it holds the write lock from its first statement), however busy the other writers are."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from sqlalchemy import text

from app.config import Settings
from app.platform.db import Database
from app.platform.transactions import retry_stale_snapshot, write_transaction


def _other_process_writes(path: Path) -> bool:
    """Another process's write, which does not wait: False when the lock is held by someone else."""
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        other.execute("UPDATE counter SET n = n + 100")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


def test_the_rerun_of_a_stale_use_case_holds_the_lock_from_its_first_read(tmp_path: Path):
    path = tmp_path / "stale.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE counter (n INTEGER NOT NULL)")
        setup.execute("INSERT INTO counter VALUES (0)")
    attempts: list[bool] = []

    async def scenario() -> int:
        database = Database(Settings(database_url=f"sqlite:///{path}"))

        @retry_stale_snapshot
        async def increment() -> None:
            async with database.sessions() as session, write_transaction(session):
                seen = (await session.execute(text("SELECT n FROM counter"))).scalar_one()
                attempts.append(_other_process_writes(path))  # a writer between this read and the write below
                await session.execute(text("UPDATE counter SET n = :n"), {"n": seen + 1})

        try:
            await increment()
            async with database.sessions() as session:
                return int((await session.execute(text("SELECT n FROM counter"))).scalar_one())
        finally:
            await database.engine.dispose()

    final = asyncio.run(scenario())
    # The first run read 0, another writer moved the counter to 100, the write found its snapshot stale;
    # the re-run held the lock from its read (the other writer was refused) and wrote 101.
    assert attempts == [True, False]
    assert final == 101
