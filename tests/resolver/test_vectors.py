"""Every golden vector (the repo's copy, every set) straight through the resolver."""

import pytest

from app.resolver import MixedDice, ResolverError, build_ruleset, resolve_round
from app.resolver.codec import result_to_json
from tests.resolver.decoding import dice_from_json, round_input_from_json
from tests.vectors import FOLDERS, VECTORS_DIR, is_refusal, load_vectors, mismatches


def resolve_json(request: dict) -> dict:
    ruleset = build_ruleset(request.get("rules"))
    state = round_input_from_json(request)
    dice = MixedDice(dice_from_json(request.get("dice", {})), request.get("seed", 0))
    return result_to_json(resolve_round(state, ruleset, dice))


@pytest.mark.parametrize("vector", load_vectors())
def test_vector(vector):
    if is_refusal(vector):
        with pytest.raises(ResolverError) as refused:
            resolve_json(vector["request"])
        assert refused.value.issues, "a refusal must name the bad field"
    else:
        assert mismatches(vector["expect"], resolve_json(vector["request"])) == []


@pytest.mark.parametrize("vector", [v for v in load_vectors() if not is_refusal(v.values[0])])
def test_vector_dice_are_echoed_exactly(vector):
    """Every die a vector fixes that the round used comes back as given; none is invented."""
    request = vector["request"]
    result = resolve_json(request)
    given = {k: (list(v) if isinstance(v, list) else v) for k, v in request["dice"].items()}
    assert all(given[key] == value for key, value in result["dice"].items())


def test_every_set_in_the_copy_is_run():
    """A set added by `make vectors` runs here (and in the compiled build, which runs this suite) or fails here."""
    sets = {path.parent.relative_to(VECTORS_DIR).as_posix() for path in VECTORS_DIR.rglob("*.json")}
    assert sets == set(FOLDERS)
