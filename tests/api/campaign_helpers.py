"""Helpers for the roster, bestiary and house-rule tests."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import create_encounter


def stat_block(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword", **fields}


def create(client: TestClient, path: str, name: str = "Ala", **fields: Any) -> dict[str, Any]:
    response = client.post(path, json=stat_block(name, **fields))
    assert response.status_code == 201, response.text
    return response.json()


def viewer_headers(client: TestClient) -> dict[str, str]:
    """A viewer token of a fresh encounter of the client's campaign."""
    encounter = create_encounter(client)
    token = client.post(f"/v1/encounters/{encounter['id']}/tokens", json={"role": "viewer"})
    assert token.status_code == 201, token.text
    return {"Authorization": f"Bearer {token.json()['secret']}"}


def other_campaign(client: TestClient) -> dict[str, str]:
    from tests.conftest import new_campaign_key

    return {"Authorization": f"Bearer {new_campaign_key(client, 'Another campaign')}"}
