"""Structured logs: one JSON object per line, each carrying the request id, plus one access line per request."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from asgi_correlation_id import CorrelationIdFilter
from prometheus_fastapi_instrumentator.metrics import Info
from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.orjson import OrjsonFormatter

ACCESS_LOGGER = "app.access"
# uvicorn's access log stays off (`--no-access-log`): `app.access` replaces it, with the route template.
_HANDLER_NAME = "combat-json"
# The service's own loggers, and the request-id middleware's (it warns when it replaces an unsafe id)
JSON_LOGGERS = ("app", "asgi_correlation_id")


class StdoutHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever sys.stdout is when a line is written, not when the app was built (pytest's
    capture and process supervisors swap it)."""

    @property
    def stream(self) -> TextIO:
        return sys.stdout

    @stream.setter
    def stream(self, _value: TextIO) -> None:
        pass


def json_handler() -> logging.Handler:
    handler = StdoutHandler()
    handler.set_name(_HANDLER_NAME)
    handler.addFilter(CorrelationIdFilter(default_value=None))
    handler.setFormatter(
        OrjsonFormatter(
            ["levelname", "name", "message", "correlation_id"],
            rename_fields={"levelname": "level", "name": "logger", "correlation_id": "request_id"},
            timestamp="time",  # ISO 8601, UTC
            reserved_attrs=[*RESERVED_ATTRS, "color_message"],  # uvicorn's ANSI-coloured copy of the message
        )
    )
    return handler


def configure_logging(level: str) -> None:
    """Send the service's loggers and uvicorn's through one JSON handler at `level`. Safe to call once
    per app (tests build many): a later call replaces the handler instead of doubling every line."""
    handler = json_handler()
    for name in JSON_LOGGERS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if h.get_name() == _HANDLER_NAME]:
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(level.upper())
    # uvicorn set up its own text handler before it built the app; its lines ("uvicorn.error"
    # propagates to "uvicorn") now come out as JSON too.
    uvicorn_logger = logging.getLogger("uvicorn")
    for old in list(uvicorn_logger.handlers):
        uvicorn_logger.removeHandler(old)
    uvicorn_logger.addHandler(handler)
    uvicorn_logger.setLevel(level.upper())
    uvicorn_logger.propagate = False


def log_access(info: Info) -> None:
    """An instrumentation of the metrics middleware: it already knows the route template, the status
    and the duration, so the access line is the same measurement as the latency histogram."""
    logging.getLogger(ACCESS_LOGGER).info(
        "request",
        extra={
            "method": info.method,
            "route": info.modified_handler,
            "path": info.request.scope["path"],  # as sent, without the query (building a URL costs more)
            "status": int(info.modified_status) if info.modified_status.isdigit() else info.modified_status,
            "duration_ms": round(info.modified_duration * 1000, 2),
        },
    )
