"""Fights for the statistics and timeline tests."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import attack, create_encounter, fighter


def seeded_fight(client: TestClient, rounds: int, *, seed: int = 1, **body: Any) -> tuple[str, list[str]]:
    """Four fighters, two sides, `rounds` rounds with server dice from `seed`: every active one attacks
    the first active foe."""
    encounter = create_encounter(
        client,
        fighter("Ala", side="party", vitality=12),
        fighter("Bolek", side="party", vitality=12, weapon="mace"),
        fighter("Cyryl", side="bandits", vitality=12, weapon="dagger", attacks_per_round=2),
        fighter("Dobromir", side="bandits", vitality=12, weapon="spear"),
        **body,
    )
    url = f"/v1/encounters/{encounter['id']}"
    ids = [c["id"] for c in encounter["combatants"]]
    sides = {ids[0]: "party", ids[1]: "party", ids[2]: "bandits", ids[3]: "bandits"}
    for number in range(1, rounds + 1):
        now = {c["id"]: c["status"] for c in client.get(url).json()["combatants"]}
        declarations = []
        for cid in ids:
            foes = [f for f in ids if sides[f] != sides[cid] and now[f] != "dead"]
            if now[cid] == "active" and foes:
                declarations.append(attack(cid, foes[0], stance=("offensive", "balanced", "defensive")[number % 3]))
        response = client.post(f"{url}/rounds", json={"declarations": declarations, "seed": seed * 1000 + number})
        assert response.status_code == 201, response.text
    return url, ids
