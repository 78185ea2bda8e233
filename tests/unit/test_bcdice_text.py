"""campaign.core.bcdice_text: BCDice's answer texts from our records (pure)."""

from __future__ import annotations

import re

from campaign.core.bcdice_text import command_pattern, dice_answer, prepared, table_answer


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
