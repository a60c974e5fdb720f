"""The table page's labels (app/table/static/i18n.js): Polish and English have the same keys and the
same {placeholders}, and every plural label has the forms its language's plural rules select.

The labels are one object literal (`const LABELS = {...};`) of unquoted keys, double-quoted strings and
nested objects; a small tokenizer reads exactly that and fails loudly on anything else, so a change of
shape breaks this test rather than slipping past it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

I18N = Path(__file__).resolve().parent.parent / "app" / "table" / "static" / "i18n.js"
TOKEN = re.compile(
    r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<name>[A-Za-z_$][\w$]*)|(?P<punct>[{}:,])|(?P<comment>//[^\n]*))'
)
# CLDR plural categories: what Intl.PluralRules(language).select() can answer for whole numbers
PLURAL_FORMS = {"en": {"one", "other"}, "pl": {"one", "few", "many", "other"}}
ALL_PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def tokens(text: str) -> list[tuple[str, str]]:
    found, position = [], 0
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None:
            if text[position:].strip() == "":
                break
            raise ValueError(f"i18n.js: unexpected {text[position : position + 30]!r} in LABELS")
        position = match.end()
        kind = match.lastgroup
        assert kind is not None
        if kind != "comment":
            found.append((kind, match.group(kind)))
    return found


def parse_object(items: list[tuple[str, str]], at: int) -> tuple[dict[str, Any], int]:
    """The object literal starting at items[at] ("{"): its keys to strings or nested objects."""
    assert items[at] == ("punct", "{"), items[at]
    result: dict[str, Any] = {}
    at += 1
    while items[at] != ("punct", "}"):
        kind, key = items[at]
        assert kind in ("name", "string") and items[at + 1] == ("punct", ":"), items[at : at + 2]
        key = json.loads(key) if kind == "string" else key
        assert key not in result, f"i18n.js: {key} twice"
        if items[at + 2] == ("punct", "{"):
            value, at = parse_object(items, at + 2)
        else:
            assert items[at + 2][0] == "string", f"i18n.js: {key} is not a string or an object"
            value, at = json.loads(items[at + 2][1]), at + 3
        result[key] = value
        if items[at] == ("punct", ","):
            at += 1
    return result, at + 1


def labels() -> dict[str, Any]:
    source = I18N.read_text(encoding="utf-8")
    body = re.search(r"^const LABELS = (\{.*?^\});$", source, re.MULTILINE | re.DOTALL)
    assert body is not None, "i18n.js no longer declares `const LABELS = {...};`"
    items = tokens(body.group(1))
    parsed, end = parse_object(items, 0)
    assert end == len(items), "i18n.js: something after LABELS' closing brace"
    return parsed


def is_plural(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() <= ALL_PLURAL_FORMS


def leaves(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every label by its dotted key (as translator() looks it up); a plural label is one leaf."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict) and not is_plural(value):
            flat |= leaves(value, f"{prefix}{key}.")
        else:
            flat[prefix + key] = value
    return flat


def placeholders(value: Any) -> set[str]:
    texts = value.values() if isinstance(value, dict) else [value]
    return {name for text in texts for name in PLACEHOLDER.findall(text)}


def test_the_parser_reads_what_translator_reads():
    parsed = labels()
    assert set(parsed) == set(PLURAL_FORMS)
    assert parsed["en"]["act"]["attack"] == "attacks {target}"
    assert parsed["pl"]["rounds"]["few"] == "za {n} rundy"
    with pytest.raises(ValueError):
        tokens("{ a: 'single quotes are not read' }")


def test_polish_and_english_have_the_same_labels():
    parsed = labels()
    english, polish = leaves(parsed["en"]), leaves(parsed["pl"])
    assert sorted(english.keys() - polish.keys()) == [], "in English only"
    assert sorted(polish.keys() - english.keys()) == [], "in Polish only"
    for key in english:
        assert is_plural(english[key]) == is_plural(polish[key]), f"{key}: plural in one language only"
        assert placeholders(english[key]) == placeholders(polish[key]), f"{key}: other placeholders"


@pytest.mark.parametrize("language", sorted(PLURAL_FORMS))
def test_plural_labels_have_every_form_their_language_selects(language):
    for key, value in leaves(labels()[language]).items():
        if is_plural(value):
            assert value.keys() == PLURAL_FORMS[language], f"{language} {key}: {sorted(value)}"
