"""Campaign time, timed conditions, follow-up penalties (docs/rules.md "Penalty after waking"), damage and healing, 3e
derived stats ("Derived stats") and the escalated phobia's CP split at the limit ("Fright check"), end to end
with exact dice. Every change: applied, voided alone, refused under a dependent then
cascaded, and `history verify` equal to the replay."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Cli

HOUR, DAY = 3600, 86400


def verified(cli: Cli) -> None:
    report = cli.json("history", "verify")
    assert report["ok"] and report["state"]["ok"], report


def void(cli: Cli, seq: int, *extra: str):
    return cli.json("history", "void", "--yes", *extra, str(seq), "--reason", "test")


def refused_void(cli: Cli, seq: int, dependent: int) -> None:
    before = cli.json("history", "--all")
    message = cli.error("history", "void", "--yes", str(seq), "--reason", "test", code=1)
    assert f"#{dependent}" in message and "--cascade" in message
    assert cli.json("history", "--all") == before


def third_setup(cli: Cli) -> Cli:
    """A GURPS 3e sheet: ST/DX/IQ/HT only (Will = IQ, FP = ST, HP = HT)."""
    cli.run("init", "三版卓")
    cli.run("player", "add", "Aki")
    cli.run(
        "char",
        "add",
        "千早",
        "--player",
        "Aki",
        "--stat",
        "ST=10",
        "--stat",
        "DX=11",
        "--stat",
        "IQ=12",
        "--stat",
        "HT=11",
        "--cp",
        "100",
    )
    cli.run("char", "add", "狐", "--npc", "--stat", "Will=10")
    return cli


@pytest.fixture
def third(cli) -> Cli:
    return third_setup(cli)


def clock(cli: Cli) -> int:
    return cli.json("time", "show")["now"]["clock"]


def conditions(cli: Cli, name: str = "千早") -> list[tuple]:
    return [
        (c["name"], c["until"]["clock"] if c["until"] else None)
        for c in cli.json("condition", "list", name)["conditions"]
    ]


# --- derived stats (docs/rules.md "Derived stats") ---


def test_a_3e_sheet_rolls_fright_against_iq_and_entry_40_lowers_the_derived_will(third):
    shown = third.json("char", "show", "千早")
    assert shown["derived"] == {
        "Will": {"value": 12, "from": "IQ"},
        "FP": {"value": 10, "from": "ST"},
        "HP": {"value": 11, "from": "HT"},
    }
    assert shown["pools"] == {"FP": {"max": 10, "current": 10}, "HP": {"max": 11, "current": 11}}
    # target 12 - 20 = -8; 18 fails by 26; table 6+6+2 + 26 = 40
    result = third.json("fright", "千早", "--mod", "-20", "--dice", "6,6,6,6,6,2")
    check = result["check"]
    assert (check["will"], check["will_stat"], check["will_derived_from"], check["target"]) == (12, "IQ", "IQ", -8)
    assert result["table"]["entry"] == 40
    after = third.json("char", "show", "千早")
    assert after["stats"]["IQ"] == 11 and after["derived"]["Will"] == {"value": 11, "from": "IQ"}
    assert after["cp_total"] == 70
    out = " ".join(third.run("char", "show", "千早").stdout.split())
    assert "derived Will 11 (= IQ) FP 10 (= ST) HP 11 (= HT)" in out and "HP 11/11 (max = HT)" in out
    verified(third)
    void(third, result["seq"])
    assert third.json("char", "show", "千早")["derived"]["Will"]["value"] == 12
    verified(third)


def test_entry_31_ht_loss_lowers_the_derived_hp_max_and_the_seizure_runs_out(third):
    # 18 vs 4: margin 14, table 6+6+5 + 14 = 31; seizure 1D=3 minutes, 2D=4 FP, HT roll 18 (fumble): 1D=4 HP, HT -1
    result = third.json("fright", "千早", "--mod", "-8", "--dice", "6,6,6,6,6,5,3,2,2,6,6,6,4")
    assert result["table"]["entry"] == 31
    fatigue, injury = result["effects"][1], result["effects"][2]
    assert (fatigue["before"], fatigue["after"], fatigue["max"], fatigue["derived_from"]) == (10, 6, 10, "ST")
    assert (injury["before"], injury["after"], injury["derived_from"]) == (11, 7, "HT")
    after = third.json("char", "show", "千早")
    assert after["stats"]["HT"] == 10
    assert after["pools"] == {"FP": {"max": 10, "current": 6}, "HP": {"max": 10, "current": 7}}
    seizure = result["effects"][0]
    assert (seizure["condition"], seizure["timed"], seizure["until_clock"]) == ("seizure", True, 180)
    assert conditions(third) == [("seizure", 180)]

    advanced = third.json("time", "advance", "5m")
    assert [(e["name"], e["until"]["clock"]) for e in advanced["ended"]] == [("seizure", 180)]
    assert advanced["to"]["clock"] == 300 and conditions(third) == []
    verified(third)
    refused_void(third, result["seq"], advanced["seq"])  # the advance ended the fright's seizure
    voided = void(third, result["seq"], "--cascade")
    assert voided["cascade"] == [advanced["seq"]]
    assert clock(third) == 0 and third.json("char", "show", "千早")["stats"]["HT"] == 11
    verified(third)


def test_fright_on_a_sheet_without_will_or_iq_is_refused(third):
    third.run("char", "add", "影", "--npc", "--stat", "DX=10", "--stat", "HT=10")
    before = third.json("history", "--all")
    assert "nor IQ to derive it from" in third.error("fright", "影", "--dice", "1,1,1", code=1)
    assert third.json("history", "--all") == before


# --- damage and healing ---


def test_damage_and_heal_on_derived_pools(third):
    hit = third.json("char", "damage", "千早", "hp", "5", "--reason", "爪")
    assert (hit["pool"], hit["before"], hit["after"], hit["max"], hit["derived_from"]) == ("HP", 11, 6, 11, "HT")
    heal = third.json("char", "heal", "千早", "HP", "10")
    assert (heal["requested"], heal["change"], heal["after"]) == (10, 5, 11)  # stops at the maximum
    before = third.json("history", "--all")
    assert "nothing to heal" in third.error("char", "heal", "千早", "HP", "1", code=1)
    assert third.json("history", "--all") == before
    tired = third.json("char", "damage", "千早", "FP", "12")
    assert (tired["after"], tired["max"]) == (-2, 10)  # GURPS lets FP go below zero
    entry = third.json("history", "show", str(hit["seq"]))
    assert (entry["kind"], entry["reason"], [op["op"] for op in entry["ops"]]) == ("damage", "爪", ["pool_delta"])
    verified(third)

    refused_void(third, hit["seq"], heal["seq"])  # without the damage the heal would pass the maximum
    void(third, heal["seq"])
    assert third.json("char", "show", "千早")["pools"]["HP"] == {"max": 11, "current": 6}
    verified(third)
    void(third, hit["seq"])
    assert third.json("char", "show", "千早")["pools"] == {
        "FP": {"max": 10, "current": -2},
        "HP": {"max": 11, "current": 11},
    }
    heal2 = third.json("char", "heal", "千早", "FP", "3")
    hit2 = third.json("char", "damage", "千早", "FP", "1")
    refused_void(third, tired["seq"], heal2["seq"])
    voided = void(third, tired["seq"], "--cascade")
    assert voided["cascade"] == [heal2["seq"]]
    assert third.json("char", "show", "千早")["pools"]["FP"] == {"max": 10, "current": 9}  # hit2 stays
    assert hit2["seq"] > heal2["seq"]
    verified(third)


def test_damage_bad_input_and_refusals(third):
    assert "HP or FP" in third.error("char", "damage", "千早", "MP", "1", code=2)
    assert "1 to" in third.error("char", "damage", "千早", "HP", "0", code=2)
    assert "nor HT" in third.error("char", "damage", "狐", "HP", "1", code=1)
    assert "no character" in third.error("char", "heal", "誰", "HP", "1", code=1)


# --- timed conditions and time ---


def test_a_timed_condition_runs_out_with_time_and_comes_back_with_the_void(third):
    added = third.json("condition", "add", "千早", "poisoned", "--for", "6h", "--reason", "毒蛇")
    cond = added["condition"]
    assert (cond["duration"], cond["timed"], cond["until"]["clock"], cond["until"]["text_ja"]) == (
        "6 hours",
        True,
        6 * HOUR,
        "1日目 06:00",
    )
    first = third.json("time", "advance", "3h")
    assert first["ended"] == [] and first["to"]["text"] == "day 1 03:00"
    [listed] = third.json("condition", "list", "千早")["conditions"]
    assert (listed["remaining_seconds"], listed["remaining"], listed["remaining_ja"]) == (3 * HOUR, "3 hours", "3時間")
    second = third.json("time", "advance", "4h", "--reason", "移動")
    assert [(e["name"], e["lasted_seconds"]) for e in second["ended"]] == [("poisoned", 6 * HOUR)]
    assert clock(third) == 7 * HOUR and conditions(third) == []
    entry = third.json("history", "show", str(second["seq"]))
    assert entry["kind"] == "time" and [op["op"] for op in entry["ops"]] == [
        "clock_advanced",
        "condition_cleared",
        "clock_advanced",
    ]
    assert [op.get("seconds") for op in entry["ops"]] == [3 * HOUR, None, HOUR]
    verified(third)

    void(third, second["seq"])
    assert clock(third) == 3 * HOUR and conditions(third) == [("poisoned", 6 * HOUR)]
    verified(third)
    third.run("time", "advance", "3h")
    latest = third.json("history", "--all")[0]["seq"]
    refused_void(third, added["seq"], latest)
    voided = void(third, added["seq"], "--cascade")
    assert voided["cascade"] == [latest]
    assert clock(third) == 3 * HOUR and conditions(third) == []
    assert [t["character"] for t in third.json("time", "show")["timed"]] == []
    verified(third)


def test_an_expiring_condition_starts_its_follow_up_where_it_ended(third):
    third.run("condition", "add", "千早", "faint", "--for", "10m", "--then-penalty", "-2", "--then-for", "1h")
    half = third.json("time", "advance", "30m")
    assert [e["name"] for e in half["ended"]] == ["faint"]
    [started] = half["started"]
    assert (started["name"], started["since"]["clock"], started["until"]["clock"]) == ("recovering", 600, 4200)
    assert started["detail"]["penalty"] == -2 and started["detail"]["follows"] == "faint"
    assert conditions(third) == [("recovering", 4200)]
    void(third, half["seq"])
    assert conditions(third) == [("faint", 600)]
    # one long advance: the faint ends at 00:10, its penalty at 01:10, both within the two hours
    whole = third.json("time", "advance", "2h")
    assert [(e["name"], e["until"]["clock"]) for e in whole["ended"]] == [("faint", 600), ("recovering", 4200)]
    assert conditions(third) == [] and clock(third) == 2 * HOUR
    entry = third.json("history", "show", str(whole["seq"]))
    assert [op["op"] for op in entry["ops"]] == [
        "clock_advanced",
        "condition_cleared",
        "condition_added",
        "clock_advanced",
        "condition_cleared",
        "clock_advanced",
    ]
    out = third.run("time", "advance", "1turns").stdout
    assert "day 2" not in out and "day 1 02:00 → day 1 02:00:01" in out
    verified(third)


def test_light_coma_cleared_starts_six_hours_at_minus_two(third):
    # 18 vs 4: margin 14; table 5+5+4 + 14 = 28: light coma
    out = third.run("--lang", "ja", "fright", "千早", "--mod", "-8", "--dice", "6,6,6,5,5,4").stdout
    assert "回復後 6時間 全判定-2" in out and "after recovering" not in out
    seq = next(e["seq"] for e in third.json("history", "--all") if e["kind"] == "fright" and e["parent_seq"] is None)
    third.run("history", "void", str(seq), "--yes", "--reason", "test")
    out = third.run("fright", "千早", "--mod", "-8", "--dice", "6,6,6,5,5,4").stdout
    assert "-2 to all rolls for 6 hours after recovering" in out and "回復後" not in out
    seq = next(
        e["seq"]
        for e in third.json("history", "--all")
        if e["kind"] == "fright" and e["parent_seq"] is None and e["voided_by"] is None
    )
    coma = third.json("history", "show", str(seq))["detail"]["effects"][0]
    assert (coma["condition"], coma["timed"], coma["after_penalty"], coma["after_duration"]) == (
        "light_coma",
        False,
        -2,
        6,
    )

    third.json("time", "advance", "2h")  # a coma never runs out by itself
    assert conditions(third) == [("light_coma", None)]
    cleared = third.json("condition", "clear", "千早", "浅い昏睡", "--reason", "生命力判定に成功")
    [follow] = cleared["follow_ups"]
    assert (follow["name"], follow["label_ja"], follow["since"]["clock"], follow["until"]["text_ja"]) == (
        "recovering",
        "回復後の不調",
        2 * HOUR,
        "1日目 08:00",
    )
    assert follow["detail"]["summary_ja"] == "浅い昏睡から回復後 6時間 全判定-2"
    assert conditions(third) == [("recovering", 8 * HOUR)]
    expired = third.json("time", "advance", "6h")
    assert [e["name"] for e in expired["ended"]] == ["recovering"]
    verified(third)

    refused_void(third, cleared["seq"], expired["seq"])
    void(third, cleared["seq"], "--cascade")
    assert conditions(third) == [("light_coma", None)] and clock(third) == 2 * HOUR
    verified(third)


def test_catatonia_penalty_lasts_as_many_days_as_the_catatonia(third):
    # table 6+5+5 + 14 = 30: catatonia for 1D = 3 days
    result = third.json("fright", "千早", "--mod", "-8", "--dice", "6,6,6,6,5,5,3")
    catatonia = result["effects"][0]
    assert (catatonia["condition"], catatonia["duration"], catatonia["after_duration"]) == ("catatonia", 3, "same")
    from campaign.core.applied_effects import applied_effect
    from campaign.effect_words import both, effect_lines

    ja, en = both(effect_lines, "千早", applied_effect(catatonia))
    assert "回復後 同じ日数 全判定-2" in ja[0] and "for as many days as it lasted" in en[0]

    quick = third.json("condition", "clear", "千早", "catatonia")  # the clock never moved: the rolled 3 days
    assert quick["follow_ups"][0]["until"]["clock"] == 3 * DAY and quick["follow_ups"][0]["detail"]["lasted"] == 3
    void(third, quick["seq"])

    waited = third.json("time", "advance", "5day")
    [due] = waited["recovery_due"]
    assert (due["name"], due["recovery_due"]["text_ja"]) == ("catatonia", "4日目 00:00")
    late = third.json("condition", "clear", "千早", "硬直")  # days 4 and 5: the HT roll was due
    assert late["follow_ups"][0]["detail"]["lasted"] == 3
    assert late["follow_ups"][0]["until"]["clock"] == 8 * DAY
    void(third, late["seq"])
    told = third.json("condition", "clear", "千早", "catatonia", "--lasted", "4日")
    assert told["follow_ups"][0]["detail"]["lasted"] == 4
    assert told["follow_ups"][0]["duration"] == "4 days"
    verified(third)


def _catatonic_b(third: Cli) -> dict:
    """B (IQ 11, HT 10): Will 11 -10 = 1, 18 fails by 17; the table 6+6+1 + 17 = 30,
    catatonia for 1D = 3 days."""
    third.run("char", "add", "B", "--player", "Aki", "--stat", "IQ=11", "--stat", "HT=10", "--stat", "ST=10")
    return third.json("fright", "B", "--mod", "-10", "--dice", "6,6,6,6,6,1,3")


def test_catatonia_drains_only_its_rolled_days(third):
    effect = _catatonic_b(third)["effects"][0]
    assert (effect["condition"], effect["duration"]) == ("catatonia", 3)
    first = third.json("time", "advance", "3day")
    assert [(d["day"], d["hp"], d["after"]) for d in first["hp_drains"]] == [(1, 1, 9), (2, 2, 7), (3, 3, 4)]
    assert [d["name"] for d in first["recovery_due"]] == ["catatonia"]
    later = third.json("time", "advance", "1day")  # the HT roll is due: no 「硬直4日目 HP-4」
    assert later.get("hp_drains", []) == [] and [d["name"] for d in later["recovery_due"]] == ["catatonia"]
    out = third.run("time", "advance", "1day").stdout
    assert "drain" not in out and "catatonia" in out
    hp = third.json("char", "show", "B")["pools"]["HP"]
    assert (hp["max"], hp["current"]) == (10, 4)
    verified(third)


def test_one_long_time_jump_drains_no_more_than_the_rolled_days(third):
    _catatonic_b(third)
    jump = third.json("time", "advance", "30day")
    assert [(d["day"], d["hp"]) for d in jump["hp_drains"]] == [(1, 1), (2, 2), (3, 3)]
    assert third.json("char", "show", "B")["pools"]["HP"]["current"] == 4
    void(third, jump["seq"])
    assert third.json("char", "show", "B")["pools"]["HP"]["current"] == 10
    verified(third)


def test_the_penalty_after_catatonia_lasts_its_rolled_days_with_one_label(third):
    _catatonic_b(third)
    third.run("time", "advance", "3day")
    third.run("time", "advance", "1day")
    cleared = third.json("condition", "clear", "B", "catatonia")
    [started] = cleared["follow_ups"]
    assert (started["detail"]["lasted"], started["duration"]) == (3, "3 days")
    assert started["until"]["clock"] == 7 * DAY  # cleared on day 5 (clock 4 days) + 3 days
    checked = third.json("check", "ability", "B", "IQ", "--target", "10", "--dice", "3,4")
    assert checked["terms"] == [{"label": "IQ", "value": 11}, {"label": "recovering", "value": -2}]  # a code
    ja = third.run("--lang", "ja", "check", "ability", "B", "IQ", "--target", "10", "--dice", "3,4").stdout
    en = third.run("--lang", "en", "check", "ability", "B", "IQ", "--target", "10", "--dice", "3,4").stdout
    assert "- 回復後の不調 2" in ja and "recovering" not in ja
    assert "- recovering 2" in en and "回復後" not in en
    verified(third)


def test_scenario_end_can_advance_time(third):
    third.run("condition", "add", "千早", "bruised", "--for", "12h")
    third.run("scenario", "start", "霧の館", "--with", "千早")
    ended = third.json("scenario", "end", "--elapsed", "1day")
    time = ended["time"]
    assert time["to"]["clock"] == DAY and [e["name"] for e in time["ended"]] == ["bruised"]
    entry = third.json("history", "show", str(time["seq"]))
    assert (entry["kind"], entry["scenario"], entry["reason"]) == ("time", 1, "scenario #1 ends")
    void(third, time["seq"])  # the time alone; the scenario stays ended
    assert clock(third) == 0 and conditions(third) == [("bruised", 12 * HOUR)]
    assert third.json("scenario", "list")[0]["ended_seq"] == ended["seq"]
    verified(third)


def test_time_and_condition_bad_input_change_nothing(third):
    before = third.json("history", "--all")
    assert "unknown unit" in third.error("time", "advance", "6x", code=2)
    assert "no time at all" in third.error("time", "advance", "0h", code=2)
    assert "--for" in third.error("condition", "add", "千早", "poisoned", "--for", "soon", code=2)
    assert "go together" in third.error("condition", "add", "千早", "x", "--then-penalty", "-2", code=2)
    assert "no active condition" in third.error("condition", "clear", "千早", "poisoned", code=1)
    assert "--lasted" in third.error("condition", "clear", "千早", "x", "--lasted", "long", code=2)
    assert third.json("history", "--all") == before


def test_human_output_of_time_and_conditions(third):
    third.run("condition", "add", "千早", "poisoned", "--for", "6h")
    third.run("condition", "add", "千早", "stun")
    out = third.run("condition", "list").stdout
    assert "千早" in out and "poisoned" in out and "day 1 06:00" in out and "until cleared" in out
    out = third.run("--lang", "ja", "condition", "list", "千早").stdout
    assert "千早 の状態 (現在 1日目 00:00)" in out and "1日目 06:00 (残り6時間)" in out and "解除まで" in out
    out = third.run("time", "show").stdout
    assert "now: day 1 00:00" in out and "poisoned" in out and "6 hours" in out
    japanese = third.run("--lang", "ja", "time", "show").stdout
    assert (
        japanese.startswith("現在: 1日目 00:00\n時間制限のある状態") and "poisoned" in japanese and "6時間" in japanese
    )
    result = third.run("time", "advance", "7h")
    assert "ended  千早: poisoned (at day 1 06:00)" in result.stdout
    assert result.stdout.startswith("time advances 7 hours: day 1 00:00 → day 1 07:00 (ledger #")
    third.run("condition", "add", "千早", "poisoned", "--for", "1h")
    result = third.run("--lang", "ja", "time", "advance", "2h")
    assert result.stdout.startswith("時間が 2時間 進みました: 1日目 07:00 → 1日目 09:00 (台帳 #")
    assert "終了  千早: poisoned (1日目 08:00)" in result.stdout
    csv_rows = third.run("condition", "list", "千早", "--csv").stdout.splitlines()
    assert csv_rows[0] == "condition,duration,since,until,from #" and csv_rows[1].startswith("stunned,")


# --- docs/rules.md "Fright check": an escalated phobia's CP, partly outside the limit ---


def limits(cli: Cli) -> list[tuple]:
    return [(t["name"], t["cp"], t["limit_cp"], t["unlimited_cp"]) for t in cli.json("trait", "list", "千早")["traits"]]


def test_only_the_escalated_part_of_a_gm_phobia_is_outside_the_limit(third):
    third.run("trait", "add", "千早", "暗所恐怖症", "--cp", "-10", "--category", "phobia")
    # 18 vs 4: margin 14; table 4+4+3 + 14 = 25: the mild phobia doubles
    result = third.json("fright", "千早", "--mod", "-8", "--pick", "暗所恐怖症", "--dice", "6,6,6,4,4,3")
    escalation = result["effects"][0]
    assert (escalation["kind"], escalation["limit_cp"], escalation["unlimited_cp"]) == ("phobia_escalation", -10, -10)
    assert limits(third) == [("暗所恐怖症", -20, -10, -10)]
    assert third.json("char", "show", "千早")["cp_total"] == 80
    assert "-10 CP toward the limit, -10 CP outside" in " ".join(third.run("char", "show", "千早").stdout.split())
    out = third.run("fright", "千早", "--dice", "1,1,1").stdout  # a pass, just to see nothing moved
    assert "nothing happens" in out
    assert "trait_unlimited" in [op["op"] for op in third.json("history", "show", str(result["seq"]))["ops"]]
    verified(third)
    void(third, result["seq"])
    assert limits(third) == [("暗所恐怖症", -10, -10, 0)]
    verified(third)


def test_a_fright_phobia_escalated_stays_wholly_outside_and_voids_cascade(third):
    # table 3+3+3 + 14 = 23: a mild phobia (outside the limit)
    first = third.json("fright", "千早", "--mod", "-8", "--pick", "高所恐怖症", "--dice", "6,6,6,3,3,3")
    assert limits(third) == [("高所恐怖症", -10, 0, -10)]
    second = third.json("fright", "千早", "--mod", "-8", "--pick", "高所恐怖症", "--dice", "6,6,6,4,4,3")
    assert limits(third) == [("高所恐怖症", -20, 0, -20)]
    out = third.run("trait", "list", "千早").stdout
    assert "outside limit" in out and "-20" in out
    refused_void(third, first["seq"], second["seq"])
    void(third, first["seq"], "--cascade")
    assert limits(third) == []
    verified(third)


# --- export and import carry the clock, timed conditions and the split ---


def test_export_import_keeps_time_and_limits(tmp_path, db_url):
    source = third_setup(Cli(str(tmp_path / "source.db")))
    source.run("trait", "add", "千早", "暗所恐怖症", "--cp", "-10", "--category", "phobia")
    source.run("fright", "千早", "--mod", "-8", "--pick", "暗所恐怖症", "--dice", "6,6,6,4,4,3")
    source.run("condition", "add", "千早", "poisoned", "--for", "1day")
    source.run("time", "advance", "2h")
    source.run("char", "damage", "千早", "HP", "3")
    path = tmp_path / "out.jsonl"
    source.run("export", str(path))
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert header["campaign"]["clock"] == 2 * HOUR
    target = Cli(db_url)
    target.run("import", str(path))
    assert target.json("char", "show", "千早") == source.json("char", "show", "千早")
    assert target.json("time", "show") == source.json("time", "show")
    verified(target)


# --- the new columns are part of the projection: a direct edit is named by verify ---

NEW_COLUMN_EDITS = {
    "clock": ("UPDATE campaigns SET clock = clock + 60", "campaign", "clock"),
    "until": ("UPDATE conditions SET until_clock = until_clock + 1", "conditions", "until_clock"),
    "since": ("UPDATE conditions SET since_clock = 5", "conditions", "since_clock"),
    "unlimited": ("UPDATE traits SET unlimited_cp = 0", "traits", "unlimited_cp"),
}


@pytest.mark.parametrize("edit", sorted(NEW_COLUMN_EDITS))
def test_a_direct_edit_of_a_new_column_fails_verify(third, db_url, edit):
    from tests.integration.rawdb import execute

    third.run("time", "advance", "1h")
    third.run("condition", "add", "千早", "poisoned", "--for", "6h")
    third.run("fright", "千早", "--mod", "-8", "--pick", "高所恐怖症", "--dice", "6,6,6,3,3,3")  # a fright phobia
    verified(third)
    sql, table, column = NEW_COLUMN_EDITS[edit]
    execute(db_url, sql, ())
    report = third.json("history", "verify", expect=1)
    assert not report["ok"] and (report["state"]["table"], report["state"]["column"]) == (table, column), report
