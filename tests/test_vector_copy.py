"""The repo's copy of the golden vectors (tests/data/vectors) equals ../shared/rules/vectors when that is present."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.vectors import VECTORS_DIR

SHARED_DIR = Path(
    os.environ.get("SHARED_VECTORS_DIR", Path(__file__).resolve().parents[2] / "shared" / "rules" / "vectors")
)


def files_under(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def drift(copy: dict[str, bytes], shared: dict[str, bytes]) -> list[str]:
    """What differs, file by file: missing from the copy, not in the shared folder, or changed."""
    found = [f"{name}: missing from the copy" for name in shared.keys() - copy.keys()]
    found += [f"{name}: no longer in the shared folder" for name in copy.keys() - shared.keys()]
    found += [f"{name}: differs" for name in shared.keys() & copy.keys() if shared[name] != copy[name]]
    return sorted(found)


def test_drift_names_every_difference():
    copy = {"a.json": b"1", "b.json": b"2", "c.json": b"3"}
    shared = {"a.json": b"1", "b.json": b"changed", "d.json": b"4"}
    assert drift(copy, shared) == [
        "b.json: differs",
        "c.json: no longer in the shared folder",
        "d.json: missing from the copy",
    ]
    assert drift(copy, dict(copy)) == []


@pytest.mark.skipif(not SHARED_DIR.is_dir(), reason=f"{SHARED_DIR} is absent (a fresh clone): nothing to compare")
def test_copy_matches_shared_vectors():
    found = drift(files_under(VECTORS_DIR), files_under(SHARED_DIR))
    assert found == [], f"tests/data/vectors has drifted from {SHARED_DIR}; run `make vectors`: {found}"
