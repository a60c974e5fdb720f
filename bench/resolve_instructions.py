"""Instructions per `POST /v1/resolve` (anonymous, the load benchmark's 10-combatant body), for an A/B that
holds on a loaded machine: valgrind's callgrind counts instructions, which other processes do not change.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null bench/resolve_instructions.py 200
    valgrind --tool=callgrind --callgrind-out-file=/dev/null bench/resolve_instructions.py 400

The difference of the two runs' "Collected" totals over 200 is the cost of one request, start-up and
warm-up cancelled out. The app gets the request straight (bench/request_cost.py's ASGI call), no database.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
from loadkit import resolve_body  # noqa: E402
from request_cost import asgi_request  # noqa: E402


async def main(requests: int) -> None:
    os.environ.update({"LOG_LEVEL": "WARNING", "RATE_LIMIT_ANONYMOUS_PER_MINUTE": "100000000"})
    from app.main import create_app

    app = create_app()
    send = asgi_request(app, "POST", "/v1/resolve", resolve_body().encode(), [(b"host", b"bench")])
    async with app.router.lifespan_context(app):
        for _ in range(50):  # warm-up: the same in every run, so the difference of two runs cancels it
            assert await send() == 200
        statuses = [await send() for _ in range(requests)]
    assert set(statuses) == {200}, f"not all answered 200: {sorted(set(statuses))}"


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
