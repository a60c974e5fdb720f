"""What one database statement costs the service's process: SQLAlchemy's async engine against psycopg alone.

    .venv/bin/python bench/statement_bench.py [--database-url postgresql+psycopg://...]

Runs the statement every authenticated request runs (count the request, look its key up: the CTE of
app/ratelimit/service.py) 2,000 times each way, one after another on one connection pool, and prints
wall and CPU time (this process's user + system) per statement. The SQL is the same text: compiled
once from the SQLAlchemy Core statement for the psycopg dialect.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

import psycopg  # noqa: E402
from sqlalchemy.dialects import postgresql  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

from app.ratelimit.service import COUNT_AND_AUTHENTICATE  # noqa: E402

DEFAULT_URL = "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/combat_bench"
PARAMETERS = {"bucket": "key:statement-bench", "window_start": 0, "secret_hash": "none"}


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measure(name: str, run, repeat: int = 2000) -> None:
    for _ in range(200):
        await run()
    wall, cpu = time.perf_counter(), cpu_seconds()
    for _ in range(repeat):
        await run()
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    print(f"{name:48s} wall {wall / repeat * 1e6:6.0f} µs   CPU {cpu / repeat * 1e6:6.0f} µs")


async def main(url: str) -> None:
    # as app/auth.py ran it until the service moved to psycopg's own pool (app/db.py AutocommitDatabase)
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT", pool_size=20, max_overflow=5)
    compiled = COUNT_AND_AUTHENTICATE.compile(dialect=postgresql.psycopg.dialect())
    sql, parameters = str(compiled), compiled.construct_params(PARAMETERS)
    raw = await psycopg.AsyncConnection.connect(url.replace("postgresql+psycopg", "postgresql"), autocommit=True)
    held = await engine.connect()

    async def through_engine():  # check out, execute, fetch, check in
        async with engine.connect() as connection:
            (await connection.execute(COUNT_AND_AUTHENTICATE, PARAMETERS)).one()

    async def on_held_connection():
        (await held.execute(COUNT_AND_AUTHENTICATE, PARAMETERS)).one()

    async def psycopg_alone():
        await (await raw.execute(sql, parameters)).fetchone()

    for _ in range(2):
        await measure("SQLAlchemy async engine (checkout + execute)", through_engine)
        await measure("SQLAlchemy async, connection already held", on_held_connection)
        await measure("psycopg AsyncConnection alone", psycopg_alone)
    await held.close()
    await raw.close()
    await engine.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=DEFAULT_URL)
    asyncio.run(main(parser.parse_args().database_url))
