"""Routes whose JSON bodies are parsed by orjson: FastAPI's documented custom `APIRoute` and `Request`
(docs: "Custom Request and APIRoute class"); FastAPI itself still decides when a body is JSON, and
validates what the parser returns exactly as before.

orjson parses a body about four times faster than the standard library's `json.loads`, which Starlette
uses (bench/README.md, "Resolve"). What orjson refuses goes to `json.loads` unchanged, so every body
that was accepted still is (NaN and Infinity, integers past 64 bits, lone surrogates, UTF-16 and UTF-32
bodies: orjson refuses them, `json.loads` takes them) and a malformed body gets `json.loads`'s error, with
its message and position, as before."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from fastapi import Request, Response
from fastapi.routing import APIRoute


class OrjsonRequest(Request):
    """The route's request with orjson for `json()`; the body is read and kept by the original request,
    which is the one the exception handlers get (the 422 handler reads the body again from it)."""

    def __init__(self, original: Request):
        super().__init__(original.scope, original.receive)
        self.original = original

    async def body(self) -> bytes:
        return await self.original.body()

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = orjson.loads(body)
            except orjson.JSONDecodeError:
                self._json = json.loads(body)  # what the standard parser accepts, or its own error
        return self._json


class OrjsonRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def parse_with_orjson(request: Request) -> Response:
            return await handler(OrjsonRequest(request))

        return parse_with_orjson
