"""The encounter's own refusals."""

from __future__ import annotations

from app.encounters.convert import EncounterRecord
from app.platform.errors import ServiceError


class EncounterFinished(ServiceError):
    status, type, title = 409, "encounter-finished", "The encounter is finished"


def require_unfinished(encounter: EncounterRecord) -> None:
    """Changes of a finished encounter are refused (reads, history, the stream and odds go on)."""
    if encounter.finished_at is not None:
        raise EncounterFinished(
            f"Encounter {encounter.id} was finished at {encounter.finished_at.isoformat()}: reopen it "
            f"(POST /v1/encounters/{encounter.id}/reopen) to change it.",
            encounter=encounter.id,
        )
