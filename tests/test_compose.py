"""docker-compose.yml scales to several API replicas without change, and migrates before serving.
(No Docker engine runs in CI: this reads the file; the compose-spec schema check is in the report.)"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))
SERVICES = COMPOSE["services"]


def test_only_the_proxy_publishes_a_host_port_so_replicas_never_clash():
    published = {name for name, service in SERVICES.items() if service.get("ports")}
    assert published == {"proxy"}
    assert "container_name" not in SERVICES["api"]  # a fixed name cannot be scaled


def test_migrations_run_once_before_any_replica_serves():
    assert SERVICES["migrate"]["command"] == ["alembic", "upgrade", "head"]
    assert SERVICES["api"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    serve = " ".join(SERVICES["api"]["command"])
    assert "alembic" not in serve and "uvicorn" in serve


def test_replicas_share_postgresql_and_redis():
    environment = SERVICES["api"]["environment"]
    assert environment["DATABASE_URL"].startswith("postgresql+psycopg://") and "@db:" in environment["DATABASE_URL"]
    assert environment["RATE_LIMIT_STORAGE"] == "redis://redis:6379/0"
    assert SERVICES["api"]["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert SERVICES["migrate"]["environment"]["DATABASE_URL"] == environment["DATABASE_URL"]


def test_the_proxy_reaches_every_replica_and_keeps_request_ids():
    nginx = COMPOSE["configs"]["nginx"]["content"]
    assert "resolver 127.0.0.11" in nginx  # re-resolves "api", so replicas added later are reached
    assert "proxy_pass $$api;" in nginx
    assert "proxy_set_header X-Request-ID" in nginx
    # Every nginx variable is escaped for compose: a lone `$name` would be interpolated away
    assert not re.search(r"(?<!\$)\$(?!\$)[a-z_{]", nginx)
