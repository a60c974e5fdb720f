"""Polish names declined by Morfeusz 2 (SGJP), agreeing with their gender; unknown words left alone."""

from __future__ import annotations

import pytest

from app.chronicle import polish_names
from app.chronicle.polish_names import decline

# name, gender, genitive, dative, accusative, instrumental, locative
DECLINED = [
    ("Ala", "f", "Ali", "Ali", "Alę", "Alą", "Ali"),
    ("Kapłanka", "f", "Kapłanki", "Kapłance", "Kapłankę", "Kapłanką", "Kapłance"),
    ("Baba Jaga", "f", "Baby Jagi", "Babie Jadze", "Babę Jagę", "Babą Jagą", "Babie Jadze"),
    ("Bolek", "m", "Bolka", "Bolkowi", "Bolka", "Bolkiem", "Bolku"),
    ("Czarek", "m", "Czarka", "Czarkowi", "Czarka", "Czarkiem", "Czarku"),
    ("Kuba", "m", "Kuby", "Kubie", "Kubę", "Kubą", "Kubie"),
    ("Szkielet", "m", "Szkieletu", "Szkieletowi", "Szkielet", "Szkieletem", "Szkielecie"),
    ("Stary Wilk", "m", "Starego Wilka", "Staremu Wilkowi", "Starego Wilka", "Starym Wilkiem", "Starym Wilku"),
    ("Widmo", "n", "Widma", "Widmu", "Widmo", "Widmem", "Widmie"),
    ("Goblin 3", "m", "Goblina 3", "Goblinowi 3", "Goblina 3", "Goblinem 3", "Goblinie 3"),
    ("Bandyta 12", "m", "Bandyty 12", "Bandycie 12", "Bandytę 12", "Bandytą 12", "Bandycie 12"),
]


@pytest.mark.parametrize(("name", "gender", "gen", "dat", "acc", "inst", "loc"), DECLINED)
def test_a_known_name_takes_every_case_and_its_gender(
    name: str, gender: str, gen: str, dat: str, acc: str, inst: str, loc: str
) -> None:
    declined = decline(name)
    assert declined.nom == name
    assert declined.gender == gender
    assert dict(declined.forms) == {"gen": gen, "dat": dat, "acc": acc, "inst": inst, "loc": loc}


@pytest.mark.parametrize("name", ["Xyzzy", "Gandalf", "R2-D2", "Xyzzy 4", "Ala ma kota"])
def test_a_word_the_dictionary_does_not_know_is_never_inflected(name: str) -> None:
    declined = decline(name)
    assert declined.gender is None
    assert all(form is None for form in declined.forms.values())
    assert declined.case("nom") == name


def test_name_forms_win_over_the_dictionary_and_fill_what_it_lacks() -> None:
    assert decline("Bolek", {"acc": "Bolesława"}).case("acc") == "Bolesława"
    assert decline("Bolek", {"acc": "Bolesława"}).case("dat") == "Bolkowi"
    gandalf = decline("Gandalf", {"gen": "Gandalfa", "acc": "Gandalfa"})
    assert (gandalf.case("gen"), gandalf.case("acc"), gandalf.case("dat")) == ("Gandalfa", "Gandalfa", None)


def test_a_numbered_copy_keeps_its_number_after_a_given_form() -> None:
    assert decline("Gandalf 2", {"acc": "Gandalfa"}).case("acc") == "Gandalfa 2"
    assert decline("Gandalf 2", {"acc": "Gandalfa 2"}).case("acc") == "Gandalfa 2"


def test_morfeusz_is_loaded_once_per_process() -> None:
    decline("Zosia")
    loaded = polish_names._morfeusz
    decline("Marek")
    decline("Ewa 7")
    assert loaded is not None and polish_names._morfeusz is loaded
