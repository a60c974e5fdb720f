"""The OpenAPI document, with every problem response a client can get documented as problem+json."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.problems import PROBLEM_MEDIA_TYPE

PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {
            "type": "string",
            "description": "Stable problem type, /problems/<slug>.",
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
                    "in": {"type": "string", "enum": ["body", "query", "path", "header", "cookie"]},
                    "pointer": {"type": "string", "description": "JSON pointer to the field (RFC 6901)."},
                    "detail": {"type": "string"},
                },
            },
        },
    },
    "additionalProperties": True,
}
DESCRIPTIONS = {
    400: "Malformed Idempotency-Key, or a body that cannot be read",
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
NO_DATABASE = {"/healthz", "/v1/rules"}
OPEN = {"/healthz", "/readyz", "/v1/rules"}
CREDENTIALS_OPTIONAL = {"/v1/campaigns", "/v1/resolve", "/v1/odds"}  # open to all; a key, if sent, must be valid


def problem_statuses(path: str, method: str) -> set[int]:
    statuses = {500}
    if path not in OPEN:
        statuses |= {401, 429}
        if path not in CREDENTIALS_OPTIONAL:
            statuses.add(403)
    if path not in ("/healthz", "/v1/rules", "/readyz"):
        statuses.add(422)
    if path not in NO_DATABASE:
        statuses.add(503)
    if "{encounter_id}" in path:
        statuses.add(404)
        if method in ("post", "patch", "delete"):
            statuses |= {409, 412}
    if method == "post":
        statuses |= {400, 409, 413}  # 400: a malformed Idempotency-Key or an unreadable body
    if method == "patch":
        statuses |= {400, 413}
    return statuses


def _problem_response(status: int) -> dict[str, Any]:
    return {
        "description": DESCRIPTIONS[status],
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
            target_id = next(oid for oid in operation_ids if oid.startswith(f"{target}_"))
            operation["responses"][created].setdefault("links", {})[name] = {
                "operationId": target_id,
                "parameters": parameters,
            }


def build_openapi(app: FastAPI, extra_statuses: Any = None) -> dict[str, Any]:
    schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Problem"] = PROBLEM_SCHEMA
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            statuses = problem_statuses(path, method) | (extra_statuses(path, method) if extra_statuses else set())
            for status in statuses:
                responses[str(status)] = _problem_response(status)
            if path in CREDENTIALS_OPTIONAL:
                operation["security"] = [{}, {"HTTPBearer": []}]
    _add_links(schema)
    return schema


def install_openapi(app: FastAPI, extra_statuses: Any = None) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app, extra_statuses)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to customise the schema
