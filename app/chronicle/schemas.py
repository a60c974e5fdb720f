"""The chronicle's typed forms (the JSON and Discord ones; Markdown and text are strings)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Kind = Literal[
    "attack",
    "first_aid",
    "custom",
    "continue",
    "stances",
    "down",
    "bleeding",
    "effects_ended",
    "long_action_lost",
    "turning_point",
]


class ChronicleLine(BaseModel):
    tick: int | None = Field(description="The action's tick; null for the round's other lines.")
    kind: Kind = Field(description="The action's type, or what else the line tells.")
    actor: str | None = Field(description="Who acts (or falls, bleeds, loses an effect): a combatant id.")
    target: str | None = Field(description="The action's target; for `down`, whose wound forced the fall.")
    result: str | None = Field(description="The action's result; for `down` and `bleeding` the status left.")
    text: str = Field(description="The line, as a person would tell it.")


class ChronicleRound(BaseModel):
    round: int
    turn: int
    ends_turn: bool
    title: str = Field(description="'Runda 3 (tura 1)' or 'Round 3 (turn 1)'.")
    lines: list[ChronicleLine]


class ChronicleRead(BaseModel):
    encounter: str
    lang: Literal["pl", "en"]
    rounds: list[ChronicleRound]


class DiscordEmbed(BaseModel):
    title: str = Field(max_length=256)
    description: str | None = Field(default=None, max_length=4096)
    color: int = Field(description="Follows the gravest thing in the round: a death, a fall, a wound, a miss.")


class AllowedMentions(BaseModel):
    parse: list[str] = Field(description="Always empty: a name never pings anyone.")


class DiscordMessage(BaseModel):
    """A Discord webhook message body, within Discord's limits: at most 10 embeds and 6,000 characters of
    embed text."""

    embeds: list[DiscordEmbed] = Field(min_length=1, max_length=10)
    allowed_mentions: AllowedMentions
