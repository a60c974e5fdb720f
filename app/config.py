"""Settings from the environment (and an optional .env file). SQLite is the embedded default."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE_PATH = Path(__file__).resolve().parent.parent / "var" / "combat.db"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default=f"sqlite:///{DEFAULT_SQLITE_PATH}",
        description="SQLAlchemy URL; postgresql://... in production (served through asyncpg), an SQLite file "
        "by default.",
    )
    # Per worker: the SQLAlchemy engine's one pool, up to the sum of the two. Connections beyond the pool
    # are closed when returned, and PostgreSQL forks a process for every new one (asyncpg first tries TLS on
    # each): an overflow churns connections under a steady load. 25 and none: a request beyond 25 at once
    # waits for a connection instead (bench/README.md, "Pool and workers").
    db_pool_size: int = 25
    db_max_overflow: int = 0
    sqlite_busy_timeout_ms: int = 5000
    max_body_bytes: int = 64 * 1024
    import_max_bytes: int = Field(
        default=10 * 1024 * 1024, description="Largest document POST /v1/campaigns/import takes (413 past it)."
    )
    cors_origins: list[str] = Field(default_factory=list, description="Exact origins allowed to call from a browser.")
    cors_origin_regex: str | None = Field(default=None, description="A regex of allowed browser origins.")
    idempotency_ttl_hours: int = 24  # keys are kept at least this long, then purged
    idempotency_lease_seconds: float = 10.0  # an in-progress key whose worker died is free again after this
    idempotency_purge_every_seconds: float = 600.0
    rate_limit_per_key_per_minute: int = 1200
    rate_limit_anonymous_per_minute: int = 300  # calls without credentials (POST /v1/resolve), per address
    campaigns_per_address_per_hour: int = 10
    rate_limit_storage: str = Field(
        default="memory://",
        description="Where rate-limit counters live: memory:// counts in each worker (N workers allow N times "
        "the limit), redis://host:port/db shares them between every worker and replica.",
    )
    # Keys and tokens are looked up once and kept this long in each worker: a key revoked or rotated
    # stops working at once on the worker that did it, and within this many seconds on the others.
    credential_cache_seconds: float = 5.0
    credential_cache_size: int = 10_000
    # Observability (app/observability)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="Level of the JSON log lines; INFO writes one access line per request."
    )
    metrics_token: str | None = Field(
        default=None, min_length=16, description="When set, GET /metrics needs Authorization: Bearer <token>."
    )
    # The event stream (app/events): per worker.
    events_keepalive_seconds: float = 15.0  # a comment line on every stream at least this often
    events_queue_size: int = 256  # events a subscriber may lag behind before it is disconnected
    events_max_subscribers: int = 5000  # open streams; past this, a 503 problem
    events_send_timeout_seconds: float = 30.0  # a client that takes no bytes this long is disconnected
    events_listener_check_seconds: float = 10.0  # PostgreSQL: a quiet listening connection is checked this often
    odds_processes: int | None = Field(
        default=None,
        ge=0,
        description="Odds worker processes per service worker; none: the cores less one, at least 1; "
        "0: a thread (holds the GIL: other requests wait).",
    )
    odds_budget: int = Field(
        default=2_000_000, description="Largest fights × max_rounds × combatants an odds request may ask for."
    )
    # Counted in fights, not requests: requests differ in size 10,000-fold, so a count of them bounds
    # neither the wait nor the work queued; fights bound both, up to a fight's cost (which the budget
    # bounds). Per worker process: it bounds this process's queue, which is what keeps its event loop
    # and connections free; every worker and replica has its own.
    odds_max_pending: int = Field(
        default=10_000,
        ge=1,
        description="Fights one service worker may have in play or waiting; a request past it gets a 503 "
        "odds-queue-full at once. A worker with none pending takes any request, whatever its size.",
    )

    # Webhooks (app/webhooks, docs/webhooks.md)
    webhook_allowed_networks: list[str] = Field(
        default_factory=list,
        description="Networks (CIDR) webhooks may reach besides public unicast addresses, e.g. 10.0.0.0/8; "
        "http:// is allowed only inside them.",
    )
    discord_api_base: str = Field(default="https://discord.com/api", description="Where Discord webhook URLs point.")
    webhook_deliveries: bool = Field(
        default=True, description="This worker delivers webhooks (false: it only records them, others deliver)."
    )
    webhook_timeout_seconds: float = 10.0  # a 2xx within this is delivered
    webhook_retry_hours: float = 24.0  # then given up
    webhook_retry_delays: list[float] = Field(
        default_factory=lambda: [5.0, 30.0, 120.0, 600.0, 3600.0, 14400.0],
        description="Seconds before each retry (with jitter); the last repeats.",
    )
    webhook_lease_seconds: float = 60.0  # an attempt of a worker that died is retried after this
    webhook_prune_after_hours: float = 168.0  # delivered and given-up events are kept this long
    webhook_disable_after: int = 20  # a subscription whose last this many events were given up is disabled

    @field_validator("metrics_token", mode="before")
    @classmethod
    def _no_token_when_empty(cls, value: object) -> object:
        return value or None  # METRICS_TOKEN= (as compose passes an unset one) means no token

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    return Settings()
