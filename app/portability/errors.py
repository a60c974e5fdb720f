"""The import's own refusals (catalogued in app/http/problems/catalogue.py)."""

from __future__ import annotations

from app.platform.errors import Conflict, Unprocessable


class RoundNotReplayed(Unprocessable):
    """A stored round whose result does not come out again from its state before it, request and rules."""

    type, title = "round-not-replayed", "A stored round does not come out again"


class IdTaken(Conflict):
    """An id of the document that a row of this service already has."""

    type, title = "id-taken", "An id of the document already exists here"


class DocumentInvalid(Unprocessable):
    """The document's schema refused (as the API's validation-error gives it: errors with JSON pointers)."""

    type, title = "validation-error", "The request is not valid"
