"""The chronicle of a long fight: 100 rounds, 20 combatants, every form, both languages.

Two figures per form and language:
- **render**: the pure part, telling 100 stored rounds and laying them out (app/chronicle: tell + format),
  with the time and the memory (tracemalloc's peak) per request;
- **GET**: the whole request, `GET /v1/encounters/{id}/chronicle` through the app in process (TestClient,
  an SQLite file): reading the encounter and its 100 rounds, telling them, answering.
Morfeusz is loaded once per process, before the timed runs (its first load is printed on its own).

Rerun from the repository root:
  /work/venv/bin/python bench/chronicle_bench.py           # 21 samples per figure
  /work/venv/bin/python bench/chronicle_bench.py --quick   # 5 samples
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.chronicle import StoredRound, discord_messages, json_document, markdown, tell, text  # noqa: E402
from app.chronicle.reading import _cast  # noqa: E402
from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from tests.conftest import migrate  # noqa: E402

ROUNDS, COMBATANTS = 100, 20
NAMES = ["Ala", "Bolek", "Czarek", "Dorota", "Edek", "Franek", "Gosia", "Henio", "Irena", "Janek",
         "Kasia", "Lech", "Marta", "Nina", "Ola", "Piotr", "Goblin 1", "Goblin 2", "Stary Wilk", "Xyzzy"]  # fmt: skip
FORMS = ("markdown", "text", "json", "discord")


def fighter(name: str, i: int) -> dict[str, Any]:
    """Hard to take out (1000 blood, blows too weak for a critical wound), so every round keeps all twenty
    attacking; some armor, so blows are deflected as well as wounding; wounds that bleed, so every tenth
    round tells the bleeding too."""
    return {"name": name, "initiative": 10 + i % 7, "attack": 8, "defense": 2 + i % 5, "weapon": "long_sword",
            "armor": i % 4, "vitality": 1000}  # fmt: skip


def long_fight(client: TestClient) -> str:
    key = client.post("/v1/campaigns", json={"name": "Bench"}).json()["key"]["secret"]
    client.headers["Authorization"] = f"Bearer {key}"
    body = {"name": "Long fight", "combatants": [fighter(n, i) for i, n in enumerate(NAMES)]}
    encounter = client.post("/v1/encounters", json=body).json()
    ids = [c["id"] for c in encounter["combatants"]]
    url = f"/v1/encounters/{encounter['id']}"
    stances = ("offensive", "balanced", "defensive")
    status = {cid: "active" for cid in ids}
    for n in range(1, ROUNDS + 1):
        up = [cid for cid in ids if status[cid] == "active"]
        standing = [cid for cid in ids if status[cid] != "dead"]
        declarations = []
        for i, actor in enumerate(up):
            targets = [cid for cid in standing if cid != actor]
            target = targets[(i + n) % len(targets)]
            declarations.append({"combatant": actor, "stance": stances[(i + n) % 3],
                                 "action": {"type": "attack", "target": target}})  # fmt: skip
        answer = client.post(f"{url}/rounds", json={"declarations": declarations, "seed": n})
        assert answer.status_code == 201, answer.text
        status = {c["id"]: c["status"] for c in answer.json()["combatants"]}
    return url


def stored(client: TestClient, url: str) -> tuple[list[StoredRound], dict[str, Any]]:
    """The rounds as the use case reads them (export: document, request, state_before)."""
    exported = client.get("/v1/campaign/export").json()
    (encounter,) = exported["encounters"]
    rounds = [
        StoredRound.from_stored(document=r["document"], request=r["request"], state_before=r["state_before"])
        for r in encounter["rounds"]
    ]

    class Row:
        def __init__(self, r: dict[str, Any]) -> None:
            self.state_before = r["state_before"]

    cast = _cast(encounter["combatants"], [Row(r) for r in encounter["rounds"]], frozenset())
    return rounds, cast


def lay_out(form: str, stories: list[Any]) -> Any:
    if form == "markdown":
        return markdown(stories)
    if form == "text":
        return text(stories)
    if form == "json":
        return json_document("e", "pl", stories)
    return discord_messages(stories)


def sample(work: Any, samples: int) -> tuple[float, float]:
    """(median ms, best ms) over samples."""
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def peak_kib(work: Any) -> float:
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    samples = 5 if parser.parse_args().quick else 21
    start = time.perf_counter()
    from app.chronicle.polish_names import decline

    decline("Ala")
    print(f"Morfeusz 2 loaded (first Polish name) in {(time.perf_counter() - start) * 1000:.0f} ms, once per process")
    with tempfile.TemporaryDirectory() as folder:
        database_url = f"sqlite+aiosqlite:///{folder}/bench.db"
        migrate(database_url)
        settings = Settings(database_url=database_url, campaigns_per_address_per_hour=1000)
        with TestClient(create_app(settings)) as client:
            url = long_fight(client)
            rounds, cast = stored(client, url)
            lines = sum(len(s.lines) for s in tell(rounds, cast, "pl"))
            print(f"{ROUNDS} rounds, {COMBATANTS} combatants, {lines} lines in Polish")
            print("| lang | format | render ms median (best) | render peak KiB | GET ms median (best) | bytes |")
            print("|---|---|---:|---:|---:|---:|")
            for lang in ("pl", "en"):
                for form in FORMS:

                    def render(lang: Any = lang, form: str = form) -> Any:
                        return lay_out(form, tell(rounds, cast, lang))

                    def get(lang: str = lang, form: str = form) -> Any:
                        answer = client.get(f"{url}/chronicle", params={"lang": lang, "format": form})
                        assert answer.status_code == 200
                        return answer

                    median, best = sample(render, samples)
                    http_median, http_best = sample(get, samples)
                    size = len(get().content)
                    print(
                        f"| {lang} | {form} | {median:.1f} ({best:.1f}) | {peak_kib(render):.0f} | "
                        f"{http_median:.1f} ({http_best:.1f}) | {size:,} |"
                    )


if __name__ == "__main__":
    main()
