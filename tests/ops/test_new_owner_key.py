"""deploy/new-owner-key.py gives a campaign whose keys are all lost a working owner key."""

from __future__ import annotations

import subprocess
import sys

from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import migrate
from tests.load.server import ROOT


def test_the_operators_new_key_opens_the_campaign_and_the_old_one_can_then_be_revoked(tmp_path):
    url = f"sqlite:///{tmp_path / 'combat.db'}"
    migrate(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        created = client.post("/v1/campaigns", json={"name": "Lost keys"}).json()
        lost = created["key"]

        issued = subprocess.run(
            [sys.executable, str(ROOT / "deploy" / "new-owner-key.py"), created["id"]],
            env={"DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert issued.returncode == 0, issued.stderr
        key = issued.stdout.strip()
        assert key.startswith("dzc_key_")

        owner = {"Authorization": f"Bearer {key}"}
        keys = client.get("/v1/campaign/keys", headers=owner)
        assert keys.status_code == 200 and len(keys.json()) == 2
        assert client.delete(f"/v1/campaign/keys/{lost['id']}", headers=owner).status_code == 204

        unknown = subprocess.run(
            [sys.executable, str(ROOT / "deploy" / "new-owner-key.py"), "no-such-campaign"],
            env={"DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert unknown.returncode != 0 and "no campaign" in unknown.stderr
