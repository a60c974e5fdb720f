"""HTTP for the chronicle: GET /v1/encounters/{id}/chronicle. The language and the form come from the query,
else from Accept-Language and Accept; the use case tells the rounds, this router only lays them out."""

from __future__ import annotations

from typing import Annotated, Literal

import orjson
from fastapi import APIRouter, Header, Query, Response

from app.access.auth import ReaderDep
from app.deps import DatabaseDep
from app.http.etags import etag, not_modified, still_current
from app.http.params import NOT_MODIFIED, IfNoneMatch
from app.resolver import bounds
from app.stats.marks import turning_points_of

from . import formats, reading
from .model import Lang, TurningPoint
from .schemas import ChronicleRead, DiscordMessage

router = APIRouter(tags=["chronicle"])

Format = Literal["markdown", "text", "json", "discord"]
MEDIA_TYPES: dict[str, Format] = {"text/markdown": "markdown", "text/plain": "text", "application/json": "json"}
RoundParam = Annotated[int, Query(ge=1, le=bounds.ROUND[1])]


def _weighted(header: str | None) -> list[str]:
    """A header's values (Accept, Accept-Language), most wanted first; q=0 means not at all."""
    found: list[tuple[float, int, str]] = []
    for index, part in enumerate((header or "").split(",")):
        value, *params = (piece.strip() for piece in part.split(";"))
        weight = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    weight = float(param[2:])
                except ValueError:
                    weight = 0.0
        if value and weight > 0:
            found.append((-weight, index, value.lower()))
    return [value for _, _, value in sorted(found)]


def chosen_lang(lang: Lang | None, accept_language: str | None) -> Lang:
    if lang is not None:
        return lang
    for value in _weighted(accept_language):
        primary = value.split("-", 1)[0]
        if primary in ("pl", "en"):
            return "pl" if primary == "pl" else "en"
    return "en"


def chosen_format(form: Format | None, accept: str | None) -> Format:
    if form is not None:
        return form
    for value in _weighted(accept):
        if value in MEDIA_TYPES:
            return MEDIA_TYPES[value]
    return "markdown"


STRING = {"schema": {"type": "string"}}


@router.get(
    "/v1/encounters/{encounter_id}/chronicle",
    response_model=ChronicleRead | list[DiscordMessage],
    responses={
        200: {
            "description": "The chronicle: Markdown (default), plain text, JSON (ChronicleRead) or Discord "
            "webhook message bodies (a list of DiscordMessage).",
            "content": {"text/markdown": STRING, "text/plain": STRING},
        },
        304: NOT_MODIFIED,
        422: {
            "description": "`lang` or `format` is not one of the choices (the problem names them), `from` is "
            "after `to`, or a round asked for is not stored (`chronicle-range`)."
        },
    },
)
async def read_chronicle(
    encounter_id: str,
    database: DatabaseDep,
    principal: ReaderDep,
    lang: Annotated[
        Lang | None, Query(description="pl or en; omitted: Accept-Language's first of them, else en.")
    ] = None,
    form: Annotated[
        Format | None,
        Query(
            alias="format",
            description="markdown, text, json or discord; omitted: from Accept (text/markdown, text/plain, "
            "application/json), else markdown.",
        ),
    ] = None,
    first: Annotated[RoundParam | None, Query(alias="from", description="The first round told; omitted: 1.")] = None,
    last: Annotated[
        RoundParam | None, Query(alias="to", description="The last round told; omitted: the latest.")
    ] = None,
    accept: Annotated[str | None, Header(include_in_schema=False)] = None,
    accept_language: Annotated[str | None, Header(include_in_schema=False)] = None,
    if_none_match: IfNoneMatch = None,
) -> Response:
    """The stored rounds told as a person would tell them, in Polish or English: one line per action with
    the numbers that decided it, the stances, the falls, the bleeding and the effects that ended. A player or
    viewer token reads it as it reads the rounds (hidden combatants screened). Its ETag is the encounter's."""
    language = chosen_lang(lang, accept_language)
    form = chosen_format(form, accept)
    # The owner's chronicle marks the timeline's turning points once computed (they can name hidden
    # combatants: never a token's); the ETag then counts them, as computing one changes the text.
    marks = (
        {
            k: TurningPoint(p.side, p.before, p.after)
            for k, p in (await turning_points_of(database, encounter_id)).items()
        }
        if principal.is_owner
        else {}
    )
    chronicle = await reading.read(
        database,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        lang=language,
        first=first,
        last=last,
        screened=not principal.is_owner,
        turning_points=marks,
    )
    tag = etag(chronicle.version) if not marks else f'"{chronicle.version}.{len(marks)}"'
    if still_current(if_none_match, tag):
        return not_modified(tag)
    headers = {"ETag": tag, "Vary": "Accept, Accept-Language", "Content-Language": language}
    if form == "markdown":
        return Response(formats.markdown(chronicle.stories), 200, headers, "text/markdown; charset=utf-8")
    if form == "text":
        return Response(formats.text(chronicle.stories), 200, headers, "text/plain; charset=utf-8")
    body = (
        formats.json_document(encounter_id, language, chronicle.stories)
        if form == "json"
        else formats.discord(chronicle.stories)
    )
    return Response(orjson.dumps(body), 200, headers, "application/json")
