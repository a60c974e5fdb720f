"""Reinforcements (CONTRACT.md, "Roles and timing at the table"): a hidden combatant with `reveal_at_round`
n is revealed by round n before that round is resolved, so it takes part (with the declaration the game
master staged for it in advance). The round's own transaction reveals it; undo of round n restores the
snapshot taken before it, hidden, its arrival still ahead."""

from __future__ import annotations

from collections.abc import Iterable

from app.encounters.convert import CombatantRow
from app.encounters.errors import InvalidTableRole


def check(*, latest_round: int, hidden: bool, reveal_at_round: int | None, pointer: str = "") -> None:
    """422 for an arrival not after the latest round, or on a combatant the players already see."""
    if reveal_at_round is None:
        return
    why = None
    if not hidden:
        why = "only a hidden combatant arrives later: this one is visible (hide it too, or leave reveal_at_round out)"
    elif reveal_at_round <= latest_round:
        why = f"round {reveal_at_round} is not after the latest round ({latest_round})"
    if why is not None:
        raise InvalidTableRole(
            f"reveal_at_round: {why}.", errors=[{"in": "body", "pointer": f"{pointer}/reveal_at_round", "detail": why}]
        )


def arriving(rows: Iterable[CombatantRow], number: int) -> frozenset[str]:
    """The hidden combatants round `number` reveals before it is resolved."""
    return frozenset(row["id"] for row in rows if row["hidden"] and row["reveal_at_round"] == number)


def waiting(rows: Iterable[CombatantRow], number: int) -> frozenset[str]:
    """The hidden reinforcements that arrive after round `number`: a declaration staged for one waits."""
    return frozenset(row["id"] for row in rows if row["hidden"] and (row["reveal_at_round"] or 0) > number)
