"""The campaign document (format dziedzictwo-cieni.campaign, version 1), as an import checks it.

The stored blobs (a round's request, document and states, a combatant's wounds and effects) are written
back as the document has them, so that an export of the import gives the same document; these models
check their shape and bounds, reusing the API's own input schemas. A float anywhere is refused: the service
never writes one, and a whole float passing for an integer would be stored as a float.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field, Strict, model_validator

from app.campaign.schemas import NOTES_LENGTH, StatBlock
from app.encounters.schemas.encounter import CombatantFields, EffectIn
from app.encounters.schemas.round import DeclarationIn, Dice, RoundCreate
from app.resolver import bounds
from app.vocabulary.types import Id, Input, JSONInt, Name, within

FORMAT = "dziedzictwo-cieni.campaign"
FORMAT_VERSION = 1
# Bounds of a document: a campaign of this size is about 100 MiB, far past any import limit.
MAX_RESOURCES = 10_000  # characters, creatures, encounters
MAX_ROUNDS = 100_000  # per encounter
MAX_STORED_EFFECTS = 1000  # a round may add effects past a request's MAX_EFFECTS
MAX_RULES = 100  # an encounter's rules: the campaign's overlaid with its own

# Timestamps are ISO 8601 strings in JSON: accepted as such in Python mode too (Input is strict).
Timestamp = Annotated[AwareDatetime, Strict(False)]
Count = Annotated[JSONInt, within((0, 2**31 - 1))]
Version = Annotated[JSONInt, within((1, 2**31 - 1))]
Rules = Annotated[dict[str, Any], Field(max_length=MAX_RULES)]
# A row's id (campaign, character, creature, encounter, combatant): the tables' String(36); the service
# makes UUIDs. (Effect ids live in JSON: the API's Id.)
RowId = Annotated[str, Field(min_length=1, max_length=36)]


class CampaignPart(Input):
    id: RowId
    name: Name
    rules: Rules
    created_at: Timestamp
    version: Version


class CreaturePart(StatBlock):
    id: RowId
    side: Id | None
    notes: Annotated[str, Field(max_length=NOTES_LENGTH)]
    blood: Annotated[JSONInt, within(bounds.BLOOD)]
    version: Version
    created_at: Timestamp


class CharacterPart(CreaturePart):
    encounter_id: RowId | None = Field(description="The unfinished encounter of the document it is linked into.")


class StoredCombatant(CombatantFields):
    """A combatant row (and a round snapshot's combatant: an older one lacks the later fields)."""

    id: RowId
    position: Count
    blood: Annotated[JSONInt, within(bounds.BLOOD)]
    effects: Annotated[list[EffectIn], Field(max_length=MAX_STORED_EFFECTS)] = []
    character_id: RowId | None = None
    creature_id: RowId | None = None


class StagedPart(Input):
    combatant_id: RowId
    declaration: dict[str, Any]
    dice: Dice
    staged_at: Timestamp

    @model_validator(mode="after")
    def _a_declaration(self) -> StagedPart:
        DeclarationIn.model_validate({"combatant": self.combatant_id, **self.declaration})
        return self


class StateBefore(Input):
    next_position: Count
    combatants: Annotated[list[StoredCombatant], Field(max_length=bounds.MAX_COMBATANTS * 10)]
    rules: Rules | None = None  # the rules the round was resolved under (absent: rounds stored before)


class RoundPart(Input):
    number: Annotated[JSONInt, within((1, MAX_ROUNDS))]
    request: RoundCreate
    document: dict[str, Any]  # checked by the replay: it must come out again
    state_before: StateBefore
    state_after: list[dict[str, Any]]  # checked by the replay
    created_at: Timestamp


class FinishedCharacter(Input):
    before: dict[str, Any]
    version_after: Version


class FinishState(Input):
    characters: dict[RowId, FinishedCharacter]


class EncounterPart(Input):
    id: RowId
    name: Name
    rules: Rules
    round: Annotated[JSONInt, within((0, MAX_ROUNDS))]
    version: Version
    next_position: Count
    created_at: Timestamp
    finished_at: Timestamp | None
    finish_state: FinishState | None
    combatants: Annotated[list[StoredCombatant], Field(max_length=bounds.MAX_COMBATANTS * 10)]
    staged: Annotated[list[StagedPart], Field(max_length=bounds.MAX_COMBATANTS * 10)]
    rounds: Annotated[list[RoundPart], Field(max_length=MAX_ROUNDS)]

    @model_validator(mode="after")
    def _consistent(self) -> EncounterPart:
        numbers = [r.number for r in self.rounds]
        if numbers != list(range(1, self.round + 1)):
            raise ValueError(f"encounter {self.id}: its rounds must be 1..{self.round} in order")
        ids = {c.id for c in self.combatants}
        if len(ids) != len(self.combatants):
            raise ValueError(f"encounter {self.id}: two combatants have the same id")
        if len({c.position for c in self.combatants}) != len(self.combatants):
            raise ValueError(f"encounter {self.id}: two combatants have the same position")
        for staged in self.staged:
            if staged.combatant_id not in ids:
                raise ValueError(f"encounter {self.id}: a declaration is staged for no combatant of it")
        return self


def refuse_floats(value: Any, path: str = "") -> None:
    if isinstance(value, (float, Decimal)):  # Decimal: how a streamed import reads a fraction
        raise ValueError(f"{path or '/'}: a number here must be an integer")
    if isinstance(value, dict):
        for key, item in value.items():
            refuse_floats(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            refuse_floats(item, f"{path}/{index}")


class DocumentHead(Input):
    """Everything of the document but its encounters: what a streamed import holds whole (app/portability/stream.py
    reads the encounters one at a time)."""

    format: Literal["dziedzictwo-cieni.campaign"]
    format_version: Literal[1] = Field(description="Only version 1 is known; another is refused (422).")
    exported_at: Timestamp
    campaign: CampaignPart
    characters: Annotated[list[CharacterPart], Field(max_length=MAX_RESOURCES)]
    creatures: Annotated[list[CreaturePart], Field(max_length=MAX_RESOURCES)]

    @model_validator(mode="before")
    @classmethod
    def _integers_only(cls, value: Any) -> Any:
        refuse_floats(value)
        return value

    @model_validator(mode="after")
    def _roster_ids_once(self) -> DocumentHead:
        for noun, ids in (("character", [c.id for c in self.characters]), ("creature", [c.id for c in self.creatures])):
            if len(set(ids)) != len(ids):
                raise ValueError(f"two {noun}s of the document have the same id")
        return self


class CampaignDocument(DocumentHead):
    """GET /v1/campaign/export's answer, and POST /v1/campaigns/import's body."""

    encounters: Annotated[list[EncounterPart], Field(max_length=MAX_RESOURCES)]

    @model_validator(mode="after")
    def _ids_once(self) -> CampaignDocument:
        combatants = [c.id for e in self.encounters for c in e.combatants]
        for noun, ids in (("encounter", [e.id for e in self.encounters]), ("combatant", combatants)):
            if len(set(ids)) != len(ids):
                raise ValueError(f"two {noun}s of the document have the same id")
        unfinished = {e.id for e in self.encounters if e.finished_at is None}
        for character in self.characters:
            if character.encounter_id is not None and character.encounter_id not in unfinished:
                raise ValueError(f"character {character.id} is linked into no unfinished encounter of the document")
        return self
