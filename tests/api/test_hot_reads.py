"""The hot reads' lightest path (Database.read: on PostgreSQL the compiled statement on the driver's own
connection) answers exactly what SQLAlchemy's execution does, and a dropped connection is a 503."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from app.encounters import store
from app.platform.db import Database
from app.platform.errors import ServiceUnavailable
from tests.api.helpers import attack


def _both(settings, statement, parameters):
    async def run():
        database = Database(settings)
        try:
            return list(map(tuple, await database.read(statement, parameters))), [
                tuple(row) for row in await database.rows(statement, dict(parameters))
            ]
        finally:
            await database.dispose()

    return asyncio.run(run())


def test_a_read_gives_the_rows_and_values_core_gives(client, fight, settings):
    url, ids = fight
    assert client.post(f"{url}/rounds", json={"declarations": [attack(ids[0], ids[1])], "seed": 4}).status_code == 201
    encounter_id = url.rsplit("/", 1)[1]
    campaign_id = client.get("/v1/campaign").json()["id"]
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    light, core = _both(settings, store.ENCOUNTER_WITH_COMBATANTS, keys)
    assert len(light) == len(ids) and light == core  # timestamps, JSON documents and all
    light, core = _both(settings, store.ROUND_WITH_VERSION, {**keys, "number": 1})
    assert light == core and light[0][0]["round"] == 1


def test_a_connection_lost_during_a_read_is_a_503_and_leaves_the_pool(settings, monkeypatch):
    if settings.is_sqlite:
        pytest.skip("the driver's own connection is used on PostgreSQL only")

    nowhere = {"encounter_id": "x", "campaign_id": "y", "number": 1}

    async def run():
        database = Database(settings)
        try:
            async def lost(*_args, **_kwargs):
                raise asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation")

            monkeypatch.setattr(asyncpg.Connection, "fetch", lost)
            with pytest.raises(ServiceUnavailable):
                await database.read(store.ROUND_WITH_VERSION, nowhere)
            monkeypatch.undo()
            assert await database.read(store.ROUND_WITH_VERSION, nowhere) == []  # a new connection answers
            return database.engine.pool.checkedout()
        finally:
            await database.dispose()

    assert asyncio.run(run()) == 0
