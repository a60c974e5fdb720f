"""The told rounds in the four forms of the contract: Markdown, plain text, JSON and Discord messages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .model import RoundStory

# Discord's documented limits of a webhook message (CONTRACT.md, "The chronicle").
DISCORD_CONTENT = 2000
DISCORD_EMBEDS = 10
DISCORD_TITLE = 256
DISCORD_DESCRIPTION = 4096
DISCORD_FIELDS = 25
DISCORD_EMBED_TEXT = 6000

# An embed's colour follows the gravest thing in its round.
COLOURS = {
    "down_dead": 0x7F1D1D,
    "down_unconscious": 0xD35400,
    "wound": 0xC0392B,
    "deflected": 0x7F8C8D,
    "miss": 0x95A5A6,
    "quiet": 0x3498DB,
}

_MARKUP = re.compile(r"([\\*_`~|<>\[\]#])")


def escape(text: str) -> str:
    """A line's text with what Markdown (and Discord) would read as markup escaped: the templates use none
    of these characters, so only the names the game master typed can bring them."""
    return _MARKUP.sub(r"\\\1", text)


def markdown(stories: Sequence[RoundStory]) -> str:
    blocks = []
    for story in stories:
        lines = "\n".join(f"- {escape(line.text)}" for line in story.lines)
        blocks.append(f"## {escape(story.title)}\n\n{lines}" if lines else f"## {escape(story.title)}")
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def text(stories: Sequence[RoundStory]) -> str:
    blocks = ["\n".join([story.title, *(line.text for line in story.lines)]) for story in stories]
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def json_document(encounter_id: str, lang: str, stories: Sequence[RoundStory]) -> dict[str, Any]:
    return {"encounter": encounter_id, "lang": lang, "rounds": [story.as_json() for story in stories]}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pieces(bullet: str, limit: int) -> list[str]:
    """A line too long for one description (the stances of a hundred long names) in pieces that each fit,
    cut between words; joined with single spaces they give the line again."""
    pieces = []
    while len(bullet) > limit:
        cut = bullet.rfind(" ", 0, limit + 1)
        cut = cut if cut > 0 else limit
        pieces.append(bullet[:cut])
        bullet = bullet[cut:].removeprefix(" ")
    return [*pieces, bullet]


def _descriptions(story: RoundStory) -> list[str]:
    """The round's lines as embed descriptions, each within Discord's limit; a line is split only when it
    cannot fit one description by itself."""
    chunks: list[str] = []
    current = ""
    for line in story.lines:
        for piece in _pieces(f"• {escape(line.text)}", DISCORD_DESCRIPTION):
            if current and len(current) + 1 + len(piece) > DISCORD_DESCRIPTION:
                chunks.append(current)
                current = piece
            else:
                current = f"{current}\n{piece}" if current else piece
    return [*chunks, current] if current or not chunks else chunks


def _embeds(story: RoundStory, continued: str) -> list[dict[str, Any]]:
    colour = COLOURS[story.severity]
    title = _cut(escape(story.title), DISCORD_TITLE)
    more = _cut(escape(continued), DISCORD_TITLE)
    embeds = []
    for i, description in enumerate(_descriptions(story)):
        embed: dict[str, Any] = {"title": title if i == 0 else more, "color": colour}
        if description:
            embed["description"] = description
        embeds.append(embed)
    return embeds


def _embed_text(embed: dict[str, Any]) -> int:
    return len(embed.get("title", "")) + len(embed.get("description", ""))


def discord(stories: Sequence[RoundStory]) -> list[dict[str, Any]]:
    """One webhook message body per round (more only when a round does not fit one), each within Discord's
    limits; mentions are never parsed (a name like "@everyone" pings no one)."""
    messages: list[dict[str, Any]] = []
    for story in stories:
        batch: list[dict[str, Any]] = []
        size = 0
        for embed in _embeds(story, story.continued_title):
            if batch and (len(batch) == DISCORD_EMBEDS or size + _embed_text(embed) > DISCORD_EMBED_TEXT):
                messages.append(_message(batch))
                batch, size = [], 0
            batch.append(embed)
            size += _embed_text(embed)
        messages.append(_message(batch))
    return messages


def _message(embeds: list[dict[str, Any]]) -> dict[str, Any]:
    return {"embeds": embeds, "allowed_mentions": {"parse": []}}
