"""A campaign's statistics (CONTRACT.md, "Statistics"): each character over the finished fights it fought
in linked, each creature over every copy made of it. Pure: the fights' counted combatants in, totals out.

A fight counts for a combatant when it took part in at least one of its rounds; `rounds` sums the rounds
it was in; `times_down` counts the fights that took it out of `active`; `downed` the combatants whose
`down.by` names it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .counting import Fighter

TOTALS = ("fights", "rounds", "attacks", "hits", "times_down", "downed")


def _empty() -> dict[str, Any]:
    return {**dict.fromkeys(TOTALS, 0), "wounds_dealt": {}, "wounds_taken": {}}


def _add(total: dict[str, Any], fighter: Fighter, downed: int) -> None:
    total["rounds"] += fighter.rounds
    total["attacks"] += fighter.numbers["attacks"]
    total["hits"] += fighter.numbers["hits"]
    total["times_down"] += fighter.down is not None
    total["downed"] += downed
    for name in ("wounds_dealt", "wounds_taken"):
        tally = Counter(total[name])
        tally.update(fighter.tallies[name])
        total[name] = dict(sorted(tally.items()))


def campaign_stats(
    fights: Iterable[tuple[bool, Sequence[Fighter]]],
    characters: Sequence[Mapping[str, Any]],
    creatures: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """`fights`: (finished, its counted combatants) per encounter; `characters`/`creatures`: {id, name}
    of the roster and the bestiary as they are now (one deleted since is left out)."""
    by_character = {row["id"]: {"character": row["id"], "name": row["name"], **_empty()} for row in characters}
    by_creature = {
        row["id"]: {"creature": row["id"], "name": row["name"], "copies": 0, **_empty()} for row in creatures
    }
    for finished, fighters in fights:
        downed = Counter(f.down["by"] for f in fighters if f.down is not None)
        creatures_here: set[str] = set()
        characters_here: set[str] = set()
        for fighter in fighters:
            if fighter.rounds == 0:
                continue
            if finished and fighter.character is not None and fighter.character in by_character:
                _add(by_character[fighter.character], fighter, downed[fighter.combatant])
                characters_here.add(fighter.character)
            if fighter.creature is not None and fighter.creature in by_creature:
                _add(by_creature[fighter.creature], fighter, downed[fighter.combatant])
                by_creature[fighter.creature]["copies"] += 1
                creatures_here.add(fighter.creature)
        for character in characters_here:
            by_character[character]["fights"] += 1
        for creature in creatures_here:
            by_creature[creature]["fights"] += 1
    return {"characters": list(by_character.values()), "creatures": list(by_creature.values())}
