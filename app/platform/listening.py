"""One PostgreSQL connection that LISTENs, kept open for as long as it runs: the event hub's and the job
dispatcher's way to hear NOTIFY from every worker and replica.

A lost connection is opened again (at once after a working one broke, then with growing pauses); each time
it is listening again `on_listening` runs, for the owner to look again at whatever was announced while
nobody listened. A quiet connection is checked every `check_every` seconds (a dead one may look quiet).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

import psycopg
from sqlalchemy import make_url

from app.config import Settings

log = logging.getLogger(__name__)
RECONNECT_DELAYS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)  # then 2 s between attempts


def listen_conninfo(settings: Settings) -> str | None:
    """The libpq connection string of the service's PostgreSQL; None on SQLite (one process: nothing to hear)."""
    if settings.is_sqlite:
        return None
    return make_url(settings.database_url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    def __init__(
        self,
        conninfo: str,
        channels: Sequence[str],
        *,
        name: str,
        check_every: float,
        on_notice: Callable[[str, str], None],
        on_listening: Callable[[], None],
    ):
        self.conninfo = conninfo
        self.channels = tuple(channels)
        self.name = name  # the connection's application_name, seen in pg_stat_activity
        self.check_every = check_every
        self.on_notice = on_notice  # (channel, payload)
        self.on_listening = on_listening
        self.listening = asyncio.Event()  # the connection is up and listening
        self.pid: int | None = None  # its server process, for operators (and the tests that kill it)

    async def run_forever(self) -> None:
        failures = 0
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 (any failure: reconnect)
                log.warning("%s lost its listening connection: %s", self.name, error)
            failures = 0 if self.listening.is_set() else failures + 1  # a fresh loss retries at once
            self.listening.clear()
            self.pid = None
            await asyncio.sleep(RECONNECT_DELAYS[min(failures, len(RECONNECT_DELAYS) - 1)])

    async def _listen(self) -> None:
        async with await psycopg.AsyncConnection.connect(
            self.conninfo, autocommit=True, connect_timeout=5, application_name=self.name
        ) as connection:
            for channel in self.channels:
                await connection.execute(f'LISTEN "{channel}"')
            self.pid = connection.info.backend_pid
            self.on_listening()
            self.listening.set()
            while True:
                async for notice in connection.notifies(timeout=self.check_every):
                    self.on_notice(notice.channel, notice.payload)
                await connection.execute("SELECT 1")  # a quiet connection may be a dead one: find out
