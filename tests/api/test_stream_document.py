"""The event stream is typed in the document (x-itemSchema, the OpenAPI 3.2 itemSchema form): it names the
five events, each event's data schema resolves, and what a real stream sends is valid against them."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from app.config import Settings
from app.encounters import deadlines
from app.main import create_app
from tests.api.events_support import EventReader, Served
from tests.api.helpers import fighter
from tests.api.test_deadlines import due_now

CLOCK = {"deadline", "declarations.due", "declarations.complete"}  # the table's clock (roles and timing)
EVENTS = {"sync", "round", "undo", "encounter", "declaration"} | CLOCK
STREAM = "/v1/encounters/{encounter_id}/events"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return create_app(Settings(database_url="sqlite+aiosqlite:///:memory:")).openapi()


def data_schemas(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    media = document["paths"][STREAM]["get"]["responses"]["200"]["content"]["text/event-stream"]
    assert media["schema"] == {"type": "string"}  # what a 3.1 tool without the extension sees
    found = {}
    for event in media["x-itemSchema"]["oneOf"]:
        properties = event["properties"]
        assert set(event["required"]) == {"event", "id", "data"}
        assert properties["data"]["contentMediaType"] == "application/json"
        found[properties["event"]["const"]] = properties["data"]["contentSchema"]
    return found


def validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    registry = Registry().with_resource("urn:doc", Resource.from_contents(document, default_specification=DRAFT202012))
    rebased = {"$ref": "urn:doc" + schema["$ref"]} if "$ref" in schema else {**schema, "$id": "urn:doc#data"}
    return Draft202012Validator(rebased, registry=registry)


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = document
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def test_the_document_names_the_five_events_and_their_data(document):
    schemas = data_schemas(document)
    assert set(schemas) == EVENTS
    for name, schema in schemas.items():
        resolved = resolve(document, schema)
        assert resolved["type"] == "object" and resolved["properties"], name
        Draft202012Validator.check_schema(resolved)
    assert schemas["round"] == {"$ref": "#/components/schemas/RoundRead"}
    description = document["paths"][STREAM]["get"]["responses"]["200"]["description"]
    assert "x-itemSchema" in description and "itemSchema" in description


def test_what_the_stream_sends_is_what_the_document_says(settings, document):
    schemas = {name: validator(document, schema) for name, schema in data_schemas(document).items()}
    seen = set()

    def check(events: EventReader, expected: str) -> None:
        event = events.next()
        assert event.event == expected and event.id.isdigit(), event
        errors = [e.message for e in schemas[event.event].iter_errors(event.json())]
        assert errors == [], (event.event, errors)
        seen.add(event.event)

    with Served(create_app(settings)) as served:
        with served.client() as anonymous:
            key = anonymous.post("/v1/campaigns", json={"name": "Stream"}).json()["key"]["secret"]
        with served.client(key) as api:
            encounter = api.post("/v1/encounters", json={"name": "E", "combatants": [fighter("A"), fighter("B")]})
            url = f"/v1/encounters/{encounter.json()['id']}"
            a, b = (c["id"] for c in encounter.json()["combatants"])
            with served.client(key) as client, client.stream("GET", f"{url}/events") as response:
                events = EventReader(response)
                check(events, "sync")
                assert api.post(f"{url}/rounds", json={"seed": 7}).status_code == 201
                check(events, "round")
                assert api.delete(f"{url}/rounds/1").status_code == 204
                check(events, "undo")
                assert api.patch(url, json={"name": "Renamed"}).status_code == 200
                check(events, "encounter")
                assert api.put(f"{url}/declarations/{a}", json={"action": {"type": "none"}}).status_code == 201
                check(events, "declaration")
                # the table's clock: a deadline set, every player-controlled combatant declared, time up
                assert api.patch(url, json={"declaration_seconds": 600}).status_code == 200
                check(events, "encounter")
                check(events, "deadline")
                assert api.post(f"{url}/tokens", json={"role": "player", "combatant": b}).status_code == 201
                assert api.put(f"{url}/declarations/{b}", json={"action": {"type": "none"}}).status_code == 201
                check(events, "declaration")
                check(events, "declarations.complete")
                due_now(settings, encounter.json()["id"])
                served.app.state.dispatcher.wake(deadlines.JOB)
                check(events, "declarations.due")
    assert seen == EVENTS
