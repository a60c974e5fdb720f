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


def test_every_service_comes_back_by_itself_and_migrate_runs_once():
    for name, service in SERVICES.items():
        assert service.get("restart") == ("no" if name == "migrate" else "unless-stopped"), name


def test_one_image_is_built_once_and_migrate_runs_it():
    built = [name for name, service in SERVICES.items() if "build" in service]
    assert built == ["api"]
    assert SERVICES["migrate"]["image"] == SERVICES["api"]["image"]
    assert SERVICES["migrate"]["pull_policy"] == "never"  # built here, never fetched from a registry


def test_the_proxy_starts_once_the_api_is_ready():
    assert SERVICES["proxy"]["depends_on"] == {"api": {"condition": "service_healthy"}}
    probe = " ".join(SERVICES["api"]["healthcheck"]["test"])
    assert "/readyz" in probe  # ready (the database answers), not only alive
    # start_interval would need Docker Engine 25 or later: older engines refuse the whole file
    assert not any("start_interval" in service.get("healthcheck", {}) for service in SERVICES.values())


def test_the_database_is_healthy_only_once_it_answers_over_tcp():
    probe = SERVICES["db"]["healthcheck"]["test"]
    assert probe[:2] == ["CMD", "pg_isready"] and "--host=127.0.0.1" in probe


def test_every_container_log_is_rotated():
    for name, service in SERVICES.items():
        logging = service.get("logging") or {}
        assert logging.get("driver") == "json-file" and logging["options"]["max-size"], name
        assert int(logging["options"]["max-file"]) >= 2, name


def test_images_are_on_current_stable_tags():
    images = {name: service["image"] for name, service in SERVICES.items() if "image" in service}
    nginx_minor = int(re.fullmatch(r"nginx:1\.(\d+)-alpine", images["proxy"]).group(1))
    assert nginx_minor % 2 == 0 and nginx_minor >= 30  # even minors are nginx's stable branch
    assert re.fullmatch(r"postgres:\d+-[a-z]+", images["db"])  # the OS release named: no silent move of the data
    assert re.fullmatch(r"redis:\d+-alpine", images["redis"])


def test_metrics_are_not_served_through_the_proxy():
    nginx = COMPOSE["configs"]["nginx"]["content"]
    metrics = nginx.index("location ~ ^/metrics(/|$$)")
    assert "return 404" in nginx[metrics : nginx.index("}", metrics)]
    assert metrics < nginx.index("location / {")  # tests/ops/test_nginx_proxy.py asks nginx itself
