"""The table page's free box (POST /api/rolls) takes a repeat as the CLI does: `x3 3D6<=12`
(`rep3`, `repeat3`, `3 3D6<=12`) is one entry a roll, written in the request's one
transaction, echoed in the answer's `entries`; a retry with the same key gets them back
without rolling; a refused repeat writes nothing. Over real HTTP, SQLite and PostgreSQL.
"""

from __future__ import annotations

import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_table_server import head, table  # noqa: F401 (fixture)


@pytest.mark.parametrize("command", ["x3 3D6<=12", "rep3 3D6<=12", "repeat3 3D6<=12", "3 3D6<=12"])
def test_a_repeat_in_the_free_box_is_one_entry_a_roll(table, command):
    cli, _base, faces, browser = table
    aki = browser("Aki")
    before = head(cli)
    faces[:] = [3, 4, 5, 1, 1, 1, 6, 6, 6]
    rolled = aki.post("/api/rolls", {"command": f"{command} 回避", "character": "鈴音"}, key="repeat-0001")
    assert rolled.status_code == 201, rolled.text
    answer = rolled.json()
    assert (answer["seq"], answer["dice"], answer["outcome"], answer["replayed"]) == (
        before + 1,
        [3, 4, 5],
        "success",
        False,
    )
    assert [(e["seq"], e["dice"], e["total"], e["outcome"]) for e in answer["entries"]] == [
        (before + 1, [3, 4, 5], 12, "success"),
        (before + 2, [1, 1, 1], 3, "critical_success"),
        (before + 3, [6, 6, 6], 18, "critical_failure"),
    ]
    assert head(cli) == before + 3
    for seq in (before + 1, before + 2, before + 3):
        entry = cli.json("history", "show", str(seq))
        assert (entry["kind"], entry["actor"], entry["character"], entry["reason"], entry["source"]) == (
            "roll",
            "Aki",
            "鈴音",
            "回避",
            "server",
        )
        assert entry["detail"]["via"]["session"]
    again = aki.post("/api/rolls", {"command": f"{command} 回避", "character": "鈴音"}, key="repeat-0001")
    assert again.status_code == 200 and again.json()["replayed"] is True
    assert [e["seq"] for e in again.json()["entries"]] == [before + 1, before + 2, before + 3]
    assert head(cli) == before + 3 and cli.json("history", "verify")["ok"] is True


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_refused_repeat_in_the_free_box_is_one_line_and_writes_nothing(table):
    cli, _base, faces, browser = table
    aki = browser("Aki")
    before = head(cli)
    faces[:] = [1] * 30
    for command, words in (
        ("x101 3D6<=12", "repeat count must be 1..100, not 101"),
        ("x2 x2 2D6", "a repeat cannot repeat another repeat: x2 2D6"),
        ("x2 3D6<=ほげ", None),
    ):
        refused = aki.post("/api/rolls", {"command": command, "character": "鈴音"})
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert "\n" not in error and (words is None or words in error), error
    # a repeat for a character that is not the player's: refused before any roll
    assert aki.post("/api/rolls", {"command": "x2 3D6", "character": "刀矢"}).status_code == 403
    assert head(cli) == before and len(faces) == 30
