"""Peak memory of importing the 100 encounters x 100 rounds campaign (10,000 rounds, about 72 MiB of JSON),
over HTTP and through `combat-admin import`, each in a process of its own on a fresh SQLite file.

- HTTP: one uvicorn worker (127.0.0.1 only, IMPORT_MAX_BYTES raised to take the document), the document
  streamed to POST /v1/campaigns/import from the file; the server's peak RSS is its VmHWM.
- combat-admin: `app.portability.cli.main(["import", FILE])` in a child process that reports its own VmHWM at
  the end (not ru_maxrss: Linux keeps, across exec, the peak of the forked copy of this parent).

    /work/venv/bin/python bench/import_rss_bench.py      # the document is built first (portability_bench.py)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadkit import ROOT, Server  # noqa: E402
from portability_bench import ENCOUNTERS, ROUNDS, large_document, migrate, one_fight  # noqa: E402

TARGET_MIB = 400
CLI = """
import sys
from pathlib import Path
from app.portability.cli import main
try:
    code = main(["import", sys.argv[1]])
finally:
    status = Path("/proc/self/status").read_text()
    print("VmHWM", next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")), file=sys.stderr)
sys.exit(code)
"""


def peak_rss_of(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")) / 1024


def over_http(folder: Path, document: Path) -> tuple[float, float, int]:
    url = f"sqlite:///{folder / 'http.db'}"
    migrate(url)
    env = {"DATABASE_URL": url, "IMPORT_MAX_BYTES": str(2**30), "LOG_LEVEL": "WARNING"}
    with Server("service", ["app.main:create_app", "--factory"], 18432, env, folder / "http.log") as server:
        assert server.process is not None
        started = time.perf_counter()
        with document.open("rb") as body:
            answer = httpx.post(server.url + "/v1/campaigns/import", content=iter(lambda: body.read(65536), b""),
                                headers={"Content-Type": "application/json"}, timeout=3600)
        seconds = time.perf_counter() - started
        return seconds, peak_rss_of(server.process.pid), answer.status_code


def through_combat_admin(folder: Path, document: Path) -> tuple[float, float, int]:
    url = f"sqlite:///{folder / 'cli.db'}"
    migrate(url)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CLI, str(document)], cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", "DATABASE_URL": url}, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    peak = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("VmHWM"))
    return seconds, peak / 1024, done.returncode


def main() -> None:
    only = sys.argv[1:] or ["combat-admin", "HTTP"]
    with tempfile.TemporaryDirectory(prefix="import_rss_") as tmp:
        folder = Path(tmp)
        seed_url = f"sqlite:///{folder / 'seed.db'}"
        migrate(seed_url)
        document = folder / "campaign.json"
        document.write_bytes(large_document(one_fight(seed_url)))
        size = document.stat().st_size / 2**20
        print(f"document: {ENCOUNTERS} encounters x {ROUNDS} rounds, {size:.1f} MiB")
        for name, run in (("combat-admin", through_combat_admin), ("HTTP", over_http)):
            if name not in only:
                continue
            seconds, peak, outcome = run(folder, document)
            verdict = "under" if peak < TARGET_MIB else "OVER"
            print(f"{name}: {seconds:.1f} s, peak RSS {peak:.0f} MiB ({verdict} {TARGET_MIB} MiB), outcome {outcome}")


if __name__ == "__main__":
    main()
