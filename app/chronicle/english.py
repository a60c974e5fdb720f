"""The chronicle in plain, short English."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .facts import Fact
from .model import Cast, TurningPoint
from .wording import absorbed, dice, percent, shape

WOUNDS = {
    "scratch": "a scratch",
    "light": "a light wound",
    "moderate": "a moderate wound",
    "severe": "a severe wound",
    "critical": "a critical wound",
    "mortal": "a mortal wound",
}
STATUS = {"unconscious": "is unconscious", "dead": "is dead"}


def _wound(wound: str) -> str:
    return WOUNDS.get(wound, f"a “{wound}” wound")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if abs(n) == 1 else f"{n} {word}s"


def _paren(entry: Mapping[str, Any]) -> str:
    technical = entry.get("technical_actions") or 0
    tail = f", {_plural(technical, 'technical action')}" if technical else ""
    return f"(score {entry['score']}{tail})"


def _roll(entry: Mapping[str, Any], natural: str | None) -> str:
    if natural:
        return f"a natural {entry['roll']} against {entry['target_number']}"
    return f"d20 rolled {entry['roll']} against {entry['target_number']}"


class English:
    lang = "en"

    def __init__(self, cast: Cast) -> None:
        self.cast = cast

    def name(self, combatant_id: str | None) -> str:
        person = self.cast.get(combatant_id or "")
        return person.name if person else combatant_id or ""

    def title(self, number: int, turn: int) -> str:
        return f"Round {number} (turn {turn})"

    def continuation(self, title: str) -> str:
        return f"{title}, continued"

    def line(self, fact: Fact, number: int) -> str:
        return getattr(self, "_" + fact.kind)(fact, number)  # type: ignore[no-any-return]

    def _stances(self, fact: Fact, number: int) -> str:
        groups = [f"{stance} — {', '.join(self.name(c) for c in ids)}" for stance, ids in fact.detail["groups"]]
        return "Stances: " + "; ".join(groups) + "."

    def _held(self, fact: Fact) -> str:
        if not fact.entry.get("held"):
            return ""
        waited = fact.detail.get("held_for")
        return f"waits for {self.name(waited)}, then " if waited and waited in self.cast else "waits, then "

    def _lost(self, fact: Fact, what: str) -> str | None:
        entry = fact.entry
        if entry["result"] == "actor_down":
            down = STATUS.get(fact.detail["actor_status"], "is down")
            return f"{self.name(fact.actor)}'s {what} is lost: {self.name(fact.actor)} {down} {_paren(entry)}."
        if entry["result"] == "target_down":
            return (
                f"{self.name(fact.actor)}'s {what} is lost: {self.name(fact.target)} is already dead {_paren(entry)}."
            )
        return None

    def _attack(self, fact: Fact, number: int) -> str:
        entry = fact.entry
        actor, target = self.name(fact.actor), self.name(fact.target)
        lost = self._lost(fact, f"attack on {target}")
        if lost:
            return lost
        head = f"{actor} {self._held(fact)}attacks {target} {_paren(entry)}"
        roll = _roll(entry, fact.detail["natural"])
        if entry["result"] == "miss":
            return f"{head}: {roll}, a miss."
        taken = absorbed(entry)
        armor = f", armor and toughness take {taken}" if taken else ""
        blow = f"damage {dice(entry['damage_rolls'])}, blow {entry['blow']}{armor}, effective {entry['effective']}"
        if entry["result"] == "deflected":
            return f"{head}: {roll}, a hit, but the armor holds ({blow})."
        if shape(fact, number, 2) == 1:
            return f"{head} and hits ({roll}): {blow}. {target} takes {_wound(entry['wound'])}."
        return f"{head}: {roll}, a hit. {blow[0].upper()}{blow[1:]}: {_wound(entry['wound'])}."

    def _first_aid(self, fact: Fact, number: int) -> str:
        entry = fact.entry
        actor, target = self.name(fact.actor), self.name(fact.target)
        lost = self._lost(fact, f"first aid on {target}")
        if lost:
            return lost
        if fact.actor == fact.target:
            return f"{actor} tends their own wounds {_paren(entry)}: they stop bleeding."
        return f"{actor} {self._held(fact)}tends {target}'s wounds {_paren(entry)}: they stop bleeding."

    def _on(self, fact: Fact) -> str:
        return f" on {self.name(fact.target)}" if fact.target and fact.target != fact.actor else ""

    def _effect(self, fact: Fact) -> str:
        effect = fact.detail.get("effect")
        return f" {self.name(fact.target or fact.actor)} gains the effect “{effect}”." if effect else ""

    def _rounds_left(self, fact: Fact) -> str:
        left = fact.detail.get("rounds_left")
        return f"; {_plural(left, 'more round')}" if left else ""

    def _custom(self, fact: Fact, number: int) -> str:
        entry, actor, name = fact.entry, self.name(fact.actor), entry_name(fact.entry)
        lost = self._lost(fact, f"“{name}”")
        if lost:
            return lost
        if entry["result"] == "in_progress":
            return (
                f"{actor} {self._held(fact)}begins “{name}”{self._on(fact)} {_paren(entry)}{self._rounds_left(fact)}."
            )
        return f"{actor} {self._held(fact)}performs “{name}”{self._on(fact)} {_paren(entry)}.{self._effect(fact)}"

    def _continue(self, fact: Fact, number: int) -> str:
        entry, actor, name = fact.entry, self.name(fact.actor), entry_name(fact.entry)
        lost = self._lost(fact, f"“{name}”")
        if lost:
            return lost
        if entry["result"] == "interrupted":
            return f"{actor} cannot go on with “{name}”: it was interrupted {_paren(entry)}."
        if entry["result"] == "in_progress":
            return f"{actor} continues “{name}”{self._on(fact)} {_paren(entry)}{self._rounds_left(fact)}."
        return f"{actor} completes “{name}”{self._on(fact)} {_paren(entry)}.{self._effect(fact)}"

    def _down(self, fact: Fact, number: int) -> str:
        fallen = self.name(fact.actor)
        by = f" from {self.name(fact.target)}'s blow" if fact.target else ""
        if fact.detail["status"] == "dead":
            return f"{fallen} dies{by}."
        return f"{fallen} falls unconscious{by}."

    def _bleeding(self, fact: Fact, number: int) -> str:
        entry, who = fact.entry, self.name(fact.actor)
        lost, blood = entry["lost"], entry["blood"]
        change = f"loses {lost} blood, {blood} left" if lost >= 0 else f"regains {-lost} blood, now {blood}"
        fell = fact.detail["fell"]
        ending = (
            " and bleeds to death"
            if fell == "dead"
            else " and falls unconscious"
            if fell == "unconscious"
            else "; still unconscious"
            if entry["status"] == "unconscious"
            else ""
        )
        return f"End of turn: {who} {change}{ending}."

    def _effects_ended(self, fact: Fact, number: int) -> str:
        effects = fact.detail["effects"]
        names = ", ".join(f"“{e}”" for e in effects)
        if len(effects) > 1:
            return f"{self.name(fact.actor)}: the effects {names} end."
        return f"{self.name(fact.actor)}: the effect {names} ends."

    def _long_action_lost(self, fact: Fact, number: int) -> str:
        return f"{self.name(fact.actor)} loses focus: “{fact.detail['name'] or ''}” is lost."

    def _turning_point(self, fact: Fact, number: int) -> str:
        point: TurningPoint = fact.detail["point"]
        way = "rises" if point.after >= point.before else "falls"
        return (
            f"Turning point: {point.side}'s chance to win {way} from {percent(point.before)} to {percent(point.after)}."
        )


def entry_name(entry: Mapping[str, Any]) -> str:
    return str(entry.get("name") or "")
