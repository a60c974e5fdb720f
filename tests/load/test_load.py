"""Many clients, several workers, retries and a SIGKILL: no round lost, none doubled.

16 clients x 50 round requests over 4 encounters against 2 uvicorn workers; half of the requests
are sent again with their Idempotency-Key. Invariants checked on the stored history:
round numbers contiguous, none duplicated, every 201 in the history, history count == distinct 201s.
"""

from __future__ import annotations

import threading
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.conftest import empty_tables
from tests.load.server import Server

pytestmark = pytest.mark.slow
CLIENTS, REQUESTS, ENCOUNTERS = 16, 50, 4
HEADERS: dict[str, str] = {}  # the campaign key, once _setup made one
LIMITS = {"RATE_LIMIT_PER_KEY_PER_MINUTE": "100000"}  # this test measures correctness, not the limiter


def _setup(base: str, headers: dict) -> list[tuple[str, list[str]]]:
    key = httpx.post(f"{base}/v1/campaigns", json={"name": "load"}).json()["key"]["secret"]
    headers["Authorization"] = f"Bearer {key}"
    encounters = []
    for n in range(ENCOUNTERS):
        body = {"name": f"load {n}", "combatants": [
            {"name": "Ala", "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"},
            {"name": "Bolek", "initiative": 18, "attack": 12, "defense": 5, "weapon": "spear"}]}
        created = httpx.post(f"{base}/v1/encounters", json=body, headers=headers).json()
        encounters.append((created["id"], [c["id"] for c in created["combatants"]]))
    return encounters


def _round_body(ids: list[str]) -> dict:
    # Attacks that always miss (a natural 20): the full path runs, and nobody is ever too hurt to declare.
    return {"declarations": [
        {"combatant": ids[0], "action": {"type": "attack", "target": ids[1]}},
        {"combatant": ids[1], "action": {"type": "attack", "target": ids[0]}}],
        "dice": {f"{ids[0]}.attack.1": 20, f"{ids[1]}.attack.1": 20}}


class Ledger:
    """What the clients were told: for each key, the 201 it got (if any)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.created: dict[str, tuple[str, int, bytes]] = {}  # key -> (encounter, round, body)
        self.statuses: dict[int, int] = defaultdict(int)
        self.unanswered: list[tuple[str, str, dict]] = []  # (key, encounter, body): connection lost

    def note(self, key: str, encounter: str, response: httpx.Response) -> None:
        with self.lock:
            self.statuses[response.status_code] += 1
            if response.status_code == 201:
                number = response.json()["round"]
                earlier = self.created.setdefault(key, (encounter, number, response.content))
                assert earlier[2] == response.content, "a retry returned another answer than the first"


def _client_run(base: str, encounters, ledger: Ledger, client_no: int, stop: threading.Event) -> None:
    with httpx.Client(base_url=base, timeout=10, headers=HEADERS) as http:
        for n in range(REQUESTS):
            if stop.is_set():
                return
            encounter, ids = encounters[(client_no + n) % ENCOUNTERS]
            key, body = str(uuid.uuid4()), _round_body(ids)
            sends = 2 if n % 2 == 0 else 1  # half of the requests are retried with their key
            for _ in range(sends):
                try:
                    response = http.post(f"/v1/encounters/{encounter}/rounds", json=body,
                                         headers={"Idempotency-Key": key})
                except httpx.TransportError:
                    with ledger.lock:
                        ledger.unanswered.append((key, encounter, body))
                    return
                assert response.status_code in (201, 409), response.text
                ledger.note(key, encounter, response)


def _check_history(base: str, encounters, ledger: Ledger, *, every_request_answered: bool = True) -> None:
    """With requests left unanswered (their server was killed), the history may hold rounds whose 201
    never arrived; once those are retried with their keys, the counts must agree exactly."""
    get = httpx.Client(headers=HEADERS).get
    acknowledged = defaultdict(set)
    for encounter, number, _ in ledger.created.values():
        acknowledged[encounter].add(number)
    for encounter, _ in encounters:
        history, offset = [], 0
        while True:
            page = get(f"{base}/v1/encounters/{encounter}/rounds", params={"limit": 100, "offset": offset}).json()
            history += [d["round"] for d in page["items"]]
            offset += 100
            if offset >= page["total"]:
                break
        assert history == list(range(1, len(history) + 1)), "round numbers contiguous, none duplicated"
        assert acknowledged[encounter] <= set(history), "every acknowledged round is in the history"
        if every_request_answered:
            assert len(history) == len(acknowledged[encounter]), "history count equals the 201 count"
        state = get(f"{base}/v1/encounters/{encounter}").json()
        assert state["round"] == len(history)


def _load(base: str, encounters, ledger: Ledger, stop: threading.Event) -> None:
    with ThreadPoolExecutor(CLIENTS) as pool:
        for future in [pool.submit(_client_run, base, encounters, ledger, i, stop) for i in range(CLIENTS)]:
            future.result()


@pytest.fixture
def server_url(database_url):
    empty_tables(database_url)
    return database_url


def test_many_clients_two_workers(server_url):
    with Server(server_url, workers=2, **LIMITS) as server:
        encounters = _setup(server.url, HEADERS)
        ledger = Ledger()
        _load(server.url, encounters, ledger, threading.Event())
        assert not ledger.unanswered
        assert ledger.statuses[201] >= CLIENTS * REQUESTS // 10, dict(ledger.statuses)
        _check_history(server.url, encounters, ledger)


def test_sigkill_under_load_loses_no_acknowledged_round(server_url):
    server = Server(server_url, workers=2, IDEMPOTENCY_LEASE_SECONDS="0.5", **LIMITS).start()
    try:
        encounters = _setup(server.url, HEADERS)
        ledger, stop = Ledger(), threading.Event()
        loader = threading.Thread(target=_load, args=(server.url, encounters, ledger, stop))
        loader.start()
        while sum(ledger.statuses.values()) < 150 and loader.is_alive():
            threading.Event().wait(0.02)
        server.kill()
        stop.set()
        loader.join(timeout=60)
    finally:
        server.kill()

    with Server(server_url, workers=2, **LIMITS) as restarted:
        _check_history(restarted.url, encounters, ledger, every_request_answered=False)
        # A client that lost its connection retries with its key: it gets the round that was committed
        # for it, or its round is resolved now; either way exactly once.
        threading.Event().wait(0.6)  # the dead workers' leases lapse
        with httpx.Client(base_url=restarted.url, timeout=10, headers=HEADERS) as http:
            for key, encounter, body in ledger.unanswered:
                for _ in range(20):
                    response = http.post(f"/v1/encounters/{encounter}/rounds", json=body,
                                         headers={"Idempotency-Key": key})
                    if response.status_code != 409:
                        break
                assert response.status_code in (201, 409), response.text
                ledger.note(key, encounter, response)
        _check_history(restarted.url, encounters, ledger)
