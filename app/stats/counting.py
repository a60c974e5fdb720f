"""A fight's statistics counted from its stored rounds alone (CONTRACT.md, "Statistics").

Pure: plain dicts in (each round's request, document and the snapshot taken before it), plain dicts out,
so a test can hand it rounds and compare every number with one counted by hand. What each count means:
- `actions`: the round documents' action entries by `type`; `technical_actions` and `held` summed over them.
- `attacks`: attack entries that rolled their d20 (an attack lost to `actor_down`/`target_down` never
  rolled); `hits`/`misses` split them; `natural_hits`/`natural_misses`: the roll was the ruleset's natural
  hit/miss (under the rules that round was resolved with); `deflected`: a hit that left no wound.
- `wounds_dealt`/`wounds_taken`: by wound class; `first_aid_given`: first aid entries that were `done`.
- `stances`: each round, every combatant active before it counts the stance it declared (`balanced`
  when it declared nothing).
- `blood`: before its first round, after its last one, lost to a turn's bleeding and regained then.
- `down`: the first round that took it out of `active`: the wound that forced it (its actor and tick),
  or the turn's bleeding (`by: "bleeding"`, no tick).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_STANCE = "balanced"
# The counts a side sums over its combatants (and a campaign over fights): numbers and tallies by key.
NUMBERS = ("attacks", "hits", "misses", "natural_hits", "natural_misses", "deflected", "first_aid_given",
           "technical_actions", "held")  # fmt: skip
TALLIES = ("actions", "wounds_dealt", "wounds_taken", "stances")
BLOOD = ("start", "end", "lost_to_bleeding", "regained")


@dataclass(frozen=True, slots=True)
class StoredRound:
    """What a round keeps that the statistics read."""

    number: int
    request: Mapping[str, Any]  # the declarations it was resolved from (staged ones included)
    document: Mapping[str, Any]  # as GET …/rounds/{n} answers
    before: Sequence[Mapping[str, Any]]  # every combatant's row as the round found it
    natural_hit: int
    natural_miss: int
    forcing: frozenset[str]  # wound classes that force a status, under that round's rules


@dataclass(slots=True)
class Fighter:
    """One combatant's counts as the rounds are walked."""

    combatant: str
    name: str | None
    side: str
    character: str | None
    creature: str | None
    numbers: Counter[str] = field(default_factory=Counter)
    tallies: dict[str, Counter[str]] = field(default_factory=lambda: {name: Counter() for name in TALLIES})
    blood: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BLOOD, 0))
    down: dict[str, Any] | None = None
    rounds: int = 0  # rounds it was in

    def counts(self) -> dict[str, Any]:
        return {
            **{name: self.numbers[name] for name in NUMBERS},
            **{name: dict(sorted(self.tallies[name].items())) for name in TALLIES},
            "blood": dict(self.blood),
        }


def side_of(row: Mapping[str, Any]) -> str:
    """A combatant without a side fights on its own, under its id (as the odds count it)."""
    side = row.get("side")
    return side if side is not None else str(row["id"])


def _met(fighters: dict[str, Fighter], row: Mapping[str, Any]) -> Fighter:
    """The combatant's fighter, made the first time it is seen; its name and side follow its latest row."""
    fighter = fighters.get(row["id"])
    if fighter is None:
        fighter = fighters[row["id"]] = Fighter(
            row["id"], row.get("name"), side_of(row), row.get("character_id"), row.get("creature_id")
        )
        fighter.blood["start"] = fighter.blood["end"] = row["blood"]
    else:
        fighter.name, fighter.side = row.get("name"), side_of(row)
    return fighter


def _count_action(fighters: dict[str, Fighter], entry: Mapping[str, Any], stored: StoredRound) -> None:
    actor = fighters.get(entry["actor"])
    if actor is None:
        return
    kind = entry["type"]
    actor.tallies["actions"][kind] += 1
    actor.numbers["technical_actions"] += entry.get("technical_actions") or 0
    actor.numbers["held"] += 1 if entry.get("held") else 0
    if kind == "attack" and entry.get("hit") is not None:
        actor.numbers["attacks"] += 1
        actor.numbers["hits" if entry["hit"] else "misses"] += 1
        if entry["roll"] == stored.natural_hit and entry["roll"] != stored.natural_miss:
            actor.numbers["natural_hits"] += 1
        elif entry["roll"] == stored.natural_miss:
            actor.numbers["natural_misses"] += 1
        if entry["result"] == "deflected":
            actor.numbers["deflected"] += 1
    if kind == "first_aid" and entry["result"] == "done":
        actor.numbers["first_aid_given"] += 1
    wound = entry.get("wound")
    if wound is not None:
        actor.tallies["wounds_dealt"][wound] += 1
        target = fighters.get(entry.get("target") or "")
        if target is not None:
            target.tallies["wounds_taken"][wound] += 1


def _downed_by(stored: StoredRound, combatant: str, status: str) -> dict[str, Any]:
    """Who or what took the combatant out of `active` in this round: the first wound on it that forced a
    status, else the turn's bleeding."""
    for entry in stored.document["actions"]:
        if entry.get("target") == combatant and entry.get("wound") in stored.forcing:
            return {"status": status, "round": stored.number, "tick": entry["tick"], "by": entry["actor"]}
    return {"status": status, "round": stored.number, "tick": None, "by": "bleeding"}


def count_fight(
    rounds: Sequence[StoredRound], current: Iterable[Mapping[str, Any]] = ()
) -> tuple[list[Fighter], list[dict[str, Any]]]:
    """Every combatant's counts, in the order first seen, and `series` (k = 0..latest: each combatant's
    blood and status after round k). `current`: the combatants' rows now, read only when there is no round
    (the state before round 1 is then the current one)."""
    fighters: dict[str, Fighter] = {}
    first = rounds[0].before if rounds else list(current)
    series = [{"round": 0, "combatants": [_point(row) for row in first]}]
    for row in first:
        _met(fighters, row)
    for stored in rounds:
        status_before: dict[str, str] = {}
        for row in stored.before:
            fighter = _met(fighters, row)
            status_before[row["id"]] = row["status"]
            if fighter.rounds == 0:
                fighter.blood["start"] = row["blood"]
        stances = {d["combatant"]: d.get("stance", DEFAULT_STANCE) for d in stored.request.get("declarations", ())}
        for combatant, status in status_before.items():
            if status == "active":
                fighters[combatant].tallies["stances"][stances.get(combatant, DEFAULT_STANCE)] += 1
        for entry in stored.document["actions"]:
            _count_action(fighters, entry, stored)
        for loss in stored.document["bleeding"]:
            bleeder = fighters.get(loss["combatant"])
            if bleeder is not None:
                key, amount = ("lost_to_bleeding", loss["lost"]) if loss["lost"] > 0 else ("regained", -loss["lost"])
                bleeder.blood[key] += amount
        for state in stored.document["combatants"]:
            after = fighters.get(state["id"])
            if after is None:
                continue
            after.rounds += 1
            after.blood["end"] = state["blood"]
            if after.down is None and status_before.get(state["id"]) == "active" and state["status"] != "active":
                after.down = _downed_by(stored, state["id"], state["status"])
        series.append(
            {"round": stored.number, "combatants": [_point(state) for state in stored.document["combatants"]]}
        )
    return list(fighters.values()), series


def _point(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"combatant": row["id"], "blood": row["blood"], "status": row["status"]}


def combatant_stats(fighter: Fighter) -> dict[str, Any]:
    return {
        "combatant": fighter.combatant,
        "name": fighter.name,
        "side": fighter.side,
        **fighter.counts(),
        "down": fighter.down,
    }


def add_counts(total: dict[str, Any], counts: Mapping[str, Any]) -> dict[str, Any]:
    """`counts` added into `total` (numbers, tallies by key, blood): a side's sum, a campaign's."""
    for name in NUMBERS:
        total[name] = total.get(name, 0) + counts[name]
    for name in TALLIES:
        tally = Counter(total.get(name, {}))
        tally.update(counts[name])
        total[name] = dict(sorted(tally.items()))
    blood = total.setdefault("blood", dict.fromkeys(BLOOD, 0))
    for name in BLOOD:
        blood[name] += counts["blood"][name]
    return total


def side_stats(fighters: Sequence[Fighter]) -> list[dict[str, Any]]:
    """The counts summed per side, sides in the order their first combatant was seen."""
    sides: dict[str, dict[str, Any]] = {}
    for fighter in fighters:
        side = sides.setdefault(fighter.side, {"side": fighter.side, "combatants": [], "down": 0})
        side["combatants"].append(fighter.combatant)
        side["down"] += fighter.down is not None
        add_counts(side, fighter.counts())
    return list(sides.values())


def encounter_stats(
    encounter_id: str, rounds: Sequence[StoredRound], current: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    fighters, series = count_fight(rounds, current)
    return {
        "encounter": encounter_id,
        "rounds": len(rounds),
        "combatants": [combatant_stats(f) for f in fighters],
        "sides": side_stats(fighters),
        "series": series,
    }
