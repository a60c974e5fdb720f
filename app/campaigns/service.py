"""Campaigns, their keys and scoped tokens: create, authenticate, rotate, revoke."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session

from app.campaigns.models import Campaign, Credential
from app.campaigns.schemas import CampaignCreated, CampaignRead, CredentialCreated, CredentialRead, TokenCreate
from app.db import AutocommitDatabase
from app.encounters.models import Combatant, utcnow
from app.encounters.service import load_owned
from app.idempotency.service import Claim, record
from app.problems import Conflict, NotFound, Unprocessable
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


def _issue(
    session: Session,
    campaign_id: str,
    role: str,
    *,
    encounter_id: str | None = None,
    combatant_id: str | None = None,
    label: str | None = None,
) -> CredentialCreated:
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


async def authenticate(database: AutocommitDatabase, secret_hash: str) -> Principal | None:
    """The active credential whose secret has this hash (see hash_secret)."""
    rows = await database.rows(AUTHENTICATE, {"secret_hash": secret_hash})
    return Principal(*rows[0]) if rows else None


def create(*, session: Session, name: str, claim: Claim | None = None) -> Reply:
    with session.begin():
        campaign = Campaign(id=str(uuid.uuid4()), name=name, created_at=utcnow())
        session.add(campaign)
        session.flush()
        key = _issue(session, campaign.id, "owner", label="first key")
        body = CampaignCreated(id=campaign.id, name=campaign.name, created_at=campaign.created_at, key=key)
        reply = Reply.json(201, body, location="/v1/campaign")
        record(session, claim, reply)
    return reply


def get(*, session: Session, principal: Principal) -> CampaignRead:
    with session.begin():
        campaign = session.get(Campaign, principal.campaign_id)
        if campaign is None:
            raise NotFound("This campaign no longer exists.")
        return CampaignRead(id=campaign.id, name=campaign.name, created_at=campaign.created_at)


def list_credentials(
    *, session: Session, principal: Principal, encounter_id: str | None = None
) -> list[CredentialRead]:
    with session.begin():
        query = select(Credential).where(Credential.campaign_id == principal.campaign_id)
        if encounter_id is not None:
            load_owned(session, encounter_id, principal.campaign_id)
            query = query.where(Credential.encounter_id == encounter_id)
        credentials = session.scalars(query.order_by(Credential.created_at, Credential.id))
        return [CredentialRead.model_validate(c, from_attributes=True) for c in credentials]


def create_key(
    *,
    session: Session,
    principal: Principal,
    label: str | None,
    claim: Claim | None = None,
    retire_caller: bool = False,
) -> Reply:
    """A new owner key; with retire_caller, the key that asked is revoked in the same transaction (rotation)."""
    with session.begin():
        key = _issue(session, principal.campaign_id, "owner", label=label)
        if retire_caller:
            _revoke(session, principal.campaign_id, principal.credential_id)
        reply = Reply.json(201, key, location="/v1/campaign/keys")
        record(session, claim, reply)
    return reply


def _revoke(session: Session, campaign_id: str, credential_id: str) -> None:
    result = session.execute(
        update(Credential)
        .where(Credential.id == credential_id, Credential.campaign_id == campaign_id, Credential.revoked_at.is_(None))
        .values(revoked_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        raise NotFound(f"This campaign has no active key or token {credential_id}.")


def revoke(*, session: Session, principal: Principal, credential_id: str, encounter_id: str | None = None) -> None:
    with session.begin():
        credential = session.get(Credential, credential_id)
        if (
            credential is None
            or credential.campaign_id != principal.campaign_id
            or (encounter_id is not None and credential.encounter_id != encounter_id)
        ):
            raise NotFound(f"This campaign has no key or token {credential_id}.")
        if credential.role == "owner":
            owners = (
                session.scalar(
                    select(func.count()).where(
                        Credential.campaign_id == principal.campaign_id,
                        Credential.role == "owner",
                        Credential.revoked_at.is_(None),
                    )
                )
                or 0
            )
            if owners <= 1 and credential.revoked_at is None:
                raise Conflict("This is the campaign's last key: create another first, or rotate it.")
        _revoke(session, principal.campaign_id, credential_id)


def create_token(
    *, session: Session, principal: Principal, encounter_id: str, data: TokenCreate, claim: Claim | None = None
) -> Reply:
    with session.begin():
        load_owned(session, encounter_id, principal.campaign_id)
        if data.role == "player":
            combatant = session.get(Combatant, data.combatant) if data.combatant else None
            if combatant is None or combatant.encounter_id != encounter_id:
                raise Unprocessable(
                    "A player token names a combatant of this encounter (combatant).",
                    errors=[{"in": "body", "pointer": "/combatant", "detail": "must be a combatant of this encounter"}],
                )
        elif data.combatant is not None:
            raise Unprocessable(
                "Only a player token is bound to a combatant.",
                errors=[{"in": "body", "pointer": "/combatant", "detail": "only for role player"}],
            )
        token = _issue(
            session,
            principal.campaign_id,
            data.role,
            encounter_id=encounter_id,
            combatant_id=data.combatant,
            label=data.label,
        )
        reply = Reply.json(201, token, location=f"/v1/encounters/{encounter_id}/tokens")
        record(session, claim, reply)
    return reply
