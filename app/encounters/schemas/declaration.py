"""Bodies of staged declarations: a round's declaration without `combatant` (it is in the path), plus dice."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.config import JsonDict

from app.encounters.schemas.round import DeclarationIn, Dice
from app.vocabulary.types import Input

STAGE_EXAMPLE: JsonDict = {
    "stance": "offensive",
    "action": {"type": "attack", "targets": ["bolek"]},
    "technical_actions": 0,
    "dice": {"ala.initiative.1": 4, "ala.attack.1": 7},
}

# Derived from the round's DeclarationIn, so a field or action type added there is stageable at once.
_declaration_fields: dict[str, Any] = {
    name: (field.annotation, field) for name, field in DeclarationIn.model_fields.items() if name != "combatant"
}
DECLARATION_FIELDS = tuple(_declaration_fields)

DeclarationStage = create_model(
    "DeclarationStage",
    __base__=Input,
    __doc__="A combatant's declaration for the next round; `dice` may name only this combatant's rolls.",
    **_declaration_fields,
    dice=(Dice, Field(default={})),
)
DeclarationStage.model_config["json_schema_extra"] = {"examples": [STAGE_EXAMPLE]}
DeclarationStage.model_rebuild(force=True)


class Declared(BaseModel):
    """What anyone may learn: that this combatant has declared, never what."""

    combatant: str
    declared: Literal[True] = True


class StagedDeclarationRead(Declared):
    """A staged declaration in full: for the owner, and for the player whose combatant it is."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"combatant": "ala", "declared": True, **STAGE_EXAMPLE, "staged_at": "2025-05-01T18:30:00Z"}]
        }
    )

    stance: str | None = None
    action: dict[str, Any] | None = Field(
        default=None, description="None staged: the round continues the long action the combatant carries, else none."
    )
    technical_actions: int
    dice: dict[str, int | list[int]]
    staged_at: datetime


class DeclarationsRead(BaseModel):
    round: int = Field(description="The number of the next round, the one these declarations are for.")
    declarations: list[StagedDeclarationRead | Declared]
