"""POST /v1/campaigns/import and `combat-admin import`: a document becomes a new campaign, with its key.

The document is read from a file (the HTTP body is spooled to one first), twice, never held whole
(app/portability/stream.py: its encounters one at a time). The first pass checks, before anything is
written: the schema of each part, then the replay of each round, encounter by encounter, in the
document's order (the first refusal found is the answer). The second pass, in one transaction (all or
nothing), checks the ids already here (409 naming one), then inserts each encounter's rows as it is read,
the roster and bestiary after them. Every id but the campaign's is kept; `updated_at` is now.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.schemas import CampaignCreated
from app.access.service import issue
from app.access.tables import CAMPAIGNS
from app.campaign.tables import CHARACTERS, CREATURES
from app.encounters.tables import COMBATANTS, ENCOUNTERS, ROUNDS, STAGED
from app.platform.db import utcnow
from app.portability import replay, store
from app.portability.errors import DocumentInvalid, IdTaken
from app.portability.schemas import MAX_RESOURCES, DocumentHead, EncounterPart, refuse_floats
from app.portability.stream import CHUNK_BYTES, Encounter, Field, PartReader, integers_only, parts_of

Progress = Callable[[int], None]  # called with the number of rows just written
HEAD_FIELDS = frozenset(DocumentHead.model_fields)
_LOST = object()


def _pointer(location: Iterable[Any], sent: Any, prefix: tuple[Any, ...]) -> str:
    """A pydantic error location as a JSON pointer into the document sent: steps that are no key or index
    of it (a union member's tag, a validator's name) are left out; a missing field's last step is kept."""
    steps, node = list(prefix), sent
    location = list(location)
    for index, step in enumerate(location):
        if isinstance(node, dict) and isinstance(step, str):
            if step in node:
                node = node[step]
            elif index == len(location) - 1:
                node = _LOST
            else:
                continue
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            continue
        steps.append(step)
    return "/" + "/".join(str(s).replace("~", "~0").replace("/", "~1") for s in steps) if steps else ""


def refused(error: ValidationError, sent: Any, prefix: tuple[Any, ...] = ()) -> DocumentInvalid:
    errors = [
        {"in": "body", "pointer": _pointer(e["loc"], sent, prefix), "detail": e["msg"]}
        for e in error.errors(include_url=False)
    ]
    shown = "; ".join(f"{e['pointer'] or '/'}: {e['detail']}" for e in errors[:5])
    return DocumentInvalid(shown, errors=errors)


def _invalid(pointer: str, detail: str) -> DocumentInvalid:
    return DocumentInvalid(f"{pointer}: {detail}", errors=[{"in": "body", "pointer": pointer, "detail": detail}])


def _validated(model: type[BaseModel], sent: Any, prefix: tuple[Any, ...] = ()) -> Any:
    try:
        return model.model_validate(sent)
    except ValidationError as error:
        raise refused(error, sent, prefix) from None


def _integers_only(value: Any, where: str) -> None:
    """As the whole document's model refuses a fraction anywhere: checked at C speed, then found."""
    if not integers_only(value):
        try:
            refuse_floats(value, where)
        except ValueError as error:
            pointer, _, detail = str(error).partition(": ")
            raise _invalid(pointer, detail) from None


@dataclass
class Checked:
    """What the first pass learnt: the head (campaign, roster, bestiary) as parsed and as sent, every id by
    noun (the second pass asks which exist here), and how many rows the import writes."""

    head: DocumentHead
    head_sent: dict[str, Any]
    ids: dict[str, list[str]] = field(default_factory=dict)
    rows: int = 0


class _Checker:
    def __init__(self) -> None:
        self.sent: dict[str, Any] = {}
        self.head: DocumentHead | None = None
        self.ids: dict[str, list[str]] = {"character": [], "creature": [], "encounter": [], "combatant": []}
        self.seen: dict[str, set[str]] = {"encounter": set(), "combatant": set()}
        self.unfinished: set[str] = set()
        self.rows = 0

    def field(self, part: Field) -> None:
        _integers_only(part.value, f"/{part.key}")
        self.sent[part.key] = part.value

    def head_now(self) -> None:
        """The head checked as soon as all of it is there (before the encounters, in an export)."""
        if self.head is None and HEAD_FIELDS <= self.sent.keys():
            self.head = _validated(DocumentHead, self.sent)
            replay.check_rules(self.head.campaign.rules)

    def encounter(self, part: Encounter) -> None:
        self.head_now()
        if part.index >= MAX_RESOURCES:
            raise _invalid("/encounters", f"at most {MAX_RESOURCES:,} encounters")
        prefix = ("encounters", part.index)
        _integers_only(part.value, f"/encounters/{part.index}")
        encounter: EncounterPart = _validated(EncounterPart, part.value, prefix)
        if encounter.id in self.seen["encounter"]:
            raise _invalid(f"/encounters/{part.index}/id", "two encounters of the document have the same id")
        for position, combatant in enumerate(encounter.combatants):
            if combatant.id in self.seen["combatant"]:
                where = f"/encounters/{part.index}/combatants/{position}/id"
                raise _invalid(where, "two combatants of the document have the same id")
            self.seen["combatant"].add(combatant.id)
            self.ids["combatant"].append(combatant.id)
        self.seen["encounter"].add(encounter.id)
        self.ids["encounter"].append(encounter.id)
        if encounter.finished_at is None:
            self.unfinished.add(encounter.id)
        replay.check_encounter(encounter, part.value)
        self.rows += 1 + len(encounter.combatants) + len(encounter.staged) + len(encounter.rounds)

    def end(self) -> Checked:
        self.head_now()
        if self.head is None:
            self.head = _validated(DocumentHead, self.sent)  # names what is missing
        for index, character in enumerate(self.head.characters):
            if character.encounter_id is not None and character.encounter_id not in self.unfinished:
                raise _invalid(
                    f"/characters/{index}/encounter_id",
                    f"character {character.id} is linked into no unfinished encounter of the document",
                )
        self.ids["character"] = [c.id for c in self.head.characters]
        self.ids["creature"] = [c.id for c in self.head.creatures]
        ids = {noun: self.ids[noun] for noun in ("character", "creature", "encounter", "combatant")}
        rows = self.rows + len(self.head.characters) + len(self.head.creatures)
        return Checked(self.head, self.sent, ids, rows)


def check(source: IO[bytes]) -> Checked:
    """The first pass (CPU work: callers run it off the event loop)."""
    source.seek(0)
    checker = _Checker()
    for part in parts_of(source, HEAD_FIELDS):
        if isinstance(part, Field):
            checker.field(part)
        else:
            checker.encounter(part)
    return checker.end()


Rows = dict[str, list[dict[str, Any]]]


def _encounter_rows(encounter: EncounterPart, sent: dict[str, Any], campaign_id: str) -> Rows:
    """One encounter's rows, by table: the blobs as sent, the timestamps as parsed."""
    return {
        "encounters": [
            {
                "id": encounter.id,
                "campaign_id": campaign_id,
                "name": encounter.name,
                "rules": sent["rules"],
                "round": encounter.round,
                "version": encounter.version,
                "next_position": encounter.next_position,
                "created_at": encounter.created_at,
                "updated_at": utcnow(),
                "finished_at": encounter.finished_at,
                "finish_state": sent["finish_state"],
            }
        ],
        "combatants": [{**store.combatant_columns(c), "encounter_id": encounter.id} for c in sent["combatants"]],
        "staged": [
            {**staged, "encounter_id": encounter.id, "staged_at": parsed.staged_at}
            for staged, parsed in zip(sent["staged"], encounter.staged)
        ],
        "rounds": [
            {**stored, "encounter_id": encounter.id, "created_at": parsed.created_at}
            for stored, parsed in zip(sent["rounds"], encounter.rounds)
        ],
    }


def _roster_rows(checked: Checked, noun: str, campaign_id: str) -> list[dict[str, Any]]:
    parts = checked.head.characters if noun == "characters" else checked.head.creatures
    now = utcnow()
    return [
        {**store.roster_columns(resource), "campaign_id": campaign_id, "created_at": part.created_at, "updated_at": now}
        for resource, part in zip(checked.head_sent[noun], parts)
    ]


async def _encounters(source: IO[bytes]) -> Any:
    """The document's encounters again, as (parsed, sent), read a chunk at a time off the event loop."""
    source.seek(0)
    reader = PartReader(frozenset())
    while True:
        chunk = await asyncio.to_thread(source.read, CHUNK_BYTES)
        parts = await asyncio.to_thread(reader.feed, chunk) if chunk else reader.close()
        for part in parts:
            if isinstance(part, Encounter):
                yield EncounterPart.model_validate(part.value), part.value
        if not chunk:
            return


async def import_campaign(
    session: AsyncSession,
    *,
    source: IO[bytes],
    checked: Checked,
    progress: Progress | None = None,
) -> CampaignCreated:
    """The checked document (`check` of the same file) as a new campaign, in the caller's transaction (a
    re-run reads the file again from its start); its new owner key is in the result (shown once)."""
    campaign_id = str(uuid.uuid4())
    campaign, sent_campaign = checked.head.campaign, checked.head_sent["campaign"]
    taken = await store.first_existing(session, checked.ids)
    if taken is not None:
        noun, taken_id = taken
        raise IdTaken(f"The document's {noun} {taken_id} already exists here.", noun=noun, id=taken_id)
    await session.execute(
        CAMPAIGNS.insert().values(
            id=campaign_id,
            name=campaign.name,
            created_at=campaign.created_at,
            rules=sent_campaign["rules"],
            version=campaign.version,
        )  # fmt: skip
    )
    key = await issue(session, campaign_id, "owner", label="first key")
    # parents first: combatants, staged declarations and rounds point at their encounter, characters too
    async for encounter, sent in _encounters(source):
        rows = _encounter_rows(encounter, sent, campaign_id)
        for table, name in ((ENCOUNTERS, "encounters"), (COMBATANTS, "combatants"), (STAGED, "staged"),
                            (ROUNDS, "rounds")):  # fmt: skip
            await store.insert_rows(session, table, rows[name])
            if progress is not None:
                progress(len(rows[name]))
    for table, name in ((CHARACTERS, "characters"), (CREATURES, "creatures")):
        rows_of = _roster_rows(checked, name, campaign_id)
        await store.insert_rows(session, table, rows_of)
        if progress is not None:
            progress(len(rows_of))
    return CampaignCreated(
        id=campaign_id,
        name=campaign.name,
        created_at=campaign.created_at,
        rules=sent_campaign["rules"],
        version=campaign.version,
        key=key,
    )
