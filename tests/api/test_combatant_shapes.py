"""POST …/combatants and an encounter's combatants take three shapes (full, {character}, {creature}): a
mistake answers with the errors of the shape the client meant, named by its key, never a mix of all three."""

from __future__ import annotations

import pytest

from tests.api.helpers import assert_problem, create_encounter, fighter


@pytest.mark.parametrize(
    ("body", "pointers"),
    [
        ({"character": "6f1c2a9e-0d4b-4b8e-9a51-2c7e0f3d8b14", "hidden": 3}, ["/hidden"]),
        ({"creature": "0b8d7e52-3c1a-4f6e-8d29-5a4b1c0e7f36", "cuont": 2}, ["/cuont"]),
        ({**fighter("Bolek"), "initiatve": 3}, ["/initiatve"]),
    ],
)
def test_a_mistake_is_answered_in_the_shape_meant(client, body, pointers):
    encounter = create_encounter(client, fighter("Ala"))
    problem = assert_problem(client.post(f"/v1/encounters/{encounter['id']}/combatants", json=body), 422)
    assert [error["pointer"] for error in problem["errors"]] == pointers, problem["errors"]


def test_a_full_combatant_missing_fields_names_only_them(client):
    problem = assert_problem(client.post("/v1/encounters", json={"name": "F", "combatants": [{"name": "Ala"}]}), 422)
    assert sorted(error["pointer"] for error in problem["errors"]) == [
        "/combatants/0/attack", "/combatants/0/defense", "/combatants/0/initiative", "/combatants/0/weapon"]
