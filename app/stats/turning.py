"""Turning points of an odds timeline (CONTRACT.md): the rounds k where some side's chance to win moved by
0.20 or more from k−1. Pure. Compared in fights won, not in floating-point shares: 0.62 − 0.42 is a hair
under 0.2 in floating point, and a swing of exactly a fifth of the fights must count."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SWING = (1, 5)  # a fifth of the fights


@dataclass(frozen=True, slots=True)
class TurningPoint:
    round: int
    side: str
    before: float
    after: float
    actions: tuple[str, ...]  # round k's actions that wounded or downed someone, as "<actor>.<seq>"

    def read(self) -> dict[str, Any]:
        return {"round": self.round, "side": self.side, "before": self.before, "after": self.after,
                "actions": list(self.actions)}  # fmt: skip


def wins_of(point: Mapping[str, Any]) -> dict[str, int]:
    """Fights won per side (the shares are count / fights, so rounding gives the count back exactly)."""
    return {side["side"]: round(side["wins"] * point["fights"]) for side in point["sides"]}


def decisive_actions(document: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(f"{a['actor']}.{a['seq']}" for a in document["actions"] if a.get("wound") is not None)


def turning_points(
    points: Sequence[Mapping[str, Any]], documents: Mapping[int, Mapping[str, Any]]
) -> list[TurningPoint]:
    """`points` in round order (k = 0, 1, …, each with `round`); `documents`: round k's document by k. A side
    absent from a point (not in the fight yet, or no longer) counts as winning none of its fights."""
    found = []
    for previous, point in zip(points, points[1:]):
        fights = point["fights"]
        before, after = wins_of(previous), wins_of(point)
        for side in dict.fromkeys([*before, *after]):
            won_before, won_after = before.get(side, 0), after.get(side, 0)
            if abs(won_after - won_before) * SWING[1] >= fights * SWING[0]:
                document = documents.get(point["round"], {"actions": []})
                found.append(
                    TurningPoint(
                        point["round"], side, won_before / fights, won_after / fights, decisive_actions(document)
                    )  # fmt: skip
                )
    return found
