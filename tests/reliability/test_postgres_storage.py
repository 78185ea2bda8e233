"""A PostgreSQL server that takes no writes (a standby, `default_transaction_read_only`)
or whose disk is full: reads and pages go on; a write is refused in one line in the
reader's language (the CLI) or a 503 `storage` that says so (the web), never a bare 500,
and nothing is written. The SQLite side is tests/reliability/test_full_disk_reads.py.

Neither can be made for real on a test's throwaway cluster (a standby needs a second
server, a full disk a small file system; and default_transaction_read_only does not
hold: the driver begins each write READ WRITE), so the server's own refusal is raised by
a trigger on the ledger with the SQLSTATE a standby (25006) or a full disk (53100) gives,
after the party was built. Everything else is real: the CLI and `campaign serve`
processes, the driver's error, the transaction rolled back.
"""

from __future__ import annotations

import subprocess

import httpx
import psycopg
import pytest

from tests.cli.conftest import Cli, gurps_setup
from tests.conftest import party_copy
from tests.web.test_serve import CLI, Server

pytestmark = pytest.mark.postgres

FULL = "error: the database server's disk is full: free some space there and try again; nothing was changed"
FULL_JA = (
    "エラー: データベースサーバーのディスクがいっぱいです: サーバー側で空きを作ってからやり直してください。"
    "何も変更していません"
)
NO_WRITES = (
    "error: the database server takes no writes now (a standby, or a read-only setting); reads still work; "
    "nothing was changed"
)
NO_WRITES_JA = (
    "エラー: データベースサーバーは今は書き込みを受け付けません (スタンバイ、または読み取り専用の設定)。"
    "読み出しはできます。何も変更していません"
)


@pytest.fixture
def party(request, pg_cluster):
    name = f"readonly_{id(request)}"
    url = pg_cluster.create_database(name, template="campaign_template")
    party_copy(request, "gurps", url, lambda db: gurps_setup(Cli(db)), campaign="テスト卓")
    yield url, name, pg_cluster
    pg_cluster.drop_database(name)


CASES = [("25006", NO_WRITES, NO_WRITES_JA), ("53100", FULL, FULL_JA)]


def _refusing(cluster, name: str, sqlstate: str) -> None:
    """From now on the server refuses every new ledger row with `sqlstate`, as it would."""
    with psycopg.connect(cluster.admin_dsn().replace("dbname=postgres", f"dbname={name}"), autocommit=True) as conn:
        conn.execute(
            "CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION 'the server refuses the write' USING ERRCODE = '{sqlstate}'; END $$"
        )
        conn.execute(
            "CREATE TRIGGER refuse_writes BEFORE INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION refuse_writes()"
        )


def _run(url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "--db", url, *args], capture_output=True, text=True, timeout=120)


def _head(url: str) -> int:
    done = _run(url, "history", "--limit", "1", "--json")
    assert done.returncode == 0, done.stderr
    import json

    return json.loads(done.stdout)[0]["seq"]


@pytest.mark.parametrize(("sqlstate", "english", "japanese"), CASES)
def test_a_server_taking_no_writes_reads_and_refuses_in_one_line(party, sqlstate, english, japanese):
    url, name, cluster = party
    head = _head(url)
    _refusing(cluster, name, sqlstate)
    for lang, line in (("en", english), ("ja", japanese)):
        done = _run(url, "--lang", lang, "roll", "3D6", "--dice", "1,2,3")
        assert (done.returncode, done.stdout, done.stderr.splitlines()) == (1, "", [line])
    verified = _run(url, "history", "verify", "--json")
    assert verified.returncode == 0 and '"ok": true' in verified.stdout, verified.stderr
    assert _run(url, "char", "show", "鈴音", "--json").returncode == 0
    assert _head(url) == head


@pytest.mark.parametrize(("sqlstate", "english", "japanese"), CASES)
def test_the_table_server_says_the_server_takes_no_writes(party, sqlstate, english, japanese):  # noqa: ARG001
    url, name, cluster = party
    invite = _run(url, "--lang", "en", "invite", "Aki", "--json")
    assert invite.returncode == 0, invite.stderr
    import json

    join_path = json.loads(invite.stdout)["join_path"]
    server = Server(url)
    try:
        base = server.first_line.rstrip("/")
        seat = httpx.Client(base_url=base, timeout=30)
        assert seat.post(join_path, data={"confirm": "1"}, headers={"origin": base}).status_code == 303
        session = seat.cookies["campaign_session"]
        csrf = seat.get("/api/session").json()["csrf"]
        head = _head(url)
        _refusing(cluster, name, sqlstate)
        cookie = {"cookie": f"campaign_session={session}"}
        for path in ("/", "/history", f"/entries/{head}", "/api/table"):
            assert httpx.get(base + path, headers=cookie, timeout=30).status_code == 200, path
        # (the server speaks English here: the suite sets CAMPAIGN_LANG=en; the CLI test reads the Japanese)
        answer = httpx.post(
            base + "/api/rolls",
            json={"command": "3D6", "character": "鈴音", "idempotency_key": "readonly-1"},
            headers={**cookie, "origin": base, "x-csrf-token": csrf},
            timeout=30,
        )
        assert answer.status_code == 503, answer.text
        assert answer.json() == {"error": "the server cannot write now: " + english.split(" ", 1)[1], "code": "storage"}
    finally:
        server.stop()
    assert _head(url) == head


def test_other_server_errors_are_not_said_to_be_storage():
    from sqlalchemy.exc import OperationalError

    from campaign.db.storage import server_trouble

    assert server_trouble(OperationalError("SELECT 1", {}, psycopg.errors.QueryCanceled("timeout"))) is None
    assert server_trouble(OperationalError("SELECT 1", {}, psycopg.errors.LockNotAvailable("lock"))) is None
