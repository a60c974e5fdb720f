"""The encounter aggregate's tables: encounters, their combatants, the declarations staged for the next
round and the round history. Every statement on them is in app/encounters/store.py."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, ForeignKey, Integer, String, Table, UniqueConstraint

from app.platform.db import JSONDocument, UTCDateTime, metadata, utcnow
from app.vocabulary.columns import armor_points_or_name, group_column, stat_block_columns

ENCOUNTERS = Table(
    "encounters",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("rules", JSONDocument, nullable=False, default=dict),  # overrides of the default ruleset
    Column("round", Integer, nullable=False, default=0),  # rounds resolved so far
    Column("version", Integer, nullable=False, default=1),  # bumped by every change: the ETag
    Column("next_position", Integer, nullable=False, default=0),  # order in which combatants were added
    Column("created_at", UTCDateTime, nullable=False, default=utcnow, index=True),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow, onupdate=utcnow),
    Column("finished_at", UTCDateTime),  # set by finish: the fight is over, changes are refused
    # What reopen needs: each linked character's state from just before the finish and its version after it.
    Column("finish_state", JSONDocument),
    # CONTRACT.md, "Roles and timing at the table": the declaration deadline. The due time lives here, so
    # whichever worker is up acts on it (app/encounters/deadlines.py); null: no clock running.
    Column("declaration_seconds", Integer),
    Column("auto_resolve", Boolean, nullable=False, default=False, server_default="0"),
    Column("declarations_due_at", UTCDateTime, index=True),
    # Moved by every staging and withdrawal (never the version, which is the ETag): a round resolved from a
    # snapshot checks it in its compare-and-set, so no declaration staged since can be left behind.
    Column("staging", Integer, nullable=False, default=0, server_default="0"),
)

COMBATANTS = Table(
    "combatants",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("encounter_id", ForeignKey("encounters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("position", Integer, nullable=False),
    Column("name", String(100)),
    Column("side", String(64)),  # None: its own side
    *stat_block_columns(),
    Column("effects", JSONDocument, nullable=False, default=list),  # docs/rules.md: Effects
    Column("long_action", JSONDocument, default=None),  # docs/rules.md: Long actions
    group_column(),
    Column(
        "hidden", Boolean, nullable=False, default=False, server_default="0"
    ),  # hidden from player and viewer tokens
    Column("name_forms", JSONDocument),  # the name's Polish forms for the chronicle, or null
    # Where it came from: a linked character of the roster (its wounds go back at the end), or a creature
    # of the bestiary (a copy). No foreign key: a deleted character or creature leaves the history alone.
    Column("character_id", String(36), index=True),
    Column("creature_id", String(36)),
    # A companion (an animal, a hireling) of another combatant of the encounter: whoever plays that one
    # plays this one too. No foreign key: undo restores rows in an order a constraint would not allow.
    Column("companion_of", String(36)),
    Column("reveal_at_round", Integer),  # a hidden reinforcement: the round that reveals it before resolving
    UniqueConstraint("encounter_id", "position"),
    armor_points_or_name(),
)

# A combatant's declaration for the next round, staged ahead of it. One per combatant: a second PUT
# replaces the first. Removing the combatant (or the encounter) removes it.
STAGED = Table(
    "staged_declarations",
    metadata,
    Column("combatant_id", ForeignKey("combatants.id", ondelete="CASCADE"), primary_key=True),
    Column("encounter_id", ForeignKey("encounters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("declaration", JSONDocument, nullable=False),  # the body's stance/action/technical_actions
    Column("dice", JSONDocument, nullable=False),  # only this combatant's keys
    Column("staged_at", UTCDateTime, nullable=False),
)

# Each resolved round with everything needed to read, replay and undo it.
ROUNDS = Table(
    "rounds",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("encounter_id", ForeignKey("encounters.id", ondelete="CASCADE"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("request", JSONDocument, nullable=False),  # declarations, dice given, seed asked for
    Column("document", JSONDocument, nullable=False),  # exactly what POST returned
    Column("state_before", JSONDocument, nullable=False),  # encounter + combatants, for undo
    Column("state_after", JSONDocument, nullable=False),  # every combatant, every field
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    # The backstop against a round resolved twice: one row per (encounter, number).
    UniqueConstraint("encounter_id", "number"),
)
