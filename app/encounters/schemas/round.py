"""Round bodies: declarations, dice and seed (persisted), plus the full state for /v1/resolve."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.config import JsonDict

from app.encounters.schemas.encounter import CombatantStats, EffectGivenIn, EffectRead, LongActionRead
from app.resolver import bounds
from app.resolver.dice import SEED_BOUNDS
from app.resolver.model import Result, Status
from app.vocabulary.ruleset import ActionType, WoundRead
from app.vocabulary.stat_block import RulesOverrides
from app.vocabulary.types import Bool, Id, Input, JSONInt, Name, within

# Exactly one of target and targets, as the validator below insists: said in the schema too, so that
# generated data and validators know a body with both, or with neither (absent or null), is refused.
# As `not` rather than a oneOf of two shapes: openapi-python-client would make those two classes without
# the `type` field.
ONE_OF_TARGET_OR_TARGETS: JsonDict = {
    "not": {
        "anyOf": [
            {
                "required": ["target", "targets"],
                "properties": {"target": {"type": "string"}, "targets": {"type": "array"}},
            },
            {"properties": {"target": {"type": "null"}, "targets": {"type": "null"}}},
        ]
    }
}


class AttackAction(Input):
    model_config = ConfigDict(json_schema_extra=ONE_OF_TARGET_OR_TARGETS)

    type: Literal["attack"]
    targets: Annotated[list[Id], Field(min_length=1, max_length=bounds.ATTACKS_PER_ROUND[1])] | None = None
    target: Id | None = Field(default=None, description="Short for targets: [target].")

    @model_validator(mode="after")
    def _one_of_target_or_targets(self) -> AttackAction:
        if (self.targets is None) == (self.target is None):
            raise ValueError("give either targets (a list) or target (one id)")
        return self

    @property
    def target_list(self) -> list[str]:
        if self.targets is not None:
            return self.targets
        assert self.target is not None  # the validator above requires one of the two
        return [self.target]


class FirstAidAction(Input):
    type: Literal["first_aid"]
    target: Id


class CustomAction(Input):
    type: Literal["custom"]
    name: Name
    delay: Annotated[JSONInt, within(bounds.DELAY)]
    rounds: Annotated[JSONInt, within(bounds.CUSTOM_ROUNDS)] = Field(
        default=1, description="Rounds it takes; above 1 a long action (docs/rules.md: Long actions)."
    )
    target: Id | None = Field(default=None, description="A combatant that is not dead; omitted: the actor itself.")
    effect: EffectGivenIn | None = Field(default=None, description="Given to the target when the action completes.")


class ContinueAction(Input):
    """Go on with the long action the combatant carries."""

    type: Literal["continue"]


class NoAction(Input):
    type: Literal["none"]


Action = Annotated[
    AttackAction | FirstAidAction | CustomAction | ContinueAction | NoAction, Field(discriminator="type")
]


class DeclarationIn(Input):
    combatant: Id
    stance: Id | None = Field(
        default=None, description="offensive, balanced or defensive (or a ruleset's own); none given: balanced."
    )
    action: Action | None = Field(
        default=None, description="Omitted: continue the long action the combatant carries, else none."
    )
    technical_actions: Annotated[JSONInt, within(bounds.TECHNICAL_ACTIONS)] = 0
    hold: Id | None = Field(
        default=None,
        description="Holding (docs/rules.md): this first action never resolves before the first action of the "
        "combatant named here, nor in the same tick (attack, first_aid or custom only).",
    )


DieValue = (
    Annotated[JSONInt, within((-1000, 1000))]
    | Annotated[list[Annotated[JSONInt, within((-1000, 1000))]], Field(min_length=1, max_length=20)]
)
Dice = Annotated[
    dict[Annotated[str, Field(max_length=100)], DieValue],
    Field(
        max_length=bounds.MAX_DECLARATIONS * 12,
        description="Dice rolled by the client, by key: <id>.initiative.<k>, <id>.attack.<k>, "
        "<id>.damage.<k> (a list, one value per damage die), and group:<group>.initiative.1 (the delay die a "
        "group's members share for their first actions). Missing dice are rolled from seed.",
    ),
]
Seed = Annotated[
    Annotated[JSONInt, within(SEED_BOUNDS)],
    Field(description="Seed for the dice not given; omitted: the server picks."),
]

ROUND_EXAMPLE: JsonDict = {
    "declarations": [
        {"combatant": "ala", "stance": "offensive", "action": {"type": "attack", "targets": ["bolek"]}},
        {"combatant": "bolek", "stance": "defensive", "action": {"type": "attack", "target": "ala"}},
    ],
    "dice": {"ala.initiative.1": 4, "ala.attack.1": 7, "ala.damage.1": [5]},
    "seed": 12345,
}


# A long action (docs/rules.md: Long actions): Czarek starts a three-round ward on Ala; in the next two rounds a
# declaration without an action (or {"type": "continue"}) goes on with it, and when it completes Ala carries
# the effect "warded" (id "<round>:czarek") for five rounds more.
LONG_ACTION_EXAMPLE: JsonDict = {
    "declarations": [
        {"combatant": "ala", "action": {"type": "attack", "target": "bolek"}},
        {
            "combatant": "czarek",
            "action": {
                "type": "custom",
                "name": "ward",
                "delay": 4,
                "rounds": 3,
                "target": "ala",
                "effect": {"name": "warded", "defense": 4, "rounds": 5},
            },
        },
    ],
    "seed": 12345,
}


class RoundCreate(Input):
    model_config = ConfigDict(json_schema_extra={"examples": [ROUND_EXAMPLE, LONG_ACTION_EXAMPLE]})

    declarations: Annotated[list[DeclarationIn], Field(max_length=bounds.MAX_DECLARATIONS)] = []
    dice: Dice = {}
    seed: Seed | None = None


class CombatantInRequest(CombatantStats):
    """A combatant's full state. The service's own fields of a read (hidden, character, creature) are
    accepted and ignored, so that an encounter's combatants can be sent back as they were read."""

    id: Id
    hidden: Bool | None = Field(default=None, description="Ignored here (a stored combatant's field).")
    character: Id | None = Field(default=None, description="Ignored here (a stored combatant's field).")
    creature: Id | None = Field(default=None, description="Ignored here (a stored combatant's field).")


class ResolveRequest(RoundCreate):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "round": 1,
                    "rules": {"delay_die": 10},
                    "combatants": [
                        {"id": "ala", "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"},
                        {
                            "id": "bolek",
                            "initiative": 20,
                            "attack": 14,
                            "defense": 4,
                            "weapon": "short_sword",
                            "wounds": [{"class": "light"}],
                        },
                    ],
                    **ROUND_EXAMPLE,
                }
            ]
        }
    )

    round: Annotated[JSONInt, within(bounds.ROUND)] = 1
    rules: RulesOverrides = {}
    combatants: Annotated[list[CombatantInRequest], Field(max_length=bounds.MAX_COMBATANTS)]


class ActionRead(BaseModel):
    tick: int
    actor: str
    seq: int
    type: ActionType
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
    name: str | None = Field(description="custom and continue entries: the action's name.")
    held: bool = Field(description="True only on a first action that a hold moved (docs/rules.md: Holding and groups).")
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
    effects: list[EffectRead] = Field(description="As they stand after the round.")
    long_action: LongActionRead | None


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
