"""Effects a game master puts on a combatant or takes off (docs/rules.md: Effects; README.md, "Effects and long
actions").

Each change is one transaction like every other change of an encounter: read it, decide, claim the next
version (the ETag), write the combatant's new `effects` list, and keep the reply with its Idempotency-Key.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import screen, store
from app.encounters.combatants import find_combatant
from app.encounters.convert import CombatantRow, EncounterRecord
from app.encounters.errors import require_unfinished
from app.encounters.ids import new_effect_id
from app.encounters.schemas.encounter import EffectCreate
from app.platform.changefeed import Change, announce
from app.platform.db import Database
from app.platform.errors import NotFound, Unprocessable
from app.platform.versions import ANY_VERSION, ExpectedVersion, Versioned
from app.resolver import bounds, build_ruleset
from app.resolver.errors import Issues


def until_round(encounter: EncounterRecord, data: EffectCreate) -> int | None:
    """The last round the effect is active in: `rounds` full rounds after the latest one, or `turns` turns of
    the encounter's turn_length (latest round 0, turns 1, turn_length 10: round 10). None: until removed."""
    if data.rounds is not None:
        last, field = encounter.round + data.rounds, "/rounds"
    elif data.turns is not None:
        last, field = encounter.round + data.turns * build_ruleset(encounter.rules).turn_length, "/turns"
    else:
        return None
    if last > bounds.UNTIL_ROUND[1]:
        issues = Issues()
        issues.add(field, f"the effect would last past round {bounds.UNTIL_ROUND[1]}, the last a round may be")
        issues.raise_if_any()
    return last


def _unused_id(effects: list[dict[str, Any]]) -> str:
    taken = {e["id"] for e in effects}
    while (effect_id := new_effect_id()) in taken:
        pass  # twelve hex digits: a second draw is already unlikely
    return effect_id


def find_effect(encounter: EncounterRecord, row: CombatantRow, effect_id: str) -> dict[str, Any]:
    effects: list[dict[str, Any]] = row["effects"]
    for effect in effects:
        if effect["id"] == effect_id:
            return effect
    raise NotFound(f"Combatant {row['id']} of encounter {encounter.id} has no effect {effect_id}.")


async def get(
    database: Database,
    *,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    effect_id: str,
    screened: bool = False,
) -> tuple[dict[str, Any], int]:
    """One effect as stored, and the encounter's version (its ETag); none of a hidden combatant's for a
    player or viewer (`screened`)."""
    encounter = await store.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    seen = screen.visible(encounter) if screened else encounter
    return find_effect(seen, find_combatant(seen, combatant_id), effect_id), encounter.version


async def add(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    data: EffectCreate,
    expected: ExpectedVersion = ANY_VERSION,
) -> Versioned[dict[str, Any]]:
    """The effect as stored (its id and until_round are the service's), and the encounter's new version."""
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    require_unfinished(encounter)
    row = find_combatant(encounter, combatant_id)
    if len(row["effects"]) >= bounds.MAX_EFFECTS:
        raise Unprocessable(
            f"Combatant {combatant_id} already carries {len(row['effects'])} effects; this endpoint puts on "
            f"at most {bounds.MAX_EFFECTS}. Remove one first."
        )
    modifiers = data.model_dump(include={"name", "attack", "defense", "initiative", "blood_per_turn"})
    effect = {"id": _unused_id(row["effects"]), **modifiers, "until_round": until_round(encounter, data)}
    version = await store.bump_version(session, encounter_id, encounter.version)
    await store.write_effects(session, combatant_id, [*row["effects"], effect])
    await announce(session, Change.of_encounter(encounter_id, version))  # delivered at commit
    return Versioned(effect, version)


async def remove(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    combatant_id: str,
    effect_id: str,
    expected: ExpectedVersion = ANY_VERSION,
) -> int:
    """The encounter's new version; 404 when the combatant carries no such effect (nothing written then)."""
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    require_unfinished(encounter)
    row = find_combatant(encounter, combatant_id)
    find_effect(encounter, row, effect_id)
    version = await store.bump_version(session, encounter_id, encounter.version)
    await store.write_effects(session, combatant_id, [e for e in row["effects"] if e["id"] != effect_id])
    await announce(session, Change.of_encounter(encounter_id, version))
    return version
