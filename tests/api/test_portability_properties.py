"""For random short fights (rounds on seeds, an undo, a finish): export(import(export(c))) == export(c) but
exported_at and the campaign id; and after the import, undo and the next round answer as on the source."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.helpers import attack, create_encounter, fighter
from tests.api.portability_helpers import comparable, export, import_document
from tests.conftest import empty_tables

STEP = st.one_of(
    st.tuples(st.just("round"), st.integers(0, 2**31 - 1)),
    st.tuples(st.just("undo"), st.none()),
)


def play(client, steps, finish: bool) -> tuple[str, list[str]]:
    encounter = create_encounter(
        client,
        fighter("Ala", vitality=20, armor=1),
        fighter("Bolek", vitality=20, weapon="mace", hidden=True),
        fighter("Czarek", vitality=20, weapon="dagger", attacks_per_round=2, group="c"),
    )
    url, ids = f"/v1/encounters/{encounter['id']}", [c["id"] for c in encounter["combatants"]]
    played = 0
    for kind, seed in steps:
        if kind == "round":
            body = {"declarations": [attack(ids[0], ids[1]), attack(ids[2], ids[0])], "seed": seed}
            assert client.post(f"{url}/rounds", json=body).status_code == 201
            played += 1
        elif played:
            assert client.delete(f"{url}/rounds/{played}").status_code == 204
            played -= 1
    if finish:
        assert client.post(f"{url}/finish").status_code == 200
    return url, ids


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=1, max_size=5), finish=st.booleans(), seed=st.integers(0, 1000))
def test_a_fight_survives_export_and_import(client, database_url, steps, finish, seed):
    empty_tables(database_url)
    created = client.post("/v1/campaigns", json={"name": "Random"}, headers={"Authorization": ""}).json()
    client.headers["Authorization"] = f"Bearer {created['key']['secret']}"
    url, ids = play(client, steps, finish)
    first = export(client)
    after_source = next_steps(client, url, ids, seed)
    empty_tables(database_url)
    imported = import_document(client, first)
    assert imported.status_code == 201, imported.text
    client.headers["Authorization"] = f"Bearer {imported.json()['key']['secret']}"
    assert comparable(export(client)) == comparable(first)
    assert next_steps(client, url, ids, seed) == after_source


def next_steps(client, url, ids, seed) -> list:
    """Undo the latest round (if any) and resolve the next one with `seed`: the answers."""
    encounter = client.get(url).json()
    answers = []
    if encounter["round"]:
        answers.append(client.delete(f"{url}/rounds/{encounter['round']}").status_code)
    body = {"declarations": [attack(ids[1], ids[0])], "seed": seed}
    answer = client.post(f"{url}/rounds", json=body)
    answers.append((answer.status_code, answer.json()))
    return answers
