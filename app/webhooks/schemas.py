"""Webhook subscriptions and their delivery log, as the API reads and takes them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.vocabulary.stat_block import refuse_null
from app.vocabulary.types import Bool, Id, Input

EventType = Literal[
    "round.resolved",
    "round.undone",
    "turn.ended",
    "combatant.down",
    "encounter.finished",
    "encounter.reopened",
    "declarations.complete",
    "declarations.due",
    "ping",
]
Scope = Literal["gm", "table"]
Lang = Literal["pl", "en"]
Url = Annotated[str, Field(min_length=1, max_length=4096, description="https://… (or a Discord webhook URL)")]
Events = Annotated[list[EventType], Field(min_length=1, max_length=16)]
Description = Annotated[str, Field(max_length=200)]

CREATE_EXAMPLE: dict[str, Any] = {
    "url": "https://bot.example.org/hooks/combat",
    "events": ["round.resolved", "round.undone", "combatant.down"],
    "scope": "table",
    "lang": "en",
}


class WebhookCreate(Input):
    model_config = ConfigDict(json_schema_extra={"examples": [CREATE_EXAMPLE]})

    url: Url
    events: Events | None = Field(default=None, description="The event types to send; none: all of them.")
    scope: Scope = Field(default="table", description="gm: what the owner reads; table: what a viewer token reads.")
    format: Literal["standard", "discord"] = "standard"
    lang: Lang = "en"
    encounter: Id | None = Field(default=None, description="Only this encounter's events; none: every encounter's.")
    description: Description | None = None


class WebhookUpdate(Input):
    url: Url | None = None
    events: Events | None = None
    scope: Scope | None = None
    lang: Lang | None = None
    enabled: Bool | None = Field(default=None, description="true resumes a disabled subscription.")
    description: Description | None = Field(default=None, description="null: no description.")

    _not_null = field_validator("url", "events", "scope", "lang", "enabled")(refuse_null)


class WebhookRead(BaseModel):
    id: str
    url: str
    events: list[EventType]
    scope: Scope
    format: Literal["standard", "discord"]
    lang: Lang
    encounter: str | None
    description: str | None
    enabled: bool
    disabled_reason: str | None
    version: int
    created_at: datetime
    updated_at: datetime


class WebhookCreated(WebhookRead):
    secret: str | None = Field(description="whsec_…: verifies the signatures; shown once (standard format only).")


class LastAttempt(BaseModel):
    at: datetime
    status_code: int | None = None
    error: str | None = None
    ms: int


class DeliveryRead(BaseModel):
    id: str = Field(description="The event's webhook-id, the same on every attempt.")
    type: EventType
    encounter: str | None
    created_at: datetime
    status: Literal["pending", "delivered", "given_up"]
    attempts: int
    last_attempt: LastAttempt | None
    next_attempt_at: datetime | None
