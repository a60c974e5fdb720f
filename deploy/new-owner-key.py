"""Give a campaign a new owner key when every owner key it had is lost (docs/operations.md).

An operator's tool, run where the service runs, against its DATABASE_URL:

    DATABASE_URL=... python deploy/new-owner-key.py <campaign id>

Prints the new key once; only its SHA-256 is stored, as for every key. The API cannot do this: a key
is needed to ask for a key. Revoke the lost ones afterwards (GET/DELETE /v1/campaign/keys).
"""

from __future__ import annotations

import secrets
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the app package beside this folder

from sqlalchemy import create_engine, insert, select  # noqa: E402

from app.access.tables import CAMPAIGNS, CREDENTIALS  # noqa: E402
from app.access.service import SECRET_PREFIX, hash_secret  # noqa: E402
from app.config import get_settings  # noqa: E402
from app.platform.db import sync_url  # noqa: E402


def main(campaign_id: str) -> str:
    engine = create_engine(sync_url(get_settings().database_url))
    secret = SECRET_PREFIX["owner"] + secrets.token_urlsafe(32)  # 256 random bits, as the service makes them
    try:
        with engine.begin() as connection:
            if connection.scalar(select(CAMPAIGNS.c.id).where(CAMPAIGNS.c.id == campaign_id)) is None:
                raise SystemExit(f"new-owner-key: there is no campaign {campaign_id}")
            connection.execute(
                insert(CREDENTIALS).values(
                    id=str(uuid.uuid4()),
                    campaign_id=campaign_id,
                    secret_hash=hash_secret(secret),
                    role="owner",
                    label="issued by the operator",
                    created_at=datetime.now(timezone.utc),
                )
            )
    finally:
        engine.dispose()
    return secret


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python deploy/new-owner-key.py <campaign id>")
    print(main(sys.argv[1]))
