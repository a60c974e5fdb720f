"""Alembic environment: the URL from Settings (DATABASE_URL), batch mode so migrations run on SQLite too."""

from logging.config import fileConfig

from alembic import context
from sqlalchemy import create_engine

from app.config import Settings
from app.models import metadata  # every table, registered by the table registry
from app.platform.db import UTCDateTime, make_sqlite_folder, sync_url

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def render_item(type_, obj, autogen_context):
    """Render our UTC-aware DateTime as the plain column type it is, so migrations import only sqlalchemy."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def database_url() -> str:
    return config.attributes.get("database_url") or Settings().database_url


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=metadata,
        literal_binds=True,
        render_as_batch=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    make_sqlite_folder(database_url())  # `make run` on a fresh clone migrates before anything made var/
    engine = create_engine(sync_url(database_url()))  # migrations run synchronously, outside the service
    with engine.connect() as connection:
        context.configure(
            connection=connection, target_metadata=metadata, render_as_batch=True, render_item=render_item
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
