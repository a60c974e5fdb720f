"""Export and import of a large campaign: 100 encounters of 100 rounds each (10,000 rounds).

The campaign is built fast: one real round is played through the service (HTTP in process) and exported;
its encounter is the template of 100 encounters under new ids, each fought for 100 rounds by the function
that resolves the service's rounds (app/encounters/rounds.py `outcome`), straight into the document.
That document is then imported (schema, replay of every round, ids, one transaction) and exported
again, as `combat-admin` does: no HTTP, the same functions.

    .venv/bin/python bench/portability_bench.py                       # SQLite in a temporary folder
    .venv/bin/python bench/portability_bench.py --postgres URL        # and PostgreSQL (the database is reset)

Time is wall clock; memory is tracemalloc's peak of Python allocations during the phase (a second run of
the phase, traced: tracing slows it) and the process's peak RSS (ru_maxrss, over the whole run so far).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import resource
import sys
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.encounters import convert, rounds  # noqa: E402
from app.encounters.schemas.round import RoundCreate  # noqa: E402
from app.main import create_app  # noqa: E402
from app.platform.db import Database  # noqa: E402
from app.platform.transactions import write_transaction  # noqa: E402
from app.portability import export, imports  # noqa: E402
from tests.conftest import empty_tables, ensure_postgres_database, migrate, reset_schema  # noqa: E402

ENCOUNTERS, ROUNDS = 100, 100


def fighter(name: str) -> dict[str, Any]:
    return {"name": name, "initiative": 20, "attack": 5, "defense": 20, "weapon": "dagger", "vitality": 1000}


def one_fight(url: str) -> dict[str, Any]:
    """A campaign of one encounter with ROUNDS rounds (four fighters, everyone attacks), exported."""
    with TestClient(create_app(Settings(database_url=url, campaigns_per_address_per_hour=1000))) as client:
        key = client.post("/v1/campaigns", json={"name": "Bench"}).json()["key"]["secret"]
        client.headers["Authorization"] = f"Bearer {key}"
        body = {"name": "Long fight", "combatants": [fighter(n) for n in ("Ala", "Bolek", "Czarek", "Dorota")]}
        encounter = client.post("/v1/encounters", json=body).json()
        ids = [c["id"] for c in encounter["combatants"]]
        for seed in range(1):
            declarations = [
                {"combatant": a, "action": {"type": "attack", "target": ids[(i + 1) % 4]}} for i, a in enumerate(ids)
            ]
            answer = client.post(f"/v1/encounters/{encounter['id']}/rounds", json={"declarations": declarations,
                                                                                   "seed": seed})  # fmt: skip
            assert answer.status_code == 201, answer.text
        document: dict[str, Any] = client.get("/v1/campaign/export").json()
        return document


def clone(template: dict[str, Any], number: int) -> dict[str, Any]:
    """The template encounter (before its first round) under new ids, fought for ROUNDS rounds by the
    function that resolves the service's rounds (the dice of a seed depend on the ids: no copying them)."""
    rows = [{**row, "id": str(uuid.uuid4())} for row in template["rounds"][0]["state_before"]["combatants"]]
    ids = [row["id"] for row in rows]
    stored = []
    for n in range(1, ROUNDS + 1):
        attacks = [
            {"combatant": a, "action": {"type": "attack", "target": ids[(i + 1) % 4]}} for i, a in enumerate(ids)
        ]
        request = RoundCreate.model_validate({"declarations": attacks, "seed": number * 1000 + n})
        before, document, changes = rounds.outcome(n, [convert.restored(r) for r in rows], request, template["rules"])
        after = [{**snapshot, **change} for snapshot, change in zip(before, changes)]
        stored.append({"number": n, "request": request.model_dump(mode="json", by_alias=True, exclude_none=True),
                       "document": document, "state_before": {"next_position": len(rows), "combatants": before},
                       "state_after": after, "created_at": template["created_at"]})  # fmt: skip
        rows = after
    return {**template, "id": str(uuid.uuid4()), "round": ROUNDS, "version": 1 + ROUNDS,
            "combatants": rows, "staged": [], "rounds": stored}  # fmt: skip


def large_document(seed_document: dict[str, Any]) -> bytes:
    """The campaign with ENCOUNTERS fights of ROUNDS rounds each."""
    (template,) = seed_document["encounters"]
    return json.dumps({**seed_document, "encounters": [clone(template, k) for k in range(ENCOUNTERS)]}).encode()


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def import_once(database: Database, body: bytes) -> str:
    source = io.BytesIO(body)
    checked = await asyncio.to_thread(imports.check, source)
    async with database.sessions() as session, write_transaction(session):  # the CLI's transaction
        created = await imports.import_campaign(session, source=source, checked=checked)
    return created.id


async def export_once(database: Database, campaign_id: str) -> int:
    size = 0
    async for chunk in export.document_chunks(database, campaign_id):
        size += len(chunk)
    return size


def traced(run: Any) -> tuple[float, float]:
    """(seconds untraced, tracemalloc peak MiB of a second, traced run)."""
    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak


def bench(url: str, body: bytes) -> None:
    database = Database(Settings(database_url=url))
    loop = asyncio.new_event_loop()
    created: list[str] = []

    def do_import() -> None:
        loop.run_until_complete(database.engine.dispose())
        empty_tables(url)
        created.append(loop.run_until_complete(import_once(database, body)))

    import_seconds, import_peak = traced(do_import)
    rss_after_import = peak_rss_mib()
    sizes: list[int] = []

    def do_export() -> None:
        sizes.append(loop.run_until_complete(export_once(database, created[-1])))

    export_seconds, export_peak = traced(do_export)
    loop.run_until_complete(database.dispose())
    loop.close()
    print(f"{url.split(':')[0]}: document {len(body) / 2**20:.1f} MiB, exported {sizes[-1] / 2**20:.1f} MiB")
    print(f"  import: {import_seconds:.2f} s, traced peak {import_peak:.0f} MiB, RSS peak {rss_after_import:.0f} MiB")
    print(f"  export: {export_seconds:.2f} s, traced peak {export_peak:.0f} MiB, RSS peak {peak_rss_mib():.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="also on this PostgreSQL URL (its public schema is reset)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        seed_url = f"sqlite:///{Path(folder) / 'seed.db'}"
        migrate(seed_url)
        started = time.perf_counter()
        body = large_document(one_fight(seed_url))
        print(f"built a document of {ENCOUNTERS} encounters x {ROUNDS} rounds in {time.perf_counter() - started:.1f} s")
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        migrate(url)
        bench(url, body)
    if arguments.postgres:
        ensure_postgres_database(arguments.postgres)
        reset_schema(arguments.postgres)
        migrate(arguments.postgres)
        bench(arguments.postgres, body)


if __name__ == "__main__":
    main()
