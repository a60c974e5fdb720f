"""A stat block's columns, declared once: the combatants', characters' and creatures' tables each compose
a fresh copy (a Column belongs to one table), in the order the tables were created, so no SELECT changes.
And the armor fold, once: points or a name in two columns, one `armor` field for the services."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

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


def armor_folded(row: Mapping[Any, Any] | Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A stat block's row as the services see it: `armor` as the client gave it, points or a name (a column
    has one type, so the table keeps a name in armor_name)."""
    folded = dict(row)
    armor_name = folded.pop("armor_name", None)
    if armor_name is not None:
        folded["armor"] = armor_name
    return folded


def armor_split(values: Mapping[str, Any]) -> dict[str, Any]:
    """The other way: column values for a row (or the part of one being changed)."""
    columns = dict(values)
    if "armor" in values:
        named = isinstance(values["armor"], str)
        columns["armor"], columns["armor_name"] = (None, values["armor"]) if named else (values["armor"], None)
    return columns
