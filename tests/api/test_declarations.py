"""Staged declarations: visibility per role, checks as a round's, rounds using and clearing them."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from app.encounters import rounds, store
from app.encounters.schemas.round import RoundCreate
from app.http.command import run_anonymous
from app.http.responses import Reply
from app.platform.db import Database
from tests.api.helpers import assert_problem, attack, create_encounter, fighter
from tests.conftest import new_campaign_key


@dataclass
class Table:
    url: str
    ala: str
    bolek: str
    czarek: str
    secrets: dict[str, str]  # role -> bearer secret: owner, ala (player), bolek (player), viewer, other

    def auth(self, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secrets[role]}"}

    def declaration(self, cid: str) -> str:
        return f"{self.url}/declarations/{cid}"


@pytest.fixture
def table(client) -> Table:
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"), fighter("Czarek", weapon="dagger"))
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek, czarek = (c["id"] for c in encounter["combatants"])
    tokens = f"{url}/tokens"
    secrets = {
        "owner": client.headers["Authorization"].removeprefix("Bearer "),
        "ala": client.post(tokens, json={"role": "player", "combatant": ala}).json()["secret"],
        "bolek": client.post(tokens, json={"role": "player", "combatant": bolek}).json()["secret"],
        "viewer": client.post(tokens, json={"role": "viewer"}).json()["secret"],
        "other": new_campaign_key(client, "Another table"),
    }
    return Table(url, ala, bolek, czarek, secrets)


def _attack_body(*targets: str, stance: str = "offensive", **extra) -> dict:
    return {"stance": stance, "action": {"type": "attack", "targets": list(targets)}, **extra}


def _staged(client, table: Table, role: str = "owner") -> dict:
    response = client.get(f"{table.url}/declarations", headers=table.auth(role))
    assert response.status_code == 200, response.text
    return response.json()


def test_each_role_sees_what_the_contract_gives_it(client, table):
    dice = {f"{table.ala}.attack.1": 12}
    assert client.put(table.declaration(table.ala), json=_attack_body(table.bolek, dice=dice),
                      headers=table.auth("ala")).status_code == 201
    assert client.put(table.declaration(table.bolek), json={"stance": "defensive"}).status_code == 201

    ala_full = {"combatant": table.ala, "declared": True, "stance": "offensive",
                "action": {"type": "attack", "targets": [table.bolek]}, "technical_actions": 0, "dice": dice}
    bolek_full = {"combatant": table.bolek, "declared": True, "stance": "defensive", "action": None,
                  "technical_actions": 0, "dice": {}}
    ala_only, bolek_only = ({"combatant": cid, "declared": True} for cid in (table.ala, table.bolek))

    def shown(role):
        found = _staged(client, table, role)
        assert found["round"] == 1
        for item in found["declarations"]:
            if len(item) > 2:
                assert item.pop("staged_at")
        return found["declarations"]

    assert shown("owner") == [ala_full, bolek_full]  # in the order the combatants were added
    assert shown("ala") == [ala_full, bolek_only]
    assert shown("bolek") == [ala_only, bolek_full]
    assert shown("viewer") == [ala_only, bolek_only]


def test_who_may_stage_withdraw_and_list(client, table):
    body = _attack_body(table.czarek)
    assert client.put(table.declaration(table.bolek), json=body, headers=table.auth("ala")).status_code == 403
    assert client.put(table.declaration(table.ala), json=body, headers=table.auth("viewer")).status_code == 403
    assert client.put(table.declaration(table.ala), json=body, headers=table.auth("other")).status_code == 404
    assert client.put(table.declaration(table.ala), json=body, headers={"Authorization": ""}).status_code == 401
    assert client.put(table.declaration(table.ala), json=body, headers=table.auth("ala")).status_code == 201
    assert client.put(table.declaration(table.bolek), json=body).status_code == 201  # the owner: anyone
    for role, status in (("ala", 403), ("viewer", 403), ("other", 404)):
        assert_problem(client.delete(table.declaration(table.bolek), headers=table.auth(role)), status)
    assert_problem(client.get(f"{table.url}/declarations", headers=table.auth("other")), 404)
    # a token of another encounter of the same campaign does not reach this one
    elsewhere = create_encounter(client, fighter("Dorota"))
    elsewhere_url = f"/v1/encounters/{elsewhere['id']}"
    assert_problem(client.get(f"{elsewhere_url}/declarations", headers=table.auth("ala")), 404)
    assert_problem(client.put(f"{elsewhere_url}/declarations/{elsewhere['combatants'][0]['id']}", json=body,
                              headers=table.auth("ala")), 404)
    assert len(_staged(client, table)["declarations"]) == 2


def test_a_second_put_replaces_and_delete_withdraws(client, table):
    first = client.put(table.declaration(table.ala), json=_attack_body(table.bolek), headers=table.auth("ala"))
    second = client.put(table.declaration(table.ala), json=_attack_body(table.czarek), headers=table.auth("ala"))
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["action"] == {"type": "attack", "targets": [table.czarek]}
    [only] = _staged(client, table)["declarations"]
    assert only["action"]["targets"] == [table.czarek]
    assert client.delete(table.declaration(table.ala), headers=table.auth("ala")).status_code == 204
    assert _staged(client, table)["declarations"] == []
    # nothing staged any more: say so, whether it was withdrawn, used by a round or never staged
    assert_problem(client.delete(table.declaration(table.ala), headers=table.auth("ala")), 404, "not-found")
    assert_problem(client.delete(table.declaration("no-such-combatant")), 404, "not-found")


def test_staging_changes_neither_version_nor_etag(client, table):
    before = client.get(table.url)
    client.put(table.declaration(table.ala), json=_attack_body(table.bolek))
    client.put(table.declaration(table.ala), json=_attack_body(table.czarek))
    assert client.get(table.url, headers={"If-None-Match": before.headers["etag"]}).status_code == 304
    client.delete(table.declaration(table.ala))
    after = client.get(table.url)
    assert after.headers["etag"] == before.headers["etag"]
    assert after.json()["version"] == before.json()["version"]
    assert after.json()["updated_at"] == before.json()["updated_at"]


@pytest.mark.parametrize(
    ("body", "where", "pointer"),
    [
        (_attack_body("nobody"), "body", "/action/targets/0"),
        (_attack_body("SELF"), "body", "/action/targets/0"),
        (_attack_body("BOLEK", "BOLEK"), "body", "/action/targets"),  # one attack per round
        ({"stance": "reckless"}, "body", "/stance"),
        ({"action": {"type": "none"}, "technical_actions": 2}, "body", "/technical_actions"),
        (_attack_body("BOLEK", dice={"BOLEK.attack.1": 5}), "body", "/dice/BOLEK.attack.1"),
        (_attack_body("BOLEK", dice={"ALA.attack.1": 21}), "body", "/dice/ALA.attack.1"),
        (_attack_body("BOLEK", dice={"ALA.attack.2": 5}), "body", "/dice/ALA.attack.2"),
    ],
)
def test_refused_as_a_round_would_refuse_it(client, table, body, where, pointer):
    ids = {"ALA": table.ala, "BOLEK": table.bolek, "SELF": table.ala}

    def real(text: str) -> str:
        for name, cid in ids.items():
            text = text.replace(name, cid)
        return text

    body = {k: real(v) if isinstance(v, str) else v for k, v in body.items()}
    if "action" in body and "targets" in body["action"]:
        body["action"] = {**body["action"], "targets": [real(t) for t in body["action"]["targets"]]}
    if "dice" in body:
        body["dice"] = {real(k): v for k, v in body["dice"].items()}
    problem = assert_problem(client.put(table.declaration(table.ala), json=body), 422, "invalid-round")
    assert {"in": where, "pointer": real(pointer)} in [{k: e[k] for k in ("in", "pointer")} for e in problem["errors"]]
    assert _staged(client, table)["declarations"] == []


def test_refused_against_the_current_state_and_nothing_changes(client, table):
    assert client.put(table.declaration(table.ala), json=_attack_body(table.czarek)).status_code == 201
    assert client.patch(f"{table.url}/combatants/{table.bolek}", json={"status": "dead"}).status_code == 200
    problem = assert_problem(client.put(table.declaration(table.ala), json=_attack_body(table.bolek)), 422)
    assert problem["errors"][0]["pointer"] == "/action/targets/0" and "dead" in problem["errors"][0]["detail"]
    assert client.patch(f"{table.url}/combatants/{table.ala}", json={"status": "unconscious"}).status_code == 200
    problem = assert_problem(client.put(table.declaration(table.ala), json=_attack_body(table.czarek)), 422)
    assert problem["errors"][0] == {"in": "path", "pointer": "/combatant_id", "detail": problem["errors"][0]["detail"]}
    [kept] = _staged(client, table)["declarations"]  # the first declaration, untouched by the refusals
    assert kept["action"]["targets"] == [table.czarek]
    assert_problem(client.put(table.declaration("no-such-combatant"), json={}), 404)
    assert_problem(client.put(table.declaration(table.ala), json={"combatant": table.ala}), 422, "validation-error")


def test_a_round_uses_staged_declarations_and_their_dice_then_clears_them(client, table):
    ala_dice = {f"{table.ala}.initiative.1": 3, f"{table.ala}.attack.1": 2, f"{table.ala}.damage.1": [4]}
    client.put(table.declaration(table.ala), json=_attack_body(table.bolek, dice=ala_dice), headers=table.auth("ala"))
    client.put(table.declaration(table.bolek), json={"stance": "defensive"}, headers=table.auth("bolek"))
    response = client.post(f"{table.url}/rounds", json={"seed": 7})
    assert response.status_code == 201, response.text
    document = response.json()
    [hit] = [a for a in document["actions"] if a["actor"] == table.ala]
    assert hit["target"] == table.bolek and hit["roll"] == 2 and hit["hit"] and hit["damage_rolls"] == [4]
    assert {k: document["dice"][k] for k in ala_dice} == ala_dice
    assert client.get(f"{table.url}/rounds/1").json() == document
    assert _staged(client, table) == {"round": 2, "declarations": []}
    # undo does not bring them back
    assert client.delete(f"{table.url}/rounds/1").status_code == 204
    assert _staged(client, table) == {"round": 1, "declarations": []}


def test_the_body_wins_and_overridden_dice_are_dropped(client, table):
    a, b = table.ala, table.bolek
    client.put(table.declaration(a), json=_attack_body(b, dice={f"{a}.attack.1": 3, f"{a}.initiative.1": 2}))
    # Bolek's staged dice would be refused with the body's declaration (no attack, no attack die)
    client.put(table.declaration(b), json=_attack_body(a, dice={f"{b}.attack.1": 19}))
    body = {"declarations": [{"combatant": b, "action": {"type": "none"}}], "dice": {f"{a}.attack.1": 15}, "seed": 1}
    document = client.post(f"{table.url}/rounds", json=body).json()
    assert [(x["actor"], x["target"], x["roll"]) for x in document["actions"]] == [(a, b, 15)]
    assert document["dice"][f"{a}.initiative.1"] == 2 and f"{b}.attack.1" not in document["dice"]
    assert _staged(client, table)["declarations"] == []  # the overridden one is cleared too
    # the body overriding a declaration for the same combatant with another action
    client.put(table.declaration(a), json=_attack_body(b))
    body = {"declarations": [attack(a, table.czarek)], "seed": 2}
    [only] = client.post(f"{table.url}/rounds", json=body).json()["actions"]
    assert only["target"] == table.czarek


def test_a_retried_round_replays_without_touching_newer_declarations(client, table):
    # A round that harms nobody: with random ids the seeded dice differ each run, and a blow could
    # take Bolek out of the fight before he stages.
    shout = {"action": {"type": "custom", "name": "shout", "delay": 0}}
    assert client.put(table.declaration(table.ala), json=shout).status_code == 201
    key = {"Idempotency-Key": "round-one"}
    first = client.post(f"{table.url}/rounds", json={"seed": 3}, headers=key)
    assert first.status_code == 201 and [x["actor"] for x in first.json()["actions"]] == [table.ala]
    staged = client.put(table.declaration(table.bolek), json=_attack_body(table.czarek), headers=table.auth("bolek"))
    assert staged.status_code == 201, staged.text
    retry = client.post(f"{table.url}/rounds", json={"seed": 3}, headers=key)
    assert retry.headers["idempotent-replayed"] == "true" and retry.content == first.content
    assert [d["combatant"] for d in _staged(client, table)["declarations"]] == [table.bolek]
    second = client.post(f"{table.url}/rounds", json={"seed": 4}).json()
    assert second["round"] == 2 and [x["actor"] for x in second["actions"]] == [table.bolek]


def test_removing_a_combatant_removes_its_declaration_and_stale_ones_are_named(client, table):
    client.put(table.declaration(table.ala), json=_attack_body(table.czarek))
    client.put(table.declaration(table.czarek), json=_attack_body(table.bolek))
    assert client.delete(f"{table.url}/combatants/{table.czarek}").status_code == 204
    assert [d["combatant"] for d in _staged(client, table)["declarations"]] == [table.ala]
    # Ala's target is gone: the round names her staged declaration instead of playing something else
    problem = assert_problem(client.post(f"{table.url}/rounds", json={}), 422, "invalid-staged-declaration")
    assert problem["errors"][0]["combatant"] == table.ala
    assert problem["errors"][0]["pointer"] == "/action/targets/0"
    assert client.get(f"{table.url}/rounds").json()["total"] == 0
    assert len(_staged(client, table)["declarations"]) == 1  # nothing changed
    # the body overriding it is enough
    overriding = {"declarations": [attack(table.ala, table.bolek)]}
    assert client.post(f"{table.url}/rounds", json=overriding).status_code == 201


def test_undo_withdraws_declarations_staged_after_the_undone_round(client, table):
    """They were made knowing that round's outcome, for the round after it: the replayed round starts
    clean (every screen is told `declared: false`, tests/api/test_events_declarations.py), and the
    declarations the undone round used do not come back either."""
    client.put(table.declaration(table.bolek), json={"stance": "defensive"})
    assert client.post(f"{table.url}/rounds", json={}).status_code == 201
    client.put(table.declaration(table.ala), json=_attack_body(table.bolek))
    assert _staged(client, table)["round"] == 2
    assert client.delete(f"{table.url}/rounds/1").status_code == 204
    assert _staged(client, table) == {"round": 1, "declarations": []}
    assert client.delete(table.declaration(table.ala)).status_code == 404
    # staging again for the replayed round works as before
    assert client.put(table.declaration(table.ala), json=_attack_body(table.bolek)).status_code == 201


def _resolve_beside_the_app(settings, client, encounter_id: str, body: dict) -> dict:
    """Resolve a round through the service on a connection of its own, on this thread, while the app goes
    on serving the client's requests on its own thread: a hook can then make a request mid-round."""
    campaign_id = client.get("/v1/campaign").json()["id"]

    async def resolve() -> dict:
        database = Database(settings)
        try:
            reply = await run_anonymous(  # the command runner, as the route runs it, without a caller to check
                database,
                None,
                lambda session: rounds.resolve_next_round(
                    session,
                    database=database,
                    campaign_id=campaign_id,
                    encounter_id=encounter_id,
                    round_in=RoundCreate.model_validate(body),
                ),
                lambda resolved: Reply.json(201, resolved.value),
            )
        finally:
            await database.dispose()
        assert reply.status_code == 201, reply.body
        return json.loads(reply.body)

    return asyncio.run(resolve())


@pytest.fixture
def duel(client):
    """Ala, and Bolek whom her blow in round 1 (`killing`, the body) takes out of the fight before he acts."""
    encounter = create_encounter(client, fighter("Ala", initiative=30), fighter("Bolek", vitality=1, defense=0))
    ala, bolek = (c["id"] for c in encounter["combatants"])
    killing = {"declarations": [attack(ala, bolek)], "dice": {f"{ala}.attack.1": 1, f"{ala}.damage.1": [8]}}
    return encounter["id"], ala, bolek, killing


def test_a_declaration_staged_before_the_round_holds_the_encounter_is_used_and_cleared(
    client, settings, duel, monkeypatch
):
    """Staged between the round's read of the encounter and its write: checked against the state before the
    round; the round's write finds the staging counter moved, reads again, uses the declaration and clears
    it (not kept for the next round as well), and the game master sees no 409."""
    encounter_id, ala, bolek, killing = duel
    url = f"/v1/encounters/{encounter_id}"
    staged: list[int] = []
    writes: list[bool] = []
    write = store.write_round

    async def stage_then_write(*args, **kwargs):
        if not staged:
            staged.append(client.put(f"{url}/declarations/{bolek}", json=_attack_body(ala)).status_code)
        writes.append(await write(*args, **kwargs))
        return writes[-1]

    monkeypatch.setattr(store, "write_round", stage_then_write)
    document = _resolve_beside_the_app(settings, client, encounter_id, killing)
    assert staged == [201]
    assert writes == [False, True]  # the first write wrote nothing: its snapshot had no staged declaration
    assert [(a["actor"], a["result"]) for a in document["actions"]] == [(ala, "wound"), (bolek, "actor_down")]
    assert client.get(f"{url}/declarations").json() == {"round": 2, "declarations": []}


def test_a_declaration_staged_while_the_round_holds_the_encounter_waits_and_is_checked_after_it(
    client, settings, duel, monkeypatch
):
    """Staged once the round has claimed the version: it waits for the round and is checked against the
    round's outcome (Bolek is down: 422), never used by the round nor kept from before it."""
    encounter_id, ala, bolek, killing = duel
    url = f"/v1/encounters/{encounter_id}"
    holding = threading.Event()
    hold, write = store.hold_version, store.write_round

    async def announced_hold(*args, **kwargs):
        holding.set()
        return await hold(*args, **kwargs)

    with ThreadPoolExecutor(1) as pool:
        put: list[Future] = []

        async def stage_meanwhile(*args, **kwargs):
            written = await write(*args, **kwargs)  # the round's transaction holds the row until it commits
            if not put:
                put.append(pool.submit(client.put, f"{url}/declarations/{bolek}", json=_attack_body(ala)))
                assert holding.wait(timeout=10), "the staging request never reached the encounter's row"
            return written

        monkeypatch.setattr(store, "hold_version", announced_hold)
        monkeypatch.setattr(store, "write_round", stage_meanwhile)
        document = _resolve_beside_the_app(settings, client, encounter_id, killing)
        refused = put[0].result(timeout=30)
    assert [a["actor"] for a in document["actions"]] == [ala]
    assert_problem(refused, 422, "invalid-round")
    assert "cannot declare anything" in refused.json()["detail"]  # he is down: the round's outcome
    assert client.get(f"{url}/declarations").json() == {"round": 2, "declarations": []}
