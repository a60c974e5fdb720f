"""What the statistics and the odds timeline answer (CONTRACT.md, "Statistics, the odds timeline, what-if")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.odds.schemas import SideOdds

Tally = dict[str, int]


class BloodRead(BaseModel):
    start: int = Field(description="Blood before its first round.")
    end: int = Field(description="Blood after its last round.")
    lost_to_bleeding: int = Field(description="Blood lost at the ends of turns (wounds' bleeding, effects).")
    regained: int = Field(description="Blood regained at the ends of turns.")


class DownRead(BaseModel):
    status: Literal["unconscious", "dead"]
    round: int
    tick: int | None = Field(description="The tick of the wound that forced it; null when a turn's bleeding did.")
    by: str = Field(description='The actor of that wound, or "bleeding".')


class Counts(BaseModel):
    actions: Tally = Field(description="Action entries by type.")
    attacks: int = Field(description="Attacks that rolled their d20.")
    hits: int
    misses: int
    natural_hits: int
    natural_misses: int
    deflected: int = Field(description="Hits that left no wound (armor and toughness took the blow).")
    wounds_dealt: Tally = Field(description="By wound class.")
    wounds_taken: Tally = Field(description="By wound class.")
    first_aid_given: int
    technical_actions: int = Field(description="Summed over its action entries.")
    held: int = Field(description="First actions a hold moved.")
    stances: Tally = Field(description="Rounds per stance declared while active (none declared: balanced).")
    blood: BloodRead


class CombatantStatsRead(Counts):
    combatant: str
    name: str | None
    side: str = Field(description="Its side; its own id when it has none.")
    down: DownRead | None = Field(description="The first time it left `active`, or null.")


class SideStatsRead(Counts):
    side: str
    combatants: list[str]
    down: int = Field(description="Its combatants that left `active`.")


class SeriesPoint(BaseModel):
    combatant: str
    blood: int
    status: str


class SeriesRound(BaseModel):
    round: int = Field(description="0: before round 1.")
    combatants: list[SeriesPoint]


class EncounterStatsRead(BaseModel):
    encounter: str
    rounds: int
    combatants: list[CombatantStatsRead]
    sides: list[SideStatsRead]
    series: list[SeriesRound] = Field(description="For k = 0..latest round: each combatant after round k.")


class Totals(BaseModel):
    fights: int
    rounds: int
    attacks: int
    hits: int
    wounds_dealt: Tally
    wounds_taken: Tally
    times_down: int = Field(description="Fights that took it out of `active`.")
    downed: int = Field(description="Combatants its wounds took out of `active`.")


class CharacterStatsRead(Totals):
    character: str
    name: str


class CreatureStatsRead(Totals):
    creature: str
    name: str
    copies: int


class CampaignStatsRead(BaseModel):
    characters: list[CharacterStatsRead] = Field(description="Over the finished fights each fought in linked.")
    creatures: list[CreatureStatsRead] = Field(description="Over every combatant copied from each.")


class TimelinePoint(BaseModel):
    round: int = Field(description="k: the fight played forward from the state after round k (0: before round 1).")
    fights: int
    seed: int
    sides: list[SideOdds]
    draws: float


class TurningPointRead(BaseModel):
    round: int
    side: str
    before: float = Field(description="The side's `wins` at round k−1.")
    after: float = Field(description="The side's `wins` at round k.")
    actions: list[str] = Field(
        description="Ids of round k's actions that wounded or downed someone: `<round>.<index in its actions>`."
    )


class TimelineRead(BaseModel):
    encounter: str
    fights: int
    max_rounds: int
    points: list[TimelinePoint]
    turning_points: list[TurningPointRead]
