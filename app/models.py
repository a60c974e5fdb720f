"""Every ORM model, imported in one place so Base.metadata knows all tables (Alembic, tests)."""

from app.access.models import Campaign, Credential  # noqa: F401
from app.encounters.models import Combatant, Encounter, StagedDeclaration  # noqa: F401
from app.events.models import StreamTicket  # noqa: F401
from app.idempotency.models import IdempotencyKey  # noqa: F401
from app.rounds.models import Round  # noqa: F401
