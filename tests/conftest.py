"""Fixtures: every API test runs against SQLite and PostgreSQL, through HTTP."""

from __future__ import annotations

import os
from collections.abc import Iterator

# The tests build many apps in one process, each with its own metrics registry: prometheus_client's
# multiprocess mode (read once, when it is imported) would merge them. Tests that want it start servers.
os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)

import httpx
import pytest
import redis
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.main import create_app
from app.platform.db import sync_url
from app.webhooks import destinations
from tests.api.helpers import Fight, start_fight
from tests.load.server import Server

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/1")
POSTGRES_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/combat_test")
REQUIRE_POSTGRES = os.environ.get("REQUIRE_POSTGRES") == "1" or os.environ.get("CI") == "true"
TABLES = ("webhook_events", "webhook_subscriptions", "odds_points", "idempotency_keys", "stream_tickets",
          "credentials", "staged_declarations", "rounds", "combatants", "characters", "creatures", "encounters",
          "campaigns")  # children first


# Every PostgreSQL database this session used: TEST_POSTGRES_URL's and the ones named after it with a
# suffix (README, "The test database"). pytest_sessionfinish drops them all.
USED_DATABASES: set[str] = set()


def ensure_postgres_database(url: str) -> None:
    """Create the test database if the server has none by that name; skip or fail if no server answers."""
    target = make_url(url)
    USED_DATABASES.add(url)
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            exists = connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :name"),
                                       {"name": target.database})
            if not exists:
                connection.execute(text(f'CREATE DATABASE "{target.database}"'))
    except Exception as error:  # noqa: BLE001 (any failure to connect means: no PostgreSQL here)
        message = f"PostgreSQL at {target.render_as_string(hide_password=True)} is not reachable: {error}"
        if REQUIRE_POSTGRES:
            pytest.fail(message)
        pytest.skip(message + " (set REQUIRE_POSTGRES=1 to make this a failure)")
    finally:
        admin.dispose()


def reset_schema(url: str) -> None:
    """Every run migrates an empty schema from the first revision: a database left behind by another
    branch's migrations (same name, other history) must not decide what this run tests."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def empty_postgres_database(suffix: str) -> str:
    """A PostgreSQL database beside the test database (never shared with another checkout's), emptied."""
    url = f"{POSTGRES_URL}_{suffix}"
    ensure_postgres_database(url)
    reset_schema(url)
    return url


def alembic_config(url: str) -> Config:
    config = Config(os.path.join(os.path.dirname(__file__), "..", "alembic.ini"))
    config.attributes["database_url"] = url
    config.attributes["configure_logger"] = False
    return config


def migrate(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


LOOPBACK = ("127.", "::1", "[::1]")


class LoopbackOnly(httpx.AsyncHTTPTransport):
    """Webhook deliveries in the tests reach 127.0.0.0/8 and ::1 only, even if the code under test is wrong."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.host.startswith(LOOPBACK):
            raise AssertionError(f"a test tried to connect to {request.url.host}")
        return await super().handle_async_request(request)


async def loopback_resolver(host: str, _port: int) -> list[str]:
    if host == "localhost":
        return ["127.0.0.1"]
    raise OSError(f"the tests resolve no names but localhost ({host})")


@pytest.fixture(autouse=True)
def no_connection_beyond_loopback(monkeypatch):
    """No DNS lookup and no connection outside loopback from any test's webhooks (a stub resolver of a test
    replaces this one where it needs names)."""
    monkeypatch.setattr(destinations, "new_transport", lambda: LoopbackOnly(retries=0))
    monkeypatch.setattr(destinations, "system_resolver", loopback_resolver)


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(request, tmp_path_factory) -> str:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'combat.db'}"
    else:
        url = POSTGRES_URL
        ensure_postgres_database(url)
        reset_schema(url)
    migrate(url)
    return url


def empty_tables(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
        else:
            for table in TABLES:
                connection.execute(text(f"DELETE FROM {table}"))
    engine.dispose()


def empty_redis(url: str = REDIS_URL) -> None:
    """Forget every rate-limit counter: the tests' own logical Redis database, nobody else's."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.flushdb()
    except redis.ConnectionError as error:
        message = f"Redis at {url} is not reachable: {error} (scripts/ensure-redis starts one)"
        if REQUIRE_POSTGRES:
            pytest.fail(message)
        pytest.skip(message)
    finally:
        client.close()


@pytest.fixture
def settings(database_url) -> Settings:
    empty_tables(database_url)
    empty_redis()
    return Settings(database_url=database_url, campaigns_per_address_per_hour=1000, rate_limit_storage=REDIS_URL)


def new_campaign_key(client: TestClient, name: str = "Test campaign") -> str:
    response = client.post("/v1/campaigns", json={"name": name}, headers={"Authorization": ""})
    assert response.status_code == 201, response.text
    return response.json()["key"]["secret"]


@pytest.fixture
def client(settings) -> Iterator[TestClient]:
    """An HTTP client holding a fresh campaign's key."""
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        test_client.headers["Authorization"] = f"Bearer {new_campaign_key(test_client)}"
        yield test_client


@pytest.fixture
def fight(client: TestClient) -> Fight:
    """The one shared fight: an encounter of three, through the client's campaign."""
    return start_fight(client)


@pytest.fixture
def inspect_database(settings) -> Iterator[sessionmaker[Session]]:
    """Sessions on the test's database from outside the service: to look at what it stored."""
    engine = create_engine(sync_url(settings.database_url))
    yield sessionmaker(engine)
    engine.dispose()


servers_before = pytest.StashKey[int]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item) -> None:
    item.stash[servers_before] = len(Server.started)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report ends with the last log lines of the servers it used (started by it, or
    still running for it); a passing test prints none of them."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    first = item.stash.get(servers_before, len(Server.started))
    for index, server in enumerate(Server.started):
        if index >= first or server.running():
            tail = server.log_tail()
            if tail:
                report.sections.append((f"server on port {server.port} (last lines of {server.log})", tail))


def pytest_sessionfinish(session, exitstatus) -> None:
    """Drop the session's PostgreSQL databases (they hold nothing but test data: README). WITH (FORCE):
    a connection a test left open must not keep one alive. KEEP_TEST_DATABASES=1 keeps them, to look."""
    if not USED_DATABASES or os.environ.get("KEEP_TEST_DATABASES") == "1":
        return
    admin = create_engine(make_url(POSTGRES_URL).set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            for url in sorted(USED_DATABASES):
                connection.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
    except Exception as error:  # noqa: BLE001 (the server went away: nothing left to drop there)
        print(f"\ncould not drop the test databases {sorted(USED_DATABASES)}: {error}")
    finally:
        admin.dispose()
