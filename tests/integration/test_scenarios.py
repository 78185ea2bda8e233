"""Missing and reunion services (docs/rules.md "Missing and reunion check") against the
database itself: the ledger rows a scenario end writes, the
one-check-per-scenario guard, and that the chain still verifies."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from campaign import ledger
from campaign.core.dice_source import ManualDice
from campaign.db.database import Database
from campaign.db.models import Campaign, Disappearance, LedgerEntry, ReunionCheck, Scenario
from campaign.errors import RuleRefused
from campaign.services.campaigns.setup import create_campaign
from campaign.services.characters import roster as characters
from campaign.services.scenarios import missing
from campaign.services.scenarios import runs as scenarios


@pytest.fixture
def db(db_url):
    database = Database(db_url)
    create_campaign(database, "卓", "gurps3-ja", "GM")
    characters.add_player(database, None, "Aki", "GM")
    characters.add_player(database, None, "Ren", "GM")
    characters.add_character(database, None, "鈴音", "GM", player="Aki")
    characters.add_character(database, None, "刀矢", "GM", player="Ren")
    characters.relate(database, None, "鈴音", "刀矢", "GM", None)
    yield database
    database.close()


def _rows(db, **where):
    with db.read() as session:
        query = select(LedgerEntry).order_by(LedgerEntry.seq)
        for name, value in where.items():
            query = query.where(getattr(LedgerEntry, name) == value)
        return [
            (
                row.seq,
                row.kind,
                row.actor,
                row.character,
                row.scenario,
                row.outcome,
                row.parent_seq,
                json.loads(row.record),
            )
            for row in session.scalars(query)
        ]


def test_scenario_end_writes_one_entry_per_roll_in_one_chain(db):
    scenarios.start_scenario(db, None, "一話", "GM", ["鈴音"])
    marked = missing.mark_missing(db, None, "鈴音", "GM", faces=8)
    scenarios.end_scenario(db, None, "GM", [], ManualDice([5]))
    opened = scenarios.start_scenario(db, None, "二話", "GM", ["刀矢"])
    assert opened.number == 2
    ended = scenarios.end_scenario(db, None, "GM", [("鈴音", ManualDice([1]))], ManualDice([]))

    end_seq = ended.seq
    rows = _rows(db, seq=end_seq) + _rows(db, parent_seq=end_seq)
    assert [(r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows] == [
        ("scenario", "GM", None, 2, None, None),
        (
            "reunion",
            "GM",
            "鈴音",
            2,
            "success",
            end_seq,
        ),  # who typed it; on behalf of Aki (docs/rules.md "Reunion check")
    ]
    assert rows[1][7]["detail"]["on_behalf_of"] == "Aki"
    record = rows[1][7]
    assert (record["expression"], record["dice"], record["total"], record["target"], record["source"]) == (
        "1d8",
        [1],
        1,
        1,
        "manual",
    )
    assert record["detail"]["since_seq"] == marked.seq
    assert record["ops"] == [
        {"op": "reunion_checked", "since_seq": marked.seq, "scenario": 2, "roll": 1, "threshold": 1, "success": True},
        {"op": "missing_ended", "since_seq": marked.seq},
    ]
    # both scenario ends rolled for her (the first one is where she went missing)
    assert [(r[4], r[5]) for r in _rows(db, kind="reunion")] == [(1, "failure"), (2, "success")]
    with db.read() as session:
        assert ledger.verify(session, session.scalars(select(Campaign)).one()).ok


def test_second_reunion_check_for_the_same_scenario_end_is_refused(db):
    missing.mark_missing(db, None, "鈴音", "GM")
    scenarios.start_scenario(db, None, "一話", "GM", ["刀矢"])
    # A check already recorded for this scenario (as if rolled by hand): the end refuses
    # to roll a second one, and writes nothing.
    with db.write() as session:
        disappearance = session.scalars(select(Disappearance)).one()
        scenario = session.scalars(select(Scenario)).one()
        session.add(
            ReunionCheck(
                disappearance_id=disappearance.id, scenario_id=scenario.id, seq=999, roll=4, threshold=1, success=False
            )
        )
    with db.read() as session:
        head = ledger.head(session, scenario.campaign_id)
    with pytest.raises(RuleRefused, match="already been rolled"):
        scenarios.end_scenario(db, None, "GM", [], ManualDice([1]))
    with db.read() as session:
        assert ledger.head(session, scenario.campaign_id) == head
        assert session.get(Scenario, scenario.id).ended_seq is None
