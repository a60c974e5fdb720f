"""Build a campaign that holds one of everything an export carries, and compare exports."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import attack, create_encounter, fighter


def build_campaign(client: TestClient) -> dict[str, Any]:
    """A roster, a bestiary, a finished fight with a linked character, and an unfinished one with rounds (one
    on a server-picked seed), an effect, a hidden combatant and a staged declaration. Its ids."""
    assert client.patch("/v1/campaign", json={"rules": {"delay_die": 8}}).status_code == 200
    ala = client.post("/v1/characters", json=fighter("Ala", vitality=30, armor=2)).json()
    ola = client.post("/v1/characters", json=fighter("Ola", vitality=25, armor="leather")).json()
    goblin = client.post("/v1/creatures", json=fighter("Goblin", vitality=20, weapon="dagger", group="gobs")).json()
    finished = create_encounter(client, {"character": ala["id"]}, {"creature": goblin["id"], "count": 2})
    url = f"/v1/encounters/{finished['id']}"
    ids = [c["id"] for c in finished["combatants"]]
    for seed in (1, 2):
        body = {"declarations": [attack(ids[0], ids[1]), attack(ids[1], ids[0]), attack(ids[2], ids[0])], "seed": seed}
        assert client.post(f"{url}/rounds", json=body).status_code == 201
    assert client.post(f"{url}/finish").status_code == 200
    fight = create_encounter(
        client,
        {"character": ola["id"]},
        fighter("Bolek", vitality=30, armor=2, weapon="mace", wounds=[{"class": "severe"}]),
        fighter("Cień", vitality=30, hidden=True, attacks_per_round=2),
    )
    url = f"/v1/encounters/{fight['id']}"
    fids = [c["id"] for c in fight["combatants"]]
    effect = client.post(f"{url}/combatants/{fids[1]}/effects", json={"name": "poisoned", "blood_per_turn": 1})
    assert effect.status_code == 201, effect.text
    for seed in (11, 12, None):
        body: dict[str, Any] = {"declarations": [attack(fids[0], fids[1]), attack(fids[1], fids[0])]}
        if seed is not None:
            body["seed"] = seed
        assert client.post(f"{url}/rounds", json=body).status_code == 201
    assert client.post(f"{url}/rounds", json={"declarations": [attack(fids[2], fids[0])], "seed": 5}).status_code == 201
    staged = client.put(f"{url}/declarations/{fids[0]}", json={"stance": "offensive", "action": {
        "type": "attack", "target": fids[1]}})  # fmt: skip
    assert staged.status_code in (200, 201), staged.text
    return {"finished": finished["id"], "fight": fight["id"], "fighters": fids, "characters": [ala["id"], ola["id"]]}


def export(client: TestClient) -> dict[str, Any]:
    response = client.get("/v1/campaign/export")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """The document but what an import changes: when it was exported and the campaign's id."""
    kept = {name: value for name, value in document.items() if name != "exported_at"}
    kept["campaign"] = {name: value for name, value in document["campaign"].items() if name != "id"}
    return kept


def import_document(client: TestClient, document: Any, **headers: str) -> Any:
    return client.post("/v1/campaigns/import", json=document, headers={"Authorization": "", **headers})
