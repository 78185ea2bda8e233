"""Migration 0020 on the demo campaign, SQLite and PostgreSQL: seat rows that named a
player by name come to name them by id; a name a rename moved away from, and a player's
seat whose name is no player's, are revoked rather than guessed. `history verify` passes
at 0018 and at head: the migration touches no ledger row.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from campaign.db.database import Database
from campaign.db.engine import make_engine, resolve_url
from campaign.db.migrate import HEAD_REVISION, current_revision, downgrade, upgrade
from campaign.services.ledger import history
from tests.cli.conftest import Cli, cli  # noqa: F401 (fixture)

pytestmark = pytest.mark.dialect

CAMPAIGN = "百鬼夜翔 夜桜編"
NOW = "2026-12-04T10:00:00.000000Z"
LATER = "2027-12-04T10:00:00.000000Z"


def _verified(url: str, *, migrate: bool) -> None:
    db = Database(url, migrate=migrate)
    try:
        report = history.verify(db, CAMPAIGN)
        assert report.ok, report
    finally:
        db.close()


def _seats_by_name(conn, ids: dict[str, int]) -> None:
    """Seat rows as a database at 0018 holds them: by the name the player had."""
    campaign = conn.execute(text("SELECT id FROM campaigns")).scalar_one()
    seats = [
        # (id, name, is_gm, used)
        (1, "Aki", False, True),  # the renamed player's seat: Aki is now 明, a new Aki exists
        (2, "Ren", False, True),
        (3, "GM", True, True),
        (4, "Ghost", False, True),  # a name no player has
        (5, "Ren", False, False),  # an unused invite of Ren's
    ]
    for seat_id, name, gm, used in seats:
        conn.execute(
            text(
                "INSERT INTO web_invites (id, campaign_id, player, is_gm, code_hash, created_at, expires_at, used_at)"
                " VALUES (:i, :c, :p, :g, :h, :t, :e, :u)"
            ),
            {
                "i": seat_id,
                "c": campaign,
                "p": name,
                "g": gm,
                "h": f"{seat_id:064x}",
                "t": NOW,
                "e": LATER,
                "u": NOW if used else None,
            },
        )
        if used:
            conn.execute(
                text(
                    "INSERT INTO web_sessions (id, campaign_id, player, is_gm, token_hash, invite_id, created_at)"
                    " VALUES (:i, :c, :p, :g, :h, :i, :t)"
                ),
                {"i": seat_id, "c": campaign, "p": name, "g": gm, "h": f"{seat_id + 100:064x}", "t": NOW},
            )
    for token_id, name in ((1, "Aki"), (2, "Ren")):
        conn.execute(
            text(
                "INSERT INTO bcdice_tokens (id, campaign_id, name, player, token_hash, created_at)"
                " VALUES (:i, :c, :n, :p, :h, :t)"
            ),
            {"i": token_id, "c": campaign, "n": f"{name}-bot", "p": name, "h": f"{token_id + 200:064x}", "t": NOW},
        )
    for call_id, character, name in ((1, "鈴音", "Aki"), (2, "刀矢", "Ren")):
        conn.execute(
            text(
                "INSERT INTO table_calls (id, campaign_id, kind, character, player, params, created_by,"
                " created_at, state) VALUES (:i, :c, 'fright', :ch, :p, '{}', 'GM', :t, 'pending')"
            ),
            {"i": call_id, "c": campaign, "ch": character, "p": name, "t": NOW},
        )


def test_seats_by_name_become_seats_by_id_and_ambiguous_ones_are_revoked(cli, tmp_path):
    demo = Cli(str(tmp_path / "demo.db"))  # the tour writes files beside a SQLite database
    demo.run("demo")
    exported, secrets = tmp_path / "demo.jsonl", tmp_path / "demo.secrets.jsonl"
    demo.run("export", str(exported), "--secrets", str(secrets))
    cli.run("import", str(exported), "--secrets", str(secrets))
    cli.run("player", "rename", "Aki", "明")
    cli.run("player", "add", "Aki")  # a new player with the old name: none of 明's seats is theirs
    url = resolve_url(cli.db)
    engine = make_engine(url)
    try:
        downgrade(engine, "0018")
        with engine.begin() as conn:
            _seats_by_name(conn, {})
        _verified(url, migrate=False)  # before the migration
        upgrade(engine)
        assert current_revision(engine) == HEAD_REVISION
        _verified(url, migrate=False)  # after it
        with engine.connect() as conn:
            players = dict(conn.execute(text("SELECT name, id FROM players")).all())
            sessions = conn.execute(
                text("SELECT id, player_id, revoked_at IS NOT NULL FROM web_sessions ORDER BY id")
            ).all()
            invites = conn.execute(
                text("SELECT id, player_id, revoked_at IS NOT NULL FROM web_invites ORDER BY id")
            ).all()
            tokens = conn.execute(
                text("SELECT id, player_id, revoked_at IS NOT NULL FROM bcdice_tokens ORDER BY id")
            ).all()
            calls = conn.execute(text("SELECT id, player_id, player FROM table_calls ORDER BY id")).all()
    finally:
        engine.dispose()
    ren = players["Ren"]
    assert [tuple(row) for row in sessions] == [(1, None, True), (2, ren, False), (3, None, False), (4, None, True)]
    # a used invite is no credential any more: only unused ones are revoked
    assert [tuple(row) for row in invites] == [
        (1, None, False),
        (2, ren, False),
        (3, None, False),
        (4, None, False),
        (5, ren, False),
    ]
    assert [tuple(row) for row in tokens] == [(1, None, True), (2, ren, False)]
    assert [tuple(row) for row in calls] == [(1, None, None), (2, ren, "Ren")]
    # the seats that stayed open answer as their player; the revoked ones open nothing
    db = Database(url)
    try:
        from campaign.services.table.invites import revoke

        assert revoke(db, CAMPAIGN, "Ren").sessions == 1
        with pytest.raises(Exception, match="no open invite or session"):
            revoke(db, CAMPAIGN, "Aki")
    finally:
        db.close()
    cli.run("history", "verify")
