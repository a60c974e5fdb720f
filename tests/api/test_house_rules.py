"""House rules: the campaign's ruleset overrides, read and replaced, checked against the roster and the bestiary."""

from __future__ import annotations

from tests.api.campaign_helpers import create, stat_block, viewer_headers
from tests.api.helpers import assert_problem

FLAIL = {"delay": 7, "damage": "1d10"}


def test_read_and_replace_the_house_rules(client):
    campaign = client.get("/v1/campaign")
    assert campaign.status_code == 200 and campaign.headers["etag"] == '"1"'
    assert campaign.json()["rules"] == {} and campaign.json()["version"] == 1
    assert client.get("/v1/campaign", headers={"If-None-Match": '"1"'}).status_code == 304

    changed = client.patch("/v1/campaign", json={"rules": {"delay_die": 8}}, headers={"If-Match": '"1"'})
    assert changed.status_code == 200 and changed.headers["etag"] == '"2"'
    assert changed.json()["rules"] == {"delay_die": 8} and changed.json()["version"] == 2
    assert client.get("/v1/campaign").json() == changed.json()
    assert_problem(client.patch("/v1/campaign", json={"rules": {}}, headers={"If-Match": '"1"'}), 412)

    cleared = client.patch("/v1/campaign", json={"rules": {}})
    assert cleared.json()["rules"] == {} and cleared.json()["version"] == 3


def test_bad_overrides_are_refused(client):
    for rules in ({"delay_die": 1}, {"colour": "red"}, {"armory": {"flail": {"name": "Flail"}}}):
        assert_problem(client.patch("/v1/campaign", json={"rules": rules}), 422, "invalid-ruleset")
    assert_problem(client.patch("/v1/campaign", json={}), 422, "validation-error")
    assert client.get("/v1/campaign").json()["version"] == 1


def test_a_weapon_of_the_campaigns_armory_is_known(client):
    assert_problem(client.post("/v1/characters", json=stat_block("Ala", weapon="flail")), 422, "unknown-key")
    assert client.patch("/v1/campaign", json={"rules": {"armory": {"flail": FLAIL}}}).status_code == 200
    ala = create(client, "/v1/characters", "Ala", weapon="flail")
    assert ala["weapon"] == "flail"
    assert create(client, "/v1/creatures", "Ogre", weapon="flail")["weapon"] == "flail"


def test_house_rules_that_drop_a_weapon_in_use_are_refused(client):
    assert client.patch("/v1/campaign", json={"rules": {"armory": {"flail": FLAIL}}}).status_code == 200
    ogre = create(client, "/v1/creatures", "Ogre", weapon="flail")
    body = assert_problem(client.patch("/v1/campaign", json={"rules": {}}), 422, "unprocessable")
    assert body["creature"] == ogre["id"] and ogre["id"] in body["detail"]
    assert client.get("/v1/campaign").json()["rules"] == {"armory": {"flail": FLAIL}}
    assert client.patch(f"/v1/creatures/{ogre['id']}", json={"weapon": "mace"}).status_code == 200
    assert client.patch("/v1/campaign", json={"rules": {}}).status_code == 200


def test_house_rules_that_drop_an_armor_in_use_are_refused(client):
    assert client.patch("/v1/campaign", json={"rules": {"armor": {"brigandine": 3}}}).status_code == 200
    ala = create(client, "/v1/characters", "Ala", armor="brigandine")
    body = assert_problem(client.patch("/v1/campaign", json={"rules": {"delay_die": 8}}), 422)
    assert body["character"] == ala["id"]


def test_only_the_owner_key(client):
    viewer = viewer_headers(client)
    assert_problem(client.get("/v1/campaign", headers=viewer), 403)
    assert_problem(client.patch("/v1/campaign", json={"rules": {}}, headers=viewer), 403)
