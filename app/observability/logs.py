"""Structured logs: one JSON object per line, each carrying the request id, plus one access line per request."""

from __future__ import annotations

import logging
import sys
from datetime import datetime, timezone
from typing import TextIO

import orjson
from asgi_correlation_id import CorrelationIdFilter
from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.orjson import OrjsonFormatter

ACCESS_LOGGER = "app.access"
# uvicorn's access log stays off (`--no-access-log`): `app.access` (AccessLog) replaces it, with the route template.
_HANDLER_NAME = "combat-json"
# The service's own loggers
JSON_LOGGERS = ("app",)


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


class AccessLog:
    """One JSON line per request on stdout, with the fields and the shape of every other log line.

    Written directly, not through a logging record and its formatter chain (which cost about as much as the
    rest of the edge together), but it obeys the `app.access` logger's level: at WARNING there is none.
    Operators who route logs elsewhere read stdout, as for every other line."""

    def __init__(self) -> None:
        self._logger = logging.getLogger(ACCESS_LOGGER)

    def write(self, method: str, route: str, path: str, status: int, seconds: float, request_id: str) -> None:
        if not self._logger.isEnabledFor(logging.INFO):  # cached by logging until a level changes
            return
        line = {
            "level": "INFO",
            "logger": ACCESS_LOGGER,
            "message": "request",
            "request_id": request_id,
            "time": datetime.now(timezone.utc),
            "method": method,
            "route": route,
            "path": path,  # as sent, without the query
            "status": status,
            "duration_ms": round(seconds * 1000, 2),
        }
        stream = sys.stdout
        stream.write(orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE).decode())
        stream.flush()  # as logging's handler does: a line is out when the request is
