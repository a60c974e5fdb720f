"""Hidden combatants never leak (CONTRACT.md, "Hidden combatants"): every byte a viewer and a player can
read, from every endpoint and from the stream, is searched for the hidden combatant's id and name, across
rounds, a turn's bleeding, staging, an effect, odds, its reveal and the undo that hides it again."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest

from app.main import create_app
from tests.api.events_support import EventReader, Served
from tests.api.helpers import assert_problem, attack, fighter
from tests.waiting import wait_for

SECRET_NAME = "Cień-zza-kotary"  # the ambusher's name: it must appear nowhere a token reads


@pytest.fixture
def served(settings):
    with Served(create_app(settings.model_copy(update={"events_keepalive_seconds": 0.2}))) as server:
        yield server


@contextmanager
def stream(served, url, secret):
    with served.client(secret) as client, client.stream("GET", f"{url}/events") as response:
        assert response.status_code == 200
        yield EventReader(response)


class Collector:
    """Every event a stream delivers, read on a thread, kept as raw text."""

    def __init__(self, reader: EventReader):
        self.reader, self.events, self.stop = reader, [], threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                event = self.reader.next(timeout=1.0)
            except Exception:  # noqa: BLE001 (the stream ended or was idle: a later read will tell)
                if self.reader.response.is_closed:
                    return
                continue
            self.events.append(event)

    def text(self) -> str:
        return "\n".join(f"{e.event} {e.id} {e.data}" for e in self.events)


def test_a_hidden_combatant_never_reaches_a_token(served):
    with served.client() as anonymous:
        owner_secret = anonymous.post("/v1/campaigns", json={"name": "Hidden"}).json()["key"]["secret"]
    owner = served.client(owner_secret)
    ambusher = {**fighter(SECRET_NAME, vitality=30), "hidden": True, "wounds": [{"class": "severe"}]}
    combatants = [fighter("Ala"), fighter("Bolek"), ambusher]
    body = {"name": "Ambush", "rules": {"turn_length": 1}, "combatants": combatants}
    created = owner.post("/v1/encounters", json=body).json()
    url = f"/v1/encounters/{created['id']}"
    ala, bolek, hidden = (c["id"] for c in created["combatants"])
    assert created["combatants"][2]["hidden"] is True  # the owner sees it, marked
    viewer = owner.post(f"{url}/tokens", json={"role": "viewer"}).json()["secret"]
    player = owner.post(f"{url}/tokens", json={"role": "player", "combatant": ala}).json()["secret"]
    assert_problem(owner.patch(f"{url}/combatants/{ala}", json={"hidden": True}), 409)  # a player's own

    seen: list[str] = []  # every body a token read
    tokens = {"viewer": served.client(viewer), "player": served.client(player)}

    def read_all(expect_hidden_visible: bool = False) -> None:
        for client in tokens.values():
            for path in (url, f"{url}/rounds", f"{url}/declarations", f"{url}/combatants/{ala}"):
                answer = client.get(path)
                assert answer.status_code == 200, (path, answer.text)
                seen.append(answer.text)
            rounds = client.get(f"{url}/rounds").json()["total"]
            for n in range(1, rounds + 1):
                seen.append(client.get(f"{url}/rounds/{n}").text)
            odds = client.post(f"{url}/odds", json={"fights": 20, "seed": 1})
            seen.append(odds.text)
            if not expect_hidden_visible:
                assert_problem(client.get(f"{url}/combatants/{hidden}"), 404)

    with stream(served, url, viewer) as viewer_events, stream(served, url, player) as player_events:
        streams = [Collector(viewer_events), Collector(player_events)]
        with stream(served, url, owner_secret) as owner_events:
            owner_stream = Collector(owner_events)
            owner.put(f"{url}/declarations/{hidden}", json={"action": {"type": "none"}})  # staged for it
            owner.post(f"{url}/combatants/{hidden}/effects", json={"name": "poisoned", "blood_per_turn": 1})
            # Ala and Bolek trade blows; the hidden one bleeds at each turn's end (turn_length 1)
            for seed in (1, 2):
                answer = owner.post(f"{url}/rounds", json={"declarations": [attack(ala, bolek)], "seed": seed})
                assert answer.status_code == 201, answer.text
                assert any(b["combatant"] == hidden for b in answer.json()["bleeding"])  # the owner sees it
            # A player declaring against it is told it does not exist
            at_hidden = {"action": {"type": "attack", "target": hidden}}
            refused = tokens["player"].put(f"{url}/declarations/{ala}", json=at_hidden)
            assert_problem(refused, 422)
            read_all()
            wait_for(lambda: len(owner_stream.events) >= 6, "the owner's events")
            wait_for(lambda: all(len(s.events) >= 3 for s in streams), "the tokens' events")
            leaked = "\n".join([*seen, *(s.text() for s in streams)])
            assert hidden not in leaked and SECRET_NAME not in leaked
            assert hidden in owner_stream.text()  # the owner's stream carries it

            # It acts: that round reveals it, in the round's own transaction
            revealing = owner.post(
                f"{url}/rounds", json={"declarations": [attack(hidden, bolek)], "seed": 3}
            )
            assert revealing.status_code == 201
            now = tokens["viewer"].get(url).json()
            assert hidden in [c["id"] for c in now["combatants"]]
            assert hidden in tokens["viewer"].get(f"{url}/rounds/1").text  # it shows in every round now
            assert SECRET_NAME in tokens["player"].get(url).text
            wait_for(lambda: any(e.event == "round" and hidden in e.data for e in streams[0].events), "reveal")

            # Undo hides it again: gone from every document a token reads
            assert owner.delete(f"{url}/rounds/3").status_code == 204
            assert owner.get(url).json()["combatants"][2]["hidden"] is True
            seen.clear()
            read_all()
            assert not any(hidden in text or SECRET_NAME in text for text in seen)
        for s in [*streams, owner_stream]:
            s.stop.set()
    owner.close()
    for client in tokens.values():
        client.close()
