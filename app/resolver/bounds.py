"""Bounds of CONTRACT.md: one table, read by the resolver's validation (and mirrored by the API schemas)."""

INITIATIVE = ATTACK = DEFENSE = (-100, 100)
DAMAGE_BONUS = (-50, 50)
ARMOR = TOUGHNESS = (0, 100)
VITALITY = (1, 1000)
BLOOD = (-1000, 1000)
ATTACKS_PER_ROUND = (1, 4)
TECHNICAL_ACTIONS = (0, 10)
DELAY = (0, 50)  # custom actions and weapons
ID_LENGTH = (1, 64)
NAME_LENGTH = (1, 100)
MAX_COMBATANTS = 100
MAX_DECLARATIONS = 100
ROUND = (1, 100_000)
WOUND_PENALTY = WOUND_BLEED = (0, 100)
MAX_WOUNDS = 1000
