"""Secrets stay out of the process list: every user of a machine can read any process's
arguments (`ps`, /proc/PID/cmdline), so a database password or the web token typed
there is given away.

- The database password: in CAMPAIGN_DB (the environment is private to the user), or
  left out of the URL and kept in a PGPASSFILE (~/.pgpass), which libpq reads. Proven
  against a role that must authenticate with scram-sha-256: the throwaway cluster
  trusts every other role, and this one line of pg_hba.conf is added for the test.
- A password in --db still works, with a one-line warning on stderr.
- The processes campaign starts itself (the second half of `history verify` on SQLite)
  take their job on stdin: nothing in their arguments.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campaign.cli.app import app
from tests import inprocess

PASSWORD = "pw-" + secrets.token_hex(12)
ROLE = "pw_gm"
WARNING = (
    "warning: the password in --db can be read by every user of this machine (ps); give the URL in "
    "CAMPAIGN_DB instead, or leave the password out of it and keep it in a PGPASSFILE (~/.pgpass)"
)


def _run(*args: str):
    with inprocess.reusing():
        return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def password_role(pg_cluster):
    """A role the cluster checks a password for; its database; (url without password, port)."""
    import psycopg

    database = f"pw_{os.getpid()}"
    with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
        conn.execute(f'CREATE DATABASE "{database}" OWNER {ROLE}')
    hba = Path(pg_cluster.datadir) / "pg_hba.conf"
    original = hba.read_text()
    hba.write_text(f"host all {ROLE} 127.0.0.1/32 scram-sha-256\n" + original)
    with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")
    try:
        yield f"postgresql+psycopg://{ROLE}@127.0.0.1:{pg_cluster.port}/{database}", pg_cluster.port
    finally:
        inprocess.forget()
        hba.write_text(original)
        with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.execute(f"DROP ROLE IF EXISTS {ROLE}")


@pytest.mark.postgres
def test_the_database_password_comes_from_a_pgpassfile_or_the_environment(password_role, tmp_path, monkeypatch):
    url, port = password_role
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))  # not the user's own ~/.pgpass
    monkeypatch.delenv("PGPASSWORD", raising=False)
    refused = _run("--db", url, "init", "卓")
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert refused.stderr.startswith("error: cannot open the database: ") and len(refused.stderr.splitlines()) == 1
    # A PGPASSFILE (mode 0600, as libpq wants it): the URL holds no password, nothing warns.
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{port}:*:{ROLE}:{PASSWORD}\n")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    created = _run("--db", url, "init", "卓")
    assert created.exit_code == 0, created.stderr
    assert "warning" not in created.stderr and PASSWORD not in created.output
    # CAMPAIGN_DB with the password in it: the environment is the user's own, no warning.
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    monkeypatch.setenv("CAMPAIGN_DB", url.replace(f"{ROLE}@", f"{ROLE}:{PASSWORD}@"))
    listed = _run("list", "--json")
    assert listed.exit_code == 0 and [row["name"] for row in json.loads(listed.stdout)] == ["卓"]
    assert listed.stderr == ""
    # Typed in --db: it works, and says once what it gave away.
    monkeypatch.delenv("CAMPAIGN_DB")
    typed = _run("--db", url.replace(f"{ROLE}@", f"{ROLE}:{PASSWORD}@"), "list", "--json")
    assert typed.exit_code == 0 and [row["name"] for row in json.loads(typed.stdout)] == ["卓"]
    assert typed.stderr.splitlines() == [WARNING]


def test_no_warning_without_a_password(tmp_path):
    db = str(tmp_path / "c.db")
    done = _run("--db", db, "init", "卓")
    assert done.exit_code == 0 and done.stderr == "" and "created campaign 卓" in done.stdout


def test_verify_starts_no_process_that_could_show_the_database(tmp_path, monkeypatch):
    """`history verify` checks the chain in this process (the second scanning process
    and its command line are gone), so no argument list can carry the database's name."""
    import campaign.ledger as ledger_module

    db = tmp_path / f"secret-{PASSWORD}.db"
    from campaign.db.database import Database
    from campaign.services.campaigns import setup as campaigns
    from campaign.services.ledger import history

    database = Database(str(db))
    campaigns.create_campaign(database, "卓", "gurps3-ja", "GM")
    started = []
    real_popen = subprocess.Popen

    def spy(args, *rest, **options):
        started.append(list(args))
        return real_popen(args, *rest, **options)

    monkeypatch.setattr(subprocess, "Popen", spy)
    with database.write() as session:
        from campaign.db.models import Campaign

        campaign = session.query(Campaign).one()
        for _ in range(300):
            ledger_module.append(
                session, campaign, "GM", ledger_module.NewEntry(kind="roll", expression="1D6", dice=[3], total=3)
            )
    try:
        report = history.verify(database, "卓", chain_only=True)
    finally:
        database.close()
    assert report.ok and report.entries == 301
    assert started == []
