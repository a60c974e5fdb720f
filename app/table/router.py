"""GET /table/{encounter_id}: the page, its assets, and who the link's token speaks for.

The page is static: it reads the encounter through the public API with the token carried in the
link's fragment, which browsers never send to a server, so the token stays out of every log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse
from pydantic import BaseModel
from starlette.staticfiles import StaticFiles

from app.access.auth import ReaderDep

STATIC = Path(__file__).resolve().parent / "static"
PAGE = (Path(__file__).resolve().parent / "table.html").read_bytes()

# Everything the page loads comes from here; the API it calls is on the same origin.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}

EncounterId = Annotated[str, PathParam(min_length=1, max_length=64)]

router = APIRouter(tags=["table"])


class TableViewer(BaseModel):
    """Who the link's token speaks for: the page puts a player's own combatant first."""

    role: str
    combatant: str | None


@router.get("/table/{encounter_id}", include_in_schema=False)
def table_page(encounter_id: EncounterId) -> HTMLResponse:
    # The same page for every encounter: the script reads the id from its own address, so an
    # unknown id costs nothing here and is answered by the API the page calls.
    return HTMLResponse(PAGE, headers=PAGE_HEADERS)


@router.get("/table/{encounter_id}/viewer", response_model=TableViewer)
async def table_viewer(encounter_id: EncounterId, principal: ReaderDep) -> TableViewer:
    """The role of the credential sent, and for a player token its combatant."""
    return TableViewer(role=principal.role, combatant=principal.combatant_id)


class Assets(StaticFiles):
    """The page's script and style: revalidated on every load (ETag, 304) so a deploy is seen at once."""

    def file_response(self, *args: Any, **kwargs: Any) -> Any:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def install_table(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/table/assets", Assets(directory=STATIC), name="table-assets")
