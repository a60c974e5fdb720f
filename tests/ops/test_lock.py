"""Every install comes from uv.lock (make run, make test, .ci/run, the Dockerfile): the lock must say what
pyproject.toml asks for, and everything that installs from it must use the same pinned uv."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCK = tomllib.loads((REPO / "uv.lock").read_text(encoding="utf-8"))
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")
DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")


def locked_version(name: str) -> str:
    return next(package["version"] for package in LOCK["package"] if package["name"] == name)


def uv_binary() -> str:
    """The uv of the environment running the tests (the dev extra pins it), else make's bootstrap copy."""
    for candidate in (shutil.which("uv", path=str(Path(sys.executable).parent)), REPO / ".tools/bin/uv"):
        if candidate and Path(candidate).exists():
            return str(candidate)
    raise AssertionError("no uv beside this Python nor in .tools/: install the dev extra (make test does)")


def test_the_lock_matches_pyproject(tmp_path):
    # Offline, with an empty cache: the check needs the two files only, and fails on any requirement
    # added, removed or changed in pyproject.toml since the lock was written.
    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "cache"), "UV_PYTHON": sys.executable,
           "UV_PYTHON_DOWNLOADS": "never", "UV_OFFLINE": "1"}
    check = subprocess.run([uv_binary(), "lock", "--check", "--offline"], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, (
        "pyproject.toml and uv.lock disagree: run `make lock` and commit uv.lock\n" + check.stderr[-3000:]
    )


def test_one_uv_version_everywhere():
    pinned = re.search(r"^UV_VERSION := (\S+)$", MAKEFILE, re.MULTILINE).group(1)
    assert f"uv=={pinned}" in PYPROJECT["project"]["optional-dependencies"]["dev"]
    assert locked_version("uv") == pinned
    assert re.search(rf"^ARG UV_VERSION={re.escape(pinned)}$", DOCKERFILE, re.MULTILINE)


def test_every_install_is_frozen_to_the_lock():
    lines = MAKEFILE.splitlines() + DOCKERFILE.splitlines()
    installs = [line for line in lines if not line.startswith("#") and re.search(r"\b(uv sync|pip install)\b", line)]
    assert installs
    for line in installs:
        # pip installs uv itself (pinned) and nothing else; uv sync never re-resolves
        assert "--frozen" in line or re.search(r"pip install .*uv==\$[({]?UV_VERSION", line), line
    assert "uv.lock" in DOCKERFILE


def test_the_build_tools_are_pinned():
    assert re.fullmatch(r"setuptools==[\d.]+", *PYPROJECT["build-system"]["requires"])
    # mypyc and the setuptools it builds with, at the lock's versions
    assert PYPROJECT["dependency-groups"]["compile"] == ["mypy>=1.11", "setuptools>=69"]
    assert locked_version("mypy") and locked_version("setuptools")
