"""Migration 3e1f7c0a9d11 (effects and long actions) keeps the combatants it finds: up, down and up again with a
combatant stored before it, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from alembic import command
from sqlalchemy import MetaData, create_engine, insert, inspect, text

from tests.conftest import alembic_config, empty_postgres_database

BEFORE, THIS = "5c1f2e7a9b30", "3e1f7c0a9d11"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'effects-migration.db'}"
    return empty_postgres_database("effects_migration")


def _combatant_columns(url):
    engine = create_engine(url)
    try:
        return {c["name"] for c in inspect(engine).get_columns("combatants")}
    finally:
        engine.dispose()


def _store_a_combatant(url):
    engine = create_engine(url)
    tables = MetaData()
    tables.reflect(engine)
    now = datetime.now(timezone.utc)
    with engine.begin() as connection:
        connection.execute(insert(tables.tables["campaigns"]).values(id="c", name="C", created_at=now))
        connection.execute(
            insert(tables.tables["encounters"]).values(
                id="e",
                campaign_id="c",
                name="E",
                rules={},
                round=0,
                version=1,
                next_position=1,
                created_at=now,
                updated_at=now,
            )
        )
        connection.execute(
            insert(tables.tables["combatants"]).values(
                id="a",
                encounter_id="e",
                position=0,
                name="Ala",
                initiative=20,
                attack=14,
                defense=4,
                weapon="long_sword",
                attacks_per_round=1,
                weapon_ready=True,
                damage_bonus=0,
                armor=0,
                toughness=0,
                vitality=10,
                blood=10,
                status="active",
                wounds=[],
            )
        )
    engine.dispose()


def _lasting(url):
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            row = connection.execute(text("SELECT name, effects, long_action FROM combatants")).one()
    finally:
        engine.dispose()
    decode = lambda value: json.loads(value) if isinstance(value, str) else value  # noqa: E731  SQLite: text
    return row.name, decode(row.effects), decode(row.long_action)


def test_up_down_up_keeps_stored_combatants(database):
    config = alembic_config(database)
    command.upgrade(config, BEFORE)
    _store_a_combatant(database)
    command.upgrade(config, THIS)
    assert {"effects", "long_action"} <= _combatant_columns(database)
    assert _lasting(database) == ("Ala", [], None), "a combatant stored before carries no effect, no long action"
    command.downgrade(config, BEFORE)
    assert not {"effects", "long_action"} & _combatant_columns(database)
    command.upgrade(config, "head")
    assert _lasting(database) == ("Ala", [], None)
