"""create_app(): routers, problem handlers, middleware, database."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from sqlalchemy import text

from app.campaigns.router import router as campaigns_router
from app.config import Settings, get_settings
from app.db import AutocommitDatabase, make_engine, make_sessionmaker
from app.encounters.router import router as encounters_router
from app.idempotency.deps import install_replay_handler
from app.idempotency.purge import purge_idempotency_keys_forever
from app.limits import BodySizeLimit
from app.odds.router import router as odds_router
from app.odds.runner import OddsRunner
from app.openapi import install_openapi
from app.problems import ServiceUnavailable, install_problem_handlers
from app.rounds.router import router as rounds_router

DESCRIPTION = """
Combat bookkeeping for **Dziedzictwo Cieni**: initiative with weapon delays, stances, hits, blows,
wound classes, bleeding per turn, and a round-by-round history you can read back, replay and undo.

Start with `POST /v1/campaigns`: it returns your campaign key, shown once. Send it as
`Authorization: Bearer <key>`. Every error is `application/problem+json`. Changes accept
`If-Match` with the ETag you read; every POST accepts an `Idempotency-Key`.
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    engine = make_engine(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await app.state.autocommit.open()
        purger = asyncio.create_task(purge_idempotency_keys_forever(app))
        yield
        purger.cancel()
        engine.dispose()
        await app.state.autocommit.close()
        app.state.odds_runner.close()

    app = FastAPI(title="Dziedzictwo Cieni combat service", version="1.0.0", description=DESCRIPTION, lifespan=lifespan)
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = make_sessionmaker(engine)
    app.state.autocommit = AutocommitDatabase(settings, engine)
    app.state.odds_runner = OddsRunner(settings.odds_processes)
    install_problem_handlers(app)
    install_replay_handler(app)
    install_openapi(app)
    app.include_router(campaigns_router)
    app.include_router(encounters_router)
    app.include_router(rounds_router)
    app.include_router(odds_router)

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """The process is up."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    def readyz(request: Request) -> dict[str, str]:
        """The database answers."""
        try:
            with request.app.state.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception as error:
            raise ServiceUnavailable("The database did not answer.") from error
        return {"status": "ready"}

    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_origin_regex=settings.cors_origin_regex,
        allow_credentials=False,
        allow_methods=["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match"],
        expose_headers=["ETag", "Location", "Retry-After", "Idempotent-Replayed"],
        max_age=600,
    )
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    return app
