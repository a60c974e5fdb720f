"""Roles and timing on the page (Chromium): a player with a companion declares for both from a phone-sized
page (one card each, its own first); the declaration deadline counts down on the player's page and on the
console, which also shows when a hidden reinforcement arrives (and works with a gm key)."""

from __future__ import annotations

import httpx

from tests.api.helpers import fighter
from tests.browser.fight import Fight, wait_for
from tests.browser.play import PHONE, Page, declare

PATIENCE = 60.0  # generous: a loaded machine is slow, never wrong


def with_companion(server) -> tuple[Fight, str]:
    fight = Fight.start(server.url)
    ala = fight.combatant("Ala")
    wolf = fight.call("POST", "/combatants", json=fighter("Wilk", companion_of=ala))
    assert wolf.status_code == 201, wolf.text
    return fight, wolf.json()["id"]


def test_a_player_declares_for_itself_and_its_companion_from_a_phone(browser, server, screenshots):
    fight, wolf = with_companion(server)
    ala, bolek = fight.combatant("Ala"), fight.combatant("Bolek")
    page = Page(browser, server, fight, f"token={fight.token('player', ala)}", viewport=PHONE)
    try:
        cards = page.page.locator("#combatants > li")
        wait_for(lambda: cards.count() == 4, deadline=PATIENCE, what="every card")
        order = [cards.nth(i).get_attribute("data-combatant") for i in range(2)]
        assert order == [ala, wolf]  # the player's own card first, then its companion's
        for cid in (ala, wolf):
            assert page.card(cid).get_by_test_id("declare").count() == 1  # a form on each
        assert page.card(bolek).get_by_test_id("declare").count() == 0
        own_box, wolf_box = page.card(ala).bounding_box(), page.card(wolf).bounding_box()
        assert own_box["width"] <= PHONE["width"] and wolf_box["y"] >= own_box["y"] + own_box["height"] - 1
        declare(page.card(ala), stance="offensive", targets=[bolek])
        declare(page.card(wolf), stance="defensive", targets=[bolek])
        wait_for(lambda: page.card(wolf).get_by_test_id("declared").count() == 1
                 and page.card(ala).get_by_test_id("declared").count() == 1, deadline=PATIENCE,
                 what="both declarations shown as staged")
        staged = {d["combatant"]: d for d in fight.call("GET", "/declarations").json()["declarations"]}
        assert staged[ala]["stance"] == "offensive" and staged[wolf]["stance"] == "defensive"
        page.page.screenshot(path=str(screenshots / "roles-companion-phone-390x844.png"), full_page=True)
        assert page.errors == []
    finally:
        page.close()


def test_the_countdown_shows_on_the_players_page_and_the_console(browser, server):
    fight, wolf = with_companion(server)
    ala = fight.combatant("Ala")
    assert fight.call("PATCH", "", json={"declaration_seconds": 600}).status_code == 200
    gm = httpx.post(f"{server.url}/v1/campaign/keys", json={"role": "gm"},
                    headers={"Authorization": f"Bearer {fight.owner}"}, timeout=30).json()["secret"]
    hidden = fight.call("POST", "/combatants", json=fighter("Zbój", hidden=True, reveal_at_round=3))
    assert hidden.status_code == 201, hidden.text
    player = Page(browser, server, fight, f"token={fight.token('player', ala)}", viewport=PHONE)
    console = Page(browser, server, fight, f"key={gm}")
    try:
        for page in (player, console):
            countdown = page.testid("countdown")
            wait_for(lambda countdown=countdown: countdown.is_visible(), deadline=PATIENCE, what="the countdown")
            first = int(countdown.get_attribute("data-seconds"))
            assert 0 < first <= 600
            wait_for(lambda countdown=countdown, first=first: int(countdown.get_attribute("data-seconds")) < first,
                     deadline=PATIENCE, what="the countdown to tick")
        arrives = console.testid(f"arrives-{hidden.json()['id']}")
        wait_for(lambda: arrives.count() == 1, deadline=PATIENCE, what="the reinforcement's arrival on the console")
        assert "3" in arrives.inner_text()
        assert player.page.locator(f"[data-combatant='{hidden.json()['id']}']").count() == 0
        assert fight.call("PATCH", "", json={"declaration_seconds": None}).status_code == 200
        for page in (player, console):
            wait_for(lambda page=page: not page.testid("countdown").is_visible(), deadline=PATIENCE,
                     what="the countdown to go when the deadline is removed")
        assert player.errors == [] and console.errors == []
    finally:
        player.close()
        console.close()
