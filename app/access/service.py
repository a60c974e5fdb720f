"""Campaigns, their keys and scoped tokens: create, authenticate, rotate, revoke.

Tokens are issued by the encounters domain (it checks the encounter and combatant), through `issue`.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass, replace

from sqlalchemy import bindparam, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.schemas import CampaignCreated, CampaignRead, CredentialCreated, CredentialRead
from app.access.tables import CAMPAIGNS, CREDENTIALS
from app.platform.db import Database, utcnow
from app.platform.errors import Conflict, NotFound

SECRET_PREFIX = {"owner": "dzc_key_", "viewer": "dzc_view_", "player": "dzc_play_"}


@dataclass(frozen=True)
class Principal:
    """Who is calling: a campaign's owner, or a token scoped to one encounter (and one combatant)."""

    credential_id: str
    campaign_id: str
    role: str
    encounter_id: str | None = None
    combatant_id: str | None = None
    character_id: str | None = None  # a character-bound player token (its fight is looked up per request)

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def issue(
    session: AsyncSession,
    campaign_id: str,
    role: str,
    *,
    encounter_id: str | None = None,
    combatant_id: str | None = None,
    character_id: str | None = None,
    label: str | None = None,
) -> CredentialCreated:
    """A new credential, added to the caller's transaction; its secret is in the result, never stored."""
    secret = SECRET_PREFIX[role] + secrets.token_urlsafe(32)  # 256 random bits
    credential = {
        "id": str(uuid.uuid4()),
        "campaign_id": campaign_id,
        "secret_hash": hash_secret(secret),
        "role": role,
        "encounter_id": encounter_id,
        "combatant_id": combatant_id,
        "character_id": character_id,
        "label": label,
        "created_at": utcnow(),
    }
    await session.execute(insert(CREDENTIALS).values(**credential))
    listed = CredentialRead.model_validate({**credential, "revoked_at": None})
    return CredentialCreated(**listed.model_dump(), secret=secret)


C = CREDENTIALS.c
AUTHENTICATE = select(C.id, C.campaign_id, C.role, C.encounter_id, C.combatant_id, C.character_id).where(
    C.secret_hash == bindparam("secret_hash"), C.revoked_at.is_(None)
)


async def authenticate(database: Database, secret_hash: str) -> Principal | None:
    """The active credential whose secret has this hash (see hash_secret)."""
    rows = await database.rows(AUTHENTICATE, {"secret_hash": secret_hash})
    if not rows:
        return None
    found = rows[0]
    return Principal(
        found.id, found.campaign_id, found.role, found.encounter_id, found.combatant_id, found.character_id
    )


# The fight a character is linked into and its combatant there (tables of the domains above, by name).
CHARACTER_IN_FIGHT = text(
    "SELECT characters.encounter_id, combatants.id AS combatant_id FROM characters "
    "LEFT JOIN combatants ON combatants.character_id = characters.id "
    "AND combatants.encounter_id = characters.encounter_id WHERE characters.id = :character_id"
)


async def in_fight(database: Database, principal: Principal) -> Principal:
    """A character-bound token as the player token of its character's combatant in the unfinished fight it
    is linked into now (or of no encounter, outside a fight). Looked up on every request, not cached: the
    link changes as the character joins and leaves fights."""
    if principal.character_id is None:
        return principal
    rows = await database.rows(CHARACTER_IN_FIGHT, {"character_id": principal.character_id})
    encounter_id, combatant_id = (rows[0].encounter_id, rows[0].combatant_id) if rows else (None, None)
    return replace(principal, encounter_id=encounter_id, combatant_id=combatant_id)


async def has_player_token(session: AsyncSession, combatant_id: str) -> bool:
    """Whether an active player token is bound to this combatant."""
    bound = select(C.id).where(C.combatant_id == combatant_id, C.role == "player", C.revoked_at.is_(None)).limit(1)
    return (await session.scalar(bound)) is not None


async def create(session: AsyncSession, *, name: str) -> CampaignCreated:
    """The campaign and its first key (whose secret is in the result, never stored)."""
    campaign_id, created_at = str(uuid.uuid4()), utcnow()
    await session.execute(
        insert(CAMPAIGNS).values(id=campaign_id, name=name, created_at=created_at, rules={}, version=1)
    )
    key = await issue(session, campaign_id, "owner", label="first key")
    return CampaignCreated(id=campaign_id, name=name, created_at=created_at, rules={}, version=1, key=key)


async def get(*, session: AsyncSession, principal: Principal) -> CampaignRead:
    async with session.begin():
        campaign = (await session.execute(select(CAMPAIGNS).where(CAMPAIGNS.c.id == principal.campaign_id))).first()
        if campaign is None:
            raise NotFound("This campaign no longer exists.")
        return CampaignRead.model_validate(campaign._mapping)


async def list_credentials(
    *, session: AsyncSession, principal: Principal, encounter_id: str | None = None
) -> list[CredentialRead]:
    """The campaign's keys and tokens (of one encounter: the caller has checked it is the campaign's)."""
    query = select(CREDENTIALS).where(C.campaign_id == principal.campaign_id)
    if encounter_id is not None:
        query = query.where(C.encounter_id == encounter_id)
    async with session.begin():
        credentials = await session.execute(query.order_by(C.created_at, C.id))
        return [CredentialRead.model_validate(c._mapping) for c in credentials]


async def create_key(
    session: AsyncSession, *, principal: Principal, label: str | None, retire_caller: bool = False
) -> CredentialCreated:
    """A new owner key; with retire_caller, the key that asked is revoked in the same transaction (rotation)."""
    key = await issue(session, principal.campaign_id, "owner", label=label)
    if retire_caller:
        await _revoke(session, principal.campaign_id, principal.credential_id)
    return key


async def _revoke(session: AsyncSession, campaign_id: str, credential_id: str) -> None:
    result = await session.execute(
        update(CREDENTIALS)
        .where(C.id == credential_id, C.campaign_id == campaign_id, C.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise NotFound(f"This campaign has no active key or token {credential_id}.")


async def revoke(
    session: AsyncSession, *, principal: Principal, credential_id: str, encounter_id: str | None = None
) -> None:
    credential = (await session.execute(select(CREDENTIALS).where(C.id == credential_id))).first()
    if (
        credential is None
        or credential.campaign_id != principal.campaign_id
        or (encounter_id is not None and credential.encounter_id != encounter_id)
    ):
        raise NotFound(f"This campaign has no key or token {credential_id}.")
    if credential.role == "owner":
        owners = await session.scalar(
            select(func.count()).where(
                C.campaign_id == principal.campaign_id, C.role == "owner", C.revoked_at.is_(None)
            )
        )
        if (owners or 0) <= 1 and credential.revoked_at is None:
            raise Conflict("This is the campaign's last key: create another first, or rotate it.")
    await _revoke(session, principal.campaign_id, credential_id)
