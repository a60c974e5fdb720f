"""`combat-admin export` and `combat-admin import`: the HTTP endpoints' document, on DATABASE_URL."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.api.portability_helpers import build_campaign, comparable, export
from tests.conftest import migrate
from tests.ops.test_new_owner_key import combat_admin


def test_export_then_import_into_another_database_gives_the_same_document(tmp_path):
    source, target = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    migrate(source)
    migrate(target)
    with TestClient(create_app(Settings(database_url=source))) as client:
        created = client.post("/v1/campaigns", json={"name": "Moving"}).json()
        client.headers["Authorization"] = f"Bearer {created['key']['secret']}"
        build_campaign(client)
        served = export(client)

    exported = combat_admin(source, tmp_path, "export", created["id"])
    assert exported.returncode == 0, exported.stderr
    assert comparable(json.loads(exported.stdout)) == comparable(served)
    (tmp_path / "campaign.json").write_bytes(exported.stdout)

    imported = combat_admin(target, tmp_path, "import", "campaign.json")
    assert imported.returncode == 0, imported.stderr
    lines = dict(line.split(" ", 1) for line in imported.stdout.decode().splitlines())
    assert lines["key"].startswith("dzc_key_") and lines["campaign"] != created["id"]
    with TestClient(create_app(Settings(database_url=target))) as client:
        client.headers["Authorization"] = f"Bearer {lines['key']}"
        assert comparable(export(client)) == comparable(served)

    again = combat_admin(target, tmp_path, "import", "campaign.json")
    assert again.returncode == 1 and b"already exists here" in again.stderr
    missing = combat_admin(target, tmp_path, "export", "no-such-campaign")
    assert missing.returncode == 1 and b"no campaign" in missing.stderr


def test_a_tampered_file_is_refused_naming_the_round(tmp_path):
    url = f"sqlite:///{tmp_path / 'a.db'}"
    migrate(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        created = client.post("/v1/campaigns", json={"name": "Tampered"}).json()
        client.headers["Authorization"] = f"Bearer {created['key']['secret']}"
        ids = build_campaign(client)
        document = export(client)
    document["encounters"][1]["rounds"][1]["state_after"][0]["blood"] += 1
    (tmp_path / "bad.json").write_text(json.dumps(document))
    refused = combat_admin(url, tmp_path, "import", "bad.json")
    assert refused.returncode == 1
    assert f"Round 2 of encounter {ids['fight']}".encode() in refused.stderr
    (tmp_path / "worse.json").write_text("{")
    assert combat_admin(url, tmp_path, "import", "worse.json").returncode == 1
