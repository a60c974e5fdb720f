"""HTTP for staged declarations: check scope, delegate, return."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.access.auth import CombatantEditorDep, ReaderDep
from app.deps import DatabaseDep, SessionDep
from app.encounters import declarations
from app.encounters.schemas.declaration import DeclarationsRead, DeclarationStage, StagedDeclarationRead
from app.http.responses import Reply

router = APIRouter(prefix="/v1/encounters/{encounter_id}/declarations", tags=["declarations"])


@router.put(
    "/{combatant_id}",
    response_model=StagedDeclarationRead,
    responses={201: {"model": StagedDeclarationRead, "description": "Staged (none was before)."}},
)
async def stage_declaration(
    encounter_id: str, combatant_id: str, data: DeclarationStage, session: SessionDep, principal: CombatantEditorDep
) -> Response:
    """Stage this combatant's declaration for the next round (200 when it replaced one, 201 when new).

    The owner key may stage for anyone, a player token for its own combatant. Checked as the round
    will check it (a 422 names the field). Changes neither the encounter's version nor its ETag."""
    staged = await declarations.stage(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        data=data,
        screened=not principal.is_owner,
    )
    answer = status.HTTP_201_CREATED if staged.created else status.HTTP_200_OK
    return Reply.json(answer, staged.read.model_dump(mode="json")).response()


@router.delete("/{combatant_id}", status_code=status.HTTP_204_NO_CONTENT)
async def withdraw_declaration(
    encounter_id: str, combatant_id: str, session: SessionDep, principal: CombatantEditorDep
) -> Response:
    """Withdraw this combatant's staged declaration; 404 when none is staged (or a round used it)."""
    await declarations.withdraw(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, combatant_id=combatant_id
    )
    return Reply.no_content().response()


@router.get("", response_model=DeclarationsRead)
async def list_declarations(encounter_id: str, database: DatabaseDep, principal: ReaderDep) -> Response:
    """The declarations staged for the next round. The owner sees each in full; a player its own in
    full and the others only as declared; a viewer only that."""
    found = await declarations.list_staged(database, principal=principal, encounter_id=encounter_id)
    return Reply.json(200, found.model_dump(mode="json"), **{"Cache-Control": "no-store"}).response()
