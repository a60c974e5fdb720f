"""Time the pure resolver: resolve_round for 2, 10 and 50 combatants who all attack, and the JSON round trip;
then a 10-combatant round where everyone carries two effects and three carry long actions (RULES.md 12-13).

    python bench/resolver_bench.py [--quick]

Standard library only (perf_counter). Each figure is the median over many repetitions of one
round, so a stray scheduler hiccup on a shared machine does not move it.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from time import perf_counter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

from app.resolver import (  # noqa: E402
    Attack,
    Combatant,
    Declaration,
    Effect,
    EffectGiven,
    LongAction,
    RoundInput,
    SeededDice,
    build_ruleset,
    resolve_round,
)
from app.resolver.codec import combatant_to_json, lasting_to_json, result_to_json  # noqa: E402
from tests.resolver.decoding import dice_from_json, round_input_from_json  # noqa: E402

SIZES = (2, 10, 50)
ATTACKS = (1, 2)
WEAPONS = ("dagger", "short_sword", "long_sword", "battle_axe", "spear", "halberd")
TARGET_US = 100.0  # a 10-combatant round of single attacks
LASTING_TARGET_US = 130.0  # the same with two effects each and three long actions carried
CARRIERS = 3


def encounter(size: int, attacks: int) -> RoundInput:
    """`size` fighters in a ring, each attacking the next one `attacks` times."""
    combatants = tuple(
        Combatant(id=f"c{i:02d}", initiative=10 + i % 7, attack=12 + i % 5, defense=3 + i % 4,
                  weapon=WEAPONS[i % len(WEAPONS)], attacks_per_round=attacks, armor=i % 3,
                  vitality=1000)  # a deep pool of blood keeps everyone standing, so every attack is rolled
        for i in range(size)
    )
    declarations = tuple(
        Declaration(c.id, Attack((combatants[(i + 1) % size].id,)), "balanced") for i, c in enumerate(combatants)
    )
    return RoundInput(1, combatants, declarations)


def encounter_with_lasting(size: int = 10) -> RoundInput:
    """The ring of `encounter(size, 1)` in round 3, where every fighter carries two active effects (one ending
    later, one until removed) and the first CARRIERS are in the middle of a two-round ward on their neighbour,
    which they continue (a declaration with only a stance) instead of attacking."""
    plain = encounter(size, 1)
    combatants = []
    for i, c in enumerate(plain.combatants):
        effects = (Effect("blessed", f"b{i}", attack=1, initiative=1, until_round=5),
                   Effect("slowed", f"s{i}", defense=-1, blood_per_turn=1))
        ward = LongAction("ward", 3, 2, plain.combatants[(i + 1) % size].id, EffectGiven("warded", defense=2, rounds=3))
        combatants.append(replace(c, effects=effects, long_action=ward if i < CARRIERS else None))
    declarations = tuple(
        Declaration(d.combatant, None if i < CARRIERS else d.action, "balanced")
        for i, d in enumerate(plain.declarations)
    )
    return RoundInput(3, tuple(combatants), declarations)


def request_json(state: RoundInput, seed: int) -> dict:
    def declaration(d: Declaration) -> dict:
        body = {"combatant": d.combatant, "stance": d.stance}
        if isinstance(d.action, Attack):
            body["action"] = {"type": "attack", "targets": list(d.action.targets)}
        return body  # no action: continue the long action carried

    return {
        "round": state.round,
        "combatants": [{**combatant_to_json(c), **lasting_to_json(c)} for c in state.combatants],
        "declarations": [declaration(d) for d in state.declarations],
        "dice": {},
        "seed": seed,
    }


def time_us(run, repeats: int, inner: int) -> tuple[float, float]:
    """(median, best) over `repeats` samples of the mean time of `inner` calls, in microseconds.

    The median is the figure; the best shows how much of it is noise from other work on the machine.
    """
    run()  # warm caches (notation parsing, ruleset) before timing
    samples = []
    for _ in range(repeats):
        start = perf_counter()
        for _ in range(inner):
            run()
        samples.append((perf_counter() - start) / inner * 1e6)
    return statistics.median(samples), min(samples)


def main(quick: bool = False) -> None:
    repeats = 15 if quick else 101
    ruleset = build_ruleset()
    print(f"python {platform.python_version()} ({platform.python_implementation()}) on {platform.machine()}, "
          f"{os.cpu_count()} cpus; median (best) of {repeats} samples")
    print(f"{'combatants':>10} {'attacks':>7} {'actions':>7} {'resolve µs':>16} {'µs/comb.':>8}"
          f" {'json io µs':>16} {'µs/comb.':>8}")
    medians = {}
    per_combatant = {}  # best µs per combatant: the least noisy figure to judge growth by
    rows = [(size, attacks, encounter(size, attacks)) for attacks in ATTACKS for size in SIZES]
    rows.append((10, "lasting", encounter_with_lasting()))
    for size, attacks, state in rows:
        count = attacks if isinstance(attacks, int) else 1
        dice = SeededDice(20240601)
        inner = max(1, 2000 // (size * count))
        result = resolve_round(state, ruleset, dice)
        resolve, resolve_best = time_us(
            lambda state=state, dice=dice: resolve_round(state, ruleset, dice), repeats, inner
        )

        request = request_json(state, 20240601)

        def json_io(request=request, result=result):
            round_input_from_json(request)
            dice_from_json(request["dice"])
            result_to_json(result)

        io, io_best = time_us(json_io, repeats, inner)
        per_combatant[size, attacks] = resolve_best / size
        medians[size, attacks] = resolve
        print(f"{size:>10} {attacks!s:>7} {len(result.actions):>7} {resolve:>8.1f} ({resolve_best:>5.0f})"
              f" {resolve / size:>8.2f} {io:>8.1f} ({io_best:>5.0f}) {io / size:>8.2f}")
    ten, lasting = medians[10, 1], medians[10, "lasting"]
    print(f"target: a 10-combatant round of single attacks in at most {TARGET_US:.0f} µs: "
          f"{'met' if ten <= TARGET_US else 'MISSED'} (median {ten:.0f} µs)")
    print(f"target: the same with two effects each and {CARRIERS} long actions in at most {LASTING_TARGET_US:.0f} µs:"
          f" {'met' if lasting <= LASTING_TARGET_US else 'MISSED'} (median {lasting:.0f} µs, x{lasting / ten:.2f})")
    for attacks in ATTACKS:
        growth = per_combatant[50, attacks] / per_combatant[10, attacks]
        allowed = math.log(50 * attacks) / math.log(10 * attacks)  # what n log n would allow, per combatant
        print(f"growth 10 -> 50 combatants, {attacks} attack(s): x{growth:.2f} per combatant "
              f"(n log n allows x{allowed:.2f}): {'ok' if growth <= allowed else 'WORSE'}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
