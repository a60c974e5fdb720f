"""X-Request-ID: taken from the caller when it is a safe token, made otherwise (edge.py), echoed on every answer."""

from __future__ import annotations

import inspect
import re

from asgi_correlation_id.context import correlation_id
from fastapi import FastAPI, Request
from starlette.responses import Response

REQUEST_ID_HEADER = "X-Request-ID"
# Proxies send UUIDs (with or without dashes) or hex ids; anything else could forge log lines or
# smuggle markup into log viewers, so it is replaced by a fresh id.
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{7,127}")


def is_acceptable_request_id(value: str) -> bool:
    return SAFE_REQUEST_ID.fullmatch(value) is not None


def current_request_id() -> str | None:
    return correlation_id.get()


def echo_on_unexpected_errors(app: FastAPI) -> None:
    """Starlette answers an unhandled exception from its outermost layer, outside every middleware the
    app adds, so the edge never sees that 500 go out: the handler adds the header itself (the id is
    still in the context there)."""
    handler = app.exception_handlers.get(Exception)
    if handler is None:
        return

    async def with_request_id(request: Request, error: Exception) -> Response:
        answered = handler(request, error)
        response: Response = await answered if inspect.isawaitable(answered) else answered
        request_id = current_request_id()
        if request_id and REQUEST_ID_HEADER not in response.headers:
            response.headers[REQUEST_ID_HEADER] = request_id
        return response

    app.exception_handlers[Exception] = with_request_id
