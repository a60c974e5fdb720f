"""The ruleset: every house number of the rules (docs/rules.md) as one data document, overridable per encounter."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from .errors import InvalidNotation, InvalidRuleset, Issues
from .model import Wound
from .notation import DamageDice, parse_damage

STATUSES = ("active", "unconscious", "dead")  # severity order: a status never goes back

DEFAULT_RULES: Mapping[str, Any] = {
    "delay_die": 10,
    "technical_action_penalty": 5,
    "turn_length": 10,
    "margin_divisor": 2,
    "first_aid_delay": 10,
    "natural_hit": 1,
    "natural_miss": 20,
    "long_action_broken_at": 6,
    "stances": {
        "offensive": {"attack": 2, "defense": -2},
        "balanced": {"attack": 0, "defense": 0},
        "defensive": {"attack": -2, "defense": 2},
    },
    "wound_classes": [
        {"class": "scratch", "min": 1, "penalty": 0, "bleed": 0, "forces": None},
        {"class": "light", "min": 3, "penalty": 1, "bleed": 0, "forces": None},
        {"class": "moderate", "min": 6, "penalty": 2, "bleed": 1, "forces": None},
        {"class": "severe", "min": 9, "penalty": 3, "bleed": 2, "forces": None},
        {"class": "critical", "min": 12, "penalty": 5, "bleed": 3, "forces": "unconscious"},
        {"class": "mortal", "min": 15, "penalty": 0, "bleed": 0, "forces": "dead"},
    ],
    "armory": {
        "unarmed": {"delay": 1, "damage": "1d2"},
        "dagger": {"delay": 2, "damage": "1d4"},
        "short_sword": {"delay": 3, "damage": "1d6"},
        "spear": {"delay": 4, "damage": "1d6+1"},
        "mace": {"delay": 4, "damage": "1d6+1"},
        "short_bow": {"delay": 4, "damage": "1d6"},
        "long_sword": {"delay": 5, "damage": "1d8"},
        "battle_axe": {"delay": 6, "damage": "1d8+1"},
        "war_hammer": {"delay": 6, "damage": "1d10"},
        "long_bow": {"delay": 6, "damage": "1d8"},
        "two_handed_sword": {"delay": 8, "damage": "2d6"},
        "halberd": {"delay": 9, "damage": "1d10+2"},
        "crossbow": {"delay": 9, "damage": "1d10"},
    },
    "armor": {"none": 0, "leather": 1, "gambeson": 2, "chain_mail": 3, "scale": 4, "plate": 6},
}

# Bounds of the top-level numbers; the spec fixes delay_die (2..100) and turn_length (>= 1).
NUMBER_BOUNDS = {
    "delay_die": (2, 100),
    "technical_action_penalty": (0, 100),
    "turn_length": (1, 1000),
    "margin_divisor": (1, 100),
    "first_aid_delay": (0, 50),
    "natural_hit": (1, 20),
    "natural_miss": (1, 20),
}
BROKEN_AT_BOUNDS = (1, 1000)  # or null: wounds never break a long action
MERGED_BY_ENTRY = ("stances", "armory", "armor")
MAX_ENTRIES = 100
NAME_LENGTH = (1, 64)


@dataclass(frozen=True, slots=True)
class Stance:
    attack: int
    defense: int


@dataclass(frozen=True, slots=True)
class WoundClass:
    name: str
    min: int
    penalty: int
    bleed: int
    forces: str | None
    wound: Wound  # the wound this class inflicts, built once: it is immutable, and wounds are frequent


@dataclass(frozen=True, slots=True)
class WeaponProfile:
    name: str
    delay: int
    damage: DamageDice


@dataclass(frozen=True, slots=True)
class Ruleset:
    delay_die: int
    technical_action_penalty: int
    turn_length: int
    margin_divisor: int
    first_aid_delay: int
    natural_hit: int
    natural_miss: int
    long_action_broken_at: int | None  # the effective blow that breaks a long action; None: none does
    stances: Mapping[str, Stance]
    wound_classes: tuple[WoundClass, ...]
    armory: Mapping[str, WeaponProfile]
    armor: Mapping[str, int]
    document: Mapping[str, Any]  # the merged JSON document this ruleset was built from

    def wound_class(self, name: str) -> WoundClass | None:
        return next((row for row in self.wound_classes if row.name == name), None)

    def wound_for(self, effective_blow: int) -> WoundClass | None:
        """The row covering this effective blow, or None when it is deflected."""
        found = None
        for row in self.wound_classes:  # at most a handful of rows: a scan beats bisect's setup
            if effective_blow < row.min:
                break
            found = row
        return found


def merge_overrides(base: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """Numbers and wound_classes replace; stances, armory and armor merge entry by entry.

    An override of an existing stance or armory entry may name only the fields it changes.
    """
    merged = copy.deepcopy(dict(base))
    issues = Issues()
    if overrides is None:
        return merged
    if not isinstance(overrides, Mapping):
        issues.add("/rules", "must be an object")
        issues.raise_if_any(InvalidRuleset)
    for key, value in overrides.items():
        if key not in DEFAULT_RULES:
            issues.add(f"/rules/{key}", "unknown ruleset key")
        elif key in MERGED_BY_ENTRY:
            if not isinstance(value, Mapping):
                issues.add(f"/rules/{key}", "must be an object")
                continue
            for name, entry in value.items():
                current = merged[key].get(name)
                if isinstance(current, dict) and isinstance(entry, Mapping):
                    merged[key][name] = {**current, **entry}
                else:
                    merged[key][name] = copy.deepcopy(entry)
        else:
            merged[key] = copy.deepcopy(value)
    issues.raise_if_any(InvalidRuleset)
    return merged


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_int(issues: Issues, field: str, value: Any, low: int, high: int) -> bool:
    if not _is_int(value):
        issues.add(field, "must be an integer")
        return False
    if not low <= value <= high:
        issues.add(field, f"must be within {low}..{high}")
        return False
    return True


def _check_name(issues: Issues, field: str, name: Any) -> None:
    if not isinstance(name, str) or not NAME_LENGTH[0] <= len(name) <= NAME_LENGTH[1]:
        issues.add(field, f"names must be strings of {NAME_LENGTH[0]}..{NAME_LENGTH[1]} characters")


def _check_entries(issues: Issues, key: str, value: Any) -> bool:
    if not isinstance(value, Mapping):
        issues.add(f"/rules/{key}", "must be an object")
        return False
    if len(value) > MAX_ENTRIES:
        issues.add(f"/rules/{key}", f"at most {MAX_ENTRIES} entries")
        return False
    for name in value:
        _check_name(issues, f"/rules/{key}/{name}", name)
    return True


def _build_stances(issues: Issues, value: Any) -> dict[str, Stance]:
    stances: dict[str, Stance] = {}
    if not _check_entries(issues, "stances", value):
        return stances
    if "balanced" not in value:
        issues.add("/rules/stances", "must keep 'balanced': it is the stance of anyone who declares none")
    for name, entry in value.items():
        field = f"/rules/stances/{name}"
        if not isinstance(entry, Mapping) or set(entry) != {"attack", "defense"}:
            issues.add(field, "must be {attack, defense}")
            continue
        ok = all([_check_int(issues, f"{field}/{part}", entry[part], -100, 100) for part in ("attack", "defense")])
        if ok:
            stances[name] = Stance(entry["attack"], entry["defense"])
    return stances


def _build_wound_classes(issues: Issues, value: Any) -> tuple[WoundClass, ...]:
    field = "/rules/wound_classes"
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_ENTRIES:
        issues.add(field, f"must be a list of 1..{MAX_ENTRIES} rows")
        return ()
    rows: list[WoundClass] = []
    for index, row in enumerate(value):
        here = f"{field}/{index}"
        if not isinstance(row, Mapping) or set(row) != {"class", "min", "penalty", "bleed", "forces"}:
            issues.add(here, "must be {class, min, penalty, bleed, forces}")
            continue
        _check_name(issues, f"{here}/class", row["class"])
        ok = _check_int(issues, f"{here}/min", row["min"], -1000, 1000)
        ok &= _check_int(issues, f"{here}/penalty", row["penalty"], 0, 100)
        ok &= _check_int(issues, f"{here}/bleed", row["bleed"], 0, 100)
        if row["forces"] not in (None, "unconscious", "dead"):
            issues.add(f"{here}/forces", "must be null, 'unconscious' or 'dead'")
            ok = False
        if ok:
            name, penalty, bleed = row["class"], row["penalty"], row["bleed"]
            rows.append(WoundClass(name, row["min"], penalty, bleed, row["forces"], Wound(name, penalty, bleed)))
    if any(later.min <= earlier.min for earlier, later in zip(rows, rows[1:])):
        issues.add(field, "rows must be ordered by strictly increasing min")
    if len({row.name for row in rows}) != len(rows):
        issues.add(field, "class names must be distinct")
    return tuple(rows)


def _build_armory(issues: Issues, value: Any) -> dict[str, WeaponProfile]:
    armory: dict[str, WeaponProfile] = {}
    if not _check_entries(issues, "armory", value):
        return armory
    for name, entry in value.items():
        field = f"/rules/armory/{name}"
        if not isinstance(entry, Mapping) or set(entry) != {"delay", "damage"}:
            issues.add(field, "must be {delay, damage}")
            continue
        if not _check_int(issues, f"{field}/delay", entry["delay"], 0, 50):
            continue
        try:
            damage = parse_damage(entry["damage"], f"{field}/damage")
        except (InvalidNotation, TypeError) as error:
            issues.found.extend(getattr(error, "issues", ()))
            continue
        armory[name] = WeaponProfile(name, entry["delay"], damage)
    return armory


def _build_armor(issues: Issues, value: Any) -> dict[str, int]:
    if not _check_entries(issues, "armor", value):
        return {}
    return {
        name: points for name, points in value.items() if _check_int(issues, f"/rules/armor/{name}", points, 0, 100)
    }


def build_ruleset_from_document(document: Mapping[str, Any]) -> Ruleset:
    """Validate a complete ruleset document and turn it into a Ruleset."""
    issues = Issues()
    for key in DEFAULT_RULES:
        if key not in document:
            issues.add(f"/rules/{key}", "missing")
    issues.raise_if_any(InvalidRuleset)
    for key, (low, high) in NUMBER_BOUNDS.items():
        _check_int(issues, f"/rules/{key}", document[key], low, high)
    # natural_hit equal to natural_miss is allowed: that roll misses (docs/rules.md: Attack, defense, blow, wound)
    broken_at = document["long_action_broken_at"]
    if broken_at is not None:
        _check_int(issues, "/rules/long_action_broken_at", broken_at, *BROKEN_AT_BOUNDS)
    stances = _build_stances(issues, document["stances"])
    wound_classes = _build_wound_classes(issues, document["wound_classes"])
    armory = _build_armory(issues, document["armory"])
    armor = _build_armor(issues, document["armor"])
    issues.raise_if_any(InvalidRuleset)
    return Ruleset(
        **{key: document[key] for key in NUMBER_BOUNDS},
        long_action_broken_at=broken_at,
        stances=MappingProxyType(stances),
        wound_classes=wound_classes,
        armory=MappingProxyType(armory),
        armor=MappingProxyType(armor),
        document=MappingProxyType(copy.deepcopy(dict(document))),
    )


@lru_cache(maxsize=256)
def _build_cached(canonical_overrides: str) -> Ruleset:
    overrides = json.loads(canonical_overrides)
    return build_ruleset_from_document(merge_overrides(DEFAULT_RULES, overrides))


def build_ruleset(overrides: Mapping[str, Any] | None = None) -> Ruleset:
    """The default ruleset with per-encounter overrides applied and validated.

    Rulesets are immutable, so equal overrides share one cached instance: encounters mostly
    use the same handful, and rebuilding the armory on every round would be wasted work.
    """
    try:
        canonical = json.dumps(overrides or {}, sort_keys=True)
    except (TypeError, ValueError):
        issues = Issues()
        issues.add("/rules", "must be a JSON object")
        issues.raise_if_any(InvalidRuleset)
    return _build_cached(canonical)


DEFAULT_RULESET = build_ruleset()
