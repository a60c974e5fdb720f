"""Waiting in tests for what happens in the background (a delivery, an event, a page update): poll until it
has happened. The tests check that things arrive, not how fast (benchmarks measure that), so the deadline is
generous: a loaded CI machine is slow, never wrong."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

PATIENCE = 90.0  # seconds: the longest any wait may take before the test fails
# Between two looks: a condition that asks the service counts against its rate limit (1,200 a minute per key),
# which a wait of several seconds polling faster than this would reach.
INTERVAL = 0.05


def wait_for(condition: Callable[[], Any], what: str, timeout: float = PATIENCE) -> Any:
    """Poll until condition() is truthy and return its value, or fail naming what never came."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s (last seen: {value!r})")
        time.sleep(INTERVAL)
