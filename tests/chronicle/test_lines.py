"""Each line tells its action's facts with the round document's own numbers, in Polish and in English.

Rounds are resolved by the real resolver with fixed dice. Every sentence shape is checked: `shape` is
forced to each of its values in turn (the real choice is a fixed function of the round and the action).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.chronicle import RoundStory, StoredRound, TurningPoint, english, polish, render_round
from app.chronicle.model import Line
from tests.chronicle.rounds import cast, fighter, stored
from tests.resolver.helpers import attack, first_aid, long


@pytest.fixture(params=[0, 1, 2], ids=lambda v: f"shape{v}")
def shaped(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    variant = request.param
    for module in (polish, english):
        monkeypatch.setattr(module, "shape", lambda fact, number, shapes: variant % shapes)
    yield variant


def told(round_: StoredRound, combatants: list[dict[str, Any]], lang: str) -> RoundStory:
    return render_round(round_, cast(combatants), lang)  # type: ignore[arg-type]


def only(story: RoundStory, kind: str, actor: str | None = None) -> Line:
    lines = [line for line in story.lines if line.kind == kind and (actor is None or line.actor == actor)]
    assert len(lines) == 1, [line.text for line in story.lines]
    return lines[0]


ALA, BOLEK, CZAREK = fighter("a", "Ala"), fighter("b", "Bolek", armor=2), fighter("c", "Czarek")


def test_a_wounding_attack_says_every_number_that_decided_it(shaped: int) -> None:
    combatants = [ALA, BOLEK]
    round_ = stored(combatants, [attack("a", "b")], {"a.initiative.1": 1, "a.attack.1": 4, "a.damage.1": [4]})
    entry = round_.document["actions"][0]
    assert (entry["score"], entry["target_number"], entry["blow"], entry["effective"]) == (4, 10, 7, 5)
    pl = only(told(round_, combatants, "pl"), "attack")
    assert (pl.actor, pl.target, pl.result, pl.tick) == ("a", "b", "wound", 1)
    for fact in ("Ala", "Bolka" if shaped != 1 else "Bolek odnosi", "wynik inicjatywy 4", "wypada 4", "progu 10"):
        assert fact in pl.text
    assert "siła ciosu 7" in pl.text.lower() and "obrażeń: 4" in pl.text and "pochłaniają 2" in pl.text
    assert "cios efektywny 5" in pl.text
    assert ("ranę lekką" if shaped else "rana lekka") in pl.text
    en = only(told(round_, combatants, "en"), "attack").text
    assert en.startswith("Ala attacks Bolek (score 4)")
    for fact in ("rolled 4 against 10", "damage 4", "blow 7", "take 2", "effective 5", "a light wound"):
        assert fact in en.lower()


def test_a_miss_and_the_natural_rolls_are_said_as_such(shaped: int) -> None:
    combatants = [ALA, BOLEK, fighter("c", "Czarek", defense=30)]
    round_ = stored(
        combatants,
        [attack("a", "b"), attack("b", "c")],
        {"a.initiative.1": 1, "a.attack.1": 20, "b.initiative.1": 2, "b.attack.1": 1, "b.damage.1": [1]},
    )
    story = told(round_, combatants, "pl")
    miss = only(story, "attack", "a")
    assert miss.result == "miss" and "naturalna 20" in miss.text and "chybi" in miss.text
    assert ("Atak Ali na Bolka chybia" if shaped == 1 else "Ala atakuje Bolka") in miss.text
    natural_hit = only(story, "attack", "b")
    assert natural_hit.result == "wound" and "naturalna 1 przy progu -20" in natural_hit.text
    en = told(round_, combatants, "en")
    assert "a natural 20 against 10, a miss" in only(en, "attack", "a").text
    assert "a natural 1 against -20" in only(en, "attack", "b").text


def test_a_deflected_blow_says_that_armor_took_it(shaped: int) -> None:
    combatants = [ALA, fighter("b", "Bolek", armor=20)]
    round_ = stored(combatants, [attack("a", "b")], {"a.initiative.1": 1, "a.attack.1": 4, "a.damage.1": [4]})
    pl = only(told(round_, combatants, "pl"), "attack").text
    assert "odbija" in pl and "siła ciosu 7" in pl and "cios efektywny -13" in pl
    if shaped != 1:
        assert "pochłaniają 20" in pl
    else:
        assert "pancerza Bolka" in pl
    assert "the armor holds" in only(told(round_, combatants, "en"), "attack").text


def test_a_held_action_says_whom_it_waited_for(shaped: int) -> None:
    combatants = [fighter("a", "Ala", initiative=20), BOLEK, CZAREK]
    declarations = [{**attack("a", "b"), "hold": "c"}, attack("c", "b")]
    dice = {"a.initiative.1": 1, "a.attack.1": 15, "c.initiative.1": 1, "c.attack.1": 15}
    round_ = stored(combatants, declarations, dice)
    assert [a["actor"] for a in round_.document["actions"]] == ["c", "a"]
    assert round_.document["actions"][1]["held"] is True
    pl = only(told(round_, combatants, "pl"), "attack", "a").text
    assert pl.startswith("Ala czeka na Czarka i dopiero potem atakuje Bolka")
    assert only(told(round_, combatants, "en"), "attack", "a").text.startswith(
        "Ala waits for Czarek, then attacks Bolek"
    )


def test_first_aid_says_whose_wounds_stopped_bleeding(shaped: int) -> None:
    wounded = fighter("a", "Ala", wounds=[{"class": "moderate", "penalty": 2, "bleed": 1}])
    combatants = [wounded, BOLEK]
    round_ = stored(combatants, [first_aid("b", "a")], {"b.initiative.1": 1})
    line = only(told(round_, combatants, "pl"), "first_aid")
    assert (line.actor, line.target, line.result) == ("b", "a", "done")
    expected = "Bolek udziela pierwszej pomocy Ali" if shaped == 1 else "Bolek opatruje Alę"
    assert line.text.startswith(expected) and "przestają krwawić" in line.text
    en = only(told(round_, combatants, "en"), "first_aid").text
    assert en == "Bolek tends Ala's wounds (score -1): they stop bleeding."


def test_a_wound_that_forces_a_status_gets_a_line_and_a_lost_action_says_why(shaped: int) -> None:
    # Bolek acts first and lays Ala out (critical: unconscious), so her attack is lost; Czarek kills Bolek
    # (mortal), so Dorota's attack on him is lost.
    combatants = [
        fighter("a", "Ala"),
        fighter("b", "Bolek", initiative=30, damage_bonus=8),
        fighter("c", "Czarek", initiative=20, damage_bonus=20),
        fighter("d", "Dorota"),
    ]
    declarations = [attack("b", "a"), attack("c", "b"), attack("a", "c"), attack("d", "b")]
    dice = {
        "b.initiative.1": 1, "b.attack.1": 10, "b.damage.1": [4],
        "c.initiative.1": 1, "c.attack.1": 10, "c.damage.1": [8],
        "a.initiative.1": 1, "a.attack.1": 10, "d.initiative.1": 2, "d.attack.1": 10,
    }  # fmt: skip
    round_ = stored(combatants, declarations, dice)
    results = [(a["actor"], a["result"], a["wound"]) for a in round_.document["actions"]]
    assert results == [("b", "wound", "critical"), ("c", "wound", "mortal"), ("a", "actor_down", None),
                       ("d", "target_down", None)]  # fmt: skip
    pl = told(round_, combatants, "pl")
    falls = [line for line in pl.lines if line.kind == "down"]
    assert [(f.actor, f.target, f.result) for f in falls] == [("a", "b", "unconscious"), ("b", "c", "dead")]
    assert falls[0].text in ("Ala pada nieprzytomna.", "Cios Bolka powala Alę: Ala traci przytomność.")
    assert falls[1].text in ("Bolek pada martwy.", "Bolek ginie od ciosu Czarka.")
    lost = only(pl, "attack", "a").text
    assert lost == "Atak Ali na Czarka przepada: Ala jest nieprzytomna (wynik inicjatywy 4)."
    assert only(pl, "attack", "d").text == "Atak Doroty na Bolka przepada: Bolek już nie żyje (wynik inicjatywy 3)."
    en = told(round_, combatants, "en")
    assert [line.text for line in en.lines if line.kind == "down"] == [
        "Ala falls unconscious from Bolek's blow.",
        "Bolek dies from Czarek's blow.",
    ]
    assert "Ala is unconscious" in only(en, "attack", "a").text
    assert "Bolek is already dead" in only(en, "attack", "d").text


def test_long_actions_start_go_on_complete_and_are_interrupted(shaped: int) -> None:
    ritual = {"name": "Rytuał", "delay": 2, "target": "b", "rounds_left": 1,
              "effect": {"name": "Błogosławieństwo", "attack": 1, "defense": 0, "initiative": 0,
                         "blood_per_turn": 0, "rounds": 3}}  # fmt: skip
    combatants = [
        fighter("a", "Ala", long_action=ritual),
        BOLEK,
        fighter("c", "Czarek", long_action={"name": "Klątwa", "delay": 2, "target": None, "rounds_left": 2}),
        fighter("d", "Dorota", initiative=30, damage_bonus=3),
        fighter("e", "Edek"),
    ]
    declarations = [attack("d", "c"), long("e", 2, "Modlitwa", rounds=3)]
    dice = {"a.initiative.1": 1, "c.initiative.1": 1, "d.initiative.1": 1, "d.attack.1": 10, "d.damage.1": [4],
            "e.initiative.1": 1}  # fmt: skip
    round_ = stored(combatants, declarations, dice)
    by_actor = {a["actor"]: a["result"] for a in round_.document["actions"]}
    assert by_actor == {"a": "done", "c": "interrupted", "d": "wound", "e": "in_progress"}
    pl = told(round_, combatants, "pl")
    assert only(pl, "continue", "a").text == (
        "Ala dopełnia działanie „Rytuał” na Bolka (wynik inicjatywy 7). Bolek otrzymuje efekt „Błogosławieństwo”."
    )
    assert only(pl, "continue", "c").text.startswith(
        "Czarek nie może kontynuować działania „Klątwa”: zostało przerwane"
    )
    assert (
        only(pl, "custom", "e").text
        == "Edek rozpoczyna działanie „Modlitwa” (wynik inicjatywy 7); potrwa jeszcze 2 rundy."
    )
    en = told(round_, combatants, "en")
    assert (
        only(en, "continue", "a").text
        == "Ala completes “Rytuał” on Bolek (score 7). Bolek gains the effect “Błogosławieństwo”."
    )
    assert only(en, "custom", "e").text == "Edek begins “Modlitwa” (score 7); 2 more rounds."
    assert "interrupted" in only(en, "continue", "c").text


def test_a_long_action_lost_after_its_own_tick_gets_a_line() -> None:
    combatants = [fighter("a", "Ala", initiative=30), fighter("b", "Bolek", damage_bonus=3)]
    declarations = [long("a", 2, "Rytuał", rounds=3), attack("b", "a")]
    dice = {"a.initiative.1": 1, "b.initiative.1": 1, "b.attack.1": 10, "b.damage.1": [4]}
    round_ = stored(combatants, declarations, dice)
    pl = told(round_, combatants, "pl")
    assert only(pl, "long_action_lost", "a").text == "Ala traci skupienie: działanie „Rytuał” przepada."
    assert only(pl, "custom", "a").text == "Ala rozpoczyna działanie „Rytuał” (wynik inicjatywy 27)."
    assert only(told(round_, combatants, "en"), "long_action_lost").text == "Ala loses focus: “Rytuał” is lost."


def test_a_turn_end_tells_the_bleeding_and_the_effects_that_ended(shaped: int) -> None:
    bleeding = [{"class": "severe", "penalty": 3, "bleed": 2}]
    blessed = [{"id": "e1", "name": "Błogosławieństwo", "attack": 1, "defense": 0, "initiative": 0,
                "blood_per_turn": 0, "until_round": 10}]  # fmt: skip
    combatants = [
        fighter("a", "Ala", wounds=bleeding, effects=blessed),
        fighter("b", "Bolek", wounds=bleeding, blood=1),
        fighter("c", "Czarek", effects=[{**blessed[0], "blood_per_turn": -3}], blood=5),
    ]
    round_ = stored(combatants, [], {}, round=10)
    assert round_.document["bleeding"] == [
        {"combatant": "a", "lost": 2, "blood": 8, "status": "active"},
        {"combatant": "b", "lost": 2, "blood": -1, "status": "unconscious"},
        {"combatant": "c", "lost": -3, "blood": 8, "status": "active"},
    ]
    pl = told(round_, combatants, "pl")
    bled = [line.text for line in pl.lines if line.kind == "bleeding"]
    assert bled[0] in ("Koniec tury: Ala traci 2 punkty krwi, zostaje jej 8.",
                       "Ala krwawi: na koniec tury traci 2 punkty krwi, zostaje jej 8.")  # fmt: skip
    assert "Bolek" in bled[1] and "-1" in bled[1] and "pada nieprzytomny" in bled[1]
    assert bled[2] == "Koniec tury: Czarek odzyskuje 3 punkty krwi, ma teraz 8."
    assert only(pl, "effects_ended", "a").text == "Efekt „Błogosławieństwo” na Ali wygasa."
    en = told(round_, combatants, "en")
    assert [line.text for line in en.lines if line.kind == "bleeding"] == [
        "End of turn: Ala loses 2 blood, 8 left.",
        "End of turn: Bolek loses 2 blood, -1 left and falls unconscious.",
        "End of turn: Czarek regains 3 blood, now 8.",
    ]
    assert only(en, "effects_ended", "c").text == "Czarek: the effect “Błogosławieństwo” ends."


def test_the_stances_line_lists_every_active_combatant(shaped: int) -> None:
    combatants = [ALA, BOLEK, CZAREK, fighter("d", "Dorota", status="unconscious", blood=0)]
    round_ = stored(
        combatants,
        [
            {**attack("a", "b"), "stance": "offensive"},
            {"combatant": "c", "stance": "defensive", "action": {"type": "none"}},
        ],
        {"a.initiative.1": 1, "a.attack.1": 15},
    )
    assert only(told(round_, combatants, "pl"), "stances").text == (
        "Postawy: ofensywna – Ala; zrównoważona – Bolek; defensywna – Czarek."
    )
    assert only(told(round_, combatants, "en"), "stances").text == (
        "Stances: offensive — Ala; balanced — Bolek; defensive — Czarek."
    )


def test_an_unknown_name_stays_in_the_nominative(shaped: int) -> None:
    combatants = [ALA, fighter("x", "Xyzzy")]
    round_ = stored(
        combatants,
        [attack("a", "x"), first_aid("x", "a")],
        {"a.initiative.1": 1, "a.attack.1": 4, "a.damage.1": [4], "x.initiative.1": 9},
    )
    pl = told(round_, combatants, "pl")
    text = only(pl, "attack").text
    assert "cel: Xyzzy" in text or "Xyzzy odnosi" in text
    assert "Xyzz" not in text.replace("Xyzzy", "")  # never an invented ending
    # as the actor (nominative anyway) it reads plainly, declining its target
    assert only(pl, "first_aid").text.startswith(("Xyzzy opatruje Alę", "Xyzzy udziela pierwszej pomocy Ali"))


def test_name_forms_win_and_a_turning_point_is_marked_when_given() -> None:
    combatants = [ALA, fighter("g", "Gandalf", name_forms={"acc": "Gandalfa", "gen": "Gandalfa"})]
    round_ = stored(combatants, [attack("a", "g")], {"a.initiative.1": 1, "a.attack.1": 15})
    story = render_round(round_, cast(combatants), "pl", turning_point=TurningPoint("party", 0.4, 0.75))
    assert "Gandalfa" in only(story, "attack").text
    assert only(story, "turning_point").text == "Punkt zwrotny: szanse strony „party” na zwycięstwo rosną z 40% do 75%."
    plain = render_round(round_, cast(combatants), "pl")
    assert [line.kind for line in plain.lines] == ["stances", "attack"]


def test_the_same_round_always_reads_the_same() -> None:
    combatants = [ALA, BOLEK, CZAREK]
    round_ = stored(
        combatants,
        [attack("a", "b"), attack("b", "c"), attack("c", "a")],
        {f"{c}.{k}.1": 3 for c in "abc" for k in ("initiative", "attack")} | {f"{c}.damage.1": [3] for c in "abc"},
    )
    first = [told(round_, combatants, lang) for lang in ("pl", "en")]
    assert first == [told(round_, combatants, lang) for lang in ("pl", "en")]
