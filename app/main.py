"""create_app(): routers, problem handlers, middleware, database."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import metadata

from cachetools import TTLCache
from fastapi import APIRouter, FastAPI, Response

from app.access.router import router as access_router
from app.campaign.routes import router as campaign_router
from app.chronicle.router import router as chronicle_router
from app.config import Settings, get_settings
from app.encounters import deadline_job, deadlines
from app.encounters.routes.combatants import router as combatants_router
from app.encounters.routes.declarations import router as declarations_router
from app.encounters.routes.encounters import router as encounters_router
from app.encounters.routes.rounds import router as rounds_router
from app.events.hub import EventHub
from app.events.router import router as events_router
from app.http.docs import install_docs
from app.http.idempotency import install_replay_handler
from app.http.openapi import install_openapi, operation_id
from app.http.problems.handlers import install_problem_handlers
from app.http.problems.pages import router as problem_pages_router
from app.idempotency.purge import purge_idempotency_keys_forever
from app.observability import AccessLog, Edge, cors_options, install_observability, mark_worker_dead
from app.odds.router import router as odds_router
from app.odds.runner import OddsRunner
from app.platform.db import Database
from app.platform.dispatcher import Dispatcher
from app.platform.errors import ServiceUnavailable
from app.platform.ratelimit import RateLimiter
from app.portability.router import router as portability_router
from app.stats.router import router as stats_router
from app.table.router import install_table
from app.webhooks.install import install_webhooks
from app.webhooks.router import router as webhooks_router

DESCRIPTION = """
Combat bookkeeping for **Dziedzictwo Cieni**: initiative with weapon delays, stances, hits, blows,
wound classes, bleeding per turn, and a round-by-round history you can read back, replay and undo.

Start with `POST /v1/campaigns`: it returns your campaign key, shown once. Send it as
`Authorization: Bearer <key>`. Every error is `application/problem+json`. Changes accept
`If-Match` with the ETag you read; every POST accepts an `Idempotency-Key`.
"""


def health_router(database: Database) -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=dict[str, str])
    async def healthz() -> Response:
        """The process is up."""
        return Response(b'{"status":"ok"}', media_type="application/json")

    @router.get("/readyz")
    async def readyz() -> dict[str, str]:
        """The database answers."""
        try:
            await database.ping()
        except Exception as error:
            raise ServiceUnavailable("The database did not answer.") from error
        return {"status": "ready"}

    return router


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    database = Database(settings)  # one engine, one pool, per worker (each worker calls create_app)
    events = EventHub(settings, database)  # one listening connection per worker
    dispatcher = Dispatcher(settings)  # the worker's background jobs; its own pool, only if it has jobs
    dispatcher.register_job(deadlines.JOB, deadline_job.run, idle_seconds=60.0)  # the declaration deadlines
    # its processes start with the first odds request
    odds_runner = OddsRunner(settings.odds_processes, max_pending=settings.odds_max_pending)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        purger = asyncio.create_task(purge_idempotency_keys_forever(database, settings))
        await events.start()
        await webhooks.start(database)
        await dispatcher.start()
        # What start-up made (modules, routes, schemas, the ruleset) lives as long as the worker: out of the
        # collector's reach, so a full collection under load walks only what requests made (bench/README.md).
        gc.collect()
        gc.freeze()
        yield
        await dispatcher.stop()
        await events.stop()
        await app.state.limiter.close()  # its batched counters' settling task and Redis connections
        purger.cancel()
        await database.dispose()
        odds_runner.close()
        mark_worker_dead()  # uvicorn has no child_exit hook: the worker says so itself

    app = FastAPI(
        title="Dziedzictwo Cieni combat service",
        version=metadata.version("dziedzictwo-combat"),  # one version: pyproject.toml's
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        generate_unique_id_function=operation_id,
    )  # install_docs serves them without a CDN
    # What each worker shares between requests; reached only through app/deps.py's typed dependencies.
    app.state.settings = settings
    app.state.database = database
    app.state.events = events
    app.state.dispatcher = dispatcher
    app.state.limiter = RateLimiter(settings.rate_limit_storage)
    app.state.credentials = TTLCache(maxsize=settings.credential_cache_size, ttl=settings.credential_cache_seconds)
    app.state.odds_runner = odds_runner
    install_problem_handlers(app)
    install_replay_handler(app)
    install_openapi(app)
    # Starlette tries the routes in order and each miss costs: the hot ones first. No earlier route's
    # template matches a later one's path (tests/api/test_route_order.py), so the order changes nothing else.
    app.include_router(health_router(database))
    app.include_router(rounds_router)
    app.include_router(encounters_router)
    app.include_router(declarations_router)
    app.include_router(combatants_router)
    app.include_router(events_router)
    app.include_router(odds_router)
    app.include_router(chronicle_router)
    app.include_router(campaign_router)
    app.include_router(access_router)
    app.include_router(portability_router)
    app.include_router(webhooks_router)
    app.include_router(stats_router)
    app.include_router(problem_pages_router)
    install_docs(app)
    install_table(app)
    metrics = install_observability(
        app, settings, pool_in_use=database.connections_in_use, watch_pool=database.watch_connections_in_use
    )
    webhooks = install_webhooks(settings, dispatcher, metrics.registry)
    app.state.webhooks = webhooks.deliveries
    # The only middleware: every answer (a 413 and a CORS preflight too) is counted, logged and carries its
    # request id.
    app.add_middleware(
        Edge,
        metrics=metrics,
        access_log=AccessLog(),
        max_body_bytes=settings.max_body_bytes,
        body_limits={"/v1/campaigns/import": settings.import_max_bytes},  # a whole campaign's document
        cors=cors_options(settings.cors_origins, settings.cors_origin_regex),
    )
    return app
