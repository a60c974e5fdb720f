"""The table's three faces (the game master's console, a player's page, the table screen) checked with
axe-core, injected through the driver (the app never serves it), at phone and TV sizes."""

from __future__ import annotations

import pytest

from tests.browser.fight import Fight
from tests.browser.play import PHONE, TV, Page

SEVERE = {"serious", "critical"}


def violations(page: Page, axe_source: str) -> list[str]:
    # Through the driver, not a <script>: the page's CSP would rightly refuse an inline one.
    page.page.evaluate(axe_source)
    found = page.page.evaluate(
        """async () => {
            const result = await axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21aa"]}});
            return {passes: result.passes.length, violations: result.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" "))}))};
        }"""
    )
    assert found["passes"] > 10, "axe checked next to nothing: did the page draw?"
    return [f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in found["violations"]
            if v["impact"] in SEVERE]


@pytest.mark.parametrize("viewport", [PHONE, TV], ids=["phone", "tv"])
def test_no_serious_or_critical_violations(browser, server, axe_source, viewport):
    fight = Fight.start(server.url)
    fight.round(seed=4)
    # The round's dice depend on the combatants' ids, new each run: whoever still stands stages (Ala may be down).
    standing = [c["name"] for c in fight.call("GET", "").json()["combatants"] if c["status"] == "active"]
    actor, target = standing[0], standing[-1]
    declared: dict[str, object] = {"stance": "offensive"}
    if target != actor:
        declared["action"] = {"type": "attack", "targets": [fight.combatant(target)]}
    fight.stage(actor, declared)
    faces = {
        "console": Page(browser, server, fight, f"key={fight.owner}", viewport=viewport),
        "player": Page(browser, server, fight, f"token={fight.token('player', fight.combatant(actor))}",
                       viewport=viewport),
        "screen": Page(browser, server, fight, f"token={fight.token('viewer')}", viewport=viewport),
    }
    found = {name: violations(page, axe_source) for name, page in faces.items()}
    for page in faces.values():
        page.close()
    assert found == {name: [] for name in faces}
