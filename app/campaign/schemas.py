"""Roster, bestiary and house-rule bodies, named by role.

A character's and a creature's stat block is a combatant's without effects and long actions: both compose
app/vocabulary/stat_block.py's declarations.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.config import JsonDict

from app.vocabulary.ruleset import InlineWeaponRead, WoundRead
from app.vocabulary.stat_block import RulesOverrides, Side, StatBlockFields, StatBlockPatch, Status, refuse_null
from app.vocabulary.types import Input, Name

NOTES_LENGTH = 2000
Notes = Annotated[str, Field(max_length=NOTES_LENGTH, description="The game master's notes (0..2000 characters).")]


class StatBlock(StatBlockFields):
    """What a character and a creature carry: a combatant's stat block, a name and notes."""

    name: Name
    notes: Notes = ""


CHARACTER_EXAMPLE: JsonDict = {
    "name": "Ala z Mazowsza",
    "notes": "Owes the miller a favour.",
    "initiative": 20,
    "attack": 14,
    "defense": 4,
    "weapon": "long_sword",
    "armor": 1,
    "vitality": 12,
}
CREATURE_EXAMPLE: JsonDict = {
    "name": "Goblin",
    "initiative": 12,
    "attack": 9,
    "defense": 2,
    "weapon": "dagger",
    "vitality": 6,
    "group": "goblins",
}


class CharacterCreate(StatBlock):
    model_config = ConfigDict(json_schema_extra={"examples": [CHARACTER_EXAMPLE]})

    side: Side | None = "party"


class CreatureCreate(StatBlock):
    model_config = ConfigDict(json_schema_extra={"examples": [CREATURE_EXAMPLE]})

    side: Side | None = Field(default=None, description="null: every copy is its own side in odds, unless given.")


class StatBlockUpdate(StatBlockPatch):
    """Only the fields sent are changed; null only where the field may be null (side, blood, group)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"weapon": "dagger", "wounds": [{"class": "light"}], "notes": ""}]}
    )

    name: Name | None = None
    side: Side | None = None
    notes: Notes | None = None

    _not_null = field_validator("name", "notes")(refuse_null)


class CreatureRead(BaseModel):
    id: str
    name: str
    side: str | None
    notes: str
    initiative: int
    attack: int
    defense: int
    weapon: str | InlineWeaponRead = Field(description="An armory key, or the inline profile given.")
    attacks_per_round: int
    weapon_ready: bool
    damage_bonus: int
    armor: int | str = Field(description="Points, or the armor table's name, as given.")
    toughness: int
    vitality: int
    blood: int
    status: Status
    wounds: list[WoundRead]
    group: str | None
    version: int
    created_at: datetime
    updated_at: datetime


class CharacterRead(CreatureRead):
    encounter: str | None = Field(description="The unfinished encounter the character is in, or null.")


class HouseRulesUpdate(Input):
    """PATCH /v1/campaign: the house rules replace the campaign's overrides ({} clears them)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"rules": {"delay_die": 8, "armory": {"flail": {"delay": 7, "damage": "1d10"}}}},
                {"rules": {}},
            ]
        }
    )

    rules: RulesOverrides
