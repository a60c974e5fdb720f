"""Every error is problem+json with status equal to the HTTP status, and names the bad fields."""

from tests.api.helpers import assert_problem, create_encounter, fighter


def test_framework_errors_are_problems(client):
    assert_problem(client.get("/v1/nowhere"), 404, "not-found")
    assert_problem(client.put("/v1/encounters"), 405, "method-not-allowed")
    assert_problem(client.get("/v1/encounters", params={"limit": 0}), 422, "validation-error")
    assert_problem(client.get("/v1/encounters/x/rounds/0"), 422)


def test_malformed_json_is_a_problem(client):
    response = client.post("/v1/encounters", content=b'{"name": ', headers={"content-type": "application/json"})
    assert_problem(response, 422, "validation-error")


def test_validation_errors_point_at_each_bad_field(client):
    response = client.post("/v1/resolve", json={
        "combatants": [{"id": "a", "initiative": 500, "attack": 1, "defense": 1, "weapon": "dagger"},
                       {"id": "b", "initiative": 1, "attack": 1, "defense": 1}],
        "declarations": [{"combatant": "a", "action": {"type": "attack"}}],
    })
    body = assert_problem(response, 422, "validation-error")
    pointers = {e["pointer"] for e in body["errors"]}
    assert {"/combatants/0/initiative", "/combatants/1/weapon"} <= pointers, pointers
    assert any(p.startswith("/declarations/0/action") for p in pointers)


def test_rule_violations_name_the_field(client):
    response = client.post("/v1/resolve", json={
        "combatants": [{"id": "a", "initiative": 5, "attack": 1, "defense": 1, "weapon": "dagger", "status": "dead"},
                       {"id": "b", "initiative": 1, "attack": 1, "defense": 1, "weapon": "dagger"}],
        "declarations": [{"combatant": "b", "action": {"type": "attack", "target": "a"}}],
    })
    body = assert_problem(response, 422, "invalid-round")
    assert body["errors"] == [{"in": "body", "pointer": "/declarations/0/action/target",  # the shorthand sent
                               "detail": "'a' is already dead"}]


def test_body_over_64_kib_is_413(client):
    big = {"name": "x", "padding": "y" * 70_000}
    assert_problem(client.post("/v1/encounters", json=big), 413, "payload-too-large")

    def chunks():
        for _ in range(70):
            yield b" " * 1024

    response = client.post("/v1/encounters", content=chunks(), headers={"content-type": "application/json"})
    assert_problem(response, 413, "payload-too-large")
    assert client.get("/v1/encounters").json()["total"] == 0


def test_stale_if_match_is_412_and_changes_nothing(client):
    encounter = create_encounter(client, fighter("A"))
    url = f"/v1/encounters/{encounter['id']}"
    stale = '"999"'
    assert_problem(client.patch(url, json={"name": "new"}, headers={"If-Match": stale}), 412, "precondition-failed")
    assert_problem(client.post(f"{url}/rounds", json={}, headers={"If-Match": stale}), 412)
    assert_problem(client.delete(url, headers={"If-Match": f'W/"{encounter["version"]}"'}), 412)
    assert client.get(url).json()["version"] == encounter["version"]
    fresh = client.get(url).headers["etag"]
    assert client.post(f"{url}/rounds", json={}, headers={"If-Match": fresh}).status_code == 201


def test_unexpected_errors_are_500_problems_without_traces(client, monkeypatch):
    from app.encounters import rounds as service

    def explode(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(service, "resolve_stateless", explode)
    response = client.post("/v1/resolve", json={"combatants": []})
    body = assert_problem(response, 500, "internal-error")
    assert "secret" not in response.text and body["detail"]


def test_health_and_readiness(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready"}


def test_cors_preflight_for_an_allowed_origin(settings):
    from fastapi.testclient import TestClient

    from app.main import create_app

    settings.cors_origins = ["https://vtt.example"]
    with TestClient(create_app(settings)) as client:
        response = client.options("/v1/resolve", headers={
            "Origin": "https://vtt.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "if-match, idempotency-key, content-type"})
        assert response.status_code == 200
        assert response.headers["access-control-allow-origin"] == "https://vtt.example"
        assert "access-control-allow-credentials" not in response.headers
        allowed = set(response.headers["access-control-allow-headers"].lower().split(", "))
        assert {"authorization", "if-match", "if-none-match", "idempotency-key"} <= allowed
        simple = client.get("/v1/rules", headers={"Origin": "https://vtt.example"})
        exposed = set(simple.headers["access-control-expose-headers"].lower().split(", "))
        assert {"etag", "location", "retry-after", "idempotent-replayed"} <= exposed
        denied = client.options("/v1/resolve", headers={"Origin": "https://evil.example",
                                                         "Access-Control-Request-Method": "POST"})
        assert "access-control-allow-origin" not in denied.headers


def known_armory(client) -> set[str]:
    return set(client.get("/v1/rules").json()["armory"])


def assert_lists_the_armory(body, client) -> None:
    assert body["type"] == "/problems/unknown-key"
    for key in known_armory(client):
        assert key in body["detail"], body["detail"]


def test_an_unknown_weapon_teaches_the_armory_everywhere(client):
    """Create, change and the stateless resolver all answer the same problem, listing the keys there are."""
    laser = {"name": "x", "combatants": [fighter("A", weapon="laser")]}
    body = assert_problem(client.post("/v1/encounters", json=laser), 422, "unknown-key")
    assert_lists_the_armory(body, client)
    assert body["errors"][0]["pointer"] == "/combatants/0/weapon"

    encounter = create_encounter(client, fighter("A"))
    url = f"/v1/encounters/{encounter['id']}"
    body = assert_problem(client.post(f"{url}/combatants", json=fighter("B", weapon="laser")), 422, "unknown-key")
    assert_lists_the_armory(body, client)
    combatant = f"{url}/combatants/{encounter['combatants'][0]['id']}"
    body = assert_problem(client.patch(combatant, json={"weapon": "laser"}), 422, "unknown-key")
    assert_lists_the_armory(body, client)
    assert client.get(combatant).json()["weapon"] == "long_sword"  # nothing changed

    state = [{"id": "a", **fighter("A", weapon="laser")}, {"id": "b", **fighter("B")}]
    for c in state:
        c.pop("name")
    body = assert_problem(client.post("/v1/resolve", json={"combatants": state}), 422, "unknown-key")
    assert_lists_the_armory(body, client)
    assert body["errors"][0]["pointer"] == "/combatants/0/weapon"


def test_a_body_not_sent_as_json_says_so(client):
    for headers in ({"content-type": "text/plain"}, {"content-type": "application/x-www-form-urlencoded"}, {}):
        response = client.post("/v1/encounters", content=b'{"name": "x"}', headers=headers)
        body = assert_problem(response, 415, "unsupported-media-type")
        assert "application/json" in body["detail"]
    assert client.get("/v1/encounters").json()["total"] == 0
    ok = client.post("/v1/encounters", content=b'{"name": "x"}',
                     headers={"content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 201, ok.text


def test_a_json_syntax_error_names_line_and_column(client):
    response = client.post("/v1/encounters", content=b'{\n  "name": "x",\n  "rules": }\n}',
                           headers={"content-type": "application/json"})
    body = assert_problem(response, 422, "validation-error")
    [error] = body["errors"]
    assert (error["line"], error["column"]) == (3, 12), error
    assert error["pointer"] == ""  # a place in the text, not a field: no pointer pretends otherwise
    assert "line 3, column 12" in body["detail"]


def test_pointers_name_fields_not_union_tags(client):
    response = client.post("/v1/resolve", json={
        "combatants": [{"id": "a", "initiative": 5, "attack": 1, "defense": 1, "weapon": "dagger"}],
        "declarations": [{"combatant": "a", "action": {"type": "attack", "target": 7}},
                         {"combatant": "a", "action": {"type": "first_aid"}}],
    })
    body = assert_problem(response, 422, "validation-error")
    pointers = {e["pointer"] for e in body["errors"]}
    assert pointers == {"/declarations/0/action/target", "/declarations/1/action/target"}, pointers


def test_every_error_class_has_a_catalogued_type():
    """A new error class without an entry in the catalogue fails here, so every type a client meets is explained."""
    import app.main  # noqa: F401 (every router and its error classes loaded)
    from app.http.problems.catalogue import CATALOGUE
    from app.platform.errors import ServiceError
    from app.resolver import ResolverError

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    for error in [ServiceError, *subclasses(ServiceError)]:
        assert error.type in CATALOGUE, f"{error.__module__}.{error.__name__}: {error.type} is not catalogued"
        assert CATALOGUE[error.type].status == error.status, error
    for error in [ResolverError, *subclasses(ResolverError)]:
        assert error.type in CATALOGUE, f"{error.__module__}.{error.__name__}: {error.type} is not catalogued"
        assert CATALOGUE[error.type].status == 422


def test_a_problem_type_link_leads_to_its_meaning(client):
    body = client.post("/v1/encounters", json={"name": ""}).json()
    page = client.get(body["type"])
    assert page.status_code == 200 and page.json()["type"] == body["type"]
    assert page.json()["meaning"] and page.json()["fix"]
    html = client.get(body["type"], headers={"Accept": "text/html,application/xhtml+xml"})
    assert html.headers["content-type"].startswith("text/html")
    assert "What to do" in html.text and "/problems/validation-error" in html.text
    listed = client.get("/problems").json()
    assert {"/problems/unknown-key", "/problems/unsupported-media-type"} <= {p["type"] for p in listed}
    assert_problem(client.get("/problems/no-such-thing"), 404, "not-found")
