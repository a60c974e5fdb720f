"""JSON as the service writes it: orjson with sorted keys, so a stored round is returned byte for byte as it
was first sent (PostgreSQL's JSONB does not keep key order, so the order must not depend on it); and the
problem+json document every refusal is answered with (RFC 9457)."""

from __future__ import annotations

from typing import Any

import orjson

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "/problems/"


def render_json(content: Any) -> bytes:
    return orjson.dumps(content, option=orjson.OPT_SORT_KEYS)


def problem_json(status: int, type_: str, title: str, detail: str, **extra: Any) -> bytes:
    """A problem document: its `type` is /problems/<slug>, its `status` the HTTP status."""
    return orjson.dumps({"type": TYPE_PREFIX + type_, "title": title, "status": status, "detail": detail, **extra})
