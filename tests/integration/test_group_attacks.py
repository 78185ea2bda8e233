"""Issue 24's "forgery and bricking through the database", tried as the attacker would.

Group mode as docs/group-mode.md sets it up: the database and its tables owned by a
non-superuser role with CREATEROLE, which ran `group setup` (owned_group). Every attack
goes through a raw connection of the role that tries it; every refusal comes from the
database and leaves every table as it was.
"""

from __future__ import annotations

import time

import psycopg
import pytest

from campaign.chain import canonical_json, chain_hash
from campaign.db import engine
from tests.integration.forge import append_forged, forged_row, head, insert

pytestmark = pytest.mark.dialect

GM_ROW = "INSERT INTO pg_temp.group_roles SELECT session_user, 1, NULL, 'GM', true, '2026-01-01', NULL"
SHADOW = (
    "CREATE TEMP TABLE group_roles (role_name text, campaign_id int, player_id int, player_name text, "
    "is_gm boolean, created_at text, revoked_at text)"
)


def _grant_temp(group, player: str) -> None:
    """What a database where TEMPORARY was never revoked would let the player do."""
    with group.raw() as conn:
        database = conn.execute("SELECT current_database()").fetchone()[0]
        conn.execute(f'GRANT TEMPORARY ON DATABASE "{database}" TO "{group.roles[player]}"')


def test_setup_revokes_temporary_from_public(owned_group):
    with owned_group.raw("stranger") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="temporary tables"):
            conn.execute(SHADOW)
    with owned_group.raw() as conn:
        granted = conn.execute(
            "SELECT has_database_privilege('public', current_database(), 'TEMPORARY'), "
            "has_schema_privilege('public', current_schema(), 'CREATE')"
        ).fetchone()
    assert granted == (False, False)


@pytest.mark.parametrize("gm_row", [True, False], ids=["a GM row", "empty"])
def test_a_temp_group_roles_table_changes_nothing(owned_group, gm_row):
    """The issue's attack, on what is left of group mode since 0016: with TEMPORARY
    allowed, the GM's role shadows `group_roles` (no row: "single-GM mode", where any
    actor goes; or a GM row of its own) to write a player's entry it did not get through
    that player's session. The actor trigger's search_path is pinned (pg_temp last)."""
    _grant_temp(owned_group, "GM")
    before = owned_group.dump()
    with owned_group.raw("GM") as conn:
        conn.execute(SHADOW)
        if gm_row:
            conn.execute(GM_ROW)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="group mode"):
            insert(conn, forged_row(conn, record={"actor": "Aki"}))
    assert owned_group.dump() == before
    assert owned_group.owner.json("history", "verify")["ok"]


def test_a_temp_ledger_cannot_fool_the_chain_trigger(owned_group):
    """The GM's role (which may append) shadows the head the trigger reads: no effect."""
    _grant_temp(owned_group, "GM")
    before = owned_group.dump()
    with owned_group.raw("GM") as conn:
        real = forged_row(conn)
        conn.execute("CREATE TEMP TABLE ledger AS SELECT * FROM public.ledger")
        conn.execute("DELETE FROM pg_temp.ledger WHERE seq > 1")  # the head is entry 1 now, says the shadow
        fake = forged_row(conn, record={"seq": 2})
        assert (fake["seq"], fake["prev_hash"]) != (real["seq"], real["prev_hash"])
        conn.execute("SET search_path = pg_temp, public")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="ledger chain"):
            conn.execute(
                "INSERT INTO public.ledger (campaign_id, seq, at, actor, kind, character, scenario, "
                "outcome, parent_seq, voids_seq, record, prev_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, "
                "%s, %s, %s, %s, %s, %s, %s)",
                tuple(
                    fake[c]
                    for c in (
                        "campaign_id",
                        "seq",
                        "at",
                        "actor",
                        "kind",
                        "character",
                        "scenario",
                        "outcome",
                        "parent_seq",
                        "voids_seq",
                        "record",
                        "prev_hash",
                        "hash",
                    )
                ),
            )
    assert owned_group.dump() == before


def test_every_security_definer_function_pins_its_search_path(owned_group):
    with owned_group.raw() as conn:
        rows = conn.execute(
            "SELECT p.proname, p.proconfig FROM pg_proc p JOIN pg_namespace n ON n.oid = "
            "p.pronamespace WHERE p.prosecdef AND n.nspname = current_schema()"
        ).fetchall()
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
    # 0016 dropped the rest; 0021 added the canonical-record check
    assert {name for name, _ in rows} == {"ledger_check_actor", "ledger_check_chain", "ledger_check_canonical"}
    assert {tuple(config) for _, config in rows} == {(f"search_path={schema}, pg_temp",)}


def _fright(conn, ops: list, via: dict | None = None) -> dict:
    """A player's fright entry as the issue forged it: right seq, link and SHA-256, any ops."""
    return forged_row(
        conn,
        record={
            "actor": "Aki",
            "kind": "fright",
            "character": "鈴音",
            "ops": ops,
            "expression": "3D6<=8",
            "outcome": "failure",
            "detail": {"via": via} if via else {},
        },
    )


def _session(owned_group, player: str, revoked: bool = False) -> int:
    """A table-server session row of `player` (as joining with an invite makes one)."""
    with owned_group.raw() as conn:
        return conn.execute(
            "INSERT INTO web_sessions (campaign_id, player, is_gm, token_hash, created_at, revoked_at) "
            "VALUES (1, %s, false, md5(random()::text) || md5(random()::text), '2026-12-01T00:00:00.000000Z', %s) "
            "RETURNING id",
            (player, "2026-12-01T01:00:00.000000Z" if revoked else None),
        ).fetchone()[0]


@pytest.mark.parametrize(
    "ops",
    [
        [
            {"op": "cp_delta", "character": "鈴音", "delta": 1000},
            {"op": "stat_set", "character": "鈴音", "stat": "Will", "value": 20},
        ],
        [{"op": "cp_delta", "character": "刀矢", "delta": -100}],  # another player's character: unverifiable
    ],
    ids=["own character", "another player's character"],
)
@pytest.mark.parametrize("via", [None, "Ren's session", "a revoked session"])
def test_a_players_forged_fright_entry_is_refused(owned_group, ops, via):
    """The issue's +1000 CP entry in Aki's name: players have no role to write it with
    (0016), and the GM's role may write Aki's name only through a live session of
    Aki's (detail.via.session), never one of Ren's or a revoked one."""
    session = {
        None: None,
        "Ren's session": lambda: _session(owned_group, "Ren"),
        "a revoked session": lambda: _session(owned_group, "Aki", revoked=True),
    }[via]
    via_detail = {"session": session()} if session else None
    before = owned_group.dump()
    with owned_group.raw("GM") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="group mode"):
            insert(conn, _fright(conn, ops, via_detail))
    with owned_group.raw("stranger") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied for table"):
            conn.execute("UPDATE characters SET cp_total = 1100, stats = stats WHERE name = '鈴音'")
    assert owned_group.dump() == before
    assert owned_group.owner.json("history", "verify")["ok"]


def test_the_gms_role_writes_a_players_entry_through_their_live_session(owned_group):
    """What the table server does: Aki's entry, on the GM's role, naming Aki's session."""
    session = _session(owned_group, "Aki")
    with owned_group.raw("GM") as conn:
        insert(conn, forged_row(conn, record={"actor": "Aki", "detail": {"via": {"session": session}}}))
    assert owned_group.owner.json("history", "verify")["ok"]


@pytest.mark.parametrize("who", ["auditor", "GM", None], ids=["a read-only role", "GM role", "owner"])
def test_a_forged_gm_entry_is_refused(owned_group, who):
    """An entry as actor GM that the GM never made: by a role that only reads, or by a role
    that may append but with a made-up hash or a record that is not its row's."""
    before = owned_group.dump()
    with owned_group.raw(who) as conn:
        values = forged_row(
            conn, record={"kind": "trait", "ops": [{"op": "cp_delta", "character": "鈴音", "delta": 500}]}
        )
        forgeries = [{**values, "hash": "ab" * 32}, {**values, "kind": "roll"}]
        if who == "auditor":
            forgeries.append(values)
        for forged in forgeries:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                insert(conn, forged)
    assert owned_group.dump() == before


@pytest.mark.parametrize("who", ["GM", None], ids=["GM role", "owner"])
def test_a_stray_row_no_longer_bricks_the_campaign(owned_group, who):
    """One raw row at seq 2^31-1 made every later write overflow; a row at head+1 with
    a wrong hash broke the chain under the GM's next seal. Both refused, for every role."""
    before = owned_group.dump()
    with owned_group.raw(who) as conn:
        seq = head(conn)[0]
        for changes in (
            {"record": {"seq": 2147483647}},
            {"row": {"hash": "0" * 64}},
            {"row": {"prev_hash": "ab" * 32}},
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="ledger chain"):
                insert(conn, forged_row(conn, **changes))
    assert owned_group.dump() == before
    gm = owned_group.cli("GM")
    assert gm.json("roll", "3D6", "--dice", "1,2,3")["seq"] == seq + 1
    assert gm.json("history", "seal")["seq"] == seq + 2
    assert owned_group.owner.json("history", "verify")["ok"]


def test_the_owner_appends_a_well_formed_entry(owned_group):
    """The trigger refuses what is wrong, not the owner: a right row goes in and verifies."""
    with owned_group.raw() as conn:
        values = append_forged(conn, record={"actor": "Aki", "reason": "owner's raw entry"})
    assert owned_group.owner.json("history", "show", str(values["seq"]))["reason"] == "owner's raw entry"
    assert owned_group.owner.json("history", "verify")["ok"]


def test_a_role_without_grants_cannot_lock_the_campaign(owned_group):
    with owned_group.raw("stranger") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT id FROM campaigns WHERE id = 1 FOR UPDATE")
        for table in ("ledger", "campaigns", "characters"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                conn.execute(f"LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE")


@pytest.mark.parametrize("holder", ["GM", None], ids=["GM role", "owner"])
def test_a_held_campaign_lock_is_one_line_not_a_hang(owned_group, holder, monkeypatch):
    """Another session holds the append lock (players can no longer take it: above). The
    writer gives up after the lock timeout (10 s; shortened here) with one line."""
    monkeypatch.setattr(engine, "WRITE_LOCK_TIMEOUT", "300ms")
    gm = owned_group.cli("GM")
    before = owned_group.dump()
    with owned_group.raw(holder) as lock:
        lock.autocommit = False
        lock.execute("SELECT id FROM campaigns WHERE id = 1 FOR UPDATE")
        started = time.monotonic()
        message = gm.error("roll", "3D6", "--dice", "1,2,3", code=1)
        waited = time.monotonic() - started
        lock.rollback()
    assert message == "error: the campaign is locked by another session; try again"
    assert 0.3 <= waited < 5
    assert owned_group.dump() == before
    assert gm.json("roll", "3D6", "--dice", "1,2,3")["seq"] > 0  # released: writes go on


def test_writes_run_under_the_timeouts_and_reads_do_not(owned_group):
    from campaign.db.database import Database

    db = Database(owned_group.url)
    try:
        with db.write() as session:
            assert (
                session.connection().exec_driver_sql("SHOW lock_timeout").scalar(),
                session.connection().exec_driver_sql("SHOW statement_timeout").scalar(),
            ) == ("10s", "1min")
        with db.read() as session:
            assert session.connection().exec_driver_sql("SHOW lock_timeout").scalar() == "0"
        with db.write() as session:  # SET LOCAL: nothing leaks into the next transaction on the connection
            session.connection().exec_driver_sql("SELECT 1")
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("SHOW statement_timeout").scalar() == "0"
    finally:
        db.close()


def test_a_read_only_role_verifies_the_chain_without_secret_rows(owned_group):
    owned_group.cli("GM").run("roll", "S3D6<=12", "聞き耳", "--dice", "2,3,4")
    auditor = owned_group.cli("auditor")
    assert [e["seq"] for e in auditor.json("history")] == [e["seq"] for e in owned_group.owner.json("history")]
    assert auditor.json("history", "verify", "--chain-only")["ok"]


def test_a_raw_record_is_hashed_by_postgresql_itself(owned_group):
    """The database computes SHA-256(prev_hash || record) over UTF-8 (Japanese included)
    exactly as campaign.chain does: the same text, the same digest."""
    with owned_group.raw() as conn:
        text = canonical_json({"名前": "鈴音", "n": 1})
        prev = "ab" * 32
        digest = conn.execute("SELECT encode(sha256(convert_to(%s || %s, 'UTF8')), 'hex')", (prev, text)).fetchone()
    assert digest[0] == chain_hash(prev, text)


FORGED_RESULTS = {
    "[1,6,6] = 3 critical success": {
        "expression": "3D6<=12",
        "dice": [1, 6, 6],
        "total": 3,
        "target": 12,
        "outcome": "critical_success",
        "margin": 9,
        "problem": "its total is 3, its dice [1, 6, 6] give 13",
    },
    "several terms": {
        "expression": "2D6+1D6+3>=10",
        "dice": [1, 1, 1],
        "total": 12,
        "target": 10,
        "outcome": "success",
        "margin": 2,
        "problem": "its total is 12, its dice [1, 1, 1] give 6",
    },
    "a table row of its choice": {
        "kind": "table",
        "expression": "CRT",
        "dice": [1, 1, 2],
        "total": 18,
        "detail": {"table": "CRT", "modifier": 0, "raw": 18, "result": 18, "entry": [18, 18]},
        "problem": "its total is 18, its dice [1, 1, 2] give 4",
    },
}


@pytest.mark.parametrize("forged", list(FORGED_RESULTS), ids=list(FORGED_RESULTS))
def test_the_gms_role_appends_a_result_its_dice_do_not_give_and_every_checker_fails(owned_group, forged, tmp_path):
    """docs/fair-dice.md "Who can cheat": the GM's database role (the server's credential)
    appends, by plain SQL, an entry in Aki's name through Aki's live session, of a shape
    both triggers accept, whose result does not follow from its dice. `history verify`,
    `proof check`, proofcheck.py and fair_check.py each name it."""
    import subprocess
    import sys
    from pathlib import Path

    import campaign.fair_check as standalone_fair
    import campaign.proofcheck as standalone_proof

    session = _session(owned_group, "Aki")
    fields = dict(FORGED_RESULTS[forged])
    problem = fields.pop("problem")
    detail = {**fields.pop("detail", {}), "via": {"session": session}}
    with owned_group.raw("GM") as conn:
        values = forged_row(conn, record={"actor": "Aki", "character": "鈴音", "detail": detail, **fields})
        insert(conn, values)  # both triggers accept it: the chain links, the row is its record's
    seq = values["seq"]
    line = f"entry #{seq}: {problem}"
    owner = owned_group.owner
    assert owner.json("history", "show", str(seq))["actor"] == "Aki"
    verified = owner.json("history", "verify", expect=1)
    assert (verified["ok"], verified["fair"]["seq"], verified["fair"]["problem"]) == (False, seq, line)

    owner.run("history", "seal")  # a seal covers what is there; it judges nothing
    bundle = tmp_path / "proof.json"
    owner.run("history", "proof", str(seq), "-o", str(bundle))
    assert f"fair dice: {line}" in owner.error("proof", "check", str(bundle), code=1)
    for checker in (standalone_proof, standalone_fair):  # each copied alone, run isolated
        alone = tmp_path / Path(checker.__file__).name
        alone.write_bytes(Path(checker.__file__).read_bytes())
        ran = subprocess.run([sys.executable, "-I", str(alone), str(bundle)], capture_output=True, text=True)
        assert ran.returncode == 1 and line in ran.stderr, (checker.__name__, ran.stdout, ran.stderr)
