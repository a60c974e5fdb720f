"""Opening the table page as a player or as the game master, and reading what it shows."""

from __future__ import annotations

from typing import Any

from tests.browser.fight import Fight, wait_for

TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
UPDATE_DEADLINE = 1.0  # the "within a second": printed, not asserted (fight.DEADLINE_FLOOR)


class Page:
    """One browser context on the table page, with the errors and requests it saw."""

    def __init__(self, browser, server, fight: Fight, fragment: str, *, viewport=TV, locale: str = "en-GB"):
        self.context = browser.new_context(locale=locale, viewport=viewport)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.urls: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("request", lambda request: self.urls.append(request.url))
        self.page.on("dialog", lambda dialog: dialog.accept())  # the console's confirm()s
        self.page.goto(f"{server.url}/table/{fight.id}#{fragment}")
        wait_for(lambda: self.page.locator("#connection").get_attribute("data-state") == "live", deadline=20,
                 what="the page's event stream to open")

    def card(self, combatant_id: str):
        return self.page.get_by_test_id(f"combatant-{combatant_id}")

    def testid(self, testid: str):
        return self.page.get_by_test_id(testid)

    def last_round(self) -> int | None:
        found = self.page.locator('[data-testid="last-round"]')
        return int(found.get_attribute("data-round")) if found.count() else None

    def close(self) -> None:
        self.context.close()


def declare(scope, *, stance: str = "balanced", action: str = "attack", targets: list[str] = (),
            technical: int | None = None, custom: dict[str, Any] | None = None) -> None:
    """Fill and send the declaration form found in scope (a player's page, or a card of the console)."""
    scope.get_by_test_id("stance").select_option(stance)
    scope.get_by_test_id("action-type").select_option(action)
    for k, target in enumerate(targets, start=1):
        scope.get_by_test_id("target" if k == 1 else f"target-{k}").select_option(target)
    if custom:
        scope.get_by_test_id("custom-name").fill(custom["name"])
        scope.get_by_test_id("custom-delay").fill(str(custom.get("delay", 0)))
    if technical is not None:
        scope.get_by_test_id("technical-actions").fill(str(technical))
    scope.get_by_test_id("declare").click()


def all_follow(pages: list[Page], condition, what: str) -> float:
    """Every page meets condition(page) within the deadline, counted from now for all of them."""
    return wait_for(lambda: all(condition(p) for p in pages), deadline=UPDATE_DEADLINE, what=f"{what} on every page")
