"""Migrations are reversible: upgrade from empty, downgrade to base, upgrade again, on both databases."""

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect

from tests.conftest import alembic_config, empty_postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'migrations.db'}"
    return empty_postgres_database("migrations")


def _tables(url):
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(empty_database):
    config = alembic_config(empty_database)
    command.upgrade(config, "head")
    assert {"encounters", "combatants", "rounds"} <= _tables(empty_database)
    command.downgrade(config, "base")
    assert _tables(empty_database) == set()
    command.upgrade(config, "head")
    assert {"encounters", "combatants", "rounds"} <= _tables(empty_database)


def test_the_models_need_no_migration_the_repository_lacks(empty_database):
    config = alembic_config(empty_database)
    command.upgrade(config, "head")
    command.check(config)  # raises when autogenerate would find a difference
