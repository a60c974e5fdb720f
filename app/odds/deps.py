"""Typed dependencies of the odds routes: the process pool and the work budget."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.db import AutocommitDatabase

from .runner import OddsRunner


def get_odds_runner(request: Request) -> OddsRunner:
    return request.app.state.odds_runner


def get_odds_budget(request: Request) -> int:
    return request.app.state.settings.odds_budget


OddsRunnerDep = Annotated[OddsRunner, Depends(get_odds_runner)]
OddsBudgetDep = Annotated[int, Depends(get_odds_budget)]


def get_read_database(request: Request) -> AutocommitDatabase:
    return request.app.state.autocommit


ReadDatabaseDep = Annotated[AutocommitDatabase, Depends(get_read_database)]
