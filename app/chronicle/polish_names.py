"""Polish names in the case a sentence needs, from Morfeusz 2 and its SGJP dictionary.

A name is declined only when the dictionary knows every word of it as a noun (or, before or after one, an
adjective that then agrees with it): "Ala" → "Alę", "Stary Wilk" → "Starego Wilka", "Goblin 3" →
"Goblina 3" (a numbered copy keeps its number after the declined noun). A word the dictionary does not
know is never inflected by guesswork: the name then has no form in that case, and the sentence is built
to keep it in the nominative. `name_forms` given by the game master win over the dictionary.

Morfeusz is loaded once per process, on the first Polish name, and each name is declined once (cached).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

CASES = ("gen", "dat", "acc", "inst", "loc")
Gender = Literal["m", "f", "n"]
NUMBERED = re.compile(r"^(?P<base>.*\S)\s+(?P<number>\d+)$")
_WORD = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)*$")
# Readings SGJP gives every indeclinable surname: never chosen, they would "decline" anything to itself.
_ALL_CASES = "nom.gen.dat.acc.inst.loc.voc"

_lock = threading.RLock()  # the analyser is not known to be thread-safe; loading takes it too
_morfeusz: Any = None


def _analyser() -> Any:
    global _morfeusz
    with _lock:
        if _morfeusz is None:
            import morfeusz2  # deferred: the dictionary costs memory only to processes that tell in Polish

            _morfeusz = morfeusz2.Morfeusz(analyse=True, generate=True)
        return _morfeusz


@dataclass(frozen=True, slots=True)
class PolishName:
    """A name's nominative, its forms in the other cases (None: unknown, keep the nominative) and the
    gender its words agree with (None: unknown, use sentences that need none)."""

    nom: str
    forms: Mapping[str, str | None]
    gender: Gender | None

    def case(self, case: str) -> str | None:
        return self.nom if case == "nom" else self.forms.get(case)


@dataclass(frozen=True, slots=True)
class _Reading:
    lemma: str
    pos: str  # subst or adj
    gender: str  # SGJP's m1, m2, m3, f or n
    score: int


def _gender_of(sgjp: str) -> Gender:
    return "f" if sgjp == "f" else "n" if sgjp == "n" else "m"


def _readings(word: str) -> list[_Reading]:
    """The word's readings as a nominative singular noun or adjective, best first."""
    with _lock:
        analyses = _analyser().analyse(word)
    found: list[_Reading] = []
    for _start, _end, (_form, lemma, tag, qualifiers, _labels) in analyses:
        parts = tag.split(":")
        if parts[0] == "subst" and len(parts) >= 4 and parts[1] == "sg" and "nom" in parts[2].split("."):
            if parts[2] == _ALL_CASES:
                continue
            base = lemma.split(":", 1)[0]
            score = (4 if "imię" in qualifiers else 0) + (1 if "nazwa_pospolita" in qualifiers else 0)
            score += 2 if base == word else 1 if base.lower() == word.lower() else 0
            score -= 3 if "nazwa_geograficzna" in qualifiers else 0
            for gender in parts[3].split("."):
                found.append(_Reading(lemma, "subst", gender, score))
        elif parts[0] == "adj" and len(parts) >= 5 and parts[1] == "sg" and parts[4] == "pos":
            if "nom" in parts[2].split("."):
                found.append(_Reading(lemma, "adj", "", 0))
    found.sort(key=lambda r: -r.score)  # stable: the dictionary's order breaks ties
    return found


def _generate(lemma: str, pos: str, gender: str, case: str) -> str | None:
    with _lock:
        generated = _analyser().generate(lemma)
    for form, _lemma, tag, _qualifiers, _labels in generated:
        parts = tag.split(":")
        if parts[0] != pos or len(parts) < 4 or parts[1] != "sg" or case not in parts[2].split("."):
            continue
        if gender in parts[3].split(".") and (pos != "adj" or parts[4:5] == ["pos"]):
            return str(form)
    return None


def _cased_like(form: str, word: str) -> str:
    if len(word) > 1 and word.isupper():
        return form.upper()
    return form[:1].upper() + form[1:] if word[:1].isupper() else form


def _decline_words(words: list[str]) -> tuple[dict[str, str | None], Gender | None]:
    """Every word as a noun or an adjective agreeing with the first noun; anything else: no forms."""
    unknown: tuple[dict[str, str | None], Gender | None] = ({case: None for case in CASES}, None)
    if not words or not all(_WORD.match(w) for w in words):
        return unknown
    readings = [_readings(w) for w in words]
    if not all(readings):
        return unknown
    # A lone word that is both (Stary, Dziki) is a noun; a word before a noun is its adjective when it can be.
    nouns = [i for i, rs in enumerate(readings) if any(r.pos == "subst" for r in rs)]
    if not nouns:
        return unknown
    # Adjectives only before the first noun ("Stary Wilk", not "Ala ma kota"), nouns from it on.
    chosen: list[_Reading] = []
    for i, rs in enumerate(readings):
        adjective = next((r for r in rs if r.pos == "adj"), None)
        noun = next((r for r in rs if r.pos == "subst"), None)
        before_head = not any(r.pos == "subst" for r in chosen)
        if adjective is not None and before_head and (noun is None or any(j > i for j in nouns)):
            chosen.append(adjective)
        elif noun is not None:
            chosen.append(noun)
        else:
            return unknown
    head = next((r for r in chosen if r.pos == "subst"), None)
    if head is None:
        return unknown
    forms: dict[str, str | None] = {}
    for case in CASES:
        words_in_case: list[str] = []
        for word, reading in zip(words, chosen):
            gender = reading.gender if reading.pos == "subst" else head.gender
            form = _generate(reading.lemma, reading.pos, gender, case)
            if form is None:
                break
            words_in_case.append(_cased_like(form, word))
        forms[case] = " ".join(words_in_case) if len(words_in_case) == len(words) else None
    return forms, _gender_of(head.gender)


@lru_cache(maxsize=4096)
def _from_dictionary(name: str) -> tuple[tuple[tuple[str, str | None], ...], Gender | None]:
    numbered = NUMBERED.match(name)
    base, suffix = (numbered["base"], " " + numbered["number"]) if numbered else (name, "")
    forms, gender = _decline_words(base.split())
    return tuple((case, None if form is None else form + suffix) for case, form in forms.items()), gender


def decline(name: str, name_forms: Mapping[str, str] | None = None) -> PolishName:
    """The name's forms: the game master's `name_forms` first (a numbered copy's number is added to a form
    that lacks it), then the dictionary's."""
    name = " ".join(name.split())
    dictionary, gender = _from_dictionary(name)
    forms = dict(dictionary)
    if name_forms:
        numbered = NUMBERED.match(name)
        number = numbered["number"] if numbered else None
        for case, form in name_forms.items():
            if case in forms and form:
                given = " ".join(form.split())
                if number is not None and NUMBERED.match(given) is None:
                    given = f"{given} {number}"
                forms[case] = given
    return PolishName(name, forms, gender)
