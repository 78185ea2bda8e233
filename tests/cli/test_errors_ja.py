"""Issue 32: every refusal in the reader's language, one line, exit codes unchanged.

Each family once in Japanese and once in English, with the exact line: the dice parser
(campaign/core, translated where the error is shown), the manual dice, a stat, the core's
rules (reunion), the services' refusals (award, lifecycle), a span of time, and a void's
dependents named in words ("#6 は #5 の朦朧を解除しています"), never by op origin.
"""

from __future__ import annotations

import pytest

from campaign import i18n
from campaign.core.check_dice import modifier_terms
from campaign.core.dice import evaluate
from campaign.core.dice_source import ManualDice, describe_request
from campaign.core.reunion import reunion_threshold
from campaign.core.table_roll import table_purpose
from campaign.errors import BadInput, CampaignError, DiceError
from campaign.refusal_words import refusal_text, words_text
from campaign.seeds import load_tables
from tests.cli.conftest import Cli

# (command, exit code, Japanese line, English line)
ON_THE_PARTY = [
    (
        ("roll", "3D6<<12"),
        2,
        "エラー: 予期しない文字 '<' があります (5文字目)",
        "error: unexpected character '<' (column 5)",
    ),
    (
        ("roll", "2000D6"),
        2,
        "エラー: 1つの項で振れるダイスは 1000 個までです (2000 ではなく) (1文字目)",
        "error: at most 1000 dice in one term, not 2000 (column 1)",
    ),
    (
        ("roll", "3D6<=abc"),
        2,
        "エラー: 目標値は 3D6<=12 のように数にしてください ('abc' ではなく) (6文字目)",
        "error: the target must be a number, as in 3D6<=12, not 'abc' (column 6)",
    ),
    (
        ("roll", "3D6", "--dice", "1,2,3,4"),
        2,
        "エラー: --dice: 出目が 4 個ありますが、使ったのは 3 個です。余分を消してください",
        "error: --dice: 4 faces given but only 3 used; remove the extra ones",
    ),
    (
        ("roll", "3D6", "--dice", "1,2"),
        2,
        "エラー: --dice: 出目が足りません。あと 1 個必要です: ロール 3D6 に使う 3d6",
        "error: --dice: not enough faces, need 1 more: 3d6 for the roll 3D6",
    ),
    (
        ("fright", "鈴音", "--dice", "6,6,6,1"),
        2,
        "エラー: --dice: 出目が足りません。あと 2 個必要です: 鈴音 の恐怖表 に使う 3d6",
        "error: --dice: not enough faces, need 2 more: 3d6 for the fright table of 鈴音",
    ),
    (
        ("char", "set", "鈴音", "--stat", "HT=abc"),
        2,
        "エラー: 能力値 HT: 'abc' は整数ではありません",
        "error: stat HT: 'abc' is not a whole number",
    ),
    (
        ("award", "0", "--to", "鈴音"),
        2,
        "エラー: 報酬は 1〜10000 CP です (0 ではなく。間違えた報酬は取り消します)",
        "error: an award is 1..10000 CP, not 0 (a wrong award is voided, not reversed)",
    ),
    (("player", "add", ""), 2, "エラー: プレイヤーの名前は空にできません", "error: player name must not be empty"),
    (  # a noun's unknown verb: a repeat written where the verb goes
        ("table", "x101", "FEAR"),
        2,
        "エラー: コマンド 'x101' はありません。 (`campaign table --help` を参照)",
        "error: No such command 'x101' (see `campaign table --help`)",
    ),
    (
        ("char", "nope"),
        2,
        "エラー: コマンド 'nope' はありません。'note' のことですか? (`campaign char --help` を参照)",
        "error: No such command 'nope'. Did you mean 'note'? (see `campaign char --help`)",
    ),
    (
        ("time", "advance", "1d6"),
        2,
        "エラー: time: '1d6' はダイスで、期間ではありません。先に振って (campaign roll 1D6)、出た値を単位付きで"
        "渡してください (例: 4h)",
        "error: time: '1d6' is dice, not a span: roll it first (campaign roll 1D6) and give what it shows with "
        "a unit, e.g. 4h",
    ),
]


@pytest.mark.parametrize(("args", "code", "ja", "en"), ON_THE_PARTY, ids=lambda v: v if isinstance(v, str) else None)
def test_a_refusal_reads_in_the_chosen_language(sqlite_gurps: Cli, monkeypatch, args, code, ja, en):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert sqlite_gurps.error(*args, code=code) == ja
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert sqlite_gurps.error(*args, code=code) == en


def test_the_core_rules_refuse_in_japanese(gurps: Cli, monkeypatch):
    gurps.run("missing", "mark", "鈴音")
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert (
        gurps.error("scenario", "start", "二話", "--with", "鈴音", code=1)
        == "エラー: 鈴音 は行方不明なので、再会判定に成功するまでシナリオに参加できません"
    )
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert (
        gurps.error("scenario", "start", "二話", "--with", "鈴音", code=1)
        == "error: 鈴音 is missing and cannot join a scenario until its reunion check succeeds"
    )


def test_a_dead_character_is_refused_with_its_status_in_words(gurps: Cli, monkeypatch):
    gurps.run("char", "kill", "刀矢", "--reason", "戦死")
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert (
        gurps.error("scenario", "start", "二話", "--with", "刀矢", code=1)
        == "エラー: 刀矢 は死亡なので、シナリオに参加することはできません"
    )
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert (
        gurps.error("scenario", "start", "二話", "--with", "刀矢", code=1)
        == "error: 刀矢 is dead and cannot take part in a scenario"
    )


def test_a_void_names_the_dependent_and_what_it_did(gurps: Cli, monkeypatch):
    stunned = gurps.json("condition", "add", "鈴音", "stun")["seq"]
    cleared = gurps.json("condition", "clear", "鈴音", "stun")["seq"]
    void = ("history", "void", str(stunned), "--yes", "--reason", "x")
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert gurps.error(*void, code=1) == (
        f"エラー: #{stunned} を取り消せません。後のエントリーがこれに依存しています: #{cleared} は #{stunned} の朦朧を"
        "解除しています。先にそれらを取り消すか、--cascade で一緒に取り消してください"
    )
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    refused = gurps.error(*void, code=1)
    assert refused == (
        f"error: cannot void #{stunned}: later entries depend on it: #{cleared} clears the condition 'stunned' "
        f"that #{stunned} gave. Void them first, or add --cascade to void them too"
    )
    assert f"{stunned}.1" not in refused  # the op's origin is internal
    assert gurps.json("history", "show", str(stunned))["voided_by"] is None  # refused: nothing written


def test_two_dependents_are_listed_in_the_language_of_the_line(gurps: Cli, monkeypatch):
    marked = gurps.json("missing", "mark", "鈴音")["seq"]
    gurps.run("scenario", "start", "一話", "--with", "刀矢")
    ended = gurps.json("scenario", "end", "--dice", "鈴音=6")
    reunion = ended["reunions"][0]["seq"]
    found = gurps.json("missing", "found", "鈴音", "--reason", "霧が晴れた")["seq"]
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert gurps.error("history", "void", str(marked), "--yes", "--reason", "x", code=1) == (
        f"エラー: #{marked} を取り消せません。後のエントリーがこれに依存しています: #{reunion} は #{marked} から"
        f"行方不明の 鈴音 の再会判定を振っています、#{found} は #{marked} で始まった 鈴音 の行方不明を終わらせて"
        "います。先にそれらを取り消すか、--cascade で一緒に取り消してください"
    )


# --- the boundary itself: core errors keep English in str(), translate when shown ---------


@pytest.mark.parametrize(
    ("raise_it", "ja"),
    [
        (lambda: modifier_terms(True), "修正値は整数にしてください"),
        (lambda: modifier_terms({"射程": "遠い"}), "修正値 '射程' は整数にしてください ('遠い' ではなく)"),
        (lambda: reunion_threshold(-1), "捜索者の数は0以上にしてください (-1 ではなく)"),
        (lambda: evaluate("2D6", ManualDice.parse("1,x")), "--dice: 2 個目の出目 ('x') が整数ではありません"),
        (
            lambda: evaluate("3D6+(1D6)D6", ManualDice([])),
            "ダイスの個数は固定の数にしてください (ロールではなく) (5文字目)",
        ),
        (
            lambda: evaluate("2D(1D6)", ManualDice([])),
            "ダイスの面数は固定の数にしてください (ロールではなく) (3文字目)",
        ),
    ],
)
def test_core_errors_translate_where_they_are_shown(raise_it, ja):
    with pytest.raises(CampaignError) as raised:
        raise_it()
    error = raised.value
    i18n.use("ja")
    try:
        assert refusal_text(error) == ja
        i18n.use("en")
        assert refusal_text(error) == str(error)  # the English line is the one logs and tests read
    finally:
        i18n.use(None)


def test_words_are_the_english_string_and_translate_when_shown():
    request = describe_request(3, 6, table_purpose(load_tables()["FEAR"]), "鈴音")
    assert request == "3d6 for the fright table of 鈴音" and isinstance(request, str)
    i18n.use("ja")
    try:
        assert words_text(request) == "鈴音 の恐怖表 に使う 3d6"
    finally:
        i18n.use(None)


def test_a_message_without_template_values_is_shown_as_it_is():
    i18n.use("ja")
    try:
        assert refusal_text(BadInput("ready-made {text}")) == "ready-made {text}"
        assert refusal_text(DiceError("a line", column=3)) == "a line (3文字目)"
        assert refusal_text("plain words") == "plain words"
    finally:
        i18n.use(None)


def test_a_dependent_without_words_of_its_own_says_what_no_longer_holds(gurps: Cli, monkeypatch):
    first = gurps.json("missing", "mark", "鈴音")["seq"]
    gurps.run("scenario", "start", "一話", "--with", "刀矢")
    reunion = gurps.json("scenario", "end", "--dice", "鈴音=1")["reunions"][0]["seq"]  # found again
    again = gurps.json("missing", "mark", "鈴音")["seq"]
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert gurps.error("history", "void", str(reunion), "--yes", "--reason", "x", code=1) == (
        f"エラー: #{reunion} を取り消せません。後のエントリーがこれに依存しています: #{again} はもう成り立ちません: "
        f"鈴音 は行方不明です (#{first} から)。先にそれらを取り消すか、--cascade で一緒に取り消してください"
    )
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert gurps.error("history", "void", str(reunion), "--yes", "--reason", "x", code=1) == (
        f"error: cannot void #{reunion}: later entries depend on it: #{again} no longer applies: "
        f"鈴音 is missing (since #{first}). Void them first, or add --cascade to void them too"
    )
