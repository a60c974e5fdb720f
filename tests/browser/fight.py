"""A fight set up through the running service's HTTP API, and polling the page with a deadline."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from tests import waiting
from tests.api.helpers import attack, fighter


@dataclass
class Fight:
    url: str
    owner: str
    encounter: dict[str, Any]

    @classmethod
    def start(cls, url: str) -> Fight:
        campaign = httpx.post(f"{url}/v1/campaigns", json={"name": "Table test"}, timeout=30)
        assert campaign.status_code == 201, campaign.text
        owner = campaign.json()["key"]["secret"]
        body = {"name": "Zasadzka u brodu", "combatants": [
            fighter("Ala", vitality=12), fighter("Bolek", defense=2), fighter("Czarek", weapon="dagger")]}
        encounter = httpx.post(f"{url}/v1/encounters", json=body, headers=cls._auth(owner), timeout=30)
        assert encounter.status_code == 201, encounter.text
        return cls(url, owner, encounter.json())

    @staticmethod
    def _auth(secret: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {secret}"}

    @property
    def id(self) -> str:
        return self.encounter["id"]

    def combatant(self, name: str) -> str:
        return next(c["id"] for c in self.encounter["combatants"] if c["name"] == name)

    def call(self, method: str, path: str, secret: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = self._auth(secret or self.owner)
        return httpx.request(method, f"{self.url}/v1/encounters/{self.id}{path}", headers=headers, timeout=30,
                             **kwargs)

    def token(self, role: str, combatant: str | None = None) -> str:
        response = self.call("POST", "/tokens", json={"role": role, "combatant": combatant})
        assert response.status_code == 201, response.text
        return response.json()["secret"]

    def ticket(self, secret: str) -> str:
        response = self.call("POST", "/stream-tickets", secret)
        assert response.status_code in (200, 201), response.text
        return response.json()["ticket"]

    def round(self, seed: int) -> dict[str, Any]:
        """Everyone still fighting attacks: Ala and Czarek go for Bolek, Bolek for Ala (or whoever stands).

        The seed's dice depend on the combatants' ids, new each run: who is still up is read, not assumed."""
        current = self.call("GET", "")
        assert current.status_code == 200, current.text
        active = [c["name"] for c in current.json()["combatants"] if c["status"] == "active"]
        wants = {"Ala": "Bolek", "Bolek": "Ala", "Czarek": "Bolek"}
        declarations = []
        for name in active:
            target = wants[name] if wants[name] in active else next((n for n in active if n != name), None)
            if target:
                declarations.append(attack(self.combatant(name), self.combatant(target)))
        response = self.call("POST", "/rounds", json={"declarations": declarations, "seed": seed})
        assert response.status_code == 201, response.text
        return response.json()

    def undo(self, number: int) -> None:
        response = self.call("DELETE", f"/rounds/{number}")
        assert response.status_code == 204, response.text

    def stage(self, name: str, declaration: dict[str, Any]) -> None:
        response = self.call("PUT", f"/declarations/{self.combatant(name)}", json=declaration)
        assert response.status_code in (200, 201), response.text


# The browser tests check that things arrive, not how fast (the figures are printed, and measured by the
# benchmarks): a deadline below this floor only made them fail on a loaded CI machine.
DEADLINE_FLOOR = 60.0


def wait_for(condition: Callable[[], Any], *, deadline: float, what: str) -> float:
    """Poll until condition() is truthy; return the seconds it took, or fail naming what never came (after
    `deadline` seconds, or DEADLINE_FLOOR if that is longer)."""
    start = time.monotonic()
    waiting.wait_for(condition, what, timeout=max(deadline, DEADLINE_FLOOR))
    return time.monotonic() - start
