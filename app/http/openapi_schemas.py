"""The OpenAPI document's schemas walked and mended: JSON Schema bounds, every array's items, headers typed as
plain strings, request defaults said in words, and the campaign document as one schema of its own."""

from __future__ import annotations

import json
from typing import Any

BOUNDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def standard_bounds(node: Any) -> None:
    """pydantic writes a bound as ge/le (not JSON Schema) when it sits on a before-validated type (our JSONInt);
    rename them, wherever they are, so generators and validators see them."""
    if isinstance(node, dict):
        for short, standard in BOUNDS.items():
            if isinstance(node.get(short), int | float) and not isinstance(node.get(short), bool):
                node[standard] = node.pop(short)
        for value in node.values():
            standard_bounds(value)
    elif isinstance(node, list):
        for value in node:
            standard_bounds(value)


def _schema_refs(node: Any, schemas: dict[str, Any], found: set[str]) -> set[str]:
    """The component schemas node refers to, directly or through other components."""
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            name = ref.rsplit("/", 1)[-1]
            if name not in found:
                found.add(name)
                _schema_refs(schemas[name], schemas, found)
        for value in node.values():
            _schema_refs(value, schemas, found)
    elif isinstance(node, list):
        for value in node:
            _schema_refs(value, schemas, found)
    return found


def request_side_schemas(schema: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(the component schemas a request body or parameter uses, those a response uses)."""
    schemas = schema["components"]["schemas"]
    requests: set[str] = set()
    responses: set[str] = set()
    for operations in schema["paths"].values():
        for operation in operations.values():
            _schema_refs([operation.get("requestBody", {}), operation.get("parameters", [])], schemas, requests)
            _schema_refs(operation.get("responses", {}), schemas, responses)
    return requests, responses


def defaults_in_words(schema: dict[str, Any]) -> None:
    """A request property with a default may be left out, but openapi-typescript (by default) types every
    property carrying `default` as required when its object is a component schema: the bodies a client sends
    would not compile without every defaulted field. So on request-only schemas the default is said in the
    property's description (and kept as `x-default`), never as `default`; such a property is not in
    `required`, so every generator makes it optional and the service fills it in. Response schemas keep
    `default` (the service always sends those fields)."""
    requests, responses = request_side_schemas(schema)
    schemas = schema["components"]["schemas"]
    for name in sorted(requests - responses):
        for prop in schemas[name].get("properties", {}).values():
            if isinstance(prop, dict) and "default" in prop:
                value = prop.pop("default")
                prop["x-default"] = value
                said = f"Default: `{json.dumps(value, ensure_ascii=False)}`."
                prop["description"] = f"{prop['description']} {said}" if prop.get("description") else said


def plain_header(parameter: dict[str, Any]) -> None:
    """An optional header is a string or absent, never null: `anyOf [string, null]` becomes the string."""
    schema = parameter.get("schema", {})
    members = schema.get("anyOf")
    if parameter.get("in") == "header" and isinstance(members, list):
        kept = [m for m in members if m.get("type") != "null"]
        if len(kept) == 1:
            parameter["schema"] = {**{k: v for k, v in schema.items() if k != "anyOf"}, **kept[0]}


def items_everywhere(node: Any) -> None:
    """Every array schema says what it holds (a `not` branch pydantic writes may leave `items` out)."""
    if isinstance(node, dict):
        if node.get("type") == "array" and "items" not in node:
            node["items"] = {}
        for value in node.values():
            items_everywhere(value)
    elif isinstance(node, list):
        for value in node:
            items_everywhere(value)


DOCUMENT = "CampaignDocument"  # the export's answer and the import's body: one schema for both


def _rename_refs(node: Any, renamed: dict[str, str]) -> None:
    """Every reference to a renamed schema ($ref, and a discriminator's mapping) points at its new name."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str) and key in ("$ref",) or (key == "mapping" and isinstance(value, dict)):
                targets = value if isinstance(value, dict) else {key: value}
                for slot, ref in list(targets.items()):
                    name = ref.rsplit("/", 1)[1] if ref.startswith("#/components/schemas/") else None
                    if name in renamed:
                        targets[slot] = f"#/components/schemas/{renamed[name]}"
                if not isinstance(value, dict):
                    node[key] = targets[key]
            else:
                _rename_refs(value, renamed)
    elif isinstance(node, list):
        for value in node:
            _rename_refs(value, renamed)


def document_schemas(schema: dict[str, Any]) -> set[str]:
    """The campaign document's schema and every schema inside it."""
    schemas = schema["components"]["schemas"]
    return {DOCUMENT} | _schema_refs(schemas[DOCUMENT], schemas, set()) if DOCUMENT in schemas else set()


def document_of_its_own(schema: dict[str, Any]) -> None:
    """The document is typed once, so a client passes what it exported to the import as it is; the request
    schemas it holds inside (a stored round's request: RoundCreate, its actions) are copied under names of
    its own (Stored…), so the originals stay request-only, their defaults said in words."""
    schemas = schema["components"]["schemas"]
    if DOCUMENT not in schemas:
        return
    inside = document_schemas(schema) - {DOCUMENT}
    others: set[str] = set()
    for operations in schema["paths"].values():
        for operation in operations.values():
            body = operation.get("requestBody", {})
            if DOCUMENT not in json.dumps(body):
                _schema_refs([body, operation.get("parameters", [])], schemas, others)
    renamed = {name: f"Stored{name}" for name in sorted(inside & others)}
    for name, copy in renamed.items():
        schemas[copy] = {**json.loads(json.dumps(schemas[name])), "title": copy}
    for name in {DOCUMENT} | (inside - set(renamed)) | set(renamed.values()):
        _rename_refs(schemas[name], renamed)
