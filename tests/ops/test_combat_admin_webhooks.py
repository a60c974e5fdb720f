"""`combat-admin webhooks list | retry | purge`: the operators' view of the subscriptions and their levers."""

from __future__ import annotations

import asyncio

from fastapi.testclient import TestClient

from app.main import create_app
from app.portability import cli
from tests.api.test_webhooks import FAST, subscribe
from tests.api.webhook_support import Receiver, serving, wait_for
from tests.conftest import new_campaign_key


def admin(settings, capsys, *arguments: str) -> str:
    assert asyncio.run(cli.run(cli.parser().parse_args(["webhooks", *arguments]), settings)) == 0
    printed = str(capsys.readouterr().out).splitlines()
    return "".join(line + "\n" for line in printed if not line.startswith("{"))  # the service's JSON logs aside


def test_list_retry_and_purge(settings, capsys):
    settings = settings.model_copy(update={**FAST, "webhook_retry_hours": 0.0})
    with serving(Receiver(answer=lambda _r: (500, b"", {}))) as receiver, TestClient(create_app(settings)) as client:
        client.headers["Authorization"] = f"Bearer {new_campaign_key(client)}"
        hook = subscribe(client, receiver.url, events=["ping"])
        client.post(f"/v1/webhooks/{hook['id']}/ping")
        log = f"/v1/webhooks/{hook['id']}/deliveries"
        wait_for(lambda: client.get(log).json()["items"][0]["status"] == "given_up", "the ping given up")
        listed = admin(settings, capsys, "list")
        assert hook["id"] in listed and "given_up 1" in listed and receiver.url in listed

        receiver.answer = lambda _r: (204, b"", {})
        assert admin(settings, capsys, "retry", "--subscription", hook["id"]) == "1 events pending again\n"
        client.post(f"/v1/webhooks/{hook['id']}/ping")  # wakes this worker (a CLI on SQLite cannot)
        wait_for(
            lambda: {d["status"] for d in client.get(log).json()["items"]} == {"delivered"}, "both delivered"
        )
        assert admin(settings, capsys, "purge", "--older-than-hours", "1") == "0 events purged\n"
        assert admin(settings, capsys, "purge", "--older-than-hours", "0") == "2 events purged\n"
        assert client.get(log).json()["items"] == []
