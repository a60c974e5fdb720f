"""The OpenAPI document is one tools can read: valid, standard bounds, short ids, every header declared,
typed documents; and the headers it declares are the ones the service sends."""

from __future__ import annotations

import re
from typing import Any

import pytest
from openapi_spec_validator import validate

from app.config import Settings
from app.http.openapi import NO_LOCATION
from app.http.openapi_schemas import standard_bounds
from app.main import create_app
from app.resolver import DEFAULT_RULESET
from app.vocabulary.ruleset import RulesetRead
from tests.api.helpers import attack, fighter

METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app(Settings(database_url="sqlite+aiosqlite:///:memory:")).openapi()


def operations(document: dict[str, Any]):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def non_standard_bounds(node: Any, where: str = "") -> list[str]:
    found = []
    if isinstance(node, dict):
        for key in ("ge", "le", "gt", "lt"):
            if isinstance(node.get(key), int | float):
                found.append(f"{where}/{key}")
        for key, value in node.items():
            found += non_standard_bounds(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += non_standard_bounds(value, f"{where}/{index}")
    return found


def test_the_document_is_valid_openapi(document):
    validate(document)  # raises, naming the first fault


def test_bounds_are_standard_json_schema(document):
    assert non_standard_bounds(document) == []
    initiative = document["components"]["schemas"]["CombatantCreate"]["properties"]["initiative"]
    assert (initiative["minimum"], initiative["maximum"]) == (-100, 100)


def test_standard_bounds_renames_numbers_and_leaves_properties_alone():
    schema = {"properties": {"le": {"type": "integer", "ge": 1, "lt": 5}}, "gt": 0}
    standard_bounds(schema)
    assert schema == {"properties": {"le": {"type": "integer", "minimum": 1, "exclusiveMaximum": 5}},
                      "exclusiveMinimum": 0}


def test_operation_ids_are_short_unique_and_plain(document):
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    for operation_id in ids:
        assert re.fullmatch(r"[a-z][a-z_]{2,29}", operation_id), operation_id
    assert {"create_encounter", "resolve_next_round", "read_rules", "undo_round"} <= set(ids)


def test_every_response_declares_its_headers(document):
    assert set(document["components"]["headers"]) == {
        "X-Request-ID", "ETag", "Location", "Idempotent-Replayed", "Retry-After"}
    for path, method, operation in operations(document):
        idempotent = any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", []))
        for code, response in operation["responses"].items():
            headers = response.get("headers", {})
            where = f"{method.upper()} {path} {code}"
            assert "X-Request-ID" in headers, where
            if code in ("429", "503"):
                assert "Retry-After" in headers, where
            if code == "201" and (path, method) not in NO_LOCATION:
                assert "Location" in headers, where
            if code.startswith("2") and idempotent:
                assert "Idempotent-Replayed" in headers, where
            if code == "304":
                assert "ETag" in headers and "content" not in response, where


def test_every_problem_type_is_listed_in_the_problem_schema(document):
    description = document["components"]["schemas"]["Problem"]["properties"]["type"]["description"]
    for slug in ("unknown-key", "validation-error", "unsupported-media-type", "precondition-failed"):
        assert f"/problems/{slug}" in description


def test_reads_are_typed(document):
    schemas = document["components"]["schemas"]
    rules = document["paths"]["/v1/rules"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert rules == {"$ref": "#/components/schemas/RulesetRead"}
    assert schemas["ActionRead"]["properties"]["type"]["enum"] == ["attack", "first_aid", "custom", "continue", "none"]
    assert "in_progress" in schemas["ActionRead"]["properties"]["result"]["enum"]
    assert schemas["CombatantStateRead"]["properties"]["status"]["enum"] == ["active", "unconscious", "dead"]
    assert schemas["CombatantStateRead"]["properties"]["wounds"]["items"] == {"$ref": "#/components/schemas/WoundRead"}
    weapon = schemas["CombatantRead"]["properties"]["weapon"]
    assert {"$ref": "#/components/schemas/InlineWeaponRead"} in weapon["anyOf"]


def test_the_ruleset_read_declares_every_rule():
    """A rule added to the ruleset without a field here would vanish from encounter reads: fail instead."""
    assert set(RulesetRead.model_fields) == set(DEFAULT_RULESET.document)
    assert RulesetRead.model_validate(dict(DEFAULT_RULESET.document)).model_dump(by_alias=True) == dict(
        DEFAULT_RULESET.document)


def test_rules_served_match_their_schema(client):
    served = client.get("/v1/rules").json()
    assert RulesetRead.model_validate(served).model_dump(by_alias=True) == served


def declared(document, method: str, path_template: str, code: int) -> set[str]:
    response = document["paths"][path_template][method]["responses"][str(code)]
    return set(response.get("headers", {}))


def test_the_headers_sent_are_the_headers_declared(client, document):
    """Both ways, on a whole fight: every header declared on a success is sent, and none is sent undeclared."""
    watched = {"ETag", "Location", "Idempotent-Replayed", "X-Request-ID"}
    calls = []

    def call(method: str, template: str, url: str, **kwargs):
        response = client.request(method, url, **kwargs)
        assert response.status_code < 400, response.text
        calls.append((method.lower(), template, response))
        return response

    enc = "/v1/encounters/{encounter_id}"
    body = {"name": "Ford", "combatants": [fighter("Ala"), fighter("Bolek", weapon="mace")]}
    created = call("POST", "/v1/encounters", "/v1/encounters", json=body).json()
    url = f"/v1/encounters/{created['id']}"
    ala, bolek = (c["id"] for c in created["combatants"])
    etag = call("GET", enc, url).headers["ETag"]
    call("GET", enc, url, headers={"If-None-Match": etag})
    call("PATCH", enc, url, json={"name": "Ford, later"})
    extra = call("POST", enc + "/combatants", f"{url}/combatants", json=fighter("Czarek")).json()
    combatant = enc + "/combatants/{combatant_id}"
    call("GET", combatant, f"{url}/combatants/{ala}")
    call("PATCH", combatant, f"{url}/combatants/{ala}", json={"weapon": "dagger"})
    call("DELETE", combatant, f"{url}/combatants/{extra['id']}")
    effects = combatant + "/effects"
    effect = call("POST", effects, f"{url}/combatants/{bolek}/effects", json={"name": "stunned", "attack": -2,
                                                                             "rounds": 2}).json()
    call("GET", effects + "/{effect_id}", f"{url}/combatants/{bolek}/effects/{effect['id']}")
    call("DELETE", effects + "/{effect_id}", f"{url}/combatants/{bolek}/effects/{effect['id']}")
    call("POST", effects, f"{url}/combatants/{bolek}/effects", json={"name": "poisoned", "blood_per_turn": 1,
                                                                    "turns": 1})
    round_body = {"declarations": [attack(ala, bolek), attack(bolek, ala)], "seed": 7}
    call("POST", enc + "/rounds", f"{url}/rounds", json=round_body, headers={"Idempotency-Key": "r1"})
    call("POST", enc + "/rounds", f"{url}/rounds", json=round_body, headers={"Idempotency-Key": "r1"})  # replay
    call("GET", enc + "/rounds", f"{url}/rounds")
    call("GET", enc + "/rounds/{number}", f"{url}/rounds/1")
    call("DELETE", enc + "/rounds/{number}", f"{url}/rounds/1")
    call("GET", "/v1/rules", "/v1/rules")
    call("DELETE", enc, url)

    replayed = 0
    for method, template, response in calls:
        sent = {name for name in watched if name in response.headers}
        promised = declared(document, method, template, response.status_code)
        where = f"{method.upper()} {template} {response.status_code}"
        assert sent <= promised, f"{where} sends undeclared {sent - promised}"
        assert promised - {"Idempotent-Replayed"} <= sent, f"{where} declares but does not send {promised - sent}"
        replayed += "Idempotent-Replayed" in sent
    assert replayed == 1


def component_validator(document, name: str):
    from jsonschema import Draft202012Validator  # noqa: PLC0415
    from referencing import Registry, Resource  # noqa: PLC0415
    from referencing.jsonschema import DRAFT202012  # noqa: PLC0415

    resource = Resource.from_contents(document, default_specification=DRAFT202012)
    registry = Registry().with_resource("urn:doc", resource)
    return Draft202012Validator({"$ref": f"urn:doc#/components/schemas/{name}"}, registry=registry)


def test_every_schema_example_is_valid_against_its_schema(document):
    checked = 0
    for name, schema in document["components"]["schemas"].items():
        for example in schema.get("examples", []):
            errors = [e.message for e in component_validator(document, name).iter_errors(example)]
            assert errors == [], f"{name}: {errors}"
            checked += 1
    assert checked >= 10 and "examples" in document["components"]["schemas"]["StagedDeclarationRead"]


@pytest.mark.parametrize(("action", "valid"), [
    ({"type": "attack", "target": "a"}, True),
    ({"type": "attack", "targets": ["a"]}, True),
    ({"type": "attack", "target": "a", "targets": None}, True),
    ({"type": "attack", "target": "a", "targets": ["b"]}, False),
    ({"type": "attack"}, False),
    ({"type": "attack", "target": None, "targets": None}, False),
])
def test_an_attack_names_target_or_targets_in_the_schema_too(document, action, valid):
    assert component_validator(document, "AttackAction").is_valid(action) is valid


def test_metrics_declares_its_optional_token(document):
    operation = document["paths"]["/metrics"]["get"]
    assert operation["security"] == [{}, {"MetricsToken": []}]
    assert document["components"]["securitySchemes"]["MetricsToken"]["scheme"] == "bearer"
    assert set(operation["responses"]) == {"200", "401", "500"}


def test_request_defaults_are_optional_and_said_in_words(document):
    """openapi-typescript makes a component property with `default` required: request schemas carry none."""
    from app.http.openapi_schemas import document_schemas, request_side_schemas  # noqa: PLC0415

    requests, responses = request_side_schemas(document)
    # else a shared schema would lose defaults; the campaign document alone is both (the export's answer is
    # the import's body, every field present)
    document_parts = document_schemas(document)
    shared = (requests & responses) - document_parts
    assert requests and not shared, shared
    for name in requests - document_parts:
        for prop, value in document["components"]["schemas"][name].get("properties", {}).items():
            assert "default" not in value, f"{name}.{prop}"
    rules = document["components"]["schemas"]["EncounterCreate"]["properties"]["rules"]
    assert rules["x-default"] == {} and "Default: `{}`." in rules["description"]
    assert "rules" not in document["components"]["schemas"]["EncounterCreate"]["required"]


def test_header_parameters_keep_the_readme_case(document):
    names = {p["name"] for _, _, operation in operations(document) for p in operation.get("parameters", [])
             if p["in"] == "header"}
    assert {"If-Match", "If-None-Match", "Idempotency-Key"} <= names
    assert not {"if-match", "if-none-match", "idempotency-key"} & names
