"""Every PATCH body field the document marks nullable, sent as null, on every PATCH route: a 200 where
null means something (back to the default, no side, no group), a 422 naming the field otherwise; never a
500 (a combatant's {"initiative": null} once was one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.campaign_helpers import create
from tests.api.helpers import assert_problem, create_encounter, fighter
from tests.api.webhook_support import NoConnections, stub_resolver

# (schema, field): what null means there. Every other nullable field refuses null with a 422.
NULL_MEANS = {
    ("EncounterUpdate", "name"): "kept as it is",
    ("EncounterUpdate", "rules"): "kept as they are",
    ("CombatantUpdate", "name"): "no name",
    ("CombatantUpdate", "side"): "its own side",
    ("CombatantUpdate", "group"): "no group",
    ("CombatantUpdate", "blood"): "back to full",
    ("CombatantUpdate", "long_action"): "cancelled",
    ("EncounterUpdate", "declaration_seconds"): "no deadline any more",
    ("EncounterUpdate", "auto_resolve"): "kept as it is",
    ("CombatantUpdate", "name_forms"): "the dictionary's forms again",
    ("CombatantUpdate", "companion_of"): "nobody's companion",
    ("CombatantUpdate", "reveal_at_round"): "no arrival set",
    ("StatBlockUpdate", "name_forms"): "the dictionary's forms again",
    ("StatBlockUpdate", "side"): "no side",
    ("WebhookUpdate", "description"): "no description",
    ("StatBlockUpdate", "group"): "no group",
    ("StatBlockUpdate", "blood"): "back to full",
}


def _encounter(client: TestClient) -> str:
    return f"/v1/encounters/{create_encounter(client, fighter('Ala'))['id']}"


def _combatant(client: TestClient) -> str:
    encounter = create_encounter(client, fighter("Ala", side="party", group="g1", vitality=12, blood=7))
    return f"/v1/encounters/{encounter['id']}/combatants/{encounter['combatants'][0]['id']}"


def _webhook(client: TestClient) -> str:
    """A subscription to a name that resolves (here, by a stub) to a public address; nothing connects to it."""
    hooks = client.app.state.webhooks
    hooks.resolver = stub_resolver({"hooks.example": ["93.184.216.34"]})
    hooks.transport = NoConnections()
    made = client.post("/v1/webhooks", json={"url": "https://hooks.example/x", "events": ["ping"]})
    assert made.status_code == 201, made.text
    return f"/v1/webhooks/{made.json()['id']}"


# One live resource per PATCH route, made fresh for each field.
RESOURCES: dict[str, Callable[[TestClient], str]] = {
    "/v1/encounters/{encounter_id}": _encounter,
    "/v1/encounters/{encounter_id}/combatants/{combatant_id}": _combatant,
    "/v1/characters/{character_id}": lambda client: f"/v1/characters/{create(client, '/v1/characters')['id']}",
    "/v1/creatures/{creature_id}": lambda client: f"/v1/creatures/{create(client, '/v1/creatures')['id']}",
    "/v1/campaign": lambda client: "/v1/campaign",
    "/v1/webhooks/{webhook_id}": _webhook,
}


def _nullable_fields(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(route, schema, field) for every PATCH body field whose schema admits null."""
    found = []
    for route, operations in document["paths"].items():
        if "patch" not in operations:
            continue
        reference = operations["patch"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        name = reference.rsplit("/", 1)[1]
        for field, schema in document["components"]["schemas"][name]["properties"].items():
            options = schema.get("anyOf", [schema])
            if any(option.get("type") == "null" for option in options):
                found.append((route, name, field))
    return found


def test_every_patch_route_is_covered(client):
    routes = {route for route, operations in client.app.openapi()["paths"].items() if "patch" in operations}
    assert routes == set(RESOURCES)
    assert {(schema, field) for _, schema, field in _nullable_fields(client.app.openapi())} >= set(NULL_MEANS)


def test_null_on_every_nullable_patch_field(client):
    fields = _nullable_fields(client.app.openapi())
    assert len(fields) >= 30  # the stat block's fields, in three schemas
    for route, schema, field in fields:
        url = RESOURCES[route](client)
        response = client.patch(url, json={field: None})
        if (schema, field) in NULL_MEANS:
            assert response.status_code == 200, (schema, field, response.text)
        else:
            body = assert_problem(response, 422, "validation-error")
            pointers = [error.get("pointer") for error in body.get("errors", [])]
            assert f"/{field}" in pointers, (schema, field, body)
        assert client.get(url).status_code == 200, (schema, field)


@pytest.mark.parametrize("path", ["/v1/characters", "/v1/creatures"])
def test_null_blood_is_back_to_full(client, path):
    made = create(client, path, vitality=12, blood=5)
    changed = client.patch(f"{path}/{made['id']}", json={"blood": None})
    assert changed.status_code == 200, changed.text
    assert changed.json()["blood"] == 12


def test_a_combatants_null_blood_is_back_to_full_and_null_initiative_a_422(client):
    url = _combatant(client)
    body = assert_problem(client.patch(url, json={"initiative": None}), 422, "validation-error")
    assert "initiative" in body["detail"] or any(e.get("pointer") == "/initiative" for e in body.get("errors", []))
    changed = client.patch(url, json={"blood": None})
    assert changed.status_code == 200, changed.text
    assert changed.json()["blood"] == 12
