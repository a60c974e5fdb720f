"""GET /problems and /problems/<slug>: where a problem's `type` leads, for whoever follows the link.

JSON by default (a client can show the fix), HTML for a browser (a human clicking the link)."""

from __future__ import annotations

import html
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Response
from pydantic import BaseModel

from app.http.problems.catalogue import CATALOGUE, ProblemType
from app.http.responses import Reply
from app.platform.errors import NotFound
from app.platform.rendering import TYPE_PREFIX

router = APIRouter(prefix="/problems", tags=["problems"])


class ProblemTypeRead(BaseModel):
    type: str
    status: int
    title: str
    meaning: str
    fix: str


def problem_type_read(entry: ProblemType) -> ProblemTypeRead:
    return ProblemTypeRead(
        type=TYPE_PREFIX + entry.slug, status=entry.status, title=entry.title, meaning=entry.meaning, fix=entry.fix
    )


def _wants_html(accept: str | None) -> bool:
    return accept is not None and "text/html" in accept and "application/json" not in accept


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body {{ font: 16px/1.55 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }}
dt {{ font-weight: bold; margin-top: 1rem; }}</style></head><body>
{body}
<p><a href="/problems">All problem types</a> · <a href="/docs">API reference</a></p>
</body></html>
"""


def _entry_html(entry: ProblemType) -> str:
    return (
        f"<h1><code>{TYPE_PREFIX}{entry.slug}</code></h1><p>HTTP {entry.status}: {html.escape(entry.title)}</p>"
        f"<dl><dt>What it means</dt><dd>{html.escape(entry.meaning)}</dd>"
        f"<dt>What to do</dt><dd>{html.escape(entry.fix)}</dd></dl>"
    )


AcceptHeader = Annotated[
    str | None, Header(alias="Accept", description="text/html for a page; JSON otherwise.", max_length=500)
]
Slug = Annotated[str, Path(max_length=60, description="The part of a problem's type after /problems/.")]


HTML_TOO: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/html": {"schema": {"type": "string"}}}, "description": "JSON, or HTML"}
}


@router.get("", response_model=list[ProblemTypeRead], responses=HTML_TOO)
async def list_problem_types(accept: AcceptHeader = None) -> Response:
    """Every problem type the service answers with: status, title, meaning and what to do."""
    entries = sorted(CATALOGUE.values(), key=lambda e: (e.status, e.slug))
    if _wants_html(accept):
        items = "".join(
            f'<li><a href="{TYPE_PREFIX}{e.slug}"><code>{e.slug}</code></a> ({e.status}): {html.escape(e.meaning)}</li>'
            for e in entries
        )
        return Response(
            PAGE.format(title="Problem types", body=f"<h1>Problem types</h1><ul>{items}</ul>"), media_type="text/html"
        )
    return Reply.json(200, [problem_type_read(e).model_dump() for e in entries]).response()


@router.get("/{slug}", response_model=ProblemTypeRead, responses=HTML_TOO)
async def read_problem_type(slug: Slug, accept: AcceptHeader = None) -> Response:
    """What a problem type means and what to do about it: where every problem's `type` link leads."""
    entry = CATALOGUE.get(slug)
    if entry is None:
        raise NotFound(f"No problem type {slug!r}; GET /problems lists them all.")
    if _wants_html(accept):
        return Response(PAGE.format(title=entry.slug, body=_entry_html(entry)), media_type="text/html")
    return Reply.json(200, problem_type_read(entry).model_dump()).response()
