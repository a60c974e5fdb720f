"""The statistics' use cases: read the stored rounds once, count them (counting.py, campaign.py)."""

from __future__ import annotations

from typing import Any

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


async def for_encounter(database: Database, *, campaign_id: str, encounter_id: str, screened: bool) -> dict[str, Any]:
    """GET /v1/encounters/{id}/stats: counted from rounds 1..latest; for a token, as the round documents
    read for it (no hidden combatant's counts, series points or actions on it)."""
    encounter = await encounters.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    rounds = await store.rounds_of(database, encounter_id, encounter.round)
    current = encounter.combatants
    if screened:
        hidden = screen.hidden_ids(encounter.combatants)
        rounds = [screened_round(stored, hidden) for stored in rounds]
        current = tuple(row for row in current if row["id"] not in hidden)
    return encounter_stats(encounter_id, rounds, current)


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
