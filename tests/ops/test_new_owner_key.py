"""`combat-admin new-owner-key` gives a campaign whose keys are all lost a working owner key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import migrate

COMBAT_ADMIN = str(Path(sys.executable).parent / "combat-admin")  # the console script pyproject.toml installs


def combat_admin(url: str, cwd: Path, *arguments: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [COMBAT_ADMIN, *arguments],
        env={"DATABASE_URL": url, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        cwd=cwd,
        input=stdin,
    )


def test_the_operators_new_key_opens_the_campaign_and_the_old_one_can_then_be_revoked(tmp_path):
    url = f"sqlite:///{tmp_path / 'combat.db'}"
    migrate(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        created = client.post("/v1/campaigns", json={"name": "Lost keys"}).json()
        lost = created["key"]

        issued = combat_admin(url, tmp_path, "new-owner-key", created["id"])
        assert issued.returncode == 0, issued.stderr
        key = issued.stdout.decode().strip()
        assert key.startswith("dzc_key_")

        owner = {"Authorization": f"Bearer {key}"}
        keys = client.get("/v1/campaign/keys", headers=owner)
        assert keys.status_code == 200 and len(keys.json()) == 2
        assert client.delete(f"/v1/campaign/keys/{lost['id']}", headers=owner).status_code == 204

        unknown = combat_admin(url, tmp_path, "new-owner-key", "no-such-campaign")
        assert unknown.returncode != 0 and b"no campaign" in unknown.stderr
