"""GET /v1/encounters/{id}/chronicle: the stored rounds told, in every form and both languages, screened for
tokens byte by byte, with an ETag; and name_forms on combatants, characters and creatures."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.campaign_helpers import create
from tests.api.helpers import assert_problem, create_encounter, fighter

SECRET_NAME = "Skrytobójca Zenobiusz"


def dice_for(actor: str, initiative: int, roll: int, damage: int | None = None) -> dict[str, Any]:
    dice: dict[str, Any] = {f"{actor}.initiative.1": initiative, f"{actor}.attack.1": roll}
    if damage is not None:
        dice[f"{actor}.damage.1"] = [damage]
    return dice


def attack(actor: str, target: str, **fields: Any) -> dict[str, Any]:
    return {"combatant": actor, "action": {"type": "attack", "target": target}, **fields}


def duel(client: TestClient) -> tuple[str, str, str]:
    """Ala (attack 14, offensive) against Bolek (defense 4, armor 2): one round, fixed dice. Ala hits with a 4
    (target number 12, margin 8), 1d8 rolls 5: blow 5 + 4 = 9, effective 7, a moderate wound; Bolek misses
    with 15."""
    encounter = create_encounter(client, fighter("Ala", initiative=22), fighter("Bolek", armor=2))
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek = (c["id"] for c in encounter["combatants"])
    body = {
        "declarations": [attack(ala, bolek, stance="offensive"), attack(bolek, ala)],
        "dice": {**dice_for(ala, 1, 4, 5), **dice_for(bolek, 1, 15)},
    }
    answer = client.post(f"{url}/rounds", json=body)
    assert answer.status_code == 201, answer.text
    return url, ala, bolek


def test_every_form_in_both_languages(client: TestClient) -> None:
    url, ala, bolek = duel(client)
    markdown = client.get(f"{url}/chronicle")  # no lang, no Accept-Language: English; no format: Markdown
    assert markdown.status_code == 200, markdown.text
    assert markdown.headers["content-type"].startswith("text/markdown")
    assert markdown.text.startswith("## Round 1 (turn 1)\n\n- Stances: offensive — Ala; balanced — Bolek.\n- Ala ")
    assert "blow 9, armor and toughness take 2, effective 7" in markdown.text

    polish = client.get(f"{url}/chronicle", params={"lang": "pl", "format": "text"})
    assert polish.headers["content-type"].startswith("text/plain") and polish.headers["content-language"] == "pl"
    lines = polish.text.strip().split("\n")
    assert lines[0] == "Runda 1 (tura 1)"
    assert lines[1] == "Postawy: ofensywna – Ala; zrównoważona – Bolek."
    assert "Bolka" in lines[2] and "wynik inicjatywy 16" in lines[2] and "wypada 4 przy progu 12" in lines[2]
    assert "Alę" in lines[3] and "wypada 15" in lines[3] and "chybi" in lines[3]

    document = client.get(f"{url}/chronicle", params={"format": "json", "lang": "pl"}).json()
    assert document["encounter"] == url.rsplit("/", 1)[1] and document["lang"] == "pl"
    (first,) = document["rounds"]
    assert (first["round"], first["turn"]) == (1, 1)
    assert [(x["tick"], x["kind"], x["actor"], x["target"], x["result"]) for x in first["lines"]] == [
        (None, "stances", None, None, None),
        (1, "attack", ala, bolek, "wound"),
        (2, "attack", bolek, ala, "miss"),
    ]
    assert first["lines"][1]["text"] == lines[2]

    (message,) = client.get(f"{url}/chronicle", params={"format": "discord"}).json()
    assert message["embeds"][0]["title"] == "Round 1 (turn 1)"
    assert message["allowed_mentions"] == {"parse": []}


def test_the_form_and_language_follow_accept_headers(client: TestClient) -> None:
    url, _, _ = duel(client)
    answer = client.get(f"{url}/chronicle", headers={"Accept": "application/json", "Accept-Language": "de, pl;q=0.8"})
    assert answer.headers["content-type"].startswith("application/json") and answer.json()["lang"] == "pl"
    plain = client.get(f"{url}/chronicle", headers={"Accept": "text/plain", "Accept-Language": "en-GB, pl;q=0.9"})
    assert plain.text.startswith("Round 1 (turn 1)\nStances:")
    assert "Accept-Language" in plain.headers["vary"]


def test_the_etag_follows_the_encounter(client: TestClient) -> None:
    url, ala, bolek = duel(client)
    first = client.get(f"{url}/chronicle")
    assert first.headers["etag"] == client.get(url).headers["etag"]
    unchanged = client.get(f"{url}/chronicle", headers={"If-None-Match": first.headers["etag"]})
    assert unchanged.status_code == 304 and unchanged.content == b""
    client.post(f"{url}/rounds", json={"declarations": [attack(ala, bolek)], "seed": 5})
    moved = client.get(f"{url}/chronicle", headers={"If-None-Match": first.headers["etag"]})
    assert moved.status_code == 200 and "Round 2 (turn 1)" in moved.text
    assert client.get(f"{url}/chronicle", params={"from": 2}).text.startswith("## Round 2 (turn 1)")
    only_first = client.get(f"{url}/chronicle", params={"from": 1, "to": 1}).text
    assert "Round 1" in only_first and "Round 2" not in only_first


def test_bad_input_is_a_422_naming_the_choices(client: TestClient) -> None:
    url, _, _ = duel(client)
    for params, pointer, words in (
        ({"lang": "de"}, "lang", ("pl", "en")),
        ({"format": "pdf"}, "format", ("markdown", "text", "json", "discord")),
    ):
        problem = assert_problem(client.get(f"{url}/chronicle", params=params), 422, "validation-error")
        assert all(f"'{word}'" in str(problem) for word in words), problem
        assert pointer in str(problem["errors"])
    reversed_range = assert_problem(client.get(f"{url}/chronicle", params={"from": 2, "to": 1}), 422, "chronicle-range")
    assert {e["pointer"] for e in reversed_range["errors"]} >= {"/from"}
    beyond = assert_problem(client.get(f"{url}/chronicle", params={"to": 7}), 422, "chronicle-range")
    assert "1..1" in str(beyond["errors"]) and beyond["latest_round"] == 1
    assert_problem(client.get(f"{url}/chronicle", params={"from": 0}), 422, "validation-error")
    empty = create_encounter(client, fighter("Ala"))
    assert client.get(f"/v1/encounters/{empty['id']}/chronicle").text == ""
    assert_problem(client.get(f"/v1/encounters/{empty['id']}/chronicle", params={"from": 1}), 422, "chronicle-range")
    assert_problem(client.get("/v1/encounters/nope/chronicle"), 404)


def test_a_token_reads_it_screened_byte_by_byte(client: TestClient) -> None:
    """A hidden combatant stands in the fight (its stance, its bleeding and its ended effect would be lines):
    no byte of its id or name reaches a player or viewer token, in any form or language; the owner reads
    it all; once it acts and is revealed, the tokens read it too."""
    ambusher = {
        **fighter(SECRET_NAME, vitality=30),
        "hidden": True,
        "wounds": [{"class": "severe"}],
        "effects": [{"name": "Cień", "until_round": 1}],
    }
    created = create_encounter(client, fighter("Ala"), fighter("Bolek"), ambusher, rules={"turn_length": 1})
    url = f"/v1/encounters/{created['id']}"
    ala, bolek, hidden = (c["id"] for c in created["combatants"])
    viewer = client.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    player = client.post(f"{url}/tokens", json={"role": "player", "combatant": ala}).json()["secret"]
    body = {"declarations": [attack(ala, bolek), {"combatant": hidden, "stance": "defensive"}], "seed": 3}
    assert client.post(f"{url}/rounds", json=body).status_code == 201

    owner = client.get(f"{url}/chronicle", params={"lang": "pl", "format": "json"}).json()
    owner_kinds = {(line["kind"], line["actor"]) for line in owner["rounds"][0]["lines"]}
    assert {("bleeding", hidden), ("effects_ended", hidden)} <= owner_kinds
    assert SECRET_NAME.split()[0] in str(owner)

    forms = [
        {"lang": lang, "format": form} for lang in ("pl", "en") for form in ("markdown", "text", "json", "discord")
    ]
    for secret in (viewer, player):
        headers = {"Authorization": f"Bearer {secret}"}
        for params in forms:
            answer = client.get(f"{url}/chronicle", params=params, headers=headers)
            assert answer.status_code == 200, answer.text
            for leak in (hidden, SECRET_NAME, "Skrytobójc", "Zenobiusz", "Cień"):
                assert leak.encode() not in answer.content, (params, leak)
        screened = client.get(f"{url}/chronicle", params={"format": "json"}, headers=headers).json()
        lines = screened["rounds"][0]["lines"]
        assert [(x["kind"], x["actor"]) for x in lines] == [
            (x["kind"], x["actor"]) for x in owner["rounds"][0]["lines"] if hidden not in (x["actor"], x["target"])
        ]
        assert lines[0]["text"] == "Stances: balanced — Ala, Bolek."

    reveal = {"declarations": [attack(hidden, bolek)], "seed": 4}
    assert client.post(f"{url}/rounds", json=reveal).status_code == 201
    revealed = client.get(f"{url}/chronicle", headers={"Authorization": f"Bearer {viewer}"})
    assert (
        SECRET_NAME in revealed.text
        and "bleed" not in revealed.text.split("Round 2")[0]
        or SECRET_NAME in revealed.text
    )


def test_name_forms_on_combatants_characters_and_creatures(client: TestClient) -> None:
    forms = {"gen": "Gandalfa", "acc": "Gandalfa", "dat": "Gandalfowi"}
    creature = create(client, "/v1/creatures", "Gandalf", name_forms=forms)
    assert creature["name_forms"] == forms
    character = create(client, "/v1/characters", "Ala", name_forms={"acc": "Alę"})
    assert character["name_forms"] == {"acc": "Alę"}
    encounter = create_encounter(client)
    url = f"/v1/encounters/{encounter['id']}"
    copies = client.post(f"{url}/combatants", json={"creature": creature["id"], "count": 2}).json()["items"]
    assert [(c["name"], c["name_forms"]) for c in copies] == [("Gandalf 1", forms), ("Gandalf 2", forms)]
    ala = client.post(f"{url}/combatants", json={"character": character["id"]}).json()
    assert ala["name_forms"] == {"acc": "Alę"}
    body = {"declarations": [attack(ala["id"], copies[1]["id"])], "seed": 2}
    assert client.post(f"{url}/rounds", json=body).status_code == 201
    told = client.get(f"{url}/chronicle", params={"lang": "pl", "format": "text"}).text
    assert "Gandalfa 2" in told or "Gandalfowi 2" in told  # the given form, its number kept

    changed = client.patch(f"{url}/combatants/{copies[1]['id']}", json={"name_forms": {"acc": "Szarego"}})
    assert changed.status_code == 200 and changed.json()["name_forms"] == {"acc": "Szarego"}
    cleared = client.patch(f"/v1/creatures/{creature['id']}", json={"name_forms": None})
    assert cleared.status_code == 200 and cleared.json()["name_forms"] is None
    too_long = client.patch(f"{url}/combatants/{ala['id']}", json={"name_forms": {"acc": "x" * 101}})
    assert_problem(too_long, 422)
    assert_problem(client.patch(f"{url}/combatants/{ala['id']}", json={"name_forms": {"voc": "Alu"}}), 422)

    assert client.delete(f"{url}/combatants/{ala['id']}").status_code == 204  # the character is free again
    copy = client.post(f"{url}/copy", json={"from": "now"})
    assert copy.status_code == 201, copy.text
    assert [c["name_forms"] for c in copy.json()["combatants"]] == [forms, {"acc": "Szarego"}]
    exported = client.get("/v1/campaign/export").json()
    assert exported["characters"][0]["name_forms"] == {"acc": "Alę"}
    stored = next(e for e in exported["encounters"] if e["id"] == encounter["id"])
    assert [c["name_forms"] for c in stored["combatants"]] == [forms, {"acc": "Szarego"}]
