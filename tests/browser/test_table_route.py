"""The table page's route and assets, over HTTP without a browser (both databases)."""

from __future__ import annotations

import re

from tests.api.helpers import assert_problem, create_encounter, fighter


def test_the_page_is_served_for_any_encounter_with_a_strict_policy(client):
    response = client.get("/table/some-encounter", headers={"Authorization": ""})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy and "unsafe" not in policy
    assert response.headers["referrer-policy"] == "no-referrer"
    # Every asset comes from the service itself: no CDN, no other origin.
    for url in re.findall(r'(?:src|href)="([^"]+)"', response.text):
        assert url.startswith("/table/assets/"), url
        assert client.get(url).status_code == 200


def test_assets_revalidate_and_unknown_ones_are_problems(client):
    script = client.get("/table/assets/table.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.headers["cache-control"] == "no-cache"
    assert client.get("/table/assets/table.js", headers={"If-None-Match": script.headers["etag"]}).status_code == 304
    # The modules it imports are served too.
    for module in re.findall(r'from "\./([\w.]+)"', script.text):
        assert client.get(f"/table/assets/{module}").status_code == 200, module
    assert_problem(client.get("/table/assets/missing.js"), 404)
    assert_problem(client.get("/table/assets/%2e%2e/router.py"), 404)  # nothing outside static/


def test_a_too_long_encounter_id_is_a_problem(client):
    assert_problem(client.get("/table/" + "x" * 65), 422)


def test_the_viewer_endpoint_names_the_role_and_a_players_combatant(client):
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"))
    ala = encounter["combatants"][0]["id"]
    url = f"/table/{encounter['id']}/viewer"
    tokens = f"/v1/encounters/{encounter['id']}/tokens"
    viewer = client.post(tokens, json={"role": "viewer"}).json()["secret"]
    player = client.post(tokens, json={"role": "player", "combatant": ala}).json()["secret"]

    assert client.get(url, headers={"Authorization": f"Bearer {viewer}"}).json() == {"role": "viewer",
                                                                                     "combatant": None}
    assert client.get(url, headers={"Authorization": f"Bearer {player}"}).json() == {"role": "player",
                                                                                     "combatant": ala}
    assert client.get(url).json() == {"role": "owner", "combatant": None}
    assert_problem(client.get(url, headers={"Authorization": ""}), 401)
    assert_problem(client.get(url, headers={"Authorization": "Bearer nonsense"}), 401)
    other = create_encounter(client, fighter("Czarek"))
    assert_problem(client.get(f"/table/{other['id']}/viewer", headers={"Authorization": f"Bearer {viewer}"}), 404)
