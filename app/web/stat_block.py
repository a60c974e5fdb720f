"""A stat block's fields (RULES.md section 2) as request types: shared by combatants, characters and
creatures, so each is declared once. Bounds are CONTRACT.md's (app.resolver.bounds)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from app.resolver import bounds
from app.web.schemas import Id, Input, JSONInt, Name, within

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
    Id, Field(description="Its group (RULES.md section 14): members share one delay die for their first actions.")
]
