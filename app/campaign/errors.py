"""The campaign's own refusals (the roster's and the bestiary's); the rest are app/platform/errors.py's."""

from __future__ import annotations

from app.platform.errors import ServiceError


class CharacterBusy(ServiceError):
    """A character is in at most one unfinished encounter: raise with `encounter=<its id>` (and, where the
    request named several, `character=<id>`), so the problem names where it is."""

    status, type, title = 409, "character-busy", "The character is in an unfinished encounter"
