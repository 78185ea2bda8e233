"""`history show` explains a check in sentences, in one language; the record stays in --json."""

from __future__ import annotations

from tests.cli.conftest import Cli

FRIGHT = ("fright", "鈴音", "--mod", "-3", "--dice", "6,5,5,6,6,6,3,3,3,3")  # 16 vs 8, FEAR+8 -> 26 (18 and 22)


def _field_lines(out: str, key: str) -> list[str]:
    """The value lines of one field of `history show` (its continuation lines included)."""
    lines, inside = [], False
    for line in out.splitlines():
        head, _, value = line.partition("  ")
        if head.strip() and not line.startswith(" "):
            inside = head.strip() == key
            if inside:
                lines.append(value.strip())
        elif inside:
            lines.append(line.strip())
    return lines


def test_a_fright_check_reads_as_sentences_in_japanese_and_english(gurps: Cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    seq = gurps.json(*FRIGHT)["seq"]
    japanese = gurps.run("--lang", "ja", "history", "show", str(seq)).stdout
    assert japanese.splitlines()[0].strip() == f"#{seq} 恐怖判定"
    assert _field_lines(japanese, "内容") == [
        "意志判定: 意志 11 -3 → 目標値 8",
        "恐怖判定表 26: 18と22の結果を両方受ける。",
        "鈴音: 気絶 3分、以後毎分の生命力判定で回復",
        f"鈴音: 新しい妄想 '未命名の妄想 (#{seq})' (-10 CP, 上限に数えない) を得た",
        f"仮の名前: campaign trait rename 鈴音 '未命名の妄想 (#{seq})' 新しい名前",
    ]
    assert _field_lines(japanese, "公正さ") == ["入力された出目 (検証はできません)"]
    subs = japanese.split("子の記録")[1].splitlines()[1:]
    assert [" ".join(line.split()) for line in subs] == [
        f"#{seq + 1} FEAR+8 [6,6,6]=26 恐怖判定表",
        f"#{seq + 2} 3D6<=11 [3,3,3]=9 成功 HT判定",
        f"#{seq + 3} 1D [3]=3 気絶の時間",
    ]
    # the record's own keys are not shown to a person (they stay in --json)
    for code in ("traits_added", "kept_indices", "combat_reflexes", "origin", "label_ja"):
        assert code not in japanese
    english = gurps.run("history", "show", str(seq)).stdout
    assert _field_lines(english, "what it means")[:3] == [
        "Will roll: Will 11 -3 → target 8",
        "fright table 26: Results 18 and 22 together.",
        "鈴音: unconscious for 3 minutes, then HT roll every minute to recover",
    ]
    assert _field_lines(english, "fairness") == ["typed in, not provable"]
    record = gurps.json("history", "show", str(seq))
    assert record["detail"]["check"]["modifier"] == -3 and record["fairness"] == "typed"


def test_2d6_checks_read_as_the_check_command_printed_them(tmp_path, monkeypatch):
    from tests.cli.test_checks import _seed

    monkeypatch.setenv("COLUMNS", "200")
    _seed(str(tmp_path / "campaign.db"))
    cli = Cli(str(tmp_path / "campaign.db"))
    opposed = cli.json("check", "oppose", "--active", "鈴音:技+2", "--passive", "刀矢:体", "--dice", "4,5,3,3")["seq"]
    hide = cli.json("check", "hide", "鈴音", "--observer", "刀矢", "--dice", "4,5,3,3")["seq"]
    coop = cli.json("check", "coop", "体", "--with", "鈴音", "--with", "刀矢", "--target", "12", "--dice", "2,5,6")[
        "seq"
    ]
    ja = {seq: cli.run("--lang", "ja", "history", "show", str(seq)).stdout for seq in (opposed, hide, coop)}
    assert _field_lines(ja[opposed], "内容") == [
        "能動 鈴音: 【技】3 + 2D6[4,5] + 2 = 14 → 勝ち",
        "受動 刀矢: 【体】4 + 2D6[3,3] = 10 → 負け",
        "勝者: 鈴音",
    ]
    assert _field_lines(ja[hide], "内容") == [
        "隠れる 鈴音: 【技】3 + 2D6[4,5] = 12 → 隠れた",
        "観察 刀矢: 【感】3 + 2D6[3,3] = 9 → 見逃し (<=-3)",
        "隠れている (誰も上回らなかった)",
    ]
    assert _field_lines(ja[coop], "内容") == ["【体】4 + 3D6[2,5,6]→[5,6] + 協力1 = 16 ≥ 12 → 成功", "協力: 鈴音, 刀矢"]
    # the coop line is the one `check coop` printed when it was rolled
    assert (
        "【体】4 + 3D6[2,5,6]→[5,6] + 協力1 = 16 ≥ 12 → 成功"
        in cli.run(
            "--lang",
            "ja",
            "check",
            "coop",
            "体",
            "--with",
            "鈴音",
            "--with",
            "刀矢",
            "--target",
            "12",
            "--dice",
            "2,5,6",
        ).stdout
    )
    english = cli.run("history", "show", str(opposed)).stdout
    assert _field_lines(english, "what it means")[-1] == "winner: 鈴音"


def test_a_void_says_what_it_reversed_in_the_language_shown(gurps: Cli):
    seq = gurps.json(*FRIGHT)["seq"]
    out = gurps.run("--lang", "ja", "history", "void", str(seq), "--reason", "テスト", "--yes").stdout
    assert out.splitlines()[1:] == [
        "  元に戻した: 鈴音: CP総計 90 → 100",
        f"  元に戻した: 鈴音: 特徴「未命名の妄想 (#{seq})」(-10 CP) を削除",
        "  元に戻した: 鈴音: 気絶を解除",
    ]
    again = gurps.json("history", "void", str(seq + 4), "--reason", "戻す", "--yes")
    assert again["reversed"] == [  # --json: the same lines in English, whatever the language
        "鈴音: CP total 100 → 90",
        f"鈴音: trait '未命名の妄想 (#{seq})' (-10 CP) restored",
        "鈴音: condition 'unconscious' restored",
    ]
