"""Small checks shared by the validation modules: each adds an issue naming its field when a value is bad."""

from __future__ import annotations

from typing import Any

from .errors import Issues


def int_within(issues: Issues, field: str, value: Any, limits: tuple[int, int]) -> bool:
    if not isinstance(value, int) or isinstance(value, bool):
        issues.add(field, "must be an integer")
        return False
    if not limits[0] <= value <= limits[1]:
        issues.add(field, f"must be within {limits[0]}..{limits[1]}")
        return False
    return True


def optional_int_within(issues: Issues, field: str, value: Any, limits: tuple[int, int]) -> None:
    if value is not None and (type(value) is not int or not limits[0] <= value <= limits[1]):
        issues.add(field, f"must be null or an integer within {limits[0]}..{limits[1]}")


def text_within(issues: Issues, field: str, value: Any, limits: tuple[int, int]) -> bool:
    if not isinstance(value, str) or not limits[0] <= len(value) <= limits[1]:
        issues.add(field, f"must be a string of {limits[0]}..{limits[1]} characters")
        return False
    return True
