"""The four forms: Markdown, text, JSON and Discord messages within Discord's documented limits."""

from __future__ import annotations

import json
from typing import Any

from app.chronicle import discord_messages, json_document, markdown, render_round, tell, text
from app.chronicle.formats import COLOURS
from tests.chronicle.rounds import after, cast, fighter, stored
from tests.resolver.helpers import attack

LIMITS = {"content": 2000, "embeds": 10, "title": 256, "description": 4096, "fields": 25, "embed_text": 6000}


def two_rounds() -> tuple[list[Any], list[dict[str, Any]]]:
    combatants = [fighter("a", "Ala"), fighter("b", "Bolek *Szary*")]
    first = stored(
        combatants,
        [attack("a", "b"), attack("b", "a")],
        {"a.initiative.1": 1, "a.attack.1": 4, "a.damage.1": [4], "b.initiative.1": 2, "b.attack.1": 15},
    )
    second = stored(
        after(first, combatants),
        [attack("a", "b")],
        {"a.initiative.1": 1, "a.attack.1": 16},
        round=2,
    )
    return [first, second], combatants


def assert_within_discord_limits(message: dict[str, Any]) -> None:
    assert len(message.get("content", "")) <= LIMITS["content"]
    embeds = message["embeds"]
    assert 1 <= len(embeds) <= LIMITS["embeds"]
    total = 0
    for embed in embeds:
        assert len(embed["title"]) <= LIMITS["title"]
        assert len(embed.get("description", "")) <= LIMITS["description"]
        assert len(embed.get("fields", [])) <= LIMITS["fields"]
        total += len(embed["title"]) + len(embed.get("description", "")) + len(embed.get("footer", {}).get("text", ""))
    assert total <= LIMITS["embed_text"]
    assert message["allowed_mentions"] == {"parse": []}


def test_markdown_has_a_heading_per_round_and_a_bullet_per_line() -> None:
    rounds, combatants = two_rounds()
    stories = tell(rounds, cast(combatants), "pl")
    document = markdown(stories)
    blocks = document.strip().split("\n\n")
    assert blocks[0] == "## Runda 1 (tura 1)" and blocks[2] == "## Runda 2 (tura 1)"
    bullets = blocks[1].split("\n")
    assert len(bullets) == len(stories[0].lines) and all(b.startswith("- ") for b in bullets)
    assert "Bolek \\*Szary\\*" in document  # a name's markup is escaped, not rendered
    english = markdown(tell(rounds, cast(combatants), "en"))
    assert english.startswith("## Round 1 (turn 1)\n\n- Stances: balanced — Ala, Bolek \\*Szary\\*.\n")


def test_text_is_the_same_without_markup() -> None:
    rounds, combatants = two_rounds()
    stories = tell(rounds, cast(combatants), "en")
    plain = text(stories)
    assert plain.split("\n")[0] == "Round 1 (turn 1)"
    assert "##" not in plain and "\\" not in plain and "\n- " not in plain
    assert [line.text for story in stories for line in story.lines] == [
        line for line in plain.split("\n") if line and not line.startswith("Round ")
    ]


def test_json_names_actor_and_target_by_id() -> None:
    rounds, combatants = two_rounds()
    document = json.loads(json.dumps(json_document("enc-1", "pl", tell(rounds, cast(combatants), "pl"))))
    assert (document["encounter"], document["lang"], [r["round"] for r in document["rounds"]]) == (
        "enc-1",
        "pl",
        [1, 2],
    )
    first = document["rounds"][0]
    assert (first["turn"], first["title"]) == (1, "Runda 1 (tura 1)")
    assert [(line["tick"], line["kind"], line["actor"], line["target"]) for line in first["lines"]] == [
        (None, "stances", None, None),
        (1, "attack", "a", "b"),
        (2, "attack", "b", "a"),
    ]
    assert all(set(line) >= {"tick", "kind", "actor", "target", "text"} for line in first["lines"])


def test_discord_is_one_message_per_round_with_a_colour_per_result() -> None:
    rounds, combatants = two_rounds()
    messages = discord_messages(tell(rounds, cast(combatants), "pl"))
    assert len(messages) == 2
    for message in messages:
        assert_within_discord_limits(message)
    assert messages[0]["embeds"][0]["title"] == "Runda 1 (tura 1)"
    assert messages[0]["embeds"][0]["color"] == COLOURS["wound"]
    assert messages[1]["embeds"][0]["color"] == COLOURS["miss"]
    assert messages[0]["embeds"][0]["description"].startswith("• Postawa zrównoważona – Ala, Bolek \\*Szary\\*.")


def test_a_round_of_a_hundred_combatants_that_cannot_fit_one_message_is_split_within_the_limits() -> None:
    long_name = "Wielki Czarny Wilk z Gór Sowich o Stalowych Kłach i Ognistym Spojrzeniu, Postrach Doliny"
    combatants = [fighter(f"c{i:03}", f"{long_name} {i}", initiative=50, armor=30) for i in range(100)]
    declarations = [attack(f"c{i:03}", f"c{(i + 1) % 100:03}") for i in range(100)]
    dice: dict[str, Any] = {}
    for i in range(100):
        dice |= {f"c{i:03}.initiative.1": 1 + i % 10, f"c{i:03}.attack.1": 1 + i % 19, f"c{i:03}.damage.1": [3]}
    round_ = stored(combatants, declarations, dice)
    for lang in ("pl", "en"):
        story = render_round(round_, cast(combatants), lang)  # type: ignore[arg-type]
        messages = discord_messages([story])
        assert len(messages) > 1, "a round this long cannot fit one message"
        for message in messages:
            assert_within_discord_limits(message)
        told = [
            bullet for message in messages for embed in message["embeds"] for bullet in embed["description"].split("\n")
        ]
        # every line, once, in order; the stances of a hundred long names, too long for one description
        # alone, is the one line split (between words)
        lines = [line.text for line in story.lines]
        assert len(lines) == 101 and len(lines[0]) > LIMITS["description"]
        joined = [b for b in told if b.startswith("• ")]
        joined[0] = " ".join([joined[0], *(b for b in told if not b.startswith("• "))])
        assert [b.removeprefix("• ") for b in joined] == [line.replace("\\", "") for line in lines]
        assert messages[1]["embeds"][0]["title"].endswith(", cd." if lang == "pl" else ", continued")


def test_a_name_cannot_ping_anyone_on_discord() -> None:
    combatants = [fighter("a", "@everyone"), fighter("b", "<@123>")]
    round_ = stored(combatants, [attack("a", "b")], {"a.initiative.1": 1, "a.attack.1": 15})
    (message,) = discord_messages([render_round(round_, cast(combatants), "en")])
    assert message["allowed_mentions"] == {"parse": []}
    assert "\\<@123\\>" in message["embeds"][0]["description"]
