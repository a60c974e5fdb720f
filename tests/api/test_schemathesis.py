"""Schemathesis against the OpenAPI document: all phases, positive and negative data, zero failures.

Bounded (deterministic generation, a fixed number of examples per operation) so CI stays fast.
Settings and the reasons for each are in schemathesis.toml at the repository root.

The key the run tests with must stay valid to the end, or every later request is a 401 that tests
nothing: the two operations that end the key they are sent with (rotating it, revoking a key, which may
be that one) run apart, with a key of their own, after the main run. Every request and its answer is
read back from the run's HAR report to show that the main run was answered, not refused.
"""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.conftest import empty_tables
from tests.load.server import ROOT, Server

pytestmark = pytest.mark.slow

ENDS_ITS_KEY = ("rotate_key", "revoke_key")


def new_campaign_key(server: Server, name: str) -> str:
    created = httpx.post(f"{server.url}/v1/campaigns", json={"name": name}, timeout=60)
    assert created.status_code == 201, created.text
    return created.json()["key"]["secret"]


def schemathesis(server: Server, key: str, har: Path, phases: str, *selection: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "run", f"{server.url}/openapi.json",
         "--header", f"Authorization: Bearer {key}",
         "--checks", "all", "--mode", "all", "--phases", phases,
         "--max-examples", "25", "--generation-deterministic", "--continue-on-failure",
         # generous: a loaded machine answers slowly, and a timeout would be reported as a failure
         "--request-timeout", "120", "--no-color",
         "--report", "har", "--report-har-path", str(har), *selection],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
    )


def findings(run: subprocess.CompletedProcess) -> str:
    """The run's report from its failures on, each line cut short: a generated body can be 100 KB long."""
    report = run.stdout[run.stdout.find("FAILURES"):] if "FAILURES" in run.stdout else run.stdout
    return "\n".join(line[:500] for line in report.splitlines())[-30000:] + run.stderr[-2000:]


def answered(har: Path) -> Counter:
    """How many requests of the run got each status code."""
    entries = json.loads(har.read_text(encoding="utf-8"))["log"]["entries"]
    return Counter(entry["response"]["status"] for entry in entries)


def test_schemathesis_finds_nothing(database_url, tmp_path):
    empty_tables(database_url)
    # ODDS_BUDGET: odds stay quick enough for the run; a larger request gets its 422
    with Server(database_url, workers=1, RATE_LIMIT_PER_KEY_PER_MINUTE="100000",
                RATE_LIMIT_ANONYMOUS_PER_MINUTE="100000", CAMPAIGNS_PER_ADDRESS_PER_HOUR="100000",
                ODDS_BUDGET="20000") as server:
        key, spare = new_campaign_key(server, "schemathesis"), new_campaign_key(server, "schemathesis: key ends")
        excluded = [argument for operation in ENDS_ITS_KEY for argument in ("--exclude-operation-id", operation)]
        main = schemathesis(server, key, tmp_path / "main.har", "examples,coverage,fuzzing,stateful", *excluded)
        still_valid = httpx.get(f"{server.url}/v1/campaign", headers={"Authorization": f"Bearer {key}"}, timeout=60)
        included = [argument for operation in ENDS_ITS_KEY for argument in ("--include-operation-id", operation)]
        # No stateful phase: no link leads to these two operations alone
        ending = schemathesis(server, spare, tmp_path / "ending.har", "examples,coverage,fuzzing", *included)
    assert main.returncode == 0, findings(main)
    assert ending.returncode == 0, findings(ending)
    assert still_valid.status_code == 200, still_valid.text

    statuses = answered(tmp_path / "main.har")
    total = sum(statuses.values())
    tested = sum(count for status, count in statuses.items() if 200 <= status < 300 or 400 <= status < 500)
    # 401s remain: the checks that send no or a wrong credential on purpose, a small share of the run
    assert total > 1000 and tested - statuses[401] > total / 2 and statuses[401] < total / 5, statuses
    assert sum(answered(tmp_path / "ending.har").values()) > 0
