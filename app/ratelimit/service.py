"""Rate limits: one atomic UPSERT per request on a fixed window, so every worker counts together."""

from __future__ import annotations

import time

from sqlalchemy import delete
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.problems import ServiceError
from app.ratelimit.models import RateCounter


class TooManyRequests(ServiceError):
    status, type, title = 429, "too-many-requests", "Too many requests"

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail)
        self.headers = {"Retry-After": str(retry_after)}


def hit(session: Session, *, bucket: str, limit: int, window_seconds: int, now: float | None = None) -> None:
    """Count one request in the current window; past the limit, 429 with the seconds to wait."""
    now = time.time() if now is None else now
    window_start = int(now // window_seconds * window_seconds)
    insert = postgresql_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(RateCounter).values(bucket=bucket, window_start=window_start, count=1)
    statement = statement.on_conflict_do_update(
        index_elements=[RateCounter.bucket, RateCounter.window_start],
        set_={"count": RateCounter.count + 1},
    ).returning(RateCounter.count)
    count = session.execute(statement).scalar_one()
    if count > limit:
        retry_after = max(1, int(window_start + window_seconds - now + 0.999))
        raise TooManyRequests(
            f"At most {limit} requests per {window_seconds} s; retry in {retry_after} s.", retry_after
        )


def purge(session: Session, *, older_than_seconds: int) -> int:
    with session.begin():
        cutoff = int(time.time()) - older_than_seconds
        return session.execute(delete(RateCounter).where(RateCounter.window_start < cutoff)).rowcount
