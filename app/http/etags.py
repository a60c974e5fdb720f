"""The encounter's version as a strong ETag: If-Match (412 when stale) and If-None-Match (304 when current)."""

from __future__ import annotations

import re

from starlette.responses import Response

from app.platform.versions import ANY_VERSION, ExpectedVersion

_STRONG_VERSION = re.compile(r'"(0|[1-9][0-9]{0,17})"')  # etag(version), and nothing else


def etag(version: int) -> str:
    return f'"{version}"'


def _tags(header: str) -> list[str]:
    """The header's entity tags. An unquoted one (If-Match: 30, as a hand-written request sends it) is
    taken as the quoted tag it names ("30"), not as a tag that matches nothing: it is not stale."""
    tags = []
    for tag in (part.strip() for part in header.split(",")):
        weak = tag.startswith("W/")
        opaque = tag.removeprefix("W/")
        if opaque and opaque != "*" and not opaque.startswith('"'):
            tag = ("W/" if weak else "") + f'"{opaque}"'
        tags.append(tag)
    return tags


def expected_version(if_match: str | None) -> ExpectedVersion:
    """RFC 9110 If-Match with strong comparison, as the versions it names: a weak or foreign tag names
    none (the repository's check then answers 412, `StaleVersion`); `*` or no header: any."""
    if if_match is None:
        return ANY_VERSION
    tags = _tags(if_match)
    if "*" in tags:
        return ANY_VERSION
    return ExpectedVersion(frozenset(int(tag[1:-1]) for tag in tags if _STRONG_VERSION.fullmatch(tag)))


def stale_detail(if_match: str | None, current: int) -> str:
    return f"If-Match {if_match} does not match the current ETag {etag(current)}"


def still_current(if_none_match: str | None, version: int) -> bool:
    """RFC 9110 If-None-Match, weak comparison: the client's copy is current, so a GET answers 304."""
    if if_none_match is None:
        return False
    tags = [tag.removeprefix("W/") for tag in _tags(if_none_match)]
    return "*" in tags or etag(version) in tags


def not_modified(version: int) -> Response:
    return Response(status_code=304, headers={"ETag": etag(version)})
