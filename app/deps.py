"""Typed dependency aliases: what a router, service or access check needs, said in its signature.

The only module besides app/main.py that reads app.state (main.py puts each worker's shared objects there).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from cachetools import TTLCache
from fastapi import Depends, Header, Query, Request
from sqlalchemy.orm import Session

from app.config import Settings
from app.db import AutocommitDatabase
from app.ratelimit.limiter import RateLimiter


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_database(request: Request) -> AutocommitDatabase:
    database: AutocommitDatabase = request.app.state.autocommit
    return database


def get_limiter(request: Request) -> RateLimiter:
    limiter: RateLimiter = request.app.state.limiter
    return limiter


def get_credential_cache(request: Request) -> TTLCache[str, Any]:
    cache: TTLCache[str, Any] = request.app.state.credentials
    return cache


async def get_session(request: Request) -> AsyncIterator[Session]:
    """One session per request. Services open and commit the transaction; nothing commits after the yield."""
    session = request.app.state.sessions()
    try:
        yield session
    finally:
        session.close()


SettingsDep = Annotated[Settings, Depends(get_settings)]
DatabaseDep = Annotated[AutocommitDatabase, Depends(get_database)]
LimiterDep = Annotated[RateLimiter, Depends(get_limiter)]
CredentialCacheDep = Annotated[TTLCache[str, Any], Depends(get_credential_cache)]
SessionDep = Annotated[Session, Depends(get_session)]

IfMatch = Annotated[
    str | None, Header(description='The ETag you last read, e.g. "7": a stale one gets 412.', max_length=200)
]
IfNoneMatch = Annotated[
    str | None,
    Header(description='The ETag you last read, e.g. "7": while it is current, a 304 without a body.', max_length=200),
]
NOT_MODIFIED = {"description": "Not modified: the ETag in If-None-Match is still current (no body)."}
Limit = Annotated[int, Query(ge=1, le=100, description="Page size.")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="Items to skip.")]
