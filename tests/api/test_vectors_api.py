"""Every golden vector through POST /v1/resolve, and the non-refusal ones again through the persisted endpoints."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.api.helpers import assert_problem
from tests.vectors import is_refusal, load_vectors, mismatches

VECTORS = load_vectors()


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


def _rename_id(item: Any, ids: dict[str, str]) -> Any:
    """A combatant id, or the id "<round>:<actor id>" of an effect an action gave."""
    if not isinstance(item, str):
        return item
    number, colon, actor = item.partition(":")
    if colon and number.isdigit() and actor in ids:
        return f"{number}:{ids[actor]}"
    return ids.get(item, item)


def _rename(value: Any, ids: dict[str, str]) -> Any:
    """Vector ids -> API ids in every place a combatant id appears (ids, actors, targets, dice keys)."""
    if isinstance(value, dict):
        renamed = {}
        for key, item in value.items():
            head, dot, rest = key.partition(".")
            key = ids[head] + dot + rest if head in ids and dot else key
            renamed[key] = (
                _rename_id(item, ids) if key in ("id", "actor", "target", "combatant", "hold") else _rename(item, ids)
            )
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
    body = {"name": vector["description"][:100], "rules": request.get("rules", {})}
    created = client.post("/v1/encounters", json=body)
    assert created.status_code == 201, created.text
    url = f"/v1/encounters/{created.json()['id']}"

    # Reach the vector's round with empty rounds, then add the combatants as the vector has them (effects and
    # long actions included: empty rounds with them on board would play them). A long action's target is
    # added before the combatant aiming at it, so its API id is known by then.
    for _ in range(request.get("round", 1) - 1):
        assert client.post(f"{url}/rounds", json={"declarations": []}).status_code == 201
    ids: dict[str, str] = {}
    for combatant in request["combatants"]:
        fields = _rename({k: copy.deepcopy(v) for k, v in combatant.items() if k != "id"}, ids)
        added = client.post(f"{url}/combatants", json=fields)
        assert added.status_code == 201, added.text
        ids[combatant["id"]] = added.json()["id"]

    body = _rename({k: copy.deepcopy(request[k]) for k in ("declarations", "dice")}, ids)
    response = client.post(f"{url}/rounds", json=body)
    assert response.status_code == 201, response.text
    expect = _rename(vector["expect"], ids)
    expect["actions"] = _tick_order(expect["actions"])
    assert mismatches(expect, response.json()) == []
    stored = client.get(f"{url}/rounds/{expect['round']}")
    assert stored.status_code == 200
    assert stored.content == response.content, "the stored round is the document POST returned"
