"""A combatant's fields are declared once, by the resolver's Combatant; every other copy must agree.

The mappings derive their field lists from it; the table and the schemas are declared by hand (a
column and a Pydantic field each need their own type and bounds), so this test fails when they drift.
"""

from __future__ import annotations

from dataclasses import fields

from app.encounters.convert import ENCOUNTER_COLUMNS, RESOLVER_FIELDS, ROUND_CHANGES, ROW_FIELDS, EncounterRecord
from app.encounters.schemas.encounter import CombatantFields, CombatantRead, CombatantUpdate
from app.encounters.schemas.round import CombatantInRequest, CombatantStateRead
from app.encounters.tables import COMBATANTS, ENCOUNTERS
from app.resolver.codec import STATE_FIELDS
from app.resolver.model import CombatantState

RESOLVER = set(RESOLVER_FIELDS)  # id, initiative, ..., wounds
# a stored combatant also has a display name, a side (odds), whether it is hidden, and where it came from
STORED = RESOLVER | {"name", "side", "hidden", "character_id", "creature_id", "group"}
# armor: points in `armor` or a name in `armor_name` (a column has one type); the store folds them into one field
SPLIT_COLUMNS = {"armor_name"}


def test_the_resolver_codec_knows_every_field():
    assert set(STATE_FIELDS) == RESOLVER


def test_the_table_has_a_column_for_every_field():
    assert set(COMBATANTS.c.keys()) == STORED | {"encounter_id", "position"} | SPLIT_COLUMNS
    assert set(ROW_FIELDS) | {"id", "encounter_id"} | SPLIT_COLUMNS == set(COMBATANTS.c.keys())


ORIGIN = {"character_id", "creature_id"}  # set by the service (a linked character, a creature's copy)
READ_ORIGIN = {"character", "creature"}  # their names in a read


def test_every_schema_has_every_field():
    assert set(CombatantFields.model_fields) | {"id"} == STORED - ORIGIN
    assert set(CombatantInRequest.model_fields) == STORED - ORIGIN | READ_ORIGIN
    # effects change through their own endpoints, not through PATCH
    assert set(CombatantUpdate.model_fields) == set(CombatantFields.model_fields) - {"effects"}
    assert set(CombatantRead.model_fields) == STORED - ORIGIN | READ_ORIGIN | {"penalty"}


def test_what_a_round_changes_is_the_resolver_state():
    state = {f.name for f in fields(CombatantState)}
    assert set(ROUND_CHANGES) | {"id", "penalty"} == state
    assert set(CombatantStateRead.model_fields) == state


def test_the_encounter_record_has_every_column():
    assert set(ENCOUNTER_COLUMNS) == set(ENCOUNTERS.c.keys())
    assert {f.name for f in fields(EncounterRecord)} == set(ENCOUNTERS.c.keys()) | {"combatants"}


def test_the_stat_block_patch_is_its_fields_each_optional():
    """StatBlockPatch is written out for the type checker's sake; it must stay StatBlockFields made optional."""
    from app.vocabulary.columns import stat_block_columns
    from app.vocabulary.stat_block import StatBlockFields, StatBlockPatch

    def without_null(schema):
        kept = {k: v for k, v in schema.items() if k not in ("default", "description", "title")}
        if "anyOf" not in kept:
            return kept
        options = [without_null(option) for option in kept.pop("anyOf") if option != {"type": "null"}]
        return {**kept, **options[0]} if len(options) == 1 else {**kept, "anyOf": options}

    given = StatBlockFields.model_json_schema()["properties"]
    patched = StatBlockPatch.model_json_schema()["properties"]
    assert list(patched) == list(given)
    assert all(field.default is None for field in StatBlockPatch.model_fields.values())
    for name in given:
        assert without_null(patched[name]) == without_null(given[name]), name
    columns = {column.name for column in stat_block_columns()} - SPLIT_COLUMNS
    assert columns | {"group"} == set(StatBlockFields.model_fields)
