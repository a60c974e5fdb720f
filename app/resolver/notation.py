"""Dice notation for weapon damage: NdM, NdM+K, NdM-K."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .errors import InvalidNotation, Issue

COUNT_BOUNDS = (1, 20)
SIDES_BOUNDS = (2, 100)
MODIFIER_BOUNDS = (-100, 100)

_NOTATION = re.compile(r"(\d{1,3})d(\d{1,4})(?:([+-])(\d{1,4}))?", re.ASCII)  # ASCII: \d alone also takes "١d٦"


@dataclass(frozen=True, slots=True)
class DamageDice:
    count: int
    sides: int
    modifier: int = 0

    def __str__(self) -> str:
        if self.modifier:
            return f"{self.count}d{self.sides}{self.modifier:+d}"
        return f"{self.count}d{self.sides}"


def parse_damage(text: str, field: str = "/damage") -> DamageDice:
    """Parse and bound-check notation; raise InvalidNotation naming `field` otherwise."""
    if not isinstance(text, str):
        raise InvalidNotation([Issue(field, "must be dice notation such as 1d8 or 2d6+1")])
    return _parse(text, field)


@lru_cache(maxsize=1024)
def _parse(text: str, field: str) -> DamageDice:
    match = _NOTATION.fullmatch(text)
    if match is None:
        raise InvalidNotation([Issue(field, f"{text!r} is not dice notation NdM, NdM+K or NdM-K")])
    count, sides = int(match[1]), int(match[2])
    modifier = int(match[4] or 0) * (-1 if match[3] == "-" else 1)
    for name, value, (low, high) in (
        ("N (number of dice)", count, COUNT_BOUNDS),
        ("M (sides)", sides, SIDES_BOUNDS),
        ("K (modifier)", modifier, MODIFIER_BOUNDS),
    ):
        if not low <= value <= high:
            raise InvalidNotation([Issue(field, f"{text!r}: {name} must be within {low}..{high}")])
    return DamageDice(count, sides, modifier)
