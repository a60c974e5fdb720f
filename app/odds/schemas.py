"""Odds bodies: how many fights of how many rounds, with which seed; the full state for /v1/odds."""

from __future__ import annotations

from typing import Annotated

from fastapi.openapi.models import Example
from pydantic import BaseModel, Field

from app.encounters.schemas.round import CombatantInRequest, Seed
from app.resolver import bounds
from app.vocabulary.stat_block import RulesOverrides
from app.vocabulary.types import Input, JSONInt, within

FIGHTS = (1, 10_000)
MAX_ROUNDS = (1, 200)


class OddsCreate(Input):
    fights: Annotated[JSONInt, within(FIGHTS), Field(description="How many fights to play.")] = 1000
    max_rounds: Annotated[
        JSONInt, within(MAX_ROUNDS), Field(description="A fight still undecided after this many rounds is a draw.")
    ] = 50
    seed: Seed | None = None


class OddsRequest(OddsCreate):
    """A full state as /v1/resolve takes it; each combatant's `side` says who fights with whom."""

    round: Annotated[
        JSONInt, within(bounds.ROUND), Field(description="The number of the first round played (turn ends bleed).")
    ] = 1
    rules: RulesOverrides = {}
    combatants: Annotated[list[CombatantInRequest], Field(max_length=bounds.MAX_COMBATANTS)]


class SideOdds(BaseModel):
    side: str
    wins: float = Field(description="Share of the fights this side won (the only side with anyone active at the end).")
    low: float = Field(description="Lower end of the 95% Wilson interval of `wins`.")
    high: float = Field(description="Upper end of the 95% Wilson interval of `wins`.")


class CombatantOdds(BaseModel):
    id: str
    side: str
    dead: float = Field(description="Share of the fights it ended dead.")
    unconscious: float = Field(description="Share of the fights it ended unconscious.")


class RoundsOdds(BaseModel):
    median: int
    p90: int


class OddsRead(BaseModel):
    fights: int
    seed: int = Field(description="The seed used: send it again to get the same answer.")
    sides: list[SideOdds]
    draws: float = Field(description="Share of fights with no one active, or several sides active at max_rounds.")
    combatants: list[CombatantOdds]
    rounds: RoundsOdds = Field(description="Rounds the fights lasted (nearest rank).")


_PARTY = [
    {"id": "ala", "side": "party", "initiative": 20, "attack": 14, "defense": 5, "weapon": "long_sword", "armor": 3},
    {"id": "bolek", "side": "party", "initiative": 18, "attack": 13, "defense": 4, "weapon": "spear", "armor": 1},
]
_BANDITS = [
    {"id": f"bandit{i}", "side": "bandits", "initiative": 15, "attack": 11, "defense": 3, "weapon": "short_sword"}
    for i in (1, 2, 3)
]
ODDS_EXAMPLES = {
    "party_against_bandits": Example(
        summary="Two fighters against three bandits",
        description="1,000 fights of at most 50 rounds; the same seed gives the same answer.",
        value={"fights": 1000, "max_rounds": 50, "seed": 7, "combatants": _PARTY + _BANDITS},
    ),
    "wounded_duel": Example(
        summary="A duel in which one fighter is already badly hurt",
        value={
            "fights": 2000,
            "seed": 12345,
            "combatants": [
                {
                    "id": "ala",
                    "initiative": 20,
                    "attack": 14,
                    "defense": 4,
                    "weapon": "long_sword",
                    "wounds": [{"class": "severe"}],
                    "blood": 4,
                },
                {"id": "bolek", "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword"},
            ],
        },
    ),
}
ENCOUNTER_ODDS_EXAMPLES = {
    "default": Example(
        summary="1,000 fights from the encounter's state", value={"fights": 1000, "max_rounds": 50, "seed": 7}
    ),
}
