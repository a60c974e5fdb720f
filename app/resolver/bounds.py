"""The API's bounds: one table, read by the resolver's validation (and mirrored by the API schemas)."""

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
EFFECT_MODIFIER = (-100, 100)  # an effect's attack, defense, initiative and blood_per_turn
UNTIL_ROUND = (0, 100_000)  # or null
MAX_EFFECTS = 20  # per combatant in a request (a round may add more)
CUSTOM_ROUNDS = (1, 100)
ROUNDS_LEFT = (1, 99)
EFFECT_ROUNDS = (1, 1000)  # or null; also POST .../effects
EFFECT_TURNS = (1, 100)  # POST .../effects
LONG_ACTION_BROKEN_AT = (1, 1000)  # or null
