"""The documentation pages, all served by the service itself: Swagger UI at /docs and ReDoc at /redoc
with their scripts and styles from the fastapi-offline package (no CDN, so they work on an offline
table or behind a strict firewall), and the game master's rules at /docs/rules, in English or in Polish
(`?lang=pl`, or `Accept-Language` preferring pl)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import fastapi_offline
import markdown
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

ASSETS_PATH = "/docs-assets"
ASSETS_DIR = Path(fastapi_offline.__file__).resolve().parent / "static"
DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"
RULES_FILES = {"en": DOCS_DIR / "rules.md", "pl": DOCS_DIR / "rules.pl.md"}
RULES_PATH = "/docs/rules"
SWITCH = {"en": ("pl", "Polski"), "pl": ("en", "English")}
PAGE_WORDS = {
    "en": ("rules for game masters", "API reference", "Markdown source"),
    "pl": ("zasady dla mistrza gry", "Dokumentacja API", "Źródło w Markdown"),
}
RULES_LINK = (
    f"\n\n**Rules for game masters:** [{RULES_PATH}]({RULES_PATH}) explains every rule the resolver "
    f"applies, with its tables ([as Markdown]({RULES_PATH}.md))."
)
RULES_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}: {heading}</title><link rel="icon" href="{assets}/favicon.png">
<style>
body {{ font: 16px/1.55 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }} th, td {{ border: 1px solid #ccc; padding: .3rem .6rem; }}
th {{ background: #f2f2f2; }} code, pre {{ background: #f6f6f6; }} pre {{ padding: .8rem; overflow-x: auto; }}
blockquote {{ border-left: 4px solid #ccc; margin: 1rem 0; padding: .2rem 1rem; }}
</style></head><body>
<p><a href="{root}/docs">{reference}</a> · <a href="{root}{source}">{source_label}</a> ·
<a href="{root}{rules}?lang={other}" hreflang="{other}" lang="{other}">{other_label}</a></p>
{body}
</body></html>
"""


@lru_cache
def rules_markdown(lang: str = "en") -> str:
    return RULES_FILES[lang].read_text(encoding="utf-8")


@lru_cache
def rules_html(lang: str = "en") -> str:
    return markdown.markdown(rules_markdown(lang), extensions=["tables", "fenced_code", "toc"])


def preferred_language(lang: str | None, accept_language: str | None) -> str:
    """`?lang=` first; else Polish when Accept-Language ranks pl above en (RFC 9110 q-values); else English."""
    if lang in RULES_FILES:
        return lang
    ranks = {"en": 0.0, "pl": 0.0}
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        if primary not in ranks:
            continue
        try:
            q = float(params.strip().removeprefix("q=")) if params.strip().startswith("q=") else 1.0
        except ValueError:
            q = 0.0
        ranks[primary] = max(ranks[primary], q - i * 1e-6)  # equal q: the earlier one wins
    return "pl" if ranks["pl"] > ranks["en"] else "en"


def install_docs(app: FastAPI) -> None:
    """Call on an app built with `docs_url=None, redoc_url=None`; adds the pages and links the rules
    from the OpenAPI description (so /docs shows the link)."""
    app.description = (app.description or "").rstrip() + RULES_LINK
    app.mount(ASSETS_PATH, StaticFiles(directory=ASSETS_DIR), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2_redirect_url = "/docs/oauth2-redirect"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title=f"{app.title}: API reference",
            oauth2_redirect_url=root + oauth2_redirect_url,
            swagger_js_url=f"{root}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_PATH}/favicon.png",
            swagger_ui_parameters=app.swagger_ui_parameters,
        )

    @app.get(oauth2_redirect_url, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=root + openapi_url,
            title=f"{app.title}: API reference",
            redoc_js_url=f"{root}{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_PATH}/favicon.png",
            with_google_fonts=False,
        )

    @app.get(RULES_PATH, include_in_schema=False)
    async def rules_page(request: Request, lang: str | None = None) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        chosen = preferred_language(lang, request.headers.get("accept-language"))
        heading, reference, source_label = PAGE_WORDS[chosen]
        other, other_label = SWITCH[chosen]
        page = RULES_PAGE.format(
            lang=chosen,
            title=app.title,
            heading=heading,
            reference=reference,
            source=f"{RULES_PATH}.pl.md" if chosen == "pl" else f"{RULES_PATH}.md",
            source_label=source_label,
            other=other,
            other_label=other_label,
            assets=root + ASSETS_PATH,
            root=root,
            rules=RULES_PATH,
            body=rules_html(chosen),
        )
        headers = {"Content-Language": chosen, "Vary": "Accept-Language"}
        return HTMLResponse(page, headers=headers)

    @app.get(RULES_PATH + ".md", include_in_schema=False)
    async def rules_source() -> Response:
        return Response(rules_markdown("en"), media_type="text/markdown; charset=utf-8")

    @app.get(RULES_PATH + ".pl.md", include_in_schema=False)
    async def rules_source_polish() -> Response:
        return Response(rules_markdown("pl"), media_type="text/markdown; charset=utf-8")
