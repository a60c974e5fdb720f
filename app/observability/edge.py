"""The edge: one pure-ASGI middleware doing what every request needs before and after the app.

- the request id: the caller's X-Request-ID when it is a safe token, a fresh one otherwise, in the
  logging context and echoed on the answer;
- the body limit: a Content-Length over the limit is refused at once, a chunked body is counted as it
  streams and refused the moment it passes the limit;
- CORS, only for requests that carry an Origin (a browser's): Starlette's CORSMiddleware answers the
  preflights and decorates those answers, every other request skips it;
- after the answer, the metrics and the access line, from one measurement, with the route template the
  router left in the scope (no second match).

One layer instead of four: each layer of Starlette middleware costs a coroutine, a wrapped `send` and a
copy of the headers per request, and the metrics library matched the route again to find its template.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import uuid4

from asgi_correlation_id.context import correlation_id
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.observability.logs import AccessLog
from app.observability.metrics import HttpMetrics
from app.observability.request_id import REQUEST_ID_HEADER, is_acceptable_request_id
from app.platform.errors import PayloadTooLarge
from app.platform.rendering import PROBLEM_MEDIA_TYPE, problem_json

_REQUEST_ID = REQUEST_ID_HEADER.lower().encode()
_REPLAYED = b"idempotent-replayed"
DRAINED_BYTES = 1024 * 1024  # a refused body up to this size is read before the 413; a bigger one is not
UNTEMPLATED = "none"  # every path no route matched shares one series: no label explosion


class BodyTooLarge(HTTPException):
    """An HTTPException, so that FastAPI's body parsing lets it through to the problem handlers."""

    def __init__(self, max_bytes: int):
        super().__init__(413, f"Request bodies are limited to {max_bytes} bytes.")


def route_template(scope: Scope) -> str:
    """The matched route's path template, which the router put in the scope ("none" when nothing matched)."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else UNTEMPLATED


class Edge:
    def __init__(
        self,
        app: ASGIApp,
        *,
        metrics: HttpMetrics,
        access_log: AccessLog,
        max_body_bytes: int,
        body_limits: Mapping[str, int] | None = None,
        cors: Mapping[str, Any] | None = None,
    ):
        self.app = app
        self.metrics = metrics
        self.access_log = access_log
        self.max_body_bytes = max_body_bytes
        self.body_limits = dict(body_limits or {})  # exact paths with their own limit (an import's document)
        self.with_cors: ASGIApp = CORSMiddleware(app, **(cors or {}))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        sent_id = origin = declared = None
        for name, value in scope["headers"]:
            if name == _REQUEST_ID:
                sent_id = value
            elif name == b"origin":
                origin = value
            elif name == b"content-length":
                declared = value
        request_id = sent_id.decode("latin-1") if sent_id is not None else None
        if request_id is None or not is_acceptable_request_id(request_id):
            request_id = uuid4().hex
        correlation_id.set(request_id)  # each request runs in a task of its own: its own context
        header = (_REQUEST_ID, request_id.encode())
        status = 500  # what is counted when the app raises before it answers
        replayed = False
        max_bytes = self.body_limits.get(scope["path"], self.max_body_bytes)

        async def edge_send(message: Message) -> None:
            nonlocal status, replayed
            if message["type"] == "http.response.start":
                status = message["status"]
                headers: list[tuple[bytes, bytes]] = list(message.get("headers", ()))
                replayed = any(name == _REPLAYED and value == b"true" for name, value in headers)
                headers.append(header)
                message = {**message, "headers": headers}
            await send(message)

        app = self.app if origin is None else self.with_cors
        try:
            if declared is not None and (not declared.isdigit() or int(declared) > max_bytes):
                if declared.isdigit() and int(declared) <= DRAINED_BYTES:
                    await _drain(receive)
                await _refuse(scope, receive, edge_send, max_bytes)
            elif declared is None and scope["method"] in ("POST", "PUT", "PATCH"):
                await self._counted(app, scope, receive, edge_send, max_bytes)
            else:  # a declared length within the limit: the server reads exactly that many bytes
                await app(scope, receive, edge_send)
        finally:
            duration = time.perf_counter() - started
            route = route_template(scope)
            self.metrics.record(scope["method"], route, status, duration, replayed=replayed)
            self.access_log.write(scope["method"], route, scope["path"], status, duration, request_id)

    async def _counted(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send, max_bytes: int) -> None:
        """A body without a Content-Length (chunked): counted as it streams."""
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    raise BodyTooLarge(max_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if started:
                raise
            await _refuse(scope, receive, send, max_bytes)


async def _drain(receive: Receive) -> None:
    """Read a modest refused body to its end before answering: a proxy still writing it to a socket we
    closed gets a reset and answers 502 instead of our 413 (seen with nginx under load)."""
    more = True
    while more:
        message = await receive()
        more = message["type"] == "http.request" and message.get("more_body", False)


async def _refuse(scope: Scope, receive: Receive, send: Send, max_bytes: int) -> None:
    body = problem_json(
        PayloadTooLarge.status,
        PayloadTooLarge.type,
        PayloadTooLarge.title,
        f"Request bodies are limited to {max_bytes} bytes.",
    )
    response = Response(
        body, status_code=PayloadTooLarge.status, media_type=PROBLEM_MEDIA_TYPE, headers={"Connection": "close"}
    )
    await response(scope, receive, send)


def cors_options(origins: Sequence[str], origin_regex: str | None) -> dict[str, Any]:
    """What a browser on another origin (a VTT module) may send and read."""
    return {
        "allow_origins": list(origins),
        "allow_origin_regex": origin_regex,
        "allow_credentials": False,
        "allow_methods": ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
        "allow_headers": [
            "Authorization",
            "Content-Type",
            "Idempotency-Key",
            "If-Match",
            "If-None-Match",
            "X-Request-ID",
            "Last-Event-ID",  # an EventSource reconnecting
        ],
        "expose_headers": ["ETag", "Location", "Retry-After", "Idempotent-Replayed", "X-Request-ID"],
        "max_age": 600,
    }
