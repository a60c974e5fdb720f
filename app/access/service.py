"""Campaigns, their keys and scoped tokens: create, authenticate, rotate, revoke.

Tokens are issued by the encounters domain (it checks the encounter and combatant), through `issue`.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.models import Campaign, Credential
from app.access.schemas import CampaignCreated, CampaignRead, CredentialCreated, CredentialRead
from app.db import Database, utcnow
from app.idempotency.service import Claim, record
from app.problems import Conflict, NotFound
from app.responses import Reply

SECRET_PREFIX = {"owner": "dzc_key_", "viewer": "dzc_view_", "player": "dzc_play_"}


@dataclass(frozen=True)
class Principal:
    """Who is calling: a campaign's owner, or a token scoped to one encounter (and one combatant)."""

    credential_id: str
    campaign_id: str
    role: str
    encounter_id: str | None = None
    combatant_id: str | None = None

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def issue(
    session: AsyncSession,
    campaign_id: str,
    role: str,
    *,
    encounter_id: str | None = None,
    combatant_id: str | None = None,
    label: str | None = None,
) -> CredentialCreated:
    """A new credential, added to the caller's transaction; its secret is in the result, never stored."""
    secret = SECRET_PREFIX[role] + secrets.token_urlsafe(32)  # 256 random bits
    credential = Credential(
        id=str(uuid.uuid4()),
        campaign_id=campaign_id,
        secret_hash=hash_secret(secret),
        role=role,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        label=label,
        created_at=utcnow(),
    )
    session.add(credential)
    listed = CredentialRead.model_validate(credential, from_attributes=True)
    return CredentialCreated(**listed.model_dump(), secret=secret)


AUTHENTICATE = select(
    Credential.id, Credential.campaign_id, Credential.role, Credential.encounter_id, Credential.combatant_id
).where(Credential.secret_hash == bindparam("secret_hash"), Credential.revoked_at.is_(None))


async def authenticate(database: Database, secret_hash: str) -> Principal | None:
    """The active credential whose secret has this hash (see hash_secret)."""
    rows = await database.rows(AUTHENTICATE, {"secret_hash": secret_hash})
    if not rows:
        return None
    found = rows[0]
    return Principal(found.id, found.campaign_id, found.role, found.encounter_id, found.combatant_id)


async def create(*, session: AsyncSession, name: str, claim: Claim | None = None) -> Reply:
    async with session.begin():
        campaign = Campaign(id=str(uuid.uuid4()), name=name, created_at=utcnow())
        session.add(campaign)
        await session.flush()
        key = issue(session, campaign.id, "owner", label="first key")
        body = CampaignCreated(id=campaign.id, name=campaign.name, created_at=campaign.created_at, key=key)
        reply = Reply.json(201, body, location="/v1/campaign")
        await record(session, claim, reply)
    return reply


async def get(*, session: AsyncSession, principal: Principal) -> CampaignRead:
    async with session.begin():
        campaign = await session.get(Campaign, principal.campaign_id)
        if campaign is None:
            raise NotFound("This campaign no longer exists.")
        return CampaignRead.model_validate(campaign, from_attributes=True)


async def list_credentials(
    *, session: AsyncSession, principal: Principal, encounter_id: str | None = None
) -> list[CredentialRead]:
    """The campaign's keys and tokens (of one encounter: the caller has checked it is the campaign's)."""
    query = select(Credential).where(Credential.campaign_id == principal.campaign_id)
    if encounter_id is not None:
        query = query.where(Credential.encounter_id == encounter_id)
    async with session.begin():
        credentials = await session.scalars(query.order_by(Credential.created_at, Credential.id))
        return [CredentialRead.model_validate(c, from_attributes=True) for c in credentials]


async def create_key(
    *,
    session: AsyncSession,
    principal: Principal,
    label: str | None,
    claim: Claim | None = None,
    retire_caller: bool = False,
) -> Reply:
    """A new owner key; with retire_caller, the key that asked is revoked in the same transaction (rotation)."""
    async with session.begin():
        key = issue(session, principal.campaign_id, "owner", label=label)
        if retire_caller:
            await _revoke(session, principal.campaign_id, principal.credential_id)
        reply = Reply.json(201, key, location="/v1/campaign/keys")
        await record(session, claim, reply)
    return reply


async def _revoke(session: AsyncSession, campaign_id: str, credential_id: str) -> None:
    result = await session.execute(
        update(Credential)
        .where(Credential.id == credential_id, Credential.campaign_id == campaign_id, Credential.revoked_at.is_(None))
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise NotFound(f"This campaign has no active key or token {credential_id}.")


async def revoke(
    *, session: AsyncSession, principal: Principal, credential_id: str, encounter_id: str | None = None
) -> None:
    async with session.begin():
        credential = await session.get(Credential, credential_id)
        if (
            credential is None
            or credential.campaign_id != principal.campaign_id
            or (encounter_id is not None and credential.encounter_id != encounter_id)
        ):
            raise NotFound(f"This campaign has no key or token {credential_id}.")
        if credential.role == "owner":
            owners = await session.scalar(
                select(func.count()).where(
                    Credential.campaign_id == principal.campaign_id,
                    Credential.role == "owner",
                    Credential.revoked_at.is_(None),
                )
            )
            if (owners or 0) <= 1 and credential.revoked_at is None:
                raise Conflict("This is the campaign's last key: create another first, or rotate it.")
        await _revoke(session, principal.campaign_id, credential_id)
