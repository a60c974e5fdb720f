"""A stat block's columns, declared once: the combatants', characters' and creatures' tables each compose
a fresh copy (a Column belongs to one table). In the order the tables were created, so no SELECT changes."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Column, Integer, String

from app.platform.db import JSONDocument


def stat_block_columns() -> list[Column]:  # type: ignore[type-arg]
    """initiative to wounds; `group` is placed by each table."""
    return [
        Column("initiative", Integer, nullable=False),
        Column("attack", Integer, nullable=False),
        Column("defense", Integer, nullable=False),
        Column("weapon", JSONDocument, nullable=False),  # an armory key (string) or an inline profile
        Column("attacks_per_round", Integer, nullable=False, default=1),
        Column("weapon_ready", Boolean, nullable=False, default=True),
        Column("damage_bonus", Integer, nullable=False, default=0),
        # Armor as the client gave it: points, or the name of a row of the ruleset's armor table, looked
        # up when a round is resolved. One of the two (armor_points_or_name); app/encounters/convert.py
        # folds them into `armor`.
        Column("armor", Integer),
        Column("armor_name", String(100)),
        Column("toughness", Integer, nullable=False, default=0),
        Column("vitality", Integer, nullable=False, default=10),
        Column("blood", Integer, nullable=False),
        Column("status", String(16), nullable=False, default="active"),
        Column("wounds", JSONDocument, nullable=False, default=list),
    ]


def group_column() -> Column:  # type: ignore[type-arg]
    """docs/rules.md, "Groups": members share their first action's delay die."""
    return Column("group", String(64))


def armor_points_or_name() -> CheckConstraint:
    return CheckConstraint("(armor IS NULL) <> (armor_name IS NULL)", name="armor_points_or_name")
