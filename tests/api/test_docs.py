"""The documentation pages work offline, and docs/rules.md says what the resolver applies."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import migrate

REPO = Path(__file__).resolve().parents[2]
RULES_MD = REPO / "docs" / "rules.md"
EXTERNAL_URL = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}""")


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> TestClient:
    url = f"sqlite:///{tmp_path_factory.mktemp('docs') / 'combat.db'}"
    migrate(url)
    with TestClient(create_app(Settings(database_url=url))) as test_client:
        yield test_client


class References(HTMLParser):
    """Every URL a page makes the browser load: scripts, styles, icons, and the spec it renders."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name in ("src", "href", "spec-url"):
            if attributes.get(name):
                self.urls.append(attributes[name])


def referenced(html: str) -> list[str]:
    parser = References()
    parser.feed(html)
    # Swagger UI is told its spec in the inline script: url: '/openapi.json'
    parser.urls += re.findall(r"""\burl:\s*['"]([^'"]+)['"]""", html)
    return parser.urls


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_load_nothing_from_outside_the_service(client, page):
    response = client.get(page)
    assert response.status_code == 200
    assert not EXTERNAL_URL.findall(response.text), EXTERNAL_URL.findall(response.text)
    urls = referenced(response.text)
    assert any(url.endswith(".js") for url in urls), urls
    assert any(url.endswith("openapi.json") for url in urls), urls
    for url in urls:
        asset = client.get(urljoin(f"http://testserver{page}", url))
        assert asset.status_code == 200, url
        assert asset.content, url


def test_swagger_ui_oauth2_redirect_page_is_served(client):
    assert client.get("/docs/oauth2-redirect").status_code == 200


def test_the_rules_are_served_and_linked_from_the_openapi_description(client):
    page = client.get("/docs/rules")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<table>" in page.text and "Wound classes" in page.text and "Long actions" in page.text
    assert not EXTERNAL_URL.findall(page.text)
    for url in referenced(page.text):
        assert client.get(urljoin("http://testserver/docs/rules", url)).status_code == 200, url

    source = client.get("/docs/rules.md")
    assert source.headers["content-type"].startswith("text/markdown")
    assert source.text == RULES_MD.read_text(encoding="utf-8")

    description = client.get("/openapi.json").json()["info"]["description"]
    assert "(/docs/rules)" in description


def test_docs_point_to_no_file_outside_the_repo():
    for document in (RULES_MD, REPO / "README.md"):
        text = document.read_text(encoding="utf-8")
        assert "../" not in text, document
        assert "shared/rules" not in text, document


def markdown_table(title: str) -> list[list[str]]:
    """The rows of the first table after the heading `title` in docs/rules.md."""
    text = RULES_MD.read_text(encoding="utf-8")
    section = re.split(rf"\n#+ {re.escape(title)}\n", text, maxsplit=1)[1]
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[2:]  # past the header and the separator


def test_the_armory_table_matches_the_ruleset(client):
    armory = client.get("/v1/rules").json()["armory"]
    documented = {name: {"delay": int(delay), "damage": damage} for name, delay, damage in markdown_table("The armory")}
    assert documented == armory


def test_the_armor_table_matches_the_ruleset(client):
    armor = client.get("/v1/rules").json()["armor"]
    assert {name: int(value) for name, value in markdown_table("Armor")} == armor


def test_the_wound_table_matches_the_ruleset(client):
    classes = client.get("/v1/rules").json()["wound_classes"]
    rows = markdown_table("Wound classes")
    assert rows[0][1].startswith("none")  # below the first row: deflected
    documented = [
        {
            "class": name,
            "min": int(re.match(r"\d+", blow).group()),
            "penalty": int(penalty),
            "bleed": int(bleed),
            "forces": forces or None,
        }
        for blow, name, penalty, bleed, forces in rows[1:]
    ]
    assert documented == classes


def test_the_stances_table_matches_the_ruleset(client):
    stances = client.get("/v1/rules").json()["stances"]
    documented = {
        name: {"attack": int(attack.replace("−", "-")), "defense": int(defense.replace("−", "-"))}
        for name, attack, defense in markdown_table("Stances")
    }
    assert documented == stances


def test_the_ruleset_document_shown_matches_the_default(client):
    live = client.get("/v1/rules").json()
    text = RULES_MD.read_text(encoding="utf-8")
    block = text.split("## The ruleset and your overrides", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    shown = json.loads(block)
    missing = set(live) - set(shown)
    assert not missing, f"docs/rules.md does not show {missing}"
    for key, value in live.items():
        if key != "armory":  # shown in full in the armory table, checked above
            assert shown[key] == value, key
