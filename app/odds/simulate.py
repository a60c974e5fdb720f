"""Play a fight forward many times from one state (README.md, "Odds"). Pure: the standard library
and the resolver only, so a worker process can run it and any fight can be replayed round by round.

Policy: each round every active combatant attacks (all its attacks) one standing (active or
unconscious) combatant of another side, picked at random once per round, in a balanced stance; a
combatant carrying a long action declares nothing, so it goes on with it. A fight ends when at most
one side has anyone active, or after max_rounds rounds.

Seeds (seeds.py): fight k plays with fight_seed(seed, k); round r of it with round_seed(fight seed, r).
The round seed rolls the round's dice (the resolver's keys) and picks the targets (target_picks), so a
round is replayed exactly by POST /v1/resolve with that seed.

Two ways to play the same rounds: play_rounds, through resolve_round, with everything a round reports
(replays, and the rounds in which anyone carries a long action); and the Arena (arena.py), the same
rounds on bare numbers, which play_fight uses for the rest: most of a request's fights, all of it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from app.resolver.dice import DiceSource, SeededDice
from app.resolver.model import Attack, Combatant, CombatantState, Declaration, RoundInput, RoundResult
from app.resolver.round import resolve_round
from app.resolver.ruleset import STATUSES, Ruleset, WeaponProfile
from app.resolver.validate import validate_round

from .arena import Arena
from .seeds import pick, round_seed, target_picks

BALANCED = "balanced"


@dataclass(frozen=True, slots=True)
class FightSetup:
    """Everything a fight needs (a worker builds it from an OddsJob: a Ruleset does not pickle)."""

    combatants: tuple[Combatant, ...]
    sides: tuple[str, ...]  # one per combatant, in the same order
    ruleset: Ruleset
    first_round: int  # the number of the first round played (an encounter's next round)
    # docs/rules.md, Holding and groups: combatant id -> its group (whose members share one delay die), as
    # RoundInput.groups
    groups: Mapping[str, str] = field(default_factory=dict)
    # Declarations are immutable and the same (attacker, target) pair recurs in every fight: made
    # once, they cost a dict lookup instead of two frozen dataclasses per attacker and round.
    attacks: dict[tuple[str, str], Declaration] = field(default_factory=dict, compare=False, repr=False)
    # The weapon profiles the resolver's validation returns. The starting state is validated here,
    # with the policy's declarations; every later state is the resolver's own result and every later
    # declaration legal by construction (an active attacker, one standing foe, a stance just checked),
    # so the rounds skip the validation (resolve_round's checked_weapons): a fifth of their cost.
    weapons: Mapping[str, WeaponProfile] = field(init=False, compare=False, repr=False)
    arena: Arena = field(init=False, compare=False, repr=False)  # the same fights on bare numbers

    def __post_init__(self) -> None:
        policy = RoundInput(self.first_round, self.combatants, declarations_for(self, self.combatants, 0), self.groups)
        object.__setattr__(self, "weapons", validate_round(policy, self.ruleset, {}))
        arena = Arena(self.combatants, self.sides, self.ruleset, self.weapons, self.groups)
        object.__setattr__(self, "arena", arena)


@dataclass(frozen=True, slots=True)
class FightOutcome:
    winner: str | None  # None: a draw
    rounds: int
    statuses: tuple[str, ...]  # each combatant's status at the end, in setup order


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """One round of a fight as it was played: enough to send it to POST /v1/resolve again."""

    state: RoundInput
    seed: int
    result: RoundResult
    after: tuple[Combatant, ...]  # the combatants as the round left them


def active_sides(setup: FightSetup, combatants: Sequence[Combatant]) -> set[str]:
    return {side for side, c in zip(setup.sides, combatants) if c.status == "active"}


def declarations_for(setup: FightSetup, combatants: Sequence[Combatant], seed: int) -> tuple[Declaration, ...]:
    """The policy's declarations for one round; targets picked with the round's own seed."""
    sides = setup.sides
    standing = [(side, c.id) for side, c in zip(sides, combatants) if c.status != "dead"]
    foes_of: dict[str, list[str]] = {}
    picks = target_picks(seed, len(combatants))
    attacks = setup.attacks
    declarations = []
    for side, c, word in zip(sides, combatants, picks):
        if c.status != "active" or c.long_action is not None:
            continue  # a carried long action continues when its combatant declares nothing
        foes = foes_of.get(side)
        if foes is None:
            foes = foes_of[side] = [cid for foe_side, cid in standing if foe_side != side]
        if foes:
            pair = (c.id, foes[pick(word, len(foes))])
            declaration = attacks.get(pair)
            if declaration is None:
                declaration = attacks[pair] = Declaration(c.id, Attack((pair[1],)), BALANCED)
            declarations.append(declaration)
    return tuple(declarations)


def _after(combatants: Sequence[Combatant], result: RoundResult) -> tuple[Combatant, ...]:
    """The combatants as the round left them (what a round changes; the rest as given)."""
    return tuple(_with_state(c, s) for c, s in zip(combatants, result.combatants))


def _with_state(c: Combatant, s: CombatantState) -> Combatant:
    if (s.status, s.blood, s.weapon_ready, s.wounds, s.effects, s.long_action) == (
        c.status,
        c.blood,
        c.weapon_ready,
        c.wounds,
        c.effects,
        c.long_action,
    ):
        return c  # unchanged (most combatants in most rounds): no copy
    # Spelled out, not dataclasses.replace: compiled, replace's generic field walk was a quarter of a
    # fight's CPU. A test checks every field against the round's result or the combatant before it.
    return Combatant(
        id=c.id,
        initiative=c.initiative,
        attack=c.attack,
        defense=c.defense,
        weapon=c.weapon,
        attacks_per_round=c.attacks_per_round,
        weapon_ready=s.weapon_ready,
        damage_bonus=c.damage_bonus,
        armor=c.armor,
        toughness=c.toughness,
        vitality=c.vitality,
        blood=s.blood,
        status=s.status,
        wounds=s.wounds,
        effects=s.effects,
        long_action=s.long_action,
    )


def play_rounds(setup: FightSetup, seed: int, max_rounds: int) -> Iterator[PlayedRound]:
    """The rounds of one fight with fight seed `seed`, in order, until it ends."""
    combatants = setup.combatants
    for number in range(setup.first_round, setup.first_round + max_rounds):
        if len(active_sides(setup, combatants)) <= 1:
            return
        this_seed = round_seed(seed, number)
        state = RoundInput(number, combatants, declarations_for(setup, combatants, this_seed), setup.groups)
        result = resolve_round(
            state, setup.ruleset, cast(DiceSource, SeededDice(this_seed)), checked_weapons=setup.weapons
        )
        combatants = _after(combatants, result)
        yield PlayedRound(state, this_seed, result, combatants)


def play_fight(setup: FightSetup, seed: int, max_rounds: int) -> FightOutcome:
    """One fight with fight seed `seed`: on the Arena, after the rounds in which anyone carries a long action."""
    arena = setup.arena
    rounds = 0
    if any(c.long_action is not None for c in setup.combatants):
        combatants = setup.combatants
        for played in play_rounds(setup, seed, max_rounds):
            rounds += 1
            combatants = played.after
            if all(c.long_action is None for c in combatants):
                break  # the policy never starts one: the Arena plays the rest
        else:
            return outcome_of(setup, combatants, rounds)  # over before the last long action was
        fighters = arena.fighters(combatants)
    else:
        fighters = [f.copy() for f in arena.start]
    rounds += arena.fight(fighters, seed, setup.first_round + rounds, max_rounds - rounds)
    side = arena.winner(fighters)
    winner = arena.side_names[side] if side >= 0 else None
    return FightOutcome(winner, rounds, tuple([STATUSES[f.status] for f in fighters]))


def play_fight_by_rounds(setup: FightSetup, seed: int, max_rounds: int) -> FightOutcome:
    """The same fight as play_fight, every round through resolve_round: what the Arena is checked
    against (tests/odds/test_arena.py) and timed against (bench/odds_bench.py)."""
    combatants, rounds = setup.combatants, 0
    for played in play_rounds(setup, seed, max_rounds):
        combatants, rounds = played.after, rounds + 1
    return outcome_of(setup, combatants, rounds)


def outcome_of(setup: FightSetup, combatants: Sequence[Combatant], rounds: int) -> FightOutcome:
    sides = active_sides(setup, combatants)
    winner = next(iter(sides)) if len(sides) == 1 else None
    return FightOutcome(winner, rounds, tuple(c.status for c in combatants))
