"""Campaign, key and token bodies."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.vocabulary.types import Id, Input, Name


class CampaignCreate(Input):
    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "Cienie nad Wisłą"}]})

    name: Name


class CampaignRead(BaseModel):
    id: str
    name: str
    created_at: datetime
    rules: dict[str, Any] = Field(
        description="The house rules: partial ruleset overrides every new encounter starts from (PATCH /v1/campaign)."
    )
    version: int = Field(description="Moves with every change of the house rules; the ETag.")


class CredentialRead(BaseModel):
    """A key or token as listed: never its secret."""

    id: str
    role: Literal["owner", "viewer", "player"]
    encounter_id: str | None
    combatant_id: str | None
    character_id: str | None = Field(
        default=None, description="A player token bound to a roster character: it follows it into its fights."
    )
    label: str | None
    created_at: datetime
    revoked_at: datetime | None


class CredentialCreated(CredentialRead):
    secret: str = Field(description="The key or token itself. It is shown this once and never again: keep it.")


class CampaignCreated(CampaignRead):
    key: CredentialCreated = Field(description="The campaign's owner key (send it as Authorization: Bearer).")


class KeyCreate(Input):
    model_config = ConfigDict(json_schema_extra={"examples": [{"label": "GM's tablet"}]})

    label: Name | None = None


class TokenCreate(Input):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"role": "viewer", "label": "table screen"},
                {"role": "player", "combatant": "5b3c8f0e-0a8e-4c1e-9a57-0f0b8d7a1c11", "label": "Ala's phone"},
            ]
        }
    )

    role: Literal["viewer", "player"]
    combatant: Id | None = Field(default=None, description="The combatant a player token is bound to.")
    label: Name | None = None
