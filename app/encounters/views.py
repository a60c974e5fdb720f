"""Encounter records and combatant rows -> read schemas, shared by routers and by services that store a reply."""

from __future__ import annotations

from app.encounters.schemas import CombatantRead, EncounterRead
from app.encounters.store import CombatantRow, EncounterRecord
from app.resolver import build_ruleset


def combatant_read(row: CombatantRow) -> CombatantRead:
    return CombatantRead.model_validate({**row, "penalty": sum(w["penalty"] for w in row["wounds"])})


def encounter_read(encounter: EncounterRecord) -> EncounterRead:
    ruleset = build_ruleset(encounter.rules)
    return EncounterRead(
        id=encounter.id,
        name=encounter.name,
        round=encounter.round,
        version=encounter.version,
        created_at=encounter.created_at,
        updated_at=encounter.updated_at,
        turn=encounter.round // ruleset.turn_length + 1,
        rules=encounter.rules,
        ruleset=dict(ruleset.document),
        combatants=[combatant_read(c) for c in encounter.combatants],
    )
