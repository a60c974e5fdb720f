"""Typed dependencies of the odds routes: this worker's runner (its process pool) and the work budget."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.deps import SettingsDep, get_odds_runner
from app.odds.runner import OddsRunner

OddsRunnerDep = Annotated[OddsRunner, Depends(get_odds_runner)]


async def odds_budget(settings: SettingsDep) -> int:
    return settings.odds_budget


OddsBudgetDep = Annotated[int, Depends(odds_budget)]
