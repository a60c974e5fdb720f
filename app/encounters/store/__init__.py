"""The encounter aggregate's repository: every statement on its tables, split by concern.

- aggregate: the encounter loaded (one statement, one frozen record, the expected version checked) and
  moved to its next version (the one compare-and-set, app/platform/versions.py), created, listed, deleted;
- combatant_rows: the combatants' rows, inserted, changed, restored by an undo;
- staged: the declarations staged for the next round;
- history: the rounds stored, undone and read, and the stream's reads;
- round_writes: a round's writes, one statement on PostgreSQL's driver, Core statements on SQLite;
- clock: the declaration deadline (who has staged and who a player controls, the due encounters).

Use cases call `store.<name>`; each name lives in exactly one of these modules.
"""

from app.encounters.store.aggregate import (
    ENCOUNTER_WITH_COMBATANTS,
    StagedRow,
    bump_version,
    delete_encounter,
    hold_version,
    insert_encounter,
    list_encounters,
    load,
    read,
    read_for_round,
    set_finish_state,
)
from app.encounters.store.clock import (
    complete_round,
    count_staged,
    due_encounters,
    next_due,
    set_due,
    stop_clock,
)
from app.encounters.store.combatant_rows import (
    delete_combatant,
    drop_long_actions,
    insert_combatants,
    restore_combatants,
    update_combatant,
    write_effects,
    write_round_states,
)
from app.encounters.store.history import (
    ROUND_WITH_VERSION,
    STREAMED_ROUND,
    VERSION,
    delete_round,
    first_snapshot,
    hidden_ids,
    insert_round,
    next_position_before,
    owned_version,
    round_document,
    round_page,
    state_after,
    streamed_round,
    version,
)
from app.encounters.store.round_writes import RoundWrite, write_round
from app.encounters.store.staged import (
    clear_staged,
    list_staged,
    stage,
    staged_of_combatant,
    staged_of_encounter,
    take_staged,
    withdraw,
)

__all__ = [
    "stop_clock",
    "complete_round",
    "set_due",
    "next_due",
    "due_encounters",
    "count_staged",
    "ENCOUNTER_WITH_COMBATANTS",
    "ROUND_WITH_VERSION",
    "STREAMED_ROUND",
    "VERSION",
    "bump_version",
    "clear_staged",
    "delete_combatant",
    "delete_encounter",
    "delete_round",
    "drop_long_actions",
    "first_snapshot",
    "state_after",
    "hidden_ids",
    "hold_version",
    "insert_combatants",
    "insert_encounter",
    "insert_round",
    "list_encounters",
    "list_staged",
    "load",
    "next_position_before",
    "owned_version",
    "read",
    "read_for_round",
    "RoundWrite",
    "StagedRow",
    "write_round",
    "restore_combatants",
    "round_document",
    "round_page",
    "set_finish_state",
    "stage",
    "staged_of_combatant",
    "staged_of_encounter",
    "streamed_round",
    "take_staged",
    "update_combatant",
    "version",
    "withdraw",
    "write_effects",
    "write_round_states",
]
