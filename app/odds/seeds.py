"""The seeds an odds request derives (README.md, "Odds"): fight k plays with fight_seed(seed, k),
round r of it with round_seed(fight seed, r). The round seed rolls the round's dice (the resolver's
keys, SeededDice) and picks the targets (target_picks), so POST /v1/resolve with that seed replays
the round exactly. Both ways of playing a fight (simulate and arena) draw from here."""

from __future__ import annotations

from hashlib import blake2b

from app.resolver.dice import SEED_BOUNDS

_SEED_MASK = SEED_BOUNDS[1]  # derived seeds stay JSON-safe, like every other seed the API shows


def _derive(*parts: int | str) -> int:
    """A stable 53-bit hash of the parts: the same on every machine, worker and Python version."""
    digest = blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8, person=b"odds").digest()
    return int.from_bytes(digest, "big") & _SEED_MASK


def fight_seed(seed: int, fight: int) -> int:
    return _derive("fight", seed, fight)


def round_seed(fight_seed_: int, round_number: int) -> int:
    return _derive("round", fight_seed_, round_number)


def target_picks(seed: int, count: int) -> list[int]:
    """`count` uniform 64-bit words from a round's seed, one per combatant (in setup order), to pick
    its target with: one BLAKE2b-512 digest gives eight, where a die per attacker cost one hash each."""
    words: list[int] = []
    key = seed.to_bytes(16, "big", signed=True)
    for block in range((count + 7) // 8):
        digest = blake2b(b"targets" + block.to_bytes(4, "big"), key=key, person=b"odds").digest()
        words.extend(int.from_bytes(digest[i : i + 8], "big") for i in range(0, 64, 8))
    return words


def pick(word: int, count: int) -> int:
    """Multiply-shift maps a 64-bit word onto 0..count-1 (as SeededDice maps one onto a die's faces)."""
    return word * count >> 64


def timeline_seed(encounter_id: str, round_number: int) -> int:
    """The seed of an encounter's timeline point k (CONTRACT.md: from the encounter id and k): the same
    stored rounds give the same point on every instance."""
    return _derive("timeline", encounter_id, round_number)


def batch_seed(seed: int, first: int) -> int:
    """The seed of the vectorised batch of fights first.. of a request with this seed."""
    return _derive("batch", seed, first)
