"""GET /v1/campaign/stats: after two finished fights, each character's and creature's totals are the sums
of what the two fights' own statistics say about their combatants."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.api.campaign_helpers import create, viewer_headers
from tests.api.helpers import assert_problem, attack


def fight_to_the_end(client, characters: list[str], creature: str, seed: int) -> str:
    body = {"name": "Ambush", "combatants": [*({"character": c} for c in characters),
                                             {"creature": creature, "count": 2, "side": "wolves"}]}  # fmt: skip
    encounter = client.post("/v1/encounters", json=body)
    assert encounter.status_code == 201, encounter.text
    url = f"/v1/encounters/{encounter.json()['id']}"
    for number in range(1, 7):
        now = client.get(url).json()["combatants"]
        sides = {c["id"]: c["side"] for c in now}
        standing = [c["id"] for c in now if c["status"] != "dead"]
        declarations = []
        for c in now:
            foes = [f for f in standing if sides[f] != c["side"]]
            if c["status"] == "active" and foes:
                declarations.append(attack(c["id"], foes[number % len(foes)]))
        if not declarations:
            break
        response = client.post(f"{url}/rounds", json={"declarations": declarations, "seed": seed + number})
        assert response.status_code == 201, response.text
    assert client.post(f"{url}/finish").status_code == 200
    return url


def totals_from(stats: dict[str, Any], combatant: str) -> dict[str, Any]:
    c = next(c for c in stats["combatants"] if c["combatant"] == combatant)
    rounds = sum(any(p["combatant"] == combatant for p in k["combatants"]) for k in stats["series"][1:])
    downed = sum(1 for other in stats["combatants"] if other["down"] and other["down"]["by"] == combatant)
    return {"fights": 1, "rounds": rounds, "attacks": c["attacks"], "hits": c["hits"],
            "wounds_dealt": Counter(c["wounds_dealt"]), "wounds_taken": Counter(c["wounds_taken"]),
            "times_down": int(c["down"] is not None), "downed": downed}  # fmt: skip


def add(total: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    return {
        key: total.get(key, 0 if not isinstance(value, Counter) else Counter()) + value for key, value in more.items()
    }


def test_campaign_stats_are_the_sums_of_the_fights(client):
    ala = create(client, "/v1/characters", "Ala", vitality=14)["id"]
    bolek = create(client, "/v1/characters", "Bolek", vitality=14, weapon="mace")["id"]
    wolf = create(client, "/v1/creatures", "Wilk", vitality=8, weapon="dagger", attack=12)["id"]
    create(client, "/v1/creatures", "Niedźwiedź")  # never fought: all zeros
    urls = [fight_to_the_end(client, [ala, bolek], wolf, seed) for seed in (10, 20)]
    expected: dict[str, dict[str, Any]] = {ala: {}, bolek: {}, wolf: {}}
    copies = 0
    for url in urls:
        stats = client.get(f"{url}/stats").json()
        encounter = client.get(url).json()
        for c in encounter["combatants"]:
            owner = c["character"] or c["creature"]
            expected[owner] = add(expected[owner], totals_from(stats, c["id"]))
            copies += c["creature"] == wolf
        expected[wolf]["fights"] = 2 if len(expected[wolf]) else 0
    response = client.get("/v1/campaign/stats")
    assert response.status_code == 200, response.text
    answer = response.json()
    by_id = {c["character"]: c for c in answer["characters"]} | {c["creature"]: c for c in answer["creatures"]}
    for owner, total in expected.items():
        read = {k: Counter(v) if isinstance(v, dict) else v for k, v in by_id[owner].items()}
        assert {k: read[k] for k in total} == total, owner
    assert by_id[wolf]["copies"] == copies == 4 and by_id[wolf]["name"] == "Wilk"
    assert by_id[ala]["fights"] == 2 and by_id[ala]["rounds"] >= 2
    bear = next(c for c in answer["creatures"] if c["name"] == "Niedźwiedź")
    assert bear["fights"] == bear["copies"] == bear["attacks"] == 0


def test_an_unfinished_fight_does_not_count_for_characters_but_does_for_creatures(client):
    ala = create(client, "/v1/characters", "Ala")["id"]
    wolf = create(client, "/v1/creatures", "Wilk", side="wolves")["id"]
    encounter = client.post(
        "/v1/encounters", json={"name": "Open", "combatants": [{"character": ala}, {"creature": wolf}]}
    )
    url = f"/v1/encounters/{encounter.json()['id']}"
    ids = [c["id"] for c in encounter.json()["combatants"]]
    assert client.post(f"{url}/rounds", json={"declarations": [attack(ids[0], ids[1]), attack(ids[1], ids[0])],
                                              "seed": 4}).status_code == 201  # fmt: skip
    answer = client.get("/v1/campaign/stats").json()
    assert answer["characters"][0]["fights"] == 0
    wolf_in_fight = client.get(f"{url}/stats").json()["combatants"][1]
    assert answer["creatures"][0]["fights"] == answer["creatures"][0]["copies"] == 1
    assert answer["creatures"][0]["attacks"] == wolf_in_fight["attacks"]
    assert answer["creatures"][0]["wounds_taken"] == wolf_in_fight["wounds_taken"]


def test_only_the_owner_reads_the_campaign_stats(client):
    assert_problem(client.get("/v1/campaign/stats", headers=viewer_headers(client)), 403)


def test_the_campaign_stats_follow_every_change_and_answer_304_while_nothing_changed(client):
    """Counted once per encounter version on a worker, and tagged by every encounter, character and creature
    at its version: a round, an undo or a renamed character is seen at once; nothing new is a 304."""
    # Armor 50 deflects every blow: nobody falls, so the second round's declarations stand whatever the dice.
    ala = create(client, "/v1/characters", "Ala", armor=50)["id"]
    wolf = create(client, "/v1/creatures", "Wilk", side="wolves", armor=50)["id"]
    made = client.post("/v1/encounters", json={"name": "Open", "combatants": [{"character": ala}, {"creature": wolf}]})
    url = f"/v1/encounters/{made.json()['id']}"
    ids = [c["id"] for c in made.json()["combatants"]]
    both = {"declarations": [attack(ids[0], ids[1]), attack(ids[1], ids[0])]}
    assert client.post(f"{url}/rounds", json={**both, "seed": 4}).status_code == 201
    first = client.get("/v1/campaign/stats")
    tag = first.headers["etag"]
    assert first.json()["creatures"][0]["attacks"] == 1
    assert client.get("/v1/campaign/stats", headers={"If-None-Match": tag}).status_code == 304

    assert client.post(f"{url}/rounds", json={**both, "seed": 5}).status_code == 201
    second = client.get("/v1/campaign/stats", headers={"If-None-Match": tag})
    assert second.status_code == 200 and second.json()["creatures"][0]["attacks"] == 2
    assert client.delete(f"{url}/rounds/2").status_code == 204
    undone = client.get("/v1/campaign/stats")
    assert undone.json() == first.json() and undone.headers["etag"] != tag  # the same counts, a newer version

    assert client.patch(f"/v1/characters/{ala}", json={"name": "Alicja"}).status_code == 200
    renamed = client.get("/v1/campaign/stats", headers={"If-None-Match": undone.headers["etag"]})
    assert renamed.status_code == 200 and renamed.json()["characters"][0]["name"] == "Alicja"
