"""The shared golden vectors (../shared/rules/vectors), read at test time, and their matching rule."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

VECTORS_DIR = Path(os.environ.get("VECTORS_DIR", Path(__file__).resolve().parents[2] / "shared" / "rules" / "vectors"))
SKIP_REASON = f"shared golden vectors not found at {VECTORS_DIR} (set VECTORS_DIR to their folder)"


def load_vectors() -> list[Any]:
    """One pytest param per vector file, or a single skipped param when ../shared is absent."""
    if not VECTORS_DIR.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-vectors")]
    return [pytest.param(json.loads(path.read_text()), id=path.stem) for path in sorted(VECTORS_DIR.glob("*.json"))]


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
