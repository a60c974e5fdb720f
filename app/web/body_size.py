"""Refuse request bodies over the limit before the application reads them, chunked ones included."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.platform.errors import PayloadTooLarge
from app.web.problems.handlers import problem


class BodyTooLarge(HTTPException):
    """An HTTPException, so that FastAPI's body parsing lets it through to the problem handlers."""

    def __init__(self, max_bytes: int):
        super().__init__(413, f"Request bodies are limited to {max_bytes} bytes.")


class BodySizeLimit:
    """Pure ASGI middleware: a Content-Length over the limit is refused at once; a chunked body is
    counted as it streams and refused the moment it passes the limit."""

    def __init__(self, app: ASGIApp, max_bytes: int, per_path: Mapping[str, int] | None = None):
        self.app = app
        self.max_bytes = max_bytes
        self.per_path = dict(per_path or {})  # exact paths with their own limit (an import's document)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes = self.per_path.get(scope["path"], self.max_bytes)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > max_bytes):
            await self._refuse(scope, receive, send, max_bytes)
            return
        received = 0
        response_started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    raise BodyTooLarge(max_bytes)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            response_started = response_started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if response_started:
                raise
            await self._refuse(scope, receive, send, max_bytes)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, max_bytes: int) -> None:
        response = problem(
            PayloadTooLarge.status,
            PayloadTooLarge.type,
            PayloadTooLarge.title,
            f"Request bodies are limited to {max_bytes} bytes.",
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)
