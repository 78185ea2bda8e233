"""How each entry's dice are labelled, and how one request's draws are split among its
entries (services.fair.seeds, pure parts)."""

from campaign.core.fair_dice import face_v2
from campaign.services.fair.seeds import FairDice, fairness_of

SEED = "a3f1c2e4b5d6978812345678abcdef0011223344556677889900aabbccddeeff"


def test_labels():
    fair = {"commit": 3, "seq": 5, "share": "ab" * 16, "from": 0, "draws": [[6, 1]]}
    assert fairness_of({"source": "server", "detail": {"fair": fair}}) == "provable"
    assert fairness_of({"source": "server", "detail": {"fair": {**fair, "share": None}}}) == "server"
    assert [fairness_of({"source": s, "detail": {}}) for s in ("rng", "server", "seeded", "manual", "ccfolia")] == [
        "server",
        "server",
        "server",
        "typed",
        "imported",
    ]
    assert fairness_of({"source": None, "detail": {}}) is None  # no dice: nothing to label


class _Fallback:
    kind = "server"

    def roll(self, sides):
        raise AssertionError("an armed source derives, it never draws")

    def ensure_all_used(self):
        return None


def test_each_entry_claims_its_own_draws_in_order():
    share = "ab" * 32
    dice = FairDice(_Fallback(), share)
    dice.seed, dice.commit_seq = SEED, 3
    faces = [dice.roll(6) for _ in range(4)] + [dice.roll(20)]
    assert faces == [face_v2(SEED, share, i, 6) for i in range(4)] + [face_v2(SEED, share, 4, 20)]
    assert dice.entry_fair(None) is None  # an entry without dice (a scenario's end) claims nothing
    first = dice.entry_fair(faces[:3])
    second = dice.entry_fair(faces[3:])
    assert first == {"v": 2, "commit": 3, "share": share, "from": 0, "draws": [[6, f] for f in faces[:3]]}
    assert (second["from"], second["draws"]) == (3, [[6, faces[3]], [20, faces[4]]])


def test_an_unarmed_source_rolls_its_fallback_and_records_nothing():
    class Fixed(_Fallback):
        def roll(self, sides):
            return 4

    dice = FairDice(Fixed(), None)
    assert dice.roll(6) == 4 and dice.entry_fair([4]) is None
