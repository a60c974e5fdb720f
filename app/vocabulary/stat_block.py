"""A stat block (docs/rules.md, "Combatants") as request types, declared once: combatants, characters
and creatures compose `StatBlockFields` (a body given in full) and `StatBlockPatch` (a PATCH body) and add
only what is theirs. Bounds are app.resolver.bounds'; the columns are app/vocabulary/columns.py's."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator

from app.resolver import bounds
from app.vocabulary.types import Bool, Id, Input, JSONInt, Name, within

DAMAGE_PATTERN = r"^\d{1,3}d\d{1,4}([+-]\d{1,4})?$"
Status = Literal["active", "unconscious", "dead"]
RulesOverrides = Annotated[
    dict[str, Any],
    Field(description='Partial ruleset overrides (see GET /v1/rules), e.g. {"delay_die": 6}.', max_length=20),
]


class InlineWeapon(Input):
    name: Name
    delay: Annotated[JSONInt, within(bounds.DELAY)]
    damage: Annotated[str, Field(pattern=DAMAGE_PATTERN, max_length=12, examples=["1d8", "2d6+1"])]


Weapon = Annotated[
    Id | InlineWeapon,
    Field(description="An armory key (GET /v1/rules) or an inline profile {name, delay, damage}."),
]


class WoundIn(Input):
    model_config = ConfigDict(populate_by_name=True)

    class_: Annotated[Id, Field(alias="class")]
    penalty: Annotated[JSONInt, within(bounds.WOUND_PENALTY)] | None = None
    bleed: Annotated[JSONInt, within(bounds.WOUND_BLEED)] | None = None


Armor = Annotated[
    Annotated[JSONInt, within(bounds.ARMOR)] | Name,
    Field(
        description="Armor points, or the name of a row of the ruleset's armor table (GET /v1/rules), e.g. "
        '"leather": it counts for that row\'s points when a round is resolved, and reads back as given.'
    ),
]
Wounds = Annotated[list[WoundIn], Field(max_length=bounds.MAX_WOUNDS)]
Side = Annotated[Id, Field(description="The side it fights for (odds); none: every such combatant is its own side.")]
Group = Annotated[
    Id,
    Field(description='Its group (docs/rules.md, "Groups"): members share one delay die for their first actions.'),
]
Initiative = Annotated[JSONInt, within(bounds.INITIATIVE)]
Attack = Annotated[JSONInt, within(bounds.ATTACK)]
Defense = Annotated[JSONInt, within(bounds.DEFENSE)]
AttacksPerRound = Annotated[JSONInt, within(bounds.ATTACKS_PER_ROUND)]
DamageBonus = Annotated[JSONInt, within(bounds.DAMAGE_BONUS)]
Toughness = Annotated[JSONInt, within(bounds.TOUGHNESS)]
Vitality = Annotated[JSONInt, within(bounds.VITALITY)]
Blood = Annotated[JSONInt, within(bounds.BLOOD)]
BLOOD_DEFAULT = "Blood left; defaults to vitality."


class StatBlockFields(Input):
    """The fields every stat block carries, with their defaults."""

    initiative: Initiative
    attack: Attack
    defense: Defense
    weapon: Weapon
    attacks_per_round: AttacksPerRound = 1
    weapon_ready: Bool = True
    damage_bonus: DamageBonus = 0
    armor: Armor = 0
    toughness: Toughness = 0
    vitality: Vitality = 10
    blood: Blood | None = Field(default=None, description=BLOOD_DEFAULT)
    status: Status = "active"
    wounds: Wounds = Field(
        default=[], description="Each names a wound class of the ruleset; penalty and bleed are filled in."
    )
    group: Group | None = None


# In a PATCH, null means something only where the field may be absent: blood back to full (vitality),
# no group. Every other stat refuses it: leave the field out to keep it.
NULL_MEANS_DEFAULT = frozenset({"blood", "group"})
NOT_NULL = tuple(name for name in StatBlockFields.model_fields if name not in NULL_MEANS_DEFAULT)


def refuse_null(value: Any) -> Any:
    """A PATCH field sent as null where null means nothing: a 422 naming the field."""
    if value is None:
        raise ValueError("may not be null: leave the field out to keep it")
    return value


class StatBlockPatch(Input):
    """`StatBlockFields`, each optional: only the fields sent change (tests/api/test_fields.py keeps the two
    in step)."""

    initiative: Initiative | None = None
    attack: Attack | None = None
    defense: Defense | None = None
    weapon: Weapon | None = None
    attacks_per_round: AttacksPerRound | None = None
    weapon_ready: Bool | None = None
    damage_bonus: DamageBonus | None = None
    armor: Armor | None = None
    toughness: Toughness | None = None
    vitality: Vitality | None = None
    blood: Blood | None = Field(default=None, description="null: back to full (vitality).")
    status: Status | None = None
    wounds: Wounds | None = None
    group: Group | None = Field(default=None, description="null: in no group.")

    _stats_not_null = field_validator(*NOT_NULL)(refuse_null)
