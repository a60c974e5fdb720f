"""POST /v1/encounters/{id}/copy {"from": {"after_round": k}}: a what-if with every combatant as it stood
after round k, never linked to the roster, and no rounds."""

from __future__ import annotations

from tests.api.campaign_helpers import create
from tests.api.helpers import assert_problem
from tests.stats.helpers import seeded_fight

STATE = ("name", "side", "initiative", "attack", "defense", "weapon", "blood", "status", "wounds", "effects",
         "long_action", "hidden", "vitality", "weapon_ready")  # fmt: skip


def test_a_what_if_starts_where_round_k_left_the_fight(client):
    url, _ = seeded_fight(client, 4, seed=6)
    for k in (0, 2, 4):
        response = client.post(f"{url}/copy", json={"name": f"What if {k}", "from": {"after_round": k}})
        assert response.status_code == 201, response.text
        copy = response.json()
        assert copy["round"] == 0 and copy["name"] == f"What if {k}" and copy["id"] != url.rsplit("/", 1)[1]
        assert response.headers["Location"] == f"/v1/encounters/{copy['id']}"
        stood = client.get(f"{url}/stats").json()["series"][k]["combatants"]
        assert [(c["blood"], c["status"]) for c in copy["combatants"]] == [(p["blood"], p["status"]) for p in stood]
        if k:
            document = client.get(f"{url}/rounds/{k}").json()
            assert [c["wounds"] for c in copy["combatants"]] == [c["wounds"] for c in document["combatants"]]
        assert client.get(f"/v1/encounters/{copy['id']}/rounds").json()["total"] == 0
    start = client.post(f"{url}/copy", json={"from": "start"}).json()
    zero = client.post(f"{url}/copy", json={"from": {"after_round": 0}}).json()
    assert [{k: c[k] for k in STATE} for c in zero["combatants"]] == [
        {k: c[k] for k in STATE} for c in start["combatants"]
    ]


def test_a_what_if_never_links_a_character(client):
    ala = create(client, "/v1/characters", "Ala")["id"]
    wolf = create(client, "/v1/creatures", "Wilk", side="wolves")["id"]
    body = {"name": "Fight", "combatants": [{"character": ala}, {"creature": wolf}]}
    encounter = client.post("/v1/encounters", json=body).json()
    url = f"/v1/encounters/{encounter['id']}"
    a, w = (c["id"] for c in encounter["combatants"])
    declarations = [{"combatant": a, "stance": "balanced", "action": {"type": "attack", "target": w}}]
    assert client.post(f"{url}/rounds", json={"declarations": declarations, "seed": 2}).status_code == 201
    character_before = client.get(f"/v1/characters/{ala}").json()
    copy = client.post(f"{url}/copy", json={"from": {"after_round": 1}})
    assert copy.status_code == 201, copy.text  # Ala is busy in the original fight: a linked copy would be 409
    assert [c["character"] for c in copy.json()["combatants"]] == [None, None]
    assert [c["creature"] for c in copy.json()["combatants"]] == [None, wolf]
    assert client.get(f"/v1/characters/{ala}").json() == character_before  # the roster untouched


def test_a_round_that_is_not_there_is_refused_and_nothing_is_made(client):
    url, _ = seeded_fight(client, 2)
    before = client.get("/v1/encounters").json()["total"]
    problem = assert_problem(client.post(f"{url}/copy", json={"from": {"after_round": 3}}), 422)
    assert any(e["pointer"] == "/from/after_round" for e in problem["errors"])
    assert_problem(client.post(f"{url}/copy", json={"from": {"after_round": -1}}), 422)
    assert_problem(client.post(f"{url}/copy", json={"from": {"after_round": 1, "x": 1}}), 422)
    assert client.get("/v1/encounters").json()["total"] == before
