"""combat-admin: the operators' console script, on the service's DATABASE_URL (app/config.py).

    combat-admin export CAMPAIGN_ID > campaign.json    the campaign's document (GET /v1/campaign/export's)
    combat-admin import campaign.json                  a new campaign from it; prints its id and owner key
    combat-admin new-owner-key CAMPAIGN_ID             a new owner key for a campaign whose keys are lost
    combat-admin webhooks list [--campaign ID]         every webhook subscription and its events' states
    combat-admin webhooks retry [--subscription ID]    given-up events pending again (same webhook-id)
    combat-admin webhooks purge [--older-than-hours H] delete delivered and given-up events older than H

The same code as the HTTP endpoints, through app.platform.db.Database. A progress bar goes to stderr
(stdout carries only the document, or the id and key).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, BinaryIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.access.service import issue
from app.access.tables import CAMPAIGNS
from app.config import Settings, get_settings
from app.platform.db import Database
from app.platform.errors import ServiceError
from app.platform.transactions import write_transaction
from app.portability import export, imports
from app.webhooks import admin as webhooks_admin

PROG = "combat-admin"


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    )  # fmt: skip


async def export_to(database: Database, campaign_id: str, out: BinaryIO, console: Console) -> None:
    total = await export.totals(database, campaign_id)
    with _progress(console) as progress:
        task = progress.add_task("rounds exported", total=total)
        async for chunk in export.document_chunks(database, campaign_id, progress=lambda n: progress.advance(task, n)):
            out.write(chunk)
    out.flush()


async def import_from(database: Database, source: IO[bytes], console: Console) -> tuple[str, str]:
    """The document read twice from the file, never whole (app/portability/imports.py)."""
    checked = await asyncio.to_thread(imports.check, source)
    with _progress(console) as progress:
        task = progress.add_task("rows imported", total=checked.rows)
        async with database.sessions() as session, write_transaction(session):
            created = await imports.import_campaign(
                session, source=source, checked=checked, progress=lambda n: progress.advance(task, n)
            )
    return created.id, created.key.secret


async def new_owner_key(database: Database, campaign_id: str) -> str:
    """A new owner key (only its hash is stored); the lost ones stay until revoked with it."""
    async with database.sessions() as session, session.begin():
        if await session.scalar(CAMPAIGNS.select().with_only_columns(CAMPAIGNS.c.id).where(
                CAMPAIGNS.c.id == campaign_id)) is None:  # fmt: skip
            raise ServiceError(f"there is no campaign {campaign_id}")
        key = await issue(session, campaign_id, "owner", label="issued by the operator")
    return key.secret


async def webhooks(database: Database, arguments: argparse.Namespace, settings: Settings) -> None:
    if arguments.action == "list":
        for line in await webhooks_admin.summary(database, arguments.campaign):
            print(line)
    elif arguments.action == "retry":
        print(f"{await webhooks_admin.retry(database, arguments.subscription)} events pending again")
    else:
        hours = settings.webhook_prune_after_hours if arguments.older_than_hours is None else arguments.older_than_hours
        print(f"{await webhooks_admin.purge(database, hours)} events purged")


NOT_MIGRATED = (
    "the database at DATABASE_URL has no tables yet (it was never migrated). Create them first, with the "
    "same DATABASE_URL: `alembic upgrade head` (in a checkout: `make migrate`; with compose: "
    "`docker compose run --rm migrate`), then run this command again. Nothing was written."
)


async def migrated(database: Database) -> bool:
    """Whether Alembic has made the schema (its version table exists and holds a revision)."""
    try:
        return bool(await database.rows(text("SELECT version_num FROM alembic_version"), {}))
    except DBAPIError:  # no such table (SQLite), undefined table (PostgreSQL)
        return False


async def run(arguments: argparse.Namespace, settings: Settings) -> int:
    console = Console(stderr=True)
    database = Database(settings)
    try:
        if not await migrated(database):
            raise ServiceError(NOT_MIGRATED)
        if arguments.command == "export":
            await export_to(database, arguments.campaign_id, sys.stdout.buffer, console)
        elif arguments.command == "import":
            with Path(arguments.file).open("rb") as source:
                campaign_id, key = await import_from(database, source, console)
            print(f"campaign {campaign_id}")
            print(f"key {key}")
        elif arguments.command == "webhooks":
            await webhooks(database, arguments, settings)
        else:
            print(await new_owner_key(database, arguments.campaign_id))
    finally:
        await database.dispose()
    return 0


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog=PROG, description="Operators' tools for the combat service (DATABASE_URL).")
    commands = made.add_subparsers(dest="command", required=True)
    commands.add_parser("export", help="write a campaign's document to stdout").add_argument("campaign_id")
    commands.add_parser("import", help="import a document as a new campaign; prints its id and key").add_argument(
        "file"
    )
    commands.add_parser("new-owner-key", help="issue a new owner key for a campaign").add_argument("campaign_id")
    hooks = commands.add_parser("webhooks", help="webhook subscriptions and their events").add_subparsers(
        dest="action", required=True
    )
    hooks.add_parser("list", help="every subscription, its events' states").add_argument("--campaign")
    hooks.add_parser("retry", help="given-up events pending again").add_argument("--subscription")
    hooks.add_parser("purge", help="delete finished events").add_argument("--older-than-hours", type=float)
    return made


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    try:
        return asyncio.run(run(arguments, get_settings()))
    except ServiceError as error:
        extra = "".join(f" ({name}: {value})" for name, value in error.extra.items() if name != "errors")
        print(f"{PROG}: {error.detail}{extra}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
