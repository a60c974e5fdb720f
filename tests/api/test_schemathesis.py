"""Schemathesis against the OpenAPI document: all phases, positive and negative data, zero failures.

Bounded (deterministic generation, a fixed number of examples per operation) so CI stays fast.
Settings and the reasons for each are in schemathesis.toml at the repository root.
"""

import subprocess
import sys

import httpx
import pytest

from tests.conftest import empty_tables
from tests.load.server import ROOT, Server

pytestmark = pytest.mark.slow


def test_schemathesis_finds_nothing(database_url):
    empty_tables(database_url)
    with Server(database_url, workers=1, RATE_LIMIT_PER_KEY_PER_MINUTE="100000",
                RATE_LIMIT_ANONYMOUS_PER_MINUTE="100000", CAMPAIGNS_PER_ADDRESS_PER_HOUR="100000",
                ODDS_BUDGET="20000") as server:  # odds within the 10 s request timeout; more: a 422
        key = httpx.post(f"{server.url}/v1/campaigns", json={"name": "schemathesis"}).json()["key"]["secret"]
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "run", f"{server.url}/openapi.json",
             "--header", f"Authorization: Bearer {key}",
             "--checks", "all", "--mode", "all", "--phases", "examples,coverage,fuzzing,stateful",
             "--max-examples", "25", "--generation-deterministic", "--continue-on-failure",
             "--request-timeout", "10"],
            cwd=ROOT, capture_output=True, text=True, timeout=600,
        )
    assert run.returncode == 0, run.stdout[-8000:] + run.stderr[-2000:]
