"""Read the chronicle of an encounter: its stored rounds told, screened for a token as its round reads are.

Nothing is written and nothing is resolved again: the encounter is read in one statement (its version is
the ETag, its combatants the cast), then its rounds k..m in another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.encounters import screen
from app.encounters import store as encounters
from app.platform.db import Database
from app.platform.errors import Unprocessable

from . import store
from .model import Lang, Person, RoundStory, StoredRound, TurningPoint
from .tell import tell


class ChronicleRange(Unprocessable):
    type, title = "chronicle-range", "The rounds asked for are not in the chronicle"


@dataclass(frozen=True, slots=True)
class Chronicle:
    encounter_id: str
    lang: Lang
    version: int
    stories: list[RoundStory]


def _range(first: int | None, last: int | None, latest: int) -> tuple[int, int]:
    """Rounds first..last of 1..latest (default: all of them), or a 422 naming what is allowed."""
    start = 1 if first is None else first
    end = latest if last is None else last
    errors = []
    if first is not None and last is not None and first > last:
        errors.append({"in": "query", "pointer": "/from", "detail": f"from ({first}) is after to ({last})"})
    for name, value in (("from", first), ("to", last)):
        if value is not None and not 1 <= value <= latest:
            allowed = f"1..{latest}" if latest else "none: no round is stored yet"
            errors.append({"in": "query", "pointer": f"/{name}", "detail": f"round {value} is not stored ({allowed})"})
    if errors:
        raise ChronicleRange(
            f"The encounter has rounds 1..{latest}; ask for from ≤ to within them, or leave both out."
            if latest
            else "The encounter has no rounds yet: leave from and to out.",
            latest_round=latest,
            errors=errors,
        )
    return start, end


def _cast(rows: Sequence[Mapping[str, Any]], stored: Sequence[Any], hidden: frozenset[str]) -> dict[str, Person]:
    """Who the rounds name: the combatants as they are now, and those removed since as the rounds last saw
    them; never a hidden one (for a token)."""
    cast: dict[str, Person] = {}
    for row in stored:
        for saved in row.state_before.get("combatants", ()):
            cast[saved["id"]] = Person(saved.get("name") or saved["id"], saved.get("name_forms"))
    for current in rows:
        cast[current["id"]] = Person(current["name"] or current["id"], current.get("name_forms"))
    return {cid: person for cid, person in cast.items() if cid not in hidden}


async def read(
    database: Database,
    *,
    campaign_id: str,
    encounter_id: str,
    lang: Lang,
    first: int | None = None,
    last: int | None = None,
    screened: bool = False,
    turning_points: Mapping[int, TurningPoint] | None = None,
) -> Chronicle:
    encounter = await encounters.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    start, end = _range(first, last, encounter.round)
    rows = await store.stored_rounds(database, encounter_id, start, end) if encounter.round else []
    hidden = screen.hidden_ids(encounter.combatants) if screened else frozenset()
    rounds = [
        StoredRound.from_stored(document=row.document, request=row.request, state_before=row.state_before).screened(
            hidden
        )
        for row in rows
    ]
    stories = tell(rounds, _cast(encounter.combatants, rows, hidden), lang, turning_points=turning_points)
    return Chronicle(encounter_id, lang, encounter.version, stories)
