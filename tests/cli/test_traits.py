"""`trait ...` and `condition ...`: every change a voidable ledger entry.

CP rule: gaining a trait adds its CP to the CP total; removing (buying off) takes it back
out, so buying off a -10 CP disadvantage raises the total by 10.
"""

from __future__ import annotations


def traits(cli, name="鈴音"):
    return [
        (t["name"], t["category"], t["cp"], t["counts_toward_limit"]) for t in cli.json("trait", "list", name)["traits"]
    ]


def test_add_rename_remove_and_void_each(gurps):
    added = gurps.json("trait", "add", "鈴音", "戦闘即応", "--cp", "15")
    assert (added["trait"]["category"], added["cp_total"]) == ("advantage", 115)
    gurps.run("trait", "add", "鈴音", "好奇心", "--cp", "-5", "--category", "mental", "--no-counts")
    gurps.run("trait", "add", "鈴音", "甘党", "--cp", "-1")
    assert traits(gurps) == [
        ("戦闘即応", "advantage", 15, True),
        ("好奇心", "mental", -5, False),
        ("甘党", "quirk", -1, True),
    ]
    listed = gurps.json("trait", "list", "鈴音")
    assert listed["cp_total"] == 109
    assert listed["traits"][0]["source_seq"] == added["seq"]

    renamed = gurps.json("trait", "rename", "鈴音", "甘党", "甘いもの好き")
    assert (renamed["before"], renamed["trait"]["name"]) == ("甘党", "甘いもの好き")
    removed = gurps.json("trait", "remove", "鈴音", "好奇心", "--reason", "買い戻し")
    assert removed["cp_total"] == 114  # -5 bought off: +5
    entry = gurps.json("history", "show", str(removed["seq"]))
    assert (entry["kind"], entry["reason"], entry["character"]) == ("trait", "買い戻し", "鈴音")
    assert [op["op"] for op in entry["ops"]] == ["trait_removed", "cp_delta"]

    gurps.run("history", "void", "--yes", str(removed["seq"]), "--reason", "まだ買えない")
    gurps.run("history", "void", "--yes", str(renamed["seq"]), "--reason", "元の名前で")
    assert traits(gurps) == [
        ("戦闘即応", "advantage", 15, True),
        ("好奇心", "mental", -5, False),
        ("甘党", "quirk", -1, True),
    ]
    gurps.run("history", "void", "--yes", str(added["seq"]), "--reason", "持っていない")
    view = gurps.json("char", "show", "鈴音")
    assert view["cp_total"] == 94
    assert [t["name"] for t in view["traits"]] == ["好奇心", "甘党"]


def test_names_are_unique_per_character(sqlite_gurps):
    sqlite_gurps.run("trait", "add", "鈴音", "Curious", "--cp", "-5")
    before = sqlite_gurps.json("history", "--all")
    assert "already has a trait" in sqlite_gurps.error("trait", "add", "鈴音", "curious", "--cp", "-5", code=1)
    sqlite_gurps.run("trait", "add", "鈴音", "Honest", "--cp", "-5")
    before = sqlite_gurps.json("history", "--all")
    assert "already has a trait" in sqlite_gurps.error("trait", "rename", "鈴音", "Honest", "CURIOUS", code=1)
    assert "no trait named" in sqlite_gurps.error("trait", "rename", "鈴音", "Brave", "X", code=1)
    assert "Curious, Honest" in sqlite_gurps.error("trait", "remove", "鈴音", "Brave", "--reason", "x", code=1)
    assert sqlite_gurps.json("history", "--all") == before
    sqlite_gurps.run("trait", "add", "刀矢", "Curious", "--cp", "-5")  # another character may


def test_a_removed_name_can_be_reused_but_void_refuses_a_clash(sqlite_gurps):
    sqlite_gurps.run("trait", "add", "鈴音", "Curious", "--cp", "-5")
    removed = sqlite_gurps.json("trait", "remove", "鈴音", "Curious", "--reason", "bought off")
    sqlite_gurps.run("trait", "add", "鈴音", "Curious", "--cp", "-10")
    message = sqlite_gurps.error("history", "void", "--yes", str(removed["seq"]), "--reason", "x", code=1)
    assert "depend on it" in message and "already has a trait named 'Curious'" in message


def test_bad_input(sqlite_gurps):
    sqlite_gurps.error("trait", "remove", "鈴音", "X", code=2)  # --reason is required
    assert "--reason" in sqlite_gurps.error("trait", "remove", "鈴音", "X", "--reason", " ", code=2)
    assert "--cp" in sqlite_gurps.error("trait", "add", "鈴音", "X", "--cp", "9999999", code=2)
    assert "empty" in sqlite_gurps.error("trait", "add", "鈴音", " ", "--cp", "1", code=2)
    assert "no character" in sqlite_gurps.error("trait", "list", "誰", code=1)


def test_rename_a_fright_placeholder(sqlite_gurps):
    fright = sqlite_gurps.json("fright", "鈴音", "--mod", "-13", "--dice", "6,6,5,1,1,1")  # 22: a delusion
    placeholder = fright["traits_added"][0]["name"]
    assert placeholder == f"未命名の妄想 (#{fright['seq']})"
    sqlite_gurps.run("trait", "rename", "鈴音", placeholder, "鏡の中に誰かいる")
    [(name, category, cp, counts)] = traits(sqlite_gurps)
    assert (name, category, cp, counts) == ("鏡の中に誰かいる", "delusion", -10, False)
    # the rename depends on the check: voiding the check takes the rename with it (--cascade)
    assert "depend on it" in sqlite_gurps.error("history", "void", "--yes", str(fright["seq"]), "--reason", "x", code=1)
    sqlite_gurps.run("history", "void", "--yes", "--cascade", str(fright["seq"]), "--reason", "x")
    assert traits(sqlite_gurps) == []
    assert sqlite_gurps.json("char", "show", "鈴音")["cp_total"] == 100


def test_conditions_list_clear_and_void(gurps):
    first = gurps.json("fright", "鈴音", "--mod", "-1", "--dice", "6,6,5,1,1,1,4")  # 10: stunned 4 turns
    gurps.run("fright", "鈴音", "--mod", "-8", "--dice", "6,6,5,1,1,1,5")  # 17: unconscious 5 minutes
    gurps.run("fright", "鈴音", "--dice", "6,6,5,1,1,1")  # 9: stunned 1 turn
    listed = gurps.json("condition", "list", "鈴音")["conditions"]
    assert [(c["name"], c["duration"], c["detail"]["label_ja"]) for c in listed] == [
        ("stun", "4 turns", "朦朧"),
        ("unconscious", "5 minutes", "気絶"),
        ("stun", "1 turn", "朦朧"),
    ]
    assert listed[0]["source_seq"] == first["seq"]

    cleared = gurps.json("condition", "clear", "鈴音", "朦朧", "--reason", "意思判定に成功")
    assert [c["name"] for c in cleared["cleared"]] == ["stun", "stun"]
    assert [c["name"] for c in gurps.json("condition", "list", "鈴音")["conditions"]] == ["unconscious"]
    entry = gurps.json("history", "show", str(cleared["seq"]))
    assert (entry["kind"], entry["reason"]) == ("condition", "意思判定に成功")

    before = gurps.json("history", "--all")
    assert "conditions: unconscious" in gurps.error("condition", "clear", "鈴音", "stun", code=1)
    assert gurps.json("history", "--all") == before

    gurps.run("history", "void", "--yes", str(cleared["seq"]), "--reason", "まだ朦朧")
    assert [c["name"] for c in gurps.json("condition", "list", "鈴音")["conditions"]] == ["stun", "unconscious", "stun"]
    gurps.run("condition", "clear", "鈴音", "UNCONSCIOUS")
    assert [c["name"] for c in gurps.json("char", "show", "鈴音")["conditions"]] == ["stun", "stun"]


def test_human_output(sqlite_gurps):
    assert "CP total 99" in sqlite_gurps.run("trait", "add", "鈴音", "甘党", "--cp", "-1").stdout
    out = sqlite_gurps.run("trait", "list", "鈴音").stdout
    assert "甘党" in out and "quirk" in out and "CP total 99" in out
    sqlite_gurps.run("fright", "鈴音", "--mod", "-1", "--dice", "6,6,5,1,1,1,4")
    out = sqlite_gurps.run("condition", "list", "鈴音").stdout
    assert "stunned" in out and "4 turns" in out and "朦朧" not in out
    assert "朦朧" in sqlite_gurps.run("--lang", "ja", "condition", "list", "鈴音").stdout
