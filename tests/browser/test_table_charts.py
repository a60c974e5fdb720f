"""Issue 32: the charts on the console and on the table screen (headless Chromium, the real service on
both databases): each side's chance to win by round and each combatant's blood by round, drawn, and
drawn again after a round and after an undo, without a reload; screenshots on a phone and a TV."""

from __future__ import annotations

from tests.browser.fight import Fight, wait_for
from tests.browser.test_table_page import PHONE, TV, open_table

DEADLINE = 120  # seconds: the first timeline starts the odds worker process, on a loaded machine


def chart_state(page, testid: str) -> tuple[str | None, str | None, int]:
    chart = page.locator(f'[data-testid="{testid}"]')
    return chart.get_attribute("data-state"), chart.get_attribute("data-rounds"), chart.locator("canvas").count()


def charts_at(page, rounds: int, lines: int) -> bool:
    return all(
        chart_state(page, testid) == ("drawn", str(rounds), 1)
        and page.locator(f'[data-testid="{testid}"]').get_attribute("data-series") == str(lines)
        for testid in ("odds-chart", "blood-chart")
    )


def follow(page, fight: Fight, where: str) -> None:
    wait_for(lambda: charts_at(page, 1, 3), deadline=DEADLINE, what=f"{where}: both charts drawn up to round 1")
    page.evaluate("window.__notReloaded = true")
    fight.round(seed=22)
    wait_for(lambda: charts_at(page, 2, 3), deadline=DEADLINE, what=f"{where}: both charts drawn again with round 2")
    fight.undo(2)
    wait_for(lambda: charts_at(page, 1, 3), deadline=DEADLINE, what=f"{where}: both charts back at round 1 after undo")
    assert page.evaluate("window.__notReloaded") is True


def test_the_console_draws_both_charts_and_follows_rounds_and_undo(browser, server, screenshots):
    fight = Fight.start(server.url)
    fight.round(seed=21)
    context = browser.new_context(locale="en-GB", viewport=TV)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/table/{fight.id}#key={fight.owner}")
    follow(page, fight, "the console")
    assert page.locator('[data-testid="odds-chart"] .chart-title').inner_text() == "Chance to win by round (%)"
    legend = page.locator('[data-testid="blood-chart"] .u-legend').inner_text()
    assert all(name in legend for name in ("Ala", "Bolek", "Czarek"))
    database = server.database_url.split(":")[0].split("+")[0]
    page.screenshot(path=screenshots / f"charts-console-1920x1080-{database}.png", full_page=True)
    # side by side on a TV
    odds_box = page.locator('[data-testid="odds-chart"]').bounding_box()
    blood_box = page.locator('[data-testid="blood-chart"]').bounding_box()
    assert blood_box["x"] >= odds_box["x"] + odds_box["width"] - 1
    assert errors == []
    context.close()


def test_the_table_screen_draws_both_charts_on_a_phone(browser, server, screenshots):
    fight = Fight.start(server.url)
    fight.round(seed=31)
    context, page, errors = open_table(browser, server, fight, fight.token("viewer"), viewport=PHONE)
    follow(page, fight, "the table screen")
    database = server.database_url.split(":")[0].split("+")[0]
    page.locator('[data-testid="odds-chart"]').scroll_into_view_if_needed()
    page.screenshot(path=screenshots / f"charts-screen-390x844-{database}.png", full_page=True)
    # one above the other on a phone, each within the screen's width
    odds_box = page.locator('[data-testid="odds-chart"]').bounding_box()
    blood_box = page.locator('[data-testid="blood-chart"]').bounding_box()
    assert blood_box["y"] >= odds_box["y"] + odds_box["height"] - 1
    assert odds_box["x"] >= 0 and odds_box["x"] + odds_box["width"] <= PHONE["width"]
    assert errors == []
    context.close()
