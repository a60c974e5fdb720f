"""The worker's shared objects as typed dependencies: what a router, service or access check needs, said
in its signature.

Composition, beside main.py: the only module besides it that reads app.state (main.py puts each worker's
shared objects there). It imports only the bottom layer (config, platform), so every layer may use it.
Every dependency is async although none awaits: FastAPI runs a sync one in the thread pool, a hop per request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from cachetools import TTLCache
from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.platform.db import Database
from app.platform.ratelimit import RateLimiter


# Plain functions for code that already has the request (access, idempotency): no dependency to solve.
def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def database_of(request: Request) -> Database:
    database: Database = request.app.state.database
    return database


def limiter_of(request: Request) -> RateLimiter:
    limiter: RateLimiter = request.app.state.limiter
    return limiter


def credentials_of(request: Request) -> TTLCache[str, Any]:
    cache: TTLCache[str, Any] = request.app.state.credentials
    return cache


# The same objects as dependencies, for routes that declare them.
async def get_settings(request: Request) -> Settings:
    return settings_of(request)


async def get_database(request: Request) -> Database:
    return database_of(request)


async def get_event_hub(request: Request) -> object:
    """This worker's event hub. Typed as app/events/deps.py's HubDep: the hub sits above this module."""
    return request.app.state.events


async def get_credential_cache(request: Request) -> TTLCache[str, Any]:
    return credentials_of(request)


async def get_webhook_deliveries(request: Request) -> Any:
    """This worker's webhook deliveries (app/webhooks/delivery.py): the allowed networks and the resolver a
    destination is checked with."""
    return request.app.state.webhooks


async def get_session(database: Annotated[Database, Depends(get_database)]) -> AsyncIterator[AsyncSession]:
    """One session per request. Services open and commit the transaction; nothing commits after the yield
    (it would run after the response is sent). Making a session does no I/O: the first statement checks
    a connection out of the pool, the end of the service's transaction returns it."""
    async with database.sessions() as session:
        yield session


async def get_odds_runner(request: Request) -> object:
    """This worker's odds runner. Typed as app/odds/deps.py's OddsRunnerDep: the odds sit above this module."""
    return request.app.state.odds_runner


SettingsDep = Annotated[Settings, Depends(get_settings)]
DatabaseDep = Annotated[Database, Depends(get_database)]
CredentialCacheDep = Annotated[TTLCache[str, Any], Depends(get_credential_cache)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]
