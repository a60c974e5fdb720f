"""RULES.md sections 6, 7 and 12: a combatant's state while its round resolves, wounds, bleeding per turn."""

from __future__ import annotations

from dataclasses import dataclass

from .model import BloodLoss, Combatant, Effect, LongAction, Status, Wound
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


def armor_points(armor: int | str, ruleset: Ruleset) -> int:
    """A combatant's armor as a number: a key of the ruleset's armor table counts as its value."""
    return ruleset.armor[armor] if isinstance(armor, str) else armor


def is_active_in(effect: Effect, round: int) -> bool:
    """Section 12: an effect carried into a round counts unless its last round is already past."""
    return effect.until_round is None or effect.until_round >= round


@dataclass(slots=True)
class LiveCombatant:
    """A combatant's state while its round is being resolved (mutable, private to one round)."""

    combatant: Combatant
    status: Status
    blood: int
    weapon_ready: bool
    armor: int
    wounds: list[Wound]
    penalty: int
    effects: list[Effect]  # the active ones it kept, then those given this round
    effect_attack: int  # the sums over `effects`, kept in step with it
    effect_defense: int
    effect_initiative: int  # only the round's first scores read it: they are fixed when rolled
    long_action: LongAction | None  # None after it is lost: a continue entry later this round is interrupted
    stance: str = "balanced"  # declared for this round

    @classmethod
    def start(cls, combatant: Combatant, ruleset: Ruleset, round: int) -> LiveCombatant:
        blood = combatant.vitality if combatant.blood is None else combatant.blood
        armor = armor_points(combatant.armor, ruleset)
        wounds = [fill_wound(wound, ruleset) for wound in combatant.wounds] if combatant.wounds else []
        penalty = sum(w.penalty or 0 for w in wounds) if wounds else 0
        live = cls(
            combatant,
            combatant.status,
            blood,
            combatant.weapon_ready,
            armor,
            wounds,
            penalty,
            [],
            0,
            0,
            0,
            combatant.long_action,
        )
        if combatant.effects:
            if combatant.status == "dead":
                live.effects = list(combatant.effects)  # a dead combatant never changes again, nor counts
            else:
                for effect in combatant.effects:
                    if is_active_in(effect, round):  # one already over is ignored, and dropped
                        live.add_effect(effect)
        return live

    def add_effect(self, effect: Effect) -> None:
        self.effects.append(effect)
        self.effect_attack += effect.attack
        self.effect_defense += effect.defense
        self.effect_initiative += effect.initiative

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

    def drop_expired_effects(self, round: int) -> None:
        """The very end of a round: effects whose last round this was are removed (a dead one keeps its own)."""
        if self.effects and self.status != "dead":
            self.effects = [e for e in self.effects if e.until_round is None or e.until_round > round]


def settle_turn(live: list[LiveCombatant]) -> tuple[BloodLoss, ...]:
    """End of a turn (section 7): the living bleed and their effects drain or restore blood, then blood
    decides who drops, and whoever is no longer active loses its long action. Reported in combatant order."""
    losses = []
    for c in live:
        if c.status == "dead":
            continue  # a dead combatant never changes again
        total = sum(w.bleed or 0 for w in c.wounds)
        if c.effects:
            total += sum(e.blood_per_turn for e in c.effects)
        before = c.blood
        if total >= 0:
            c.blood -= total
        elif before < c.combatant.vitality:  # regaining stops at vitality; one above it regains nothing
            c.blood = min(c.combatant.vitality, before - total)
        if c.blood <= -c.combatant.vitality:
            c.status = "dead"
        elif c.blood <= 0:
            c.status = worse(c.status, "unconscious")
        if c.long_action is not None and c.status != "active":
            c.long_action = None
        if c.blood != before:
            losses.append(BloodLoss(c.combatant.id, before - c.blood, c.blood, c.status))
    return tuple(losses)
