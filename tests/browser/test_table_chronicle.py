"""The chronicle on the pages, in headless Chromium against the real service (both databases): the table
screen tells the latest round in the page's language, and the console copies the whole fight as Markdown."""

from __future__ import annotations

import httpx

from tests.browser.fight import Fight, wait_for
from tests.browser.play import Page

DEADLINE = 10.0  # a read after an event, on a loaded machine: generous, and polled


def chronicle(fight: Fight, lang: str, form: str, **params: int) -> httpx.Response:
    answer = fight.call("GET", "/chronicle", params={"lang": lang, "format": form, **params})
    assert answer.status_code == 200, answer.text
    return answer


def told(page: Page) -> list[str]:
    return page.page.locator("#actions li").all_inner_texts()


def test_the_screen_tells_the_latest_round_in_the_page_language(browser, server):
    fight = Fight.start(server.url)
    fight.round(seed=11)
    viewer = Page(browser, server, fight, f"token={fight.token('viewer')}", locale="en-GB")
    expected = chronicle(fight, "en", "json", **{"from": 1, "to": 1}).json()["rounds"][0]["lines"]
    per_action = [line["text"] for line in expected if line["kind"] in ("attack", "first_aid", "custom", "continue")]
    wait_for(
        lambda: viewer.page.locator('[data-testid="last-round"][data-told="en"]').count() == 1,
        deadline=DEADLINE,
        what="round 1 told in English",
    )
    items = told(viewer)
    assert len(items) == len(per_action)  # one item per action entry, as the raw list had
    assert all(item.startswith(text) for item, text in zip(items, per_action))
    assert viewer.page.locator("#round-stances").inner_text() == expected[0]["text"]
    assert expected[0]["text"].startswith("Stances: balanced — Ala, Bolek, Czarek")

    fight.round(seed=12)
    wait_for(
        lambda: viewer.last_round() == 2 and viewer.page.locator('[data-told="en"]').count() == 1,
        deadline=DEADLINE,
        what="round 2 told",
    )
    second = chronicle(fight, "en", "json", **{"from": 2, "to": 2}).json()["rounds"][0]["lines"]
    assert told(viewer)[0].startswith(next(line["text"] for line in second if line["kind"] == "attack"))

    viewer.page.locator("#language").click()  # to Polish: the lines are read again in Polish
    wait_for(
        lambda: viewer.page.locator('[data-told="pl"]').count() == 1, deadline=DEADLINE, what="round 2 told in Polish"
    )
    polish = chronicle(fight, "pl", "json", **{"from": 2, "to": 2}).json()["rounds"][0]["lines"]
    assert viewer.page.locator("#round-stances").inner_text() == polish[0]["text"]
    assert polish[0]["text"].startswith("Postawa zrównoważona – ")
    assert " atakuje " in " ".join(told(viewer)) or "Atak " in " ".join(told(viewer))
    assert viewer.errors == []
    viewer.close()


def test_the_console_copies_the_whole_fight_as_markdown(browser, server):
    fight = Fight.start(server.url)
    fight.round(seed=21)
    fight.round(seed=22)
    gm = Page(browser, server, fight, f"key={fight.owner}", locale="pl-PL")
    gm.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    wait_for(lambda: gm.page.locator('[data-told="pl"]').count() == 1, deadline=DEADLINE, what="the round told")
    gm.testid("copy-chronicle").click()
    wait_for(lambda: gm.testid("chronicle-copied").is_visible(), deadline=DEADLINE, what="the copy confirmed")
    copied = gm.page.evaluate("navigator.clipboard.readText()")
    assert copied == chronicle(fight, "pl", "markdown").text
    assert copied.startswith("## Runda 1 (tura 1)\n\n- Postawa zrównoważona") and "## Runda 2 (tura 1)" in copied
    assert gm.testid("chronicle-copied").inner_text() == "Cała walka jest w schowku."
    assert gm.errors == []
    gm.close()
