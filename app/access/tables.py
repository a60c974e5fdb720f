"""Campaigns (a game master's account) and the credentials that open them: keys and scoped tokens.

Only a SHA-256 of a credential's secret is stored: secrets are 256 random bits, so a fast hash is enough
(no password stretching needed) and a database dump reveals nothing usable.
"""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Integer, String, Table

from app.platform.db import JSONDocument, UTCDateTime, metadata, utcnow

CAMPAIGNS = Table(
    "campaigns",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("name", String(100), nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    # House rules (app/campaign): partial ruleset overrides each new encounter starts from.
    Column("rules", JSONDocument, nullable=False, default=dict, server_default="{}"),
    Column("version", Integer, nullable=False, default=1, server_default="1"),  # the campaign's ETag
)

# A campaign key (role owner) or a token scoped to one encounter (viewer) or one combatant (player).
CREDENTIALS = Table(
    "credentials",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("secret_hash", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),  # owner | viewer | player
    # The encounters table belongs to a domain above: named by string, never imported.
    Column("encounter_id", ForeignKey("encounters.id", ondelete="CASCADE"), index=True),
    Column("combatant_id", String(36)),
    # A player token bound to a roster character: it follows the character into whichever fight it is in.
    # The characters table belongs to a domain above: named by string, never imported.
    Column("character_id", ForeignKey("characters.id", ondelete="CASCADE"), index=True),
    Column("label", String(100)),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("revoked_at", UTCDateTime),
)
