"""The words of the short webhook messages (Discord) in Polish and English; a round itself is told by the
chronicle (app/chronicle)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.webhooks.render import People

TEXTS = {
    "pl": {
        "undone": "Runda {round} została cofnięta.",
        "undone_title": "~~Runda {round}~~ (cofnięta)",
        "turn_ended": "Koniec tury. Krwawienie: {bleeding}.",
        "down": "{name}: {status}{by}.",
        "by": " (przez: {by})",
        "bleeding_by": " (wykrwawienie)",
        "finished": "Walka zakończona.",
        "reopened": "Walka wznowiona.",
        "complete": "Wszyscy gracze zadeklarowali rundę {round}.",
        "ping": "Ping: ta subskrypcja działa.",
        "unconscious": "nieprzytomny",
        "dead": "martwy",
        "lost": "{name} traci {lost} krwi (zostaje {blood})",
        "none": "brak",
    },
    "en": {
        "undone": "Round {round} was undone.",
        "undone_title": "~~Round {round}~~ (undone)",
        "turn_ended": "The turn ends. Bleeding: {bleeding}.",
        "down": "{name}: {status}{by}.",
        "by": " (by {by})",
        "bleeding_by": " (bled out)",
        "finished": "The fight is over.",
        "reopened": "The fight goes on again.",
        "complete": "Every player has declared round {round}.",
        "ping": "Ping: this subscription works.",
        "unconscious": "unconscious",
        "dead": "dead",
        "lost": "{name} loses {lost} blood ({blood} left)",
        "none": "none",
    },
}


def text(lang: str, key: str, **values: Any) -> str:
    return TEXTS.get(lang, TEXTS["en"])[key].format(**values)


def down_line(data: dict[str, Any], lang: str, people: People) -> str:
    by = data.get("by")
    suffix = (
        "" if by is None else text(lang, "bleeding_by") if by == "bleeding" else text(lang, "by", by=people.name(by))
    )
    status = text(lang, data["status"]) if data["status"] in ("unconscious", "dead") else data["status"]
    return text(lang, "down", name=data.get("name") or people.name(data["combatant"]), status=status, by=suffix)


def bleeding_summary(bleeding: list[dict[str, Any]], lang: str, people: People) -> str:
    told = [text(lang, "lost", name=people.name(b["combatant"]), lost=b["lost"], blood=b["blood"]) for b in bleeding]
    return "; ".join(told) or text(lang, "none")
