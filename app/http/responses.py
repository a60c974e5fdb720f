"""Complete replies: status, body and headers (JSON rendered by app/platform/rendering.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.responses import Response

from app.idempotency.keys import StoredReply
from app.platform.rendering import render_json

JSON_MEDIA_TYPE = "application/json"


@dataclass(frozen=True)
class Reply(StoredReply):
    """A whole HTTP answer, the one way a router answers: built by a service when it is kept with an
    Idempotency-Key (a retry gets exactly this), by the router otherwise."""

    @classmethod
    def json(cls, status_code: int, content: Any, **headers: str) -> Reply:
        body = (
            content.model_dump_json(by_alias=True).encode()
            if hasattr(content, "model_dump_json")
            else render_json(content)
        )
        return cls(status_code, body, {"content-type": JSON_MEDIA_TYPE, **headers})

    @classmethod
    def no_content(cls, **headers: str) -> Reply:
        return cls(204, b"", headers)

    def response(self, **extra_headers: str) -> Response:
        return Response(self.body, status_code=self.status_code, headers={**self.headers, **extra_headers})
