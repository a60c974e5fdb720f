"""The resolver's own error types: each says which field is wrong and why."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Issue:
    """One bad field. `field` is a JSON pointer into the round request ("/declarations/0/action")."""

    field: str
    message: str


class ResolverError(Exception):
    """Base of every refusal. `type` is a stable kebab-case slug the API turns into a problem type."""

    type = "resolver-error"
    title = "The round cannot be resolved"

    def __init__(self, issues: list[Issue] | tuple[Issue, ...]):
        self.issues = tuple(issues)
        super().__init__("; ".join(f"{i.field}: {i.message}" for i in self.issues))


class InvalidRound(ResolverError):
    """The state or the declarations break a rule (docs/rules.md: What the service refuses)."""

    type = "invalid-round"
    title = "The round breaks a rule"


class UnknownKey(InvalidRound):
    """A weapon or armor named by a key its ruleset table does not have; the message lists the known keys.

    A subclass of InvalidRound, so code that catches that still does, with a type of its own."""

    type = "unknown-key"
    title = "A name is not in the ruleset's tables"


class InvalidRuleset(ResolverError):
    """A ruleset override is unknown, out of bounds or inconsistent."""

    type = "invalid-ruleset"
    title = "The ruleset is not valid"


class InvalidNotation(ResolverError):
    """Dice notation that is not NdM, NdM+K or NdM-K within bounds."""

    type = "invalid-dice-notation"
    title = "The dice notation is not valid"


class MissingDie(ResolverError):
    """A fixed-only dice source was asked for a die nobody supplied."""

    type = "missing-die"
    title = "A die the round needs was not supplied"


class Issues:
    """Collects issues so a caller hears about every bad field at once."""

    def __init__(self) -> None:
        self.found: list[Issue] = []
        self.unknown_keys = 0  # how many of the issues found are unknown weapon or armor keys

    def add(self, field: str, message: str) -> None:
        self.found.append(Issue(field, message))

    def add_unknown_key(self, field: str, kind: str, key: object, known: list[str]) -> None:
        self.add(field, f"{key!r} is not in the ruleset's {kind}; known: {', '.join(known)}")
        self.unknown_keys += 1

    def raise_if_any(self, error: type[ResolverError] = InvalidRound) -> None:
        if self.found:
            if error is InvalidRound and self.unknown_keys == len(self.found):
                error = UnknownKey  # only unknown keys: the type says so; mixed with other faults it stays general
            raise error(self.found)
