"""A campaign document read in one pass without holding it: its top-level fields whole (small: the campaign,
the roster, the bestiary), its encounters one at a time, as the bytes come (ijson's push parser).

Numbers come as JSON has them: integers as int, the rest as float (refused by the schema), never Decimal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import ijson  # type: ignore[import-untyped]  # no stubs upstream

from app.portability.errors import DocumentInvalid

CHUNK_BYTES = 256 * 1024
ENCOUNTERS = "encounters"


@dataclass(frozen=True, slots=True)
class Field:
    """A top-level field of the document but its encounters, whole."""

    key: str
    value: Any


@dataclass(frozen=True, slots=True)
class Encounter:
    """The document's encounter number `index` (from 0), whole; `value` is as sent."""

    index: int
    value: Any


@dataclass(frozen=True, slots=True)
class EncountersBegin:
    """The encounters' array starts: every field before it has been given."""


Part = Field | Encounter | EncountersBegin


class PartReader:
    """Feed it bytes; it gives back the parts they completed."""

    def __init__(self) -> None:
        self._events = ijson.sendable_list()
        self._parser = ijson.parse_coro(self._events, use_float=True)
        self._opened = False  # the root object's {
        self._key: str | None = None
        self._builder: Any = None  # ijson.ObjectBuilder of the value being read, or None
        self._depth = 0
        self._in_encounters = False
        self._encounters = 0

    def feed(self, data: bytes) -> list[Part]:
        try:
            self._parser.send(data)
        except ijson.JSONError as error:
            raise DocumentInvalid(f"The document is not valid JSON: {error}") from None
        return self._drain()

    def close(self) -> list[Part]:
        try:
            self._parser.close()
        except ijson.JSONError as error:
            raise DocumentInvalid(f"The document is not valid JSON: {error}") from None
        parts = self._drain()
        if not self._opened:
            raise DocumentInvalid("The document is empty.")
        return parts

    def _drain(self) -> list[Part]:
        parts: list[Part] = []
        for prefix, event, value in self._events:
            self._on(prefix, event, value, parts)
        del self._events[:]
        return parts

    def _on(self, prefix: str, event: str, value: Any, parts: list[Part]) -> None:
        if self._builder is not None:
            self._builder.event(event, value)
            self._depth += {"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1}.get(event, 0)
            if self._depth == 0:
                self._finish(parts)
            return
        if not self._opened:
            if event != "start_map":
                raise DocumentInvalid("The document is not a JSON object.")
            self._opened = True
        elif prefix == "" and event == "map_key":
            self._key = value
        elif self._in_encounters and event == "end_array" and prefix == ENCOUNTERS:
            self._in_encounters = False
        elif prefix == ENCOUNTERS and event == "start_array" and not self._in_encounters:
            self._in_encounters = True
            parts.append(EncountersBegin())
        elif event != "end_map" or prefix != "":
            self._builder = ijson.ObjectBuilder()
            self._builder.event(event, value)
            self._depth = 1 if event in ("start_map", "start_array") else 0
            if self._depth == 0:
                self._finish(parts)

    def _finish(self, parts: list[Part]) -> None:
        value, self._builder = self._builder.value, None
        if self._in_encounters:
            parts.append(Encounter(self._encounters, value))
            self._encounters += 1
        else:
            parts.append(Field(self._key or "", value))


def parts_of(source: IO[bytes]) -> Iterator[Part]:
    """The document's parts, read from the file in chunks."""
    reader = PartReader()
    while chunk := source.read(CHUNK_BYTES):
        yield from reader.feed(chunk)
    yield from reader.close()
