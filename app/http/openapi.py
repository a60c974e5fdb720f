"""The OpenAPI document, with every problem response a client can get documented as problem+json."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from app.http.openapi_schemas import (
    defaults_in_words,
    document_of_its_own,
    items_everywhere,
    plain_header,
    standard_bounds,
)
from app.http.problems.catalogue import CATALOGUE
from app.platform.rendering import PROBLEM_MEDIA_TYPE, TYPE_PREFIX

PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {
            "type": "string",
            "description": "Stable problem type, /problems/<slug>; GET it for its meaning and what to do.\n\n"
            + "\n".join(f"- `{TYPE_PREFIX}{p.slug}` ({p.status}): {p.meaning}" for p in CATALOGUE.values()),
            "examples": ["/problems/invalid-round"],
        },
        "title": {"type": "string"},
        "status": {"type": "integer", "description": "Equal to the HTTP status."},
        "detail": {"type": "string"},
        "errors": {
            "type": "array",
            "description": "Validation problems: one entry per bad field.",
            "items": {
                "type": "object",
                "required": ["in", "pointer", "detail"],
                "properties": {
                    "in": {
                        "type": "string",
                        "enum": ["body", "query", "path", "header", "cookie", "staged", "encounter"],
                        "description": "Where the field is: the request, a staged declaration the round would "
                        "use (`staged`, with `combatant`), or the stored encounter (`encounter`).",
                    },
                    "pointer": {"type": "string", "description": "JSON pointer to the field (RFC 6901)."},
                    "detail": {"type": "string"},
                    "line": {"type": "integer", "description": "For a JSON syntax error: the line (from 1)."},
                    "column": {"type": "integer", "description": "For a JSON syntax error: the column (from 1)."},
                },
            },
        },
    },
    "additionalProperties": True,
}
DESCRIPTIONS = {
    400: "Malformed Idempotency-Key, or a body that cannot be read",
    415: "A body whose Content-Type is not application/json",
    401: "Missing or bad credentials",
    403: "Credentials without the scope this needs",
    404: "No such resource",
    409: "Conflict: a concurrent change won, or a retry of a request still running; re-read and resend",
    412: "If-Match names an ETag that is no longer current",
    413: "Body over the size limit",
    422: "Invalid request: each bad field in errors[]",
    429: "Too many requests; see Retry-After",
    500: "Unexpected error",
    503: "The database is unavailable; see Retry-After",
}
NO_DATABASE = {"/healthz", "/v1/rules", "/problems", "/problems/{slug}"}
OPEN = {"/healthz", "/readyz", "/v1/rules", "/problems", "/problems/{slug}"}
# open to all; a key, if sent, must be valid
CREDENTIALS_OPTIONAL = {"/v1/campaigns", "/v1/resolve", "/v1/odds", "/v1/campaigns/import"}
EVENTS = "/v1/encounters/{encounter_id}/events"  # a key or token, or a stream ticket in the query
STREAM_TICKET_SCHEME = {
    "type": "apiKey",
    "in": "query",
    "name": "ticket",
    "description": "A single-use stream ticket (POST …/stream-tickets), for an EventSource, which cannot send "
    "Authorization.",
}
SERVERS = [{"url": "http://127.0.0.1:8000", "description": "A local run (make run); behind a proxy, its address."}]


METRICS = "/metrics"


def problem_statuses(path: str, method: str) -> set[int]:
    if path == METRICS:
        return {401, 500}  # 401: METRICS_TOKEN is set and was not sent; no database, no rate limit
    statuses = {500}
    if path not in OPEN:
        statuses |= {401, 429}
        if path not in CREDENTIALS_OPTIONAL:
            statuses.add(403)
    if path not in ("/healthz", "/v1/rules", "/readyz"):
        statuses.add(422)
    if path not in NO_DATABASE:
        statuses.add(503)
    if "{" in path:
        statuses.add(404)  # whatever the path names may not exist
    if "{encounter_id}" in path:
        if method in ("post", "patch", "delete"):
            statuses |= {409, 412}
    if path == "/problems/{slug}":
        statuses.add(404)
    if path == "/v1/encounters" and method == "post":
        statuses.add(404)  # a combatant made from a character or creature the campaign does not have
    if method == "post":
        statuses |= {400, 409, 413, 415}  # 400: a malformed Idempotency-Key or an unreadable body
    if method in ("patch", "put"):
        statuses |= {400, 413, 415}
    if method == "put":
        statuses.add(409)  # staging a declaration: the database stayed too busy to take it
    return statuses


def _problem_response(status: int, description: str | None = None) -> dict[str, Any]:
    """description: the route's own (it names the problem types it adds), else the generic one."""
    return {
        "description": description or DESCRIPTIONS[status],
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


# How responses lead to other operations (OpenAPI links): documentation, and a map for stateful testing.
ENCOUNTER = {"encounter_id": "$response.body#/id"}
COMBATANT_OF_NEW_ENCOUNTER = {"encounter_id": "$response.body#/id", "combatant_id": "$response.body#/combatants/0/id"}
COMBATANT = {"encounter_id": "$request.path.encounter_id", "combatant_id": "$response.body#/id"}
ROUND = {"encounter_id": "$request.path.encounter_id", "number": "$response.body#/round"}
LINKS = {
    ("/v1/encounters", "post"): [
        ("ReadEncounter", "read_encounter", ENCOUNTER),
        ("UpdateEncounter", "update_encounter", ENCOUNTER),
        ("DeleteEncounter", "delete_encounter", ENCOUNTER),
        ("AddCombatant", "add_combatant", ENCOUNTER),
        ("ResolveRound", "resolve_next_round", ENCOUNTER),
        ("ListRounds", "list_rounds", ENCOUNTER),
        ("EncounterOdds", "encounter_odds", ENCOUNTER),
        ("ReadCombatant", "read_combatant", COMBATANT_OF_NEW_ENCOUNTER),
        ("UpdateCombatant", "update_combatant", COMBATANT_OF_NEW_ENCOUNTER),
    ],
    ("/v1/encounters/{encounter_id}/combatants", "post"): [
        ("ReadCombatant", "read_combatant", COMBATANT),
        ("UpdateCombatant", "update_combatant", COMBATANT),
        ("RemoveCombatant", "remove_combatant", COMBATANT),
    ],
    ("/v1/encounters/{encounter_id}/rounds", "post"): [
        ("ReadRound", "read_round", ROUND),
        ("UndoRound", "undo_round", ROUND),
    ],
}


def _add_links(schema: dict[str, Any]) -> None:
    operation_ids = {op.get("operationId", ""): op for ops in schema["paths"].values() for op in ops.values()}
    for (path, method), links in LINKS.items():
        operation = schema["paths"].get(path, {}).get(method)
        if operation is None:
            continue
        created = next(code for code in operation["responses"] if code.startswith("2"))
        for name, target, parameters in links:
            if target not in operation_ids:
                continue
            operation["responses"][created].setdefault("links", {})[name] = {
                "operationId": target,
                "parameters": parameters,
            }


# Response headers, declared once under components/headers and referenced where they are sent.
HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {
        "description": "The request's id: the one sent in X-Request-ID, or one made for it. Logs carry it too.",
        "schema": {"type": "string"},
    },
    "ETag": {
        "description": "The encounter's version as a strong ETag: send it in If-Match to change, "
        "in If-None-Match to poll.",
        "schema": {"type": "string", "examples": ['"7"']},
    },
    "Location": {"description": "Where the created resource can be read.", "schema": {"type": "string"}},
    "Idempotent-Replayed": {
        "description": "true when this is the stored answer to an earlier request with the same Idempotency-Key.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Retry-After": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer", "minimum": 0}},
}
ENCOUNTER_SCOPE = "/v1/encounters/{encounter_id}"
# In an encounter's scope but not versioned by it: the encounter's own DELETE (it is gone), its tokens, and a
# combatant's removal (answers 204 without one).
NO_ETAG = {
    (ENCOUNTER_SCOPE, "delete"),
    (ENCOUNTER_SCOPE + "/combatants/{combatant_id}", "delete"),
}
METRICS_TOKEN_SCHEME = {
    "type": "http",
    "scheme": "bearer",
    "description": "METRICS_TOKEN, when the service was started with one: then /metrics answers 401 without it.",
}
# In an encounter's scope, but about something beside its version: no ETag.
UNVERSIONED = ("/tokens", "/declarations", "/stream-tickets", "/odds", "/events")
# Created, but nothing to read back at a URL of its own: no Location.
NO_LOCATION = {
    (ENCOUNTER_SCOPE + "/declarations/{combatant_id}", "put"),  # read it in the list of declarations
    (ENCOUNTER_SCOPE + "/stream-tickets", "post"),  # spent by GET .../events?ticket=
}


def sends_etag(path: str, method: str) -> bool:
    if (path, method) in NO_ETAG or any(part in path for part in UNVERSIONED):
        return False
    return path.startswith(ENCOUNTER_SCOPE) or (path == "/v1/encounters" and method == "post")


def takes_idempotency_key(operation: dict[str, Any]) -> bool:
    return any(
        p.get("in") == "header" and p["name"].lower() == "idempotency-key" for p in operation.get("parameters", [])
    )


def _declare_headers(path: str, method: str, operation: dict[str, Any]) -> None:
    for code, response in operation["responses"].items():
        names = ["X-Request-ID"]
        success = code.startswith("2") or code == "304"
        if success and sends_etag(path, method):
            names.append("ETag")
        if code == "201" and (path, method) not in NO_LOCATION:
            names.append("Location")
        if code.startswith("2") and takes_idempotency_key(operation):
            names.append("Idempotent-Replayed")
        if code in ("429", "503"):
            names.append("Retry-After")
        declared = response.setdefault("headers", {})
        for name in names:
            declared[name] = {"$ref": f"#/components/headers/{name}"}


def _type_text_bodies(response: dict[str, Any]) -> None:
    """A text body declared without a schema (an event stream, the metrics page) is a string: say so, or
    generators type it Any."""
    for media_type, content in response.get("content", {}).items():
        if media_type.startswith("text/") and not content.get("schema"):
            content["schema"] = {"type": "string"}


def build_openapi(app: FastAPI, extra_statuses: Any = None) -> dict[str, Any]:
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Problem"] = PROBLEM_SCHEMA
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    schema["components"]["headers"] = HEADERS
    schemes = schema["components"].setdefault("securitySchemes", {})
    schemes["MetricsToken"] = METRICS_TOKEN_SCHEME
    schemes["StreamTicket"] = STREAM_TICKET_SCHEME
    schema["servers"] = SERVERS
    standard_bounds(schema)
    items_everywhere(schema["components"]["schemas"])
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for response in responses.values():
                _type_text_bodies(response)
            if "304" in responses:
                responses["304"].pop("content", None)  # no body and no Content-Type: declared without content
            statuses = problem_statuses(path, method) | (extra_statuses(path, method) if extra_statuses else set())
            if takes_idempotency_key(operation):
                statuses.add(400)  # a malformed Idempotency-Key
            if 422 not in statuses:
                responses.pop("422", None)  # FastAPI's, for parameters that cannot be invalid (a header read as is)
            for status in statuses:
                declared = responses.get(str(status), {}).get("description")
                responses[str(status)] = _problem_response(status, declared)
            if path in CREDENTIALS_OPTIONAL:
                operation["security"] = [{}, {"HTTPBearer": []}]
            if path == METRICS:
                operation["security"] = [{}, {"MetricsToken": []}]
            if path == EVENTS:
                operation["security"] = [{"HTTPBearer": []}, {"StreamTicket": []}]
            operation.setdefault("security", [{}])  # the rest: open to all, said so
            for parameter in operation.get("parameters", []):
                plain_header(parameter)
            _declare_headers(path, method, operation)
    _add_links(schema)
    document_of_its_own(schema)
    defaults_in_words(schema)
    return schema


def operation_id(route: APIRoute) -> str:
    """The route's function name (create_encounter, resolve_next_round): short, and stable while the code is.
    A test fails if two routes share one."""
    return route.name


def install_openapi(app: FastAPI, extra_statuses: Any = None) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app, extra_statuses)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to customise the schema
