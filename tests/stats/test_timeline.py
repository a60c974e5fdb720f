"""GET /v1/encounters/{id}/odds/timeline: one point per round, deterministic, kept once computed and
dropped with its round by undo, turning points exactly the swings of 0.20 or more, screened for tokens,
and one computation shared by concurrent requests. Against SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.main import create_app
from app.stats import timeline
from app.stats.marks import stored_turning_points
from tests.api.helpers import assert_problem, attack, create_encounter, fighter
from tests.conftest import new_campaign_key
from tests.stats.helpers import seeded_fight

DEADLINE = 120  # seconds: generous, the machine may be loaded


@pytest.fixture
def threaded(settings) -> Iterator[TestClient]:
    """Odds in a thread of the test's process: fast to start, and patchable."""
    with TestClient(create_app(settings.model_copy(update={"odds_processes": 0})), raise_server_exceptions=False) as c:
        c.headers["Authorization"] = f"Bearer {new_campaign_key(c)}"
        yield c


def timeline_of(client: TestClient, url: str, **params) -> dict:
    response = client.get(f"{url}/odds/timeline", params={"fights": 200, **params})
    assert response.status_code == 200, response.text
    return response.json()


def kept_rounds(inspect_database, encounter_id: str) -> list[int]:
    with inspect_database() as session:
        rows = session.execute(text("SELECT round FROM odds_points WHERE encounter_id = :e ORDER BY round"),
                               {"e": encounter_id})  # fmt: skip
        return [row[0] for row in rows]


def swings(points: list[dict]) -> list[tuple[int, str, float, float]]:
    """The turning points counted here: every side whose wins moved by a fifth of the fights or more."""
    found = []
    for before, after in zip(points, points[1:]):
        shares = {s["side"]: s["wins"] for s in before["sides"]}
        now = {s["side"]: s["wins"] for s in after["sides"]}
        for side in dict.fromkeys([*shares, *now]):
            won_before, won_after = round(shares.get(side, 0) * 200), round(now.get(side, 0) * 200)
            if abs(won_after - won_before) >= 40:
                found.append((after["round"], side, won_before / 200, won_after / 200))
    return found


def test_one_point_per_round_deterministic_and_kept(threaded, inspect_database):
    url, _ = seeded_fight(threaded, 4, seed=2)
    encounter_id = url.rsplit("/", 1)[1]
    first = timeline_of(threaded, url)
    assert [p["round"] for p in first["points"]] == [0, 1, 2, 3, 4]
    assert first["fights"] == 200 and first["max_rounds"] == 50
    for point in first["points"]:
        assert point["fights"] == 200
        assert sum(s["wins"] for s in point["sides"]) + point["draws"] == pytest.approx(1)
    assert kept_rounds(inspect_database, encounter_id) == [0, 1, 2, 3, 4]
    assert timeline_of(threaded, url) == first  # read back
    with inspect_database.begin() as session:
        session.execute(text("DELETE FROM odds_points"))
    assert timeline_of(threaded, url) == first  # computed again: the same
    assert [tuple(t[k] for k in ("round", "side", "before", "after")) for t in first["turning_points"]] == swings(
        first["points"]
    )
    other = timeline_of(threaded, url, fights=300)
    assert [p["fights"] for p in other["points"]] == [300] * 5


def test_undo_drops_the_undone_rounds_point(threaded, inspect_database):
    url, _ = seeded_fight(threaded, 3, seed=3)
    encounter_id = url.rsplit("/", 1)[1]
    before = timeline_of(threaded, url)
    assert threaded.delete(f"{url}/rounds/3").status_code == 204
    assert kept_rounds(inspect_database, encounter_id) == [0, 1, 2]
    after = timeline_of(threaded, url)
    assert after["points"] == before["points"][:3]


def test_a_decided_fight_gives_the_side_with_no_one_standing_0(threaded):
    encounter = create_encounter(
        threaded, fighter("Ala", side="party"), fighter("Cyryl", side="bandits", vitality=5, armor=0)
    )
    url = f"/v1/encounters/{encounter['id']}"
    a, c = (x["id"] for x in encounter["combatants"])
    mortal = {f"{a}.attack.1": 1, f"{a}.damage.1": [8], f"{a}.initiative.1": 1}
    response = threaded.post(f"{url}/rounds", json={"declarations": [attack(a, c)], "dice": mortal, "seed": 1})
    assert response.status_code == 201 and response.json()["combatants"][1]["status"] != "active"
    last = timeline_of(threaded, url)["points"][-1]
    assert {s["side"]: s["wins"] for s in last["sides"]} == {"party": 1.0, "bandits": 0.0}
    assert last["draws"] == 0


def decided_in_round_two(client: TestClient) -> tuple[dict, str, str]:
    """Ala against Cyryl: both miss in round 1, Ala's blow in round 2 is at least critical (margin +9, 13+)."""
    encounter = create_encounter(
        client, fighter("Ala", side="party", vitality=20), fighter("Cyryl", side="bandits", vitality=20),
        rules={"turn_length": 100},
    )  # fmt: skip
    url = f"/v1/encounters/{encounter['id']}"
    a, c = (x["id"] for x in encounter["combatants"])
    miss = {f"{a}.attack.1": 20, f"{c}.attack.1": 20, f"{a}.initiative.1": 1, f"{c}.initiative.1": 2}
    client.post(f"{url}/rounds", json={"declarations": [attack(a, c), attack(c, a)], "dice": miss})
    mortal = {**miss, f"{a}.attack.1": 1, f"{a}.damage.1": [8]}
    client.post(f"{url}/rounds", json={"declarations": [attack(a, c), attack(c, a)], "dice": mortal})
    return encounter, url, a


def test_turning_points_are_exactly_the_swings(threaded):
    """A fight decided in round 2 after an even start swings by far more than 0.20; nothing else does."""
    encounter, url, a = decided_in_round_two(threaded)
    answer = timeline_of(threaded, url)
    assert [tuple(t[k] for k in ("round", "side", "before", "after")) for t in answer["turning_points"]] == swings(
        answer["points"]
    )
    at_two = [t for t in answer["turning_points"] if t["round"] == 2]
    assert {t["side"] for t in at_two} == {"party", "bandits"}
    assert all(t["actions"] == [f"{a}.1"] for t in at_two)
    assert not [t for t in answer["turning_points"] if t["round"] == 1]
    # what the chronicle reads: the turning point of round 2, the side whose chance moved most
    marks = marks_of(threaded, encounter["id"])
    assert list(marks) == [2] and marks[2].actions == (f"{a}.1",)
    assert abs(marks[2].after - marks[2].before) == max(abs(t["after"] - t["before"]) for t in at_two)


def marks_of(client: TestClient, encounter_id: str):
    async def read():
        async with client.app.state.database.sessions() as session:
            return await stored_turning_points(session, encounter_id)

    return client.portal.call(read)


def test_nothing_is_marked_before_a_timeline_is_computed(threaded):
    url, _ = seeded_fight(threaded, 2)
    assert marks_of(threaded, url.rsplit("/", 1)[1]) == {}


def test_a_token_reads_a_timeline_played_without_the_hidden(threaded, inspect_database):
    encounter = create_encounter(
        threaded,
        fighter("Ala", side="party"),
        fighter("Cień", side="shadows", hidden=True),
        fighter("Bolek", side="bandits"),
    )
    url = f"/v1/encounters/{encounter['id']}"
    viewer = threaded.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    screened = threaded.get(f"{url}/odds/timeline", params={"fights": 200},
                            headers={"Authorization": f"Bearer {viewer}"})  # fmt: skip
    assert screened.status_code == 200, screened.text
    assert "shadows" not in screened.text and encounter["combatants"][1]["id"] not in screened.text
    owners = timeline_of(threaded, url)
    assert "shadows" in [s["side"] for s in owners["points"][0]["sides"]]


def test_out_of_bounds_and_over_the_budget_are_refused(threaded):
    url, _ = seeded_fight(threaded, 1)
    assert_problem(threaded.get(f"{url}/odds/timeline", params={"fights": 99}), 422)
    assert_problem(threaded.get(f"{url}/odds/timeline", params={"fights": 10_001}), 422)
    over = threaded.get(f"{url}/odds/timeline", params={"fights": 10_000, "max_rounds": 200})
    assert_problem(over, 422, "odds-budget-exceeded")


def test_concurrent_requests_share_one_computation(threaded, monkeypatch):
    url, _ = seeded_fight(threaded, 2, seed=4)
    played: list[int] = []
    release = threading.Event()
    real = timeline.play_point

    def held(job):
        played.append(job.first_round - 1)
        assert release.wait(DEADLINE)
        return real(job)

    monkeypatch.setattr(timeline, "play_point", held)
    flights = timeline.flights_of(threaded.app.state.odds_runner)
    with ThreadPoolExecutor(2) as background:
        first = background.submit(timeline_of, threaded, url)
        second = background.submit(timeline_of, threaded, url)
        deadline = threading.Event()
        for _ in range(DEADLINE * 10):  # poll: both requests are in, one playing, the other waiting on it
            if flights.shared >= 3 and played:
                break
            deadline.wait(0.1)
        release.set()
        answers = first.result(DEADLINE), second.result(DEADLINE)
    assert flights.shared >= 3  # the second request awaited all three points of the first
    assert sorted(played) == [0, 1, 2]  # each point played once
    assert answers[0] == answers[1]


def test_the_points_are_played_in_the_worker_processes(client):
    url, _ = seeded_fight(client, 2, seed=5)
    answer = client.get(f"{url}/odds/timeline", params={"fights": 100})
    assert answer.status_code == 200, answer.text
    assert [p["round"] for p in answer.json()["points"]] == [0, 1, 2]


def test_the_owners_chronicle_marks_a_computed_turning_point_and_a_tokens_does_not(threaded):
    """Before the timeline is computed the chronicle has no mark; after it, the owner's chronicle tells
    round 2's turning point in both languages under a new ETag (a cached copy is not current any more),
    while a viewer's chronicle stays as it was."""
    _, url, _ = decided_in_round_two(threaded)
    viewer = threaded.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    as_viewer = {"Authorization": f"Bearer {viewer}"}
    before = threaded.get(f"{url}/chronicle", params={"lang": "en", "format": "text"})
    viewer_before = threaded.get(f"{url}/chronicle", params={"lang": "en", "format": "text"}, headers=as_viewer)
    assert "Turning point" not in before.text
    timeline_of(threaded, url)
    after = threaded.get(f"{url}/chronicle", params={"lang": "en", "format": "text"})
    polish = threaded.get(f"{url}/chronicle", params={"lang": "pl", "format": "text"})
    assert after.status_code == 200 and after.headers["ETag"] != before.headers["ETag"]
    assert after.text.count("Turning point") == 1 and polish.text.count("Punkt zwrotny") == 1
    stale = threaded.get(f"{url}/chronicle", params={"lang": "en", "format": "text"},
                         headers={"If-None-Match": before.headers["ETag"]})  # fmt: skip
    assert stale.status_code == 200
    current = threaded.get(f"{url}/chronicle", params={"lang": "en", "format": "text"},
                           headers={"If-None-Match": after.headers["ETag"]})  # fmt: skip
    assert current.status_code == 304 and current.headers["ETag"] == after.headers["ETag"]
    viewer_after = threaded.get(f"{url}/chronicle", params={"lang": "en", "format": "text"}, headers=as_viewer)
    assert viewer_after.text == viewer_before.text and viewer_after.headers["ETag"] == viewer_before.headers["ETag"]
