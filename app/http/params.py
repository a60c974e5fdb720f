"""The HTTP parameters every router shares: conditional-request headers and paging."""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Query

IfMatch = Annotated[
    str | None,
    Header(alias="If-Match", description='The ETag you last read, e.g. "7": a stale one gets 412.', max_length=200),
]
IfNoneMatch = Annotated[
    str | None,
    Header(
        alias="If-None-Match",
        description='The ETag you last read, e.g. "7": while it is current, a 304 without a body.',
        max_length=200,
    ),
]
NOT_MODIFIED = {"description": "Not modified: the ETag in If-None-Match is still current (no body)."}
Limit = Annotated[int, Query(ge=1, le=100, description="Page size.")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="Items to skip.")]
