"""A stored round read into facts, in the order they are told, before any language is chosen.

Everything comes from the stored round (its document, its declarations, the snapshots before it and the
rules it was resolved under); nothing is resolved again. The one thing followed along is each combatant's
status through the ticks, so that a fall is told once, where the wound that forced it landed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.resolver.ruleset import DEFAULT_RULES, STATUSES

from .model import StoredRound, TurningPoint

ACTION_KINDS = ("attack", "first_aid", "custom", "continue")


@dataclass(frozen=True, slots=True)
class Fact:
    """kind: an action's type, or stances, down, bleeding, effects_ended, long_action_lost, turning_point.
    `entry`: the action or bleeding entry it tells (empty for the others); `detail`: what the kind needs."""

    kind: str
    tick: int | None
    actor: str | None
    target: str | None
    entry: Mapping[str, Any] = field(default_factory=dict)
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Terms:
    """What the ruleset says about how to read the numbers: the natural rolls, the statuses classes force."""

    natural_hit: int
    natural_miss: int
    forces: Mapping[str, str]

    @classmethod
    def of(cls, rules: Mapping[str, Any]) -> Terms:
        classes = rules.get("wound_classes", DEFAULT_RULES["wound_classes"])
        return cls(
            natural_hit=int(rules.get("natural_hit", DEFAULT_RULES["natural_hit"])),
            natural_miss=int(rules.get("natural_miss", DEFAULT_RULES["natural_miss"])),
            forces={row["class"]: row["forces"] for row in classes if row.get("forces")},
        )


def _graver(a: str, b: str) -> str:
    return a if STATUSES.index(a) >= STATUSES.index(b) else b


def _stances(stored: StoredRound, known: Mapping[str, Any]) -> Fact | None:
    declared = {d.get("combatant"): d.get("stance") or "balanced" for d in stored.declarations}
    if stored.before:
        ids = [c["id"] for c in stored.before if c.get("status", "active") == "active" and c["id"] in known]
    else:
        ids = [c["id"] for c in stored.document["combatants"] if c["id"] in declared]
    if not ids:
        return None
    groups: dict[str, list[str]] = {}
    for combatant_id in ids:
        groups.setdefault(declared.get(combatant_id, "balanced"), []).append(combatant_id)
    order = ["offensive", "balanced", "defensive"]
    ordered = sorted(groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    return Fact("stances", None, None, None, detail={"groups": ordered})


def _effects_ended(stored: StoredRound, after: Mapping[str, Mapping[str, Any]]) -> list[Fact]:
    facts = []
    for before in stored.before:
        now = after.get(before["id"])
        if now is None:
            continue
        kept = {e.get("id") for e in now.get("effects") or ()}
        ended = [e["name"] for e in before.get("effects") or () if e.get("id") not in kept]
        if ended:
            facts.append(Fact("effects_ended", None, before["id"], None, detail={"effects": ended}))
    return facts


def read_round(stored: StoredRound, turning_point: TurningPoint | None = None) -> list[Fact]:
    """The facts of one round, in the order they are told."""
    document = stored.document
    terms = Terms.of(stored.rules)
    after = {c["id"]: c for c in document["combatants"]}
    status = {c["id"]: c.get("status", "active") for c in stored.before}
    holds = {d.get("combatant"): d.get("hold") for d in stored.declarations if d.get("hold")}
    number = document["round"]
    facts: list[Fact] = []
    stances = _stances(stored, after)
    if stances is not None:
        facts.append(stances)

    pending: dict[str, str] = {}  # statuses forced in the current tick: they apply when it ends
    current_tick = None
    lost_long_actions: list[Fact] = []
    for entry in document["actions"]:
        if entry["tick"] != current_tick:
            status.update(pending)
            pending = {}
            current_tick = entry["tick"]
        actor, target = entry["actor"], entry.get("target")
        detail: dict[str, Any] = {
            "actor_status": status.get(actor, "active"),
            "target_status": status.get(target, "active") if target else None,
            "held_for": holds.get(actor) if entry.get("held") else None,
            "natural": _natural(entry, terms),
        }
        if entry["result"] == "in_progress":
            carried = after.get(actor, {}).get("long_action")
            if carried and carried.get("name") == entry.get("name"):
                detail["rounds_left"] = carried.get("rounds_left")
            else:
                lost_long_actions.append(
                    Fact("long_action_lost", None, actor, None, detail={"name": entry.get("name")})
                )
        if entry["result"] == "done" and entry["type"] in ("custom", "continue"):
            receiver = target or actor
            given = next(
                (e for e in after.get(receiver, {}).get("effects") or () if e.get("id") == f"{number}:{actor}"), None
            )
            detail["effect"] = given["name"] if given else None
        facts.append(Fact(entry["type"], entry["tick"], actor, target, entry, detail))
        forced = terms.forces.get(entry.get("wound") or "") if entry["result"] == "wound" else None
        if forced and target is not None:
            was = pending.get(target, status.get(target, "active"))
            if _graver(forced, was) != was:
                pending[target] = forced
                facts.append(Fact("down", entry["tick"], target, actor, entry, {"status": forced, "by": "wound"}))
    status.update(pending)

    for bleeding in document["bleeding"]:
        who = bleeding["combatant"]
        was = status.get(who, "active")
        fell = bleeding["status"] if _graver(bleeding["status"], was) != was else None
        facts.append(Fact("bleeding", None, who, None, bleeding, {"fell": fell, "was": was}))
        status[who] = bleeding["status"]
    facts.extend(lost_long_actions)
    facts.extend(_effects_ended(stored, after))
    if turning_point is not None:
        facts.append(Fact("turning_point", None, None, None, detail={"point": turning_point}))
    return facts


def _natural(entry: Mapping[str, Any], terms: Terms) -> str | None:
    roll = entry.get("roll")
    if roll is None:
        return None
    if roll == terms.natural_miss:
        return "miss"
    if roll == terms.natural_hit:
        return "hit"
    return None
