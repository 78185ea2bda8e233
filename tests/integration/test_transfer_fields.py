"""export / import carries every state field: the ones a campaign gets from `award`,
`char kill` and `char retire` (characters' cp_awarded and status) included, so a
campaign `history verify` accepts is one `import` accepts, the demo's own first.

Each test imports into `db_url` (SQLite and PostgreSQL) and fails on a main whose
export left those columns out ("the ledger says 3, the table has 0").
"""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Cli

pytestmark = pytest.mark.dialect


def _observable(cli: Cli) -> dict:
    names = [c["name"] for c in cli.json("char", "list", "--all")]
    return {
        "history": cli.json("history", "--all"),
        "chars": {n: cli.json("char", "show", n) for n in names},
        "list": cli.json("char", "list", "--all"),
        "verify": cli.json("history", "verify"),
    }


def _move(source: Cli, target: Cli, tmp_path, *extra: str) -> list[dict]:
    path, secrets = tmp_path / "moved.jsonl", tmp_path / "moved.secrets.jsonl"
    source.run("export", str(path), "--secrets", str(secrets))
    imported = target.json("import", str(path), "--secrets", str(secrets), *extra)
    assert imported["entries"] == source.json("history", "verify")["entries"]
    again = tmp_path / "again.jsonl"
    target.run("export", str(again))
    assert again.read_bytes() == path.read_bytes()  # and back: the same file, byte for byte
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_demo_campaign_round_trips(tmp_path, db_url):
    source = Cli(str(tmp_path / "demo.db"))
    source.run("demo")
    before = _observable(source)
    assert before["verify"]["ok"]
    statuses = {c["name"]: c for c in before["list"]}
    assert any(c.get("status") != "active" for c in statuses.values()) or any(
        v["cp_awarded"] for v in before["chars"].values()
    ), "the demo no longer has an award or a death"
    target = Cli(db_url)
    _move(source, target, tmp_path)
    assert _observable(target) == before


def test_awards_deaths_and_retirements_round_trip(tmp_path, db_url):
    source = Cli(str(tmp_path / "source.db"))
    source.run("init", "生死卓")
    source.run("player", "add", "Aki")
    for name in ("鈴音", "刀矢", "千早"):
        source.run("char", "add", name, "--player", "Aki", "--cp", "100", "--stat", "Will=11")
    source.run("award", "3", "--to", "鈴音,刀矢", "--reason", "霧の館")
    source.run("award", "2", "--to", "千早")
    source.run("char", "kill", "刀矢", "--reason", "館の崩落")
    source.run("char", "retire", "千早", "--reason", "故郷に帰った")
    before = _observable(source)
    target = Cli(db_url)
    lines = _move(source, target, tmp_path)
    characters = {item["name"]: item for item in lines if item["type"] == "character"}
    assert {n: (c["status"], c["cp_awarded"], c["cp_total"]) for n, c in characters.items()} == {
        "鈴音": ("active", 3, 103),
        "刀矢": ("dead", 3, 103),
        "千早": ("retired", 2, 102),
    }
    assert _observable(target) == before


def test_a_forged_status_or_award_in_the_file_is_refused(tmp_path, db_url):
    source = Cli(str(tmp_path / "source.db"))
    source.run("init", "偽装卓")
    source.run("player", "add", "Aki")
    source.run("char", "add", "鈴音", "--player", "Aki", "--cp", "100")
    source.run("award", "1", "--to", "鈴音")
    path = tmp_path / "c.jsonl"
    source.run("export", str(path))
    lines = path.read_text(encoding="utf-8").splitlines()
    for field, value, said in (("status", "dead", "status"), ("cp_awarded", 50, "cp_awarded")):
        forged = []
        for line in lines:
            item = json.loads(line)
            if item["type"] == "character":
                item[field] = value
            forged.append(json.dumps(item, ensure_ascii=False))
        bad = tmp_path / f"forged-{field}.jsonl"
        bad.write_text("\n".join(forged) + "\n", encoding="utf-8")
        message = Cli(db_url).error("import", str(bad), code=1)
        assert "disagree with the ledger" in message and said in message, message
    assert Cli(db_url).json("list") == []
