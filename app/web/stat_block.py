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


class NameForms(Input):
    """A name's Polish forms for the chronicle, each winning over the dictionary (all optional)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"gen": "Gandalfa", "dat": "Gandalfowi", "acc": "Gandalfa"}]}
    )

    gen: Name | None = Field(default=None, description="Dopełniacz (kogo? czego?): Ali, Bolka.")
    dat: Name | None = Field(default=None, description="Celownik (komu? czemu?): Ali, Bolkowi.")
    acc: Name | None = Field(default=None, description="Biernik (kogo? co?): Alę, Bolka.")
    inst: Name | None = Field(default=None, description="Narzędnik (z kim? z czym?): Alą, Bolkiem.")
    loc: Name | None = Field(default=None, description="Miejscownik (o kim? o czym?): Ali, Bolku.")


NameFormsIn = Annotated[
    NameForms,
    Field(
        description="The name's Polish forms for the chronicle ({gen, dat, acc, inst, loc}, each 1..100 "
        "characters, all optional): they win over the dictionary. A numbered copy's number is added to a "
        "form that lacks it."
    ),
]


def name_forms_value(forms: NameForms | None) -> dict[str, str] | None:
    """The forms as stored: only those given, or None."""
    if forms is None:
        return None
    given = forms.model_dump(exclude_none=True)
    return given or None


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
