"""CPU per request of the app alone, in-process: no server, no client, no network but the database's.

    .venv/bin/python bench/request_cost.py [ROW ...] [--requests 3000] [--batches 5] [--anchors]

Each row's request is sent straight to the ASGI app, one after another on this event loop (plain asyncio,
not uvloop), and the process's user and system CPU time (os.times) is divided by the requests of a batch;
the best of `--batches` batches is printed, so background noise only ever adds. With `--anchors`, the
same-work anchors (../shared/perf/anchors.py) are measured the same way first. A ratio of these figures
plus the server's own cost per request (uvicorn with httptools, about 80-100 µs here) predicts the load
benchmark's ratio; an A/B of two trees is this script run from each (`git worktree add`), alternating.

Uses (and migrates) the load benchmark's PostgreSQL database, `combat_bench_cost` by default.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from load_bench import UNLIMITED, prepare_database  # noqa: E402
from loadkit import ROOT, encounter_body, resolve_body, round_body  # noqa: E402

ROWS = ("healthz", "get_encounter", "get_round", "rounds_post", "resolve")
Send = Callable[[], Awaitable[int]]


def asgi_request(app: Any, method: str, path: str, body: bytes, headers: list[tuple[bytes, bytes]]) -> Send:
    """One request to `app`, as uvicorn would hand it over; returns the status."""
    if body:
        headers = [*headers, (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}

    async def send_one() -> int:
        status = 0
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if delivered:  # the app asks again only to learn of a disconnect: there is none
                await asyncio.Event().wait()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        await app({**scope, "state": {}}, receive, send)
        return status

    return send_one


async def cost(send: Send, requests: int, batches: int) -> tuple[float, float]:
    """(user µs, user + system µs) per request: the best batch."""
    for _ in range(max(50, requests // 10)):  # warm-up: pools filled, caches and code paths hot
        assert await send() < 300
    best_user = best_all = float("inf")
    for _ in range(batches):
        before = os.times()
        for _ in range(requests // batches):
            await send()
        after = os.times()
        per = 1e6 / (requests // batches)
        best_user = min(best_user, (after.user - before.user) * per)
        best_all = min(best_all, (after.user - before.user + after.system - before.system) * per)
    return best_user, best_all


async def ours(rows: list[str], requests: int, batches: int) -> None:
    from app.main import create_app

    app = create_app()
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
            key = (await client.post("/v1/campaigns", json={"name": "cost"})).json()["key"]["secret"]
            client.headers["Authorization"] = f"Bearer {key}"
            encounter = (await client.post("/v1/encounters", json=encounter_body("cost"))).json()
            ids = [c["id"] for c in encounter["combatants"]]
            url = f"/v1/encounters/{encounter['id']}"
            json_body = {"content-type": "application/json"}
            (await client.post(f"{url}/rounds", content=round_body(ids), headers=json_body)).raise_for_status()
        owner = [(b"authorization", f"Bearer {key}".encode()), (b"host", b"bench")]
        plans = {
            "healthz": ("GET", "/healthz", b"", owner[1:]),
            "get_encounter": ("GET", url, b"", owner),
            "get_round": ("GET", f"{url}/rounds/1", b"", owner),
            "rounds_post": ("POST", f"{url}/rounds", round_body(ids).encode(), owner),
            "resolve": ("POST", "/v1/resolve", resolve_body().encode(), owner[1:]),
        }
        for row in rows:
            user, total = await cost(asgi_request(app, *plans[row]), requests, batches)
            print(f"{row:>14}: user {user:5.0f} µs, user + system {total:5.0f} µs per request", flush=True)


async def anchors(folder: Path, requests: int, batches: int) -> None:
    spec = importlib.util.spec_from_file_location("anchors", folder / "anchors.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    app = module.app
    host = [(b"host", b"bench")]
    async with app.router.lifespan_context(app):
        for name, method, path, body in (("bare", "GET", "/bare", b""), ("bare-read", "GET", "/bare-read/3", b""),
                                         ("bare-write", "POST", "/bare-write/3", round_body(["a", "b", "c"]).encode()),
                                         ("bare-echo", "POST", "/bare-echo", resolve_body().encode())):
            user, total = await cost(asgi_request(app, method, path, body, host), requests, batches)
            print(f"{'anchor ' + name:>14}: user {user:5.0f} µs, user + system {total:5.0f} µs per request", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", choices=ROWS, default=list(ROWS))
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--database", default="combat_bench_cost")
    parser.add_argument("--anchors", action="store_true", help="measure ../shared/perf/anchors.py first")
    parser.add_argument("--anchors-folder", type=Path, default=ROOT.parent / "shared" / "perf")
    args = parser.parse_args()
    url, conninfo = prepare_database(args.database)
    os.environ.update({"DATABASE_URL": url, "BARE_PG": conninfo, "LOG_LEVEL": "WARNING",
                       "RATE_LIMIT_PER_KEY_PER_MINUTE": UNLIMITED, "RATE_LIMIT_ANONYMOUS_PER_MINUTE": UNLIMITED,
                       "CAMPAIGNS_PER_ADDRESS_PER_HOUR": UNLIMITED})
    if args.anchors:
        asyncio.run(anchors(args.anchors_folder, args.requests, args.batches))
    asyncio.run(ours(args.rows, args.requests, args.batches))


if __name__ == "__main__":
    main()
