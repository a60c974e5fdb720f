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
    """The state or the declarations break a rule of RULES.md section 9."""

    type = "invalid-round"
    title = "The round breaks a rule"


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

    def add(self, field: str, message: str) -> None:
        self.found.append(Issue(field, message))

    def raise_if_any(self, error: type[ResolverError] = InvalidRound) -> None:
        if self.found:
            raise error(self.found)
