"""What both languages share: the deterministic choice of a line's shape and the way numbers are shown."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from .facts import Fact


def shape(fact: Fact, number: int, shapes: int) -> int:
    """Which of `shapes` sentence shapes tells this fact: fixed by the round, tick, actor and attack, so the
    same round always reads the same, while neighbouring lines need not share one shape."""
    key = f"{number}:{fact.kind}:{fact.tick}:{fact.actor}:{fact.entry.get('seq')}:{fact.target}"
    return zlib.crc32(key.encode()) % shapes


def dice(rolls: Iterable[int] | None) -> str:
    return "+".join(str(r) for r in rolls or ())


def absorbed(entry: Mapping[str, Any]) -> int:
    """What armor and toughness took from the blow: the document's blow minus its effective blow."""
    return int(entry["blow"]) - int(entry["effective"])


def percent(share: float) -> str:
    return f"{round(share * 100)}%"
