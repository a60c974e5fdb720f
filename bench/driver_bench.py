"""Which async PostgreSQL driver under SQLAlchemy: psycopg 3 (async) or asyncpg.

Reads a ~4 KB JSONB document by primary key through SQLAlchemy's async engine, the way the service
does (Core statement, pooled connection, autocommit), 32 at a time on one event loop, and prints
requests/s and the CPU per statement. Usage:
  python bench/driver_bench.py postgresql://postgres:postgres@127.0.0.1:5432/combat_bench [statements]
"""

from __future__ import annotations

import asyncio
import sys
import time

import orjson
from sqlalchemy import Column, Integer, MetaData, Table, bindparam, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

metadata = MetaData()
DOCS = Table("driver_bench_docs", metadata, Column("id", Integer, primary_key=True), Column("document", JSONB))
READ = select(DOCS.c.document).where(DOCS.c.id == bindparam("id"))
DOCUMENT = {"combatants": [{"id": f"c{i}", "wounds": [{"class": "light", "penalty": 1}] * 3, "blood": 10}
                           for i in range(20)], "actions": list(range(200))}


async def measure(url: str, driver: str, statements: int, concurrency: int = 32) -> tuple[float, float]:
    engine = create_async_engine(make_url(url).set(drivername=f"postgresql+{driver}"), pool_size=concurrency,
                                 json_serializer=lambda v: orjson.dumps(v).decode(), json_deserializer=orjson.loads)
    async with engine.begin() as connection:
        await connection.run_sync(metadata.create_all)
        await connection.execute(DOCS.delete())
        await connection.execute(DOCS.insert(), [{"id": i, "document": DOCUMENT} for i in range(100)])
    reader = engine.execution_options(isolation_level="AUTOCOMMIT")

    async def worker(n: int) -> None:
        for i in range(n):
            async with reader.connect() as connection:
                (await connection.execute(READ, {"id": i % 100})).one()

    await worker(200)  # warm the pool and the statement caches
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker(statements // concurrency) for _ in range(concurrency)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await engine.dispose()
    return statements / wall, cpu / statements * 1e3


async def main() -> None:
    url, statements = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 6400
    for driver in ("psycopg", "asyncpg", "psycopg", "asyncpg"):
        rate, cpu_ms = await measure(url, driver, statements)
        print(f"{driver:8} {rate:8.0f} statements/s  {cpu_ms:.3f} ms CPU per statement")


if __name__ == "__main__":
    asyncio.run(main())
