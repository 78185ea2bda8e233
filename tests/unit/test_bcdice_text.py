"""campaign.core.bcdice_text: BCDice's answer texts from our records (pure)."""

from __future__ import annotations

import re

from campaign.core.bcdice_text import (
    command_pattern,
    dice_answer,
    dice_list,
    prepared,
    repeat_of,
    repeat_text,
    shown_expression,
    table_answer,
)


def test_prepared_reads_secret_target_first_and_comment():
    assert prepared("GURPS", "S12-3d6 受け 盾") == (True, "S3D6<=12", "受け 盾")
    assert prepared("GURPS", "３Ｄ６<=12") == (False, "3D6<=12", None)
    assert prepared("DiceBot", "12-3D6") == (False, "12-3D6", None)  # only GURPS reads it as a success roll
    assert prepared("GURPS", "SKILL") == (False, "SKILL", None)  # S then a letter: no secret prefix


def test_sums_show_each_term_and_numbers_as_written():
    answer = dice_answer("DiceBot", "2D6+1D4-1", [3, 4, 2], 8, None, None, None)
    assert answer.text == "(2D6+1D4-1) ＞ 7[3,4]+2[2]-1 ＞ 8"
    assert (answer.success, answer.failure, answer.critical, answer.fumble) == (False, False, False, False)
    assert dice_answer("DiceBot", "1D20", [4], 4, None, None, None).text == "(1D20) ＞ 4"
    assert dice_answer("DiceBot", "1D6+2", [1], 3, None, None, None).text == "(1D6+2) ＞ 1[1]+2 ＞ 3"


def test_gurps_words_follow_the_recorded_outcome():
    assert (
        dice_answer("GURPS", "3D6+1<=16", [6, 5, 6], 18, 16, "failure", -2).text
        == "(3D6+1<=16) ＞ 17[6,5,6]+1 ＞ 18 ＞ 自動失敗(失敗度：-2)"
    )
    fumble = dice_answer("GURPS", "3D6<=12", [6, 6, 6], 18, 12, "critical_failure", -6)
    assert fumble.text.endswith("＞ ファンブル(失敗度：-6)") and fumble.fumble and fumble.failure
    dicebot = dice_answer("DiceBot", "3D6<=12", [1, 1, 1], 3, 12, "critical_success", 9)
    assert dicebot.text == "(3D6<=12) ＞ 3[1,1,1] ＞ 3 ＞ 成功" and not dicebot.critical
    homebrew = dice_answer("Campaign2D6", "2D6>=8", [6, 6], 12, 8, "critical_success", 4)
    assert homebrew.text == "(2D6>=8) ＞ 12[6,6] ＞ 12 ＞ 大成功" and homebrew.critical


def test_table_frame_and_extra_rolls():
    assert table_answer("crt", 13, "要約") == "クリティカル表(13) ＞ 要約"
    assert table_answer("YSFMB", 3, "二回", [("YSFMB", 9, "甲"), ("YSFMB", 11, "乙")]) == (
        "妖魔夜行スペシャルファンブル表(3) ＞ 二回 ／ 妖魔夜行スペシャルファンブル表(9) ＞ 甲 ／ "
        "妖魔夜行スペシャルファンブル表(11) ＞ 乙"
    )


def test_command_pattern_tables_are_whole_words():
    pattern = re.compile(command_pattern("GURPS", ["CRT", "FEAR"]), re.IGNORECASE)
    assert pattern.match("FEAR+12") and pattern.match("crt 頭") and pattern.match("S3D6<=9")
    assert not pattern.match("CRTで") and not pattern.match("fearless") and not pattern.match("Sよろしく")
    assert not re.match(command_pattern("DiceBot"), "CRT", re.IGNORECASE)


def test_prepared_reads_every_target_first_form_bcdice_gurps_takes():
    assert prepared("GURPS", "12-3D")[1] == "3D6<=12"
    assert prepared("GURPS", "17-1-3D6")[1] == "3D6<=16"
    assert prepared("GURPS", "12+2-3D6")[1] == "3D6<=14"
    assert prepared("GURPS", "14-3D6-1")[1] == "3D6-1<=14"
    assert prepared("GURPS", "+12-3D6+")[1] == "3D6<=12"
    assert prepared("GURPS", "12-3D8")[1] == "12-3D8"  # not a success roll: left as typed


def test_repeat_prefixes_and_layout():
    assert repeat_of("x3 3D6<=12 回避") == (3, False, "3D6<=12 回避")
    assert repeat_of("REP2 CRT") == (2, False, "CRT")
    assert repeat_of("repeat10　2D6") == (10, False, "2D6")  # a full-width space
    assert repeat_of("Sx2 2D6") == repeat_of("x2 S2D6") == (2, True, "2D6")
    assert repeat_of("x3") is None and repeat_of("3 3D6") is None and repeat_of("xx3 2D6") is None
    assert repeat_text(["a", "b"]) == "#1\na\n\n#2\nb"


def test_shown_expression_is_bcdice_s_spelling():
    assert shown_expression("d6+d66") == "1D6+D66"
    assert shown_expression("3D6<=(9+1)") == "3D6<=10"
    assert shown_expression("3D6=<12+2") == "3D6<=14"
    assert shown_expression("3D6!=12") == "3D6<>12"
    assert shown_expression("10D6") == "10D6"


def test_dice_lists_for_every_shape():
    assert dice_list("(1D6*3)", [2]) == "(2[2]*3)"
    assert dice_list("2D6-(1D6)", [3, 4, 5]) == "7[3,4]-(5[5])"
    assert dice_list("2D6KH1+1D4", [4, 3, 2]) == "4[3,4]+2[2]"  # a keep's faces sorted, as BCDice shows them
    assert dice_list("1D6", [3]) is None and dice_list("D66", [3, 4]) is None
    assert dice_list("1D6KH1", [3]) == "3[3]"
    assert dice_list("2D6", [3]) is None  # faces that do not fit: no list rather than a wrong one


def test_gurps_words_only_for_three_d6_compared_with_at_most():
    plain = dice_answer("GURPS", "2D6+3>=10", [3, 4], 10, 10, "success", 0)
    assert plain.text == "(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"
    d100 = dice_answer("GURPS", "1D100<=87", [98], 98, 87, "failure", -11)
    assert d100.text == "(1D100<=87) ＞ 98 ＞ 失敗"
    split = dice_answer("GURPS", "1D6+2D6<=12", [3, 4, 5], 12, 12, "success", 0)
    assert split.text == "(1D6+2D6<=12) ＞ 3[3]+9[4,5] ＞ 12 ＞ 成功(成功度：0)"
    assert dice_answer("GURPS", "3D10<=12", [3, 4, 5], 12, 12, "success", 0).text.endswith("＞ 成功")


def test_barabara_lists_each_die_and_counts_successes():
    assert dice_answer("GURPS", "3B6", [3, 4, 5], 12, None, None, None).text == "(3B6) ＞ 3,4,5"
    assert dice_answer("GURPS", "3B6>=4", [3, 4, 5], 2, 4, None, None).text == "(3B6>=4) ＞ 3,4,5 ＞ 成功数2"
