"""The encounter's version as a strong ETag: If-Match (412 when stale) and If-None-Match (304 when current)."""

from __future__ import annotations

from starlette.responses import Response

from app.platform.errors import PreconditionFailed


def etag(version: int) -> str:
    return f'"{version}"'


def check_if_match(if_match: str | None, version: int) -> None:
    """RFC 9110 If-Match with strong comparison: a stale or weak tag is a 412."""
    if if_match is None:
        return
    tags = [tag.strip() for tag in if_match.split(",")]
    if "*" in tags or etag(version) in tags:
        return
    raise PreconditionFailed(
        f"If-Match {if_match} does not match the current ETag {etag(version)}", current_etag=etag(version)
    )


def still_current(if_none_match: str | None, version: int) -> bool:
    """RFC 9110 If-None-Match, weak comparison: the client's copy is current, so a GET answers 304."""
    if if_none_match is None:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag(version) in tags


def not_modified(version: int) -> Response:
    return Response(status_code=304, headers={"ETag": etag(version)})
