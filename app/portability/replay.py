"""The import's check that every stored round is what the resolver makes of it: each is resolved again
from its state before it, its request (seed and dice) and the encounter's rules, by the same function that
resolved it (app/encounters/rounds.py `outcome`), and must give its stored document and state after it.

Compared as orjson's canonical bytes (keys sorted): `True == 1` in Python, not in JSON.
"""

from __future__ import annotations

from typing import Any

import orjson

from app.encounters import convert, rounds
from app.platform.errors import Unprocessable
from app.portability.errors import RoundNotReplayed
from app.portability.schemas import CampaignDocument, EncounterPart
from app.resolver import ResolverError, build_ruleset


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _replays(encounter: EncounterPart, number: int, stored: dict[str, Any]) -> bool:
    request = encounter.rounds[number - 1].request
    if request.seed is None:  # the server picked it; the document says which
        request = request.model_copy(update={"seed": stored["document"].get("seed")})
        if not isinstance(request.seed, int) or isinstance(request.seed, bool):
            return False
    rows = [convert.restored(saved) for saved in stored["state_before"]["combatants"]]
    rules = stored["state_before"].get("rules", encounter.rules)  # as the round was resolved
    try:
        before, document, changes = rounds.outcome(number, rows, request, rules)
    except ResolverError:
        return False  # its stored rules or state no longer make a round: not what was played
    after = [{**snapshot, **change} for snapshot, change in zip(before, changes)]
    return _canonical(document) == _canonical(stored["document"]) and _canonical(after) == _canonical(
        stored["state_after"]
    )


def check_rules(rules: dict[str, Any]) -> None:
    """The campaign's house rules make a ruleset, or 422."""
    try:
        build_ruleset(rules)
    except Exception as error:  # noqa: BLE001 (any refusal of the rules is the document's fault)
        raise Unprocessable(f"The campaign's house rules are not a valid ruleset: {error}") from None


def check_encounter(encounter: EncounterPart, sent: dict[str, Any]) -> int:
    """Every round of one encounter replayed, in order (sent: the encounter as sent); the number checked.
    The first that does not come out again: 422 naming its encounter and number."""
    try:
        build_ruleset(encounter.rules)
    except Exception as error:  # noqa: BLE001
        raise Unprocessable(
            f"The rules of encounter {encounter.id} are not a valid ruleset: {error}", encounter=encounter.id
        ) from None
    checked = 0
    for stored in sent["rounds"]:
        number = stored["number"]
        try:
            same = _replays(encounter, number, stored)
        except Exception:  # noqa: BLE001 (a state the resolver refuses or cannot read is tampered too)
            same = False
        if not same:
            raise RoundNotReplayed(
                f"Round {number} of encounter {encounter.id} does not come out again from its stored state, "
                "request and rules: the document was changed.",
                encounter=encounter.id,
                round=number,
            )
        checked += 1
    return checked


def check(document: CampaignDocument, raw: dict[str, Any]) -> int:
    """Every round of a whole document replayed (raw: the document as sent); the number of rounds checked."""
    check_rules(document.campaign.rules)
    return sum(check_encounter(encounter, sent) for encounter, sent in zip(document.encounters, raw["encounters"]))
