"""What one transaction costs through each layer: the async session, a Core connection, the driver alone.

    .venv/bin/python bench/transaction_cost.py [--transactions 2000]

Each transaction is BEGIN, three runs of the round's compare-and-set UPDATE (which match no row: the
statement's work is the same, nothing changes) and COMMIT, on the load benchmark's PostgreSQL database.
It prints user CPU per transaction, the best of three batches, the three ways alternating twice: the
question is how much of a round's CPU is SQLAlchemy's and what running its write on the driver would save.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from load_bench import prepare_database  # noqa: E402


async def best_user_cpu(run: Callable[[], Awaitable[None]], transactions: int) -> float:
    for _ in range(100):
        await run()
    best = float("inf")
    for _ in range(3):
        before = os.times()
        for _ in range(transactions):
            await run()
        best = min(best, (os.times().user - before.user) / transactions * 1e6)
    return best


async def measure(transactions: int) -> None:
    from app.config import get_settings
    from app.encounters.tables import ENCOUNTERS
    from app.platform.db import Database
    from app.platform.versions import _compare_and_set_of

    database = Database(get_settings())
    statement = _compare_and_set_of(ENCOUNTERS, ("version",))
    compiled = statement.compile(dialect=database.engine.dialect)
    parameters: dict[str, Any] = {"row_id": "no-such-encounter", "read_version": -1, "new_version": 1,
                                  "updated_at": datetime.now(timezone.utc)}
    ordered = [parameters[name] for name in compiled.positiontup or ()]

    async def through_the_session() -> None:
        async with database.sessions() as session, session.begin():
            for _ in range(3):
                await session.execute(statement, parameters)

    async def through_a_connection() -> None:
        async with database.engine.connect() as connection, connection.begin():
            for _ in range(3):
                await connection.execute(statement, parameters)

    async def on_the_driver() -> None:
        async with database.engine.connect() as connection:
            driver = (await connection.get_raw_connection()).driver_connection
            async with driver.transaction():
                for _ in range(3):
                    await driver.execute(compiled.string, *ordered)

    try:
        for _ in range(2):
            for name, run in (("async session", through_the_session), ("Core connection", through_a_connection),
                              ("asyncpg alone", on_the_driver)):
                print(f"{name:>16}: user {await best_user_cpu(run, transactions):5.0f} µs per transaction", flush=True)
    finally:
        await database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transactions", type=int, default=2000)
    parser.add_argument("--database", default="combat_bench_cost")
    args = parser.parse_args()
    url, _ = prepare_database(args.database)
    os.environ["DATABASE_URL"] = url
    asyncio.run(measure(args.transactions))


if __name__ == "__main__":
    main()
