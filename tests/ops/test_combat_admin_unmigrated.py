"""`combat-admin import` into a database that was never migrated: one line saying what to run, no
traceback, nothing written."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from app.config import Settings
from app.platform.errors import ServiceError
from app.portability import cli


def test_an_unmigrated_database_is_named_with_the_command_to_run(tmp_path):
    database = tmp_path / "fresh.db"
    document = tmp_path / "campaign.json"
    document.write_text("{}")
    arguments = cli.parser().parse_args(["import", str(document)])
    with pytest.raises(ServiceError) as refused:
        asyncio.run(cli.run(arguments, Settings(database_url=f"sqlite:///{database}")))
    assert "alembic upgrade head" in refused.value.detail and "Nothing was written" in refused.value.detail
    tables = sqlite3.connect(database).execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert tables == []
