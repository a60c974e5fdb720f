"""Typed reads of the documents the resolver produces: the ruleset, wounds, weapons, effects, round results.

The resolver writes them as plain JSON (app/resolver/codec.py); these models say their shape in the OpenAPI
document so generated clients get classes and enums, not dicts. tests/api/test_openapi_documents.py fails
when a document gains a field these do not declare.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.resolver.model import Result, Status

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


class EffectRead(BaseModel):
    """An effect lasting on a combatant until a round (RULES.md section 12)."""

    id: str
    name: str
    attack: int
    defense: int
    initiative: int
    blood_per_turn: int
    until_round: int


class EffectGivenRead(BaseModel):
    """The effect a long action gives when it completes."""

    name: str
    attack: int
    defense: int
    initiative: int
    blood_per_turn: int
    rounds: int


class LongActionRead(BaseModel):
    """An action over several rounds, carried by its combatant until done or broken (RULES.md section 13)."""

    name: str
    delay: int
    target: str | None
    effect: EffectGivenRead | None
    rounds_left: int


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


class ActionRead(BaseModel):
    tick: int
    actor: str
    seq: int
    type: ActionType
    name: str | None = None
    target: str | None
    score: int
    technical_actions: int
    roll: int | None
    target_number: int | None
    hit: bool | None
    margin: int | None
    damage_rolls: list[int] | None
    blow: int | None
    effective: int | None
    wound: str | None
    result: Result


class BleedingRead(BaseModel):
    combatant: str
    lost: int
    blood: int
    status: Status


class CombatantStateRead(BaseModel):
    id: str
    status: Status
    blood: int
    weapon_ready: bool
    penalty: int
    wounds: list[WoundRead]
    effects: list[EffectRead] = []
    long_action: LongActionRead | None = None


class RoundRead(BaseModel):
    """The round document: what POST returns and GET returns again, identical."""

    round: int
    turn: int
    ends_turn: bool
    seed: int
    dice: dict[str, int | list[int]]
    actions: list[ActionRead]
    bleeding: list[BleedingRead]
    combatants: list[CombatantStateRead]
