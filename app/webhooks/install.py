"""Composition of the webhooks: the outbox recorder on the changefeed, the deliveries job on the dispatcher,
the metrics. `start` (in the lifespan) tells the SQLite outbox whether any subscription exists."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from app.config import Settings
from app.platform import changefeed
from app.platform.db import Database
from app.platform.dispatcher import Dispatcher
from app.webhooks.delivery import Deliveries
from app.webhooks.metrics import WebhookMetrics
from app.webhooks.outbox import OUTBOX


class Webhooks:
    def __init__(self, settings: Settings, deliveries: Deliveries):
        self.settings = settings
        self.deliveries = deliveries

    async def start(self, database: Database) -> None:
        if self.settings.is_sqlite:
            await OUTBOX.learn(database)


def install_webhooks(settings: Settings, dispatcher: Dispatcher, registry: CollectorRegistry) -> Webhooks:
    changefeed.record_with(OUTBOX)
    deliveries = Deliveries(settings, dispatcher, WebhookMetrics(registry))
    if settings.webhook_deliveries:
        deliveries.register()
    return Webhooks(settings, deliveries)
