"""The Discord form against a local stand-in that enforces Discord's limits and answers 429 now and then: one
message per resolved round, its downs and its turn's end inside it, the message edited when the round is
undone, short messages for the rest, every rate limit honoured."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.api.discord_standin import DiscordStandIn
from tests.api.helpers import assert_problem
from tests.api.test_webhooks import FAST, play, two_fighters
from tests.api.webhook_support import Receiver, serving, wait_for
from tests.conftest import new_campaign_key


@pytest.fixture
def discord() -> Iterator[tuple[DiscordStandIn, str]]:
    standin = DiscordStandIn()
    with serving(Receiver(answer=standin.answer)) as receiver:
        yield standin, f"{receiver.url}/api"


@pytest.fixture
def client(settings, discord) -> Iterator[TestClient]:
    settings = settings.model_copy(update={**FAST, "discord_api_base": discord[1]})
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        test_client.headers["Authorization"] = f"Bearer {new_campaign_key(test_client)}"
        yield test_client


def test_a_round_is_one_message_edited_when_undone_within_discords_limits(client, discord):
    standin, base = discord
    hook = client.post("/v1/webhooks", json={"url": f"{base}/webhooks/123456/tok-EN_x", "format": "discord"})
    assert hook.status_code == 201, hook.text
    assert hook.json()["secret"] is None  # the URL is the secret
    url, ids = two_fighters(client)
    documents = play(client, url, ids, 6)
    assert client.delete(f"{url}/rounds/6").status_code == 204
    assert client.post(f"{url}/finish").status_code == 200
    wait_for(lambda: len(standin.order) == 7 and standin.edits, "six rounds, the finish, and the edit")
    titles = standin.titles()
    assert [t.split(" (")[0] for t in titles[:5]] == [f"Round {n}" for n in range(1, 6)]
    assert titles[5] == "~~Round 6~~ (undone)"  # the message of round 6, edited
    assert titles[6] == "The fight is over."
    assert standin.edits == [standin.order[5]]
    for document, message_id in zip(documents[:5], standin.order, strict=False):
        description = standin.messages[message_id]["embeds"][0]["description"]
        if document["bleeding"]:  # the turn's end, told inside the round's message
            assert "blood" in description
    assert standin.violations == [] and standin.ignored == []
    assert standin.answered_429 >= 1  # it was told to wait, and waited
    path = f"/v1/webhooks/{hook.json()['id']}/deliveries"
    log = wait_for(
        lambda: (items := client.get(path, params={"limit": 100}).json()["items"])
        and {d["status"] for d in items} == {"delivered"} and items,
        "every delivery settled",
    )
    assert any(d["attempts"] > 1 for d in log)  # a 429 is a retry, same event


def test_a_discord_subscription_needs_a_discord_webhook_url(client, discord):
    _standin, base = discord
    for url in (f"{base}/channels/1/messages", f"{base}/webhooks/abc/token", f"{base}/webhooks/1/t?x=1"):
        refused = client.post("/v1/webhooks", json={"url": url, "format": "discord"})
        assert_problem(refused, 422, "not-a-discord-webhook")
    assert client.get("/v1/webhooks").json() == []
