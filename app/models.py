"""The table registry: every package's tables imported in one place, so `metadata` knows them all
(Alembic, tests)."""

from app.access import tables as access_tables  # noqa: F401
from app.campaign import tables as campaign_tables  # noqa: F401
from app.encounters import tables as encounter_tables  # noqa: F401
from app.events import tables as event_tables  # noqa: F401
from app.idempotency import tables as idempotency_tables  # noqa: F401
from app.platform.db import metadata
from app.stats import tables as stats_tables  # noqa: F401
from app.webhooks import tables as webhook_tables  # noqa: F401

__all__ = ["metadata"]
