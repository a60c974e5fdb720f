"""The SSE messages of the stream (README.md, "Table play"): `event:`, `id:` (the encounter's version) and one
JSON `data:` line."""

from __future__ import annotations

from typing import Any

from sse_starlette import ServerSentEvent

from app.platform.rendering import render_json


def message(kind: str, version: int, data: Any) -> bytes:
    return ServerSentEvent(data=render_json(data).decode(), event=kind, id=str(version)).encode()


def sync_message(version: int) -> bytes:
    return message("sync", version, {"version": version})
