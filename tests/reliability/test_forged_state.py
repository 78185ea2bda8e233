"""Forged state: every direct edit of a state table, and every forged state line in an
import, is caught (the tables are the ledger's projection, and `history verify`
replays the ledger and compares).

One campaign using every kind of state (support.populate) per backend; each edit is
made with raw SQL, as a tamperer with the database file or a login would, then
`history verify` must exit 1 naming that table, and `--chain-only` must still pass (the
chain was not touched). The state is then put back by replaying the ledger, and the
next edit starts from a verified campaign.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import delete, select

from campaign.db.database import Database
from campaign.db.models import Campaign, Player
from campaign.db.state_tables import ledger_entries, sync_state
from campaign.projection.replay import project
from tests.cli.conftest import Cli
from tests.integration.rawdb import execute
from tests.reliability import support

pytestmark = pytest.mark.dialect

NAME = "偽造卓"

# (table verify must name, SQL); `?` placeholders work on both backends (rawdb.execute).
EDITS = [
    ("campaign", "UPDATE campaigns SET settings = ?", (json.dumps({"fright_cap": 30}),)),
    ("characters", "UPDATE characters SET cp_total = 999 WHERE name = ?", ("鈴音",)),
    (
        "characters",
        "UPDATE characters SET stats = ? WHERE name = ?",
        (json.dumps({"Will": 20, "IQ": 11, "HT": 11, "FP": 11, "HP": 11}), "鈴音"),
    ),
    ("characters", "UPDATE characters SET pools = ? WHERE name = ?", (json.dumps({"FP": 11}), "鈴音")),
    ("relationships", "DELETE FROM relationships", ()),
    ("traits", "DELETE FROM traits WHERE name = ?", ("暗所恐怖症",)),
    ("traits", "UPDATE traits SET counts_toward_limit = ?", (True,)),
    ("conditions", "UPDATE conditions SET cleared_seq = NULL", ()),
    ("scenarios", "UPDATE scenarios SET ended_seq = NULL", ()),
    ("disappearances", "UPDATE disappearances SET faces = 2", ()),
    ("searches", "UPDATE searches SET ended_seq = 1", ()),
    ("reunion_checks", "UPDATE reunion_checks SET roll = 1, success = ?", (True,)),
    ("players", "INSERT INTO players (campaign_id, name) SELECT id, 'Mallory' FROM campaigns", ()),
]


def _repair(db_url: str) -> None:
    """Put the tables back to the ledger's projection (what a void or import writes)."""
    db = Database(db_url)
    try:
        with db.write() as session:
            campaign = session.scalars(select(Campaign).where(Campaign.name == NAME)).one()
            session.execute(delete(Player).where(Player.name == "Mallory"))
            sync_state(session, campaign, project(ledger_entries(session, campaign)))
    finally:
        db.close()


def test_every_direct_edit_of_a_state_table_is_named(db_url, request):
    support.populated(request, db_url, NAME)
    cli = Cli(db_url)
    c = ("-c", NAME)
    assert cli.json(*c, "history", "verify")["ok"]
    detected = 0
    for table, sql, params in EDITS:
        execute(db_url, sql, params)
        report = cli.json(*c, "history", "verify", expect=1)
        assert report["state"]["table"] == table, (sql, report)
        assert cli.json(*c, "history", "verify", "--chain-only")["ok"]
        detected += 1
        _repair(db_url)
        assert cli.json(*c, "history", "verify")["ok"], f"repair after {sql!r} did not restore the projection"
    support.record("forged_state", support.backend_of(db_url), edits=len(EDITS), edits_detected=detected)


def _forge(items: list[dict], kind: str) -> None:
    character = next(i for i in items if i["type"] == "character" and i["name"] == "鈴音")
    if kind == "CP total":
        character["cp_total"] = 999
    elif kind == "a stat":
        character["stats"]["Will"] = 20
    elif kind == "a stat as a string":
        character["stats"]["Will"] = "10"
    elif kind == "NaN CP":
        character["cp_total"] = float("nan")
    elif kind == "CP beyond 64 bits":
        character["cp_total"] = 10**30
    elif kind == "settings as a list":
        items[0]["campaign"]["settings"] = ["fright_cap"]
    elif kind == "a reunion of 7 on 1d6 marked success":
        reunion = next(i for i in items if i["type"] == "reunion_check")
        reunion.update(roll=7, success=True)
    elif kind == "an untracked trait":
        items.insert(
            3,
            {
                "type": "trait",
                "character": "鈴音",
                "name": "隠し",
                "category": "advantage",
                "cp": 50,
                "counts_toward_limit": True,
                "origin": "2.9",
                "source_seq": 2,
                "removed_seq": None,
            },
        )
    else:  # pragma: no cover
        raise AssertionError(kind)


FORGERIES = [
    "CP total",
    "a stat",
    "a stat as a string",
    "NaN CP",
    "CP beyond 64 bits",
    "settings as a list",
    "a reunion of 7 on 1d6 marked success",
    "an untracked trait",
]


def test_every_forged_state_line_refuses_the_import(db_url, tmp_path, request):
    source_url = str(tmp_path / "source.db")
    support.populated(request, source_url, NAME)
    good = Cli(source_url).run("-c", NAME, "export", "-").stdout.splitlines()
    target = Cli(db_url)
    target.run("init", "先客")
    before = support.dump(db_url)
    for kind in FORGERIES:
        items = [json.loads(line) for line in good]
        _forge(items, kind)
        path = tmp_path / "forged.jsonl"
        path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
        message = target.error("import", str(path), code=1)
        assert "nothing imported" in message, (kind, message)
        assert support.dump(db_url) == before, f"{kind}: the refused import changed the database"
    path = tmp_path / "honest.jsonl"
    path.write_text("\n".join(good) + "\n", encoding="utf-8")
    target.run("import", str(path))
    assert target.json("-c", NAME, "history", "verify")["ok"]
    support.record("forged_state", support.backend_of(db_url), imports=len(FORGERIES), imports_refused=len(FORGERIES))
