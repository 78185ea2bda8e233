"""The shared state at the head (campaign.web.head_state): computed once per head for
every page, the sheets read again only after an entry that may change them."""

from __future__ import annotations

import threading

import pytest

from campaign.db.database import Database
from campaign.services.ledger.browse import campaign_identity
from campaign.web.head_state import HeadState, leaves_sheets
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)

NAME = "テスト卓"


def _served(db_url: str) -> tuple[Database, HeadState, list[int]]:
    """A HeadState whose overview part counts its sheet reads."""
    db = Database(db_url)
    reads: list[int] = []

    def overview(characters):
        reads.append(len(characters))
        return {"characters": "<li>" * len(characters), "missing": ""}

    return db, HeadState(db, campaign_identity(db, NAME)[0], NAME, overview), reads


def _hp(state: dict, name: str) -> int:
    return next(c for c in state["table"]["characters"] if c["name"] == name)["hp"]["current"]


@pytest.mark.dialect
def test_plain_rolls_reuse_the_sheets_and_a_change_reads_them_again(gurps):
    db, shared, reads = _served(gurps.db)
    try:
        head, state = shared.at_head()
        assert reads == [3] and state["table"]["head"] == head
        assert shared.at_head() == (head, state) and reads == [3]  # the same head: nothing read
        first = gurps.json("roll", "3D6<=12", "--char", "鈴音", "--dice", "1,2,3")["seq"]
        second = gurps.json("roll", "2D6", "--dice", "6,6")["seq"]
        head, state = shared.at_head()
        assert head == second == first + 1 and reads == [3]  # rolls leave the sheets: not read again
        assert [item["seq"] for item in state["table"]["latest"][:2]] == [second, first]
        hp = _hp(state, "鈴音")
        damage = gurps.json("char", "damage", "鈴音", "HP", "4", "--reason", "爪")["seq"]
        head, state = shared.at_head()
        assert head == damage and reads == [3, 3] and _hp(state, "鈴音") == hp - 4
    finally:
        db.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_burst_beyond_the_latest_entries_is_checked_not_read_again(db_url, gurps):
    """More plain rolls since the last read than the state lists (10): they are read and
    checked, and the sheets stay; one change among them reads the sheets again."""
    db, shared, reads = _served(gurps.db)
    try:
        shared.at_head()
        for _ in range(25):
            gurps.run("roll", "1D6", "--dice", "3")
        head = shared.at_head()[0]
        assert reads == [3]
        for _ in range(12):
            gurps.run("roll", "1D6", "--dice", "3")
        gurps.run("char", "damage", "刀矢", "HP", "1", "--reason", "罠")
        for _ in range(12):
            gurps.run("roll", "1D6", "--dice", "2")
        assert shared.at_head()[0] == head + 25 and reads == [3, 3]
    finally:
        db.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_twenty_pages_asking_at_once_share_one_computation(db_url, gurps):
    db, shared, reads = _served(gurps.db)
    try:
        got: list[int] = []
        gate = threading.Barrier(20)

        def page() -> None:
            gate.wait()
            got.append(shared.at_head()[0])

        pages = [threading.Thread(target=page) for _ in range(20)]
        for thread in pages:
            thread.start()
        for thread in pages:
            thread.join(30)
        assert len(got) == 20 and len(set(got)) == 1 and reads == [3]
    finally:
        db.close()


def test_which_entries_leave_the_sheets():
    assert leaves_sheets({"kind": "roll", "ops": []})
    assert not leaves_sheets({"kind": "roll", "ops": [{"op": "pool_delta"}]})
    assert not leaves_sheets({"kind": "void", "ops": []})  # undoes ops its record does not list
    assert not leaves_sheets({"kind": "void_request", "ops": []})
    assert not leaves_sheets({"kind": "void_refusal", "ops": []})
