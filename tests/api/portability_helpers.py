"""Build a campaign that holds one of everything an export carries, and compare exports."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.helpers import attack, create_encounter, fighter


def _active(client: TestClient, url: str) -> set[str]:
    return {c["id"] for c in client.get(url).json()["combatants"] if c["status"] == "active"}


def _attacks(client: TestClient, url: str, pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The attacks of `pairs` that a round would take now: random ids make the seeded dice differ from run
    to run, so a blow may already have taken an actor or a target out of the fight."""
    active = _active(client, url)
    return [attack(actor, target) for actor, target in pairs if actor in active and target in active]


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
        pairs = [(ids[0], ids[1]), (ids[1], ids[0]), (ids[2], ids[0])]
        body = {"declarations": _attacks(client, url, pairs), "seed": seed}
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
        body: dict[str, Any] = {"declarations": _attacks(client, url, [(fids[0], fids[1]), (fids[1], fids[0])])}
        if seed is not None:
            body["seed"] = seed
        assert client.post(f"{url}/rounds", json=body).status_code == 201
    hidden_acts = {"declarations": _attacks(client, url, [(fids[2], fids[0])]), "seed": 5}
    assert client.post(f"{url}/rounds", json=hidden_acts).status_code == 201
    standing = _active(client, url)
    stager, target = (fids[0], fids[1]) if {fids[0], fids[1]} <= standing else (fids[2], fids[2])
    action = {"type": "attack", "target": target} if stager != target else {"type": "none"}
    staged = client.put(f"{url}/declarations/{stager}", json={"stance": "offensive", "action": action})
    assert staged.status_code in (200, 201), staged.text
    return {
        "finished": finished["id"],
        "fight": fight["id"],
        "fighters": fids,
        "staged": stager,
        "characters": [ala["id"], ola["id"]],
    }


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
