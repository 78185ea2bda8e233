"""Free text carries no terminal control sequences and names nothing invisible; output is
safe to show (terminal, JSON) and to open in a spreadsheet (CSV)."""

from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest

from tests.cli.conftest import Cli
from tests.integration.rawdb import raw_connection

INVISIBLE_NAMES = [
    "鈴\u200b音",  # zero-width space
    "鈴\u200d音",  # zero-width joiner
    "\u202e音鈴",  # right-to-left override
    "鈴\u2066音",  # bidi isolate
    "\ufeff鈴音",  # BOM / zero-width no-break space
    "鈴\u00ad音",  # soft hyphen (invisible, category Cf)
    "鈴\x85音",  # C1 next line
    "鈴\x9b31m音",  # C1 CSI
    "鈴\x1b[31m音",  # ESC
    "鈴\u2028音",  # line separator
]


def test_names_refuse_invisible_and_control_characters(gurps):
    before = gurps.json("char", "list")
    for name in INVISIBLE_NAMES:
        assert "U+" in gurps.error("char", "add", name, "--player", "Aki", code=2)
        assert "U+" in gurps.error("player", "add", name, code=2)
        assert "U+" in gurps.error("trait", "add", "鈴音", name, "--cp", "-5", code=2)
        assert "U+" in gurps.error("--as", name, "roll", "3D6", code=2)
    assert gurps.json("char", "list") == before
    assert gurps.json("history", "--kind", "roll") == []


def test_reasons_refuse_controls_but_keep_lines_and_tabs(gurps):
    for reason in ["clear\x1b[2J", "bell\x07", "csi\x9b2J", "cr\rover", "del\x7f"]:
        assert "control characters" in gurps.error("roll", "3D6", "--reason", reason, code=2)
    assert gurps.json("history", "--kind", "roll") == []
    done = gurps.json("roll", "3D6", "--dice", "1,2,3", "--reason", "一行目\n二行目\tタブ")
    entry = gurps.json("history", "show", str(done["seq"]))
    assert entry["reason"] == "一行目\n二行目\tタブ"


def test_formulas_are_neutralised_in_csv(gurps):
    gurps.run("char", "add", '=HYPERLINK("http://x","y")', "--player", "Aki", "--cp", "-10")
    gurps.run("char", "add", "@SUM(A1)", "--player", "Aki")
    gurps.run("char", "add", "+1 Luck", "--player", "Aki")
    rows = list(csv.DictReader(io.StringIO(gurps.run("char", "list", "--csv").stdout)))
    names = {row["name"] for row in rows}
    assert {'\'=HYPERLINK("http://x","y")', "'@SUM(A1)", "'+1 Luck", "鈴音"} <= names
    assert {row["CP"] for row in rows if row["name"].startswith("'=")} == {"-10"}  # numbers stay numbers
    # JSON keeps the text exactly as stored.
    assert '=HYPERLINK("http://x","y")' in {row["name"] for row in gurps.json("char", "list")}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_controls_already_stored_are_shown_escaped(gurps, db_url):
    """Data written before these checks (or by hand) still cannot drive the terminal."""
    with raw_connection(db_url) as conn:
        conn.execute("UPDATE characters SET name = ? WHERE name = ?", ("鈴\x1b]0;pwned\x07音\x9b2J\u202e", "鈴音"))
        conn.commit()
    outputs = [
        gurps.run("char", "list").stdout,
        gurps.run("char", "list", "--csv").stdout,
        gurps.run("char", "list", "--json").stdout,
    ]
    for out in outputs:
        assert not any(ch in out for ch in "\x1b\x07\x9b\u202e"), repr(out)
    assert "鈴\\x1b]0;pwned\\x07音\\x9b2J\\u202e" in outputs[0] + outputs[1]
    assert "鈴\x1b]0;pwned\x07音\x9b2J\u202e" in {row["name"] for row in json.loads(outputs[2])}
    # An error naming it is one line, escaped too.
    result = gurps.run("char", "add", "鈴\x1b]0;pwned\x07音\x9b2J\u202e", "--player", "Aki", expect=2)
    assert "\x1b" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def _rechained(lines: list[str], old: str, new: str) -> str:
    """An export with every `old` (names in state lines and hashed records) replaced by
    `new`, every hash recomputed and the footer's head with them: what a forger who can
    compute SHA-256 hands over."""
    items = [json.loads(line) for line in lines]
    prev = "0" * 64
    for item in items:
        if item["type"] == "character" and item["name"] == old:
            item["name"] = new
        elif item["type"] == "entry":
            item["record"] = item["record"].replace(old, new)
            item["prev_hash"] = prev
            item["hash"] = prev = hashlib.sha256((prev + item["record"]).encode("utf-8")).hexdigest()
        elif item["type"] == "footer":
            item["head"] = prev
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


@pytest.mark.parametrize("name", ["A\u2028B", "A\u2029B", "鈴\u200b音", "\u202e音鈴"])
def test_an_import_refuses_a_name_char_add_refuses(cli, tmp_path, name):
    """One text rule: a chain that verifies but holds a name no command would take (an
    NPC named A<U+2028>B) is refused by import, and nothing is imported."""
    cli.run("init", "源卓")
    cli.run("char", "add", "鈴音", "--npc")
    honest = cli.run("export", "-").stdout.splitlines()
    assert "U+" in cli.error("char", "add", name, "--npc", code=2)
    forged = tmp_path / "forged.jsonl"
    forged.write_text(_rechained(honest, "鈴音", name), encoding="utf-8")
    target = Cli(str(tmp_path / "target.db"))
    message = target.error("import", str(forged), code=1)
    assert "nothing imported" in message and "U+" in message, message
    assert "\u2028" not in message and "\u202e" not in message
    assert target.json("list") == []
    # the same export with an honest name imports (the forgery is the only difference)
    fair = tmp_path / "fair.jsonl"
    fair.write_text(_rechained(honest, "鈴音", "鈴音2"), encoding="utf-8")
    target.run("import", str(fair))
    assert target.json("-c", "源卓", "history", "verify")["ok"] is True
    assert [c["name"] for c in target.json("-c", "源卓", "char", "list")] == ["鈴音2"]


def test_separators_in_stored_text_are_shown_escaped(gurps):
    """U+2028/2029 end a line for some readers: output shows them as escapes, so a
    one-line message stays one line (free text may hold them; names may not)."""
    done = gurps.json("roll", "3D6", "--dice", "1,2,3", "--reason", "一\u2028二\u2029三")
    shown = gurps.run("history", "show", str(done["seq"])).stdout
    assert "\u2028" not in shown and "\u2029" not in shown and "一\\u2028二\\u2029三" in shown
    as_json = gurps.run("history", "show", str(done["seq"]), "--json").stdout
    assert "\u2028" not in as_json and json.loads(as_json)["reason"] == "一\u2028二\u2029三"
