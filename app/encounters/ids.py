"""Ids the service gives: encounters, combatants, effects."""

from __future__ import annotations

import uuid


def new_id() -> str:
    return str(uuid.uuid4())


def new_effect_id() -> str:
    """Short: a client types it into DELETE .../effects/{effect_id}; unique within its combatant is enough."""
    return uuid.uuid4().hex[:12]
