"""The repo's copy of the golden vectors (tests/data/vectors) is exactly what `make vectors` took: it matches
the SHA-256 manifest written beside it (tests/data/vectors.sha256), on every clone, and it equals
../shared/rules/vectors wherever that is present."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tests.vectors import VECTORS_DIR

SHARED_DIR = Path(
    os.environ.get("SHARED_VECTORS_DIR", Path(__file__).resolve().parents[2] / "shared" / "rules" / "vectors")
)


MANIFEST = VECTORS_DIR.parent / "vectors.sha256"


def files_under(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def digests(files: dict[str, bytes]) -> dict[str, str]:
    return {name: hashlib.sha256(content).hexdigest() for name, content in files.items()}


def manifest() -> dict[str, str]:
    """sha256sum's format: `<hex digest>  <path>` per line."""
    return {name: digest for digest, name in (line.split("  ", 1) for line in MANIFEST.read_text().splitlines())}


def drift(copy: dict[str, str], shared: dict[str, str]) -> list[str]:
    """What differs, file by file: missing from the copy, not in the shared folder, or changed."""
    found = [f"{name}: missing from the copy" for name in shared.keys() - copy.keys()]
    found += [f"{name}: no longer in the shared folder" for name in copy.keys() - shared.keys()]
    found += [f"{name}: differs" for name in shared.keys() & copy.keys() if shared[name] != copy[name]]
    return sorted(found)


def test_drift_names_every_difference():
    copy = {"a.json": "1", "b.json": "2", "c.json": "3"}
    shared = {"a.json": "1", "b.json": "changed", "d.json": "4"}
    assert drift(copy, shared) == [
        "b.json: differs",
        "c.json: no longer in the shared folder",
        "d.json: missing from the copy",
    ]
    assert drift(copy, dict(copy)) == []


def test_copy_matches_its_manifest():
    found = drift(digests(files_under(VECTORS_DIR)), manifest())
    assert found == [], f"tests/data/vectors differs from what `make vectors` took ({MANIFEST.name}): {found}"


def test_copy_matches_shared_vectors_where_present():
    """On a clone without ../shared the manifest above is the reference; beside it, the folder itself."""
    if not SHARED_DIR.is_dir():
        assert MANIFEST.is_file(), "without ../shared the manifest is the only reference"
        return
    found = drift(digests(files_under(VECTORS_DIR)), digests(files_under(SHARED_DIR)))
    assert found == [], f"tests/data/vectors has drifted from {SHARED_DIR}; run `make vectors`: {found}"
