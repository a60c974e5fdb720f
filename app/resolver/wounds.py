"""RULES.md sections 6 and 7: wounds a combatant carries, the status they force, bleeding per turn."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import BloodLoss, Combatant, Status, Wound
from .ruleset import STATUSES, Ruleset, WoundClass

SEVERITY = {status: rank for rank, status in enumerate(STATUSES)}


def worse(current: Status, forced: str | None) -> Status:
    """The more severe of two statuses: a status never goes back."""
    if forced is None or SEVERITY[forced] <= SEVERITY[current]:
        return current
    return forced  # type: ignore[return-value]


def fill_wound(wound: Wound, ruleset: Ruleset) -> Wound:
    """A wound with penalty and bleed taken from its class's row where not given."""
    if wound.penalty is not None and wound.bleed is not None:
        return wound
    row = ruleset.wound_class(wound.cls)
    assert row is not None  # validated before resolving
    return Wound(
        wound.cls,
        row.penalty if wound.penalty is None else wound.penalty,
        row.bleed if wound.bleed is None else wound.bleed,
    )


@dataclass(slots=True)
class LiveCombatant:
    """A combatant's state while its round is being resolved (mutable, private to one round)."""

    combatant: Combatant
    status: Status
    blood: int
    weapon_ready: bool
    wounds: list[Wound] = field(default_factory=list)
    penalty: int = 0
    stance: str = "balanced"  # declared for this round

    @classmethod
    def start(cls, combatant: Combatant, ruleset: Ruleset) -> LiveCombatant:
        blood = combatant.vitality if combatant.blood is None else combatant.blood
        if not combatant.wounds:
            return cls(combatant, combatant.status, blood, combatant.weapon_ready, [], 0)
        wounds = [fill_wound(wound, ruleset) for wound in combatant.wounds]
        return cls(
            combatant, combatant.status, blood, combatant.weapon_ready, wounds, sum(w.penalty or 0 for w in wounds)
        )

    def take_wound(self, row: WoundClass) -> None:
        self.wounds.append(Wound(row.name, row.penalty, row.bleed))
        self.penalty += row.penalty
        self.status = worse(self.status, row.forces)

    def stop_bleeding(self, wounds_before: int) -> None:
        """First aid: the wounds that stood when the tick began stop bleeding."""
        for index in range(wounds_before):
            wound = self.wounds[index]
            if wound.bleed:
                self.wounds[index] = Wound(wound.cls, wound.penalty, 0)


def settle_turn(live: list[LiveCombatant]) -> tuple[BloodLoss, ...]:
    """End of a turn: the living bleed, then blood decides who drops. Reported in combatant order."""
    losses = []
    for c in live:
        if c.status == "dead":
            continue  # a dead combatant never changes again
        lost = sum(w.bleed or 0 for w in c.wounds)
        c.blood -= lost
        if c.blood <= -c.combatant.vitality:
            c.status = "dead"
        elif c.blood <= 0:
            c.status = worse(c.status, "unconscious")
        if lost:
            losses.append(BloodLoss(c.combatant.id, lost, c.blood, c.status))
    return tuple(losses)
