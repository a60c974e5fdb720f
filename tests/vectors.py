"""The golden vectors, read from the repo's own copy (tests/data/vectors, every set), and their matching rule.

The copy is refreshed from ../shared/rules/vectors with `make vectors`; tests/test_vector_copy.py
fails when that folder is present and the copy has drifted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

VECTORS_DIR = Path(os.environ.get("VECTORS_DIR", Path(__file__).resolve().parent / "data" / "vectors"))
FOLDERS = (".", "effects-and-long-actions", "holding-and-groups")  # the first set, then RULES.md §12-13, then §14


def vector_paths(root: Path = VECTORS_DIR) -> list[Path]:
    """Every vector file, first-set files first, each folder in name order."""
    return [path for folder in FOLDERS for path in sorted((root / folder).glob("*.json"))]


def vector_id(path: Path, root: Path = VECTORS_DIR) -> str:
    return path.relative_to(root).with_suffix("").as_posix()


def load_vectors() -> list[Any]:
    """One pytest param per vector file. The copy ships with the repo, so a missing folder is an error."""
    paths = vector_paths()
    if not paths:
        raise FileNotFoundError(f"no golden vectors under {VECTORS_DIR}: run `make vectors`")
    return [pytest.param(json.loads(path.read_text()), id=vector_id(path)) for path in paths]


def is_refusal(vector: dict) -> bool:
    return "expect_status" in vector


def mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """The vectors' rule: objects match on the keys they name, lists element by element, scalars exactly."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path or '/'}: expected an object, got {actual!r}"]
        found = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}/{key}: missing")
            else:
                found.extend(mismatches(value, actual[key], f"{path}/{key}"))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        return [m for i, (e, a) in enumerate(zip(expected, actual)) for m in mismatches(e, a, f"{path}/{i}")]
    if type(expected) is not type(actual) or expected != actual:  # 1 must not match True, nor 1.0
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []
