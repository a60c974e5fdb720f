"""The call object every changing route receives, as typed dependencies: who calls (checked by one access
rule), the version it expects (If-Match), its Idempotency-Key's claim, and the worker's database.

A FastAPI dependency module, so it may use app.http (the headers' parameters and the Idempotency-Key
dependency); app/http/command.py runs the command with it.
"""

# No `from __future__ import annotations`: FastAPI reads the call dependencies' signatures.

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from inspect import Parameter, Signature
from typing import Annotated

from fastapi import Depends, Request

from app.access.auth import Access, client_address, combatant_editor, encounter_owner, optional_principal, owner
from app.access.service import Principal
from app.deps import database_of
from app.http.etags import expected_version
from app.http.idempotency import idempotency_dependency
from app.http.params import IfMatch
from app.idempotency.keys import Claim
from app.platform.db import Database
from app.platform.versions import ANY_VERSION, ExpectedVersion


async def caller_scope(request: Request) -> str:
    """Whose Idempotency-Keys these are: a campaign's, or an anonymous caller's address."""
    principal = await optional_principal(request)
    if principal is not None:
        return f"campaign:{principal.campaign_id}"
    return f"ip:{client_address(request)}"


IdempotencyDep = Annotated[Claim | None, Depends(idempotency_dependency(caller_scope))]


@dataclass(frozen=True, slots=True)
class Call:
    """One request's caller, the version it expects (If-Match), its Idempotency-Key's claim and the
    worker's database: what every changing route used to forward argument by argument."""

    principal: Principal
    database: Database
    expected: ExpectedVersion = ANY_VERSION
    claim: Claim | None = None

    @property
    def campaign_id(self) -> str:
        return self.principal.campaign_id


def _call_dependency(
    rule: Callable[[Principal, Mapping[str, str]], Principal], *, keyed: bool, conditional: bool
) -> Callable[..., Awaitable[Call]]:
    """A dependency returning the Call: the caller checked by `rule`, with the Idempotency-Key (`keyed`) and
    If-Match (`conditional`) headers where the route takes them, so the OpenAPI document names exactly those."""
    parameters = [
        Parameter("request", Parameter.POSITIONAL_OR_KEYWORD, annotation=Request),
        Parameter("principal", Parameter.KEYWORD_ONLY, annotation=Annotated[Principal, Depends(Access(rule))]),
    ]
    if keyed:
        parameters.append(Parameter("claim", Parameter.KEYWORD_ONLY, annotation=IdempotencyDep))
    if conditional:
        parameters.append(Parameter("if_match", Parameter.KEYWORD_ONLY, annotation=IfMatch, default=None))

    async def call(
        request: Request, *, principal: Principal, claim: Claim | None = None, if_match: str | None = None
    ) -> Call:
        return Call(principal, database_of(request), expected_version(if_match), claim)

    call.__signature__ = Signature(parameters, return_annotation=Call)  # type: ignore[attr-defined]
    return call


# The calls the routes take, by who may make them and which headers they carry.
OwnerCommand = Annotated[Call, Depends(_call_dependency(owner, keyed=True, conditional=False))]
OwnerCall = Annotated[Call, Depends(_call_dependency(owner, keyed=False, conditional=False))]
OwnerChange = Annotated[Call, Depends(_call_dependency(owner, keyed=False, conditional=True))]
EncounterCommand = Annotated[Call, Depends(_call_dependency(encounter_owner, keyed=True, conditional=True))]
EncounterKeyed = Annotated[Call, Depends(_call_dependency(encounter_owner, keyed=True, conditional=False))]
EncounterChange = Annotated[Call, Depends(_call_dependency(encounter_owner, keyed=False, conditional=True))]
EncounterCall = Annotated[Call, Depends(_call_dependency(encounter_owner, keyed=False, conditional=False))]
CombatantChange = Annotated[Call, Depends(_call_dependency(combatant_editor, keyed=False, conditional=True))]
CombatantCall = Annotated[Call, Depends(_call_dependency(combatant_editor, keyed=False, conditional=False))]
