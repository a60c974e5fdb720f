"""The odds policy's rounds played on a few integers per combatant (README.md, "Odds"; docs/rules.md from
"Initiative" to "Bleeding at the end of a turn", and "Effects").

resolve_round is where the rules live, and it answers a round with everything a table reads back:
every action's outcome, every die under its key, each combatant's new state. An odds request reads
none of that and plays some 33,000 rounds for 1,000 fights of four against four; building those
records was most of its time (bench/README.md, "Odds"). Here a round of the policy is the same
arithmetic on mutable numbers: the same dice (SeededDice with the resolver's keys, from the round's seed),
the same target picks, the same order and ticks, the same wounds, bleeding and effects.

So a fight played here ends exactly as the same fight played round by round through resolve_round,
which POST /v1/resolve replays: tests/odds/test_arena.py checks it on random encounters and rulesets,
state after state. Change a rule in the resolver and that test points here.

Groups (docs/rules.md: Holding and groups) are: a member's first delay die is its group's,
`group:<name>.initiative.1`, one key
for all of them, so SeededDice gives each the same value, as resolve_round's one shared roll. The policy
declares no holds.

What is not played here: a carried long action. The policy never starts one, so simulate plays the
rounds through resolve_round while any is carried and hands the fight over once none is left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.resolver.bounds import INITIATIVE, MAX_COMBATANTS
from app.resolver.dice import SeededDice
from app.resolver.initiative import group_die_key
from app.resolver.model import Combatant
from app.resolver.ruleset import Ruleset, WeaponProfile, WoundClass
from app.resolver.wounds import SEVERITY, armor_points, filled_wounds

from .seeds import pick, round_seed, target_picks

ACTIVE, UNCONSCIOUS, DEAD = 0, 1, 2  # wounds.SEVERITY of each status: a status only ever moves up
D20 = 20
FOREVER = 1 << 60  # the last round of an effect that lasts until removed

# An action in the round is one int whose order is docs/rules.md's "Initiative": higher score first, then higher
# initiative (as entered), then the actor's id (code point by code point: its rank among the ids),
# then seq. Equal keys above TICK_SHIFT make a tick. Ints are cheaper to build and compare than tuples.
SEQ_BITS = 3  # attacks_per_round <= 4
RANK_BITS = MAX_COMBATANTS.bit_length()
TICK_SHIFT = SEQ_BITS + RANK_BITS
SCORE_SHIFT = TICK_SHIFT + (INITIATIVE[1] - INITIATIVE[0]).bit_length()


def action_key(score: int, initiative: int, rank: int, seq: int) -> int:
    # Python shifts negative ints too: the score's field keeps its order whatever its sign
    return (-score << SCORE_SHIFT) + ((INITIATIVE[1] - initiative) << TICK_SHIFT) + (rank << SEQ_BITS) + seq


def die_key(key: str, index: int) -> bytes:
    """A die as SeededDice.roll_encoded takes it."""
    return key.encode() + bytes((index,))


class EffectRow:
    """An effect's numbers; it counts in round r while r <= until."""

    __slots__ = ("attack", "defense", "initiative", "blood_per_turn", "until")

    def __init__(self, attack: int, defense: int, initiative: int, blood_per_turn: int, until: int) -> None:
        self.attack = attack
        self.defense = defense
        self.initiative = initiative
        self.blood_per_turn = blood_per_turn
        self.until = until


class Profile:
    """What a fight never changes about a combatant: its numbers, its weapon and its dice keys."""

    __slots__ = (
        "index", "side", "rank", "initiative", "attack", "defense", "attacks", "blow_bonus", "armor",
        "toughness", "vitality", "delay", "damage_sides", "initiative_keys", "attack_keys", "damage_keys",
    )  # fmt: skip

    def __init__(
        self, index: int, side: int, rank: int, c: Combatant, weapon: WeaponProfile, armor: int, group: str | None
    ) -> None:
        self.index = index  # in setup order
        self.side = side
        self.rank = rank  # of its id among the ids
        self.initiative = c.initiative
        self.attack = c.attack
        self.defense = c.defense
        self.attacks = c.attacks_per_round
        damage = weapon.damage
        self.blow_bonus = damage.modifier + c.damage_bonus
        self.armor = armor
        self.toughness = c.toughness
        self.vitality = c.vitality
        self.delay = weapon.delay
        self.damage_sides = damage.sides
        seqs = range(1, c.attacks_per_round + 1)
        self.initiative_keys = [die_key(f"{c.id}.initiative.{k}", 0) for k in seqs]
        if group is not None:  # a member's first delay die is its group's
            self.initiative_keys[0] = die_key(group_die_key(group), 0)
        self.attack_keys = [die_key(f"{c.id}.attack.{k}", 0) for k in seqs]
        self.damage_keys = [[die_key(f"{c.id}.damage.{k}", i) for i in range(damage.count)] for k in seqs]


class Fighter:
    """A combatant in one fight: its profile and what the fight changes. Wounds are kept as the sums
    the rules read (penalty and bleed): the policy never gives first aid, which alone reads them one by one."""

    __slots__ = (
        "profile", "status", "blood", "ready", "penalty", "bleed", "effects", "target",
        "effect_attack", "effect_defense", "effect_initiative", "effect_blood",
    )  # fmt: skip

    def __init__(
        self, profile: Profile, status: int, blood: int, ready: bool, penalty: int, bleed: int, effects: list[EffectRow]
    ) -> None:
        self.profile = profile
        self.status = status
        self.blood = blood
        self.ready = ready
        self.penalty = penalty
        self.bleed = bleed
        self.effects = effects  # never changed: an effect's end is read from its `until`
        self.target = 0  # the index of this round's target
        # the sums over the effects that count this round (docs/rules.md: Effects), set as the round begins
        self.effect_attack = 0
        self.effect_defense = 0
        self.effect_initiative = 0
        self.effect_blood = 0

    def copy(self) -> Fighter:
        return Fighter(self.profile, self.status, self.blood, self.ready, self.penalty, self.bleed, self.effects)

    def count_effects(self, round: int) -> None:
        attack = defense = initiative = blood = 0
        for effect in self.effects:
            if effect.until >= round:
                attack += effect.attack
                defense += effect.defense
                initiative += effect.initiative
                blood += effect.blood_per_turn
        self.effect_attack = attack
        self.effect_defense = defense
        self.effect_initiative = initiative
        self.effect_blood = blood


class Arena:
    """One odds request's combatants, set up once; `fight` plays a fight on copies of them."""

    def __init__(
        self,
        combatants: Sequence[Combatant],
        sides: Sequence[str],
        ruleset: Ruleset,
        weapons: Mapping[str, WeaponProfile],
        groups: Mapping[str, str],
    ) -> None:
        self.ruleset = ruleset
        self.side_names = list(dict.fromkeys(sides))
        side_numbers = {side: number for number, side in enumerate(self.side_names)}
        ranks = {cid: rank for rank, cid in enumerate(sorted(c.id for c in combatants))}
        self.profiles: list[Profile] = []
        for index, (c, side) in enumerate(zip(combatants, sides)):
            armor = armor_points(c.armor, ruleset)
            group = groups.get(c.id)
            self.profiles.append(Profile(index, side_numbers[side], ranks[c.id], c, weapons[c.id], armor, group))
        self.by_rank = [p.index for p in sorted(self.profiles, key=lambda p: p.rank)]
        balanced = ruleset.stances["balanced"]  # the policy's stance, and that of whoever declares nothing
        self.attack_bonus = balanced.attack
        self.defense_bonus = balanced.defense
        self.delay_die = ruleset.delay_die
        self.technical_penalty = ruleset.technical_action_penalty
        self.natural_hit = ruleset.natural_hit
        self.natural_miss = ruleset.natural_miss
        self.margin_divisor = ruleset.margin_divisor
        self.turn_length = ruleset.turn_length
        self.start = self.fighters(combatants)

    def fighters(self, combatants: Sequence[Combatant]) -> list[Fighter]:
        """Fighters standing as these combatants stand (the setup's combatants, in its order)."""
        fighters = []
        for profile, c in zip(self.profiles, combatants):
            wounds, penalty = filled_wounds(c.wounds, self.ruleset)
            effects = [
                EffectRow(
                    e.attack,
                    e.defense,
                    e.initiative,
                    e.blood_per_turn,
                    FOREVER if e.until_round is None else e.until_round,
                )
                for e in c.effects
            ]
            blood = c.vitality if c.blood is None else c.blood
            bleed = sum([w.bleed or 0 for w in wounds])
            fighters.append(Fighter(profile, SEVERITY[c.status], blood, c.weapon_ready, penalty, bleed, effects))
        return fighters

    def fight(self, fighters: list[Fighter], seed: int, first_round: int, max_rounds: int) -> int:
        """Play rounds first_round... of the fight with this fight seed on `fighters` (changed in
        place) until at most one side has anyone active, or max_rounds are played; the rounds played."""
        played = 0
        for number in range(first_round, first_round + max_rounds):
            if self.winner(fighters) != -1:
                break
            self.play_round(fighters, number, round_seed(seed, number))
            played += 1
        return played

    def winner(self, fighters: list[Fighter]) -> int:
        """The only side with anyone active; -2 when none has, -1 while more than one has."""
        side = -2
        for f in fighters:
            if f.status == ACTIVE:
                if side == -2:
                    side = f.profile.side
                elif f.profile.side != side:
                    return -1
        return side

    def play_round(self, fighters: list[Fighter], number: int, seed: int) -> None:
        dice = SeededDice(seed)
        for f in fighters:
            if f.effects and f.status != DEAD:  # a dead one keeps its effects, and they no longer count
                f.count_effects(number)
        actions = self.schedule(fighters, seed, dice)
        actions.sort()
        start, count = 0, len(actions)
        while start < count:  # ticks: a run of equal score and initiative
            tick = actions[start] >> TICK_SHIFT
            end = start + 1
            while end < count and actions[end] >> TICK_SHIFT == tick:
                end += 1
            self.tick(fighters, actions, start, end, dice)
            start = end
        if number % self.turn_length == 0:
            self.settle_turn(fighters)

    def schedule(self, fighters: list[Fighter], seed: int, dice: SeededDice) -> list[int]:
        """The policy's declarations (each active combatant attacks one standing foe, picked with the
        round's seed) and their scores (docs/rules.md: Initiative), balanced stance, no technical action but a draw."""
        picks = target_picks(seed, len(fighters))
        foes_of: dict[int, list[Fighter]] = {}
        actions: list[int] = []
        for f in fighters:
            if f.status != ACTIVE:
                continue
            p = f.profile
            foes = foes_of.get(p.side)
            if foes is None:
                foes = foes_of[p.side] = [g for g in fighters if g.status != DEAD and g.profile.side != p.side]
            if not foes:
                continue
            f.target = foes[pick(picks[p.index], len(foes))].profile.index
            technical = 0 if f.ready else 1  # attacking with a weapon not in hand draws it
            score = (
                p.initiative
                - f.penalty
                + f.effect_initiative
                - self.technical_penalty * technical
                - p.delay
                - dice.roll_encoded(p.initiative_keys[0], self.delay_die)
            )
            actions.append(action_key(score, p.initiative, p.rank, 1))
            for k in range(1, p.attacks):  # attack k+1 follows attack k: its delay and a new die
                score -= p.delay + dice.roll_encoded(p.initiative_keys[k], self.delay_die)
                actions.append(action_key(score, p.initiative, p.rank, k + 1))
        return actions

    def tick(self, fighters: list[Fighter], actions: list[int], start: int, end: int, dice: SeededDice) -> None:
        """Section 6 for actions[start:end], all reading the state as the tick began; applied at its end."""
        drawn: list[Fighter] = []
        wounded: list[Fighter] = []
        rows: list[WoundClass] = []
        rank_mask = (1 << RANK_BITS) - 1
        for index in range(start, end):
            key = actions[index]
            seq = key & ((1 << SEQ_BITS) - 1)
            actor = fighters[self.by_rank[(key >> SEQ_BITS) & rank_mask]]
            if actor.status != ACTIVE:
                continue  # actor_down
            if not actor.ready:
                drawn.append(actor)
            target = fighters[actor.target]
            if target.status == DEAD:
                continue  # target_down
            a = actor.profile
            tn = a.attack + self.attack_bonus - actor.penalty + actor.effect_attack
            if target.status != UNCONSCIOUS:  # an unconscious target defends with 0 flat
                tn -= target.profile.defense + self.defense_bonus - target.penalty + target.effect_defense
            d20 = dice.roll_encoded(a.attack_keys[seq - 1], D20)
            if d20 == self.natural_miss or (d20 != self.natural_hit and d20 > tn):
                continue  # miss
            blow = a.blow_bonus + (tn - d20 if tn > d20 else 0) // self.margin_divisor
            for damage_key in a.damage_keys[seq - 1]:
                blow += dice.roll_encoded(damage_key, a.damage_sides)
            t = target.profile
            row = self.ruleset.wound_for(blow - t.armor - t.toughness)
            if row is not None:
                wounded.append(target)
                rows.append(row)
        for actor in drawn:
            actor.ready = True
        for target, row in zip(wounded, rows):
            target.penalty += row.penalty
            target.bleed += row.bleed
            if row.forces is not None and SEVERITY[row.forces] > target.status:
                target.status = SEVERITY[row.forces]

    def settle_turn(self, fighters: list[Fighter]) -> None:
        """Section 7: the living bleed and their effects drain or restore blood; then blood decides."""
        for f in fighters:
            if f.status == DEAD:
                continue
            total = f.bleed + f.effect_blood
            vitality = f.profile.vitality
            if total >= 0:
                f.blood -= total
            elif f.blood < vitality:  # regaining stops at vitality
                f.blood = min(vitality, f.blood - total)
            if f.blood <= -vitality:
                f.status = DEAD
            elif f.blood <= 0 and f.status < UNCONSCIOUS:
                f.status = UNCONSCIOUS
