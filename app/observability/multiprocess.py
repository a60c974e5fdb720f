"""prometheus_client's multiprocess mode: one /metrics for several uvicorn workers.

With PROMETHEUS_MULTIPROC_DIR in the environment, every worker writes its figures to files of its own in
that folder and whichever worker answers a scrape adds them all up. prometheus_client reads the variable
when it is first imported, so it must be in the process's environment (a .env file cannot set it), and
the folder must be empty when the workers start (scripts/empty-metrics-dir, run before uvicorn by the
Dockerfile, docker-compose.yml and `make run`).

A worker's files stay when it exits (its counts still belong in the totals), except those of its live
gauges: gunicorn removes them from its master's child_exit hook; uvicorn has none, so a worker marks itself
dead at the end of its lifespan, and each worker that starts marks dead those that died without one (a
SIGKILL, or uvicorn killing a hung worker and starting another in its place).
"""

from __future__ import annotations

import os
from pathlib import Path

from prometheus_client import multiprocess

ENV = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess_dir() -> str | None:
    """The folder when multiprocess mode is on. Set at all means on, as prometheus_client decides it."""
    return os.environ.get(ENV)


def mark_worker_dead() -> None:
    """At the end of this worker's lifespan: its live gauges leave the sum."""
    folder = multiprocess_dir()
    if folder is not None:
        _mark_dead(os.getpid(), folder)


def mark_dead_workers(folder: str) -> None:
    """Every worker whose process no longer runs leaves the live gauges' sum."""
    for path in Path(folder).glob("gauge_live*_*.db"):
        pid = path.stem.rpartition("_")[2]
        if pid.isdigit() and not _running(int(pid)):
            _mark_dead(int(pid), folder)


def _mark_dead(pid: int, folder: str) -> None:
    multiprocess.mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]  # unannotated upstream


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, as another user
    return True
