"""Fair dice a forger changed, each caught by `history verify` even when the whole chain
was re-hashed after the change (SQLite and PostgreSQL); and the seed shows nowhere a
player can read before its reveal."""

from __future__ import annotations

import copy
import json

import pytest

import campaign.fair_check as fair_check
from campaign.core.fair_dice import face_v2
from campaign.ledger import canonical_json, chain_hash
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.integration.rawdb import drop_ledger_guards, execute, raw_connection, rehash_from
from tests.web.test_fair_dice_server import SHARE_A, SHARE_B, SHARE_C, end_fair, start_fair, table  # noqa: F401
from tests.web.test_table_server import head


def _record(cli: Cli, seq: int) -> dict:
    with raw_connection(cli.db) as conn:
        return json.loads(conn.execute(f"SELECT record FROM ledger WHERE seq = {seq}").fetchone()[0])


def _forged(cli: Cli, seq: int, change) -> dict:
    """Rewrite entry `seq` with `change` and re-hash everything after it; verify's report.
    The entry is put back (re-hashed again) before returning."""
    original = _record(cli, seq)
    rehash_from(cli.db, seq, change)
    report = cli.json("history", "verify", expect=1)
    assert report["secrets"] is not None, "the re-hashed chain itself must be intact"
    rehash_from(cli.db, seq, lambda record: (record.clear(), record.update(copy.deepcopy(original))))
    return report


@pytest.mark.dialect  # raw edits of the ledger and the seed table on each backend
def test_forged_dice_shares_and_seeds_are_caught(table):
    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    rolled = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A}).json()
    seq = rolled["seq"]
    seed = end_fair(cli, commit)
    reveal_seq = head(cli)
    second = start_fair(cli)  # a second scenario's seed, to reveal for the wrong commitment
    cli.json("scenario", "end")
    cli.run("roll", "2D6", "--dice", "1,1")  # a later entry: every forger re-hashes it too
    assert cli.json("history", "verify")["ok"]
    drop_ledger_guards(cli.db)

    def other_face(value: int) -> int:
        return value % 6 + 1

    def fudge_both(record):  # the die and its draw, consistently: only the seed tells
        record["dice"][0] = other_face(record["dice"][0])
        record["detail"]["fair"]["draws"][0][1] = record["dice"][0]
        record["total"] = sum(record["dice"])

    def fudge_dice(record):
        record["dice"][0] = other_face(record["dice"][0])
        record["total"] = sum(record["dice"])

    share = next(
        s for s in ("c3" * 32, "d4" * 32, "e5" * 32) if [face_v2(seed, s, i, 6) for i in range(3)] != rolled["dice"]
    )

    def change_share(record):
        record["detail"]["fair"]["share"] = share

    def drop_a_die(record):
        record["detail"]["fair"]["from"] = 1

    def swap_seed(record):
        record["detail"]["seed"] = "0" * 64

    def wrong_commitment(record):  # the second scenario's seed, revealed for the first commitment
        record["detail"]["seed"] = _second_seed(cli, second["seq"])

    for target, change, words in [
        (seq, fudge_both, f"entry #{seq}: die 1 (d6) shows"),
        (seq, fudge_dice, "are not the derived draws"),
        (seq, change_share, "the die was changed"),
        (seq, drop_a_die, "start at index 1, expected 0"),
        (reveal_seq, swap_seed, f"does not match commitment #{commit['seq']}"),
        (reveal_seq, wrong_commitment, f"does not match commitment #{commit['seq']}"),
    ]:
        report = _forged(cli, target, change)
        assert not report["ok"] and report["bad_seq"] == target and words in report["reason"], (words, report)
    assert cli.json("history", "verify")["ok"]  # every forgery put back: intact again
    rehash_from(cli.db, seq, fudge_both)
    assert cli.error("history", "verify", code=1).startswith(f"fair dice: entry #{seq}: die 1 (d6) shows")


def test_a_kept_seed_swapped_before_its_reveal_is_caught(gurps):
    commit = start_fair(gurps)
    execute(gurps.db, "UPDATE fair_seeds SET seed = '" + "1" * 64 + "'")
    report = gurps.json("history", "verify", expect=1)
    assert report["bad_seq"] == commit["seq"] and "it was swapped" in report["reason"]


def _second_seed(cli: Cli, commit_seq: int) -> str:
    with raw_connection(cli.db) as conn:
        for (raw,) in conn.execute("SELECT record FROM ledger WHERE kind = 'seed_reveal'").fetchall():
            detail = json.loads(raw)["detail"]
            if detail["reveals"] == commit_seq:
                return detail["seed"]
    raise AssertionError("no reveal")


def _kept_seed(cli: Cli) -> str:
    with raw_connection(cli.db) as conn:
        return conn.execute("SELECT seed FROM fair_seeds").fetchone()[0]


def _tables_but_seeds(cli: Cli) -> str:
    """Every row of every table but fair_seeds, as text (a dump a player might get)."""
    from campaign.db.models import Base, load_all

    load_all()
    dumped = []
    with raw_connection(cli.db) as conn:
        for name in sorted(Base.metadata.tables):
            if name != "fair_seeds":
                dumped.append(f"{name}: {conn.execute(f'SELECT * FROM {name}').fetchall()!r}")
    return "\n".join(dumped)


@pytest.mark.dialect  # every table of each backend's dump
def test_the_seed_shows_nowhere_before_its_reveal(table, tmp_path):
    cli, browser = table
    aki = browser("Aki")
    started = cli.run("scenario", "start", "第一話", "--with", "鈴音", "--fair")
    seed = _kept_seed(cli)
    outputs = {"scenario start": started.stdout + started.stderr}
    with aki.http.stream("GET", "/api/feed", timeout=30) as stream:
        lines = stream.iter_lines()
        next(lines)
        rolled = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A})
        feed = []
        for line in lines:
            feed.append(line)
            if line == "event: state":
                feed.append(next(lines))
                break
    seq = rolled.json()["seq"]
    outputs["roll answer"] = rolled.text
    outputs["feed"] = "\n".join(feed)
    for path in (
        "/",
        "/history",
        f"/entries/{seq}",
        f"/entries/{seq - 1}",
        "/scenarios/1",
        "/luck",
        "/api/chain",
        "/api/table",
    ):
        outputs[path] = aki.http.get(path).text
    for args in (
        ("history", "--json"),
        ("history", "--csv"),
        ("history", "show", str(seq - 1), "--json"),
        ("history", "verify", "--json"),
        ("stats", "--json"),
    ):
        result = cli.run(*args)
        outputs[" ".join(args)] = result.stdout + result.stderr
    export = tmp_path / "export.jsonl"
    cli.run("export", str(export))
    outputs["export"] = export.read_text(encoding="utf-8")
    call = cli.json("call", "fright", "鈴音")
    outputs["call answer"] = aki.post(
        f"/api/calls/{call['call_id']}/roll", {"idempotency_key": "k" * 16, "share": SHARE_B}
    ).text
    bot = cli.json("invite", "aki-bot", "--bcdice", "--player", "Aki", "--character", "鈴音")["base_path"]
    outputs["bcdice answer"] = aki.http.get(
        bot + "v2/game_system/GURPS/roll", params={"command": "3D6<=12", "share": SHARE_C}
    ).text
    cli.run("history", "seal")
    cli.run("history", "proof", str(seq), "-o", str(tmp_path / "proof.json"))
    outputs["proof bundle"] = (tmp_path / "proof.json").read_text(encoding="utf-8")
    outputs["database but fair_seeds"] = _tables_but_seeds(cli)
    for name, text in outputs.items():
        assert seed not in text and seed.upper() not in text, f"the seed leaks in {name}"
    assert outputs["/api/table"] and "provable" in outputs["roll answer"] and "provable" in outputs["call answer"]
    assert '"campaign_seq"' in outputs["bcdice answer"] and '"fair":{' in outputs["proof bundle"].replace('\\"', '"')
    assert "provably fair" in outputs[f"/entries/{seq}"] and "provably fair" in outputs["/history"]
    cli.run("scenario", "end")
    assert seed in cli.run("history", "--json").stdout and seed in _tables_but_seeds(cli)
    # after the reveal the dice survive export and import: the copy recomputes them too
    cli.run("export", str(export))
    fresh = Cli(str(tmp_path / "imported.db"))
    fresh.run("import", str(export))
    derived = [e for e in cli.json("history") if "fair" in (e.get("detail") or {})]
    assert len(derived) >= 3  # the roll, the called check (and its table roll on a failure), the bot's
    assert fresh.json("history", "verify")["fair"] == {
        "ok": True,
        "seq": None,
        "problem": None,
        "revealed": 1,
        "checked": len(derived),
        "pending": 0,
        "abandoned": 0,
        # the roll, the check, its table roll on a failure, the bot's: judged from their dice too
        "judged": sum(fair_check.judgement(e) is not None for e in derived),
        "unlinked": 0,
    }


def test_proof_check_and_the_standalone_fair_check_recompute_a_bundles_dice(table, tmp_path):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import campaign.fair_check as standalone

    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    seq = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A}).json()["seq"]
    end_fair(cli, commit)
    cli.run("history", "seal")
    good = tmp_path / "proof.json"
    cli.run("history", "proof", str(seq), "-o", str(good))
    assert cli.json("proof", "check", str(good))["ok"]
    assert standalone.check_bundle_file(str(good))["checked"] == 1

    bundle = json.loads(good.read_text(encoding="utf-8"))
    prev = bundle["anchor"]
    for entry in bundle["entries"]:  # a forger who re-hashes the bundle after changing the die
        record = json.loads(entry["record"])
        if record["seq"] == seq:
            record["dice"][0] = record["dice"][0] % 6 + 1
            record["detail"]["fair"]["draws"][0][1] = record["dice"][0]
            record["total"] = sum(record["dice"])
        entry["record"] = canonical_json(record)
        entry["prev_hash"], entry["hash"] = prev, chain_hash(prev, entry["record"])
        prev = entry["hash"]
    bundle["head"] = prev
    bad = tmp_path / "forged.json"
    bad.write_text(json.dumps(bundle, ensure_ascii=False), encoding="utf-8")
    assert f"fair dice: entry #{seq}: die 1 (d6) shows" in cli.error("proof", "check", str(bad), code=1)

    elsewhere = tmp_path / "player"
    elsewhere.mkdir()
    shutil.copy(Path(standalone.__file__), elsewhere / "fair_check.py")

    def run(path):  # -I: isolated, nothing of the project's checkout is importable
        return subprocess.run(
            [sys.executable, "-I", str(elsewhere / "fair_check.py"), str(path)],
            capture_output=True,
            text=True,
            cwd=elsewhere,
        )

    held, rejected = run(good), run(bad)
    assert held.returncode == 0 and "1 entries recomputed from 1 revealed seeds" in held.stdout, held.stderr
    assert rejected.returncode == 1 and f"entry #{seq}: die 1 (d6) shows" in rejected.stderr


@pytest.mark.slow  # a real `campaign serve` process, its own log on stderr
def test_the_seed_is_not_in_the_servers_log_before_its_reveal(gurps):
    """The log a GM's `campaign serve` writes (its stderr, through rolls, a refusal, the
    pages and a 404) never holds the seed while it is secret."""
    from tests.browser.support import Server
    from tests.web.table_server import Browser
    from tests.web.test_table_server import invite

    gurps.run("scenario", "start", "第一話", "--with", "鈴音", "--fair")
    seed = _kept_seed(gurps)
    path = invite(gurps, "Aki")
    with Server(gurps.db) as server:
        aki = Browser(server.base)
        assert aki.join(path).status_code == 303
        rolled = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A})
        assert rolled.json()["fairness"] == "provable"
        assert aki.post("/api/rolls", {"command": "3D6", "character": "鈴音", "share": "zz"}).status_code == 400
        for page in ("/", "/history", f"/entries/{rolled.json()['seq']}", "/api/chain", "/api/table", "/nowhere"):
            aki.http.get(page)
        log = server.stderr()
        server.stop()
        log += server.stderr()
    # serve keeps no access log (uvicorn at warning level): what it writes is warnings and errors
    assert seed not in log and seed.upper() not in log, "the seed leaks in the server's log"
    assert seed in gurps.run("scenario", "end", "--json").stdout
