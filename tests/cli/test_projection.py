"""State is a verified projection of the ledger (issue: safe voids, honest imports, no drift).

Each scenario here went wrong before the state tables became the replay of the ledger:
a void that left CP or FP wrong, a void that brought back a status or condition a later
entry had ended, a forged table that `history verify` called intact, an import that
trusted the file's state lines. Every test ends with `history verify` (chain and state).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.conftest import party_copy
from tests.integration.rawdb import execute

# `dialect` (both backends in `make test-fast` too) marks the tests where PostgreSQL
# can differ: a refused void rolled back, the disappearance and reunion rows, raw SQL
# edits and imports. The other voids write state the same way as these;
# they run on PostgreSQL in the full suite.

FIXTURES = Path(__file__).resolve().parents[1] / "data"


def verified(cli: Cli) -> dict:
    report = cli.json("history", "verify")
    assert report["ok"] and report["state"]["ok"], report
    return report


def phobia_party(cli: Cli) -> Cli:
    cli.run("init", "卓")
    cli.run("player", "add", "Aki")
    cli.run(
        "char",
        "add",
        "鈴音",
        "--player",
        "Aki",
        "--stat",
        "Will=11",
        "--stat",
        "HT=11",
        "--stat",
        "IQ=12",
        "--stat",
        "FP=11",
        "--stat",
        "HP=11",
        "--cp",
        "150",
    )
    return cli


@pytest.fixture
def party(cli, request) -> Cli:
    """phobia_party on the test's backend: built once per session, copied per test."""
    party_copy(request, "phobia", cli.db, lambda db: phobia_party(Cli(db)), campaign="卓")
    return cli


# --- voids that used to corrupt state ---


@pytest.mark.dialect
def test_voiding_a_phobia_that_a_later_check_escalated_is_refused_then_cascades(party):
    first = party.json("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")  # 23: mild phobia
    assert party.json("char", "show", "鈴音")["cp_total"] == 140
    # 17 vs 3: margin 14, table 3d6 11 + 14 = 25: the mild phobia doubles
    second = party.json("fright", "鈴音", "--mod", "-8", "--pick", "暗所恐怖症", "--dice", "6,6,5,3,4,4")
    assert [e["kind"] for e in second["effects"]] == ["phobia_escalation"]
    shown = party.json("char", "show", "鈴音")
    assert shown["cp_total"] == 130 and [(t["name"], t["cp"]) for t in shown["traits"]] == [("暗所恐怖症", -20)]

    before = party.json("history", "--all")
    message = party.error("history", "void", "--yes", str(first["seq"]), "--reason", "x", code=1)
    assert f"#{second['seq']}" in message and "--cascade" in message
    assert party.json("history", "--all") == before

    voided = party.json("history", "void", "--yes", "--cascade", str(first["seq"]), "--reason", "wrong session")
    assert voided["cascade"] == [second["seq"]] and len(voided["void_seqs"]) == 2
    shown = party.json("char", "show", "鈴音")
    assert (shown["cp_total"], shown["traits"]) == (150, [])
    verified(party)


def test_voiding_only_the_escalation_restores_the_mild_phobia(party):
    party.json("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")
    second = party.json("fright", "鈴音", "--mod", "-8", "--pick", "暗所恐怖症", "--dice", "6,6,5,3,4,4")
    party.run("history", "void", "--yes", str(second["seq"]), "--reason", "wrong fear")
    shown = party.json("char", "show", "鈴音")
    assert shown["cp_total"] == 140
    assert [(t["name"], t["cp"], t["category"]) for t in shown["traits"]] == [("暗所恐怖症", -10, "phobia")]
    verified(party)


def test_voiding_the_first_fp_loss_keeps_the_later_one(party):
    # 14: lose 1d FP, and a stun (1d turns); the first check takes 3 FP, the second 2
    first = party.json("fright", "鈴音", "--dice", "6,5,5,3,3,3,3,2")
    party.json("fright", "鈴音", "--dice", "6,5,5,3,3,3,2,2")
    assert party.json("char", "show", "鈴音")["pools"]["FP"] == {"max": 11, "current": 6}
    party.run("history", "void", "--yes", str(first["seq"]), "--reason", "x")
    assert party.json("char", "show", "鈴音")["pools"]["FP"] == {"max": 11, "current": 9}
    verified(party)


def test_clearing_a_condition_makes_it_depend_on_its_fright_check(party):
    fright = party.json("fright", "鈴音", "--dice", "6,5,5,3,3,3,3,2")
    cleared = party.json("condition", "clear", "鈴音", "stun")
    message = party.error("history", "void", "--yes", str(fright["seq"]), "--reason", "x", code=1)
    assert f"#{cleared['seq']}" in message
    party.run("history", "void", "--yes", "--cascade", str(fright["seq"]), "--reason", "x")
    assert party.json("condition", "list", "鈴音")["conditions"] == []
    verified(party)


def test_a_void_can_be_voided_and_sub_entries_show_as_voided(party):
    fright = party.json("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")
    voided = party.json("history", "void", "--yes", str(fright["seq"]), "--reason", "oops")
    table_entry = party.json("history", "show", str(fright["seq"]))["sub_entries"][0]
    assert table_entry["voided_by"] == voided["seq"]
    assert party.json("history", "--kind", "fright")[0]["voided_by"] == voided["seq"]
    assert party.json("char", "show", "鈴音")["traits"] == []

    restored = party.json("history", "void", "--yes", str(voided["seq"]), "--reason", "it did happen")
    assert "鈴音: trait '暗所恐怖症' (-10 CP) restored" in restored["reversed"]
    assert party.json("history", "show", str(fright["seq"]))["voided_by"] is None
    assert [t["name"] for t in party.json("char", "show", "鈴音")["traits"]] == ["暗所恐怖症"]
    assert "void it directly" in party.error("history", "void", "--yes", str(restored["seq"]), "--reason", "x", code=1)
    again = party.json("history", "void", "--yes", str(fright["seq"]), "--reason", "no, really")
    assert party.json("history", "show", str(fright["seq"]))["voided_by"] == again["seq"]
    assert party.json("char", "show", "鈴音")["cp_total"] == 150
    verified(party)


def test_void_needs_yes_off_a_terminal_and_changes_nothing(party):
    fright = party.json("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")
    before = party.json("history", "--all")
    assert "--yes" in party.error("history", "void", str(fright["seq"]), "--reason", "x", code=2)
    assert party.json("history", "--all") == before


# --- missing characters, searches and reunions ---


def lost_party(cli: Cli) -> None:
    cli.run("init", "卓")
    for player in ("Aki", "Ren"):
        cli.run("player", "add", player)
    cli.run("char", "add", "鈴音", "--player", "Aki")
    cli.run("char", "add", "刀矢", "--player", "Ren")
    cli.run("char", "add", "千早", "--player", "Aki")
    cli.run("char", "relate", "鈴音", "刀矢")


@pytest.fixture
def lost(cli, request) -> Cli:
    """lost_party on the test's backend: built once per session, copied per test."""
    party_copy(request, "lost", cli.db, lambda db: lost_party(Cli(db)), campaign="卓")
    return cli


@pytest.mark.dialect
def test_voiding_a_disappearance_needs_its_reunion_voided_first(lost):
    marked = lost.json("missing", "mark", "鈴音")
    started = lost.json("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    ended = lost.json("scenario", "end", "--dice", "鈴音=2")
    reunion = ended["reunions"][0]
    assert reunion["success"]
    message = lost.error("history", "void", "--yes", str(marked["seq"]), "--reason", "x", code=1)
    assert f"#{started['sent'][0]['seq']}" in message and f"#{reunion['seq']}" in message
    lost.run("history", "void", "--yes", "--cascade", str(marked["seq"]), "--reason", "never lost")
    statuses = {c["name"]: c["status"] for c in lost.json("char", "list")}
    assert statuses == {"鈴音": "active", "刀矢": "active", "千早": "active"}
    assert lost.json("missing", "list") == []
    assert [r["voided_by"] is not None for r in lost.json("scenario", "show", "1")["reunions"]] == [True]
    verified(lost)


@pytest.mark.dialect
def test_a_voided_reunion_can_be_rolled_again(lost):
    lost.run("missing", "mark", "鈴音")
    lost.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    ended = lost.json("scenario", "end", "--dice", "鈴音=2")
    assert "not missing" in lost.error("missing", "reunion", "鈴音", "--dice", "1", code=1)  # she is back
    lost.run("history", "void", "--yes", str(ended["reunions"][0]["seq"]), "--reason", "die fell off the table")
    assert lost.json("missing", "list")[0]["searchers"][0]["name"] == "刀矢"
    assert "was rolled" not in lost.error("missing", "reunion", "鈴音", "--dice", "1,2", code=2)
    again = lost.json("missing", "reunion", "鈴音", "--dice", "3")
    assert (again["scenario"], again["roll"], again["threshold"], again["success"]) == (1, 3, 2, False)
    assert "was rolled" in lost.error("missing", "reunion", "鈴音", "--dice", "1", code=1)
    shown = lost.json("scenario", "show", "1")["reunions"]
    assert [(r["roll"], r["success"], r["voided_by"] is None) for r in shown] == [(2, True, False), (3, False, True)]
    verified(lost)


# --- direct edits of the state tables ---

EDITS = {
    "reunion_checks": ("UPDATE reunion_checks SET roll = 1, success = ?", (True,)),
    "characters": ("UPDATE characters SET cp_total = 999 WHERE name = '鈴音'", ()),
    "traits": ("DELETE FROM traits", ()),
}


@pytest.mark.dialect
@pytest.mark.parametrize("table", sorted(EDITS))
def test_a_direct_edit_of_state_fails_verify_naming_the_table(lost, db_url, table):
    lost.run("trait", "add", "鈴音", "好奇心", "--cp", "-5")
    lost.run("missing", "mark", "鈴音")
    lost.run("scenario", "start", "一話", "--with", "千早")
    ended = lost.json("scenario", "end", "--dice", "鈴音=4")
    verified(lost)
    sql, params = EDITS[table]
    execute(db_url, sql, params)
    report = lost.json("history", "verify", expect=1)
    assert not report["ok"] and report["state"]["table"] == table, report
    assert f"state differs from the ledger: {table}" in lost.error("history", "verify", code=1)
    assert lost.json("history", "verify", "--chain-only")["ok"]  # the chain itself is intact
    # what was rolled is read from the hashed record, never from the forged table
    assert [(r["roll"], r["success"]) for r in lost.json("scenario", "show", "1")["reunions"]] == [(4, False)]
    # a void on drifted state is a one-line refusal, not a traceback
    message = lost.error("history", "void", "--yes", str(ended["reunions"][0]["seq"]), "--reason", "x", code=1)
    assert "differ from the ledger" in message


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_forged_stat_is_named_with_expected_and_found(party, db_url):
    execute(
        db_url,
        "UPDATE characters SET stats = ? WHERE name = '鈴音'",
        (json.dumps({"Will": 20, "HT": 11, "IQ": 12, "FP": 11, "HP": 11}),),
    )
    report = party.json("history", "verify", expect=1)["state"]
    assert (report["table"], report["key"], report["column"]) == ("characters", "鈴音", "stats")
    assert report["expected"]["Will"] == 11 and report["found"]["Will"] == 20


# --- imports trust only the verified ledger ---


def _exported(cli: Cli, tmp_path: Path) -> list[dict]:
    path = tmp_path / "out.jsonl"
    cli.run("export", str(path))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _line(items: list[dict], kind: str, **match) -> dict:
    return next(i for i in items if i["type"] == kind and all(i.get(k) == v for k, v in match.items()))


def _forge(items, kind):
    if kind == "CP 999":
        _line(items, "character", name="鈴音")["cp_total"] = 999
    elif kind == "Will 20":
        _line(items, "character", name="鈴音")["stats"]["Will"] = 20
    elif kind == "reunion 7 on 1d6":
        row = _line(items, "reunion_check")
        row.update(roll=7, success=True)
    elif kind == "untracked trait":
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
    elif kind == "stats as strings":
        _line(items, "character", name="鈴音")["stats"]["Will"] = "11"
    elif kind == "settings as a list":
        _line(items, "header")["campaign"]["settings"] = ["fright_cap"]
    elif kind == "NaN":
        _line(items, "character", name="鈴音")["cp_total"] = float("nan")
    elif kind == "10**30":
        _line(items, "character", name="鈴音")["cp_total"] = 10**30
    return items


FORGERIES = [
    "CP 999",
    "Will 20",
    "reunion 7 on 1d6",
    "untracked trait",
    "stats as strings",
    "settings as a list",
    "NaN",
    "10**30",
]


def forgery_source(cli: Cli) -> None:
    """A campaign with a phobia, a relation and a failed reunion: what the forgeries edit."""
    phobia_party(cli)
    cli.run("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")
    cli.run("player", "add", "Ren")
    cli.run("char", "add", "刀矢", "--player", "Ren")
    cli.run("char", "relate", "鈴音", "刀矢")
    cli.run("missing", "mark", "鈴音")
    cli.run("scenario", "start", "一話", "--with", "刀矢")
    cli.run("scenario", "end", "--dice", "鈴音=3")


@pytest.mark.dialect
@pytest.mark.parametrize("forgery", FORGERIES)
def test_an_import_with_forged_state_lines_is_refused_and_changes_nothing(tmp_path, db_url, forgery, request):
    source = Cli(
        party_copy(
            request, "forgery_source", str(tmp_path / "source.db"), lambda db: forgery_source(Cli(db)), campaign="卓"
        )
    )
    items = _forge(_exported(source, tmp_path), forgery)
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    target = Cli(db_url)
    target.run("init", "先客")
    before = target.json("list")
    message = target.error("import", str(path), code=1)
    assert "nothing imported" in message and "Traceback" not in message
    assert target.json("list") == before


@pytest.mark.dialect
def test_an_honest_import_rebuilds_state_from_the_ledger(tmp_path, db_url):
    source = phobia_party(Cli(str(tmp_path / "source.db")))
    fright = source.json("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,3,3,3,3,2")
    source.run("fright", "鈴音", "--dice", "6,5,5,3,3,3,2,2")
    source.run("history", "void", "--yes", str(fright["seq"]), "--reason", "x")
    path = tmp_path / "out.jsonl"
    source.run("export", str(path))
    target = Cli(db_url)
    target.run("import", str(path))
    assert target.json("char", "show", "鈴音") == source.json("char", "show", "鈴音")
    verified(target)


def test_an_overlong_import_line_is_refused(tmp_path, sqlite_gurps):
    path = tmp_path / "long.jsonl"
    path.write_text('{"type": "header", "pad": "' + "x" * (1 << 20) + '"}\n', encoding="utf-8")
    assert "longer than" in sqlite_gurps.error("import", str(path), code=1)


# --- a first-release database: its state is rebuilt from its ledger on upgrade ---


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_round_one_database_upgrades_to_its_projection(tmp_path, db_url):
    path = tmp_path / "round1.db"
    shutil.copy(FIXTURES / "round1.db", path)
    old = Cli(str(path))
    report = old.json("history", "verify")  # opening migrates and rebuilds the state
    assert report["ok"] and report["entries"] == 85 and report["state"]["ok"], report
    # the first release's soft-deleted rows are gone: a voided trait is simply not there
    toya = old.json("char", "show", "刀矢")
    assert [t["name"] for t in toya["traits"]] == [] and toya["cp_total"] == 100
    # and the old entries void like new ones
    suzune = old.json("char", "show", "鈴音")
    severe = [t for t in suzune["traits"] if t["category"] == "severe phobia"]
    assert [t["cp"] for t in severe] == [-20]
    escalation = old.json("history", "void", "--yes", "84", "--reason", "x")
    assert any("-20 → -10" in line for line in escalation["reversed"])
    verified(old)
