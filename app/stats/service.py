"""The statistics' use cases: read the stored rounds once, count them (counting.py, campaign.py)."""

from __future__ import annotations

from typing import Any

from cachetools import LRUCache

from app.encounters import screen
from app.encounters import store as encounters
from app.platform.db import Database

from . import store
from .campaign import campaign_stats
from .counting import StoredRound, count_fight, encounter_stats


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


async def for_encounter(database: Database, *, campaign_id: str, encounter_id: str, screened: bool) -> dict[str, Any]:
    """GET /v1/encounters/{id}/stats: counted from rounds 1..latest; for a token, as the round documents
    read for it (no hidden combatant's counts, series points or actions on it)."""
    encounter = await encounters.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    hidden = screen.hidden_ids(encounter.combatants) if screened else frozenset()
    key = (encounter_id, encounter.version, hidden)
    counted = _counted.get(key)
    if counted is not None:
        return counted
    rounds = await store.rounds_of(database, encounter_id, encounter.round)
    current = encounter.combatants
    if hidden:
        rounds = [screened_round(stored, hidden) for stored in rounds]
        current = tuple(row for row in current if row["id"] not in hidden)
    counted = _counted[key] = encounter_stats(encounter_id, rounds, current)
    return counted


async def for_campaign(database: Database, *, campaign_id: str) -> dict[str, Any]:
    """GET /v1/campaign/stats (the owner's): every encounter's rounds counted, summed per character and creature."""
    encounters_now = await store.campaign_encounters(database, campaign_id)
    rounds = await store.campaign_rounds(database, campaign_id)
    characters, creatures = await store.roster_and_bestiary(database, campaign_id)
    fights = []
    for encounter in encounters_now:
        stored = [r for r in rounds.get(encounter.id, []) if r.number <= encounter.round]
        fighters, _ = count_fight(stored)
        fights.append((encounter.finished_at is not None, fighters))
    return campaign_stats(
        fights, [{"id": c.id, "name": c.name} for c in characters], [{"id": c.id, "name": c.name} for c in creatures]
    )
