"""Playing from the page: the game master's console and two players' pages, each in its own browser
context, play three rounds against the real service (both databases), and every page follows."""

from __future__ import annotations

import httpx

from tests.browser.fight import Fight, wait_for
from tests.browser.play import PHONE, TV, UPDATE_DEADLINE, Page, all_follow, declare


def owner_post(fight: Fight, path: str, body: dict) -> dict:
    response = httpx.post(f"{fight.url}{path}", json=body, headers={"Authorization": f"Bearer {fight.owner}"},
                          timeout=30)
    assert response.status_code == 201, response.text
    return response.json()


def names(page: Page) -> set[str]:
    return set(page.page.locator("#combatants .name").all_inner_texts())


def staged(page: Page, combatant_id: str) -> str:
    block = page.card(combatant_id).get_by_test_id("declared")
    return block.inner_text() if block.count() else ""


def test_a_console_and_two_players_play_three_rounds_and_finish(browser, server, screenshots):
    fight = Fight.start(server.url)
    ala, bolek, czarek = (fight.combatant(n) for n in ("Ala", "Bolek", "Czarek"))
    goblin = owner_post(fight, "/v1/creatures", {"name": "Goblin", "initiative": 10, "attack": 8, "defense": 2,
                                                 "weapon": "dagger", "vitality": 6})
    dorota = owner_post(fight, "/v1/characters", {"name": "Dorota", "initiative": 15, "attack": 12, "defense": 3,
                                                  "weapon": "long_sword"})
    gm = Page(browser, server, fight, f"key={fight.owner}")
    ala_page = Page(browser, server, fight, f"token={fight.token('player', ala)}", viewport=PHONE)
    czarek_page = Page(browser, server, fight, f"token={fight.token('player', czarek)}", viewport=PHONE)
    pages = [gm, ala_page, czarek_page]
    players = [ala_page, czarek_page]
    database = server.database_url.split(":")[0].split("+")[0]

    # Each player's own combatant first, every card under its combatant-<id> testid, no round yet.
    assert ala_page.page.locator("#combatants > li").first.get_attribute("data-testid") == f"combatant-{ala}"
    assert czarek_page.page.locator("#combatants > li").first.get_attribute("data-testid") == f"combatant-{czarek}"
    assert all(p.last_round() is None for p in pages)
    assert ala_page.testid("declared").count() == 0 and ala_page.testid("withdraw").is_hidden()

    # Round 1: Ala declares, Czarek declares, withdraws and declares again, the GM declares for Bolek.
    declare(ala_page.page, stance="offensive", targets=[bolek], technical=1)
    wait_for(lambda: "attacks Bolek" in staged(ala_page, ala), deadline=UPDATE_DEADLINE, what="Ala's own declaration")
    took = wait_for(lambda: "offensive stance" in staged(gm, ala) and "attacks Bolek" in staged(gm, ala),
                    deadline=UPDATE_DEADLINE, what="Ala's declaration in full on the console")
    print(f"\na player's declaration on the console {took * 1000:.0f} ms after the click")
    assert ala_page.testid("withdraw").is_visible()
    assert "declared" in czarek_page.card(ala).inner_text()
    assert "offensive" not in czarek_page.card(ala).inner_text()  # the other player sees only that Ala declared

    declare(czarek_page.page, stance="defensive", targets=[ala])
    wait_for(lambda: "attacks Ala" in staged(gm, czarek), deadline=UPDATE_DEADLINE, what="Czarek's declaration")
    czarek_page.testid("withdraw").click()
    all_follow(pages, lambda p: "not declared yet" in p.card(czarek).inner_text(), "Czarek's withdrawal")
    assert czarek_page.testid("declared").count() == 0 and czarek_page.testid("withdraw").is_hidden()
    declare(czarek_page.page, stance="balanced", targets=[bolek])
    wait_for(lambda: "attacks Bolek" in staged(gm, czarek), deadline=UPDATE_DEADLINE, what="Czarek's new declaration")

    declare(gm.card(bolek), stance="defensive", targets=[ala])
    all_follow(pages, lambda p: "✔" in p.card(bolek).inner_text(), "Bolek declared by the GM")
    assert "attacks Ala" in staged(gm, bolek)
    assert "Not declared yet" not in gm.testid("not-declared").inner_text()

    gm.testid("resolve-round").click()
    took = all_follow(pages, lambda p: p.last_round() == 1, "round 1")
    print(f"round 1 on every page {took * 1000:.0f} ms after the click")
    all_follow(players, lambda p: p.testid("declared").count() == 0, "the declarations cleared by round 1")

    # Round 2: the players declare (whoever still stands), the GM types one die in and resolves.
    def standing() -> dict[str, str]:
        return {c["id"]: c["status"] for c in fight.call("GET", "").json()["combatants"]}

    status = standing()
    for page, own in ((ala_page, ala), (czarek_page, czarek)):
        if status[own] == "active":
            target = next(c for c in (bolek, ala, czarek) if c != own and status[c] != "dead")
            declare(page.page, targets=[target])
            wait_for(lambda own=own: "attacks" in staged(gm, own), deadline=UPDATE_DEADLINE,
                     what="a player's round 2 declaration on the console")
    typed = next((c for c in (ala, czarek) if status[c] == "active"), None)
    if typed:
        gm.page.locator("details.round-dice summary").click()
        gm.testid(f"dice-{typed}.initiative.1").fill("3")
    gm.testid("resolve-round").click()
    all_follow(pages, lambda p: p.last_round() == 2, "round 2")
    if typed:
        assert fight.call("GET", "/rounds/2").json()["dice"][f"{typed}.initiative.1"] == 3

    # Round 3 with server dice, then undone: every page back at round 2.
    gm.testid("resolve-round").click()
    all_follow(pages, lambda p: p.last_round() == 3, "round 3")
    gm.testid("undo-round").click()
    took = all_follow(pages, lambda p: p.last_round() == 2, "round 3 undone")
    print(f"the undo on every page {took * 1000:.0f} ms after the click")

    # The console adds from the bestiary (two copies) and the roster; the players see them come.
    gm.testid("add-count").fill("2")
    gm.testid("add-from-bestiary").select_option(goblin["id"])
    all_follow(pages, lambda p: {"Goblin 1", "Goblin 2"} <= names(p), "two goblins")
    wait_for(lambda: gm.testid("add-from-roster").locator(f'option[value="{dorota["id"]}"]').count() == 1,
             deadline=5, what="Dorota in the roster's list")
    gm.testid("add-from-roster").select_option(dorota["id"])
    all_follow(pages, lambda p: "Dorota" in names(p), "Dorota joining")

    # Hide and reveal: gone from the players' pages, marked on the console, back again.
    gm.testid(f"hide-{bolek}").click()
    all_follow(players, lambda p: p.card(bolek).count() == 0, "Bolek hidden from the players")
    wait_for(lambda: "hidden" in gm.card(bolek).inner_text(), deadline=UPDATE_DEADLINE, what="Bolek marked hidden")
    gm.testid(f"reveal-{bolek}").click()
    all_follow(players, lambda p: p.card(bolek).count() == 1, "Bolek revealed")

    # An effect put on and removed from the console.
    card = gm.card(ala)
    card.get_by_test_id(f"effect-open-{ala}").click()
    card.get_by_test_id("effect-name").fill("Błogosławieństwo")
    card.get_by_test_id("effect-attack").fill("2")
    card.get_by_test_id("effect-rounds").fill("3")
    card.get_by_test_id("add-effect").click()
    all_follow(pages, lambda p: "Błogosławieństwo" in p.card(ala).inner_text(), "the effect on Ala")
    effect = fight.call("GET", f"/combatants/{ala}").json()["effects"][0]
    gm.testid(f"remove-effect-{effect['id']}").click()
    all_follow(pages, lambda p: "Błogosławieństwo" not in p.card(ala).inner_text(), "the effect removed")

    # The player's link, made on the console.
    gm.testid(f"make-link-{ala}").click()
    wait_for(lambda: f"/table/{fight.id}#token=" in (gm.testid(f"link-{ala}").input_value() or ""), deadline=5,
             what="Ala's player link")

    # A refusal in the service's own words: a target who died meanwhile.
    if standing()[czarek] == "active":
        fight.call("PATCH", f"/combatants/{bolek}", json={"status": "dead"})
        wait_for(lambda: "(dead)" in czarek_page.testid("target").inner_text(), deadline=UPDATE_DEADLINE,
                 what="Bolek dead in Czarek's targets")
        czarek_page.testid("target").select_option(bolek)
        czarek_page.testid("declare").click()
        wait_for(lambda: "already dead" in czarek_page.testid("refusal").inner_text(), deadline=5,
                 what="the refusal on Czarek's page")
        assert "Bolek" in czarek_page.testid("refusal").inner_text()  # named, not by id
    else:
        fight.call("PATCH", f"/combatants/{czarek}", json={"status": "active"})

    for page, name in ((gm, "console"), (ala_page, "player")):
        for size, viewport in (("phone-390x844", PHONE), ("tv-1920x1080", TV)):
            page.page.set_viewport_size(viewport)
            page.page.screenshot(path=screenshots / f"play-{name}-{size}-{database}.png", full_page=True)
    print(f"screenshots: {screenshots}")
    # One column on a phone: the form sits inside the card, nothing beside the combatants.
    ala_page.page.set_viewport_size(PHONE)
    # The charts redraw at the new width on the resize's next frame: the layout settles, then it must fit.
    wait_for(lambda: ala_page.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"),
             deadline=10, what="the player's page one column wide on a phone")

    # The fight finished from the console (its confirm() accepted): the players' forms go away.
    gm.testid("finish").click()
    all_follow(players, lambda p: p.testid("fight-finished").is_visible() and p.testid("stance").count() == 0,
               "the finished fight")
    assert fight.call("GET", "").json()["finished"] is True
    # Every page says it is over: no next round, no declaration awaited.
    all_follow(pages, lambda p: "over" in p.page.locator("#round-line").inner_text()
               and "next: round" not in p.page.locator("#round-line").inner_text()
               and "not declared yet" not in p.page.locator("main").inner_text().lower(), "the pages say it is over")

    # The key never left the page's memory and fragment: no URL asked for carries it, no storage holds it.
    assert not [url for url in gm.urls if fight.owner in url]
    stored = gm.page.evaluate("JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])")
    assert fight.owner not in stored
    for page in pages:
        assert page.errors == []
        page.close()
