"""The odds policy's fights played side by side: one numpy array per number, one row per fight.

The Arena (arena.py) plays one fight at a time on a few Python integers per combatant. Here the same
rounds are played for every fight of a batch at once: a round's dice are drawn for all of them together,
every action slot gets its section 5 key (the Arena's action_key) in every fight, one argsort per round
orders each fight's slots, and the slots are then walked by position: the k-th action of every fight in
one step. Ticks are kept exactly: a wound waits in `pending` until its fight's next tick begins (or the
round ends), so every action reads the state as its tick began, as the Arena and resolve_round do.

The rules and the policy are the Arena's, line for line (the same targets among the standing foes, the
same scores, hits, blows, wound classes, bleeding and effects). What differs is where the dice come from:
`NumpyDraws` (draws.py) draws them from one PCG64 stream seeded by the request (a timeline's point,
say), so the same seed gives the same fights on every machine; `KeyedDraws` (the tests') reads exactly
the dice the Arena rolls, fight by fight, from SeededDice, and with it every fight here ends exactly as
the same fight through resolve_round ends (tests/odds/test_vectorised.py). A fight in which anyone
carries a long action is not played here: `playable` says so, and app/odds/points.py plays it on the
Arena instead.

Fights that have ended drop out of the batch (their outcome is written down first), so the last long
fights do not drag the finished ones through every round.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

from app.resolver.wounds import SEVERITY

from .arena import ACTIVE, DEAD, SCORE_SHIFT, SEQ_BITS, TICK_SHIFT, UNCONSCIOUS, Arena
from .draws import Draws, RoundDraws
from .simulate import FightSetup
from .tally import Tally

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
NO_ACTION = np.iinfo(np.int64).max  # the key of an empty slot: sorts after every action


class Numbers:
    """What a fight never changes, one entry per combatant (in setup order), as arrays."""

    def __init__(self, arena: Arena) -> None:
        profiles = arena.profiles
        self.count = len(profiles)
        self.attacks_max = max(p.attacks for p in profiles)
        self.dice_max = max(len(p.damage_keys[0]) for p in profiles)

        def column(values: Sequence[int]) -> Ints:
            return np.array(values, dtype=np.int64)

        self.side = column([p.side for p in profiles])
        self.sides = len(arena.side_names)
        self.rank = column([p.rank for p in profiles])
        self.initiative = column([p.initiative for p in profiles])
        self.attack = column([p.attack for p in profiles])
        self.defense = column([p.defense for p in profiles])
        self.attacks = column([p.attacks for p in profiles])
        self.blow_bonus = column([p.blow_bonus for p in profiles])
        self.soak = column([p.armor + p.toughness for p in profiles])
        self.vitality = column([p.vitality for p in profiles])
        self.delay = column([p.delay for p in profiles])
        self.damage_sides = column([p.damage_sides for p in profiles])
        self.damage_dice = column([len(p.damage_keys[0]) for p in profiles])
        self.damage_used = np.arange(self.dice_max)[None, None, None, :] < self.damage_dice[None, :, None, None]
        # the members of a group share their first delay die: each member's first die is its group leader's
        leaders: dict[bytes, int] = {}
        self.first_die_of = column([leaders.setdefault(p.initiative_keys[0], p.index) for p in profiles])
        # section 5's key without the score (arena.action_key), per slot (combatant, attack)
        seqs = np.arange(self.attacks_max, dtype=np.int64)
        tie = ((arena_initiative_max() - self.initiative) << TICK_SHIFT) + (self.rank << SEQ_BITS)
        self.slot_tie = tie[:, None] + seqs[None, :] + 1  # (N, A)
        self.slot_used = seqs[None, :] < self.attacks[:, None]  # (N, A)
        ruleset = arena.ruleset
        rows = ruleset.wound_classes
        # The ruleset scans its rows in order and stops at the first whose min is above the blow: the rows
        # passed are those whose running maximum of mins is at most the blow.
        self.wound_bounds = np.maximum.accumulate(column([row.min for row in rows])) if rows else column([])
        self.wound_penalty = column([row.penalty for row in rows])
        self.wound_bleed = column([row.bleed for row in rows])
        self.wound_forces = column([0 if row.forces is None else SEVERITY[row.forces] for row in rows])

    def wound(self, penalty: Ints, bleed: Ints, status: Ints, at: Ints, whom: Ints, row: Ints) -> None:
        """Wound class `row` on combatant `whom` of fight `at` (one per fight: no index repeats)."""
        penalty[at, whom] += self.wound_penalty[row]
        bleed[at, whom] += self.wound_bleed[row]
        status[at, whom] = np.maximum(status[at, whom], self.wound_forces[row])


def arena_initiative_max() -> int:
    from app.resolver.bounds import INITIATIVE

    return INITIATIVE[1]


@dataclass(slots=True)
class Batch:
    """The fights still being played: their numbers in the request, their rows in the outcomes, the rounds
    they have played and what the fight changes."""

    fights: Ints  # (F,)
    rows: Ints  # (F,)
    played: Ints  # (F,)
    status: Ints  # (F, N)
    blood: Ints
    ready: Bools
    penalty: Ints
    bleed: Ints

    def keep(self, rows: Bools) -> Batch:
        return Batch(*(getattr(self, f.name)[rows] for f in fields(Batch)))


@dataclass(frozen=True, slots=True)
class Outcomes:
    """Each fight's end, by its number in the request: the winning side (-1: a draw), rounds, statuses."""

    winner: Ints  # (F,)
    rounds: Ints  # (F,)
    status: Ints  # (F, N)


def playable(setup: FightSetup) -> bool:
    """Fights that start with a long action carried are the resolver's (simulate.play_fight)."""
    return all(c.long_action is None for c in setup.combatants)


class Pending:
    """A tick's wounds and draws, held until the tick ends: every action of a tick reads the state as it began."""

    def __init__(self, b: Batch) -> None:
        self.penalty = np.zeros_like(b.penalty)
        self.bleed = np.zeros_like(b.bleed)
        self.status = np.zeros_like(b.status)
        self.ready = np.zeros_like(b.ready)
        self.waiting = np.zeros(len(b.fights), dtype=bool)  # fights with anything held

    def settle(self, b: Batch, ending: Bools) -> None:
        """Apply what the fights whose tick ends (`ending`) hold, and forget it."""
        rows = np.flatnonzero(ending & self.waiting)
        if len(rows) == 0:
            return
        b.penalty[rows] += self.penalty[rows]
        b.bleed[rows] += self.bleed[rows]
        b.status[rows] = np.maximum(b.status[rows], self.status[rows])
        b.ready[rows] |= self.ready[rows]
        self.penalty[rows] = 0
        self.bleed[rows] = 0
        self.status[rows] = 0
        self.ready[rows] = False
        self.waiting[rows] = False


class VectorArena:
    def __init__(self, setup: FightSetup) -> None:
        self.arena = setup.arena
        self.n = Numbers(self.arena)
        ruleset = self.arena.ruleset
        self.turn_length = ruleset.turn_length
        self.first_round = setup.first_round
        # effects (section 12) count by round number alone: their sums per combatant are the same in every fight
        self.effects = [f.effects for f in self.arena.start]

    def effect_sums(self, number: int) -> tuple[Ints, Ints, Ints, Ints]:
        sums = np.zeros((4, self.n.count), dtype=np.int64)
        for index, effects in enumerate(self.effects):
            for e in effects:
                if e.until >= number:
                    sums[:, index] += (e.attack, e.defense, e.initiative, e.blood_per_turn)
        return sums[0], sums[1], sums[2], sums[3]

    def start(self, fights: Ints) -> Batch:
        start = self.arena.start
        count = len(fights)

        def tiled(values: list[int]) -> Ints:
            return np.tile(np.array(values, dtype=np.int64), (count, 1))

        return Batch(
            fights=fights.copy(),
            rows=np.arange(count, dtype=np.int64),
            played=np.zeros(count, dtype=np.int64),
            status=tiled([f.status for f in start]),
            blood=tiled([f.blood for f in start]),
            ready=tiled([int(f.ready) for f in start]).astype(bool),
            penalty=tiled([f.penalty for f in start]),
            bleed=tiled([f.bleed for f in start]),
        )

    def deciding(self, batch: Batch) -> Ints:
        """Per fight: the only side with anyone active, -2 when none has, -1 while more than one has."""
        active = batch.status == ACTIVE
        by_side = np.zeros((len(batch.fights), self.n.sides), dtype=bool)
        for side in range(self.n.sides):
            by_side[:, side] = (active & (self.n.side == side)[None, :]).any(axis=1)
        sides_active = by_side.sum(axis=1)
        only = by_side.argmax(axis=1)
        return np.where(sides_active == 1, only, np.where(sides_active == 0, -2, -1))

    def play(self, fights: Ints, draws: Draws, max_rounds: int) -> Outcomes:
        """Play these fights (numbered in the request) to their ends, or max_rounds rounds."""
        total = len(fights)
        outcomes = Outcomes(
            np.full(total, -1, dtype=np.int64),
            np.zeros(total, dtype=np.int64),
            np.zeros((total, self.n.count), np.int64),
        )
        batch = self.start(fights)
        for number in range(self.first_round, self.first_round + max_rounds):
            decided = self.deciding(batch) != -1
            if decided.any():
                self._write(batch, decided, outcomes)
                batch = batch.keep(~decided)
            if len(batch.fights) == 0:
                break
            self.play_round(batch, number, draws.round(number, batch.fights))
            batch.played += 1
        if len(batch.fights):
            self._write(batch, np.ones(len(batch.fights), dtype=bool), outcomes)
        return outcomes

    def _write(self, batch: Batch, ended: Bools, outcomes: Outcomes) -> None:
        at = batch.rows[ended]
        side = self.deciding(batch)[ended]
        outcomes.winner[at] = np.where(side >= 0, side, -1)
        outcomes.rounds[at] = batch.played[ended]
        outcomes.status[at] = batch.status[ended]

    def play_round(self, b: Batch, number: int, draws: RoundDraws) -> None:
        n = self.n
        f_count = len(b.fights)
        rows = np.arange(f_count)
        eff_attack, eff_defense, eff_initiative, eff_blood = self.effect_sums(number)
        arena = self.arena
        # the policy's targets: among each attacker's standing foes (setup order), floor(pick × their number)
        standing = b.status != DEAD  # (F, N)
        foe = n.side[:, None] != n.side[None, :]  # (N attacker, N candidate)
        candidates = standing[:, None, :] & foe[None, :, :]  # (F, N, N)
        running = np.cumsum(candidates, axis=2)
        foes = running[:, :, -1]
        chosen = np.floor(draws.picks * foes).astype(np.int64)
        target = np.argmax(running > chosen[:, :, None], axis=2)  # (F, N)
        acts = (b.status == ACTIVE) & (foes > 0)
        # scores (section 5): the first attack pays the weapon's delay, a delay die and a draw if unready
        score = np.empty((f_count, n.count, n.attacks_max), dtype=np.int64)
        first = (
            n.initiative[None, :]
            - b.penalty
            + eff_initiative[None, :]
            - arena.technical_penalty * (~b.ready)
            - n.delay[None, :]
            - draws.delay[:, :, 0]
        )
        score[:, :, 0] = first
        for k in range(1, n.attacks_max):
            score[:, :, k] = score[:, :, k - 1] - n.delay[None, :] - draws.delay[:, :, k]
        keys = ((-score) << SCORE_SHIFT) + n.slot_tie[None, :, :]
        used = acts[:, :, None] & n.slot_used[None, :, :]
        keys = np.where(used, keys, NO_ACTION).reshape(f_count, -1)
        order = np.argsort(keys, axis=1)
        keys = np.take_along_axis(keys, order, axis=1)
        positions = int(used.reshape(f_count, -1).sum(axis=1).max(initial=0))
        order, keys = order[:, :positions], keys[:, :positions]
        # every slot's numbers in each fight's order, gathered once: a position is then a column of each
        actors = order // n.attacks_max
        victims = np.take_along_axis(target, actors, axis=1)
        d20s = np.take_along_axis(draws.d20.reshape(f_count, -1), order, axis=1)
        blows = np.take_along_axis(draws.damage.reshape(f_count, -1), order, axis=1) + n.blow_bonus[actors]
        ticks = np.where(keys != NO_ACTION, keys >> TICK_SHIFT, -2)
        new_ticks = np.empty_like(ticks, dtype=bool)
        new_ticks[:, 0] = True
        new_ticks[:, 1:] = ticks[:, 1:] != ticks[:, :-1]
        new_ticks &= keys != NO_ACTION
        attack_bonus = (arena.attack_bonus + n.attack + eff_attack)[actors]
        defense_bonus = (arena.defense_bonus + n.defense + eff_defense)[victims]
        soak = n.soak[victims]
        # A tick of one action (the usual case) changes the state at once; only the earlier actions of a
        # longer tick hold their changes until its last action, which applies them with its own.
        goes_on = np.zeros_like(new_ticks)
        goes_on[:, :-1] = ~new_ticks[:, 1:] & (keys[:, 1:] != NO_ACTION)
        pending = Pending(b)
        # cells of the (fight, combatant) arrays as flat indices: a 1-D take is cheaper than 2-D fancy indexing
        base = rows * n.count
        actor_cells = base[:, None] + actors
        victim_cells = base[:, None] + victims
        for position in range(positions):
            later = goes_on[:, position]
            actor, victim = actors[:, position], victims[:, position]
            actor_cell, victim_cell = actor_cells[:, position], victim_cells[:, position]
            status = b.status.reshape(-1)
            acting = (keys[:, position] != NO_ACTION) & (status.take(actor_cell) == ACTIVE)
            drawing = acting & ~b.ready.reshape(-1).take(actor_cell)
            if drawing.any():
                held, now = drawing & later, drawing & ~later
                b.ready[rows[now], actor[now]] = True
                pending.ready[rows[held], actor[held]] = True
                pending.waiting |= held
            victim_status = status.take(victim_cell)
            defends = victim_status != UNCONSCIOUS  # an unconscious target defends with 0 flat
            penalty = b.penalty.reshape(-1)
            tn = attack_bonus[:, position] - penalty.take(actor_cell)
            tn -= np.where(defends, defense_bonus[:, position] - penalty.take(victim_cell), 0)
            d20 = d20s[:, position]
            hit = (
                acting
                & (victim_status != DEAD)
                & (d20 != arena.natural_miss)
                & ((d20 == arena.natural_hit) | (d20 <= tn))
            )
            if hit.any():
                margin = np.maximum(tn - d20, 0) // arena.margin_divisor
                effective = blows[:, position] + margin - soak[:, position]
                row = np.searchsorted(n.wound_bounds, effective, side="right") - 1
                wounded = hit & (row >= 0)
                held, now = wounded & later, wounded & ~later
                n.wound(b.penalty, b.bleed, b.status, rows[now], victim[now], row[now])
                if held.any():
                    n.wound(pending.penalty, pending.bleed, pending.status, rows[held], victim[held], row[held])
                    pending.waiting |= held
            if pending.waiting.any():
                pending.settle(b, ~later)
        if number % self.turn_length == 0:
            self._settle_turn(b, eff_blood)

    def _settle_turn(self, b: Batch, eff_blood: Ints) -> None:
        """Section 7: the living bleed and their effects drain or restore blood (up to vitality); then blood decides."""
        vitality = self.n.vitality[None, :]
        living = b.status != DEAD
        total = b.bleed + eff_blood[None, :]
        drained = b.blood - total
        restored = np.where(b.blood < vitality, np.minimum(vitality, b.blood - total), b.blood)
        b.blood = np.where(living, np.where(total >= 0, drained, restored), b.blood)
        dies = living & (b.blood <= -vitality)
        faints = living & ~dies & (b.blood <= 0) & (b.status < UNCONSCIOUS)
        b.status = np.where(dies, DEAD, np.where(faints, UNCONSCIOUS, b.status))


def tally_of(setup: FightSetup, outcomes: Outcomes) -> Tally:
    """The outcomes counted as the odds count them (tally.py): merged with other chunks' in any order."""
    names = setup.arena.side_names
    tally = Tally(fights=len(outcomes.winner))
    wins = Counter(outcomes.winner.tolist())
    tally.draws = wins.pop(-1, 0)
    tally.wins.update({names[side]: count for side, count in wins.items()})
    for index in range(outcomes.status.shape[1]):
        dead = int((outcomes.status[:, index] == DEAD).sum())
        unconscious = int((outcomes.status[:, index] == UNCONSCIOUS).sum())
        if dead:
            tally.dead[index] = dead
        if unconscious:
            tally.unconscious[index] = unconscious
    tally.rounds.update(Counter(outcomes.rounds.tolist()))
    return tally
