"""HTTP for staged declarations: check scope, delegate, return."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.access.auth import ReaderDep
from app.access.deps import CombatantCall
from app.deps import DatabaseDep
from app.encounters import declarations
from app.encounters.schemas.declaration import DeclarationsRead, DeclarationStage, StagedDeclarationRead
from app.http.command import run
from app.http.responses import Reply

router = APIRouter(prefix="/v1/encounters/{encounter_id}/declarations", tags=["declarations"])


@router.put(
    "/{combatant_id}",
    response_model=StagedDeclarationRead,
    responses={201: {"model": StagedDeclarationRead, "description": "Staged (none was before)."}},
)
async def stage_declaration(
    encounter_id: str, combatant_id: str, data: DeclarationStage, call: CombatantCall
) -> Response:
    """Stage this combatant's declaration for the next round (200 when it replaced one, 201 when new).

    The owner key may stage for anyone, a player token for its own combatant. Checked as the round
    will check it (a 422 names the field). Changes neither the encounter's version nor its ETag."""

    def staged(done: declarations.Staged) -> Reply:
        answer = status.HTTP_201_CREATED if done.created else status.HTTP_200_OK
        return Reply.json(answer, done.read.model_dump(mode="json"))

    return await run(
        call,
        lambda session: declarations.stage(
            session,
            campaign_id=call.campaign_id,
            encounter_id=encounter_id,
            combatant_id=combatant_id,
            data=data,
            screened=not call.principal.is_owner,
        ),
        staged,
    )


@router.delete("/{combatant_id}", status_code=status.HTTP_204_NO_CONTENT)
async def withdraw_declaration(encounter_id: str, combatant_id: str, call: CombatantCall) -> Response:
    """Withdraw this combatant's staged declaration; 404 when none is staged (or a round used it)."""
    return await run(
        call,
        lambda session: declarations.withdraw(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, combatant_id=combatant_id
        ),
        lambda _: Reply.no_content(),
    )


@router.get("", response_model=DeclarationsRead)
async def list_declarations(encounter_id: str, database: DatabaseDep, principal: ReaderDep) -> Response:
    """The declarations staged for the next round. The owner sees each in full; a player its own in
    full and the others only as declared; a viewer only that."""
    found = await declarations.list_staged(database, principal=principal, encounter_id=encounter_id)
    return Reply.json(200, found.model_dump(mode="json"), **{"Cache-Control": "no-store"}).response()
