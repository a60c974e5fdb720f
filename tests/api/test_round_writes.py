"""A round's writes (app/encounters/store/round_writes.py): one statement on PostgreSQL's driver, Core
statements on SQLite, both in the command's one transaction and guarded by the version and the staging counter.
"""

from __future__ import annotations

from sqlalchemy import insert, select, update

from app.encounters import store
from app.encounters.store import round_writes
from app.encounters.tables import ENCOUNTERS, ROUNDS, STAGED
from app.http import command
from app.platform.db import utcnow
from tests.api.helpers import assert_problem, attack


def _stored(inspect_database, encounter_id: str) -> tuple[int, int, int, list[int], int]:
    """The encounter's round, version and staging counter, its rounds' numbers, its staged declarations."""
    with inspect_database() as session:
        row = session.execute(
            select(ENCOUNTERS.c.round, ENCOUNTERS.c.version, ENCOUNTERS.c.staging).where(
                ENCOUNTERS.c.id == encounter_id
            )
        ).one()
        numbers = list(session.scalars(select(ROUNDS.c.number).where(ROUNDS.c.encounter_id == encounter_id)))
        staged = len(list(session.scalars(select(STAGED.c.combatant_id).where(STAGED.c.encounter_id == encounter_id))))
    return row.round, row.version, row.staging, numbers, staged


def test_a_round_whose_transaction_fails_after_its_writes_leaves_nothing(client, fight, inspect_database, monkeypatch):
    """The round's writes (on PostgreSQL one statement on the driver's connection) are part of the command's
    transaction: when keeping the reply fails after them, the round, the combatants' states and the taking of
    the staged declarations all roll back with it."""
    url, ids = fight
    encounter_id = url.rsplit("/", 1)[1]
    assert client.put(f"{url}/declarations/{ids[1]}", json={"stance": "defensive"}).status_code == 201
    before = _stored(inspect_database, encounter_id)
    health = client.get(url).json()["combatants"]

    async def failing_record(*_args, **_kwargs):
        raise RuntimeError("the reply could not be kept")

    monkeypatch.setattr(command, "record", failing_record)
    body = {"declarations": [attack(ids[0], ids[1])], "dice": {f"{ids[0]}.attack.1": 20, f"{ids[0]}.damage.1": [6]}}
    assert client.post(f"{url}/rounds", json=body).status_code == 500
    assert _stored(inspect_database, encounter_id) == before == (0, before[1], 1, [], 1)
    assert client.get(url).json()["combatants"] == health
    monkeypatch.undo()
    assert client.post(f"{url}/rounds", json=body).status_code == 201  # and the round can be played after all
    assert _stored(inspect_database, encounter_id)[::4] == (1, 0)  # played, the staged declaration taken


def test_staging_moves_the_counter_not_the_version(client, fight, inspect_database):
    url, ids = fight
    encounter_id = url.rsplit("/", 1)[1]
    etag = client.get(url).headers["ETag"]
    assert client.put(f"{url}/declarations/{ids[0]}", json={"stance": "defensive"}).status_code == 201
    assert client.put(f"{url}/declarations/{ids[0]}", json={"stance": "offensive"}).status_code == 200
    assert client.delete(f"{url}/declarations/{ids[0]}").status_code == 204
    assert client.get(url).headers["ETag"] == etag
    assert _stored(inspect_database, encounter_id)[2] == 3


def test_a_declaration_staged_behind_the_counters_back_fails_the_round_and_writes_nothing(
    client, fight, inspect_database, monkeypatch
):
    """A writer of staged declarations that does not move the staging counter (a bug) is caught by the
    round's own check of what it deleted: the transaction rolls back, nothing of the round is kept."""
    url, ids = fight
    encounter_id = url.rsplit("/", 1)[1]
    before = _stored(inspect_database, encounter_id)
    write = round_writes.write_round

    async def sneak_then_write(database, session, planned):
        with inspect_database() as other, other.begin():
            row = {"combatant_id": ids[2], "encounter_id": encounter_id, "declaration": {"stance": "defensive"}}
            other.execute(insert(STAGED).values(**row, dice={}, staged_at=utcnow()))
        return await write(database, session, planned)

    monkeypatch.setattr(store, "write_round", sneak_then_write)
    assert client.post(f"{url}/rounds", json={"seed": 1}).status_code == 500
    assert _stored(inspect_database, encounter_id) == (*before[:4], 1)  # only the sneaked row


def test_a_round_from_an_old_version_is_refused_and_writes_nothing(client, fight, inspect_database, monkeypatch):
    """The version moved between the round's read and its write (another change committed meanwhile): 409,
    nothing of the round written, and the round is not resolved again from the new state."""
    url, _ = fight
    encounter_id = url.rsplit("/", 1)[1]
    write = round_writes.write_round
    writes: list[bool] = []

    async def another_change_first(database, session, planned):
        if not writes:
            with inspect_database() as other, other.begin():
                other.execute(
                    update(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id).values(version=ENCOUNTERS.c.version + 1)
                )
        writes.append(await write(database, session, planned))
        return writes[-1]

    monkeypatch.setattr(store, "write_round", another_change_first)
    assert_problem(client.post(f"{url}/rounds", json={"seed": 1}), 409)
    assert writes == [False]
    assert _stored(inspect_database, encounter_id)[::3] == (0, [])
