"""Rounds: resolve the next one and persist it, read the history, undo the latest, resolve statelessly."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import repository
from app.encounters import convert, deadlines, reinforcements, screen, store
from app.encounters.declarations import take_staged
from app.encounters.errors import require_unfinished
from app.encounters.schemas.round import ResolveRequest, RoundCreate
from app.platform.changefeed import Change
from app.platform.db import Database, utcnow
from app.platform.errors import NotFound, NotLatestRound
from app.platform.transactions import changed_meanwhile, first_read_version
from app.platform.versions import ANY_VERSION, ExpectedVersion, Versioned
from app.resolver import MixedDice, RoundInput, RoundResult, build_ruleset, model, new_seed, resolve_round
from app.resolver.codec import result_to_json
from app.resolver.dice import DiceSource


def _resolve(
    number: int,
    combatants: Iterable[model.Combatant],
    groups: dict[str, str],
    round_in: RoundCreate,
    rules: dict[str, Any],
) -> RoundResult:
    declarations = tuple(convert.declaration_from_schema(d) for d in round_in.declarations)
    state = RoundInput(number, tuple(combatants), declarations, groups)
    seed = new_seed() if round_in.seed is None else round_in.seed
    # cast: the resolver's DiceSource declares a mutable `seed: int | None` that MixedDice narrows to int
    # (a protocol attribute is invariant).
    dice = cast(DiceSource, MixedDice(convert.dice_from_schema(round_in.dice), seed))
    return resolve_round(state, build_ruleset(rules), dice)


def outcome(
    number: int, rows: Sequence[convert.CombatantRow], round_in: RoundCreate, rules: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """Round `number` from the combatants' rows before it: their snapshots (state_before's combatants), the
    round's document, and what it changes on each (state_after is each snapshot updated by its change).
    What resolve_next_round stores, and what an import replays (app/portability/replay.py)."""
    before = [convert.snapshot(r) for r in rows]
    current = (convert.combatant_from_row(r) for r in rows)
    result = _resolve(number, current, convert.groups_of(rows), round_in, rules)
    document = result_to_json(result)
    changes = [convert.state_values(s) for s in result.combatants]
    # A hidden combatant that acts or is targeted is revealed by this round, and so is a reinforcement whose
    # round this is (it took part, hidden only from the players' screens until now); undo hides them again.
    revealed = screen.revealed_by(document, screen.hidden_ids(rows)) | reinforcements.arriving(rows, number)
    hidden_before = {row["id"]: row["hidden"] for row in rows}
    arrival = {row["id"]: row["reveal_at_round"] for row in rows}
    for change in changes:
        change["hidden"] = hidden_before[change["id"]] and change["id"] not in revealed
        change["reveal_at_round"] = arrival[change["id"]] if change["hidden"] else None  # arrived: nothing ahead
    return before, document, changes


# A round resolved from a snapshot that a staging overtook is resolved again from a new one, so a player
# staging during a resolve never makes the game master's round fail; this many times, then a 409.
SNAPSHOT_TRIES = 5


async def resolve_next_round(
    session: AsyncSession,
    *,
    database: Database,
    campaign_id: str,
    encounter_id: str,
    round_in: RoundCreate,
    expected: ExpectedVersion = ANY_VERSION,
) -> Versioned[dict[str, Any]]:
    """Resolve round n+1 and store it with everything needed to replay and undo it, in the command's
    transaction; the round's document and the encounter's new version.

    Resolved from a snapshot read before the transaction (the encounter, its combatants and the staged
    declarations, one statement on the lightest path), then written only if the encounter's version and
    staging counter are still those read (store/round_writes.py: one statement on PostgreSQL). A version
    that moved is a 409; only the staging counter: read and resolve again."""
    first_read = first_read_version.get()  # SQLite: a re-run after a stale snapshot compares with the first
    for _ in range(SNAPSHOT_TRIES):
        encounter, staged = await store.read_for_round(database, campaign_id=campaign_id, encounter_id=encounter_id)
        if first_read is None:
            expected.check(encounter.version)
            first_read = encounter.version
        elif encounter.version != first_read:
            raise changed_meanwhile()
        require_unfinished(encounter)
        write = _planned(encounter, staged, round_in)
        if await store.write_round(database, session, write):
            if write.clock:
                await deadlines.wake_at_commit(session)
            return Versioned(write.stored["document"], write.version)
    raise changed_meanwhile()


def _planned(
    encounter: convert.EncounterRecord, staged: Sequence[store.StagedRow], round_in: RoundCreate
) -> store.RoundWrite:
    """What round n+1 writes, resolved from the snapshot (the body's declarations win over the staged)."""
    number = encounter.round + 1
    version = encounter.version + 1
    now = utcnow()
    # The declaration deadline of the next round starts with this one, if there is one.
    clock = deadlines.restarted(encounter, now)
    waiting = reinforcements.waiting(encounter.combatants, number)  # staged in advance for a later round
    taken = [row for row in staged if row.combatant_id not in waiting]
    round_in, cleared = take_staged(encounter, round_in, taken, version)
    before, document, changes = outcome(number, encounter.combatants, round_in, encounter.rules)
    timing = deadlines.clock_changes(encounter.id, clock, number + 1, version)
    request = round_in.model_dump(mode="json", by_alias=True, exclude_none=True)
    # the rules it was resolved under too: a later PATCH may change them, and a replay must not
    state_before = {"next_position": encounter.next_position, "combatants": before, "rules": encounter.rules}
    facts = {"document": document, "request": request, "state_before": state_before}
    return store.RoundWrite(
        encounter_id=encounter.id,
        read_version=encounter.version,
        read_staging=encounter.staging,
        number=number,
        clock=clock,
        waiting=tuple(waiting),
        taken=frozenset(row.combatant_id for row in taken),
        stored={
            "document": document,
            "request": request,
            "state_before": state_before,
            "state_after": [{**snapshot, **change} for snapshot, change in zip(before, changes)],
            "created_at": now,
        },
        states=changes,
        # delivered at commit: the round, then every staged declaration it took, then the new deadline
        announced=(Change.of_round(encounter.id, number, version, facts), *cleared, *timing),
    )


async def list_rounds(
    database: Database, *, campaign_id: str, encounter_id: str, limit: int, offset: int, screened: bool = False
) -> tuple[list[dict[str, Any]], int, int]:
    """Oldest first (a history reads forward): the page's documents, the number of rounds, the version;
    `screened` (a player's or viewer's read): without the combatants hidden now."""
    documents, total, version = await store.round_page(
        database, campaign_id=campaign_id, encounter_id=encounter_id, limit=limit, offset=offset
    )
    if screened and documents:
        hidden = await store.hidden_ids(database, encounter_id)
        documents = [screen.round_document(document, hidden) for document in documents]
    return documents, total, version


async def get_round(
    database: Database, *, campaign_id: str, encounter_id: str, number: int, screened: bool = False
) -> tuple[dict[str, Any], int]:
    """One stored round's document and its encounter's version, in one statement (a second, for a player or
    viewer, finds who is hidden now)."""
    document, version = await store.round_document(
        database, campaign_id=campaign_id, encounter_id=encounter_id, number=number
    )
    if screened:
        document = screen.round_document(document, await store.hidden_ids(database, encounter_id))
    return document, version


async def undo_round(
    session: AsyncSession, *, campaign_id: str, encounter_id: str, number: int, expected: ExpectedVersion = ANY_VERSION
) -> int:
    """Undo the latest round: the encounter returns exactly to its state before it (edits since included).
    The encounter's new version."""
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    require_unfinished(encounter)
    if not 1 <= number <= encounter.round:
        raise NotFound(f"Encounter {encounter_id} has no round {number}.")
    if number != encounter.round:
        raise NotLatestRound(
            f"Round {number} is not the latest; undo round {encounter.round} first.", latest_round=encounter.round
        )
    # The next position as it was, read by the version's update itself from the round's snapshot (the
    # update comes first: it holds the encounter's row, as everything that deletes rounds does before they go).
    next_position = store.next_position_before(encounter_id, number)
    clock = deadlines.restarted(encounter, utcnow())  # round `number` is to be declared again
    version = await store.bump_version(
        session, encounter_id, encounter.version, round=number - 1, next_position=next_position, **clock
    )
    # Declarations staged after the undone round were made knowing its outcome, for the round after it:
    # the replayed round starts from a clean slate, and every screen is told (declared: false).
    withdrawn = await store.clear_staged(session, store.staged_of_encounter(encounter_id))
    cleared = [Change.of_declaration(encounter_id, cid, False, version) for cid in withdrawn]
    timing = await deadlines.announce_clock(session, encounter_id, clock, number, version)
    changes = (Change.of_undo(encounter_id, number, version), *cleared, *timing)
    before = await store.delete_round(session, encounter_id, number, changes)  # delivered at commit
    await _relink(session, encounter, before["combatants"])
    await store.restore_combatants(session, encounter, before["combatants"])
    return version


async def _relink(session: AsyncSession, encounter: convert.EncounterRecord, saved: list[dict[str, Any]]) -> None:
    """The roster follows an undo: a linked combatant removed since the round comes back linked (its
    character must be free: else 409 character-busy); one that joined since leaves, nothing written back."""
    now_there = {row["id"]: row for row in encounter.combatants}
    back = {row["id"] for row in saved}
    for kept in saved:
        if kept["id"] not in now_there and kept.get("character_id"):
            await repository.link(session, character_id=kept["character_id"], encounter_id=encounter.id)
    for combatant_id, row in now_there.items():
        if combatant_id not in back and row["character_id"]:
            await repository.free(session, character_id=row["character_id"], encounter_id=encounter.id)


def resolve_stateless(request: ResolveRequest) -> dict[str, Any]:
    """The round's document; nothing is stored."""
    combatants = (convert.combatant_from_schema(c.id, c) for c in request.combatants)
    groups = convert.groups_of(request.combatants)
    return result_to_json(_resolve(request.round, combatants, groups, request, request.rules))
