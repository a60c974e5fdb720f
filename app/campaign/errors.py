"""The campaign's refusals."""

from __future__ import annotations

from app.platform.errors import ServiceError


class CharacterBusy(ServiceError):
    """A character is in at most one unfinished fight."""

    status, type, title = 409, "character-busy", "The character is in an unfinished encounter"

    @classmethod
    def of(cls, character_id: str, encounter_id: str | None) -> CharacterBusy:
        return cls(
            f"Character {character_id} is in the unfinished encounter {encounter_id}: finish it, or remove the "
            "character from it, first.",
            character=character_id,
            encounter=encounter_id,
        )


class CharacterChanged(ServiceError):
    """Reopening would overwrite what happened to the character since the fight was finished."""

    status, type, title = 409, "character-changed", "The character changed since the fight was finished"
