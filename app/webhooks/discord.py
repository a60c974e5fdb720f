"""The Discord form: one message per resolved round (the chronicle's Discord form of it, which tells its downs
and its turn's end), edited when the round is undone; other events are short messages. Discord's limits are
kept (the chronicle keeps them for a round; a short message's content stays under 2,000 characters), and so
are its rate limits:
a 429's `retry_after`, and an empty bucket (`X-RateLimit-Remaining: 0`) until `X-RateLimit-Reset-After`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from app.chronicle import discord_messages
from app.webhooks import words
from app.webhooks.render import People, round_story, screened_data

CONTENT_LIMIT = 2000
WEBHOOK_PATH = re.compile(r"^/webhooks/(\d{1,25})/([A-Za-z0-9_\-]{1,200})/?$")


def is_discord_webhook(url: str, api_base: str) -> bool:
    """`{DISCORD_API_BASE}/webhooks/{id}/{token}` (no query, no fragment)."""
    base = httpx.URL(api_base.rstrip("/"))
    try:
        given = httpx.URL(url)
    except httpx.InvalidURL:
        return False
    if (given.scheme, given.host, given.port) != (base.scheme, base.host, base.port) or given.query or given.fragment:
        return False
    base_path = base.path.rstrip("/")
    return given.path.startswith(base_path + "/") and bool(WEBHOOK_PATH.match(given.path[len(base_path) :]))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def message(kind: str, data: dict[str, Any], scope: str, lang: str, people: People) -> dict[str, Any] | None:
    """The message body an event becomes; None when the scope may not see it."""
    screened = screened_data(kind, data, scope, people)
    if screened is None:
        return None
    if kind == "round.resolved":  # the chronicle's Discord form: its lines tell the downs and the turn's end
        first, *_more = discord_messages([round_story(data, scope, lang, people)])
        return {**first, "allowed_mentions": {"parse": []}}
    short = {
        "round.undone": lambda: words.text(lang, "undone", round=screened["round"]),
        "encounter.finished": lambda: words.text(lang, "finished"),
        "encounter.reopened": lambda: words.text(lang, "reopened"),
        "declarations.complete": lambda: words.text(lang, "complete", round=screened["round"]),
        "ping": lambda: words.text(lang, "ping"),
        "turn.ended": lambda: words.text(
            lang, "turn_ended", bleeding=words.bleeding_summary(screened["bleeding"], lang, people)
        ),
        "combatant.down": lambda: words.down_line(screened, lang, people),
    }[kind]()
    return {"content": _clip(short, CONTENT_LIMIT), "allowed_mentions": {"parse": []}}


def undone_edit(round_number: int, lang: str) -> dict[str, Any]:
    """What an undone round's message becomes."""
    title = words.text(lang, "undone_title", round=round_number)
    return {"content": "", "embeds": [{"title": title, "description": words.text(lang, "undone", round=round_number)}]}


@dataclass(frozen=True)
class RateLimit:
    """Seconds until Discord takes this webhook's next message, if it said so."""

    wait: float | None


def rate_limit(response: httpx.Response) -> RateLimit:
    if response.status_code == 429:
        try:
            retry_after = float(response.json().get("retry_after", 0))
        except (ValueError, AttributeError):
            retry_after = float(response.headers.get("retry-after", "1") or 1)
        return RateLimit(max(retry_after, float(response.headers.get("x-ratelimit-reset-after", 0) or 0)))
    if response.headers.get("x-ratelimit-remaining") == "0":
        return RateLimit(float(response.headers.get("x-ratelimit-reset-after", 0) or 0))
    return RateLimit(None)
