"""docs/rules.md, "Attack, defense, blow, wound", "Bleeding at the end of a turn" and "Effects": a combatant's state
while its round resolves, wounds, bleeding per turn."""

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


def filled_wounds(wounds: tuple[Wound, ...], ruleset: Ruleset) -> tuple[tuple[Wound, ...], int]:
    """The wounds with penalty and bleed filled in, and the sum of their penalties. Wounds a round
    reported are filled already, so in a fight played forward this only adds the penalties up."""
    penalty = 0
    for wound in wounds:
        if wound.penalty is None or wound.bleed is None:
            filled = tuple(fill_wound(w, ruleset) for w in wounds)
            return filled, sum(w.penalty or 0 for w in filled)
        penalty += wound.penalty
    return wounds, penalty


def armor_points(armor: int | str, ruleset: Ruleset) -> int:
    """A combatant's armor as a number: a key of the ruleset's armor table counts as its value."""
    return ruleset.armor[armor] if isinstance(armor, str) else armor


@dataclass(slots=True)
class LiveCombatant:
    """A combatant's state while its round is being resolved (mutable, private to one round)."""

    combatant: Combatant
    status: Status
    blood: int
    weapon_ready: bool
    armor: int
    # Tuples, replaced when they change: a combatant untouched by the round hands back the very
    # tuples it came with, uncopied, and the caller compares them at the cost of an identity check.
    wounds: tuple[Wound, ...]  # penalty and bleed filled in
    penalty: int
    effects: tuple[Effect, ...]  # the active ones it kept, then those given this round
    effect_attack: int  # the sums over `effects`, kept in step with it
    effect_defense: int
    effect_initiative: int  # only the round's first scores read it: they are fixed when rolled
    long_action: LongAction | None  # None after it is lost: a continue entry later this round is interrupted
    stance: str = "balanced"  # declared for this round

    @classmethod
    def start(cls, combatant: Combatant, ruleset: Ruleset, round: int) -> LiveCombatant:
        blood = combatant.vitality if combatant.blood is None else combatant.blood
        armor = armor_points(combatant.armor, ruleset)
        wounds, penalty = filled_wounds(combatant.wounds, ruleset)
        live = cls(
            combatant,
            combatant.status,
            blood,
            combatant.weapon_ready,
            armor,
            wounds,
            penalty,
            (),
            0,
            0,
            0,
            combatant.long_action,
        )
        if combatant.effects:
            if combatant.status == "dead":
                live.effects = combatant.effects  # a dead combatant never changes again, nor counts
            else:
                effects = combatant.effects
                if any(e.until_round is not None and e.until_round < round for e in effects):
                    effects = tuple(e for e in effects if e.until_round is None or e.until_round >= round)
                live.effects = effects  # one already over is ignored, and dropped
                live.effect_attack = sum(e.attack for e in effects)
                live.effect_defense = sum(e.defense for e in effects)
                live.effect_initiative = sum(e.initiative for e in effects)
        return live

    def add_effect(self, effect: Effect) -> None:
        self.effects += (effect,)
        self.effect_attack += effect.attack
        self.effect_defense += effect.defense
        self.effect_initiative += effect.initiative

    def take_wound(self, row: WoundClass) -> None:
        self.wounds += (row.wound,)
        self.penalty += row.penalty
        self.status = worse(self.status, row.forces)

    def stop_bleeding(self, wounds_before: int) -> None:
        """First aid: the wounds that stood when the tick began stop bleeding."""
        wounds = self.wounds
        stopped = tuple(Wound(w.cls, w.penalty, 0) if w.bleed else w for w in wounds[:wounds_before])
        self.wounds = stopped + wounds[wounds_before:]

    def drop_expired_effects(self, round: int) -> None:
        """The very end of a round: effects whose last round this was are removed (a dead one keeps its own)."""
        effects = self.effects
        if not effects or self.status == "dead":
            return
        if any(e.until_round is not None and e.until_round <= round for e in effects):
            self.effects = tuple(e for e in effects if e.until_round is None or e.until_round > round)


def settle_turn(live: list[LiveCombatant]) -> tuple[BloodLoss, ...]:
    """End of a turn (docs/rules.md: Bleeding at the end of a turn): the living bleed and their effects drain or
    restore blood, then blood
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
