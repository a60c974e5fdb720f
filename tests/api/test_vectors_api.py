"""Every golden vector through POST /v1/resolve, and the non-refusal ones again through the persisted endpoints."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.api.helpers import assert_problem
from tests.vectors import is_refusal, load_vectors, mismatches, uses_effects_or_long_actions

PENDING = pytest.mark.xfail(strict=True, reason="service support for effects and long actions pending")


def _marked(param: Any) -> Any:
    """A vector whose round plays effects or long actions fails until the service stores them; strict, so the
    mark turns into a failure the moment it passes. (Their refusals already pass: the API refuses them.)"""
    vector = param.values[0]
    if is_refusal(vector) or not uses_effects_or_long_actions(vector):
        return param
    return pytest.param(vector, id=param.id, marks=[*param.marks, PENDING])


VECTORS = [_marked(param) for param in load_vectors()]


def _stored_count(client) -> int:
    return client.get("/v1/encounters").json()["total"]


@pytest.mark.parametrize("vector", VECTORS)
def test_vector_through_stateless_resolve(client, vector):
    response = client.post("/v1/resolve", json=vector["request"])
    if is_refusal(vector):
        body = assert_problem(response, vector["expect_status"])
        assert body["errors"], "a refusal names each bad field"
        assert _stored_count(client) == 0
    else:
        assert response.status_code == 200, response.text
        assert mismatches(vector["expect"], response.json()) == []


def _rename(value: Any, ids: dict[str, str]) -> Any:
    """Vector ids -> API ids in every place a combatant id appears (ids, actors, targets, dice keys)."""
    if isinstance(value, dict):
        renamed = {}
        for key, item in value.items():
            head, dot, rest = key.partition(".")
            key = ids[head] + dot + rest if head in ids and dot else key
            renamed[key] = ids.get(item, item) if key in ("id", "actor", "target", "combatant") else _rename(item, ids)
        return renamed
    if isinstance(value, list):
        return [ids.get(item, item) if isinstance(item, str) else _rename(item, ids) for item in value]
    return value


def _tick_order(actions: list[dict]) -> list[dict]:
    """Within a tick actions are listed by combatant id: with the API's ids, that order is theirs."""
    return sorted(actions, key=lambda a: (a["tick"], a["actor"], a["seq"]))


@pytest.mark.parametrize("vector", [v for v in VECTORS if not is_refusal(v.values[0])])
def test_vector_through_persisted_rounds(client, vector):
    request = vector["request"]
    initial = [{k: v for k, v in c.items() if k != "id"} for c in request["combatants"]]
    body = {"name": vector["description"][:100], "rules": request.get("rules", {}), "combatants": initial}
    created = client.post("/v1/encounters", json=body)
    assert created.status_code == 201, created.text
    encounter = created.json()
    url = f"/v1/encounters/{encounter['id']}"
    ids = {c["id"]: api["id"] for c, api in zip(request["combatants"], encounter["combatants"])}

    # Reach the vector's round with empty rounds, then put every combatant back as the vector has it.
    for _ in range(request.get("round", 1) - 1):
        assert client.post(f"{url}/rounds", json={"declarations": []}).status_code == 201
    for fields, api_id in zip(initial, ids.values()):
        restore = {k: fields.get(k, default) for k, default in
                   (("blood", fields.get("vitality", 10)), ("status", "active"), ("wounds", []))}
        assert client.patch(f"{url}/combatants/{api_id}", json=restore).status_code == 200

    body = _rename({k: copy.deepcopy(request[k]) for k in ("declarations", "dice")}, ids)
    response = client.post(f"{url}/rounds", json=body)
    assert response.status_code == 201, response.text
    expect = _rename(vector["expect"], ids)
    expect["actions"] = _tick_order(expect["actions"])
    assert mismatches(expect, response.json()) == []
    stored = client.get(f"{url}/rounds/{expect['round']}")
    assert stored.status_code == 200
    assert stored.content == response.content, "the stored round is the document POST returned"
