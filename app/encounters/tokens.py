"""An encounter's viewer and player tokens: the encounter and combatant are checked here (this domain
knows them), the credential itself is issued by access."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.access import service as access
from app.access.schemas import CredentialCreated, CredentialRead, TokenCreate
from app.access.service import Principal
from app.encounters import store
from app.platform.errors import Conflict, Unprocessable


async def create(session: AsyncSession, *, campaign_id: str, encounter_id: str, data: TokenCreate) -> CredentialCreated:
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id)
    if data.role == "player":
        if any(row["id"] == data.combatant and row["hidden"] for row in encounter.combatants):
            raise Conflict(f"Combatant {data.combatant} is hidden: reveal it before its player gets a token.")
        if data.combatant is None or all(row["id"] != data.combatant for row in encounter.combatants):
            raise Unprocessable(
                "A player token names a combatant of this encounter (combatant).",
                errors=[{"in": "body", "pointer": "/combatant", "detail": "must be a combatant of this encounter"}],
            )
    elif data.combatant is not None:
        raise Unprocessable(
            "Only a player token is bound to a combatant.",
            errors=[{"in": "body", "pointer": "/combatant", "detail": "only for role player"}],
        )
    return await access.issue(
        session,
        campaign_id,
        data.role,
        encounter_id=encounter_id,
        combatant_id=data.combatant,
        label=data.label,
    )


async def list_for(*, session: AsyncSession, principal: Principal, encounter_id: str) -> list[CredentialRead]:
    async with session.begin():
        await store.load(
            session, campaign_id=principal.campaign_id, encounter_id=encounter_id
        )  # 404 unless the campaign's
    return await access.list_credentials(session=session, principal=principal, encounter_id=encounter_id)
