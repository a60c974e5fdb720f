"""Who may call what: bearer credentials, roles and scopes, and per-key / per-address rate limits.

Off the hot path: a rate limit is counted in memory or Redis (app/platform/ratelimit.py), and a key or token is
looked up in the database once and then kept in this worker's cache for credential_cache_seconds.
Revoking or rotating evicts it here at once (forget_credentials); other workers drop it within the TTL.
The scope checks are async on purpose: a sync dependency costs a hop to the thread pool on every request.

- missing or bad credentials: 401 with `WWW-Authenticate: Bearer`;
- another campaign's (or, for a scoped token, another encounter's) resources: 404, never revealing them;
- the right encounter but not the scope the operation needs: 403.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.access import service as campaigns
from app.access.service import Principal
from app.deps import CredentialCacheDep, DatabaseDep, LimiterDep, SettingsDep
from app.idempotency.dependency import idempotency_dependency
from app.idempotency.keys import Claim
from app.platform.errors import NotFound, ServiceError
from app.web.params import client_address

bearer = HTTPBearer(auto_error=False, description="A campaign key, or a viewer or player token of one encounter.")
MINUTE, HOUR = 60, 3600


class Unauthorized(ServiceError):
    status, type, title = 401, "unauthorized", "Missing or bad credentials"

    def __init__(self, detail: str, error: str | None = None):
        super().__init__(detail)
        self.headers = {"WWW-Authenticate": f'Bearer error="{error}"' if error else "Bearer"}


class Forbidden(ServiceError):
    status, type, title = 403, "forbidden", "Your credentials do not allow this"


async def optional_principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    settings: SettingsDep,
    limiter: LimiterDep,
    cache: CredentialCacheDep,
    database: DatabaseDep,
) -> Principal | None:
    """The caller, if it sent credentials (bad ones are a 401 even where none are needed)."""
    if credentials is None:
        if request.headers.get("authorization"):
            raise Unauthorized("Send credentials as Authorization: Bearer <key>.", error="invalid_request")
        return None
    secret_hash = campaigns.hash_secret(credentials.credentials)
    # Counted by the secret's hash before the lookup: guessed keys are counted too.
    limit = settings.rate_limit_per_key_per_minute
    await limiter.hit(bucket=f"key:{secret_hash[:40]}", limit=limit, window_seconds=MINUTE)
    principal = cache.get(secret_hash)
    if not isinstance(principal, Principal):
        principal = await campaigns.authenticate(database, secret_hash)
        if principal is None:
            raise Unauthorized("This key or token is unknown or revoked.", error="invalid_token")
        cache[secret_hash] = principal  # only found ones: a flood of guesses cannot push real keys out
    return principal


def forget_credentials(
    cache: CredentialCacheDep, *, credential_ids: frozenset[str] = frozenset(), encounter_id: str | None = None
) -> None:
    """Revoked (or deleted with their encounter): stop honouring them on this worker at once."""
    for secret_hash, principal in list(cache.items()):
        if principal.credential_id in credential_ids or (encounter_id and principal.encounter_id == encounter_id):
            cache.pop(secret_hash, None)


async def current_principal(
    principal: Annotated[Principal | None, Depends(optional_principal)], database: DatabaseDep
) -> Principal:
    if principal is None:
        raise Unauthorized(
            "This needs a campaign key or a token: Authorization: Bearer <key>. "
            "POST /v1/campaigns creates a campaign and its key."
        )
    return await campaigns.in_fight(database, principal)  # a character's token: the fight it is in now


async def owner(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    if not principal.is_owner:
        raise Forbidden("Only the campaign's key can do this; a viewer or player token cannot.")
    return principal


async def encounter_reader(encounter_id: str, principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    if not principal.is_owner and principal.encounter_id != encounter_id:
        raise NotFound(f"There is no encounter {encounter_id}.")
    return principal


async def encounter_owner(encounter_id: str, principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    if not principal.is_owner:
        if principal.encounter_id == encounter_id:
            raise Forbidden("A viewer or player token cannot change the encounter.")
        raise NotFound(f"There is no encounter {encounter_id}.")
    return principal


async def combatant_editor(
    encounter_id: str, combatant_id: str, principal: Annotated[Principal, Depends(current_principal)]
) -> Principal:
    """The owner, or the player whose token is bound to this combatant."""
    if principal.is_owner:
        return principal
    if principal.encounter_id != encounter_id:
        raise NotFound(f"There is no encounter {encounter_id}.")
    if principal.role == "player" and principal.combatant_id == combatant_id:
        return principal
    raise Forbidden("Only the campaign's key, or this combatant's player token, can change it.")


async def limit_anonymous(
    request: Request,
    principal: Annotated[Principal | None, Depends(optional_principal)],
    settings: SettingsDep,
    limiter: LimiterDep,
) -> None:
    """Calls without credentials are counted per client address (a call with a key counted already)."""
    if principal is None:
        limit = settings.rate_limit_anonymous_per_minute
        await limiter.hit(bucket=f"ip:{client_address(request)}", limit=limit, window_seconds=MINUTE)


async def limit_campaign_creation(request: Request, settings: SettingsDep, limiter: LimiterDep) -> None:
    limit = settings.campaigns_per_address_per_hour
    await limiter.hit(bucket=f"ip:{client_address(request)}:campaigns", limit=limit, window_seconds=HOUR)


async def character_reader(character_id: str, principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    """The owner, or the player token bound to this very character (which reads it outside a fight too)."""
    if principal.is_owner or principal.character_id == character_id:
        return principal
    raise Forbidden("Only the campaign's key, or this character's own player token, can read it.")


OwnerDep = Annotated[Principal, Depends(owner)]
CharacterReaderDep = Annotated[Principal, Depends(character_reader)]
ReaderDep = Annotated[Principal, Depends(encounter_reader)]
EncounterOwnerDep = Annotated[Principal, Depends(encounter_owner)]
CombatantEditorDep = Annotated[Principal, Depends(combatant_editor)]


async def caller_scope(request: Request, principal: Annotated[Principal | None, Depends(optional_principal)]) -> str:
    """Whose Idempotency-Keys these are: a campaign's, or an anonymous caller's address."""
    if principal is not None:
        return f"campaign:{principal.campaign_id}"
    return f"ip:{client_address(request)}"


IdempotencyDep = Annotated[Claim | None, Depends(idempotency_dependency(caller_scope))]
