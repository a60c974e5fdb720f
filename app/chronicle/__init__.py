"""The chronicle: stored rounds told in words, in Polish or English (CONTRACT.md, "The chronicle").

A pure renderer from what is stored (round documents, their declarations, the snapshots before them) and a
cast (names and Polish `name_forms`) to lines; nothing is resolved again. Its use case reads the rounds and
screens them as a round read is screened; the router only chooses the form.

    story = render_round(StoredRound.from_stored(document=…, request=…, state_before=…), cast, "pl")
    discord_messages([story])   # the round's Discord webhook bodies
    story.as_json()             # {"round", "turn", "ends_turn", "title", "lines": [{tick, kind, actor, …}]}
"""

from .formats import discord as discord_messages
from .formats import json_document, markdown, text
from .model import FORMATS, LANGS, Cast, Lang, Line, Person, RoundStory, StoredRound, TurningPoint
from .tell import render_round, tell

__all__ = [
    "FORMATS",
    "LANGS",
    "Cast",
    "Lang",
    "Line",
    "Person",
    "RoundStory",
    "StoredRound",
    "TurningPoint",
    "discord_messages",
    "json_document",
    "markdown",
    "render_round",
    "tell",
    "text",
]
