"""What a player or viewer token may see: the encounter as if its hidden combatants were not in it
(README.md, "Hidden combatants"). The owner's reads are never screened, so they cost nothing; a token's
read is one pass over the document. Who is hidden is who is hidden *now*: a round document read later
follows the current flags, not those of its time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from app.encounters.convert import CombatantRow, EncounterRecord


def hidden_ids(combatants: Iterable[CombatantRow]) -> frozenset[str]:
    return frozenset(row["id"] for row in combatants if row["hidden"])


def visible(encounter: EncounterRecord) -> EncounterRecord:
    """The encounter without its hidden combatants."""
    return replace(encounter, combatants=tuple(row for row in encounter.combatants if not row["hidden"]))


def _names_hidden(entry: Mapping[str, Any], hidden: frozenset[str]) -> bool:
    return entry.get("actor") in hidden or entry.get("target") in hidden


def round_document(document: Mapping[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    """A round document without a trace of the hidden combatants: their states, their bleeding, the actions
    that name them, and their dice (keyed `<id>.…`)."""
    if not hidden:
        return dict(document)
    return {
        **document,
        "actions": [a for a in document["actions"] if not _names_hidden(a, hidden)],
        "bleeding": [b for b in document["bleeding"] if b["combatant"] not in hidden],
        "combatants": [c for c in document["combatants"] if c["id"] not in hidden],
        "dice": {key: value for key, value in document["dice"].items() if key.split(".", 1)[0] not in hidden},
    }


def revealed_by(document: Mapping[str, Any], hidden: frozenset[str]) -> frozenset[str]:
    """The hidden combatants a round names as actor or target: it reveals them."""
    named = {a.get("actor") for a in document["actions"]} | {a.get("target") for a in document["actions"]}
    return hidden & frozenset(n for n in named if n is not None)
