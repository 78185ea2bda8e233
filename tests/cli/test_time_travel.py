"""`char show --at/--before` and `char timeline`: the sheet as the table saw it then."""

from __future__ import annotations

import csv
import io


def _played(cli):
    """鈴音 gains 暗所恐怖症 (-10) at a fright check, has IQ changed, then the check is voided."""
    cli.run("init", "卓")
    cli.run("player", "add", "Aki")
    add = cli.json(
        "char",
        "add",
        "鈴音",
        "--player",
        "Aki",
        "--stat",
        "Will=11",
        "--stat",
        "IQ=12",
        "--stat",
        "HT=11",
        "--stat",
        "FP=11",
        "--stat",
        "HP=11",
        "--cp",
        "150",
    )
    fright = cli.json("fright", "鈴音", "--dice", "6,6,6,6,6,6", "--pick", "暗所恐怖症")
    stat = cli.json("char", "set", "鈴音", "--stat", "IQ=11")
    void = cli.json("history", "void", str(fright["seq"]), "--reason", "wrong character", "--yes")
    return add["seq"], fright["seq"], stat["seq"], void["seq"]


def test_show_at_and_before_a_fright_check(cli):
    added, fright, stat, void = _played(cli)
    before = cli.json("char", "show", "鈴音", "--before", str(fright))
    after = cli.json("char", "show", "鈴音", "--at", str(fright))
    assert before["as_of"] == fright - 1 and after["as_of"] == fright
    assert before["cp_total"] == 150 and before["traits"] == []
    assert after["cp_total"] == 140
    assert [(t["name"], t["cp"], t["counts_toward_limit"]) for t in after["traits"]] == [("暗所恐怖症", -10, False)]
    # The void came later: as the ledger stood after the check, the phobia was there.
    assert cli.json("char", "show", "鈴音", "--at", str(stat))["stats"]["IQ"] == 11
    now = cli.json("char", "show", "鈴音")
    at_head = cli.json("char", "show", "鈴音", "--at", str(void))
    assert at_head.pop("as_of") == void and at_head == now
    assert now["cp_total"] == 150 and now["traits"] == []
    human = cli.run("char", "show", "鈴音", "--at", str(fright))
    assert "暗所恐怖症" in human.stdout and f"after entry #{fright}" in human.stdout


def test_show_at_refuses_what_cannot_be(cli):
    added, fright, _, void = _played(cli)
    assert "did not exist yet" in cli.error("char", "show", "鈴音", "--before", str(added), code=1)
    assert "no ledger entry #999" in cli.error("char", "show", "鈴音", "--at", "999", code=1)
    assert "no ledger entry #0" in cli.error("char", "show", "鈴音", "--at", "0", code=1)
    assert "one of --at" in cli.error("char", "show", "鈴音", "--at", "3", "--before", "4", code=2)
    assert "no character named" in cli.error("char", "show", "誰か", "--at", "3", code=1)


def test_timeline_lists_each_change_with_the_void(cli):
    added, fright, stat, void = _played(cli)
    rows = cli.json("char", "timeline", "鈴音")
    assert [r["seq"] for r in rows] == [added, fright, stat, void]
    by_seq = {r["seq"]: r for r in rows}
    assert [c["text"] for c in by_seq[fright]["changes"]] == ["CP 150 → 140", "+暗所恐怖症 -10"]
    assert by_seq[fright]["voided_by"] == void
    assert [c["text"] for c in by_seq[stat]["changes"]] == ["IQ 12 → 11"]
    assert [c["text"] for c in by_seq[void]["changes"]] == ["CP 140 → 150", "-暗所恐怖症 (-10)"]
    assert by_seq[void]["kind"] == "void" and by_seq[void]["voids_seq"] == fright
    table = list(csv.reader(io.StringIO(cli.run("char", "timeline", "鈴音", "--csv").stdout)))
    assert table[0] == ["seq", "at", "actor", "kind", "voided_by", "what", "name", "before", "after", "change"]
    assert [str(fright), "GM", "fright", str(void), "cp", "CP", "150", "140", "CP 150 → 140"] == [
        table[2][0],
        *table[2][2:],
    ]
    human = cli.run("char", "timeline", "鈴音").stdout
    assert "+暗所恐怖症 -10" in human and f"✗#{void}" in human


def test_timeline_of_pools_and_conditions(sqlite_gurps):
    cli = sqlite_gurps
    # Will 11: 3D6 = 16 fails by 5; FEAR 3D6 = 9, +5 = 14: lose 1D (3) FP and stun 1D (2) turns.
    check = cli.json("fright", "鈴音", "--dice", "6,5,5,3,3,3,3,2")
    row = cli.json("char", "timeline", "鈴音")[-1]
    assert row["seq"] == check["seq"] and row["kind"] == "fright"
    texts = [c["text"] for c in row["changes"]]
    assert "FP 11 → 8" in texts
    stun = [c for c in row["changes"] if c["what"] == "condition"]
    assert len(stun) == 1 and stun[0]["before"] is None
    assert cli.json("char", "show", "鈴音", "--at", str(check["seq"]))["pools"]["FP"] == {"max": 11, "current": 8}
    assert cli.json("char", "show", "鈴音", "--before", str(check["seq"]))["pools"]["FP"] == {"max": 11, "current": 11}
    assert cli.json("char", "timeline", "刀矢")[-1]["changes"][0]["what"] == "character"
