"""A campaign document read in one pass without holding it: its top-level fields whole (small: the campaign,
the roster, the bestiary), its encounters one at a time, as the bytes come.

ijson's push parsers, one for the encounters and one per top-level field, fed the same chunks; each builds
its values in C (the yajl2_c backend), so Python sees whole values, never the parser's events. A field's
parser stops being fed once it has its value (in an export the fields come first: after the first chunk,
only the encounters' parser reads on). Numbers that are not integers come
as Decimal, which orjson refuses to write: `integers_only` is a C-speed check of a whole value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import ijson  # type: ignore[import-untyped]  # no stubs upstream
import orjson

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


Part = Field | Encounter


def integers_only(value: Any) -> bool:
    """Whether every number in the value is an integer (a fraction is a Decimal, which orjson cannot write)."""
    try:
        orjson.dumps(value)
    except TypeError:
        return False
    return True


class PartReader:
    """Feed it bytes; it gives back the parts they completed: the fields named in `fields`, then encounters."""

    def __init__(self, fields: frozenset[str]) -> None:
        self._fields = {name: ijson.sendable_list() for name in sorted(fields)}
        self._waiting = {name: ijson.items_coro(found, name) for name, found in self._fields.items()}
        self._found = ijson.sendable_list()
        self._encounters_parser = ijson.items_coro(self._found, f"{ENCOUNTERS}.item")
        self._encounters = 0
        self._bytes = 0

    def feed(self, data: bytes) -> list[Part]:
        self._bytes += len(data)
        try:
            self._encounters_parser.send(data)
            for parser in self._waiting.values():
                parser.send(data)
        except ijson.JSONError as error:
            raise DocumentInvalid(f"The document is not valid JSON: {error}") from None
        return self._drain()

    def close(self) -> list[Part]:
        if not self._bytes:
            raise DocumentInvalid("The document is empty.")
        try:
            self._encounters_parser.close()
            for parser in self._waiting.values():
                parser.close()
        except ijson.JSONError as error:
            raise DocumentInvalid(f"The document is not valid JSON: {error}") from None
        return self._drain()

    def _drain(self) -> list[Part]:
        parts: list[Part] = []
        for name, found in self._fields.items():
            if found:
                parts.append(Field(name, found[0]))
                del found[:]
                self._waiting.pop(name, None)  # one value per field: its parser has done its work
        for value in self._found:
            parts.append(Encounter(self._encounters, value))
            self._encounters += 1
        del self._found[:]
        return parts


def parts_of(source: IO[bytes], fields: frozenset[str]) -> Iterator[Part]:
    """The document's parts, read from the file in chunks."""
    reader = PartReader(fields)
    while chunk := source.read(CHUNK_BYTES):
        yield from reader.feed(chunk)
    yield from reader.close()
