"""docs/rules.pl.md, the Polish rules page, says what GET /v1/rules says, and stays in step with
docs/rules.md: the same checks as tests/api/test_docs.py applies to the English page, plus the same
sections, tables and numbers in both."""

from __future__ import annotations

import json
import re
from pathlib import Path

import markdown
import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import migrate

DOCS = Path(__file__).resolve().parent.parent / "docs"
RULES_EN = DOCS / "rules.md"
RULES_PL = DOCS / "rules.pl.md"
# Polish headings of the sections the drift checks read, by their English names
ARMORY, ARMOR, WOUND_CLASSES, STANCES = "Zbrojownia", "Pancerz", "Klasy ran", "Postawy"
RULESET = "## Zestaw zasad i twoje zmiany"
# RULES.md §14, written into both pages in parallel; until the English one has it, the Polish one is
# compared without it (and then in its place: the structure check below says where it must go).
HOLDING_PL, HOLDING_EN = "Wstrzymanie działania i grupy", re.compile(r"^#+ .*\bhold", re.I | re.M)
API_KEY = re.compile(r"`([a-z_]+)`")
NUMBER = re.compile(r"[−-]?\d+")


@pytest.fixture(scope="module")
def rules(tmp_path_factory) -> dict:
    url = f"sqlite:///{tmp_path_factory.mktemp('rules-pl') / 'combat.db'}"
    migrate(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        answer = client.get("/v1/rules")
        assert answer.status_code == 200
        return answer.json()


def text(document: Path) -> str:
    return document.read_text(encoding="utf-8")


def markdown_table(title: str, document: Path = RULES_PL) -> list[list[str]]:
    """The rows of the first table after the heading `title`, past its header and separator."""
    section = re.split(rf"\n#+ {re.escape(title)}\n", text(document), maxsplit=1)[1]
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows[2:]


def key(cell: str) -> str:
    """The API's name in a Polish cell: `ofensywna (`offensive`)` → offensive."""
    found = API_KEY.search(cell)
    assert found, f"no `api_key` in {cell!r}"
    return found.group(1)


def integer(cell: str) -> int:
    return int(cell.replace("−", "-"))


def test_the_armory_table_matches_the_ruleset(rules):
    documented = {key(name): {"delay": int(delay), "damage": damage} for name, delay, damage in markdown_table(ARMORY)}
    assert documented == rules["armory"]


def test_the_armor_table_matches_the_ruleset(rules):
    assert {key(name): int(value) for name, value in markdown_table(ARMOR)} == rules["armor"]


def test_the_wound_table_matches_the_ruleset(rules):
    rows = markdown_table(WOUND_CLASSES)
    assert key(rows[0][1]) == "deflected"  # below the first row
    documented = [
        {
            "class": key(name),
            "min": int(re.match(r"\d+", blow).group()),
            "penalty": int(penalty),
            "bleed": int(bleed),
            "forces": key(forces) if forces else None,
        }
        for blow, name, penalty, bleed, forces in rows[1:]
    ]
    assert documented == rules["wound_classes"]


def test_the_stances_table_matches_the_ruleset(rules):
    documented = {
        key(name): {"attack": integer(attack), "defense": integer(defense)}
        for name, attack, defense in markdown_table(STANCES)
    }
    assert documented == rules["stances"]


def test_the_ruleset_document_shown_matches_the_default(rules):
    block = text(RULES_PL).split(RULESET, 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    shown = json.loads(block)
    assert not set(rules) - set(shown), f"docs/rules.pl.md does not show {set(rules) - set(shown)}"
    for name, value in rules.items():
        if name != "armory":  # shown in full in the armory table, checked above
            assert shown[name] == value, name


def sections(document: Path) -> list[tuple[int, str, str]]:
    """(level, heading, body) of every heading of the page, in order, §14 left out of the Polish page
    while the English one has no such section."""
    parts = re.split(r"^(#+) (.+)\n", text(document), flags=re.M)
    found = [(len(parts[i]), parts[i + 1], parts[i + 2]) for i in range(1, len(parts), 3)]
    if document == RULES_PL and not HOLDING_EN.search(text(RULES_EN)):
        found = [section for section in found if section[1] != HOLDING_PL]
    return found


def tables(body: str) -> list[list[list[int]]]:
    """Every table of a section as its rows' numbers (headers and words left out)."""
    found, current = [], None
    for line in body.splitlines():
        if line.startswith("|"):
            if current is None:
                current = []
                found.append(current)
            if not re.fullmatch(r"\|[-|: ]+\|", line.strip()):
                current.append([integer(number) for number in NUMBER.findall(line.replace("`", ""))])
        else:
            current = None
    return [table[1:] for table in found]  # past the header


def code_blocks(body: str) -> list[object]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", body, flags=re.S)]


def test_both_pages_have_the_same_sections_tables_and_numbers():
    english, polish = sections(RULES_EN), sections(RULES_PL)
    assert [level for level, _, _ in polish] == [level for level, _, _ in english], (
        [heading for _, heading, _ in english],
        [heading for _, heading, _ in polish],
    )
    for (_, heading_en, body_en), (_, heading_pl, body_pl) in zip(english, polish, strict=True):
        assert tables(body_pl) == tables(body_en), f"{heading_pl!r} differs from {heading_en!r} in its tables"
        blocks_en, blocks_pl = code_blocks(body_en), code_blocks(body_pl)
        for block in blocks_en + blocks_pl:  # an example's encounter name is translated
            if isinstance(block, dict):
                block.pop("name", None)
        assert blocks_pl == blocks_en, f"{heading_pl!r} differs from {heading_en!r} in its JSON"


def test_the_polish_page_has_rules_14_and_in_the_source_texts_terms():
    page = text(RULES_PL)
    assert f"\n## {HOLDING_PL}\n" in page
    for term in ("Inicjatywa", "Opóźnienie", "kość opóźnienia", "postawę ofensywną", "runda", "tura", "k10", "k20"):
        assert term in page, term
    for stance in ("ofensywna", "defensywna", "zrównoważona"):
        assert stance in page, stance


def anchors(document: Path) -> set[str]:
    html = markdown.markdown(text(document), extensions=["tables", "fenced_code", "toc"])
    return set(re.findall(r'<h\d id="([^"]+)"', html))


@pytest.mark.parametrize("document", [RULES_EN, RULES_PL], ids=["en", "pl"])
def test_every_link_within_the_page_reaches_a_heading(document):
    # The page is rendered with the same extensions as app/apidocs.py: Polish letters drop out of ids
    links = set(re.findall(r"\]\(#([^)]+)\)", text(document)))
    assert links <= anchors(document), links - anchors(document)


def test_the_polish_page_points_to_no_file_outside_the_repo():
    page = text(RULES_PL)
    assert "../" not in page and "shared/rules" not in page


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('rules-page') / 'combat.db'}"
    migrate(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        yield client


@pytest.mark.parametrize(
    ("query", "accept_language", "served_in"),
    [
        ("", None, "en"),
        ("", "pl", "pl"),
        ("", "pl-PL,pl;q=0.9,en;q=0.8", "pl"),
        ("", "en-GB,en;q=0.9,pl;q=0.8", "en"),
        ("", "de, pl;q=0.5", "pl"),
        ("?lang=pl", "en", "pl"),
        ("?lang=en", "pl", "en"),
    ],
)
def test_the_rules_page_speaks_the_language_asked_for(served, query, accept_language, served_in):
    headers = {"Accept-Language": accept_language} if accept_language else {}
    page = served.get(f"/docs/rules{query}", headers=headers)
    assert page.status_code == 200
    assert page.headers["content-language"] == served_in
    assert "accept-language" in page.headers["vary"].lower()
    assert f'<html lang="{served_in}">' in page.text
    other = "en" if served_in == "pl" else "pl"
    assert f'href="/docs/rules?lang={other}"' in page.text  # the link to switch
    marker = "Inicjatywa" if served_in == "pl" else "Initiative"
    assert marker in page.text


def test_the_polish_markdown_source_is_served(served):
    source = served.get("/docs/rules.pl.md")
    assert source.status_code == 200 and source.headers["content-type"].startswith("text/markdown")
    assert source.text == RULES_PL.read_text(encoding="utf-8")
