"""What changed in an encounter: the small notice that travels between workers.

A notice carries only identifiers and numbers (PostgreSQL's NOTIFY payloads are limited to 8000
bytes, and every worker reads a round's document itself, once, for all its subscribers).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import orjson

from app.responses import Reply

KINDS = ("round", "undo", "encounter", "declaration")
VERSIONED = ("round", "undo", "encounter")  # kinds whose change bumped the encounter's version


@dataclass(frozen=True)
class Change:
    """One committed change. `version` is the encounter's version after it, or None when the publisher
    does not know it (then each worker reads the current one)."""

    encounter_id: str
    kind: str
    version: int | None = None
    round: int | None = None  # round and undo: the round's number
    combatant: str | None = None  # declaration: whose
    declared: bool | None = None  # declaration: staged (True) or withdrawn (False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of change {self.kind!r}")

    @classmethod
    def of_round(cls, encounter_id: str, number: int, version: int) -> Change:
        return cls(encounter_id, "round", version, round=number)

    @classmethod
    def of_undo(cls, encounter_id: str, number: int, version: int) -> Change:
        return cls(encounter_id, "undo", version, round=number)

    @classmethod
    def of_encounter(cls, encounter_id: str, version: int | None = None) -> Change:
        return cls(encounter_id, "encounter", version)

    @classmethod
    def of_declaration(cls, encounter_id: str, combatant: str, declared: bool, version: int | None = None) -> Change:
        return cls(encounter_id, "declaration", version, combatant=combatant, declared=declared)

    def payload(self) -> str:
        return orjson.dumps({k: v for k, v in asdict(self).items() if v is not None}).decode()

    @classmethod
    def from_payload(cls, payload: str | bytes) -> Change:
        fields: dict[str, Any] = orjson.loads(payload)
        return cls(**fields)


def version_of(reply: Reply) -> int:
    """The encounter's version a stored reply announced in its ETag ('"7"')."""
    return int(reply.headers["etag"].strip('"'))


def round_change(encounter_id: str, reply: Reply) -> Change:
    """The change a resolved round's reply (201, ETag, Location …/rounds/{n}) stands for."""
    return Change.of_round(encounter_id, int(reply.headers["location"].rsplit("/", 1)[1]), version_of(reply))
