"""The service's refusals: each error class fixes its HTTP status, its stable problem `type` and title.

At the bottom of the layers so that persistence, access and the domains can all raise them; app/http/problems
renders them as problem+json.
"""

from __future__ import annotations

from typing import Any


def pointer(location: tuple[Any, ...]) -> str:
    """('body', 'combatants', 0, 'id') -> '/combatants/0/id' (RFC 6901 escaping): where an error points."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in location]
    return "/" + "/".join(parts) if parts else ""


class ServiceError(Exception):
    """A refusal of the service layer; subclasses fix status, type and title."""

    status = 400
    type = "bad-request"
    title = "Bad request"
    headers: dict[str, str] = {}

    def __init__(self, detail: str, **extra: Any):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class NotFound(ServiceError):
    status, type, title = 404, "not-found", "Not found"


class Conflict(ServiceError):
    status, type, title = 409, "conflict", "Conflict: re-read and resend"


def lost_race() -> Conflict:
    """A concurrent write reached the database first (a unique backstop, SQLite's lock): re-read and resend."""
    return Conflict("A concurrent request changed this encounter first. Re-read it and resend.")


class NotLatestRound(ServiceError):
    status, type, title = 409, "not-latest-round", "Only the latest round can be undone"


class PreconditionFailed(ServiceError):
    status, type, title = 412, "precondition-failed", "The resource changed since you read it"


class Unprocessable(ServiceError):
    status, type, title = 422, "unprocessable", "The request breaks a rule"


class PayloadTooLarge(ServiceError):
    status, type, title = 413, "payload-too-large", "The request body is too large"


class ServiceUnavailable(ServiceError):
    status, type, title = 503, "database-unavailable", "The database is unavailable; retry shortly"
    headers = {"Retry-After": "1"}


class StaleVersion(PreconditionFailed):
    """The resource is not at a version the change expected (the caller's If-Match): app/http words the
    answer with the header it was sent."""

    def __init__(self, current: int):
        super().__init__(f"The resource is at version {current}, not at one the request expected.")
        self.current = current
