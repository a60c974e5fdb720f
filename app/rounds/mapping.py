"""Round bodies -> resolver dataclasses (combatants are converted by app/encounters/mapping.py)."""

from __future__ import annotations

from app.resolver import model as rm
from app.rounds.schemas import AttackAction, CustomAction, DeclarationIn, FirstAidAction


def declaration_from_schema(d: DeclarationIn) -> rm.Declaration:
    action: rm.Action
    if isinstance(d.action, AttackAction):
        action = rm.Attack(tuple(d.action.target_list), shorthand=d.action.targets is None)
    elif isinstance(d.action, FirstAidAction):
        action = rm.FirstAid(d.action.target)
    elif isinstance(d.action, CustomAction):
        action = rm.Custom(d.action.name, d.action.delay)
    else:
        action = rm.NoAction()
    return rm.Declaration(d.combatant, action, d.stance, d.technical_actions)


def dice_from_schema(dice: dict[str, int | list[int]]) -> dict[str, int | tuple[int, ...]]:
    return {key: tuple(value) if isinstance(value, list) else value for key, value in dice.items()}
