"""campaign/fair_check.py reads a ledger in one pass (judging as the records stream past,
keeping only the fair entries, whose seeds are revealed later), and still names a wrong
fair die before a wrong result earlier in the chain."""

from __future__ import annotations

from collections.abc import Iterator

from campaign.fair_check import check_records

SHARE = "ab" * 32


def _ledger(fair_dice: list[int], plain_dice: list[int], plain_total: int) -> list[dict]:
    commit = {"seq": 1, "kind": "seed_commit", "detail": {"commitment": "cd" * 32, "scheme": "hmac-sha256-v2"}}
    plain = {"seq": 2, "kind": "roll", "expression": "3D6", "dice": plain_dice, "total": plain_total, "detail": {}}
    fair = {
        "seq": 3,
        "kind": "roll",
        "expression": "3D6",
        "dice": fair_dice,
        "total": sum(fair_dice),
        "detail": {"fair": {"v": 2, "commit": 1, "share": SHARE, "from": 0, "draws": [[6, 2], [6, 3], [6, 4]]}},
    }
    return [commit, plain, fair]


def test_a_wrong_fair_die_is_named_before_an_earlier_wrong_total():
    found = check_records(_ledger([1, 1, 1], [1, 6, 6], 3))
    assert (found["ok"], found["seq"]) == (False, 3), found
    assert "not the derived draws" in found["problem"]


def test_an_earlier_wrong_total_is_named_when_the_fair_dice_hold():
    found = check_records(_ledger([2, 3, 4], [1, 6, 6], 3))
    assert (found["ok"], found["seq"]) == (False, 2), found


def test_a_one_pass_iterator_is_judged_whole():
    """Many rolls through a generator (read once, never listed): each is judged, the
    one fair entry is counted pending (its seed is not revealed)."""

    def records() -> Iterator[dict]:
        yield from _ledger([2, 3, 4], [1, 6, 6], 13)[:1]
        for seq in range(2, 5002):
            dice = [seq % 6 + 1, 2, 3]
            yield {"seq": seq, "kind": "roll", "expression": "3D6", "dice": dice, "total": sum(dice), "detail": {}}
        yield {**_ledger([2, 3, 4], [1, 6, 6], 13)[2], "seq": 5002}

    found = check_records(records())
    assert found["ok"], found
    assert (found["judged"], found["pending"]) == (5001, 1)
