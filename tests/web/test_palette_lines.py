"""A table line that is a fright check runs the fright check: read by
services.checks.palette_lines (plain values), then tapped on the page over real HTTP (SQLite and
PostgreSQL), writing the same entries and trait as `campaign fright`."""

from __future__ import annotations

import pytest

from campaign.services.checks.palette_lines import FearLine, FrightLine, line_command
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_table_server import head, table  # noqa: F401 (fixtures)


@pytest.mark.parametrize(
    ("line", "meant"),
    [
        ("3D6<=13 恐怖判定", FrightLine(13, 0, False, "恐怖判定")),
        ("3D6<=13-4 恐怖判定（強い恐怖症）", FrightLine(13, 0, True, "恐怖判定（強い恐怖症）")),
        ("3d6<=11 - 2 fright check", FrightLine(11, -2, False, "fright check")),
        ("３Ｄ６＜＝１２＋１ 恐怖判定 地下室", FrightLine(12, 1, False, "恐怖判定 地下室")),
        ("FEAR+5", FearLine(5, None)),
        ("fear5 地下室", FearLine(5, "地下室")),
        ("FEAR", FearLine(0, None)),
        ("3D6<=13 聞き耳", None),
        ("3D6<=13", None),
        ("2D6>=8 恐怖判定", None),
        ("CRT", None),
        ("FEARLESS", None),
    ],
)
def test_which_lines_are_fright_checks(line, meant):
    assert line_command(line) == meant


def sheet(cli):
    shown = cli.json("char", "show", "鈴音")
    return [(t["name"][:4], t["category"], t["cp"]) for t in shown["traits"]], shown["cp_total"]


def test_a_palette_fright_line_runs_the_fright_check_as_the_cli_does(table):
    cli, _, faces, browser = table
    aki = browser("Aki")
    palette = next(c for c in aki.http.get("/api/table").json()["characters"] if c["name"] == "鈴音")["palette"]
    assert palette[0] == "3D6<=11 恐怖判定"  # her Will 11, as the palette's first button reads
    before = head(cli)
    faces[:] = [6, 6, 6, 6, 5, 5]  # 18 against 11: fails by 7; 16 + 7 = 23 on the table, a phobia
    tapped = aki.post("/api/rolls", {"command": palette[0], "character": "鈴音"})
    assert tapped.status_code == 201, tapped.text
    entry = tapped.json()
    assert (entry["seq"], entry["kind"], entry["expression"], entry["dice"], entry["outcome"], entry["actor"]) == (
        before + 1,
        "fright",
        "3D6<=11",
        [6, 6, 6],
        "critical_failure",
        "Aki",
    )
    written = cli.json("history", "--limit", "5")
    assert [(e["seq"], e["kind"], e["parent_seq"]) for e in reversed(written) if e["seq"] > before][:2] == [
        (before + 1, "fright", None),
        (before + 2, "fright", before + 1),
    ]
    record = cli.json("history", "show", str(before + 1))
    assert record["detail"]["table"]["raw"] == 23 and record["reason"] == "恐怖判定"
    # the same dice through `campaign fright` on a copy of the sheet before: the same effects
    page_traits = sheet(cli)
    cli.run("history", "void", str(before + 1), "--reason", "比較", "--yes")
    cli.run("fright", "鈴音", "--reason", "恐怖判定", "--dice", "6,6,6,6,5,5")
    assert sheet(cli) == page_traits

    def effects(shown: dict) -> list[dict]:  # a placeholder names its entry's seq
        return [{k: v for k, v in e.items() if k not in ("name", "origin")} for e in shown["detail"]["effects"]]

    assert effects(cli.json("history", "show", str(head(cli) - 1))) == effects(record)


def test_a_severe_phobia_line_and_fear_plus_n_write_the_trait(table):
    cli, _, faces, browser = table
    aki = browser("Aki")
    before = head(cli)
    faces[:] = [6, 5, 5, 6, 5, 5]  # 16 against 11 - 2: fails by 7; 16 + 7 = 23, a phobia
    tapped = aki.post("/api/rolls", {"command": "3D6<=11-2 恐怖判定", "character": "鈴音"})
    assert tapped.status_code == 201, tapped.text
    assert (tapped.json()["expression"], tapped.json()["outcome"]) == ("3D6<=9", "failure")
    traits = cli.json("char", "show", "鈴音")["traits"]
    assert len(traits) == 1 and traits[0]["name"].startswith("未命名の") and traits[0]["source_seq"] == before + 1
    faces[:] = [6, 5, 5]  # FEAR+7: 16 + 7 = 23 again
    fear = aki.post("/api/rolls", {"command": "FEAR+7", "character": "鈴音"})
    assert fear.status_code == 201, fear.text
    shown = fear.json()
    assert (shown["kind"], shown["expression"], shown["dice"], shown["total"], shown["source"]) == (
        "fright",
        "FEAR+7",
        [6, 5, 5],
        23,
        "server",
    )
    assert len(cli.json("char", "show", "鈴音")["traits"]) == 2
    cli.run("history", "verify")


def test_a_fright_line_without_a_character_is_a_plain_roll_and_a_dead_one_is_refused(table):
    cli, _, faces, browser = table
    gm = browser("GM", "--gm")
    faces[:] = [1, 2, 3]
    plain = gm.post("/api/rolls", {"command": "3D6<=11 恐怖判定", "character": None})
    assert plain.status_code == 201 and plain.json()["kind"] == "roll"
    cli.run("char", "kill", "刀矢", "--reason", "倒れた")
    before = head(cli)
    refused = gm.post("/api/rolls", {"command": "3D6<=11 恐怖判定", "character": "刀矢"})
    assert refused.status_code == 409 and "\n" not in refused.json()["error"]
    assert head(cli) == before and faces == []
