"""Reading the record at the table: `char show --at/--before` in the
sheet's order, the history "when" column never split inside a date, a missing
character's case on `char show`, and `campaign demo` leaving nothing in the selection file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from campaign.cli.app import app


def test_show_at_keeps_the_sheets_order(gurps):
    gurps.run(
        "char",
        "add",
        "白露",
        "--npc",
        "--stat",
        "ST=9",
        "--stat",
        "DX=14",
        "--stat",
        "IQ=11",
        "--stat",
        "HT=10",
        "--stat",
        "Move=6",
    )
    seq = gurps.json("char", "set", "白露", "--stat", "DX=15")["seq"]
    now = list(gurps.json("char", "show", "白露")["stats"])
    assert now == ["ST", "DX", "IQ", "HT", "Move"]
    assert list(gurps.json("char", "show", "白露", "--before", str(seq))["stats"]) == now
    shown = gurps.run("char", "show", "白露", "--at", str(seq)).stdout
    assert "stats     ST 9  DX 15  IQ 11  HT 10  Move 6" in shown


def test_a_missing_characters_sheet_says_since_odds_and_searchers(gurps):
    gurps.run("char", "relate", "刀矢", "鈴音")
    marked = gurps.json("missing", "mark", "鈴音", "--reason", "霧の中")
    gurps.run("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    sheet = gurps.json("char", "show", "鈴音")
    assert sheet["status"] == "missing"
    assert {k: sheet["missing"][k] for k in ("since_seq", "reason", "faces", "odds", "searchers")} == {
        "since_seq": marked["seq"],
        "reason": "霧の中",
        "faces": 6,
        "odds": "needs <= 2 on 1d6 (33%)",
        "searchers": ["刀矢"],
    }
    text = gurps.run("char", "show", "鈴音").stdout
    line = next(line for line in text.splitlines() if line.startswith("missing"))
    assert f"since #{marked['seq']} (" in line and "霧の中); needs <= 2 on 1d6 (33%)" in text
    assert "searching: 刀矢" in text
    assert gurps.json("char", "show", "刀矢")["missing"] is None
    assert gurps.json("char", "show", "鈴音", "--at", str(marked["seq"]))["missing"]["searchers"] == []


def test_history_dates_stay_whole_at_80_columns(sqlite_gurps, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    for i in range(3):
        sqlite_gurps.run(
            "roll", "3D6<=12", "とても長い理由の説明がここに入る" * 3, "--char", "鈴音", "--dice", f"{i + 1},2,3"
        )
    sqlite_gurps.run("history", "void", "--last", "--reason", "長い理由" * 10, "--yes")
    out = sqlite_gurps.run("history").stdout
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    dated = [line for line in out.splitlines() if "20" in line and "-" in line]
    assert dated and all(_whole_date(line) for line in dated), out


def _whole_date(line: str) -> bool:
    import re

    return re.search(r"\b\d{4}-\d{2}-\d{2}\b", line) is not None or re.search(r"\d{4}-\d", line) is None


@pytest.mark.slow  # the whole tour, some seconds
def test_the_demo_leaves_no_trace_in_the_selection_file(tmp_path):
    from platformdirs import user_config_dir

    selection = Path(user_config_dir("campaign", appauthor=False)) / "selected.json"
    assert os.environ.get("XDG_CONFIG_HOME")  # the autouse fixture isolates it
    for _ in range(2):
        result = CliRunner().invoke(app, ["demo"])
        assert result.exit_code == 0, result.output[-2000:]
    assert selection.exists()  # the tour's `init` selected its campaign there, then the demo took it back
    left = json.loads(selection.read_text(encoding="utf-8"))
    assert not [key for key in left if "campaign-demo-" in key], left
