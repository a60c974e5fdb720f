"""Every status and header the document declares is what the service does, and the reverse: every
operation in /openapi.json is called (its success, then the common refusals: 401 with a bad key, 404
with an unknown id, 422 with a bad body or query, 400 with a malformed Idempotency-Key), and each answer
is compared with the document: its status is declared for that operation, and on a success the ETag and
Location it sends are exactly the ones declared."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.api.events_support import Served
from tests.api.helpers import fighter
from tests.api.webhook_support import NoConnections, stub_resolver

METHODS = {"get", "post", "put", "patch", "delete"}
WATCHED = ("ETag", "Location")
METRICS_TOKEN = "a-metrics-token-for-the-test"
OPEN = {"/healthz", "/readyz", "/v1/rules", "/problems", "/problems/{slug}"}
UNKNOWN = {"slug": "no-such-problem", "number": "999"}  # else "no-such-id"


@dataclass
class World:
    """What the calls need: a campaign (its key in the client), an encounter with two fighters, an effect,
    a round, tokens, a staged declaration, a character, a creature, a second key."""

    client: TestClient
    ids: dict[str, str] = field(default_factory=dict)

    def post(self, url: str, body: Any = None, **kwargs: Any) -> dict[str, Any]:
        response = self.client.post(url, json=body, **kwargs)
        assert response.status_code in (200, 201), f"POST {url}: {response.status_code} {response.text}"
        return response.json()

    def new_encounter(self) -> str:
        body = {"name": "Promises", "combatants": [fighter("Ala", vitality=30), fighter("Bolek", vitality=30)]}
        return self.post("/v1/encounters", body)["id"]


def build_world(client: TestClient) -> World:
    world = World(client)
    ids = world.ids
    encounter = world.post("/v1/encounters", {"name": "Promises", "combatants": [
        fighter("Ala", vitality=30), fighter("Bolek", vitality=30), fighter("Czarek", vitality=30)]})
    ids["encounter_id"] = encounter["id"]
    ids["combatant_id"], ids["bolek"], ids["czarek"] = (c["id"] for c in encounter["combatants"])
    url = f"/v1/encounters/{ids['encounter_id']}"
    effect = {"name": "blessed", "attack": 1}
    ids["effect_id"] = world.post(f"{url}/combatants/{ids['combatant_id']}/effects", effect)["id"]
    world.post(f"{url}/rounds", {"declarations": [], "seed": 1})
    ids["number"] = "1"
    token = world.post(f"{url}/tokens", {"role": "viewer"})
    ids["token_id"] = token["id"]
    ids["key_id"] = world.post("/v1/campaign/keys", {"label": "spare"})["id"]
    stat_block = {"initiative": 12, "attack": 9, "defense": 2, "weapon": "dagger"}
    ids["character_id"] = world.post("/v1/characters", {"name": "Ala", **stat_block})["id"]
    ids["creature_id"] = world.post("/v1/creatures", {"name": "Goblin", **stat_block})["id"]
    ids["slug"] = "unknown-key"
    # A webhook to a name that resolves (here) to a public address: nothing ever connects to it (nor could:
    # this app delivers nothing).
    hooks = client.app.state.webhooks
    hooks.resolver = stub_resolver({"hooks.example": ["93.184.216.34"]})
    hooks.transport = NoConnections()
    ids["webhook_id"] = world.post("/v1/webhooks", {"url": "https://hooks.example/x", "events": ["ping"]})["id"]
    ids["delivery_id"] = client.post(f"/v1/webhooks/{ids['webhook_id']}/ping").json()["id"]
    return world


def fresh(world: World, name: str) -> dict[str, str]:
    """Ids for a call that destroys or spends what it names: its own, so that the other calls keep theirs."""
    ids = dict(world.ids)
    if name in ("delete_encounter", "finish_encounter", "reopen_encounter", "undo_round", "remove_combatant",
                "remove_effect", "withdraw_declaration", "revoke_token"):
        encounter_id = world.new_encounter()
        url = f"/v1/encounters/{encounter_id}"
        ala, bolek = (c["id"] for c in world.client.get(url).json()["combatants"])
        ids.update(encounter_id=encounter_id, combatant_id=ala, bolek=bolek)
        if name == "reopen_encounter":
            world.post(f"{url}/finish")
        if name == "undo_round":
            world.post(f"{url}/rounds", {"declarations": [], "seed": 2})
        if name == "remove_effect":
            ids["combatant_id"] = bolek
            ids["effect_id"] = world.post(f"{url}/combatants/{bolek}/effects", {"name": "slowed"})["id"]
        if name == "withdraw_declaration":
            world.client.put(f"{url}/declarations/{ala}", json={"action": {"type": "none"}})
        if name == "revoke_token":
            ids["token_id"] = world.post(f"{url}/tokens", {"role": "viewer"})["id"]
    if name == "delete_webhook":
        ids["webhook_id"] = world.post("/v1/webhooks", {"url": "https://hooks.example/spare"})["id"]
    if name == "revoke_key":
        ids["key_id"] = world.post("/v1/campaign/keys", {"label": "to revoke"})["id"]
    if name in ("delete_character", "update_character"):
        ids["character_id"] = world.post("/v1/characters", {
            "name": "Spare", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"})["id"]
    if name == "delete_creature":
        ids["creature_id"] = world.post("/v1/creatures", {
            "name": "Spare", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"})["id"]
    return ids


ATTACK = {"type": "attack", "target": "{bolek}"}
FULL = [{"id": "ala", "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"},
        {"id": "bolek", "initiative": 18, "attack": 12, "defense": 5, "weapon": "mace"}]
# operationId → (body, query) of a call that succeeds; "{name}" in a body is replaced by that id.
SUCCESS: dict[str, tuple[Any, dict[str, Any]]] = {
    "create_campaign": ({"name": "Another"}, {}),
    "export_campaign": (None, {}),
    "import_campaign": ({
        "format": "dziedzictwo-cieni.campaign", "format_version": 1, "exported_at": "2026-12-01T00:00:00Z",
        "campaign": {"id": "00000000-0000-4000-8000-000000000001", "name": "Moved", "rules": {},
                     "created_at": "2026-12-01T00:00:00Z", "version": 1},
        "characters": [], "creatures": [], "encounters": []}, {}),
    "read_campaign": (None, {}),
    "update_house_rules": ({"rules": {}}, {}),
    "list_keys": (None, {}),
    "create_key": ({"label": "more"}, {}),
    "rotate_key": ({"label": "rotated"}, {}),
    "revoke_key": (None, {}),
    "create_encounter": ({"name": "Another"}, {}),
    "list_encounters": (None, {"limit": 5}),
    "read_encounter": (None, {}),
    "update_encounter": ({"name": "Renamed"}, {}),
    "delete_encounter": (None, {}),
    "copy_encounter": ({"name": "Copy"}, {}),
    "finish_encounter": (None, {}),
    "reopen_encounter": (None, {}),
    "create_token": ({"role": "viewer"}, {}),
    "list_tokens": (None, {}),
    "revoke_token": (None, {}),
    "add_combatant": (fighter("Dorota"), {}),
    "read_combatant": (None, {}),
    "update_combatant": ({"weapon": "dagger"}, {}),
    "remove_combatant": (None, {}),
    "add_effect": ({"name": "poisoned", "blood_per_turn": 1, "turns": 1}, {}),
    "read_effect": (None, {}),
    "remove_effect": (None, {}),
    "resolve_next_round": ({"declarations": [{"combatant": "{combatant_id}", "action": ATTACK}], "seed": 3}, {}),
    "list_rounds": (None, {"limit": 5}),
    "read_round": (None, {}),
    "read_chronicle": (None, {"format": "json", "lang": "pl"}),
    "encounter_stats": (None, {}),
    "campaign_stats": (None, {}),
    "odds_timeline": (None, {"fights": 100}),
    "undo_round": (None, {}),
    "resolve": ({"combatants": FULL, "declarations": [], "seed": 1}, {}),
    "read_rules": (None, {}),
    "stage_declaration": ({"action": ATTACK}, {}),
    "withdraw_declaration": (None, {}),
    "list_declarations": (None, {}),
    "create_stream_ticket": (None, {}),
    "stream_events": (None, {}),  # over a real server: see stream_success
    "list_problem_types": (None, {}),
    "read_problem_type": (None, {}),
    "odds": ({"combatants": FULL, "fights": 10, "seed": 1}, {}),
    "encounter_odds": ({"fights": 10, "seed": 1}, {}),
    "create_character": ({"name": "Bolek", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"}, {}),
    "list_characters": (None, {"limit": 5}),
    "read_character": (None, {}),
    "update_character": ({"notes": "changed"}, {}),
    "create_character_token": ({"label": "phone"}, {}),
    "delete_character": (None, {}),
    "create_creature": ({"name": "Orc", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"}, {}),
    "list_creatures": (None, {"limit": 5}),
    "read_creature": (None, {}),
    "update_creature": ({"notes": "changed"}, {}),
    "delete_creature": (None, {}),
    "table_viewer": (None, {}),
    "create_webhook": ({"url": "https://hooks.example/y", "events": ["ping"]}, {}),
    "list_webhooks": (None, {}),
    "read_webhook": (None, {}),
    "update_webhook": ({"description": "changed"}, {}),
    "delete_webhook": (None, {}),
    "list_deliveries": (None, {"limit": 5}),
    "redeliver": (None, {}),
    "ping": (None, {}),
    "healthz": (None, {}),
    "readyz": (None, {}),
    "metrics": (None, {}),
}
LAST = ("rotate_key",)  # spends the key every other call sends


@dataclass(frozen=True)
class Operation:
    path: str
    method: str
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.spec["operationId"])

    def url(self, ids: dict[str, str], unknown: str | None = None) -> str:
        url = self.path
        for name in [p["name"] for p in self.spec.get("parameters", []) if p["in"] == "path"]:
            value = UNKNOWN.get(name, "no-such-id") if name == unknown else ids[name]
            url = url.replace("{" + name + "}", value)
        return url

    def takes(self, where: str) -> list[str]:
        return [p["name"] for p in self.spec.get("parameters", []) if p["in"] == where]

    def declared(self) -> dict[str, set[str]]:
        return {code: set(response.get("headers", {})) for code, response in self.spec["responses"].items()}


def operations(document: dict[str, Any]) -> list[Operation]:
    found = [Operation(path, method, spec) for path, item in document["paths"].items()
             for method, spec in item.items() if method in METHODS]
    return sorted(found, key=lambda o: o.name in LAST)


def filled(body: Any, ids: dict[str, str]) -> Any:
    if isinstance(body, str):
        return body.format(**ids) if body.startswith("{") else body
    if isinstance(body, dict):
        return {key: filled(value, ids) for key, value in body.items()}
    if isinstance(body, list):
        return [filled(value, ids) for value in body]
    return body


@dataclass
class Checks:
    faults: list[str] = field(default_factory=list)
    seen: dict[str, set[int]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)

    def compare(self, operation: Operation, response: httpx.Response, why: str) -> None:
        where = f"{operation.method.upper()} {operation.path} ({why}): {response.status_code}"
        self.seen.setdefault(why, set()).add(response.status_code)
        self.calls.append(where)
        declared = operation.declared()
        code = str(response.status_code)
        if code not in declared:
            self.faults.append(f"{where} is not declared ({sorted(declared)}): {response.text[:200]}")
            return
        if response.status_code < 400:
            sent = {name for name in WATCHED if name in response.headers}
            promised = declared[code] & set(WATCHED)
            if promised - sent:
                self.faults.append(f"{where} declares {sorted(promised - sent)} but does not send it")
            if sent - promised:
                self.faults.append(f"{where} sends {sorted(sent - promised)} undeclared")


@pytest.fixture
def app_with_metrics_token(settings):
    # No deliveries in this process: their bookkeeping would write beside the calls under test.
    return create_app(settings.model_copy(update={"metrics_token": METRICS_TOKEN, "webhook_deliveries": False}))


@pytest.fixture
def world(app_with_metrics_token) -> Iterator[World]:
    with TestClient(app_with_metrics_token, raise_server_exceptions=False) as client:
        key = client.post("/v1/campaigns", json={"name": "Promises"}).json()["key"]["secret"]
        client.headers["Authorization"] = f"Bearer {key}"
        yield build_world(client)


def call(world: World, operation: Operation, ids: dict[str, str], *, body: Any = None,
         query: dict[str, Any] | None = None, unknown: str | None = None,
         headers: dict[str, str] | None = None) -> httpx.Response:
    headers = dict(headers or {})
    if operation.path == "/metrics" and "Authorization" not in headers:
        headers["Authorization"] = f"Bearer {METRICS_TOKEN}"
    return world.client.request(operation.method.upper(), operation.url(ids, unknown), json=body,
                                params=query or None, headers=headers)


def stream_success(settings: Any, world: World, operation: Operation, checks: Checks) -> None:
    """A stream never ends, and the TestClient waits for the end: open it on a real server, read the head."""
    app = create_app(settings.model_copy(update={"metrics_token": METRICS_TOKEN}))  # its own event loop
    with Served(app) as served, httpx.Client(base_url=served.base_url, timeout=10,
                                             headers={"Authorization": world.client.headers["Authorization"]}) as http:
        with http.stream("GET", operation.url(world.ids)) as response:
            checks.compare(operation, response, "success")
            assert response.status_code == 200


def test_every_operation_answers_as_the_document_says(world, settings):
    document = world.client.get("/openapi.json").json()
    listed = operations(document)
    assert {o.name for o in listed} == set(SUCCESS), "a new operation needs its success call in SUCCESS"
    checks = Checks()
    for operation in listed:
        body, query = SUCCESS[operation.name]
        ids = fresh(world, operation.name)
        if operation.name == "stream_events":
            stream_success(settings, world, operation, checks)
        else:
            response = call(world, operation, ids, body=filled(body, ids), query=query)
            assert response.status_code < 400, f"{operation.name}: {response.status_code} {response.text}"
            checks.compare(operation, response, "success")
        if operation.name == "rotate_key":
            world.client.headers["Authorization"] = f"Bearer {response.json()['secret']}"
        refusals(world, operation, ids, body, query, checks)
    assert checks.faults == [], "\n".join(checks.faults)
    # The refusals happened, so the comparisons above covered them.
    assert checks.seen["bad credentials"] == {401}
    assert checks.seen["unknown id"] == {404}, [c for c in checks.calls if "unknown id" in c and "404" not in c]
    assert checks.seen["bad body"] == {422}
    assert checks.seen["bad query"] == {422}
    assert checks.seen["malformed Idempotency-Key"] == {400}


def refusals(world: World, operation: Operation, ids: dict[str, str], body: Any, query: dict[str, Any],
             checks: Checks) -> None:
    def compare(response: httpx.Response, why: str) -> None:
        checks.compare(operation, response, why)

    ids = fresh(world, operation.name)
    if operation.path not in OPEN:
        compare(call(world, operation, ids, body=filled(body, ids), query=query,
                     headers={"Authorization": "Bearer no-such-key"}), "bad credentials")
    for name in operation.takes("path"):
        # /table/{id}/viewer only says who the credential speaks for: an owner key gets 200 for any id.
        if name == "slug" or operation.path.startswith("/v1/"):
            compare(call(world, operation, ids, body=filled(body, ids), query=query, unknown=name), "unknown id")
    if "requestBody" in operation.spec:
        compare(call(world, operation, ids, body={"no_such_field": 1}, query=query), "bad body")
    if "limit" in operation.takes("query"):
        compare(call(world, operation, ids, query={"limit": 0}), "bad query")
    if "Idempotency-Key" in operation.takes("header"):
        compare(call(world, operation, ids, body=filled(body, ids), query=query,
                     headers={"Idempotency-Key": "k" * 300}), "malformed Idempotency-Key")
