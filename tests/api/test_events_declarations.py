"""Staged declarations (and effects) on the live stream, on SQLite and PostgreSQL: every role learns *that* a combatant
declared, never *what*; a round, a withdrawal and an undo each say `declared: false`; a refused stage
and a replayed round send nothing."""

from __future__ import annotations

from tests.api.events_support import EventReader
from tests.api.test_events_stream import served, stream, world  # noqa: F401  (fixtures)

SECRET_STANCE = "offensive"


def _stage(world, cid: str, secret: str, **body) -> int:  # noqa: F811
    api = world["api"]
    body = {"stance": SECRET_STANCE, "action": {"type": "attack", "targets": [world["combatants"][1]]}, **body}
    return api.put(f"{world['url']}/declarations/{cid}", json=body, headers={"Authorization": f"Bearer {secret}"}
                   ).status_code


def _declared(event, cid: str, declared: bool, version: int) -> None:
    expected = ("declaration", str(version), {"combatant": cid, "declared": declared})
    assert (event.event, event.id, event.json()) == expected
    assert SECRET_STANCE not in event.data and "attack" not in event.data and "dice" not in event.data


def test_every_role_hears_that_a_combatant_declared_never_what(served, world):  # noqa: F811
    api, url, (a, _) = world["api"], world["url"], world["combatants"]
    version = api.get(url).json()["version"]
    secrets = world["secrets"]
    with (stream(served, f"{url}/events", secrets["viewer"]) as viewer,
          stream(served, f"{url}/events", secrets["player"]) as player,
          stream(served, f"{url}/events", secrets["owner"]) as owner):
        readers: tuple[EventReader, ...] = (viewer, player, owner)
        for events in readers:
            assert events.next().event == "sync"
        dice = {f"{a}.attack.1": 12}
        assert _stage(world, a, secrets["player"], dice=dice) == 201  # the player, from its phone
        for events in readers:  # the owner's stream is no richer: the owner reads GET …/declarations
            _declared(events.next(), a, True, version)
        assert api.get(url).json()["version"] == version  # staging moved nothing
        assert api.delete(f"{url}/declarations/{a}").status_code == 204
        for events in readers:
            _declared(events.next(), a, False, version)


def test_a_round_clears_them_on_every_screen_and_a_retry_sends_nothing_new(served, world):  # noqa: F811
    api, url, (a, b) = world["api"], world["url"], world["combatants"]
    secrets = world["secrets"]
    with stream(served, f"{url}/events", secrets["viewer"]) as events:
        assert events.next().event == "sync"
        assert _stage(world, a, secrets["player"]) == 201
        assert events.next().event == "declaration"
        key = {"Idempotency-Key": "the-round"}
        # a's staged attack misses (a natural 20): b must stay active to stage after the round
        body = {"seed": 1, "dice": {f"{a}.attack.1": 20}}
        posted = api.post(f"{url}/rounds", json=body, headers=key)
        assert posted.status_code == 201
        version = int(posted.headers["etag"].strip('"'))
        round_event = events.next()
        assert round_event.event == "round" and round_event.json() == posted.json()
        _declared(events.next(), a, False, version)
        # a retry replays the stored answer: no second round, no event; the next change is the next event
        assert api.post(f"{url}/rounds", json=body, headers=key).headers["idempotent-replayed"] == "true"
        assert _stage(world, b, secrets["owner"], action={"type": "none"}) == 201
        _declared(events.next(), b, True, version)


def test_undo_withdraws_what_was_staged_after_the_round_and_says_so(served, world):  # noqa: F811
    api, url, (a, _) = world["api"], world["url"], world["combatants"]
    secrets = world["secrets"]
    assert api.post(f"{url}/rounds", json={}).status_code == 201
    with stream(served, f"{url}/events", secrets["player"]) as events:
        assert events.next().event == "sync"
        assert _stage(world, a, secrets["player"]) == 201
        assert events.next().event == "declaration"
        undone = api.delete(f"{url}/rounds/1")
        assert undone.status_code == 204
        version = int(undone.headers["etag"].strip('"'))
        assert events.next().json() == {"round": 1}
        _declared(events.next(), a, False, version)
    assert api.get(f"{url}/declarations").json() == {"round": 1, "declarations": []}


def test_a_refused_stage_sends_nothing(served, world):  # noqa: F811
    api, url, (a, b) = world["api"], world["url"], world["combatants"]
    secrets = world["secrets"]
    with stream(served, f"{url}/events", secrets["viewer"]) as events:
        assert events.next().event == "sync"
        assert _stage(world, a, secrets["player"], action={"type": "attack", "targets": ["nobody"]}) == 422
        assert _stage(world, b, secrets["player"]) == 403  # not its combatant
        renamed = api.patch(url, json={"name": "Next"}).json()
        following = events.next()
        assert (following.event, following.json()) == ("encounter", {"version": renamed["version"]})


def test_effects_put_on_and_taken_off_are_encounter_events(served, world):  # noqa: F811
    api, url, (a, _) = world["api"], world["url"], world["combatants"]
    with stream(served, f"{url}/events", world["secrets"]["viewer"]) as events:
        assert events.next().event == "sync"
        added = api.post(f"{url}/combatants/{a}/effects", json={"name": "Blessed", "attack": 1, "rounds": 2})
        assert added.status_code == 201, added.text
        on = events.next()
        assert (on.event, on.id, on.json()) == ("encounter", added.headers["etag"].strip('"'),
                                                {"version": int(added.headers["etag"].strip('"'))})
        removed = api.delete(added.headers["location"])
        assert removed.status_code == 204
        off = events.next()
        assert (off.event, off.id) == ("encounter", removed.headers["etag"].strip('"'))


def test_removing_a_combatant_withdraws_its_staged_declaration_on_every_screen(served, world):  # noqa: F811
    api, url, (a, _) = world["api"], world["url"], world["combatants"]
    secrets = world["secrets"]
    with stream(served, f"{url}/events", secrets["viewer"]) as events:
        assert events.next().event == "sync"
        assert _stage(world, a, secrets["player"]) == 201
        assert events.next().event == "declaration"
        removed = api.delete(f"{url}/combatants/{a}")
        assert removed.status_code == 204
        version = api.get(url).json()["version"]
        change = events.next()
        assert (change.event, change.id, change.json()) == ("encounter", str(version), {"version": version})
        # then, before anything that happens later, the withdrawal itself, at the removal's version
        assert api.patch(url, json={"name": "Later"}).status_code == 200
        _declared(events.next(), a, False, version)
    assert api.get(f"{url}/declarations").json() == {"round": 1, "declarations": []}
