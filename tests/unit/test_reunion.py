"""docs/rules.md "Missing and reunion check": reunion maths and the eligibility rules for searching and joining."""

from fractions import Fraction

import pytest

from campaign.core.dice_source import ManualDice
from campaign.core.reunion import (
    CharacterFacts,
    CharacterRef,
    MissingFacts,
    SearcherFacts,
    check_can_join_scenario,
    check_can_roll_reunion,
    check_can_search,
    is_related,
    reunion_actor,
    reunion_chance,
    reunion_check,
    reunion_odds_text,
    reunion_threshold,
)
from campaign.errors import BadInput, DiceError, RuleRefused

# --------------------------------------------------------------------- maths


def test_threshold_is_one_plus_searchers():
    assert [reunion_threshold(n) for n in range(4)] == [1, 2, 3, 4]
    with pytest.raises(BadInput):
        reunion_threshold(-1)


def test_roll_equal_to_threshold_succeeds():
    result = reunion_check(6, 2, ManualDice([3]))
    assert (result.faces, result.roll, result.threshold, result.success) == (6, 3, 3, True)


def test_roll_above_threshold_fails():
    result = reunion_check(6, 2, ManualDice([4]))
    assert (result.roll, result.threshold, result.success) == (4, 3, False)


def test_no_searchers_needs_a_one():
    assert reunion_check(6, 0, ManualDice([1])).success
    assert not reunion_check(6, 0, ManualDice([2])).success


@pytest.mark.parametrize("face", range(1, 7))
def test_five_searchers_on_d6_always_succeed(face):
    assert reunion_check(6, 5, ManualDice([face])).success
    assert reunion_chance(6, 5) == 1


def test_non_default_faces():
    assert reunion_check(10, 3, ManualDice([4])).success
    assert not reunion_check(10, 3, ManualDice([5])).success
    with pytest.raises(DiceError):  # 11 cannot come up on a d10
        reunion_check(10, 3, ManualDice([11]))
    assert reunion_chance(10, 3) == Fraction(2, 5)
    assert reunion_check(10, 3, ManualDice([4])).to_detail() == {
        "expression": "1d10",
        "faces": 10,
        "roll": 4,
        "dice": [4],
        "threshold": 4,
        "searchers": 3,
        "success": True,
    }


def test_bad_faces_refused():
    with pytest.raises(BadInput):
        reunion_chance(0, 1)
    with pytest.raises(BadInput):
        reunion_check(0, 1, ManualDice([1]))


def test_chance_is_exact_and_capped():
    assert reunion_chance(6, 0) == Fraction(1, 6)
    assert reunion_chance(6, 2) == Fraction(1, 2)
    assert reunion_chance(6, 9) == 1
    assert reunion_chance(1, 0) == 1


@pytest.mark.parametrize(
    "faces, searchers, text",
    [
        (6, 2, "needs <= 3 on 1d6 (50%)"),
        (6, 0, "needs <= 1 on 1d6 (17%)"),
        (6, 3, "needs <= 4 on 1d6 (67%)"),
        (6, 5, "needs <= 6 on 1d6 (100%)"),
        (6, 8, "needs <= 6 on 1d6 (100%)"),
        (10, 3, "needs <= 4 on 1d10 (40%)"),
        (1000, 1, "needs <= 2 on 1d1000 (<1%)"),
        (1000, 996, "needs <= 997 on 1d1000 (>99%)"),
    ],
)
def test_odds_text(faces, searchers, text):
    assert reunion_odds_text(faces, searchers) == text


# --------------------------------------------------------------------- eligibility

AKI_MISSING = MissingFacts(id=1, name="Aki", is_pc=True, player="alice")
KITSUNE_MISSING = MissingFacts(id=9, name="Kitsune", is_pc=False, player="alice", summoner_id=1)


def pc(id, name, player, *, related=(), **kw):
    return CharacterFacts(id=id, name=name, is_pc=True, player=player, related_to=frozenset(related), **kw)


BO = pc(2, "Bo", "bob", related={1, 9})


def refused(searcher, target, *, at_start=True) -> str:
    with pytest.raises(RuleRefused) as info:
        check_can_search(searcher, target, at_scenario_start=at_start)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_related_pc_of_another_player_may_search():
    check_can_search(BO, AKI_MISSING, at_scenario_start=True)


def test_only_at_scenario_start():
    assert "start of a scenario" in refused(BO, AKI_MISSING, at_start=False)


def test_npcs_never_search():
    npc = CharacterFacts(id=5, name="Oni", is_pc=False, player=None, related_to=frozenset({1}))
    assert "NPC" in refused(npc, AKI_MISSING)


def test_missing_character_cannot_search():
    assert "is missing" in refused(pc(3, "Cy", "carol", related={1}, missing=True), AKI_MISSING)


def test_one_target_at_a_time():
    busy = pc(2, "Bo", "bob", related={1}, searching_for=CharacterRef(7, "Dai"))
    assert "already searching for Dai" in refused(busy, AKI_MISSING)
    same = pc(2, "Bo", "bob", related={1}, searching_for=CharacterRef(1, "Aki"))
    assert "already searching for Aki" in refused(same, AKI_MISSING)


def test_must_be_related():
    assert "no recorded relationship" in refused(pc(3, "Cy", "carol"), AKI_MISSING)


def test_missing_pcs_own_player_cannot_send_searchers():
    assert "alice plays the missing Aki" in refused(pc(4, "Eri", "alice", related={1}), AKI_MISSING)


def test_npc_summoner_may_search_whoever_owns_it():
    # The summoner Aki is owned by alice, who also plays the NPC: allowed, and related
    # without any recorded relationship.
    summoner = pc(1, "Aki", "alice")
    assert is_related(summoner, KITSUNE_MISSING)
    check_can_search(summoner, KITSUNE_MISSING, at_scenario_start=True)
    # The same holds when another player owns the summoner.
    check_can_search(pc(1, "Aki", "bob"), KITSUNE_MISSING, at_scenario_start=True)


def test_npc_owner_may_send_a_related_pc_too():
    # a missing NPC bars no player; alice (who plays the NPC) may send Eri
    check_can_search(pc(4, "Eri", "alice", related={9}), KITSUNE_MISSING, at_scenario_start=True)
    # ... but only a related one, and still one searcher per player
    assert "no recorded relationship" in refused(pc(5, "Fumi", "alice"), KITSUNE_MISSING)


def test_other_players_may_search_for_an_npc_if_related():
    check_can_search(BO, KITSUNE_MISSING, at_scenario_start=True)
    assert "no recorded relationship" in refused(pc(3, "Cy", "carol"), KITSUNE_MISSING)


def test_gm_npc_without_player_has_no_own_player_rule():
    gm_npc = MissingFacts(id=8, name="Guide", is_pc=False, player=None)
    check_can_search(pc(3, "Cy", "carol", related={8}), gm_npc, at_scenario_start=True)


def test_one_searcher_per_player_per_missing_character():
    target = MissingFacts(
        id=1, name="Aki", is_pc=True, player="alice", searchers=(SearcherFacts(id=6, name="Fu", player="bob"),)
    )
    assert "bob already has Fu searching for Aki" in refused(BO, target)
    # another player's searcher does not block
    check_can_search(pc(3, "Cy", "carol", related={1}), target, at_scenario_start=True)


def test_join_scenario():
    check_can_join_scenario(BO)
    with pytest.raises(RuleRefused, match="Aki is missing"):
        check_can_join_scenario(pc(1, "Aki", "alice", missing=True))
    with pytest.raises(RuleRefused, match="Bo is searching for Aki"):
        check_can_join_scenario(pc(2, "Bo", "bob", searching_for=CharacterRef(1, "Aki")))


def test_one_reunion_check_per_scenario_end():
    check_can_roll_reunion(AKI_MISSING, already_rolled_this_scenario=False)
    with pytest.raises(RuleRefused, match="already been rolled"):
        check_can_roll_reunion(AKI_MISSING, already_rolled_this_scenario=True)


def test_reunion_actor_is_the_missing_characters_player():
    assert reunion_actor(AKI_MISSING) == "alice"
    assert reunion_actor(MissingFacts(id=8, name="Guide", is_pc=False)) == "GM"
