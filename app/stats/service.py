"""The statistics' use cases: read the stored rounds once, count them (counting.py, campaign.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import orjson
from cachetools import LRUCache

from app.encounters import screen
from app.encounters import store as encounters
from app.platform.db import Database

from . import store
from .campaign import campaign_stats
from .counting import Fighter, StoredRound, count_fight, encounter_stats


def screened_round(stored: StoredRound, hidden: frozenset[str]) -> StoredRound:
    """The round as a player or viewer reads it: without the combatants hidden now."""
    if not hidden:
        return stored
    before = [row for row in stored.before if row["id"] not in hidden]
    document = screen.round_document(stored.document, hidden)
    return StoredRound(
        stored.number, stored.request, document, before, stored.natural_hit, stored.natural_miss, stored.forcing
    )


# Every screen at the table re-reads the statistics after each round: one count per version, per worker.
# An encounter's stored rounds change only with its version, so a version's statistics never go stale.
_counted: LRUCache[tuple[str, int, frozenset[str]], dict[str, Any]] = LRUCache(maxsize=32)


async def for_encounter(
    database: Database, *, campaign_id: str, encounter_id: str, screened: bool
) -> tuple[int, dict[str, Any]]:
    """GET /v1/encounters/{id}/stats: the encounter's version and its statistics counted from rounds
    1..latest; for a token, as the round documents read for it (no hidden combatant's counts, series points
    or actions on it)."""
    encounter = await encounters.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    hidden = screen.hidden_ids(encounter.combatants) if screened else frozenset()
    key = (encounter_id, encounter.version, hidden)
    counted = _counted.get(key)
    if counted is not None:
        return encounter.version, counted
    rounds = await store.rounds_of(database, encounter_id, encounter.round)
    current = encounter.combatants
    if hidden:
        rounds = [screened_round(stored, hidden) for stored in rounds]
        current = tuple(row for row in current if row["id"] not in hidden)
    counted = _counted[key] = encounter_stats(encounter_id, rounds, current)
    return encounter.version, counted


# An encounter's counted combatants, for the campaign's statistics: one count per version and worker, as
# above (a version's rounds never change), so a campaign's statistics read only the rounds of the encounters
# that changed since this worker last counted them.
_fights: LRUCache[tuple[str, int], list[Fighter]] = LRUCache(maxsize=2048)


def campaign_tag(encounters_now: Sequence[Any], characters: Sequence[Any], creatures: Sequence[Any]) -> str:
    """The campaign statistics' entity tag: everything they are counted from, by id and version (a
    character's or creature's name moves its version)."""
    listed = [("e", row.id, row.version) for row in encounters_now]
    listed += [("c", row.id, row.version) for row in characters] + [("b", row.id, row.version) for row in creatures]
    return '"campaign-stats.' + hashlib.blake2b(orjson.dumps(listed), digest_size=12).hexdigest() + '"'


async def for_campaign(database: Database, *, campaign_id: str) -> tuple[str, Callable[[], Awaitable[dict[str, Any]]]]:
    """GET /v1/campaign/stats (the owner's): its entity tag, and the statistics to count when the caller's
    copy is not current: every encounter's rounds counted, summed per character and creature."""
    encounters_now = await store.campaign_encounters(database, campaign_id)
    characters, creatures = await store.roster_and_bestiary(database, campaign_id)

    async def counted() -> dict[str, Any]:
        missing = [e.id for e in encounters_now if (e.id, e.version) not in _fights]
        rounds = await store.rounds_of_encounters(database, missing)
        fights = []
        for encounter in encounters_now:
            fighters = _fights.get((encounter.id, encounter.version))
            if fighters is None:
                stored = [r for r in rounds.get(encounter.id, []) if r.number <= encounter.round]
                fighters = _fights[(encounter.id, encounter.version)] = count_fight(stored)[0]
            fights.append((encounter.finished_at is not None, fighters))
        return campaign_stats(
            fights,
            [{"id": c.id, "name": c.name} for c in characters],
            [{"id": c.id, "name": c.name} for c in creatures],
        )

    return campaign_tag(encounters_now, characters, creatures), counted
