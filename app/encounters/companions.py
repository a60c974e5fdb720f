"""Companions (CONTRACT.md, "Roles and timing at the table"): a combatant may be the companion of another of
its encounter, and whoever plays that one plays it too. Checked here: not itself, the same encounter, no
chains (a master is no one's companion, a companion has none of its own). Who controls what is read here too.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.access.auth import Forbidden
from app.access.service import Principal
from app.encounters.convert import CombatantRow
from app.encounters.errors import InvalidTableRole


def check(
    combatants: Iterable[CombatantRow], combatant_id: str | None, companion_of: str | None, pointer: str = ""
) -> None:
    """Refuse (422, naming why) a `companion_of` that names the combatant itself, no combatant of this
    encounter, or that would make a chain. `combatant_id` is None for a combatant not made yet."""
    if companion_of is None:
        return
    rows = {row["id"]: row for row in combatants}
    why = None
    if companion_of == combatant_id:
        why = "a combatant cannot be its own companion"
    elif companion_of not in rows:
        why = f"{companion_of!r} is not a combatant of this encounter"
    elif rows[companion_of]["companion_of"] is not None:
        why = (
            f"{companion_of!r} is itself a companion of {rows[companion_of]['companion_of']!r}: companions "
            "form no chains, name that one instead"
        )
    elif combatant_id is not None and any(row["companion_of"] == combatant_id for row in rows.values()):
        why = f"{combatant_id!r} has companions of its own: companions form no chains"
    if why is not None:
        raise InvalidTableRole(
            f"companion_of: {why}.", errors=[{"in": "body", "pointer": f"{pointer}/companion_of", "detail": why}]
        )


def of(combatants: Iterable[CombatantRow], master: str | None) -> list[str]:
    """The master (if it is one of `combatants`) and its companions, in the encounter's order, master first."""
    rows = list(combatants)
    if master is None or all(row["id"] != master for row in rows):
        return []
    return [master, *(row["id"] for row in rows if row["companion_of"] == master)]


def controlled_by(principal: Principal, combatants: Iterable[CombatantRow]) -> list[str]:
    """The combatants a caller plays: a player token its own and that one's companions (its own first)."""
    return of(combatants, principal.combatant_id) if principal.role == "player" else []


def require_control(principal: Principal, combatants: Iterable[CombatantRow], combatant_id: str) -> None:
    """403 unless the caller is a game master or a player token controlling this combatant."""
    if principal.is_owner or combatant_id in controlled_by(principal, combatants):
        return
    raise Forbidden("Only the campaign's key, or the player token of this combatant (or of its master), can do this.")


def companions_of(combatants: Iterable[CombatantRow], master: str) -> list[str]:
    """Who stops being a companion when `master` leaves the encounter."""
    return [row["id"] for row in combatants if row["companion_of"] == master]
