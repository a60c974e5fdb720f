"""Webhook metrics at /metrics: attempts by outcome, the queue's depth and its oldest pending event's age."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge


class WebhookMetrics:
    def __init__(self, registry: CollectorRegistry):
        self._deliveries = Counter(
            "combat_webhook_deliveries",
            "Webhook attempts by outcome: delivered, retried (to be tried again), given_up.",
            ["outcome"],
            registry=registry,
        )
        # Read from the database by whichever worker ran the job last: its figure is the one shown, and a
        # worker that exited drops out (a stale "max" of a dead worker would stay forever).
        self._depth = Gauge(
            "combat_webhook_queue_depth", "Pending webhook events of enabled subscriptions.",
            registry=registry, multiprocess_mode="livemostrecent",
        )  # fmt: skip
        self._oldest = Gauge(
            "combat_webhook_oldest_pending_seconds", "Age of the oldest pending webhook event.",
            registry=registry, multiprocess_mode="livemostrecent",
        )  # fmt: skip

    def delivery(self, outcome: str) -> None:
        self._deliveries.labels(outcome).inc()

    def queue(self, depth: int, oldest_seconds: float) -> None:
        self._depth.set(depth)
        self._oldest.set(oldest_seconds)
