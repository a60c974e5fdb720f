"""Stored rounds told as lines, in Polish or English."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from .english import English
from .facts import ACTION_KINDS, Fact, read_round
from .model import Cast, Lang, Line, RoundStory, StoredRound, TurningPoint
from .polish import Polish


class Teller(Protocol):
    lang: str

    def title(self, number: int, turn: int) -> str: ...

    def continuation(self, title: str) -> str: ...

    def line(self, fact: Fact, number: int) -> str: ...


def teller(lang: Lang, cast: Cast) -> Teller:
    return Polish(cast) if lang == "pl" else English(cast)


SEVERITIES = ("quiet", "miss", "deflected", "wound", "down_unconscious", "down_dead")


def _severity(facts: Iterable[Fact]) -> str:
    gravest = 0
    for fact in facts:
        if fact.kind == "down" or (fact.kind == "bleeding" and fact.detail.get("fell")):
            status = fact.detail.get("status") or fact.detail.get("fell")
            gravest = max(gravest, SEVERITIES.index(f"down_{status}"))
        elif fact.kind == "attack" and fact.entry.get("result") in ("miss", "deflected", "wound"):
            gravest = max(gravest, SEVERITIES.index(fact.entry["result"]))
    return SEVERITIES[gravest]


def _result(fact: Fact) -> str | None:
    if fact.kind in ACTION_KINDS:
        return str(fact.entry.get("result"))
    if fact.kind == "down":
        return str(fact.detail["status"])
    if fact.kind == "bleeding":
        return str(fact.entry.get("status"))
    return None


def _tell(voice: Teller, stored: StoredRound, turning_point: TurningPoint | None) -> RoundStory:
    document = stored.document
    number = int(document["round"])
    facts = read_round(stored, turning_point)
    lines = tuple(
        Line(fact.tick, fact.kind, fact.actor, fact.target, voice.line(fact, number), _result(fact)) for fact in facts
    )
    return RoundStory(
        round=number,
        turn=int(document["turn"]),
        ends_turn=bool(document.get("ends_turn")),
        lang="pl" if voice.lang == "pl" else "en",
        title=voice.title(number, int(document["turn"])),
        continued_title=voice.continuation(voice.title(number, int(document["turn"]))),
        lines=lines,
        severity=_severity(facts),
    )


def render_round(
    stored: StoredRound, cast: Cast, lang: Lang, *, turning_point: TurningPoint | None = None
) -> RoundStory:
    """One stored round told in `lang`: what a webhook posts when a round is resolved."""
    return _tell(teller(lang, cast), stored, turning_point)


def tell(
    rounds: Iterable[StoredRound],
    cast: Cast,
    lang: Lang,
    *,
    turning_points: Mapping[int, TurningPoint] | None = None,
) -> list[RoundStory]:
    """Every round told in `lang`, one teller for all (each name declined once). `turning_points`: the
    rounds of the odds timeline where some side's chances turned (none by default), each marked."""
    voice = teller(lang, cast)
    marks = turning_points or {}
    return [_tell(voice, stored, marks.get(int(stored.document["round"]))) for stored in rounds]
