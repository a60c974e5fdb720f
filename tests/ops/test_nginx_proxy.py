"""The compose file's nginx configuration, run by Debian's nginx in front of two local API processes.

No Docker: the test takes `configs.nginx.content` from docker-compose.yml, undoes compose's `$$`
escaping, swaps the marked upstream block for an upstream group of two uvicorn processes on one
SQLite file (and the listen port for a free one), and runs nginx in the foreground. Everything else
in the file is what production runs. scripts/ensure-nginx installs nginx when it is missing.
"""

from __future__ import annotations

import os
import pwd
import queue
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
import yaml

from tests.api.events_support import EventReader
from tests.conftest import REQUIRE_POSTGRES, migrate
from tests.load.server import ROOT, Server

NGINX = os.environ.get("NGINX", "/usr/sbin/nginx")
UPSTREAM_BLOCK = re.compile(r"^ *# upstream:.*?^ *# end upstream *\n", re.S | re.M)
CAMPAIGNS_PER_HOUR = 3  # per address and per process (memory:// counters): small, so a 429 is cheap
PROXIED_LIMIT = 64 * 1024  # the service's default MAX_BODY_BYTES


def ensure_nginx() -> str:
    """nginx's path; installs it with scripts/ensure-nginx when missing. Skips only when that fails and
    REQUIRE_POSTGRES is unset (as the other tests treat a missing server), fails otherwise."""
    if not Path(NGINX).exists():
        installed = subprocess.run(
            ["bash", str(ROOT / "scripts" / "ensure-nginx")], capture_output=True, text=True, timeout=900
        )
        if installed.returncode != 0 or not Path(NGINX).exists():
            message = f"{NGINX} is missing and scripts/ensure-nginx could not install it: {installed.stderr.strip()}"
            if REQUIRE_POSTGRES:
                pytest.fail(message)
            pytest.skip(message + " (set REQUIRE_POSTGRES=1 to make this a failure)")
    return NGINX


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def proxy_configuration(upstream_ports: list[int], listen_port: int) -> str:
    """The compose file's server configuration with only its upstream and its listen port replaced."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    content = compose["configs"]["nginx"]["content"].replace("$$", "$")  # what compose hands to nginx
    assert len(UPSTREAM_BLOCK.findall(content)) == 1, "docker-compose.yml's nginx config lost its upstream block"
    servers = "".join(f"  server 127.0.0.1:{port};\n" for port in upstream_ports)
    # proxy_pass $api: a value naming an upstream group is taken as that group (no resolver needed)
    local = (
        f"upstream combat_api {{\n{servers}  keepalive 8;\n}}\nmap $host $api {{\n  default http://combat_api;\n}}\n"
    )
    content = UPSTREAM_BLOCK.sub(lambda _: local, content)
    assert content.count("listen 8080;") == 1
    return content.replace("listen 8080;", f"listen 127.0.0.1:{listen_port};")


class Nginx:
    """nginx in the foreground under a prefix of its own, one worker (round robin is then strict)."""

    def __init__(self, binary: str, prefix: Path, server_conf: str, port: int):
        self.binary, self.prefix, self.port = binary, prefix, port
        self.url = f"http://127.0.0.1:{port}"
        (prefix / "logs").mkdir(parents=True, exist_ok=True)
        (prefix / "conf.d").mkdir(exist_ok=True)
        (prefix / "conf.d" / "default.conf").write_text(server_conf, encoding="utf-8")
        # The image's own nginx.conf does about this: one http block that includes conf.d/*.conf.
        temp = "".join(
            f"  {kind}_temp_path {prefix / ('temp_' + kind)};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        # Started as root, nginx's workers would run as nobody, who cannot enter pytest's private tmp
        # folders (a body spooled to its temp file would then be nginx's own 500): run them as us.
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
        self.conf = prefix / "nginx.conf"
        self.conf.write_text(
            f"{user}worker_processes 1;\nevents {{ worker_connections 256; }}\n"
            f"http {{\n  access_log {prefix / 'logs' / 'access.log'};\n{temp}"
            f"  include {prefix / 'conf.d'}/*.conf;\n}}\n",
            encoding="utf-8",
        )
        self.globals = f"daemon off; pid {prefix / 'nginx.pid'}; error_log {prefix / 'logs' / 'error.log'} info;"
        self.process: subprocess.Popen | None = None

    def start(self) -> Nginx:
        checked = subprocess.run(
            [self.binary, "-t", "-p", str(self.prefix), "-c", str(self.conf), "-g", self.globals],
            capture_output=True,
            text=True,
        )
        assert checked.returncode == 0, checked.stderr
        self.process = subprocess.Popen([self.binary, "-p", str(self.prefix), "-c", str(self.conf), "-g", self.globals])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.error_log()
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise AssertionError("nginx did not answer /healthz within 10 s:\n" + self.error_log())

    def error_log(self) -> str:
        log = self.prefix / "logs" / "error.log"
        return log.read_text(encoding="utf-8") if log.exists() else ""

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: nginx's fast shutdown
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def backends(tmp_path_factory) -> Iterator[list[Server]]:
    """Two API processes on one SQLite file, migrated first (as compose's `migrate` does)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('proxy-db') / 'combat.db'}"
    migrate(url)
    env = {
        "CAMPAIGNS_PER_ADDRESS_PER_HOUR": str(CAMPAIGNS_PER_HOUR),
        # uvicorn's default, written out: it believes X-Forwarded-For from the proxy on this address
        "FORWARDED_ALLOW_IPS": "127.0.0.1",
        "EVENTS_KEEPALIVE_SECONDS": "1",
    }
    servers = [Server(url, workers=1, **env), Server(url, workers=1, **env)]
    try:
        for server in servers:
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


@pytest.fixture(scope="module")
def proxy(backends, tmp_path_factory) -> Iterator[Nginx]:
    binary = ensure_nginx()
    port = free_port()
    conf = proxy_configuration([server.port for server in backends], port)
    nginx = Nginx(binary, tmp_path_factory.mktemp("nginx"), conf, port).start()
    try:
        yield nginx
    finally:
        nginx.stop()


@pytest.fixture(scope="module")
def owner(proxy) -> httpx.Client:
    """A client of the proxy holding a new campaign's key (one of the few campaigns the limit allows)."""
    with httpx.Client(base_url=proxy.url, timeout=30) as client:
        created = client.post("/v1/campaigns", json={"name": "Proxy test"})
        assert created.status_code == 201, created.text
        client.headers["Authorization"] = f"Bearer {created.json()['key']['secret']}"
        yield client


@pytest.fixture
def encounter(owner) -> dict:
    created = owner.post("/v1/encounters", json={"name": "At the ford"})
    assert created.status_code == 201, created.text
    return created.json()


def test_the_configuration_is_the_compose_files_with_only_its_upstream_replaced(proxy):
    served = (proxy.prefix / "conf.d" / "default.conf").read_text(encoding="utf-8")
    assert "proxy_buffering off;" in served and "resolver 127.0.0.11" not in served
    assert "upstream combat_api" in served


def test_the_event_stream_passes_unbuffered(proxy, backends, owner, encounter):
    path = f"/v1/encounters/{encounter['id']}"
    ticket = owner.post(f"{path}/stream-tickets")
    assert ticket.status_code == 201, ticket.text
    events: queue.Queue = queue.Queue()
    stop = threading.Event()

    def follow(response: httpx.Response) -> None:
        reader = EventReader(response)
        while not stop.is_set():
            try:
                events.put(reader.next(timeout=30))
            except Exception as error:  # noqa: BLE001 (the stream ended or broke: the main thread says so)
                events.put(error)
                return

    # No Authorization: a browser's EventSource has only the ticket
    with (
        httpx.Client(base_url=proxy.url, timeout=httpx.Timeout(30, read=None)) as browser,
        browser.stream("GET", f"{path}/events", params={"ticket": ticket.json()["ticket"]}) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        with_reader = threading.Thread(target=follow, args=(response,), daemon=True)
        with_reader.start()
        first = events.get(timeout=5)
        assert not isinstance(first, Exception), first
        assert first.event == "sync"

        # On SQLite an event reaches the streams of the process that made the change only (on
        # PostgreSQL, LISTEN/NOTIFY reaches all): change the name on both processes, so whichever one
        # serves this stream announces a change.
        versions = set()
        for number, server in enumerate(backends):
            changed = httpx.patch(
                f"{server.url}{path}",
                json={"name": f"At the ford, wave {number}"},
                headers={"Authorization": owner.headers["Authorization"]},
                timeout=30,
            )
            assert changed.status_code == 200, changed.text
            versions.add(changed.json()["version"])
        changed_at = time.monotonic()
        arrived = events.get(timeout=3)  # a buffering proxy would hold it until far more bytes came
        assert not isinstance(arrived, Exception), arrived
        assert time.monotonic() - changed_at < 3
        assert arrived.event == "encounter" and orjson.loads(arrived.data)["version"] in versions
        assert not response.is_closed  # it came while the stream was still open
        stop.set()


def test_etag_and_request_ids_pass_through(owner, encounter):
    path = f"/v1/encounters/{encounter['id']}"
    read = owner.get(path, headers={"X-Request-ID": "ops-proxy-test-0001"})
    assert read.status_code == 200
    assert read.headers["ETag"] == f'"{encounter["version"]}"'
    assert read.headers["X-Request-ID"] == "ops-proxy-test-0001"  # the caller's, kept

    unchanged = owner.get(path, headers={"If-None-Match": read.headers["ETag"]})
    assert unchanged.status_code == 304 and unchanged.headers["ETag"] == read.headers["ETag"]
    made = unchanged.headers["X-Request-ID"]  # none sent: nginx's $request_id, which the service keeps
    assert re.fullmatch(r"[0-9a-f]{32}", made), made

    stale = owner.patch(path, json={"name": "Too late"}, headers={"If-Match": '"999"'})
    assert stale.status_code == 412 and stale.headers["content-type"] == "application/problem+json"


def test_the_rate_limits_429_passes_with_retry_after(proxy, owner):
    # The proxy sends X-Forwarded-For: every call of this test is the same address to both processes,
    # each of which counts on its own: the limit is reached within 2 × CAMPAIGNS_PER_HOUR + 1 calls.
    with httpx.Client(base_url=proxy.url, timeout=30) as anonymous:
        for _ in range(2 * CAMPAIGNS_PER_HOUR + 1):
            answer = anonymous.post("/v1/campaigns", json={"name": "One too many"})
            if answer.status_code == 429:
                break
            assert answer.status_code == 201, answer.text
    assert answer.status_code == 429, "no 429 from the per-address campaign limit"
    assert answer.headers["content-type"] == "application/problem+json"
    assert int(answer.headers["Retry-After"]) >= 1
    assert answer.headers["X-Request-ID"]


def test_a_body_over_the_services_limit_gets_the_services_413(owner):
    body = orjson.dumps({"name": "x" * (PROXIED_LIMIT + 1)})
    refused = owner.post("/v1/encounters", content=body, headers={"Content-Type": "application/json"})
    assert refused.status_code == 413
    assert refused.headers["content-type"] == "application/problem+json"  # not nginx's HTML page
    problem = refused.json()
    assert problem["status"] == 413 and problem["type"].endswith("payload-too-large")
    assert refused.headers["X-Request-ID"]


@pytest.mark.parametrize("path", ["/metrics", "/metrics/", "/%6detrics", "//metrics?x=1"])
def test_metrics_are_not_served_through_the_proxy(proxy, path):
    answer = httpx.get(f"{proxy.url}{path}", timeout=30)
    assert answer.status_code == 404 and answer.headers["content-type"] == "application/problem+json"
    assert orjson.loads(answer.content)["status"] == 404
