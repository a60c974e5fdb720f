"""The bestiary: creatures created, listed, read, changed and deleted, with bounds, ETags and who may."""

from __future__ import annotations

from tests.api.campaign_helpers import create, other_campaign, stat_block, viewer_headers
from tests.api.helpers import assert_problem

URL = "/v1/creatures"


def test_create_read_list_update_delete(client):
    goblin = create(client, URL, "Goblin", weapon="dagger", vitality=6, group="goblins")
    assert goblin["side"] is None and goblin["blood"] == 6 and goblin["group"] == "goblins"
    assert "encounter" not in goblin and "effects" not in goblin
    wolf = create(client, URL, "Wolf", side="beasts")
    assert wolf["side"] == "beasts"

    page = client.get(URL, params={"limit": 5}).json()
    assert page == {"items": [goblin, wolf], "total": 2, "limit": 5, "offset": 0}
    assert client.get(URL, params={"offset": 2}).json()["items"] == []

    one = f"{URL}/{goblin['id']}"
    assert client.get(one).headers["etag"] == '"1"'
    changed = client.patch(one, json={"notes": "Hates the sun.", "armor": "leather"}, headers={"If-Match": '"1"'})
    assert changed.status_code == 200 and changed.headers["etag"] == '"2"'
    assert changed.json()["armor"] == "leather" and changed.json()["notes"] == "Hates the sun."
    assert client.get(one, headers={"If-None-Match": '"2"'}).status_code == 304
    assert_problem(client.patch(one, json={"notes": ""}, headers={"If-Match": '"1"'}), 412)

    assert client.delete(one, headers={"If-Match": '"2"'}).status_code == 204
    assert_problem(client.get(one), 404)
    assert client.get(URL).json()["total"] == 1


def test_changing_a_creature_changes_no_fight(client):
    goblin = create(client, URL, "Goblin")
    encounter = client.post("/v1/encounters", json={"name": "Cave", "combatants": [stat_block("Goblin")]}).json()
    client.patch(f"{URL}/{goblin['id']}", json={"attack": 1})
    client.delete(f"{URL}/{goblin['id']}")
    after = client.get(f"/v1/encounters/{encounter['id']}").json()
    assert after["version"] == encounter["version"] and after["combatants"] == encounter["combatants"]


def test_another_campaigns_creature_is_not_found(client):
    goblin = create(client, URL, "Goblin")
    theirs = other_campaign(client)
    assert_problem(client.get(f"{URL}/{goblin['id']}", headers=theirs), 404)
    assert_problem(client.delete(f"{URL}/{goblin['id']}", headers=theirs), 404)
    assert client.get(URL, headers=theirs).json()["items"] == []


def test_a_viewer_token_is_refused(client):
    goblin = create(client, URL, "Goblin")
    viewer = viewer_headers(client)
    assert_problem(client.get(f"{URL}/{goblin['id']}", headers=viewer), 403)
    assert_problem(client.post(URL, json=stat_block("Orc"), headers=viewer), 403)
    assert_problem(client.get(URL, headers=viewer), 403)


def test_refusals_name_the_field(client):
    body = assert_problem(client.post(URL, json=stat_block("Orc", weapon="bazooka")), 422, "unknown-key")
    assert body["errors"][0]["pointer"] == "/weapon" and "long_sword" in body["errors"][0]["detail"]
    body = assert_problem(client.post(URL, json=stat_block("Orc", wounds=[{"class": "papercut"}])), 422)
    assert body["errors"][0]["pointer"] == "/wounds/0/class"
    body = assert_problem(client.post(URL, json=stat_block("x" * 101)), 422, "validation-error")
    assert body["errors"][0]["pointer"] == "/name"
    assert client.get(URL).json()["total"] == 0


def test_an_idempotent_create_retried_gives_the_same_answer_and_one_creature(client):
    headers = {"Idempotency-Key": "goblin-1"}
    first = client.post(URL, json=stat_block("Goblin"), headers=headers)
    again = client.post(URL, json=stat_block("Goblin"), headers=headers)
    assert first.status_code == again.status_code == 201 and again.content == first.content
    assert client.get(URL).json()["total"] == 1
