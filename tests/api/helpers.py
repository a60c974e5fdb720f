"""Small helpers for API tests: build a fight, and check problem responses."""

from __future__ import annotations

from typing import Any, NamedTuple

from fastapi.testclient import TestClient

PROBLEM = "application/problem+json"


def fighter(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword", **fields}


def create_encounter(client: TestClient, *combatants: dict[str, Any], **body: Any) -> dict[str, Any]:
    response = client.post("/v1/encounters", json={"name": "Test fight", "combatants": list(combatants), **body})
    assert response.status_code == 201, response.text
    return response.json()


def assert_problem(response, status: int, type_suffix: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["status"] == status
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert "Traceback" not in response.text
    if type_suffix is not None:
        assert body["type"] == f"/problems/{type_suffix}", body
    return body


def attack(actor: str, *targets: str, stance: str = "balanced") -> dict[str, Any]:
    return {"combatant": actor, "stance": stance, "action": {"type": "attack", "targets": list(targets)}}


class Fight(NamedTuple):
    url: str  # the encounter's
    ids: list[str]  # its combatants', in order


def start_fight(client: TestClient, **rules: Any) -> Fight:
    """Three fighters who can last a dozen rounds: a wounded one, one with two attacks a round."""
    encounter = create_encounter(
        client,
        fighter("Ala", vitality=30, armor=2),
        fighter("Bolek", vitality=30, armor=2, weapon="mace", wounds=[{"class": "severe"}]),
        fighter("Czarek", vitality=30, armor=2, weapon="dagger", attacks_per_round=2),
        rules=rules,
    )
    return Fight(f"/v1/encounters/{encounter['id']}", [c["id"] for c in encounter["combatants"]])
