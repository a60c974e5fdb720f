"""Who may call what: bearer credentials, roles and scopes, and per-key / per-address rate limits.

One dependency per route (`Access(rule)`), which resolves the caller once per request (kept in the
request's scope for the Idempotency-Key's scope and the anonymous limit). Off the hot path: a rate limit
is counted in memory or Redis (app/platform/ratelimit.py), and a key or token is looked up in the
database once and then kept in this worker's cache for credential_cache_seconds. Revoking or rotating
evicts it here at once (forget_credentials); other workers drop it within the TTL. The dependencies are
async on purpose: a sync one costs a hop to the thread pool on every request.

- missing or bad credentials: 401 with `WWW-Authenticate: Bearer`;
- another campaign's (or, for a scoped token, another encounter's) resources: 404, never revealing them;
- the right encounter but not the scope the operation needs: 403.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPBearer

from app.access import service as campaigns
from app.access.service import Principal
from app.deps import CredentialCacheDep, credentials_of, database_of, limiter_of, settings_of
from app.platform.errors import NotFound, ServiceError

BEARER_DESCRIPTION = "A campaign key, or a viewer or player token of one encounter."
MINUTE, HOUR = 60, 3600


class Unauthorized(ServiceError):
    status, type, title = 401, "unauthorized", "Missing or bad credentials"

    def __init__(self, detail: str, error: str | None = None):
        super().__init__(detail)
        self.headers = {"WWW-Authenticate": f'Bearer error="{error}"' if error else "Bearer"}


class Forbidden(ServiceError):
    status, type, title = 403, "forbidden", "Your credentials do not allow this"


def client_address(request: Request) -> str:
    """The caller's address (behind a proxy, uvicorn's --proxy-headers puts the real one here)."""
    return request.client.host if request.client else "unknown"


_CALLER = "combat.caller"  # the request's principal, once resolved, in its ASGI scope


async def optional_principal(request: Request) -> Principal | None:
    """The caller, if it sent credentials (bad ones are a 401 even where none are needed); resolved once
    per request, whichever dependencies ask (the scope check, the Idempotency-Key's scope, the limits)."""
    scope = request.scope
    if _CALLER in scope:
        found: Principal | None = scope[_CALLER]
        return found
    principal = await _authenticate(request)
    scope[_CALLER] = principal
    return principal


async def _authenticate(request: Request) -> Principal | None:
    authorization = request.headers.get("authorization")
    if not authorization:  # an empty header is no credentials
        return None
    scheme, _, secret = authorization.partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise Unauthorized("Send credentials as Authorization: Bearer <key>.", error="invalid_request")
    secret_hash = campaigns.hash_secret(secret)
    # Counted by the secret's hash before the lookup: guessed keys are counted too.
    limit = settings_of(request).rate_limit_per_key_per_minute
    await limiter_of(request).hit(bucket=f"key:{secret_hash[:40]}", limit=limit, window_seconds=MINUTE)
    cache = credentials_of(request)
    principal = cache.get(secret_hash)
    if not isinstance(principal, Principal):
        principal = await campaigns.authenticate(database_of(request), secret_hash)
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


async def current_principal(request: Request) -> Principal:
    principal = await optional_principal(request)
    if principal is None:
        raise Unauthorized(
            "This needs a campaign key or a token: Authorization: Bearer <key>. "
            "POST /v1/campaigns creates a campaign and its key."
        )
    return await campaigns.in_fight(database_of(request), principal)  # a character's token: its fight now


# --- the scope rules: each takes the caller and the request's path parameters --------------------------------


def owner(principal: Principal, _params: Mapping[str, str]) -> Principal:
    if not principal.is_owner:
        raise Forbidden("Only the campaign's key can do this; a viewer or player token cannot.")
    return principal


def encounter_reader(principal: Principal, params: Mapping[str, str]) -> Principal:
    encounter_id = params["encounter_id"]
    if not principal.is_owner and principal.encounter_id != encounter_id:
        raise NotFound(f"There is no encounter {encounter_id}.")
    return principal


def encounter_owner(principal: Principal, params: Mapping[str, str]) -> Principal:
    if not principal.is_owner:
        if principal.encounter_id == params["encounter_id"]:
            raise Forbidden("A viewer or player token cannot change the encounter.")
        raise NotFound(f"There is no encounter {params['encounter_id']}.")
    return principal


def combatant_editor(principal: Principal, params: Mapping[str, str]) -> Principal:
    """The owner, or the player whose token is bound to this combatant."""
    if principal.is_owner:
        return principal
    if principal.encounter_id != params["encounter_id"]:
        raise NotFound(f"There is no encounter {params['encounter_id']}.")
    if principal.role == "player" and principal.combatant_id == params["combatant_id"]:
        return principal
    raise Forbidden("Only the campaign's key, or this combatant's player token, can change it.")


def character_reader(principal: Principal, params: Mapping[str, str]) -> Principal:
    """The owner, or the player token bound to this very character (which reads it outside a fight too)."""
    if principal.is_owner or principal.character_id == params["character_id"]:
        return principal
    raise Forbidden("Only the campaign's key, or this character's own player token, can read it.")


class Access(HTTPBearer):
    """The one access dependency of a route: the caller, checked against one rule, in one step.

    An HTTPBearer, so that OpenAPI declares the bearer scheme as before; but it does the whole check itself
    (credentials, the per-key limit, the cache, the rule) instead of as a tree of five dependencies that
    FastAPI would solve one by one on every request."""

    def __init__(self, rule: Callable[[Principal, Mapping[str, str]], Principal]):
        super().__init__(auto_error=False, scheme_name="HTTPBearer", description=BEARER_DESCRIPTION)
        self.rule = rule

    async def __call__(self, request: Request) -> Principal:  # type: ignore[override]  # returns the caller
        return self.rule(await current_principal(request), request.path_params)


async def limit_anonymous(request: Request) -> None:
    """Calls without credentials are counted per client address (a call with a key counted already)."""
    if await optional_principal(request) is None:
        limit = settings_of(request).rate_limit_anonymous_per_minute
        await limiter_of(request).hit(bucket=f"ip:{client_address(request)}", limit=limit, window_seconds=MINUTE)


async def limit_campaign_creation(request: Request) -> None:
    limit = settings_of(request).campaigns_per_address_per_hour
    await limiter_of(request).hit(
        bucket=f"ip:{client_address(request)}:campaigns", limit=limit, window_seconds=HOUR, exact=True
    )


OwnerDep = Annotated[Principal, Depends(Access(owner))]
CharacterReaderDep = Annotated[Principal, Depends(Access(character_reader))]
ReaderDep = Annotated[Principal, Depends(Access(encounter_reader))]
EncounterOwnerDep = Annotated[Principal, Depends(Access(encounter_owner))]
CombatantEditorDep = Annotated[Principal, Depends(Access(combatant_editor))]
