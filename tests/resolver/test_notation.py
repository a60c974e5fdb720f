"""Dice notation NdM, NdM+K, NdM-K (RULES.md section 2) and its bounds (CONTRACT.md)."""

import pytest

from app.resolver import DamageDice, InvalidNotation, parse_damage


@pytest.mark.parametrize(
    ("text", "count", "sides", "modifier"),
    [
        ("1d6", 1, 6, 0),
        ("2d6", 2, 6, 0),
        ("1d6+1", 1, 6, 1),
        ("1d10-2", 1, 10, -2),
        ("1d8+0", 1, 8, 0),
        # the bounds themselves are accepted: N 1..20, M 2..100, K -100..100
        ("1d2", 1, 2, 0),
        ("20d100", 20, 100, 0),
        ("1d6+100", 1, 6, 100),
        ("1d6-100", 1, 6, -100),
    ],
)
def test_valid_notation(text, count, sides, modifier):
    assert parse_damage(text) == DamageDice(count, sides, modifier)


@pytest.mark.parametrize(
    "text",
    [
        "", "d6", "1d", "1d6+", "1d6-", "1D6", "1x6", "one d6", "1d6+1+1", "1d6*2", "-1d6", "+1d6",
        " 1d6", "1d6 ", "1 d6", "1d6 + 1", "1.5d6", "1d6.5", "1d6+1.0", "1d6\n",
        "١d٦",  # Arabic-Indic digits: Python's \d and int() would read them as 1d6
    ],
)
def test_malformed_notation_is_refused(text):
    with pytest.raises(InvalidNotation):
        parse_damage(text)


@pytest.mark.parametrize(
    "text",
    ["0d6", "21d6", "1d1", "1d0", "1d101", "1d6+101", "1d6-101", "100d6", "1d1000"],
)
def test_notation_out_of_bounds_is_refused(text):
    with pytest.raises(InvalidNotation):
        parse_damage(text)


@pytest.mark.parametrize("value", [None, 6, ["1d6"], b"1d6"])
def test_non_text_is_refused(value):
    with pytest.raises(InvalidNotation):
        parse_damage(value)


def test_the_refusal_names_the_field_given():
    with pytest.raises(InvalidNotation) as refused:
        parse_damage("2x6", "/combatants/3/weapon/damage")
    assert [issue.field for issue in refused.value.issues] == ["/combatants/3/weapon/damage"]


@pytest.mark.parametrize(
    ("text", "shown"), [("1d8", "1d8"), ("2d6+1", "2d6+1"), ("1d10-2", "1d10-2"), ("1d4+0", "1d4")]
)
def test_notation_prints_back(text, shown):
    assert str(parse_damage(text)) == shown
