"""Many clients, several workers, retries and a SIGKILL: no round lost, none doubled.

16 clients x 40 round requests over 4 encounters against 2 uvicorn workers; half of the requests
are sent again with their Idempotency-Key. A client that loses a race (409 conflict) or finds the
database busy (503) resends with the same key, as the contract asks, so every request ends in exactly
one round. Invariants checked on the stored history: round numbers contiguous, none duplicated,
every 201 in the history, history count == distinct 201s == requests sent.
Every client runs in an executor future whose result is taken, so an assertion in a client fails the test.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.conftest import empty_tables
from tests.load.server import Server

pytestmark = pytest.mark.slow
CLIENTS, REQUESTS, ENCOUNTERS = 16, 40, 4
LIMITS = {"RATE_LIMIT_PER_KEY_PER_MINUTE": "100000"}  # this test measures correctness, not the limiter
# Answers a client may see on the way: a round (201), a lost race to resend (409 conflict) or a busy
# database asking for a retry (503). Anything else fails the test.
EXPECTED_STATUSES = {201, 409, 503}
RESEND_DEADLINE = 120  # seconds one request may keep losing races or finding the database busy
KILL_AFTER = 150  # answers before the SIGKILL: well inside the run, so requests are in flight
KEY_IN_USE = "idempotency-key-in-use"  # the problem type while another request holds the key's lease


def _setup(base: str) -> tuple[dict[str, str], list[tuple[str, list[str]]]]:
    key = httpx.post(f"{base}/v1/campaigns", json={"name": "load"}).json()["key"]["secret"]
    headers = {"Authorization": f"Bearer {key}"}
    encounters = []
    for n in range(ENCOUNTERS):
        body = {"name": f"load {n}", "combatants": [
            {"name": "Ala", "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"},
            {"name": "Bolek", "initiative": 18, "attack": 12, "defense": 5, "weapon": "spear"}]}
        created = httpx.post(f"{base}/v1/encounters", json=body, headers=headers)
        assert created.status_code == 201, created.text
        encounters.append((created.json()["id"], [c["id"] for c in created.json()["combatants"]]))
    return headers, encounters


def _round_body(ids: list[str]) -> dict:
    # Attacks that always miss (a natural 20): the full path runs, and nobody is ever too hurt to declare.
    return {"declarations": [
        {"combatant": ids[0], "action": {"type": "attack", "target": ids[1]}},
        {"combatant": ids[1], "action": {"type": "attack", "target": ids[0]}}],
        "dice": {f"{ids[0]}.attack.1": 20, f"{ids[1]}.attack.1": 20}}


class Ledger:
    """What the clients were told: for each key, the 201 it got (if any)."""

    def __init__(self, signal_after: int | None = None):
        self.lock = threading.Lock()
        self.created: dict[str, tuple[str, int, bytes]] = {}  # key -> (encounter, round, body)
        self.statuses: Counter[int] = Counter()
        self.unanswered: list[tuple[str, str, dict]] = []  # (key, encounter, body): connection lost
        self.signal_after = signal_after
        self.enough = threading.Event()  # set once signal_after answers have arrived

    def note(self, key: str, encounter: str, response: httpx.Response) -> None:
        with self.lock:
            self.statuses[response.status_code] += 1
            if self.signal_after is not None and self.statuses.total() >= self.signal_after:
                self.enough.set()
            if response.status_code == 201:
                number = response.json()["round"]
                earlier = self.created.setdefault(key, (encounter, number, response.content))
                assert earlier[2] == response.content, "a retry returned another answer than the first"


def _post(http: httpx.Client, encounter: str, body: dict, key: str, ledger: Ledger) -> httpx.Response:
    """POST a round the way a client following the contract does: after a 503 (the service changed
    nothing) send it again when Retry-After says; after a 409 conflict (another round won the race for
    this encounter) send it again with the same key. SQLite answers 503 when a write waits past its
    busy timeout, which a machine loaded well beyond its cores does reach."""
    deadline = time.monotonic() + RESEND_DEADLINE
    while True:
        response = http.post(f"/v1/encounters/{encounter}/rounds", json=body, headers={"Idempotency-Key": key})
        if response.status_code == 503:
            pause = float(response.headers.get("Retry-After", "1"))  # what the service asked for
        elif response.status_code == 409 and response.json()["type"].endswith("/conflict"):
            pause = 0.01  # the winner has committed: the next try reads its round
        else:
            return response
        with ledger.lock:
            ledger.statuses[response.status_code] += 1
        assert time.monotonic() < deadline, f"{response.status_code} for {RESEND_DEADLINE} s: {response.text}"
        time.sleep(pause)


def _client_run(base, headers, encounters, ledger: Ledger, client_no: int, stop: threading.Event) -> None:
    # A generous timeout: on a machine loaded far beyond its cores (load average 29 seen) an SQLite write
    # waited past 10 s, and a timed-out request counts as unanswered, which the first test forbids.
    with httpx.Client(base_url=base, timeout=60, headers=headers) as http:
        for n in range(REQUESTS):
            if stop.is_set():
                return
            encounter, ids = encounters[(client_no + n) % ENCOUNTERS]
            key, body = str(uuid.uuid4()), _round_body(ids)
            sends = 2 if n % 2 == 0 else 1  # half of the requests are retried with their key
            for _ in range(sends):
                try:
                    response = _post(http, encounter, body, key, ledger)
                except httpx.TransportError:
                    with ledger.lock:
                        ledger.unanswered.append((key, encounter, body))
                    return
                assert response.status_code == 201, response.text
                ledger.note(key, encounter, response)


def _load(base, headers, encounters, ledger: Ledger, stop: threading.Event) -> None:
    with ThreadPoolExecutor(CLIENTS) as pool:
        futures = [pool.submit(_client_run, base, headers, encounters, ledger, i, stop) for i in range(CLIENTS)]
        for future in futures:
            future.result()  # re-raises a client's assertion here


def _history(http: httpx.Client, encounter: str) -> list[int]:
    history, offset = [], 0
    while True:
        page = http.get(f"/v1/encounters/{encounter}/rounds", params={"limit": 100, "offset": offset}).json()
        history += [d["round"] for d in page["items"]]
        offset += 100
        if offset >= page["total"]:
            return history


def _check_history(base, headers, encounters, ledger: Ledger, *, every_request_answered: bool = True) -> None:
    """With requests left unanswered (their server was killed), the history may hold rounds whose 201
    never arrived; once those are retried with their keys, the counts must agree exactly."""
    acknowledged: dict[str, set[int]] = {encounter: set() for encounter, _ in encounters}
    for encounter, number, _ in ledger.created.values():
        acknowledged[encounter].add(number)
    with httpx.Client(base_url=base, headers=headers, timeout=10) as http:
        for encounter, _ in encounters:
            history = _history(http, encounter)
            assert history == list(range(1, len(history) + 1)), "round numbers contiguous, none duplicated"
            assert acknowledged[encounter] <= set(history), "every acknowledged round is in the history"
            if every_request_answered:
                assert len(history) == len(acknowledged[encounter]), "history count equals the 201 count"
            assert http.get(f"/v1/encounters/{encounter}").json()["round"] == len(history)


def _retry_until_settled(http: httpx.Client, key: str, encounter: str, body: dict, ledger) -> httpx.Response:
    """Resend a request the SIGKILL left unanswered; 409 key-in-use until the dead worker's lease lapses."""
    deadline = time.monotonic() + 30
    while True:
        response = _post(http, encounter, body, key, ledger)
        if response.status_code != 409 or not response.json()["type"].endswith(KEY_IN_USE):
            return response
        assert time.monotonic() < deadline, f"key {key} still in use 30 s after the kill"
        time.sleep(0.05)  # polling interval: a lease lapses with time, nothing announces it


@pytest.fixture
def server_url(database_url):
    empty_tables(database_url)
    return database_url


def test_many_clients_two_workers(server_url):
    with Server(server_url, workers=2, **LIMITS) as server:
        headers, encounters = _setup(server.url)
        ledger = Ledger()
        _load(server.url, headers, encounters, ledger, threading.Event())
        assert not ledger.unanswered
        assert set(ledger.statuses) <= EXPECTED_STATUSES, dict(ledger.statuses)
        assert len(ledger.created) == CLIENTS * REQUESTS, dict(ledger.statuses)
        _check_history(server.url, headers, encounters, ledger)


def test_sigkill_under_load_loses_no_acknowledged_round(server_url):
    server = Server(server_url, workers=2, IDEMPOTENCY_LEASE_SECONDS="0.5", **LIMITS).start()
    ledger, stop = Ledger(signal_after=KILL_AFTER), threading.Event()
    try:
        headers, encounters = _setup(server.url)
        with ThreadPoolExecutor(1) as runner:
            load = runner.submit(_load, server.url, headers, encounters, ledger, stop)
            load.add_done_callback(lambda _: ledger.enough.set())  # a load that fails early wakes us too
            assert ledger.enough.wait(timeout=120), "no answers within 120 s"
            assert not load.done(), f"the load ended before the kill: {load.exception() or dict(ledger.statuses)}"
            server.kill()
            stop.set()
            load.result(timeout=120)  # the clients' assertions up to the kill fail the test here
    finally:
        server.kill()
    assert ledger.unanswered, "the kill interrupted no request: it tested nothing"

    with Server(server_url, workers=2, **LIMITS) as restarted:
        _check_history(restarted.url, headers, encounters, ledger, every_request_answered=False)
        # A client that lost its connection retries with its key: it gets the round that was committed
        # for it, or its round is resolved now; either way exactly once.
        with httpx.Client(base_url=restarted.url, timeout=10, headers=headers) as http:
            for key, encounter, body in ledger.unanswered:
                response = _retry_until_settled(http, key, encounter, body, ledger)
                assert response.status_code == 201, response.text
                ledger.note(key, encounter, response)
        _check_history(restarted.url, headers, encounters, ledger)
