"""The documentation pages, all served by the service itself: Swagger UI at /docs and ReDoc at /redoc
with their scripts and styles from the fastapi-offline package (no CDN, so they work on an offline
table or behind a strict firewall), and the game master's rules at /docs/rules."""

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
RULES_FILE = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
RULES_PATH = "/docs/rules"
RULES_LINK = (
    f"\n\n**Rules for game masters:** [{RULES_PATH}]({RULES_PATH}) explains every rule the resolver "
    f"applies, with its tables ([as Markdown]({RULES_PATH}.md))."
)
RULES_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}: rules for game masters</title><link rel="icon" href="{assets}/favicon.png">
<style>
body {{ font: 16px/1.55 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; margin: 1rem 0; }} th, td {{ border: 1px solid #ccc; padding: .3rem .6rem; }}
th {{ background: #f2f2f2; }} code, pre {{ background: #f6f6f6; }} pre {{ padding: .8rem; overflow-x: auto; }}
blockquote {{ border-left: 4px solid #ccc; margin: 1rem 0; padding: .2rem 1rem; }}
</style></head><body>
<p><a href="{root}/docs">API reference</a> · <a href="{root}{rules}.md">Markdown source</a></p>
{body}
</body></html>
"""


@lru_cache
def rules_markdown() -> str:
    return RULES_FILE.read_text(encoding="utf-8")


@lru_cache
def rules_html() -> str:
    return markdown.markdown(rules_markdown(), extensions=["tables", "fenced_code", "toc"])


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
    async def rules_page(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = RULES_PAGE.format(
            title=app.title, assets=root + ASSETS_PATH, root=root, rules=RULES_PATH, body=rules_html()
        )
        return HTMLResponse(page)

    @app.get(RULES_PATH + ".md", include_in_schema=False)
    async def rules_source() -> Response:
        return Response(rules_markdown(), media_type="text/markdown; charset=utf-8")
