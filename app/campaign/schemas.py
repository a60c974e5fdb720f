"""Roster, bestiary and house-rule bodies, named by role.

A character's and a creature's stat block is a combatant's (RULES.md section 2) without effects and long
actions: the same named types as app/encounters/schemas (Weapon, Armor, Wounds, Side, Status) and the same
bounds (app.resolver.bounds); tests/api/test_characters.py fails when a field's schema drifts from the
combatant's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.config import JsonDict

from app.resolver import bounds
from app.web.resolver_schemas import InlineWeaponRead, WoundRead
from app.web.schemas import Bool, Input, JSONInt, Name, within
from app.web.stat_block import Armor, Group, NameFormsIn, RulesOverrides, Side, Status, Weapon, Wounds

NOTES_LENGTH = 2000
Notes = Annotated[str, Field(max_length=NOTES_LENGTH, description="The game master's notes (0..2000 characters).")]


class StatBlock(Input):
    """What a character and a creature carry: a combatant's fields but effects and long_action."""

    name: Name
    name_forms: NameFormsIn | None = None
    notes: Notes = ""
    initiative: Annotated[JSONInt, within(bounds.INITIATIVE)]
    attack: Annotated[JSONInt, within(bounds.ATTACK)]
    defense: Annotated[JSONInt, within(bounds.DEFENSE)]
    weapon: Weapon
    attacks_per_round: Annotated[JSONInt, within(bounds.ATTACKS_PER_ROUND)] = 1
    weapon_ready: Bool = True
    damage_bonus: Annotated[JSONInt, within(bounds.DAMAGE_BONUS)] = 0
    armor: Armor = 0
    toughness: Annotated[JSONInt, within(bounds.TOUGHNESS)] = 0
    vitality: Annotated[JSONInt, within(bounds.VITALITY)] = 10
    blood: Annotated[JSONInt, within(bounds.BLOOD)] | None = Field(
        default=None, description="Blood left; defaults to vitality."
    )
    status: Status = "active"
    wounds: Wounds = Field(
        default=[], description="Each names a wound class of the campaign's rules; penalty and bleed are filled in."
    )
    group: Group | None = None


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


NULLABLE = ("side", "blood", "group", "name_forms")
NOT_NULL = tuple(name for name in StatBlock.model_fields if name not in NULLABLE)


class StatBlockUpdate(Input):
    """Only the fields sent are changed; null only where the field may be null (side, blood, group,
    name_forms)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"weapon": "dagger", "wounds": [{"class": "light"}], "notes": ""}]}
    )

    name: Name | None = None
    name_forms: NameFormsIn | None = None
    side: Side | None = None
    notes: Notes | None = None
    initiative: Annotated[JSONInt, within(bounds.INITIATIVE)] | None = None
    attack: Annotated[JSONInt, within(bounds.ATTACK)] | None = None
    defense: Annotated[JSONInt, within(bounds.DEFENSE)] | None = None
    weapon: Weapon | None = None
    attacks_per_round: Annotated[JSONInt, within(bounds.ATTACKS_PER_ROUND)] | None = None
    weapon_ready: Bool | None = None
    damage_bonus: Annotated[JSONInt, within(bounds.DAMAGE_BONUS)] | None = None
    armor: Armor | None = None
    toughness: Annotated[JSONInt, within(bounds.TOUGHNESS)] | None = None
    vitality: Annotated[JSONInt, within(bounds.VITALITY)] | None = None
    blood: Annotated[JSONInt, within(bounds.BLOOD)] | None = None
    status: Status | None = None
    wounds: Wounds | None = None
    group: Group | None = None

    @field_validator(*NOT_NULL)
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        """Sent as null: refused (only side, blood, group and name_forms may be null; leave a field out to
        keep it)."""
        if value is None:
            raise ValueError("may not be null: leave the field out to keep it")
        return value


class CreatureRead(BaseModel):
    id: str
    name: str
    name_forms: dict[str, str] | None = Field(default=None, description="The name's Polish forms, as given.")
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
