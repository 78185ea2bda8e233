"""ココフォリア bridge end to end: pieces out (`char export --ccfolia`), logs in (`import-log`)."""

from __future__ import annotations

import json

import pytest

from tests.ccfolia_logs import (
    GURPS_EXPECTED,
    GURPS_ROLLS,
    GURPS_SESSION,
    GURPS_TABLES,
    TWO_D6_EXPECTED,
    TWO_D6_ROLLS,
    TWO_D6_SESSION,
    build,
)

COUNT_KEYS = list(GURPS_EXPECTED)


def write_log(tmp_path, items, name="session.html") -> str:
    path = tmp_path / name
    path.write_text(build(items), encoding="utf-8")
    return str(path)


def counts(summary: dict) -> dict:
    return {key: summary[key] for key in COUNT_KEYS}


def ledger_size(cli) -> int:
    return len(cli.json("history", "--all"))


def imported(cli) -> list[dict]:
    return [e for e in reversed(cli.json("history", "--all")) if e["source"] == "ccfolia"]


# --- logs in ---


def test_gurps_session_imports_every_result_exactly_once(gurps, tmp_path):
    log = write_log(tmp_path, GURPS_SESSION)
    before = ledger_size(gurps)
    summary = gurps.json("import-log", log, "--ccfolia", "--map", "すずね=鈴音")
    assert counts(summary) == GURPS_EXPECTED
    assert summary["unmapped_speakers"] == ["GM"]
    assert summary["last_seq"] - summary["first_seq"] + 1 == GURPS_EXPECTED["recorded"]
    assert ledger_size(gurps) == before + GURPS_EXPECTED["recorded"]

    entries = imported(gurps)
    rolls = [e for e in entries if e["kind"] == "roll"]
    assert [(e["character"], e["expression"], e["dice"], e["total"], e["outcome"], e["margin"]) for e in rolls] == [
        tuple(row) for row in GURPS_ROLLS
    ]
    tables = [e for e in entries if e["kind"] == "table"]
    assert [(e["character"], e["expression"], e["total"]) for e in tables] == GURPS_TABLES
    assert tables[0]["detail"]["entry"][0] <= 15 <= tables[0]["detail"]["entry"][1]  # the entry by its range
    # Actors: a mapped PC's player; an unmapped speaker stays in the record, acted for by --as.
    assert {e["character"]: e["actor"] for e in entries} == {"鈴音": "Aki", "刀矢": "Ren", None: "GM"}
    assert tables[1]["detail"]["ccfolia"]["speaker"] == "GM"
    first = rolls[0]
    assert first["reason"] == "回避"
    assert first["detail"]["ccfolia"]["line"] == "3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)"
    assert first["detail"]["ccfolia"]["tab"] == "main" and first["detail"]["ccfolia"]["speaker"] == "すずね"
    assert first["detail"]["rules_outcome"] == "success"
    assert rolls[7]["detail"]["ccfolia"]["tab"] is None  # the paragraph without a tab span
    fingerprints = [e["detail"]["ccfolia"]["fingerprint"] for e in entries]
    assert len(set(fingerprints)) == len(fingerprints) and all(len(f) == 64 for f in fingerprints)

    again = gurps.json("import-log", log, "--ccfolia", "--map", "すずね=鈴音")
    assert again["recorded"] == 0 and again["duplicates"] == GURPS_EXPECTED["recorded"]
    assert ledger_size(gurps) == before + GURPS_EXPECTED["recorded"]
    assert gurps.json("history", "verify")["ok"] is True


def test_a_longer_export_of_the_same_room_adds_only_the_new_messages(gurps, tmp_path):
    gurps.run("import-log", write_log(tmp_path, GURPS_SESSION[:6], "part.html"), "--ccfolia")
    summary = gurps.json("import-log", write_log(tmp_path, GURPS_SESSION, "whole.html"), "--ccfolia")
    assert summary["duplicates"] == 5  # the five results of the first export
    assert summary["recorded"] == GURPS_EXPECTED["recorded"] - 5


def test_2d6_session(cli, tmp_path):
    cli.run("init", "2d6卓", "--ruleset", "2d6-ja")
    cli.run("player", "add", "Mio")
    cli.run(
        "char", "add", "ミオ", "--player", "Mio", "--stat", "心=3", "--stat", "技=2", "--stat", "体=1", "--stat", "感=1"
    )
    cli.run("char", "add", "ソウ", "--npc")
    summary = cli.json("import-log", write_log(tmp_path, TWO_D6_SESSION), "--ccfolia")
    assert counts(summary) == TWO_D6_EXPECTED
    rolls = imported(cli)
    assert [(e["character"], e["expression"], e["dice"], e["total"], e["outcome"], e["margin"]) for e in rolls] == [
        tuple(row) for row in TWO_D6_ROLLS
    ]
    assert {e["actor"] for e in rolls if e["character"] == "ミオ"} == {"Mio"}


def test_dry_run_shows_the_entries_and_writes_nothing(gurps, tmp_path):
    log = write_log(tmp_path, GURPS_SESSION)
    before = ledger_size(gurps)
    summary = gurps.json("import-log", log, "--ccfolia", "--map", "すずね=鈴音", "--dry-run")
    assert counts(summary) == GURPS_EXPECTED and summary["dry_run"] is True
    assert [e["total"] for e in summary["entries"] if e["kind"] == "roll"] == [row[3] for row in GURPS_ROLLS]
    assert summary["first_seq"] is None
    human = gurps.run("import-log", log, "--ccfolia", "--dry-run")
    assert "(すずね): 3D6<=12 [1,4,6] = 11 success  « 回避 »" in human.stdout
    assert "would record 12 entries" in human.stdout
    assert ledger_size(gurps) == before
    # and a real import afterwards still records everything
    assert gurps.json("import-log", log, "--ccfolia")["recorded"] == GURPS_EXPECTED["recorded"]


def test_scenario_option_tags_the_entries(gurps, tmp_path):
    gurps.run("scenario", "start", "第一話", "--with", "鈴音")
    gurps.run("scenario", "end")
    log = write_log(tmp_path, GURPS_SESSION[:3])
    assert "no scenario #7" in gurps.error("import-log", log, "--ccfolia", "--scenario", "7", code=1)
    summary = gurps.json("import-log", log, "--ccfolia", "--scenario", "1")
    assert summary["scenario"] == 1
    assert {e["scenario"] for e in imported(gurps)} == {1}
    assert len(gurps.json("history", "--scenario", "1", "--kind", "roll")) == 2


def test_history_marks_imported_entries(gurps, tmp_path):
    gurps.run("import-log", write_log(tmp_path, GURPS_SESSION[:5]), "--ccfolia")
    gurps.run("roll", "3D6<=12", "--dice", "1,2,3")
    out = gurps.run("history", "--csv").stdout.splitlines()
    sources = [line.split(",")[13] for line in out[1:5]]
    assert sources == ["manual", "ccfolia", "ccfolia", "ccfolia"]
    table = gurps.run("history", "--limit", "5").stdout
    assert "ccfolia" in table
    assert "CRT=13" in table  # a table read from a log has no dice to show


def test_refusals_change_nothing(gurps, tmp_path):
    log = write_log(tmp_path, GURPS_SESSION)
    before = ledger_size(gurps)
    assert "--ccfolia" in gurps.error("import-log", log, code=2)
    assert "no character named 'だれ'" in gurps.error("import-log", log, "--ccfolia", "--map", "すずね=だれ", code=1)
    assert "--map" in gurps.error("import-log", log, "--ccfolia", "--map", "すずね", code=2)
    assert "cannot read" in gurps.error("import-log", str(tmp_path / "missing.html"), "--ccfolia", code=2)
    assert "cannot read" in gurps.error("import-log", str(tmp_path), "--ccfolia", code=2)
    not_a_log = tmp_path / "notes.txt"
    not_a_log.write_text("ただのメモ 3D6<=12", encoding="utf-8")
    assert "this is not a ココフォリア export" in gurps.error("import-log", str(not_a_log), "--ccfolia", code=2)
    binary = tmp_path / "image.html"
    binary.write_bytes(bytes(range(256)) * 50)
    gurps.error("import-log", str(binary), "--ccfolia", code=2)
    assert ledger_size(gurps) == before


# --- pieces out ---


def test_gurps_piece_carries_stats_pools_and_a_palette_line_per_check(gurps):
    gurps.run("char", "set", "鈴音", "--stat", "DX=12")
    gurps.run("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")  # FEAR 23: a phobia
    out = gurps.run("char", "export", "鈴音", "--ccfolia").stdout
    assert len(out.splitlines()) == 1
    piece = json.loads(out)
    assert piece["kind"] == "character"
    data = piece["data"]
    view = gurps.json("char", "show", "鈴音")
    assert data["name"] == "鈴音"
    assert {p["label"]: p["value"] for p in data["params"]} == {k: str(v) for k, v in view["stats"].items()}
    assert data["status"] == [{"label": "HP", "value": 11, "max": 11}, {"label": "FP", "value": 11, "max": 11}]
    assert "PL: Aki" in data["memo"] and "暗所恐怖症" in data["memo"]
    lines = data["commands"].split("\n")
    assert lines[0] == "3D6<={Will} 恐怖判定"
    checks = [stat for stat in view["stats"] if stat not in ("HP", "FP")]
    for stat in checks:
        assert lines.count(f"3D6<={{{stat}}} 【{stat}】判定") == 1
    assert lines[1 + len(checks) :] == ["CRT", "FMB", "HCRT", "YSCRT", "YSFMB", "YFMB", "FEAR"]
    assert data["initiative"] == 12 and data["externalUrl"] == ""


def test_third_edition_sheet_derives_will_and_pools(gurps):
    gurps.run("char", "add", "古狸", "--npc", "--stat", "IQ=9", "--stat", "ST=14", "--stat", "HT=12")
    data = json.loads(gurps.run("char", "export", "古狸", "--ccfolia").stdout)["data"]
    assert data["status"] == [{"label": "HP", "value": 12, "max": 12}, {"label": "FP", "value": 14, "max": 14}]
    assert data["commands"].split("\n")[0] == "3D6<={IQ} 恐怖判定"


def test_all_pieces_and_2d6_palette(cli):
    cli.run("init", "2d6卓", "--ruleset", "2d6-ja")
    cli.run("char", "add", "ミオ", "--npc", "--stat", "心=3", "--stat", "技=2", "--stat", "体=1", "--stat", "感=2")
    cli.run("char", "add", "ソウ", "--npc", "--stat", "心=1")
    lines = cli.run("char", "export", "--all", "--ccfolia").stdout.splitlines()
    pieces = [json.loads(line) for line in lines]
    assert [p["data"]["name"] for p in pieces] == ["ソウ", "ミオ"]
    mio = pieces[1]["data"]
    assert mio["commands"].split("\n") == [
        "2D6+{心}>={目標値} 【心】判定",
        "2D6+{技}>={目標値} 【技】判定",
        "2D6+{体}>={目標値} 【体】判定",
        "2D6+{感}>{目標値} 【感】判定",
    ]
    assert {"label": "目標値", "value": "10"} in mio["params"]
    assert cli.json("char", "export", "--all", "--ccfolia") == pieces


def test_export_refusals(gurps):
    assert "--ccfolia" in gurps.error("char", "export", "鈴音", code=2)
    assert "--all" in gurps.error("char", "export", "--ccfolia", code=2)
    assert "--all" in gurps.error("char", "export", "鈴音", "--all", "--ccfolia", code=2)
    assert "--copy" in gurps.error("char", "export", "--all", "--ccfolia", "--copy", code=2)
    assert "だれ" in gurps.error("char", "export", "だれ", "--ccfolia", code=1)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_copy_uses_a_clipboard_tool_when_there_is_one(gurps, tmp_path, monkeypatch):
    tool = tmp_path / "bin" / "xclip"
    tool.parent.mkdir()
    tool.write_text(f"#!/bin/sh\nexec /bin/cat > {tmp_path / 'clipboard'}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tool.parent))
    result = gurps.run("char", "export", "鈴音", "--ccfolia", "--copy")
    assert "copied with xclip" in result.stderr
    assert json.loads((tmp_path / "clipboard").read_text(encoding="utf-8")) == json.loads(result.stdout)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert "no clipboard tool" in gurps.run("char", "export", "鈴音", "--ccfolia", "--copy").stderr


def test_another_system_s_repeat_is_one_line_never_half_recorded(gurps, tmp_path):
    """`x10 CCB<=50` whose answers carry plain 成功/失敗 (readable as 1D100 rolls): the
    whole message is another system's line; none of its ten results is an entry."""
    answers = "\n\n".join(f"#{k}\n(1D100<=50) ＞ {k * 9} ＞ {'成功' if k * 9 <= 50 else '失敗'}" for k in range(1, 11))
    log = write_log(
        tmp_path,
        [
            ("main", "すずね", f"x10 CCB<=50\n{answers}"),
            (
                "main",
                "すずね",
                "x2 3D6<=12\n#1\n"
                "(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)\n\n#2\n"
                "(3D6<=12) ＞ 3[1,1,1] ＞ 3 ＞ クリティカル(成功度：9)",
            ),
        ],
    )
    before = ledger_size(gurps)
    summary = gurps.json("import-log", log, "--ccfolia", "--map", "すずね=鈴音")
    assert (summary["messages"], summary["other_system"], summary["rolls"], summary["recorded"]) == (2, 1, 2, 2)
    assert ledger_size(gurps) == before + 2
    assert [(e["expression"], e["total"]) for e in imported(gurps)] == [("3D6<=12", 12), ("3D6<=12", 3)]
