"""Fright checks (docs/rules.md "Fright check") end to end: the real CLI, a real database, exact dice.

鈴音 (the `gurps` fixture): Will 11, HT 11, IQ 12, FP 11, HP 11, CP 100.

Every table entry 4..40: `--mod 9-v` makes the target 20-v; the check dice 6,6,5 (17)
fail by v-3 and the table dice 1,1,1 land on v; the entry's own dice follow. The
character is then compared with what the entry's data says, and `history void`
must restore it exactly. The per-entry run is SQLite only (the sqlite_gurps fixture);
a few entries also run on both backends below.
"""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli

START = {"stats": {"IQ": 12, "HT": 11, "Will": 11, "FP": 11, "HP": 11}, "cp": 100}
HT_FAIL, HT_PASS, HT_FUMBLE = [4, 4, 4], [1, 2, 3], [6, 6, 6]


def placeholder(label: str, seq: int) -> str:
    return f"未命名の{label} (#{seq})"


def case(extra=(), conditions=(), traits=(), fp=11, hp=11, stats=None):
    """Expected results of an entry: conditions (name, duration), traits (label, category, cp)."""
    cp = 100 + sum(t[2] for t in traits)
    return {
        "extra": list(extra),
        "conditions": list(conditions),
        "traits": list(traits),
        "fp": fp,
        "hp": hp,
        "stats": {**START["stats"], **(stats or {})},
        "cp": cp,
    }


STUN1 = ("stun", "1 turn")
COMA = ("coma", "until recovered (HT roll every hour)")
CASES = {
    4: case(conditions=[STUN1]),
    5: case(conditions=[STUN1]),
    6: case(conditions=[STUN1]),
    7: case(conditions=[STUN1]),
    8: case(conditions=[STUN1]),
    9: case(conditions=[STUN1]),
    10: case([4], [("stun", "4 turns")]),
    11: case([3, 5], [("stun", "8 turns")]),
    12: case([], [("stun", "15 turns")]),
    13: case(traits=[("癖", "quirk", -1)]),
    14: case([2, 5], [("stun", "5 turns")], fp=9),
    15: case([6, 1], [STUN1], fp=5),
    16: case([3], [("stun", "3 turns")], traits=[("癖", "quirk", -1)]),
    17: case([6], [("unconscious", "6 minutes")]),
    18: case(HT_FAIL + [2], [("unconscious", "2 minutes")], hp=10),
    19: case([5, 3, 4], [("unconscious", "7 minutes")], hp=6),
    20: case([1, 2, 3, 4, 6], [("faint", "10 minutes")], fp=5),
    21: case([3], [("panic", "3 minutes")]),
    22: case(traits=[("妄想", "delusion", -10)]),
    23: case(traits=[("恐怖症", "phobia", -10)]),
    24: case(traits=[("肉体的特徴", "physical", -15)]),
    25: case(traits=[("精神的特徴", "mental", -10)]),
    26: case(HT_FAIL + [3], [("unconscious", "3 minutes")], [("妄想", "delusion", -10)], hp=10),
    27: case(HT_PASS + [1], [("unconscious", "1 minute")], [("恐怖症", "phobia", -10)]),
    28: case(conditions=[("light_coma", "until recovered (HT roll every 30 minutes)")]),
    29: case(conditions=[COMA]),
    30: case([4], [("catatonia", "4 days")]),
    31: case([2, 3, 4] + HT_FAIL + [5], [("seizure", "2 minutes")], fp=4, hp=6),
    32: case([6, 6], [("heart_attack", "until recovered (as the GM rules)")], hp=-1),  # HP may go negative
    33: case([3, 4, 5], [("major_panic", "until recovered (IQ roll)")]),
    34: case(traits=[("強い妄想", "severe delusion", -15)]),
    35: case(traits=[("強い恐怖症", "severe phobia", -15)]),
    36: case(traits=[("肉体的特徴", "physical", -20)]),
    37: case(traits=[("肉体的特徴", "physical", -30)]),
    38: case(conditions=[COMA], traits=[("強い妄想", "severe delusion", -15)]),
    39: case(conditions=[COMA], traits=[("強い恐怖症", "severe phobia", -30)]),
    40: case(conditions=[COMA], traits=[("強い恐怖症", "severe phobia", -30)], stats={"IQ": 11, "Will": 10}),
}


def fright_for(value: int) -> list[str]:
    return [
        "fright",
        "鈴音",
        "--mod",
        str(9 - value),
        "--dice",
        ",".join(map(str, [6, 6, 5, 1, 1, 1, *CASES[value]["extra"]])),
    ]


def assert_state(view: dict, expected: dict, seq: int) -> None:
    assert view["stats"] == expected["stats"]
    assert view["cp_total"] == expected["cp"]
    assert view["pools"] == {"FP": {"max": 11, "current": expected["fp"]}, "HP": {"max": 11, "current": expected["hp"]}}
    assert [(c["name"], c["duration"], c["source_seq"]) for c in view["conditions"]] == [
        (name, duration, seq) for name, duration in expected["conditions"]
    ]
    assert [(t["name"], t["category"], t["cp"], t["counts_toward_limit"], t["source_seq"]) for t in view["traits"]] == [
        (placeholder(label, seq), category, cp, False, seq) for label, category, cp in expected["traits"]
    ]


def check_entry(cli: Cli, value: int) -> None:
    expected = CASES[value]
    before = cli.json("char", "show", "鈴音")
    result = cli.json(*fright_for(value))
    seq = result["seq"]
    assert result["check"] == {
        **result["check"],
        "target": 20 - value,
        "dice": [6, 6, 5],
        "total": 17,
        "margin": 3 - value,
    }
    assert result["check"]["outcome"] in ("failure", "critical_failure")
    assert {k: result["table"][k] for k in ("dice", "raw", "entry")} == {
        "dice": [1, 1, 1],
        "raw": value,
        "entry": value,
    }
    assert result["sub_rolls"][0]["purpose"] == "table"
    assert [face for sub in result["sub_rolls"][1:] for face in sub["dice"]] == expected["extra"]
    assert [s["seq"] for s in result["sub_rolls"]] == list(range(seq + 1, seq + 1 + len(result["sub_rolls"])))
    assert [(t["name"], t["category"], t["cp"]) for t in result["traits_added"]] == [
        (placeholder(label, seq), category, cp) for label, category, cp in expected["traits"]
    ]
    after = cli.json("char", "show", "鈴音")
    assert_state(after, expected, seq)
    assert result["character_after"] == after
    # The ledger holds the check and every die it needed.
    shown = cli.json("history", "show", str(seq))
    assert (shown["kind"], shown["expression"], shown["dice"], shown["outcome"]) == (
        "fright",
        f"3D6<={20 - value}",
        [6, 6, 5],
        result["check"]["outcome"],
    )
    assert [s["dice"] for s in shown["sub_entries"]] == [s["dice"] for s in result["sub_rolls"]]
    assert all(s["kind"] == "fright" and s["parent_seq"] == seq for s in shown["sub_entries"])
    # Void reverses everything the check applied.
    voided = cli.json("history", "void", "--yes", str(seq), "--reason", "test")
    assert voided["voided"] == seq
    assert cli.json("char", "show", "鈴音") == before


def test_every_entry_has_a_case():
    assert sorted(CASES) == list(range(4, 41))


@pytest.mark.parametrize("value", sorted(CASES))
def test_each_table_entry_applies_its_data_and_voids(sqlite_gurps, value):
    check_entry(sqlite_gurps, value)


@pytest.mark.parametrize("value", [16, 26, 31, 40])
def test_entries_on_both_backends(gurps, value):
    check_entry(gurps, value)


# --- the check itself (docs/rules.md "Success roll" boundaries, modifiers, cap) ---


@pytest.mark.parametrize(
    "faces,mod,outcome,margin",
    [
        ("4,4,3", 0, "success", 0),  # 11 vs 11: success at the boundary
        ("4,4,4", 0, "failure", -1),  # 12 vs 11
        ("1,1,2", -10, "critical_success", -3),  # 4 always critical, even vs target 1
        ("1,2,2", 4, "critical_success", 10),  # 5 vs 15: critical
        ("1,2,2", 3, "success", 9),  # 5 vs 14: plain success
        ("2,2,2", 5, "critical_success", 10),  # 6 vs 16
        ("6,6,5", 5, "failure", -1),  # 17 vs 16: ordinary failure
    ],
)
def test_check_boundaries_success_logs_the_check_only(sqlite_gurps, faces, mod, outcome, margin):
    args = ["fright", "鈴音", "--mod", str(mod), "--dice", faces]
    if outcome == "failure":
        args[-1] += ",1,1,1"  # the table roll: 3 + margin of failure
    result = sqlite_gurps.json(*args)
    assert (result["check"]["outcome"], result["check"]["margin"]) == (outcome, margin)
    if outcome.endswith("success"):
        assert result["table"] is None and result["effects"] == [] and result["sub_rolls"] == []
        assert sqlite_gurps.json("history", "show", str(result["seq"]))["sub_entries"] == []
        assert result["character_after"]["cp_total"] == 100
    else:
        assert result["table"]["raw"] == 3 - margin


def test_critical_failure_reads_the_table_with_the_margin(gurps):
    result = gurps.json("fright", "鈴音", "--mod", "-3", "--dice", "6,6,4,1,1,1,2,3")  # 16 vs 8: not +10
    assert (result["check"]["outcome"], result["check"]["margin"]) == ("failure", -8)
    assert (result["table"]["raw"], result["table"]["entry"]) == (11, 11)
    result = gurps.json("fright", "鈴音", "--dice", "6,6,6,6,6,6")  # 18: critical, table 18 + 7 = 25
    assert result["check"]["outcome"] == "critical_failure"
    assert result["table"]["entry"] == 25


def test_table_result_is_clamped_and_raw_kept(sqlite_gurps):
    result = sqlite_gurps.json("fright", "鈴音", "--mod", "-30", "--dice", "6,6,6,6,6,6")
    assert (result["table"]["raw"], result["table"]["entry"]) == (18 + 37, 40)
    # 17 vs a Will above 17 fails automatically with no margin: 3 clamps to 4 (entry 40
    # above lowered IQ and the listed Will to 10: +9 makes the target 19)
    result = sqlite_gurps.json("fright", "鈴音", "--mod", "9", "--dice", "6,6,5,1,1,1")
    assert result["check"]["outcome"] == "failure" and result["check"]["margin"] == 2
    assert (result["table"]["raw"], result["table"]["entry"]) == (3, 4)


def test_combat_reflexes_adds_two_and_fright_cap_caps(gurps):
    gurps.run("trait", "add", "鈴音", "戦闘即応", "--cp", "15")
    result = gurps.json("fright", "鈴音", "--dice", "6,4,3")  # 13 vs 11 + 2
    assert (result["check"]["target"], result["check"]["outcome"], result["check"]["combat_reflexes"]) == (
        13,
        "success",
        True,
    )
    gurps.run("settings", "fright_cap=12")
    result = gurps.json("fright", "鈴音", "--mod", "3", "--dice", "6,4,3,1,1,1")  # 11+3+2 = 16, capped to 12
    assert (result["check"]["target"], result["check"]["cap"], result["check"]["outcome"]) == (12, 12, "failure")
    assert result["table"]["entry"] == 4
    gurps.run("settings", "fright_cap=none")
    result = gurps.json("fright", "鈴音", "--mod", "3", "--dice", "6,4,3")
    assert result["check"]["target"] == 16 and result["check"]["cap"] is None
    # case and language of the trait name do not matter
    gurps.run("trait", "remove", "鈴音", "戦闘即応", "--reason", "test")
    gurps.run("trait", "add", "鈴音", "combat reflexes", "--cp", "15")
    assert gurps.json("fright", "鈴音", "--dice", "1,1,1")["check"]["target"] == 13


def test_severe_phobia_takes_four(sqlite_gurps):
    result = sqlite_gurps.json("fright", "鈴音", "--severe-phobia", "--dice", "4,2,1")  # 7 vs 7
    assert (result["check"]["target"], result["check"]["outcome"], result["check"]["severe_phobia"]) == (
        7,
        "success",
        True,
    )


def test_fright_cap_setting_is_logged_and_voidable(sqlite_gurps):
    changed = sqlite_gurps.json("settings", "fright_cap=13")
    assert changed["settings"]["fright_cap"] == 13
    assert sqlite_gurps.json("settings")["settings"]["fright_cap"] == 13
    sqlite_gurps.run("history", "void", "--yes", str(changed["seq"]), "--reason", "wrong")
    assert sqlite_gurps.json("settings")["settings"]["fright_cap"] is None
    assert "unknown setting" in sqlite_gurps.error("settings", "criticals=off", code=2)
    assert "3..30" in sqlite_gurps.error("settings", "fright_cap=99", code=2)


# --- traits, names, choices ---


def test_pick_names_the_trait_and_cp_arithmetic(gurps):
    result = gurps.json("fright", "鈴音", "--pick", "暗闇が怖い", "--mod", "-4", "--dice", "6,6,5,1,1,1")  # 13
    added = result["traits_added"][0]
    assert (added["name"], added["category"], added["cp"], added["placeholder"]) == ("暗闇が怖い", "quirk", -1, False)
    assert result["character_after"]["cp_total"] == 99
    # 22 and 24 pile up: 99 - 10 - 15
    gurps.run("fright", "鈴音", "--mod", "-13", "--dice", "6,6,5,1,1,1")
    gurps.run("fright", "鈴音", "--mod", "-15", "--dice", "6,6,5,1,1,1")
    view = gurps.json("char", "show", "鈴音")
    assert view["cp_total"] == 74
    assert [t["cp"] for t in view["traits"]] == [-1, -10, -15]
    assert not any(t["counts_toward_limit"] for t in view["traits"])


def test_human_output_says_what_was_written(sqlite_gurps):
    out = sqlite_gurps.run(
        "--lang", "ja", "fright", "鈴音", "--pick", "暗闇が怖い", "--mod", "-4", "--dice", "6,6,5,1,1,1"
    ).stdout
    assert "3D6<=7" in out and "[6,6,5]=17" in out and "FEAR+10" in out
    assert "鈴音: 新しい癖 '暗闇が怖い' (-1 CP, 上限に数えない) を得た" in out
    assert "CP総計 100 → 99" in out and "gained" not in out  # one language per output
    sqlite_gurps.run("history", "void", "7", "--yes", "--reason", "test")
    out = sqlite_gurps.run("fright", "鈴音", "--pick", "暗闇が怖い", "--mod", "-4", "--dice", "6,6,5,1,1,1").stdout
    assert "鈴音: gained quirk '暗闇が怖い' (-1 CP, no points, not counted toward the limit)" in out
    assert "CP total 100 → 99" in out and "上限" not in out
    out = sqlite_gurps.run(
        "--lang", "ja", "fright", "鈴音", "--mod", "-1", "--dice", "6,6,5,1,1,1,4"
    ).stdout  # entry 10
    assert "朦朧 4ターン" in out and "1D" in out and "stunned" not in out
    out = sqlite_gurps.run("fright", "鈴音", "--mod", "-1", "--dice", "6,6,5,1,1,1,4").stdout
    assert "stunned for 4 turns" in out and "朦朧" not in out


def test_choice_takes_the_second_option(sqlite_gurps):
    result = sqlite_gurps.json("fright", "鈴音", "--choice", "1", "--mod", "-14", "--dice", "6,6,5,1,1,1")  # 23
    assert [(t["category"], t["cp"]) for t in result["traits_added"]] == [("mental", -10)]


def test_entry_25_escalates_the_named_mild_phobia_and_void_restores_it(gurps):
    gurps.run("trait", "add", "鈴音", "高所恐怖症", "--cp", "-10", "--category", "phobia")
    result = gurps.json("fright", "鈴音", "--pick", "高所恐怖症", "--mod", "-16", "--dice", "6,6,5,1,1,1")
    assert result["table"]["entry"] == 25
    assert result["traits_added"] == []
    [effect] = result["effects"]
    assert (effect["kind"], effect["old_cp"], effect["new_cp"], effect["category"]) == (
        "phobia_escalation",
        -10,
        -20,
        "severe phobia",
    )
    view = gurps.json("char", "show", "鈴音")
    assert view["cp_total"] == 80
    assert [(t["name"], t["category"], t["cp"], t["counts_toward_limit"]) for t in view["traits"]] == [
        ("高所恐怖症", "severe phobia", -20, True)
    ]
    # a severe phobia does not escalate again: naming it is refused; without a pick, 25 gives
    # the -10 mental trait under a placeholder
    assert "already has a trait" in gurps.error("fright", "鈴音", "--pick", "高所恐怖症", "--dice", "1,1,1", code=1)
    second = gurps.json("fright", "鈴音", "--mod", "-16", "--dice", "6,6,5,1,1,1")
    assert [(t["name"], t["cp"]) for t in second["traits_added"]] == [(placeholder("精神的特徴", second["seq"]), -10)]
    gurps.run("history", "void", "--yes", str(second["seq"]), "--reason", "test")
    gurps.run("history", "void", "--yes", str(result["seq"]), "--reason", "test")
    view = gurps.json("char", "show", "鈴音")
    assert view["cp_total"] == 90
    assert [(t["name"], t["category"], t["cp"]) for t in view["traits"]] == [("高所恐怖症", "phobia", -10)]


def test_pick_of_an_existing_trait_is_refused_before_rolling(sqlite_gurps):
    sqlite_gurps.run("trait", "add", "鈴音", "暗闇が怖い", "--cp", "-1")
    before = sqlite_gurps.json("history", "--all")
    assert "already has a trait" in sqlite_gurps.error(
        "fright", "鈴音", "--pick", "暗闇が怖い", "--dice", "6,6,5,1,1,1", code=1
    )
    assert sqlite_gurps.json("history", "--all") == before


def test_pick_of_a_mild_phobia_on_a_new_trait_entry_gets_a_placeholder(sqlite_gurps):
    sqlite_gurps.run("trait", "add", "鈴音", "高所恐怖症", "--cp", "-10", "--category", "phobia")
    result = sqlite_gurps.json("fright", "鈴音", "--pick", "高所恐怖症", "--mod", "-13", "--dice", "6,6,5,1,1,1")
    assert result["table"]["entry"] == 22
    assert [t["name"] for t in result["traits_added"]] == [placeholder("妄想", result["seq"])]
    assert result["notes"] and "placeholder" in result["notes"][0]


def test_entry_31_critical_ht_failure_costs_ht_for_good(gurps):
    value = 31
    result = gurps.json(
        "fright",
        "鈴音",
        "--mod",
        str(9 - value),
        "--dice",
        ",".join(map(str, [6, 6, 5, 1, 1, 1, 1, 1, 1, *HT_FUMBLE, 2])),
    )
    assert [e["kind"] for e in result["effects"]] == ["condition", "fatigue", "injury", "lose_attribute"]
    view = result["character_after"]
    assert (view["stats"]["HT"], view["pools"]["FP"]["current"], view["pools"]["HP"]["current"]) == (10, 9, 9)
    check = result["sub_rolls"][3]
    assert (check["purpose"], check["expression"], check["outcome"]) == ("check:HT", "3D6<=11", "critical_failure")
    gurps.run("history", "void", "--yes", str(result["seq"]), "--reason", "test")
    view = gurps.json("char", "show", "鈴音")
    assert (view["stats"]["HT"], view["pools"]["FP"]["current"], view["pools"]["HP"]["current"]) == (11, 11, 11)


def test_composite_entries_expand_their_references(sqlite_gurps):
    result = sqlite_gurps.json(
        "fright", "鈴音", "--mod", "-17", "--dice", ",".join(map(str, [6, 6, 5, 1, 1, 1] + HT_FAIL + [3]))
    )
    assert [(e["kind"], e["entry"]) for e in result["effects"]] == [("injury", 18), ("condition", 17), ("trait", 22)]
    result = sqlite_gurps.json("fright", "鈴音", "--mod", "-31", "--dice", "6,6,5,1,1,1")
    assert [(e["kind"], e["entry"]) for e in result["effects"]] == [
        ("condition", 29),
        ("trait", 39),
        ("lose_attribute", 40),
    ]
    iq = result["effects"][2]
    assert (iq["stat"], iq["before"], iq["after"], iq["cascade"]) == ("IQ", 12, 11, "mental")


def test_void_refuses_when_a_gained_trait_was_bought_off_since(sqlite_gurps):
    result = sqlite_gurps.json("fright", "鈴音", "--mod", "-13", "--dice", "6,6,5,1,1,1")  # 22: -10
    name = result["traits_added"][0]["name"]
    renamed = sqlite_gurps.json("trait", "rename", "鈴音", name, "鏡の中に誰かいる")
    removed = sqlite_gurps.json("trait", "remove", "鈴音", "鏡の中に誰かいる", "--reason", "買い戻し")
    assert removed["cp_total"] == 100
    message = sqlite_gurps.error("history", "void", "--yes", str(result["seq"]), "--reason", "x", code=1)
    assert "depend on it" in message and f"#{renamed['seq']}" in message and f"#{removed['seq']}" in message
    sqlite_gurps.run("history", "void", "--yes", str(removed["seq"]), "--reason", "x")
    assert f"#{renamed['seq']}" in sqlite_gurps.error(
        "history", "void", "--yes", str(result["seq"]), "--reason", "x", code=1
    )
    voided = sqlite_gurps.json("history", "void", "--yes", "--cascade", str(result["seq"]), "--reason", "x")
    assert voided["cascade"] == [renamed["seq"]]
    view = sqlite_gurps.json("char", "show", "鈴音")
    assert (view["cp_total"], view["traits"]) == (100, [])
    assert sqlite_gurps.json("history", "verify")["ok"]


def test_void_says_what_it_reversed(sqlite_gurps):
    result = sqlite_gurps.json("fright", "鈴音", "--mod", "-31", "--dice", "6,6,5,1,1,1")
    out = sqlite_gurps.run("history", "void", "--yes", str(result["seq"]), "--reason", "wrong character").stdout
    assert "IQ 11 → 12" in out and "CP total 70 → 100" in out and "鈴音: condition 'coma' removed" in out
    assert "trait" in out and "removed" in out


# --- refusals ---


def test_refusals_write_nothing(sqlite_gurps):
    before = sqlite_gurps.json("history", "--all")
    sqlite_gurps.run("char", "add", "白露", "--npc", "--stat", "HT=10")
    before = sqlite_gurps.json("history", "--all")
    message = sqlite_gurps.error("fright", "白露", "--dice", "1,1,1", code=1)
    assert "no Will stat" in message and "HT" in message
    assert "HT" in sqlite_gurps.error("fright", "管狐", "--dice", "1,1,1", code=1)  # some entries roll HT
    assert "no character" in sqlite_gurps.error("fright", "誰", code=1)
    assert "not enough faces" in sqlite_gurps.error("fright", "鈴音", "--dice", "6,6,6", code=2)
    assert "only 3 used" in sqlite_gurps.error("fright", "鈴音", "--dice", "1,1,1,1", code=2)
    assert "choice" in sqlite_gurps.error("fright", "鈴音", "--choice", "5", "--dice", "1,1,1", code=2)
    assert sqlite_gurps.json("history", "--all") == before


def test_japanese_will_stat(sqlite_gurps):
    sqlite_gurps.run("char", "add", "千早", "--npc", "--stat", "意思=9", "--stat", "生命力=10")
    result = sqlite_gurps.json("fright", "千早", "--dice", "3,3,3")
    # stat names are canonical (ruleset aliases): 意思 is stored and rolled as Will
    assert (result["check"]["target"], result["check"]["will_stat"], result["check"]["outcome"]) == (
        9,
        "Will",
        "success",
    )


def test_a_character_without_fp_records_fatigue_without_a_pool(sqlite_gurps):
    # 刀矢 has neither FP nor ST to derive it from; his HP is his HT (docs/rules.md "Derived stats"), untouched
    result = sqlite_gurps.json("fright", "刀矢", "--mod", "-7", "--dice", "6,6,5,1,1,1,6,2")  # 13 vs 6: 14
    assert result["table"]["entry"] == 14
    fatigue = result["effects"][0]
    assert (fatigue["kind"], fatigue["amount"], fatigue["tracked"]) == ("fatigue", 6, False)
    assert "nor ST to derive it from" in result["notes"][0]
    assert result["character_after"]["pools"] == {"HP": {"max": 12, "current": 12}}
