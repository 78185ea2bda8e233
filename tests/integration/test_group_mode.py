"""Group mode on PostgreSQL (players' roles gone since migration 0016): the
GM's role, the database records the actor and enforces permissions, concurrent appends
from several roles keep the chain.

The throwaway cluster trusts 127.0.0.1, so role passwords are not checked here: what is
tested is which role a connection is, and what the database lets that role do.
"""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest

from tests.cli.conftest import Cli
from tests.integration.forge import forged_row, insert
from tests.integration.group_support import _role_url


def test_setup_creates_the_gms_role_only(group):
    roles = group.setup["roles"]
    assert [(r["player"], r["kind"]) for r in roles] == [("GM", "gm")]
    (gm,) = roles
    assert gm["role"].isascii() and len(gm["role"]) <= 63
    assert gm["url"].startswith(f"postgresql://{gm['role']}:{gm['password']}@") and len(gm["password"]) >= 20
    # The password is stored by PostgreSQL (as a hash) for the LOGIN role
    with group.raw() as conn:
        rows = conn.execute(
            "SELECT rolname, rolcanlogin, rolpassword IS NOT NULL FROM pg_authid WHERE rolname = %s", (gm["role"],)
        ).fetchall()
    assert rows == [(gm["role"], True, True)]
    # Run again: nothing new, no password shown again
    assert group.owner.json("group", "setup")["roles"] == []


def _entry(conn: psycopg.Connection, actor: str, record_actor: str | None = None, kind: str = "roll") -> None:
    """Append one well-formed, correctly hashed entry through raw SQL: the actor column
    `actor`, the hashed record's `record_actor` (the same unless given)."""
    insert(conn, forged_row(conn, record={"actor": record_actor or actor, "kind": kind}, row={"actor": actor}))


def test_the_gm_acting_for_a_player_is_recorded_as_the_gm(group):
    gm = group.cli("GM")
    rolled = gm.json("--as", "Aki", "roll", "3D6", "--dice", "1,2,3")
    shown = group.owner.json("history", "show", str(rolled["seq"]))
    assert (shown["actor"], shown["detail"]["on_behalf_of"]) == ("GM", "Aki")
    plain = gm.json("roll", "3D6", "--dice", "1,2,3")
    shown = group.owner.json("history", "show", str(plain["seq"]))
    assert (shown["actor"], "on_behalf_of" in shown["detail"]) == ("GM", False)
    assert group.owner.json("history", "verify")["ok"]


def test_the_gms_scenario_end_is_the_gms_reunion_roll_for_the_player(group):
    # the signed-in GM role typed it (the actor is who typed); the missing PC's player is on_behalf_of
    gm = group.cli("GM")
    gm.run("char", "relate", "鈴音", "刀矢")
    gm.run("missing", "mark", "鈴音")
    gm.run("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    (reunion,) = gm.json("scenario", "end", "--dice", "鈴音=1")["reunions"]
    shown = group.owner.json("history", "show", str(reunion["seq"]))
    assert (shown["actor"], shown["detail"]["on_behalf_of"], shown["outcome"]) == ("GM", "Aki", "success")
    search = group.owner.json("history", "--kind", "search")[0]
    assert (search["actor"], search["detail"]["on_behalf_of"]) == ("GM", "Ren")
    assert [e["seq"] for e in group.owner.json("history", "--player", "Aki", "--kind", "reunion")] == [reunion["seq"]]
    assert group.owner.json("history", "verify")["ok"]


@pytest.mark.parametrize(
    "actor, record_actor",
    [
        ("Aki", None),  # the GM's role writing as a player
        ("GM", "Aki"),  # right column, wrong hashed record
    ],
)
def test_raw_sql_cannot_spoof_the_actor(group, actor, record_actor):
    before = group.dump()
    with group.raw("GM") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="group mode"):
            _entry(conn, actor, record_actor)
    assert group.dump() == before
    with group.raw("GM") as conn:  # the same insert with the right actor goes through
        _entry(conn, "GM")
    assert group.owner.json("history", "verify")["ok"]


@pytest.mark.parametrize("kind", ["roll", "void", "void_request"])
def test_a_role_without_grants_appends_nothing(group, kind):
    """Players hold no role; any other login of the cluster has only PUBLIC's rights."""
    before = group.dump()
    with group.raw("stranger") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table ledger"):
            _entry(conn, "Aki", kind=kind)
    assert group.dump() == before


def test_nobody_updates_or_deletes_ledger_rows(group):
    group.cli("GM").json("roll", "3D6", "--dice", "1,2,3")
    before = group.dump()
    for who in ("GM", "stranger"):
        with group.raw(who) as conn:
            for statement in (
                "UPDATE ledger SET actor = 'X' WHERE seq = 1",
                "DELETE FROM ledger WHERE seq = 1",
                "TRUNCATE ledger",
            ):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement)
    assert group.dump() == before


FRIGHT_FAIL = "6,6,4,1,1,1,2,3"  # 16 vs Will 11 - 3: failure, table entry 11
# (command, may a read-only role run it? None: players have no role since 0016)
MATRIX = [
    (("roll", "3D6", "--char", "鈴音", "--dice", "1,2,3"), False),  # Aki's own character
    (("roll", "3D6", "--char", "刀矢", "--dice", "1,2,3"), False),  # Ren's character
    (("fright", "鈴音", "--mod", "-3", "--dice", FRIGHT_FAIL), False),
    (("fright", "刀矢", "--mod", "-3", "--dice", "6,6,4,1,1,1"), False),
    (("missing", "mark", "刀矢"), False),
    (("scenario", "start", "霧の館", "--with", "鈴音"), False),
    (("settings", "fright_cap=13"), False),
    (("trait", "add", "鈴音", "勇敢", "--cp", "5", "--category", "advantage"), False),
    (("char", "add", "新顔", "--player", "Aki"), False),
    (("history", "seal"), False),
]


@pytest.mark.slow
def test_each_permission_as_each_role(group):
    """A role that only reads (made by hand: players have none): nothing; every refusal
    comes from the database and changes nothing. The GM's role: everything."""
    results = []
    for who in ("auditor", "GM"):
        cli = group.cli(who)
        for args, player_may in MATRIX:
            before = group.dump()
            result = cli.run(*args, "--json", expect=None)
            allowed = result.exit_code == 0
            results.append((who, args[0], args[1], allowed))
            if who == "GM" or player_may:
                assert allowed, (who, args, result.stderr)
                assert group.dump() != before
            else:
                assert result.exit_code == 1 and "refused by the database" in result.stderr, (who, args, result.stderr)
                assert "Traceback" not in result.output
                assert group.dump() == before, (who, args)
    fright = [e for e in group.owner.json("history", "--kind", "fright") if e["parent_seq"] is None]
    assert [(e["actor"], e["character"]) for e in fright] == [("GM", "刀矢"), ("GM", "鈴音")]
    assert group.owner.json("history", "verify")["ok"]


def test_status_lists_roles_and_the_rights_the_database_reports(group):
    status = group.owner.json("group", "status")
    (gm,) = status["roles"]
    assert (gm["player"], gm["kind"], gm["login"]) == ("GM", "gm", True)
    assert gm["rights"]["ledger"] == ["SELECT", "INSERT"]
    assert gm["rights"]["scenarios"] == ["SELECT", "INSERT", "UPDATE", "DELETE"]
    assert status["owed_invites"] == []


def test_revoke_and_reopen_the_gms_role(group):
    revoked = group.owner.json("group", "revoke", "GM")
    assert revoked["player"] == "GM"
    before = group.dump()
    with pytest.raises(psycopg.OperationalError):  # NOLOGIN
        group.raw("GM").close()
    assert group.dump() == before
    (status,) = group.owner.json("group", "status")["roles"]
    assert status["login"] is False and status["rights"]["ledger"] == []
    assert group.owner.error("group", "revoke", "GM", code=1).startswith("error: the role of 'GM'")
    again = group.owner.json("group", "reopen")["roles"][0]
    assert again["role"] == revoked["role"]
    assert group.cli("GM").json("roll", "3D6", "--dice", "1,2,3")["total"] == 6
    assert group.owner.error("group", "reopen", code=1) == f"error: the GM's role {again['role']} is not revoked"


def test_group_commands_refuse_on_sqlite(tmp_path):
    cli = Cli(str(tmp_path / "c.db"))
    cli.run("init", "卓")
    for args in (
        ("group", "setup"),
        ("group", "status"),
        ("group", "add-player", "A"),
        ("group", "revoke", "GM"),
        ("group", "migrate-players"),
        ("group", "reopen"),
    ):
        message = cli.error(*args, code=1)
        assert message == (
            "error: group mode needs PostgreSQL: an SQLite database is single-GM mode (--as is self-declared there)"
        )


WRITER = """
import sys
from campaign.core.dice_source import SeededDice
from campaign.db.database import Database
from campaign.services.campaigns.group import acting_name
from campaign.services.checks.rolls import roll

db = Database(sys.argv[1])
actor = acting_name(db, sys.argv[3] if len(sys.argv) > 3 else None)
for i in range(int(sys.argv[2])):
    roll(db, None, actor, "3D6", SeededDice(i))
db.close()
"""


@pytest.mark.slow
def test_the_gm_role_and_the_owner_append_at_once(group):
    """Five processes, two signed in as the GM's role and three as the owner (single-GM
    `--as`), append concurrently through the chain trigger: the chain stays gapless and
    intact, and every entry's actor is the one its writer recorded."""
    start = group.owner.json("history", "verify")["entries"]
    per_writer = 25
    writers = [(group.roles["GM"], None), (group.roles["GM"], None), (None, "Aki"), (None, "Ren"), (None, "葵")]
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WRITER,
                _role_url(group.url, role) if role else group.url,
                str(per_writer),
                *([actor] if actor else []),
            ],
            stderr=subprocess.PIPE,
        )
        for role, actor in writers
    ]
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err.decode()
    verified = group.owner.json("history", "verify")
    assert verified["ok"] and verified["entries"] == start + per_writer * len(writers)
    with group.raw() as conn:
        seqs = [row[0] for row in conn.execute("SELECT seq FROM ledger WHERE campaign_id = 1 ORDER BY seq")]
        actors = conn.execute("SELECT actor, count(*) FROM ledger WHERE seq > %s GROUP BY actor", (start,)).fetchall()
        times = [row[0] for row in conn.execute("SELECT at FROM ledger WHERE campaign_id = 1 ORDER BY seq")]
    assert seqs == list(range(1, start + per_writer * len(writers) + 1))
    assert dict(actors) == {"GM": 2 * per_writer, "Aki": per_writer, "Ren": per_writer, "葵": per_writer}
    assert times == sorted(times)


def test_secret_roll_results_are_readable_by_the_gm_role_only(group):
    gm = group.cli("GM")
    secret = gm.json("roll", "S3D6<=12", "聞き耳", "--dice", "2,3,4")
    for other in ("stranger", "auditor"):
        with group.raw(other) as conn:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("SELECT * FROM secret_rolls").fetchall()
    with group.raw("GM") as conn:
        assert len(conn.execute("SELECT * FROM secret_rolls").fetchall()) == 1
    auditor = group.cli("auditor")
    assert "refused by the database" in auditor.error("history", "peek", str(secret["seq"]), code=1)
    shown = auditor.json("history", "show", str(secret["seq"]))
    assert shown["dice"] is None and shown["total"] is None  # only the commitment
    gm.run("history", "reveal", str(secret["seq"]))
    revealed = auditor.json("history", "--kind", "reveal")[0]
    assert revealed["dice"] == [2, 3, 4]
