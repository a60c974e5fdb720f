"""Migration 9b4c2e71d0a6 (armor by name) on SQLite and PostgreSQL: combatants stored before it keep their points;
a downgrade turns names into the points they count for in their encounter's ruleset, in the combatants and in
the rounds' snapshots that undo restores; one of points and name, never both or neither."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest
from alembic import command
from sqlalchemy import MetaData, create_engine, insert, select
from sqlalchemy.exc import IntegrityError

from tests.conftest import alembic_config, empty_postgres_database

BEFORE, THIS = "5e1d0a7c93b2", "9b4c2e71d0a6"
NOW = datetime.now(timezone.utc)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'armor-migration.db'}"
    return empty_postgres_database("armor_migration")


def _tables(url):
    engine = create_engine(url)
    tables = MetaData()
    tables.reflect(engine)
    return engine, tables.tables


def _combatant(cid: str, position: int, **armor: Any) -> dict[str, Any]:
    return dict(
        id=cid, encounter_id="e", position=position, name=cid, initiative=20, attack=14, defense=4,
        weapon="long_sword", attacks_per_round=1, weapon_ready=True, damage_bonus=0, toughness=0, vitality=10,
        blood=10, status="active", wounds=[], effects=[], long_action=None, **armor,
    )


def _store_an_encounter(url, *combatants: dict[str, Any]) -> None:
    engine, tables = _tables(url)
    with engine.begin() as connection:
        connection.execute(insert(tables["campaigns"]).values(id="c", name="C", created_at=NOW))
        connection.execute(insert(tables["encounters"]).values(
            id="e", campaign_id="c", name="E", rules={"armor": {"mithril": 5}}, round=1, version=1,
            next_position=len(combatants), created_at=NOW, updated_at=NOW,
        ))
        connection.execute(insert(tables["combatants"]), list(combatants))
    engine.dispose()


def _decode(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value  # SQLite reflects JSON as text


def _armor_columns(url) -> dict[str, tuple[Any, ...]]:
    engine, tables = _tables(url)
    combatants = tables["combatants"]
    named = "armor_name" in combatants.c
    columns = [combatants.c.id, combatants.c.armor, *([combatants.c.armor_name] if named else [])]
    with engine.connect() as connection:
        found = {row.id: tuple(row)[1:] for row in connection.execute(select(*columns))}
    engine.dispose()
    return found


def test_points_stored_before_stay_points(database):
    config = alembic_config(database)
    command.upgrade(config, BEFORE)
    _store_an_encounter(database, _combatant("a", 0, armor=2))
    command.upgrade(config, THIS)
    assert _armor_columns(database) == {"a": (2, None)}


def test_down_turns_names_into_their_encounters_points_and_up_again(database):
    config = alembic_config(database)
    command.upgrade(config, THIS)
    _store_an_encounter(
        database,
        _combatant("a", 0, armor=None, armor_name="leather"),
        _combatant("b", 1, armor=None, armor_name="mithril"),
        _combatant("c", 2, armor=3, armor_name=None),
    )
    engine, tables = _tables(database)
    with engine.begin() as connection:
        connection.execute(insert(tables["rounds"]).values(
            encounter_id="e", number=1, request={}, document={}, created_at=NOW,
            state_before={"next_position": 3, "combatants": [{"id": "a", "armor": "plate"}, {"id": "c", "armor": 3}]},
            state_after=[{"id": "a", "armor": "leather"}, {"id": "b", "armor": "mithril"}],
        ))
    engine.dispose()

    command.downgrade(config, BEFORE)
    assert _armor_columns(database) == {"a": (1,), "b": (5,), "c": (3,)}, "no armor_name column, only points"
    engine, tables = _tables(database)
    with engine.connect() as connection:
        rounds = tables["rounds"]
        before, after = connection.execute(select(rounds.c.state_before, rounds.c.state_after)).one()
    engine.dispose()
    assert [c["armor"] for c in _decode(before)["combatants"]] == [6, 3]
    assert [c["armor"] for c in _decode(after)] == [1, 5]

    command.upgrade(config, "head")
    assert _armor_columns(database) == {"a": (1, None), "b": (5, None), "c": (3, None)}


@pytest.mark.parametrize("armor", [{"armor": None, "armor_name": None}, {"armor": 1, "armor_name": "leather"}])
def test_a_combatant_has_points_or_a_name(database, armor):
    command.upgrade(alembic_config(database), THIS)
    with pytest.raises(IntegrityError):
        _store_an_encounter(database, _combatant("a", 0, **armor))
