"""Encounter and combatant bodies, named by role. Bounds are app.resolver.bounds'."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator
from pydantic.config import JsonDict

from app.resolver import bounds
from app.vocabulary.ruleset import InlineWeaponRead, RulesetRead, WoundRead
from app.vocabulary.stat_block import RulesOverrides, Side, StatBlockFields, StatBlockPatch, Status, refuse_null
from app.vocabulary.types import Bool, Id, Input, JSONInt, Name, within

CREATURE_COPIES = (1, 20)  # copies of a creature in one request
Modifier = Annotated[JSONInt, within(bounds.EFFECT_MODIFIER)]


class EffectModifiers(Input):
    """What an effect changes while it is active (docs/rules.md: Effects)."""

    name: Name
    attack: Modifier = 0
    defense: Modifier = 0
    initiative: Modifier = 0
    blood_per_turn: Modifier = Field(default=0, description="Lost at every turn end; negative regains.")


class EffectIn(EffectModifiers):
    id: Id | None = Field(default=None, description="Omitted: the service names the effect.")
    until_round: Annotated[JSONInt, within(bounds.UNTIL_ROUND)] | None = Field(
        default=None, description="The last round in which it is active; null: until removed."
    )


class EffectCreate(EffectModifiers):
    """POST .../effects: at most one of `rounds` and `turns`; neither: until removed."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"name": "poisoned", "blood_per_turn": 1, "turns": 1},
                {"name": "stunned", "attack": -4, "defense": -2, "rounds": 2},
            ]
        }
    )

    rounds: Annotated[JSONInt, within(bounds.EFFECT_ROUNDS)] | None = Field(
        default=None, description="Active for this many full rounds after the encounter's latest round."
    )
    turns: Annotated[JSONInt, within(bounds.EFFECT_TURNS)] | None = Field(
        default=None, description="Active for this many turns: turns x the ruleset's turn_length rounds."
    )

    @model_validator(mode="after")
    def _at_most_one_duration(self) -> EffectCreate:
        if self.rounds is not None and self.turns is not None:
            raise ValueError("give rounds or turns, not both (neither: until removed)")
        return self


class EffectGivenIn(EffectModifiers):
    """The effect a custom action gives its target when it completes (docs/rules.md: Long actions)."""

    rounds: Annotated[JSONInt, within(bounds.EFFECT_ROUNDS)] | None = Field(
        default=None, description="Active for this many rounds after the one it completes in; null: until removed."
    )


class LongActionIn(Input):
    """A custom action in progress (docs/rules.md: Long actions)."""

    name: Name
    delay: Annotated[JSONInt, within(bounds.DELAY)]
    target: Id | None = Field(default=None, description="null: the actor itself.")
    effect: EffectGivenIn | None = None
    rounds_left: Annotated[JSONInt, within(bounds.ROUNDS_LEFT)]


class EffectRead(BaseModel):
    id: str | None
    name: str
    attack: int
    defense: int
    initiative: int
    blood_per_turn: int
    until_round: int | None


class EffectGivenRead(BaseModel):
    name: str
    attack: int
    defense: int
    initiative: int
    blood_per_turn: int
    rounds: int | None


class LongActionRead(BaseModel):
    name: str
    delay: int
    target: str | None
    effect: EffectGivenRead | None
    rounds_left: int


Hidden = Annotated[
    Bool,
    Field(description="Hidden from player and viewer tokens until it acts or is targeted (the campaign's key only)."),
]


class CombatantStats(StatBlockFields):
    """A combatant's stat block (docs/rules.md, "Combatants"), its name and side, effects and long action."""

    name: Name | None = None
    side: Side | None = None
    effects: Annotated[list[EffectIn], Field(max_length=bounds.MAX_EFFECTS)] = []
    long_action: LongActionIn | None = None


class CombatantFields(CombatantStats):
    """A stored combatant's fields: its stats, and whether the players' screens see it."""

    hidden: Hidden = False


COMBATANT_EXAMPLE: JsonDict = {
    "name": "Ala",
    "initiative": 20,
    "attack": 14,
    "defense": 4,
    "weapon": "long_sword",
    "armor": 1,
}


class CombatantCreate(CombatantFields):
    """A combatant given in full."""

    model_config = ConfigDict(json_schema_extra={"examples": [COMBATANT_EXAMPLE]})


class CharacterJoin(Input):
    """A character of the roster joins the fight linked: its current fields, its wounds back at the finish."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"character": "6f1c2a9e-0d4b-4b8e-9a51-2c7e0f3d8b14"}]})

    character: Id
    side: Side | None = Field(default=None, description="Overrides the character's side; null: the character's.")
    hidden: Hidden = False


class CreatureJoin(Input):
    """`count` copies of a creature of the bestiary, numbered when more than one or the name is taken."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"creature": "0b8d7e52-3c1a-4f6e-8d29-5a4b1c0e7f36", "count": 3}]}
    )

    creature: Id
    count: Annotated[JSONInt, within(CREATURE_COPIES)] = 1
    side: Side | None = Field(default=None, description="Overrides the creature's side; null: the creature's.")
    hidden: Hidden = False


def _shape_meant(value: Any) -> str:
    """Which body the client meant, by its key: `character` or `creature` name theirs, anything else is a
    full combatant. A typo then answers with the errors of that one shape, not of all three."""
    keys = value.keys() if isinstance(value, dict) else vars(value) if hasattr(value, "__dict__") else ()
    if "character" in keys:
        return "CharacterJoin"
    if "creature" in keys:
        return "CreatureJoin"
    return "CombatantCreate"


# Tags named as the classes: never a key of a body, so an error's pointer leaves them out.
CombatantJoin = Annotated[
    Annotated[CombatantCreate, Tag("CombatantCreate")] | Annotated[CharacterJoin, Tag("CharacterJoin")]
    | Annotated[CreatureJoin, Tag("CreatureJoin")],
    Discriminator(_shape_meant),
    Field(description="A full combatant, or {character} from the roster, or {creature, count} from the bestiary "
          "(the key `character` or `creature` says which)."),
]


class CombatantUpdate(StatBlockPatch):
    """Change between rounds: only the fields sent are changed."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"weapon": "dagger", "weapon_ready": False}]})

    name: Name | None = None
    side: Side | None = Field(default=None, description="null: the combatant is its own side again.")
    hidden: Hidden | None = None
    long_action: None = Field(
        default=None,
        description="Only null: the game master cancels the long action. Effects change through "
        "POST and DELETE .../effects.",
    )

    _not_null = field_validator("hidden")(refuse_null)


class CombatantRead(BaseModel):
    id: str
    name: str | None
    side: str | None
    hidden: bool = Field(description="Hidden from player and viewer tokens (they never see this field).")
    group: str | None
    character: str | None = Field(description="The roster character it is linked to, if any.")
    creature: str | None = Field(description="The bestiary creature it was copied from, if any.")
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
    effects: list[EffectRead]
    long_action: LongActionRead | None
    penalty: int = Field(description="Wound penalty: the sum of the wounds' penalties.")


class CombatantsCreated(BaseModel):
    """The copies of a creature, in the order made."""

    items: list[CombatantRead]


class EncounterCreate(Input):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "name": "Ambush at the ford",
                    "rules": {"delay_die": 10},
                    "combatants": [
                        COMBATANT_EXAMPLE,
                        {"name": "Bolek", "initiative": 18, "attack": 12, "defense": 5, "weapon": "spear"},
                    ],
                },
            ]
        }
    )

    name: Name
    rules: RulesOverrides = {}
    combatants: Annotated[list[CombatantJoin], Field(max_length=bounds.MAX_COMBATANTS)] = []


class AfterRound(Input):
    """A what-if: every combatant as it stood after this round (0: before round 1), never linked."""

    after_round: Annotated[JSONInt, within((0, bounds.ROUND[1])), Field(description="0..the latest round.")]


class EncounterCopy(Input):
    """POST .../copy: the same fight again, from its start (before round 1), from now, or after round k."""

    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {"name": "Ambush at the ford, second group", "from": "start"},
                {"name": "What if Borys had not charged", "from": {"after_round": 3}},
            ]
        },
    )

    name: Name | None = Field(default=None, description="The copy's name; omitted: the original's.")
    start: Literal["start", "now"] | AfterRound = Field(
        default="start",
        alias="from",
        description="start: the combatants as round 1 found them; now: as they are; "
        '{"after_round": k}: a what-if, every combatant as it stood after round k, none linked to the roster.',
    )


class EncounterUpdate(Input):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"name": "Ambush, second wave", "rules": {"delay_die": 8}}]}
    )

    name: Name | None = None
    rules: RulesOverrides | None = None


class EncounterSummary(BaseModel):
    id: str
    name: str
    round: int = Field(description="Rounds resolved so far; the next one is round + 1.")
    version: int
    created_at: datetime
    updated_at: datetime
    finished: bool = Field(description="Finished (POST .../finish): only reads, renaming and deletion go on.")
    finished_at: datetime | None


class EncounterRead(EncounterSummary):
    turn: int = Field(description="The turn the next round belongs to.")
    rules: dict[str, Any] = Field(description="This encounter's overrides.")
    ruleset: RulesetRead = Field(description="The whole ruleset in force: defaults with the overrides applied.")
    combatants: list[CombatantRead]
