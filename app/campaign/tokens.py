"""Player tokens bound to a roster character: one code per campaign, not one per fight. In whichever
unfinished fight the character is linked, the token is that combatant's player token; outside a fight it
reads only its character (app/access/auth.py resolves it on every request)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.access import service as access
from app.access.schemas import CredentialCreated
from app.campaign import repository


async def create(session: AsyncSession, *, campaign_id: str, character_id: str, label: str | None) -> CredentialCreated:
    await repository.character(session, campaign_id=campaign_id, character_id=character_id)  # 404 unless ours
    return await access.issue(session, campaign_id, "player", character_id=character_id, label=label)
