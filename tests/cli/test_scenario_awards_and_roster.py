"""The GM's desk: who `scenario end --award` pays, and a roster that
changes while a scenario is open (`scenario join` / `scenario leave`).

The `gurps` party (conftest): players Aki and Ren, PCs 鈴音 (Aki) and 刀矢 (Ren), NPC 管狐.
Every roster change is an op: voided, replayed by `history verify`, carried by export.
"""

from __future__ import annotations

from tests.cli.conftest import Cli
from tests.cli.test_gm_lifecycle import verified, void


def awarded(ended: dict) -> list[tuple[str, int]]:
    return [(a["character"], a["cp_total"]) for a in ended["awards"]]


def test_award_goes_to_pcs_then_searchers_and_npcs_on_request(gurps):
    gurps.run("char", "relate", "刀矢", "鈴音")
    gurps.run("missing", "mark", "鈴音")
    gurps.run("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    # the PC participants only: 管狐 is an NPC, 刀矢 was searching
    ended = gurps.json("scenario", "end", "--award", "2", "--dice", "鈴音=6")
    assert awarded(ended) == []
    gurps.run("scenario", "start", "二話", "--with", "管狐")
    ended = gurps.json("scenario", "end", "--award", "3", "--searchers", "--npcs", "--dice", "鈴音=1")
    assert awarded(ended) == [("管狐", 3), ("刀矢", 103)]  # 刀矢 came back at this end, still paid
    assert ended["reunions"][0]["success"] is True
    gurps.run("scenario", "start", "三話", "--with", "鈴音", "--with", "管狐")
    assert awarded(gurps.json("scenario", "end", "--award", "1", "--searchers")) == [("鈴音", 101)]
    verified(gurps)
    assert "--award" in gurps.error("scenario", "end", "--npcs", code=2)


def test_join_and_leave_an_open_scenario(gurps):
    assert "no scenario is open" in gurps.error("scenario", "join", "鈴音", code=1)
    gurps.run("scenario", "start", "一話", "--with", "刀矢")
    joined = gurps.json("scenario", "join", "鈴音")
    assert (joined["action"], joined["participants"]) == ("join", ["鈴音", "刀矢"])
    assert "already takes part" in gurps.error("scenario", "join", "鈴音", code=1)
    out = gurps.run("scenario", "leave", "刀矢")
    assert out.stdout.startswith("刀矢 leaves scenario #1 一話 (ledger #")
    assert "does not take part" in gurps.error("scenario", "leave", "刀矢", code=1)
    assert gurps.json("scenario", "show")["participants"] == ["鈴音"]
    verified(gurps)
    # voiding the leave puts 刀矢 back; voiding the join takes 鈴音 out
    done = void(gurps, out_seq(gurps, "leave"))
    assert "刀矢: takes part in scenario #1 again" in done["reversed"]
    done = void(gurps, joined["seq"])
    assert "鈴音: no longer takes part in scenario #1" in done["reversed"]
    shown = gurps.json("scenario", "show")
    assert shown["participants"] == ["刀矢"]
    assert [(r["character"], r["action"], r["voided_by"] is not None) for r in shown["roster"]] == [
        ("鈴音", "join", True),
        ("刀矢", "leave", True),
    ]
    assert f"joined        鈴音 (ledger #{joined['seq']}, voided by #" in gurps.run("scenario", "show").stdout
    verified(gurps)
    gurps.run("scenario", "join", "鈴音")
    assert awarded(gurps.json("scenario", "end", "--award", "2")) == [("鈴音", 102), ("刀矢", 102)]
    verified(gurps)


def test_a_missing_character_cannot_join_and_roster_survives_export(gurps, tmp_path):
    gurps.run("missing", "mark", "鈴音")
    gurps.run("scenario", "start", "一話", "--with", "刀矢")
    assert "missing" in gurps.error("scenario", "join", "鈴音", code=1)
    gurps.run("scenario", "join", "管狐")
    gurps.run("scenario", "leave", "刀矢")
    file = str(tmp_path / "c.jsonl")
    gurps.run("export", file)
    copy = Cli(str(tmp_path / "copy.db"))
    copy.run("import", file)
    assert copy.json("scenario", "show")["participants"] == ["管狐"]
    verified(copy)


def out_seq(cli: Cli, action: str) -> int:
    entries = cli.json("history", "--kind", "scenario")
    return next(e["seq"] for e in entries if (e["detail"] or {}).get("action") == action)
