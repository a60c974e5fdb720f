"""Conditional GETs: a client polling an encounter or a round gets a bodiless 304 while nothing changed."""

from __future__ import annotations

import pytest

from tests.api.helpers import attack, create_encounter, fighter


@pytest.fixture
def fought(client, fight):
    """The shared fight, one round in: (its url, its first combatant's id)."""
    url, (ala, ola, _) = fight
    posted = client.post(f"{url}/rounds", json={"declarations": [attack(ala, ola)], "seed": 7})
    assert posted.status_code == 201
    return url, ala


@pytest.mark.parametrize("path", ["", "/rounds/1"], ids=["encounter", "round"])
def test_current_etag_gets_304_without_a_body(client, fought, path):
    url, _ = fought
    first = client.get(url + path)
    assert first.status_code == 200
    tag = first.headers["etag"]
    for if_none_match in (tag, f"W/{tag}", f'"0", {tag}', "*"):
        again = client.get(url + path, headers={"If-None-Match": if_none_match})
        assert again.status_code == 304, if_none_match
        assert again.content == b""
        assert again.headers["etag"] == tag


@pytest.mark.parametrize("path", ["", "/rounds/1"], ids=["encounter", "round"])
def test_a_change_makes_the_etag_stale_and_the_get_answers_200(client, fought, path):
    url, ala = fought
    old = client.get(url + path)
    renamed = client.patch(f"{url}/combatants/{ala}", json={"name": "Ala the Bold"})
    assert renamed.status_code == 200
    fresh = client.get(url + path, headers={"If-None-Match": old.headers["etag"]})
    assert fresh.status_code == 200
    assert fresh.headers["etag"] != old.headers["etag"]
    if path == "/rounds/1":
        assert fresh.content == old.content  # a stored round never changes; its ETag is the encounter's


def test_if_none_match_does_not_hide_a_missing_encounter_or_round(client, fought):
    url, _ = fought
    assert client.get(f"{url}/rounds/2", headers={"If-None-Match": "*"}).status_code == 404
    assert client.get("/v1/encounters/nope", headers={"If-None-Match": "*"}).status_code == 404


def test_history_pages_count_every_round_and_poll_with_304(client):
    encounter = create_encounter(client, fighter("Ala"))
    url = f"/v1/encounters/{encounter['id']}"
    empty = client.get(f"{url}/rounds")
    assert empty.status_code == 200
    assert empty.json() == {"items": [], "total": 0, "limit": 20, "offset": 0}
    for seed in (1, 2, 3):
        assert client.post(f"{url}/rounds", json={"seed": seed}).status_code == 201
    page = client.get(f"{url}/rounds", params={"limit": 2, "offset": 1})
    assert page.json()["total"] == 3 and [d["round"] for d in page.json()["items"]] == [2, 3]
    past_the_end = client.get(f"{url}/rounds", params={"offset": 5}).json()
    assert past_the_end["items"] == [] and past_the_end["total"] == 3
    assert client.get(f"{url}/rounds", headers={"If-None-Match": page.headers["etag"]}).status_code == 304
    assert client.get("/v1/encounters/nope/rounds", params={"offset": 5}).status_code == 404


def test_a_304_sends_no_body_and_no_content_type_as_the_document_says(client):
    created = client.post("/v1/encounters", json={"name": "Quiet"}).json()
    url = f"/v1/encounters/{created['id']}"
    etag = client.get(url).headers["ETag"]
    unchanged = client.get(url, headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.content == b"" and "content-type" not in unchanged.headers
    declared = client.get("/openapi.json").json()["paths"]["/v1/encounters/{encounter_id}"]["get"]["responses"]["304"]
    assert "content" not in declared and "ETag" in declared["headers"]
