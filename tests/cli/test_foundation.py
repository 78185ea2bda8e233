"""Campaigns, players and characters through the CLI, on SQLite and PostgreSQL."""

from __future__ import annotations


def test_init_creates_and_selects(cli):
    created = cli.json("init", "夜桜", "--ruleset", "2d6-ja")
    assert created["name"] == "夜桜" and created["ruleset"] == "2d6-ja"
    cli.run("init", "second")
    listed = cli.json("list")
    assert [(c["name"], c["selected"]) for c in listed] == [("second", True), ("夜桜", False)]
    cli.run("use", "夜桜")
    assert [c["name"] for c in cli.json("list") if c["selected"]] == ["夜桜"]
    # `use` picks the campaign that later commands act on
    cli.run("player", "add", "Aki")
    assert cli.json("player", "list") == [{"name": "Aki", "characters": []}]
    assert cli.json("--campaign", "second", "player", "list") == []


def test_char_show_json_has_promised_fields(gurps):
    shown = gurps.json("char", "show", "鈴音")
    assert shown == {
        "name": "鈴音",
        "kind": "pc",
        "player": "Aki",
        "summoner": None,
        "stats": {"IQ": 12, "HT": 11, "Will": 11, "FP": 11, "HP": 11},
        "derived": {},  # a 4e-style sheet gives its own Will, FP and HP (docs/rules.md "Derived stats")
        "cp_total": 100,
        "cp_awarded": 0,
        "status": "active",
        "searching_for": None,
        "skills": {},
        "notes": [],
        "items": [],  # the sheet as players write it (docs/sheets.md)
        "traits": [],
        "conditions": [],
        "pools": {"FP": {"max": 11, "current": 11}, "HP": {"max": 11, "current": 11}},
        "relations": [],
        "missing": None,  # a missing character's case
    }
    npc = gurps.json("char", "show", "管狐")
    assert (npc["kind"], npc["player"], npc["summoner"]) == ("npc", None, "鈴音")


def test_japanese_stats_round_trip(cli):
    cli.run("init", "2d6", "--ruleset", "2d6-ja")
    cli.run("player", "add", "ミカ")
    cli.run("char", "add", "灯", "--player", "ミカ", "--stat", "心=3", "--stat", "技=2", "--stat", "体=4")
    assert cli.json("char", "show", "灯")["stats"] == {"心": 3, "技": 2, "体": 4}
    cli.run("char", "set", "灯", "--stat", "技=5")
    assert cli.json("char", "show", "灯")["stats"] == {"心": 3, "技": 5, "体": 4}


def test_char_set_relate_and_list(gurps):
    gurps.run("char", "set", "刀矢", "--stat", "HT=13", "--cp", "110")
    shown = gurps.json("char", "show", "刀矢")
    assert shown["stats"]["HT"] == 13 and shown["cp_total"] == 110
    gurps.run("char", "relate", "鈴音", "刀矢", "--note", "幼馴染")
    assert gurps.json("char", "show", "刀矢")["relations"] == [{"name": "鈴音", "note": "幼馴染"}]
    assert gurps.json("char", "show", "鈴音")["relations"] == [{"name": "刀矢", "note": "幼馴染"}]
    names = [c["name"] for c in gurps.json("char", "list")]
    assert sorted(names) == sorted(["鈴音", "刀矢", "管狐"])
    assert [c["name"] for c in gurps.json("char", "list", "--status", "missing")] == []
    players = gurps.json("player", "list")
    assert players == [{"name": "Aki", "characters": ["鈴音"]}, {"name": "Ren", "characters": ["刀矢"]}]


def _snapshot(cli):
    return (cli.json("list"), cli.json("char", "list"), cli.json("player", "list"))


def test_refusals_are_one_line_and_change_nothing(gurps):
    before = _snapshot(gurps)
    cases = [
        (("init", "テスト卓"), 1, "already exists"),
        (("player", "add", "Aki"), 1, "already exists"),
        (("char", "add", "鈴音", "--player", "Aki"), 1, "already exists"),
        (("char", "add", "X", "--player", "Nobody"), 1, "no player named 'Nobody'"),
        (("char", "show", "Nobody"), 1, "no character named 'Nobody'"),
        (("--campaign", "nope", "char", "list"), 1, "no campaign named 'nope'"),
        (("char", "add", "X", "--player", "Aki", "--stat", "IQ"), 2, "expected KEY=VALUE"),
        (("char", "add", "X", "--player", "Aki", "--stat", "IQ=twelve"), 2, "not a whole number"),
        (("char", "add", "X", "--player", "Aki", "--stat", "IQ=1.5"), 2, "not a whole number"),
        (("char", "add", "Y", "--npc", "--summoner", "管狐"), 1, "summoner must be a PC"),
        (("char", "add", "Z", "--npc", "--summoner", "Nobody"), 1, "no character named 'Nobody'"),
        (("char", "add", "W"), 2, "needs --player"),
        (("char", "relate", "鈴音", "鈴音"), 1, "itself"),
        (("char", "set", "鈴音", "--stat", "HT=x"), 2, "not a whole number"),
        (("char", "add", "", "--player", "Aki"), 2, "must not be empty"),
        (("char", "add", "a" * 201, "--player", "Aki"), 2, "too long"),
        (("init", "x", "--ruleset", "dnd"), 2, "unknown ruleset"),
    ]
    for args, code, text in cases:
        message = gurps.error(*args, code=code)
        assert text in message, (args, message)
        assert len(message.splitlines()) == 1, message
    assert _snapshot(gurps) == before


def test_several_campaigns_need_a_choice(cli, monkeypatch, tmp_path):
    cli.run("init", "a")
    cli.run("init", "b")
    # Forget the selection made by init: with two campaigns, the tool asks which one.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "elsewhere"))
    assert "several campaigns" in cli.error("char", "list", code=1)
