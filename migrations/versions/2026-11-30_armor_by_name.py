"""A stored combatant's armor may be a name from the ruleset's armor table, kept as given: armor_name beside
the points, exactly one of the two set.

Downgrade turns each name into the points it counts for in its encounter's ruleset (the default table as it
stood with this revision, merged with the encounter's own overrides), in the combatants and in the rounds'
snapshots that undo restores; the names themselves are lost, as the older schema has no place for them.

Revision ID: 9b4c2e71d0a6
Revises: 5e1d0a7c93b2
Create Date: 2026-11-30 17:55:00
"""

from typing import Any

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = "9b4c2e71d0a6"
down_revision = "5e1d0a7c93b2"
branch_labels = None
depends_on = None

CHECK = "ck_combatants_armor_points_or_name"
# The ruleset's default armor table when this revision was written (RULES.md section 11); frozen here, so a
# later change to the defaults does not change what this downgrade does.
DEFAULT_ARMOR = {"none": 0, "leather": 1, "gambeson": 2, "chain_mail": 3, "scale": 4, "plate": 6}
JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")

encounters = sa.table("encounters", sa.column("id", sa.String), sa.column("rules", JSON_DOCUMENT))
combatants = sa.table(
    "combatants",
    sa.column("id", sa.String),
    sa.column("encounter_id", sa.String),
    sa.column("armor", sa.Integer),
    sa.column("armor_name", sa.String),
)
rounds = sa.table(
    "rounds",
    sa.column("id", sa.Integer),
    sa.column("encounter_id", sa.String),
    sa.column("state_before", JSON_DOCUMENT),
    sa.column("state_after", JSON_DOCUMENT),
)


def upgrade() -> None:
    with op.batch_alter_table("combatants", schema=None) as batch_op:
        batch_op.add_column(sa.Column("armor_name", sa.String(length=100), nullable=True))
        batch_op.alter_column("armor", existing_type=sa.Integer(), nullable=True)
        batch_op.create_check_constraint(op.f(CHECK), "(armor IS NULL) <> (armor_name IS NULL)")


def _points(table: dict[str, int], armor: Any) -> Any:
    if isinstance(armor, str):
        points = table.get(armor, 0)  # every name was checked against the ruleset when stored or re-ruled
        return points if isinstance(points, int) else 0
    return armor


def _snapshot_points(table: dict[str, int], combatants_saved: Any) -> tuple[Any, bool]:
    changed = False
    for saved in combatants_saved or ():
        if isinstance(saved, dict) and isinstance(saved.get("armor"), str):
            saved["armor"] = _points(table, saved["armor"])
            changed = True
    return combatants_saved, changed


def downgrade() -> None:
    connection = op.get_bind()
    tables = {}
    for encounter_id, rules in connection.execute(sa.select(encounters.c.id, encounters.c.rules)):
        overrides = (rules or {}).get("armor") if isinstance(rules, dict) else None
        tables[encounter_id] = {**DEFAULT_ARMOR, **(overrides if isinstance(overrides, dict) else {})}
    named = connection.execute(
        sa.select(combatants.c.id, combatants.c.encounter_id, combatants.c.armor_name).where(
            combatants.c.armor_name.is_not(None)
        )
    ).all()
    for combatant_id, encounter_id, name in named:
        connection.execute(
            combatants.update()
            .where(combatants.c.id == combatant_id)
            .values(armor=_points(tables.get(encounter_id, DEFAULT_ARMOR), name), armor_name=None)
        )
    stored = connection.execute(
        sa.select(rounds.c.id, rounds.c.encounter_id, rounds.c.state_before, rounds.c.state_after)
    ).all()
    for round_id, encounter_id, before, after in stored:
        table = tables.get(encounter_id, DEFAULT_ARMOR)
        _, before_changed = _snapshot_points(table, (before or {}).get("combatants"))
        _, after_changed = _snapshot_points(table, after)
        if before_changed or after_changed:
            connection.execute(
                rounds.update().where(rounds.c.id == round_id).values(state_before=before, state_after=after)
            )
    with op.batch_alter_table("combatants", schema=None) as batch_op:
        batch_op.drop_constraint(op.f(CHECK), type_="check")
        batch_op.alter_column("armor", existing_type=sa.Integer(), nullable=False)
        batch_op.drop_column("armor_name")
