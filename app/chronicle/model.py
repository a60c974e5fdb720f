"""What the chronicle reads and what it tells: plain frozen records, no framework."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.encounters import screen

Lang = Literal["pl", "en"]
LANGS: tuple[Lang, ...] = ("pl", "en")
FORMATS = ("markdown", "text", "json", "discord")


@dataclass(frozen=True, slots=True)
class Person:
    """A combatant as the chronicle names it: its name and, for Polish, the forms that win over the
    dictionary (`{"gen", "dat", "acc", "inst", "loc"}`, all optional)."""

    name: str
    name_forms: Mapping[str, str] | None = None


Cast = Mapping[str, Person]  # by combatant id; an id missing here is named by the id itself


@dataclass(frozen=True, slots=True)
class StoredRound:
    """One stored round as the chronicle reads it, never recomputed.

    - `document`: the round document, as `GET …/rounds/{n}` returns it (screened for a token).
    - `declarations`: the declarations the round was resolved with (the stored request's, staged ones
      included): the stances and whom a held action waited for. Empty: everyone balanced, no holds named.
    - `before`: the combatants' snapshots just before the round (id, status, effects…): the stances line
      lists those active then, and an effect there that the document no longer carries ended this round.
    - `rules`: the encounter's ruleset overrides the round was resolved under (natural rolls, the wound
      classes that force a status).
    """

    document: Mapping[str, Any]
    declarations: Sequence[Mapping[str, Any]] = ()
    before: Sequence[Mapping[str, Any]] = ()
    rules: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_stored(
        cls, *, document: Mapping[str, Any], request: Mapping[str, Any], state_before: Mapping[str, Any]
    ) -> StoredRound:
        """From a stored round's columns (app/encounters/tables.py ROUNDS): its document, request and
        state_before."""
        return cls(
            document=document,
            declarations=tuple(request.get("declarations") or ()),
            before=tuple(state_before.get("combatants") or ()),
            rules=state_before.get("rules") or {},
        )

    def screened(self, hidden: frozenset[str]) -> StoredRound:
        """The round as a player or viewer token reads it: no trace of the hidden combatants (the document
        screened exactly as a round read is, and their declarations and snapshots dropped)."""
        if not hidden:
            return self
        return StoredRound(
            document=screen.round_document(self.document, hidden),
            declarations=tuple(
                {**d, "hold": None} if d.get("hold") in hidden else d
                for d in self.declarations
                if d.get("combatant") not in hidden
            ),
            before=tuple(c for c in self.before if c["id"] not in hidden),
            rules=self.rules,
        )


@dataclass(frozen=True, slots=True)
class TurningPoint:
    """A turning point of the odds timeline on this round: `side`'s chance to win went from `before` to
    `after` (shares 0..1)."""

    side: str
    before: float
    after: float


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the chronicle. `kind`: the action's type (attack, first_aid, custom, continue) or
    stances, down, bleeding, effects_ended, long_action_lost, turning_point. `result`: the action's result,
    the status a fall or a bleeding left, else None."""

    tick: int | None
    kind: str
    actor: str | None
    target: str | None
    text: str
    result: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "tick": self.tick,
            "kind": self.kind,
            "actor": self.actor,
            "target": self.target,
            "result": self.result,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class RoundStory:
    """One round told: its number, turn, whether it ended a turn, and its lines in order."""

    round: int
    turn: int
    ends_turn: bool
    lang: Lang
    title: str
    continued_title: str  # the title of its later Discord embeds, when one cannot hold it
    lines: tuple[Line, ...]
    severity: str  # the gravest thing in it: down_dead, down_unconscious, wound, deflected, miss, quiet

    def as_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "turn": self.turn,
            "ends_turn": self.ends_turn,
            "title": self.title,
            "lines": [line.as_json() for line in self.lines],
        }
