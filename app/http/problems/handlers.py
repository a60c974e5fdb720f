"""RFC 9457 problem+json for every error: domain refusals, HTTP errors, validation, the unexpected.

Each problem has a stable `type` (`/problems/<slug>`, the slug kebab-case from the error
class), `title`, `status` equal to the HTTP status, `detail`, and for validation errors
`errors[]` with a JSON pointer to each bad field.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import Match

from app.resolver import ResolverError

log = logging.getLogger(__name__)

from app.http.etags import etag, stale_detail  # noqa: E402
from app.platform.errors import PayloadTooLarge, ServiceError, ServiceUnavailable, StaleVersion, pointer  # noqa: E402
from app.platform.rendering import PROBLEM_MEDIA_TYPE, problem_json  # noqa: E402

HTTP_TYPES = {413: PayloadTooLarge.type}  # one type per kind of error, whoever raised it


def problem(
    status: int, type_: str, title: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    body = problem_json(status, type_, title, detail, **extra)
    return Response(body, status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def allowed_methods(request: Request) -> list[str]:
    """Every method any route serves at this path (Starlette's own 405 names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)  # PARTIAL: the path matches, the method does not
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


_LOST = object()  # document_path: the location left the document sent


def _has_no_keys(node: Any) -> bool:
    return node is not _LOST and not isinstance(node, dict)


def document_path(location: tuple[Any, ...], document: Any, missing: bool) -> tuple[Any, ...]:
    """pydantic's location with what is not a field of the document left out: the tag of a union member
    ('attack' in declarations/0/action/attack/target) and validator names. Walks the document sent, so a
    field that happens to share a tag's name stays; the last step of a missing field is kept."""
    path: list[Any] = []
    node = document
    for index, step in enumerate(location):
        last = index == len(location) - 1
        if isinstance(node, dict) and isinstance(step, str):
            if step in node:
                node = node[step]
            elif not (missing and last):
                continue  # not a key of this object: a tag or a validator's name
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        elif isinstance(step, str) and (step.startswith("function-") or _has_no_keys(node)):
            continue  # a list, number, string, boolean or null has no fields: the tag of a union member it failed
        else:
            node = _LOST
        path.append(step)
    return tuple(path)


def _json_body(body: bytes) -> Any:
    try:
        return orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        return None


def line_and_column(text: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of a byte offset, as an editor shows them."""
    before = text[:offset]
    return before.count(b"\n") + 1, offset - (before.rfind(b"\n") + 1) + 1


def _validation_errors(error: RequestValidationError, body: bytes) -> list[dict[str, Any]]:
    document = _json_body(body)
    found = []
    for item in error.errors():
        location = tuple(item.get("loc", ()))
        where = location[0] if location else "body"
        if item.get("type") == "json_invalid":
            # pydantic's location is a character offset, which is no pointer: say where in the text it is
            offset = location[1] if len(location) > 1 and isinstance(location[1], int) else 0
            line, column = line_and_column(body, offset)
            reason = (item.get("ctx") or {}).get("error", "invalid JSON")
            detail = f"The body is not valid JSON: {reason} at line {line}, column {column}."
            found.append({"in": "body", "pointer": "", "detail": detail, "line": line, "column": column})
            continue
        sent = document if where == "body" else None
        path = (
            document_path(location[1:], sent, item.get("type") == "missing")
            if sent is not None
            else tuple(p for p in location[1:] if not (isinstance(p, str) and p.startswith("function-")))
        )
        found.append({"in": where, "pointer": pointer(path), "detail": item.get("msg", "invalid")})
    return found


JSON_MEDIA_TYPES = ("application/json",)


def is_json(content_type: str | None) -> bool:
    media_type = (content_type or "").split(";")[0].strip().lower()
    return media_type in JSON_MEDIA_TYPES or media_type.endswith("+json")


def _unavailable() -> Response:
    detail = "The database did not answer. Nothing was changed; retry shortly."
    return problem(503, ServiceUnavailable.type, ServiceUnavailable.title, detail, headers=ServiceUnavailable.headers)


def install_problem_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def _service_error(_request: Request, error: ServiceError) -> Response:
        return problem(
            error.status, error.type, error.title, error.detail, headers=error.headers or None, **error.extra
        )

    @app.exception_handler(StaleVersion)
    async def _stale_version(request: Request, error: StaleVersion) -> Response:
        detail = stale_detail(request.headers.get("if-match"), error.current)
        return problem(error.status, error.type, error.title, detail, current_etag=etag(error.current))

    @app.exception_handler(ResolverError)
    async def _resolver_error(_request: Request, error: ResolverError) -> Response:
        errors = [{"in": "body", "pointer": issue.field, "detail": issue.message} for issue in error.issues]
        return problem(422, error.type, error.title, str(error), errors=errors)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, error: RequestValidationError) -> Response:
        body = await request.body()  # already read by FastAPI: cached on the request
        content_type = request.headers.get("content-type")
        if body and not is_json(content_type):
            return problem(
                415,
                "unsupported-media-type",
                "Unsupported Media Type",
                f"The body must be JSON sent with Content-Type: application/json, not {content_type or 'none'}.",
            )
        errors = _validation_errors(error, body)
        detail = "; ".join(f"{e['pointer'] or e['in']}: {e['detail']}" for e in errors[:5])
        return problem(422, "validation-error", "The request is not valid", detail, errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, error: StarletteHTTPException) -> Response:
        phrase = HTTPStatus(error.status_code).phrase
        slug = HTTP_TYPES.get(error.status_code) or phrase.lower().replace(" ", "-").replace("'", "")
        detail = error.detail if isinstance(error.detail, str) else phrase
        headers = dict(getattr(error, "headers", None) or {})
        if error.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
            detail = f"{request.method} is not allowed here; use {headers['Allow']}."
        return problem(error.status_code, slug, phrase, detail, headers=headers or None)

    @app.exception_handler(OperationalError)
    async def _database_down(_request: Request, error: DBAPIError) -> Response:
        log.warning("database unavailable: %s", error.orig)
        return _unavailable()

    @app.exception_handler(OSError)
    async def _database_unreachable(_request: Request, error: OSError) -> Response:
        # asyncpg raises the socket's own error (refused, reset, timed out) when a new connection fails;
        # the database is the only peer a request talks to (a Redis failure is caught by the limiter).
        log.warning("database unreachable: %r", error)
        return _unavailable()

    @app.exception_handler(DBAPIError)
    async def _database_error(_request: Request, error: DBAPIError) -> Response:
        if error.connection_invalidated:
            return await _database_down(_request, error)
        log.exception("database error")
        return problem(500, "internal-error", "Internal server error", "An unexpected database error occurred.")

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, error: Exception) -> Response:
        log.exception("unhandled error")
        return problem(500, "internal-error", "Internal server error", "An unexpected error occurred.")
