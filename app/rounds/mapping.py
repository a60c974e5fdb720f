"""Round bodies -> resolver dataclasses (combatants are converted by app/encounters/mapping.py)."""

from __future__ import annotations

from app.encounters.mapping import effect_given_from_schema
from app.resolver import model as rm
from app.rounds.schemas import AttackAction, ContinueAction, CustomAction, DeclarationIn, FirstAidAction, NoAction


def declaration_from_schema(d: DeclarationIn) -> rm.Declaration:
    action: rm.Action | None
    if d.action is None:
        action = None  # continues a carried long action, else none (the resolver decides)
    elif isinstance(d.action, AttackAction):
        action = rm.Attack(tuple(d.action.target_list), shorthand=d.action.targets is None)  # refusals name `target`
    elif isinstance(d.action, FirstAidAction):
        action = rm.FirstAid(d.action.target)
    elif isinstance(d.action, CustomAction):
        custom = d.action
        action = rm.Custom(
            custom.name,
            custom.delay,
            rounds=custom.rounds,
            target=custom.target,
            effect=effect_given_from_schema(custom.effect),
        )
    elif isinstance(d.action, ContinueAction):
        action = rm.Continue()
    else:
        assert isinstance(d.action, NoAction)
        action = rm.NoAction()
    return rm.Declaration(d.combatant, action, d.stance, d.technical_actions)


def dice_from_schema(dice: dict[str, int | list[int]]) -> dict[str, int | tuple[int, ...]]:
    return {key: tuple(value) if isinstance(value, list) else value for key, value in dice.items()}
