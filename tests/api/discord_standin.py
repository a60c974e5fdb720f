"""A local stand-in for Discord's webhook API (127.0.0.1 only) that enforces its documented limits: a message's
`content` up to 2,000 characters, up to 10 embeds, an embed title up to 256 and description up to 4,096
characters, 25 fields, 6,000 characters of embed text; a rate-limit bucket per webhook (5 requests per 2 s here)
announced in `X-RateLimit-*` headers, a 429 with `retry_after` past it, and a 429 now and then regardless.
It records every message, every edit, and every request that ignored a limit it had announced."""

from __future__ import annotations

import itertools
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from tests.api.webhook_support import Received

BUCKET, WINDOW = 5, 2.0
SLACK = 0.05  # seconds of clock difference forgiven


@dataclass
class DiscordStandIn:
    every_nth_is_429: int = 4
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> the message as it stands
    order: list[str] = field(default_factory=list)  # message ids as posted
    edits: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)  # a body past the limits
    ignored: list[str] = field(default_factory=list)  # a request while told to wait
    answered_429: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    _window_start: float = 0.0
    _used: int = 0
    _blocked_until: float = 0.0
    _count: itertools.count = field(default_factory=lambda: itertools.count(1))
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1_000_000_000_000_000))

    def answer(self, request: Received) -> tuple[int, bytes, dict[str, str]]:
        with self.lock:
            now = time.monotonic()
            if now + SLACK < self._blocked_until:
                self.ignored.append(f"{request.method} {request.path} {self._blocked_until - now:.3f}s early")
            if now - self._window_start >= WINDOW:
                self._window_start, self._used = now, 0
            reset_after = max(0.0, WINDOW - (now - self._window_start))
            nth = next(self._count)
            if self._used >= BUCKET or nth % self.every_nth_is_429 == 0:
                retry_after = reset_after if self._used >= BUCKET else 0.3
                self._blocked_until = now + retry_after
                self.answered_429 += 1
                body = {"message": "You are being rate limited.", "retry_after": round(retry_after, 3), "global": False}
                return 429, orjson.dumps(body), self._headers(0, retry_after, json=True)
            self._used += 1
            remaining = BUCKET - self._used
            if remaining == 0:
                self._blocked_until = now + reset_after
            status, body = self._handle(request)
            return status, body, self._headers(remaining, reset_after, json=True)

    @staticmethod
    def _headers(remaining: int, reset_after: float, json: bool) -> dict[str, str]:
        headers = {
            "x-ratelimit-limit": str(BUCKET),
            "x-ratelimit-remaining": str(remaining),
            "x-ratelimit-reset-after": f"{reset_after:.3f}",
            "x-ratelimit-bucket": "standin",
        }
        return {**headers, "content-type": "application/json"} if json else headers

    def _handle(self, request: Received) -> tuple[int, bytes]:
        posted = re.fullmatch(r"/api/webhooks/(\d+)/([\w-]+)\?wait=true", request.path)
        edited = re.fullmatch(r"/api/webhooks/(\d+)/([\w-]+)/messages/(\d+)", request.path)
        message = request.json()
        problem = self._limits(message)
        if problem:
            self.violations.append(problem)
            return 400, orjson.dumps({"message": problem, "code": 50035})
        if request.method == "POST" and posted:
            message_id = str(next(self._ids))
            self.messages[message_id] = message
            self.order.append(message_id)
            return 200, orjson.dumps({"id": message_id, **message})
        if request.method == "PATCH" and edited and edited.group(3) in self.messages:
            self.messages[edited.group(3)] = {**self.messages[edited.group(3)], **message}
            self.edits.append(edited.group(3))
            return 200, orjson.dumps({"id": edited.group(3), **message})
        self.violations.append(f"unexpected {request.method} {request.path}")
        return 404, orjson.dumps({"message": "Unknown Webhook", "code": 10015})

    @staticmethod
    def _limits(message: dict[str, Any]) -> str | None:
        content, embeds = message.get("content") or "", message.get("embeds") or []
        if not content and not embeds and "content" not in message:
            return "empty message"
        if len(content) > 2000:
            return "content past 2000"
        if len(embeds) > 10:
            return "more than 10 embeds"
        total = 0
        for embed in embeds:
            title, description = embed.get("title") or "", embed.get("description") or ""
            if len(title) > 256 or len(description) > 4096 or len(embed.get("fields", [])) > 25:
                return "an embed past its limits"
            total += len(title) + len(description)
        return "embeds past 6000 characters" if total > 6000 else None

    def titles(self) -> list[str]:
        with self.lock:
            return [self._title(self.messages[i]) for i in self.order]

    @staticmethod
    def _title(message: dict[str, Any]) -> str:
        embeds = message.get("embeds") or []
        return embeds[0]["title"] if embeds else message.get("content", "")
