"""While PostgreSQL is unreachable: /readyz 503, requests 503 problems, and recovery on its own."""

from __future__ import annotations

import socket
import threading
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from app.config import Settings
from app.main import create_app
from tests.api.helpers import assert_problem, create_encounter, fighter
from tests.conftest import POSTGRES_URL, empty_tables, ensure_postgres_database, migrate, new_campaign_key


class TcpProxy:
    """Forwards a local port to PostgreSQL; `cut()` drops every connection and refuses new ones."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.up = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            server = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        self.up = False
        with self.lock:
            for s in self.sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self.sockets.clear()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture
def proxied_client():
    ensure_postgres_database(POSTGRES_URL)
    migrate(POSTGRES_URL)
    empty_tables(POSTGRES_URL)
    url = make_url(POSTGRES_URL)
    proxy = TcpProxy((url.host or "127.0.0.1", url.port or 5432))
    settings = Settings(database_url=url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        client.headers["Authorization"] = f"Bearer {new_campaign_key(client)}"
        yield client, proxy
    proxy.close()


def test_database_outage_is_503_and_the_service_recovers(proxied_client):
    client, proxy = proxied_client
    encounter = create_encounter(client, fighter("Ala"))
    url = f"/v1/encounters/{encounter['id']}"

    proxy.cut()
    assert_problem(client.get("/readyz"), 503, "database-unavailable")
    assert client.get("/healthz").status_code == 200, "the process itself is up"
    for response in (client.get(url), client.get(url), client.post(f"{url}/rounds", json={}),
                     client.post("/v1/encounters", json={"name": "during the outage"})):
        problem = assert_problem(response, 503, "database-unavailable")
        assert response.headers["retry-after"] and "psycopg" not in problem["detail"]
        # a refused connection is answered at once, not after a connection pool's 30 s wait
        assert response.elapsed < timedelta(seconds=10)
    assert client.get("/v1/rules").status_code == 200, "what needs no database keeps working"
    anonymous = client.post("/v1/resolve", json={"combatants": []}, headers={"Authorization": ""})
    assert anonymous.status_code == 200, "an anonymous resolve needs no database"

    proxy.restore()
    assert client.get(url).status_code == 200, "the first request after the outage gets through"
    assert client.get("/readyz").status_code == 200
    assert client.post(f"{url}/rounds", json={}).status_code == 201
    assert client.get("/v1/encounters").json()["total"] == 1, "nothing was written during the outage"
