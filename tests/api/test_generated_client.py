"""A Python client generated from the app's OpenAPI document (openapi-python-client, offline) plays a whole
fight through its typed calls. Generation warnings fail the test, and so does a read typed Any or dict."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app

PACKAGE = "combat_client"


def generator() -> str:
    found = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent)) or shutil.which(
        "openapi-python-client")
    if found is None:
        pytest.fail("openapi-python-client is a dev dependency: pip install -e '.[dev]'")
    return found


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("generated")
    spec = root / "openapi.json"
    spec.write_text(json.dumps(create_app(Settings(database_url="sqlite+aiosqlite:///:memory:")).openapi()))
    config = root / "config.json"
    config.write_text(json.dumps({"post_hooks": []}))  # no formatter run: the check is on the generator's words
    result = subprocess.run(
        [generator(), "generate", "--path", str(spec), "--output-path", str(root / PACKAGE), "--meta", "none",
         "--config", str(config)],
        capture_output=True, text=True, timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Warning" not in output and "Error" not in output, output
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def api(generated: ModuleType, tag: str, operation: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation}")


def models(generated: ModuleType) -> Any:
    return importlib.import_module(f"{PACKAGE}.models")


def endpoint_modules(generated: ModuleType) -> Iterator[ModuleType]:
    package = importlib.import_module(f"{PACKAGE}.api")
    for tag in pkgutil.iter_modules(package.__path__):
        tag_package = importlib.import_module(f"{PACKAGE}.api.{tag.name}")
        for operation in pkgutil.iter_modules(tag_package.__path__):
            yield importlib.import_module(f"{PACKAGE}.api.{tag.name}.{operation.name}")


def test_every_read_is_typed(generated):
    """A GET whose result is Any (or a bare dict) gives its caller nothing to go on: the generator even
    leaves out the plain sync() call then."""
    reads = 0
    for module in endpoint_modules(generated):
        if '"method": "get"' not in inspect.getsource(module._get_kwargs):
            continue
        reads += 1
        assert hasattr(module, "sync"), f"{module.__name__}: untyped, the generator made no sync()"
        returned = str(inspect.signature(module.sync).return_annotation)
        if "response.status_code == 304" in inspect.getsource(module._parse_response):
            # A 304 is declared without content (it has none): the generator types its result Any (it is
            # None). The rest of the union must still be typed.
            returned = returned.replace("typing.Any | ", "", 1)
            assert "Read" in returned, f"{module.__name__} returns {returned}"
        assert "Any" not in returned and "dict" not in returned, f"{module.__name__} returns {returned}"
    assert reads >= 10


def test_read_models_have_no_untyped_fields(generated):
    for name, model in vars(models(generated)).items():
        annotations = getattr(model, "__annotations__", {})
        for field, annotation in annotations.items():
            if field == "additional_properties" or not name.endswith("Read"):
                continue
            assert "Any" not in str(annotation) and "dict[" not in str(annotation), f"{name}.{field}: {annotation}"


def no_extra(value: Any) -> None:
    """Every field the service sent is one the document declared (else it lands in additional_properties)."""
    if isinstance(value, list):
        for item in value:
            no_extra(item)
        return
    extra = getattr(value, "additional_properties", None)
    if extra is None:
        return
    dict_like = type(value).__name__.endswith(("Armory", "Armor", "Stances", "Dice"))  # maps by key, by design
    if not dict_like:
        assert extra == {}, f"{type(value).__name__} carries undeclared {sorted(extra)}"
    for field in getattr(value, "__attrs_attrs__", ()):
        no_extra(getattr(value, field.name))
    for item in extra.values():
        no_extra(item)


def test_a_whole_fight_through_the_generated_client(generated, settings):
    m = models(generated)
    from combat_client.client import AuthenticatedClient, Client  # noqa: PLC0415 (generated at run time)

    with TestClient(create_app(settings), raise_server_exceptions=False) as http:
        anonymous = Client(base_url="http://testserver", raise_on_unexpected_status=True).set_httpx_client(http)
        campaign = api(generated, "campaigns", "create_campaign").sync(
            client=anonymous, body=m.CampaignCreate(name="Generated campaign"))
        assert isinstance(campaign, m.CampaignCreated), campaign
        http.headers["Authorization"] = f"Bearer {campaign.key.secret}"
        client = AuthenticatedClient(base_url="http://testserver", token=campaign.key.secret,
                                     raise_on_unexpected_status=True).set_httpx_client(http)

        rules = api(generated, "rounds", "read_rules").sync(client=client)
        assert isinstance(rules, m.RulesetRead)
        assert rules.armory["long_sword"].delay == 5 and rules.turn_length == 10
        no_extra(rules)

        fighters = [
            m.CombatantCreate(name="Ala", initiative=20, attack=14, defense=4, weapon="long_sword", vitality=30),
            m.CombatantCreate(name="Bolek", initiative=18, attack=12, defense=5, vitality=30,
                              weapon=m.InlineWeapon(name="Club", delay=3, damage="1d6+1")),
        ]
        created = api(generated, "encounters", "create_encounter").sync_detailed(
            client=client, body=m.EncounterCreate(name="Ford", combatants=fighters))
        assert created.status_code == 201, created.content
        encounter = created.parsed
        assert isinstance(encounter, m.EncounterRead)
        assert created.headers["Location"] == f"/v1/encounters/{encounter.id}"
        assert isinstance(encounter.combatants[1].weapon, m.InlineWeaponRead)
        assert encounter.combatants[1].weapon.damage == "1d6+1"
        assert isinstance(encounter.ruleset, m.RulesetRead)
        no_extra(encounter)
        ala, bolek = (c.id for c in encounter.combatants)

        added = api(generated, "encounters", "add_combatant").sync(
            encounter_id=encounter.id, client=client,
            body=m.CombatantCreate(name="Czarek", initiative=15, attack=10, defense=3, weapon="dagger"))
        assert isinstance(added, m.CombatantRead)
        changed = api(generated, "encounters", "update_combatant").sync(
            encounter_id=encounter.id, combatant_id=added.id, client=client,
            body=m.CombatantUpdate(weapon="spear", weapon_ready=False))
        assert isinstance(changed, m.CombatantRead) and changed.weapon == "spear"
        refused = api(generated, "encounters", "update_combatant").sync(
            encounter_id=encounter.id, combatant_id=added.id, client=client,
            body=m.CombatantUpdate(weapon="laser"))
        assert isinstance(refused, m.Problem) and refused.type_ == "/problems/unknown-key", refused
        assert "long_sword" in refused.detail
        removed = api(generated, "encounters", "remove_combatant").sync_detailed(
            encounter_id=encounter.id, combatant_id=added.id, client=client)
        assert removed.status_code == 204

        effect = api(generated, "encounters", "add_effect").sync(
            encounter_id=encounter.id, combatant_id=bolek, client=client,
            body=m.EffectCreate(name="poisoned", blood_per_turn=1, turns=1))
        assert isinstance(effect, m.EffectRead) and effect.blood_per_turn == 1, effect

        read = api(generated, "encounters", "read_encounter")
        current = read.sync_detailed(encounter_id=encounter.id, client=client)
        assert isinstance(current.parsed, m.EncounterRead)
        unchanged = read.sync_detailed(encounter_id=encounter.id, client=client,
                                       if_none_match=current.headers["ETag"])
        assert unchanged.status_code == 304 and unchanged.parsed is None and unchanged.content == b""

        resolve = api(generated, "rounds", "resolve_next_round")
        rounds = []
        for number in range(1, 13):  # past a turn's end (10 rounds): bleeding is counted
            declarations = [
                m.DeclarationIn(combatant=ala, stance="offensive",
                                action=m.AttackAction(type_="attack", target=bolek)),
                m.DeclarationIn(combatant=bolek, action=m.AttackAction(type_="attack", targets=[ala])),
            ]
            answer = resolve.sync_detailed(
                encounter_id=encounter.id, client=client, idempotency_key=f"round-{number}",
                body=m.RoundCreate(declarations=declarations, seed=number))
            if answer.status_code == 422:  # the fight is over: someone is down (the ids, random, key the dice)
                assert isinstance(answer.parsed, m.Problem), answer.content
                assert answer.parsed.type_ == "/problems/invalid-round" and "cannot declare" in answer.parsed.detail
                break
            assert answer.status_code == 201, answer.content
            result = answer.parsed
            assert isinstance(result, m.RoundRead) and result.round_ == number
            assert answer.headers["ETag"] and answer.headers["Location"].endswith(f"/rounds/{number}")
            for action in result.actions:
                assert isinstance(action.type_, m.ActionReadType) and isinstance(action.result, m.ActionReadResult)
            for state in result.combatants:
                assert isinstance(state.status, m.CombatantStateReadStatus)
                assert all(isinstance(e, m.EffectRead) for e in state.effects)
                assert all(isinstance(w, m.WoundRead) for w in state.wounds)
            no_extra(result)
            rounds.append(result)
        assert rounds, "the first round is always resolved: both start active"

        replay = resolve.sync_detailed(
            encounter_id=encounter.id, client=client, idempotency_key="round-1",
            body=m.RoundCreate(declarations=[
                m.DeclarationIn(combatant=ala, stance="offensive", action=m.AttackAction(type_="attack", target=bolek)),
                m.DeclarationIn(combatant=bolek, action=m.AttackAction(type_="attack", targets=[ala]))], seed=1))
        assert replay.headers.get("Idempotent-Replayed") == "true"
        assert replay.parsed.to_dict() == rounds[0].to_dict()

        history = api(generated, "rounds", "list_rounds").sync(encounter_id=encounter.id, client=client, limit=100)
        assert isinstance(history, m.PageRoundRead) and history.total == len(rounds)
        last = len(rounds)
        again = api(generated, "rounds", "read_round").sync(encounter_id=encounter.id, number=last, client=client)
        assert isinstance(again, m.RoundRead) and again.to_dict() == rounds[-1].to_dict()

        undone = api(generated, "rounds", "undo_round").sync_detailed(
            encounter_id=encounter.id, number=last, client=client)
        assert undone.status_code == 204 and undone.headers["ETag"]
        history = api(generated, "rounds", "list_rounds").sync(encounter_id=encounter.id, client=client)
        assert history.total == last - 1

        problem_type = api(generated, "problems", "read_problem_type").sync(slug="unknown-key", client=client)
        assert isinstance(problem_type, m.ProblemTypeRead) and problem_type.status == 422

        deleted = api(generated, "encounters", "delete_encounter").sync_detailed(
            encounter_id=encounter.id, client=client)
        assert deleted.status_code == 204
        gone = read.sync(encounter_id=encounter.id, client=client)
        assert isinstance(gone, m.Problem) and gone.status == 404


def test_an_export_goes_back_in_through_the_import_as_it_is(generated, settings, tmp_path):
    """The export's answer is typed as the import's body: what one call returns, the other takes, no cast."""
    m = models(generated)
    from combat_client.client import AuthenticatedClient, Client  # noqa: PLC0415 (generated at run time)

    from tests.api.helpers import start_fight  # noqa: PLC0415
    from tests.conftest import migrate, new_campaign_key  # noqa: PLC0415

    with TestClient(create_app(settings), raise_server_exceptions=False) as http:
        key = new_campaign_key(http)
        http.headers["Authorization"] = f"Bearer {key}"
        fight = start_fight(http)
        assert http.post(f"{fight.url}/rounds", json={"seed": 5}).status_code == 201
        client = AuthenticatedClient(base_url="http://testserver", token=key,
                                     raise_on_unexpected_status=True).set_httpx_client(http)
        document = api(generated, "campaigns", "export_campaign").sync(client=client)
        assert isinstance(document, m.CampaignDocument), document
    elsewhere = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    migrate(elsewhere)
    with TestClient(create_app(settings.model_copy(update={"database_url": elsewhere})),
                    raise_server_exceptions=False) as there:
        anonymous = Client(base_url="http://testserver", raise_on_unexpected_status=True).set_httpx_client(there)
        created = api(generated, "campaigns", "import_campaign").sync_detailed(client=anonymous, body=document)
        assert created.status_code == 201, created.content
        assert isinstance(created.parsed, m.CampaignCreated)
        assert created.parsed.name == document.campaign.name
