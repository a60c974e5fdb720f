"""ORM rows -> read schemas, shared by routers and by services that store a reply."""

from __future__ import annotations

from app.encounters.models import Combatant, Encounter
from app.encounters.schemas import CombatantRead, EncounterRead
from app.resolver import build_ruleset


def combatant_read(row: Combatant) -> CombatantRead:
    return CombatantRead(
        id=row.id,
        name=row.name,
        side=row.side,
        initiative=row.initiative,
        attack=row.attack,
        defense=row.defense,
        weapon=row.weapon,
        attacks_per_round=row.attacks_per_round,
        weapon_ready=row.weapon_ready,
        damage_bonus=row.damage_bonus,
        armor=row.armor,
        toughness=row.toughness,
        vitality=row.vitality,
        blood=row.blood,
        status=row.status,
        wounds=row.wounds,
        penalty=sum(w["penalty"] for w in row.wounds),
    )


def encounter_read(encounter: Encounter) -> EncounterRead:
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
