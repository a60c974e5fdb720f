"""The chronicle in Polish, in the terms of docs/rules.pl.md (wynik, próg trafienia, siła ciosu, cios
efektywny, rana lekka…).

Every name is put in the case its sentence needs. When the dictionary cannot give that case (a word it
does not know), the sentence takes another shape in which the name stays in the nominative; when the
name's gender is unknown, the sentence avoids the words that would have to agree with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .facts import Fact
from .model import Cast, TurningPoint
from .polish_names import PolishName, decline
from .wording import absorbed, dice, percent, shape

WOUNDS = {  # class → (nominative, accusative)
    "scratch": ("draśnięcie", "draśnięcie"),
    "light": ("rana lekka", "ranę lekką"),
    "moderate": ("rana średnia", "ranę średnią"),
    "severe": ("rana ciężka", "ranę ciężką"),
    "critical": ("rana krytyczna", "ranę krytyczną"),
    "mortal": ("rana śmiertelna", "ranę śmiertelną"),
}
STANCES = {"offensive": "ofensywna", "balanced": "zrównoważona", "defensive": "defensywna"}
_ADJECTIVE_ENDINGS = {"m": "y", "f": "a", "n": "e"}
_DATIVE_PRONOUNS = {"m": "mu", "f": "jej", "n": "mu"}


def plural(n: int, one: str, few: str, many: str) -> str:
    """The noun that goes with the number n: 1 runda, 2 rundy, 5 rund, 22 rundy, 12 rund."""
    n = abs(n)
    if n == 1:
        return one
    return few if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else many


def quoted(text: str) -> str:
    return f"„{text}”"


class Names:
    """The cast's names, each declined once per chronicle."""

    def __init__(self, cast: Cast) -> None:
        self._cast = cast
        self._declined: dict[str, PolishName] = {}

    def __call__(self, combatant_id: str) -> PolishName:
        name = self._declined.get(combatant_id)
        if name is None:
            person = self._cast.get(combatant_id)
            name = decline(person.name, person.name_forms) if person else decline(combatant_id)
            self._declined[combatant_id] = name
        return name


def _wound(wound: str, case: int) -> str:
    forms = WOUNDS.get(wound)
    if forms:
        return forms[case]
    return ("rana ", "ranę ")[case] + quoted(wound)


def _adjective(stem: str, name: PolishName) -> str | None:
    return stem + _ADJECTIVE_ENDINGS[name.gender] if name.gender else None


def _status_now(name: PolishName, status: str) -> str:
    if status == "dead":
        return "już nie żyje"
    unconscious = _adjective("nieprzytomn", name)
    return f"jest {unconscious}" if unconscious else "jest już bez przytomności"


def _paren(entry: Mapping[str, Any], *extra: str) -> str:
    parts = [*extra, f"wynik inicjatywy {entry['score']}"]
    technical = entry.get("technical_actions") or 0
    if technical:
        parts.append(f"{technical} {plural(technical, 'akcja techniczna', 'akcje techniczne', 'akcji technicznych')}")
    return "(" + ", ".join(parts) + ")"


def _roll(entry: Mapping[str, Any], natural: str | None) -> str:
    if natural:
        return f"na k20 wypada naturalna {entry['roll']} przy progu {entry['target_number']}"
    return f"na k20 wypada {entry['roll']} przy progu {entry['target_number']}"


class Polish:
    lang = "pl"

    def __init__(self, cast: Cast) -> None:
        self.name = Names(cast)
        self.known = cast

    def title(self, number: int, turn: int) -> str:
        return f"Runda {number} (tura {turn})"

    def continuation(self, title: str) -> str:
        return f"{title}, cd."

    def line(self, fact: Fact, number: int) -> str:
        return getattr(self, "_" + fact.kind)(fact, number)  # type: ignore[no-any-return]

    # --- the round's lines -------------------------------------------------------------------------

    def _stances(self, fact: Fact, number: int) -> str:
        groups = [
            f"{STANCES.get(stance, quoted(stance))} – {', '.join(self.name(c).nom for c in ids)}"
            for stance, ids in fact.detail["groups"]
        ]
        return ("Postawa " if len(groups) == 1 else "Postawy: ") + "; ".join(groups) + "."

    def _head(self, fact: Fact, verb: str, extra: list[str]) -> str:
        """The sentence's start, "Ala atakuje Bolka"; a target the dictionary cannot decline goes into the
        parenthesis instead; a held action first says whom it waited for."""
        actor = self.name(fact.actor or "")
        target = self.name(fact.target) if fact.target else None
        phrase = verb
        if target is not None:
            if target.case("acc"):
                phrase = f"{verb} {target.case('acc')}"
            else:
                extra.append(f"cel: {target.nom}")
        if fact.entry.get("held"):
            waited = fact.detail.get("held_for")
            if waited and waited in self.known:
                other = self.name(waited)
                waits = f"czeka na {other.case('acc')}" if other.case("acc") else f"czeka, aż zadziała {other.nom},"
            else:
                waits = "czeka na swoją kolej"
            return f"{actor.nom} {waits} i dopiero potem {phrase}"
        return f"{actor.nom} {phrase}"

    def _lost(self, fact: Fact, what: str, after: str, extra: list[str]) -> str | None:
        """An action lost because its actor is down or its target dead ("Atak Ali na Bolka przepada: …"),
        or None when it was not."""
        entry, actor = fact.entry, self.name(fact.actor or "")
        if entry["result"] == "actor_down":
            why = f"{actor.nom} {_status_now(actor, fact.detail['actor_status'])}"
        elif entry["result"] == "target_down" and fact.target:
            why = f"{self.name(fact.target).nom} już nie żyje"
        else:
            return None
        if actor.case("gen"):
            return f"{what} {actor.case('gen')}{after} przepada: {why} {_paren(entry, *extra)}."
        return f"{actor.nom}: {what.lower()}{after} przepada, bo {why} {_paren(entry, *extra)}."

    def _attack(self, fact: Fact, number: int) -> str:
        entry = fact.entry
        target = self.name(fact.target or "")
        acc = target.case("acc")
        lost = self._lost(fact, "Atak", f" na {acc}" if acc else "", [] if acc else [f"cel: {target.nom}"])
        if lost:
            return lost
        extra: list[str] = []
        head = self._head(fact, "atakuje", extra)
        paren = _paren(entry, *extra)
        roll = _roll(entry, fact.detail["natural"])
        actor = self.name(fact.actor or "")
        variant = shape(fact, number, 3)
        if entry["result"] == "miss":
            if variant == 1 and acc and actor.case("gen") and not entry.get("held"):
                return f"Atak {actor.case('gen')} na {acc} chybia: {roll} {paren}."
            return f"{head} {paren}: {roll}, chybienie."
        taken = absorbed(entry)
        armor = f"pancerz i wytrzymałość pochłaniają {taken}, " if taken else ""
        blow = f"siła ciosu {entry['blow']} (kości obrażeń: {dice(entry['damage_rolls'])})"
        if entry["result"] == "deflected":
            if variant == 1 and target.case("gen"):
                return (
                    f"{head} {paren} i trafia ({roll}), lecz cios odbija się od pancerza {target.case('gen')}: "
                    f"{blow}, cios efektywny {entry['effective']}."
                )
            effective = f"cios efektywny {entry['effective']}"
            return f"{head} {paren}: {roll}, trafienie, ale cios się odbija: {blow}, {armor}{effective}."
        effective = f"cios efektywny {entry['effective']}"
        wound, wound_acc = _wound(entry["wound"], 0), _wound(entry["wound"], 1)
        if variant == 1:
            numbers = f"Kości obrażeń: {dice(entry['damage_rolls'])}, siła ciosu {entry['blow']}, {armor}{effective}"
            return f"{head} {paren} i trafia: {roll}. {numbers} – {target.nom} odnosi {wound_acc}."
        if variant == 2 and target.case("dat"):
            dealt = f"{actor.nom} zadaje {target.case('dat')} {wound_acc}"
            return f"{head} {paren}: {roll}, trafienie. {dealt}: {blow}, {armor}{effective}."
        return f"{head} {paren}: {roll}, trafienie. {blow[0].upper()}{blow[1:]}, {armor}{effective}: {wound}."

    def _first_aid(self, fact: Fact, number: int) -> str:
        entry = fact.entry
        target = self.name(fact.target or "")
        actor = self.name(fact.actor or "")
        lost = self._lost(fact, "Pierwsza pomoc", "", [] if fact.actor == fact.target else [f"dla: {target.nom}"])
        if lost:
            return lost
        if fact.actor == fact.target:
            return f"{actor.nom} opatruje własne rany {_paren(entry)}: przestają krwawić."
        extra: list[str] = []
        if shape(fact, number, 2) == 1 and target.case("dat") and not entry.get("held"):
            return f"{actor.nom} udziela pierwszej pomocy {target.case('dat')} {_paren(entry)}: rany przestają krwawić."
        if target.case("acc"):
            head = self._head(fact, "opatruje", extra)
            whose = f"rany {target.case('gen')}" if target.case("gen") else "rany"
            return f"{head} {_paren(entry, *extra)}: {whose} przestają krwawić."
        head = self._head(fact, "udziela pierwszej pomocy", extra)
        return f"{head} {_paren(entry, *extra)}: rany przestają krwawić."

    def _on_target(self, fact: Fact, extra: list[str]) -> str:
        if not fact.target or fact.target == fact.actor:
            return ""
        target = self.name(fact.target)
        if target.case("acc"):
            return f" na {target.case('acc')}"
        extra.append(f"cel: {target.nom}")
        return ""

    def _effect(self, fact: Fact) -> str:
        effect = fact.detail.get("effect")
        if not effect:
            return ""
        receiver = self.name(fact.target or fact.actor or "")
        return f" {receiver.nom} otrzymuje efekt {quoted(effect)}."

    def _custom(self, fact: Fact, number: int) -> str:
        entry, actor = fact.entry, self.name(fact.actor or "")
        action = f"działanie {quoted(entry.get('name') or '')}"
        extra: list[str] = []
        on = self._on_target(fact, extra)
        lost = self._lost(fact, f"Działanie {quoted(entry.get('name') or '')}", on, extra)
        if lost:
            return lost
        if entry["result"] == "in_progress":
            return f"{actor.nom} rozpoczyna {action}{on} {_paren(entry, *extra)}{self._rounds_left(fact)}."
        return f"{actor.nom} wykonuje {action}{on} {_paren(entry, *extra)}.{self._effect(fact)}"

    def _rounds_left(self, fact: Fact) -> str:
        left = fact.detail.get("rounds_left")
        if not left:
            return ""
        return f"; potrwa jeszcze {left} {plural(left, 'rundę', 'rundy', 'rund')}"

    def _continue(self, fact: Fact, number: int) -> str:
        entry, actor = fact.entry, self.name(fact.actor or "")
        name = quoted(entry.get("name") or "")
        extra: list[str] = []
        on = self._on_target(fact, extra)
        lost = self._lost(fact, f"Działanie {name}", on, extra)
        if lost:
            return lost
        if entry["result"] == "interrupted":
            return f"{actor.nom} nie może kontynuować działania {name}: zostało przerwane {_paren(entry, *extra)}."
        if entry["result"] == "in_progress":
            return f"{actor.nom} kontynuuje działanie {name}{on} {_paren(entry, *extra)}{self._rounds_left(fact)}."
        return f"{actor.nom} dopełnia działanie {name}{on} {_paren(entry, *extra)}.{self._effect(fact)}"

    def _down(self, fact: Fact, number: int) -> str:
        fallen = self.name(fact.actor or "")
        by = self.name(fact.target) if fact.target else None
        if fact.detail["status"] == "dead":
            if by is not None and by.case("gen") and shape(fact, number, 2) == 1:
                return f"{fallen.nom} ginie od ciosu {by.case('gen')}."
            dead = _adjective("martw", fallen)
            return f"{fallen.nom} pada {dead}." if dead else f"{fallen.nom} ginie."
        unconscious = _adjective("nieprzytomn", fallen)
        if by is not None and by.case("gen") and fallen.case("acc") and shape(fact, number, 2) == 1:
            return f"Cios {by.case('gen')} powala {fallen.case('acc')}: {fallen.nom} traci przytomność."
        return f"{fallen.nom} pada {unconscious}." if unconscious else f"{fallen.nom} traci przytomność."

    def _bleeding(self, fact: Fact, number: int) -> str:
        entry, who = fact.entry, self.name(fact.actor or "")
        lost, blood = entry["lost"], entry["blood"]
        points = plural(lost, "punkt", "punkty", "punktów")
        pronoun = _DATIVE_PRONOUNS.get(who.gender or "")
        if lost >= 0:
            left = f"zostaje {pronoun} {blood}" if pronoun else f"zostaje {blood}"
            change = f"traci {lost} {points} krwi"
        else:
            left = f"ma teraz {blood}"
            change = f"odzyskuje {-lost} {plural(-lost, 'punkt', 'punkty', 'punktów')} krwi"
        fell = fact.detail["fell"]
        if fell == "dead":
            ending = " i wykrwawia się na śmierć"
        elif fell == "unconscious":
            unconscious = _adjective("nieprzytomn", who)
            ending = f" i pada {unconscious}" if unconscious else " i traci przytomność"
        elif entry["status"] == "unconscious":
            ending = "; wciąż bez przytomności"
        else:
            ending = ""
        if lost > 0 and shape(fact, number, 2) == 1:
            return f"{who.nom} krwawi: na koniec tury {change}, {left}{ending}."
        return f"Koniec tury: {who.nom} {change}, {left}{ending}."

    def _effects_ended(self, fact: Fact, number: int) -> str:
        who = self.name(fact.actor or "")
        effects = fact.detail["effects"]
        names = ", ".join(quoted(e) for e in effects)
        many = len(effects) > 1
        noun, verb = ("Efekty", "wygasają") if many else ("Efekt", "wygasa")
        if who.case("loc"):
            return f"{noun} {names} na {who.case('loc')} {verb}."
        return f"{who.nom}: {noun.lower()} {names} {verb}."

    def _long_action_lost(self, fact: Fact, number: int) -> str:
        who = self.name(fact.actor or "")
        return f"{who.nom} traci skupienie: działanie {quoted(fact.detail['name'] or '')} przepada."

    def _turning_point(self, fact: Fact, number: int) -> str:
        point: TurningPoint = fact.detail["point"]
        way = "rosną" if point.after >= point.before else "spadają"
        return (
            f"Punkt zwrotny: szanse strony {quoted(point.side)} na zwycięstwo {way} "
            f"z {percent(point.before)} do {percent(point.after)}."
        )
