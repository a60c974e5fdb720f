"""The roster in fights (CONTRACT.md, "The campaign"): characters join linked and get their wounds back at
the finish, creatures are copied and numbered, house rules are inherited, reopen undoes a finish exactly,
and nothing a fight writes back is lost or doubled."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.helpers import assert_problem, attack, create_encounter, fighter

HIT = {"attack.1": 1, "damage.1": [8]}  # a natural hit and a big blow: a wound every time


def character(client, name: str, **fields) -> dict:
    body = {"name": name, "initiative": 20, "attack": 14, "defense": 4, "weapon": "long_sword", **fields}
    created = client.post("/v1/characters", json=body)
    assert created.status_code == 201, created.text
    return created.json()


def creature(client, name: str, **fields) -> dict:
    body = {"name": name, "initiative": 10, "attack": 10, "defense": 2, "weapon": "dagger", **fields}
    created = client.post("/v1/creatures", json=body)
    assert created.status_code == 201, created.text
    return created.json()


def join(client, encounter_id: str, **body):
    return client.post(f"/v1/encounters/{encounter_id}/combatants", json=body)


def hit(actor: str) -> dict:
    return {f"{actor}.{key}": value for key, value in HIT.items()}


def wounded_round(client, encounter_id: str, actor: str, target: str) -> dict:
    url = f"/v1/encounters/{encounter_id}/rounds"
    answer = client.post(url, json={"declarations": [attack(actor, target)], "dice": hit(actor)})
    assert answer.status_code == 201, answer.text
    return answer.json()


def state_of(document: dict, combatant_id: str) -> dict:
    return next(c for c in document["combatants"] if c["id"] == combatant_id)


def test_two_fights_in_a_row_carry_the_wounds_and_finishing_writes_the_sum(client):
    ala = character(client, "Ala", vitality=40)
    first = create_encounter(client, fighter("Orc", vitality=40))
    linked = join(client, first["id"], character=ala["id"])
    assert linked.status_code == 201, linked.text
    ala_in_fight = linked.json()
    assert ala_in_fight["character"] == ala["id"] and ala_in_fight["name"] == "Ala"
    assert client.get(f"/v1/characters/{ala['id']}").json()["encounter"] == first["id"]
    orc = first["combatants"][0]["id"]
    after = state_of(wounded_round(client, first["id"], orc, ala_in_fight["id"]), ala_in_fight["id"])
    finished = client.post(f"/v1/encounters/{first['id']}/finish")
    assert finished.status_code == 200, finished.text
    assert finished.json()["finished"] is True and finished.json()["finished_at"]
    roster = client.get(f"/v1/characters/{ala['id']}").json()
    assert roster["encounter"] is None
    assert (roster["blood"], roster["status"], roster["wounds"]) == (after["blood"], after["status"], after["wounds"])

    both = [fighter("Troll", vitality=40), {"character": ala["id"]}]
    second = client.post("/v1/encounters", json={"name": "Second", "combatants": both}).json()
    again = next(c for c in second["combatants"] if c["character"] == ala["id"])
    assert (again["blood"], again["wounds"]) == (roster["blood"], roster["wounds"]), "the first fight's wounds carry"
    troll = next(c["id"] for c in second["combatants"] if c["name"] == "Troll")
    final = state_of(wounded_round(client, second["id"], troll, again["id"]), again["id"])
    assert len(final["wounds"]) == len(roster["wounds"]) + 1
    client.post(f"/v1/encounters/{second['id']}/finish")
    summed = client.get(f"/v1/characters/{ala['id']}").json()
    assert (summed["blood"], summed["wounds"]) == (final["blood"], final["wounds"])

    # Reopen and finish again: the same roster.
    reopened = client.post(f"/v1/encounters/{second['id']}/reopen")
    assert reopened.status_code == 200 and reopened.json()["finished"] is False
    back = client.get(f"/v1/characters/{ala['id']}").json()
    assert (back["blood"], back["wounds"], back["encounter"]) == (roster["blood"], roster["wounds"], second["id"])
    client.post(f"/v1/encounters/{second['id']}/finish")
    moving = ("version", "updated_at")
    refinished = client.get(f"/v1/characters/{ala['id']}").json()
    same = {k: v for k, v in summed.items() if k not in moving}
    assert {k: v for k, v in refinished.items() if k not in moving} == same


def test_a_finished_encounter_refuses_changes_but_reads_on(client):
    encounter = create_encounter(client, fighter("A"), fighter("B"))
    url = f"/v1/encounters/{encounter['id']}"
    a, b = (c["id"] for c in encounter["combatants"])
    client.post(f"{url}/rounds", json={})
    assert client.post(f"{url}/finish").status_code == 200
    for method, path, body in [
        ("POST", f"{url}/rounds", {}),
        ("DELETE", f"{url}/rounds/1", None),
        ("PUT", f"{url}/declarations/{a}", {"action": {"type": "attack", "target": b}}),
        ("POST", f"{url}/combatants", fighter("C")),
        ("PATCH", f"{url}/combatants/{a}", {"weapon_ready": False}),
        ("DELETE", f"{url}/combatants/{a}", None),
        ("POST", f"{url}/combatants/{a}/effects", {"name": "stunned", "rounds": 1}),
        ("POST", f"{url}/finish", None),
        ("PATCH", url, {"rules": {"delay_die": 6}}),
    ]:
        assert_problem(client.request(method, path, json=body), 409, "encounter-finished")
    assert client.get(url).json()["finished"] is True
    assert client.get(f"{url}/rounds").json()["total"] == 1
    assert client.patch(url, json={"name": "Renamed after"}).status_code == 200
    assert client.post(f"{url}/odds", json={"fights": 10}).status_code in (200, 202)


def test_a_character_is_in_one_unfinished_fight_at_a_time(client):
    ala = character(client, "Ala")
    first, second = create_encounter(client), create_encounter(client)
    assert join(client, first["id"], character=ala["id"]).status_code == 201
    busy = assert_problem(join(client, second["id"], character=ala["id"]), 409, "character-busy")
    assert busy["encounter"] == first["id"] and first["id"] in busy["detail"]
    assert_problem(client.delete(f"/v1/characters/{ala['id']}"), 409, "character-busy")
    assert client.get(f"/v1/encounters/{second['id']}").json()["combatants"] == []  # nothing written


def test_two_fights_linking_one_character_at_once_exactly_one_wins(client):
    ala = character(client, "Ala")
    fights = [create_encounter(client)["id"] for _ in range(4)]
    with ThreadPoolExecutor(4) as pool:
        answers = [f.result() for f in [pool.submit(join, client, e, character=ala["id"]) for e in fights]]
    assert sorted(a.status_code for a in answers) == [201, 409, 409, 409]
    linked = [e for e in fights if client.get(f"/v1/encounters/{e}").json()["combatants"]]
    assert len(linked) == 1 and client.get(f"/v1/characters/{ala['id']}").json()["encounter"] == linked[0]


def test_removing_a_linked_combatant_writes_it_back_and_deleting_an_unfinished_fight_writes_nothing(client):
    ala, bolek = character(client, "Ala", vitality=40), character(client, "Bolek", vitality=40)
    encounter = create_encounter(client, fighter("Orc"))
    orc = encounter["combatants"][0]["id"]
    a = join(client, encounter["id"], character=ala["id"]).json()["id"]
    b = join(client, encounter["id"], character=bolek["id"]).json()["id"]
    document = wounded_round(client, encounter["id"], orc, a)
    client.post(f"/v1/encounters/{encounter['id']}/rounds", json={"declarations": [attack(orc, b)], "dice": hit(orc)})
    assert client.delete(f"/v1/encounters/{encounter['id']}/combatants/{a}").status_code == 204
    left = client.get(f"/v1/characters/{ala['id']}").json()
    assert left["encounter"] is None and left["wounds"] == state_of(document, a)["wounds"]
    assert client.delete(f"/v1/encounters/{encounter['id']}").status_code == 204
    untouched = client.get(f"/v1/characters/{bolek['id']}").json()
    assert untouched["encounter"] is None and untouched["wounds"] == [] and untouched["blood"] == 40


def test_undo_that_brings_back_a_removed_linked_combatant_links_it_again(client):
    ala = character(client, "Ala")
    encounter = create_encounter(client, fighter("Orc"))
    url = f"/v1/encounters/{encounter['id']}"
    a = join(client, encounter["id"], character=ala["id"]).json()["id"]
    client.post(f"{url}/rounds", json={})
    client.delete(f"{url}/combatants/{a}")
    other = create_encounter(client)
    assert join(client, other["id"], character=ala["id"]).status_code == 201
    assert_problem(client.delete(f"{url}/rounds/1"), 409, "character-busy")
    client.delete(f"/v1/encounters/{other['id']}")
    assert client.delete(f"{url}/rounds/1").status_code == 204
    assert client.get(f"/v1/characters/{ala['id']}").json()["encounter"] == encounter["id"]


def test_reopen_refuses_naming_the_character_that_moved_on(client):
    ala = character(client, "Ala")
    encounter = create_encounter(client)
    join(client, encounter["id"], character=ala["id"])
    client.post(f"/v1/encounters/{encounter['id']}/finish")
    elsewhere = create_encounter(client)
    join(client, elsewhere["id"], character=ala["id"])
    busy = assert_problem(client.post(f"/v1/encounters/{encounter['id']}/reopen"), 409, "character-busy")
    assert busy["character"] == ala["id"] and busy["encounter"] == elsewhere["id"]
    client.delete(f"/v1/encounters/{elsewhere['id']}")  # frees her, and moves her version
    changed = assert_problem(client.post(f"/v1/encounters/{encounter['id']}/reopen"), 409, "character-changed")
    assert changed["character"] == ala["id"]
    assert client.get(f"/v1/encounters/{encounter['id']}").json()["finished"] is True  # nothing changed


def test_creatures_are_copied_and_numbered(client):
    goblin = creature(client, "Goblin", group="pack")
    encounter = create_encounter(client)
    made = join(client, encounter["id"], creature=goblin["id"], count=3)
    assert made.status_code == 201, made.text
    assert [c["name"] for c in made.json()["items"]] == ["Goblin 1", "Goblin 2", "Goblin 3"]
    assert {c["creature"] for c in made.json()["items"]} == {goblin["id"]}
    more = join(client, encounter["id"], creature=goblin["id"], count=2).json()["items"]
    assert [c["name"] for c in more] == ["Goblin 4", "Goblin 5"]
    one = join(client, encounter["id"], creature=goblin["id"]).json()["items"]
    assert [c["name"] for c in one] == ["Goblin 6"]
    client.patch(f"/v1/creatures/{goblin['id']}", json={"attack": 1})
    assert all(c["attack"] == 10 for c in client.get(f"/v1/encounters/{encounter['id']}").json()["combatants"])


def test_joining_takes_exactly_one_form(client):
    encounter = create_encounter(client)
    ala = character(client, "Ala")
    both = join(client, encounter["id"], character=ala["id"], initiative=3, attack=1, defense=1, weapon="dagger")
    assert_problem(both, 422)
    assert_problem(join(client, encounter["id"], character="no-such-character"), 404)
    assert_problem(join(client, encounter["id"], creature="no-such-creature"), 404)


def test_new_encounters_inherit_the_house_rules_but_never_retroactively(client):
    campaign = client.get("/v1/campaign")
    etag = {"If-Match": campaign.headers["etag"]}
    changed = client.patch("/v1/campaign", json={"rules": {"delay_die": 6}}, headers=etag)
    assert changed.status_code == 200, changed.text
    inherited = client.post("/v1/encounters", json={"name": "E", "rules": {"turn_length": 5}}).json()
    assert inherited["rules"] == {"delay_die": 6, "turn_length": 5}
    client.patch("/v1/campaign", json={"rules": {}})
    assert client.get(f"/v1/encounters/{inherited['id']}").json()["rules"] == {"delay_die": 6, "turn_length": 5}


def test_copy_from_the_start_and_from_now(client):
    ala = character(client, "Ala", vitality=40)
    encounter = create_encounter(client, fighter("Orc", vitality=40))
    url = f"/v1/encounters/{encounter['id']}"
    orc = encounter["combatants"][0]["id"]
    a = join(client, encounter["id"], character=ala["id"]).json()["id"]
    client.post(f"{url}/combatants/{orc}/effects", json={"name": "blessed", "attack": 2})
    wounded_round(client, encounter["id"], a, orc)
    client.post(f"{url}/combatants", json=fighter("Late"))
    assert_problem(client.post(f"{url}/copy", json={"name": "Again"}), 409, "character-busy")
    client.post(f"{url}/finish")

    start = client.post(f"{url}/copy", json={"name": "Again"})
    assert start.status_code == 201, start.text
    copied = start.json()
    assert copied["round"] == 0 and copied["finished"] is False and start.headers["location"].endswith(copied["id"])
    assert [c["name"] for c in copied["combatants"]] == ["Orc", "Ala"]  # Late joined after round 1
    orc_copy = copied["combatants"][0]
    assert orc_copy["id"] != orc and orc_copy["wounds"] == [] and orc_copy["effects"][0]["name"] == "blessed"
    roster = client.get(f"/v1/characters/{ala['id']}").json()
    assert copied["combatants"][1]["character"] == ala["id"] and roster["encounter"] == copied["id"]
    assert client.get(f"/v1/encounters/{copied['id']}/rounds").json()["total"] == 0
    client.delete(f"/v1/encounters/{copied['id']}")

    now = client.post(f"{url}/copy", json={"from": "now"}).json()
    assert [c["name"] for c in now["combatants"]] == ["Orc", "Ala", "Late"]
    assert now["combatants"][0]["wounds"] == client.get(url).json()["combatants"][0]["wounds"] != []
    assert now["combatants"][1]["wounds"] == client.get(f"/v1/characters/{ala['id']}").json()["wounds"]


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("round"), st.integers(0, 10_000)),
        st.tuples(st.just("undo"), st.just(0)),
        st.tuples(st.just("remove"), st.integers(0, 1)),
        st.tuples(st.just("finish-reopen"), st.just(0)),
    ),
    max_size=6,
)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=OPERATIONS)
def test_after_any_fight_the_roster_holds_what_the_fight_left(client, operations):
    """For any sequence of rounds, undos, removals and finish/reopen, each character's roster state is its
    combatant's as the fight left it: at its removal, or at the final finish."""
    heroes = [character(client, f"Hero {i}", vitality=25) for i in range(2)]
    encounter = create_encounter(client, fighter("Orc", vitality=60, attacks_per_round=2))
    url = f"/v1/encounters/{encounter['id']}"
    orc = encounter["combatants"][0]["id"]
    linked = {h["id"]: join(client, encounter["id"], character=h["id"]).json()["id"] for h in heroes}
    expected: dict[str, dict] = {}
    for op, arg in operations:
        if op == "round":
            targets = [cid for cid in linked.values()]
            if targets:
                client.post(f"{url}/rounds", json={"declarations": [attack(orc, *targets)], "seed": arg})
        elif op == "undo":
            latest = client.get(url).json()["round"]
            if latest:
                client.delete(f"{url}/rounds/{latest}")  # may bring a removed one back (409 if it is busy)
        elif op == "remove":
            hero = heroes[arg]["id"]
            if hero in linked:
                state = next(c for c in client.get(url).json()["combatants"] if c["id"] == linked[hero])
                assert client.delete(f"{url}/combatants/{linked.pop(hero)}").status_code == 204
                expected[hero] = state
        else:
            assert client.post(f"{url}/finish").status_code == 200
            assert client.post(f"{url}/reopen").status_code == 200
        # what the encounter says is linked, the roster says too
        now = {c["character"]: c["id"] for c in client.get(url).json()["combatants"] if c["character"]}
        linked = now
    final = {c["character"]: c for c in client.get(url).json()["combatants"] if c["character"]}
    assert client.post(f"{url}/finish").status_code == 200
    expected.update(final)
    for hero in heroes:
        roster = client.get(f"/v1/characters/{hero['id']}").json()
        want = expected[hero["id"]]
        assert (roster["blood"], roster["status"], roster["wounds"]) == (want["blood"], want["status"], want["wounds"])
        assert roster["encounter"] is None


def test_a_character_bound_token_follows_its_character_from_fight_to_fight(client):
    ala, bolek = character(client, "Ala"), character(client, "Bolek")
    issued = client.post(f"/v1/characters/{ala['id']}/tokens", json={"label": "Ala's phone"})
    assert issued.status_code == 201, issued.text
    phone = {"Authorization": f"Bearer {issued.json()['secret']}"}
    # Outside a fight: it reads its own character, and nothing else
    assert client.get(f"/v1/characters/{ala['id']}", headers=phone).status_code == 200
    assert_problem(client.get(f"/v1/characters/{bolek['id']}", headers=phone), 403)
    first = create_encounter(client, fighter("Orc"))
    assert_problem(client.get(f"/v1/encounters/{first['id']}", headers=phone), 404)
    mine = join(client, first["id"], character=ala["id"]).json()["id"]
    orc = first["combatants"][0]["id"]
    # In the fight it is that combatant's player token: it reads and stages for it, not for the orc
    assert client.get(f"/v1/encounters/{first['id']}", headers=phone).status_code == 200
    at_orc = {"action": {"type": "attack", "target": orc}}
    staged = client.put(f"/v1/encounters/{first['id']}/declarations/{mine}", json=at_orc, headers=phone)
    assert staged.status_code == 201, staged.text
    at_her = {"action": {"type": "attack", "target": mine}}
    for_the_orc = client.put(f"/v1/encounters/{first['id']}/declarations/{orc}", json=at_her, headers=phone)
    assert_problem(for_the_orc, 403)
    client.post(f"/v1/encounters/{first['id']}/finish")
    second = create_encounter(client, fighter("Troll"))
    again = join(client, second["id"], character=ala["id"]).json()["id"]
    assert client.get(f"/v1/encounters/{second['id']}/combatants/{again}", headers=phone).status_code == 200
    assert_problem(client.get(f"/v1/encounters/{first['id']}", headers=phone), 404)  # the old fight is behind her
