"""What an event says to one subscription: its data screened for the subscription's scope, names added, and the
round's chronicle in the subscription's language. Read when the event is sent, as the event stream does: who
is hidden is who is hidden now.

`table` scope sees what a viewer token reads: nothing of a hidden combatant (not its state, its bleeding, the
actions that name it, its dice, nor that it went down).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, select

from app.chronicle import Person, RoundStory, StoredRound, render_round
from app.encounters import screen
from app.encounters.tables import COMBATANTS
from app.platform.db import Database

PEOPLE = select(COMBATANTS.c.id, COMBATANTS.c.name, COMBATANTS.c.name_forms, COMBATANTS.c.hidden).where(
    COMBATANTS.c.encounter_id == bindparam("encounter_id")
)
NEEDS_PEOPLE = ("round.resolved", "turn.ended", "combatant.down")


@dataclass(frozen=True)
class People:
    """The encounter's combatants now: their names (with the Polish forms set for them), and who is hidden."""

    names: dict[str, str]
    hidden: frozenset[str]
    forms: dict[str, Any] = field(default_factory=dict)

    def name(self, combatant: str | None) -> str | None:
        if combatant is None:
            return None
        return self.names.get(combatant) or combatant


NOBODY = People({}, frozenset())


async def people_of(database: Database, encounter_id: str) -> People:
    rows = await database.rows(PEOPLE, {"encounter_id": encounter_id})
    return People(
        {r.id: r.name or r.id for r in rows},
        frozenset(r.id for r in rows if r.hidden),
        {r.id: r.name_forms for r in rows if r.name_forms},
    )


def screened_data(kind: str, data: dict[str, Any], scope: str, people: People) -> dict[str, Any] | None:
    """The event's data as this scope may see it; None when the whole event is about what it may not see."""
    hidden = people.hidden if scope == "table" else frozenset()
    if kind == "round.resolved":
        downs = [
            {**d, "by": None if d.get("by") in hidden else d.get("by")}
            for d in data.get("downs", [])
            if d["combatant"] not in hidden
        ]
        return {**data, "document": screen.round_document(data["document"], hidden), "downs": downs, "source": None}
    if kind == "turn.ended":
        return {**data, "bleeding": [b for b in data["bleeding"] if b["combatant"] not in hidden]}
    if kind == "combatant.down":
        if data["combatant"] in hidden:
            return None
        by = None if data.get("by") in hidden else data.get("by")
        return {**data, "by": by, "name": people.name(data["combatant"])}
    return data


def round_story(data: dict[str, Any], scope: str, lang: str, people: People) -> RoundStory:
    """The round told by the chronicle (app/chronicle), screened for the scope as a viewer's read is."""
    source = data.get("source") or {}
    stored = StoredRound.from_stored(
        document=data["document"], request=source.get("request") or {}, state_before=source.get("state_before") or {}
    )
    if scope == "table":
        stored = stored.screened(people.hidden)
    cast = {combatant: Person(name, people.forms.get(combatant)) for combatant, name in people.names.items()}
    return render_round(stored, cast, "pl" if lang == "pl" else "en")


def standard_data(kind: str, data: dict[str, Any], scope: str, lang: str, people: People) -> dict[str, Any] | None:
    screened = screened_data(kind, data, scope, people)
    if screened is not None and kind == "round.resolved":
        del screened["downs"], screened["source"]  # a standard receiver gets combatant.down events instead
        screened["chronicle"] = [line.text for line in round_story(data, scope, lang, people).lines]
    return screened
