"""The reads of the statistics: an encounter's stored rounds, a campaign's encounters, roster and bestiary."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import orjson
from sqlalchemy import bindparam, select

from app.campaign.tables import CHARACTERS, CREATURES
from app.encounters.tables import ENCOUNTERS, ROUNDS
from app.platform.db import Database
from app.resolver import build_ruleset

from .counting import StoredRound

ROUNDS_OF = (
    select(ROUNDS.c.number, ROUNDS.c.request, ROUNDS.c.document, ROUNDS.c.state_before)
    .where(ROUNDS.c.encounter_id == bindparam("encounter_id"), ROUNDS.c.number <= bindparam("latest"))
    .order_by(ROUNDS.c.number)
)
ENCOUNTERS_OF = (
    select(ENCOUNTERS.c.id, ENCOUNTERS.c.version, ENCOUNTERS.c.round, ENCOUNTERS.c.finished_at)
    .where(ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(ENCOUNTERS.c.created_at, ENCOUNTERS.c.id)
)
ROUNDS_OF_ENCOUNTERS = (
    select(ROUNDS.c.encounter_id, ROUNDS.c.number, ROUNDS.c.request, ROUNDS.c.document, ROUNDS.c.state_before)
    .where(ROUNDS.c.encounter_id.in_(bindparam("encounter_ids", expanding=True)))
    .order_by(ROUNDS.c.encounter_id, ROUNDS.c.number)
)
CHARACTERS_OF = (
    select(CHARACTERS.c.id, CHARACTERS.c.version, CHARACTERS.c.name)
    .where(CHARACTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(CHARACTERS.c.created_at, CHARACTERS.c.id)
)
CREATURES_OF = (
    select(CREATURES.c.id, CREATURES.c.version, CREATURES.c.name)
    .where(CREATURES.c.campaign_id == bindparam("campaign_id"))
    .order_by(CREATURES.c.created_at, CREATURES.c.id)
)


@functools.lru_cache(maxsize=256)
def _rules_read(rules_key: bytes) -> tuple[int, int, frozenset[str]]:
    """What counting reads of a ruleset: its natural hit and miss, and the wound classes that force a status."""
    ruleset = build_ruleset(orjson.loads(rules_key))
    forcing = frozenset(row.name for row in ruleset.wound_classes if row.forces is not None)
    return ruleset.natural_hit, ruleset.natural_miss, forcing


def stored_round(number: int, request: Any, document: Any, state_before: Any) -> StoredRound:
    rules = state_before.get("rules") or {}
    natural_hit, natural_miss, forcing = _rules_read(orjson.dumps(rules, option=orjson.OPT_SORT_KEYS))
    return StoredRound(number, request, document, state_before["combatants"], natural_hit, natural_miss, forcing)


async def rounds_of(database: Database, encounter_id: str, latest: int) -> list[StoredRound]:
    """Rounds 1..latest of the encounter (a round added since the encounter was read is left out)."""
    rows = await database.rows(ROUNDS_OF, {"encounter_id": encounter_id, "latest": latest})
    return [stored_round(row.number, row.request, row.document, row.state_before) for row in rows]


async def rounds_of_encounters(database: Database, encounter_ids: Sequence[str]) -> dict[str, list[StoredRound]]:
    """Every stored round of these encounters, by encounter, in order."""
    found: dict[str, list[StoredRound]] = {}
    if not encounter_ids:
        return found
    rows = await database.rows(ROUNDS_OF_ENCOUNTERS, {"encounter_ids": list(encounter_ids)})
    for row in rows:
        found.setdefault(row.encounter_id, []).append(
            stored_round(row.number, row.request, row.document, row.state_before)
        )
    return found


async def campaign_encounters(database: Database, campaign_id: str) -> Sequence[Any]:
    return await database.rows(ENCOUNTERS_OF, {"campaign_id": campaign_id})


async def roster_and_bestiary(database: Database, campaign_id: str) -> tuple[Sequence[Any], Sequence[Any]]:
    keys = {"campaign_id": campaign_id}
    return await database.rows(CHARACTERS_OF, keys), await database.rows(CREATURES_OF, keys)
