"""Typed reads of documents the resolver defines: the ruleset, wounds, inline weapons, action types.

The resolver writes them as plain JSON (app/resolver/codec.py); these models say their shape in the OpenAPI
document so generated clients get classes and enums, not dicts. tests/api/test_openapi.py fails when the
ruleset gains a rule RulesetRead does not declare, tests/api/test_generated_client.py when a read carries an
undeclared field.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.resolver.model import Status

ActionType = Literal["attack", "first_aid", "custom", "continue", "none"]


class WoundRead(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    class_: str = Field(alias="class", description="A wound class of the ruleset (wound_classes[].class).")
    penalty: int
    bleed: int


class InlineWeaponRead(BaseModel):
    """A weapon given inline rather than by armory key."""

    name: str
    delay: int
    damage: str = Field(description="Dice notation: NdM, NdM+K or NdM-K.")


class StanceRead(BaseModel):
    attack: int
    defense: int


class WoundClassRead(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    class_: str = Field(alias="class")
    min: int = Field(description="The smallest effective blow that gives this wound.")
    penalty: int
    bleed: int
    forces: Status | None = Field(description="The status this wound forces, if any.")


class WeaponProfileRead(BaseModel):
    delay: int
    damage: str = Field(description="Dice notation: NdM, NdM+K or NdM-K.")


class RulesetRead(BaseModel):
    """The ruleset as data (GET /v1/rules): any part can be overridden per encounter."""

    delay_die: int
    technical_action_penalty: int
    turn_length: int = Field(description="Rounds per turn: bleeding is counted once per turn.")
    margin_divisor: int
    first_aid_delay: int
    natural_hit: int
    natural_miss: int
    long_action_broken_at: int | None = Field(description="The effective blow that breaks a long action; null: none.")
    stances: dict[str, StanceRead]
    wound_classes: list[WoundClassRead]
    armory: dict[str, WeaponProfileRead] = Field(description="Weapons by key: what `weapon` may name.")
    armor: dict[str, int] = Field(description="Armor points by name.")
